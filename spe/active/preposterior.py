"""How much the labels of items not yet labeled are expected to reduce a target's posterior variance.

The preposterior analysis (Raiffa & Schlaifer 1961) of the weighted posterior draws (θ_m, w_m), m = 1..M.
Observing the label y of an item with p_m = p(y = 1 | item, θ_m) reweights draw m by p_m (y = 1) or 1 − p_m
(y = 0); the expected posterior variance of a target T (its values T_m, :mod:`spe.active.targets`) after that label is

    Var(T) − Cov(T, p)² / (p̄ (1 − p̄)),

exactly (Cov and the means over the weighted draws; p̄(1 − p̄) = Var(p) + E[p(1 − p)], the variance of the
label). For several labels the same quantities are treated as jointly Gaussian — the labels' covariances
Cov(p_i, p_j) between items and the Bernoulli variance E[p_i(1 − p_i)] of each item's own label — and each
label conditions the others (Gram–Schmidt in the draws' space, one label at a time): the greedy choice then
does not pick k near-duplicates, since an item like one already chosen adds little. That is the linear
approximation of a batch's value (the ensemble Kalman update, Evensen 1994); for one label it is exact.

The gains are Monte Carlo estimates from M draws. :meth:`Preposterior.gains` can return them under a Bayesian
bootstrap of the draws instead (Rubin 1981: each draw's weight times an Exp(1) multiplier; to first order, the
draws' rows of the current covariances reweighted, without conditioning on the labels chosen so far again), so
that a choice by their argmax is random among candidates whose gains differ by less than their Monte Carlo
error rather than set by that error — which, where the gains are flat, piles every label at one end of the
scores.
"""

from __future__ import annotations

import numpy as np

__all__ = ["Preposterior"]


class Preposterior:
    """The expected reduction of a target's posterior variance as labels of candidate items are added.

    Parameters
    ----------
    target_draws : array, shape (M, R)
        The target's R components under each draw.
    probabilities : array, shape (M, B)
        p(y = 1 | candidate, θ_m) of B candidates (an item, or a group of exchangeable items each of which can
        be labeled in turn).
    weights : array, shape (M,)
        The draws' weights (normalised here).
    """

    def __init__(self, target_draws, probabilities, weights):
        w = np.asarray(weights, dtype=float)
        w = w / w.sum()
        root = np.sqrt(w)[:, None]
        t = np.asarray(target_draws, dtype=float)
        p = np.asarray(probabilities, dtype=float)
        mean_p = w @ p
        a = root * (t - w @ t)
        self.u = root * (p - mean_p)           # (M, B): the label's θ-part, centred and weighted
        self.a = a                             # (M + E, R): the target's, E the labels chosen so far
        self.extra = np.zeros((0, p.shape[1]))  # its coordinates on the chosen labels' own noise
        self.noise = np.maximum(mean_p - w @ (p * p), 0.0)  # E[p(1 − p)]: each new label's own variance
        self.cov = a.T @ self.u                # (R, B): Cov(T_r, y_b) given the labels chosen so far
        self.norm = np.einsum("mb,mb->b", self.u, self.u) + self.noise  # Var(y_b) given them
        self.variance = np.einsum("mr,mr->r", a, a)  # (R,): Var(T_r) given them

    @property
    def uncertainty(self) -> float:
        """The target's posterior SD (the root mean variance over its R components), given the labels so far."""
        return float(np.sqrt(max(self.variance.mean(), 0.0)))

    def gains(self, rng=None):
        """The expected reduction of the target's mean variance (over R) by one more label of each candidate,
        given the labels chosen so far: (B,), ≥ 0.

        With a ``numpy.random.Generator``: the same under one Bayesian bootstrap of the M draws (each draw's
        weight times an Exp(1) multiplier, to first order), a draw from the gains' Monte Carlo error.
        """
        cov, norm = (self.cov, self.norm) if rng is None else self._bootstrap(rng)
        return (cov ** 2).sum(axis=0) / np.maximum(norm, 1e-300) / self.variance.size

    def _bootstrap(self, rng):
        """Cov(T, y) (R, B) and Var(y) (B,) with the M draws' rows weighted by Exp(1) multipliers."""
        m = self.u.shape[0]
        v = rng.exponential(size=m)
        v = (v / v.mean())[:, None]
        cov = (self.a[:m] * v).T @ self.u + self.a[m:].T @ self.extra
        norm = np.einsum("mb,mb->b", self.u * v, self.u) + np.einsum("eb,eb->b", self.extra, self.extra) + self.noise
        return cov, norm

    def condition(self, b) -> float:
        """Add one label of candidate ``b`` (its label not yet known): every other candidate's and the target's
        covariances become those given it. Returns the expected reduction of the target's posterior SD."""
        before = self.uncertainty
        d = max(self.norm[b], 1e-300)
        g_u, g_extra, g_noise = self.u[:, b] / np.sqrt(d), self.extra[:, b] / np.sqrt(d), np.sqrt(self.noise[b] / d)
        alpha = self.cov[:, b] / np.sqrt(d)                           # (R,) the target on the new direction
        beta = self.u.T @ g_u + self.extra.T @ g_extra                # (B,) every candidate on it
        self.u -= np.outer(g_u, beta)
        self.extra = np.vstack([self.extra - np.outer(g_extra, beta), -g_noise * beta[None, :]])
        self.cov -= np.outer(alpha, beta)
        self.a = np.vstack([self.a - np.outer(np.r_[g_u, g_extra], alpha), -g_noise * alpha[None, :]])
        self.norm = np.maximum(self.norm - beta ** 2, self.noise)
        self.variance = np.maximum(self.variance - alpha ** 2, 0.0)
        return before - self.uncertainty
