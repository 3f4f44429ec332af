"""Importance sampling around the MAP (Welinder et al. 2013, §3.1, eqs. 8–10).

Draws θ from a proposal q centred on the MAP, weights them by
p(θ | S, Y_L) / q(θ) (eq. 8), smooths the weights by Pareto-smoothed
importance sampling (PSIS; Vehtari et al. 2024, via ArviZ's ``arviz-stats``) and
reports the effective sample size and the Pareto k̂ of the weights.

Proposals: ``"diagonal"`` is the paper's (eq. 10 with a diagonal covariance
from a per-axis fit at the MAP); ``"full"`` (default) uses the full
finite-difference Hessian. When k̂ > 0.7 the weights are unreliable, so the
sampler adapts: it refits the proposal to the weighted draws, switches to a
heavier-tailed multivariate t and widens it, and keeps the round with the
smallest k̂. A caller whose posterior is skewed along a few coordinates (a
scale's logarithm) and near Normal given them names them (``heavy_axes``): a
Student-t on those and the Normal of the rest given them comes first. If
every round stays above 0.7 the result says so
(``ImportanceSamplingWarning``) rather than silently returning a confident
answer; and if the weights have collapsed onto a handful of draws (ESS below
``min_ess``), their weighted answer would be a near point mass, so the
draws of the first proposal — the Laplace approximation, a Normal at the MAP
with the inverse Hessian as covariance — are returned with equal weights
instead: wider and approximate, and labelled as such in ``proposal``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy import special, stats

from ..exceptions import ImportanceSamplingWarning
from ..inputs import check_choice
from .map import hessian

__all__ = ["PosteriorDraws", "importance_sample", "psis", "psis_loo", "psis_log_predictive", "PARETO_K_GOOD",
           "PROPOSALS"]

#: The proposals around the MAP: a Normal with the full inverse Hessian, or with its diagonal only.
PROPOSALS = ("full", "diagonal")
#: Pareto k̂ above which importance-sampling estimates are unreliable (Vehtari et al. 2024).
PARETO_K_GOOD = 0.7


@dataclass
class PosteriorDraws:
    """Weighted posterior draws.

    Attributes
    ----------
    u : array, shape (M, P)
        Draws in unconstrained space.
    weights : array, shape (M,)
        Normalised importance weights (sum to 1; PSIS-smoothed).
    ess : float
        Effective sample size ``1 / Σ w²``.
    pareto_k : float
        Pareto k̂ of the raw weights; > 0.7 means unreliable.
    proposal : str
        Description of the proposal that produced the draws.
    rounds : list of dict
        Each adaptation round's proposal, k̂ and ESS (for NUTS: its
        convergence diagnostics).
    inference_data : arviz.InferenceData or None
        The sampler's own record (NUTS: PyMC's, unconstrained ``u``).
    log_normalizer : float
        log ∫ exp(log_posterior(u)) du estimated from the raw (unsmoothed)
        importance ratios of the draws' round, log mean_m p̃(u_m) / q(u_m):
        the evidence when the log posterior is a normalised prior times the
        likelihood (unbiased on the ratio scale; unreliable when k̂ > 0.7).
        NaN when the sampler gives none (NUTS).
    """

    u: np.ndarray
    weights: np.ndarray
    ess: float
    pareto_k: float
    proposal: str
    rounds: list = field(default_factory=list)
    inference_data: object = None
    log_normalizer: float = np.nan


def _psislw(log_ratios):
    """PSIS of log importance ratios along the last axis: (smoothed log ratios, k̂).

    ArviZ's implementation (``arviz_stats.base.array_stats.psislw``, the
    numpy interface of ``arviz-stats``; importing it costs ~0.3 s where the
    whole of ``arviz`` costs ~2 s, which dominated a small ``spe estimate``).
    That function is written for PSIS-LOO: it takes log-likelihood values
    and smooths the ratios ``exp(−ary)``, hence the sign. Rows it cannot
    smooth (too few draws for a Pareto tail, or a tail of equal values: it
    raises ``ValueError``, or ``IndexError`` below 5 draws), and rows it
    returns NaN for (ratios spanning thousands of nats, or most of them
    equal), come back unsmoothed with k̂ = inf, as ``arviz.psislw``
    returned them.

    Parameters
    ----------
    log_ratios : array, shape (M,) or (R, M)

    Returns
    -------
    smoothed : array, same shape
    k : float or array, shape (R,)
    """
    from arviz_stats.base import array_stats

    lr = np.asarray(log_ratios, dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            smoothed, k = array_stats.psislw(-lr)
            return _unsmoothed_where_nan(lr, np.asarray(smoothed, dtype=float), np.asarray(k, dtype=float))
        except (ValueError, IndexError):
            if lr.ndim == 1:
                return lr.copy(), np.inf
    rows = [_psislw(row) for row in lr]
    return np.stack([r[0] for r in rows]), np.array([r[1] for r in rows])


def _unsmoothed_where_nan(lr, smoothed, k):
    """ArviZ's result, with each row it could not smooth (a NaN, or no finite k̂) replaced by its raw log ratios
    and k̂ = inf."""
    bad = ~np.all(np.isfinite(smoothed), axis=-1) | ~np.isfinite(k)
    if lr.ndim == 1:
        return (lr.copy(), np.inf) if bad else (smoothed, float(k))
    smoothed[bad] = lr[bad]
    return smoothed, np.where(bad, np.inf, k)


def psis(log_weights):
    """Pareto-smoothed normalised weights and k̂ (ArviZ's PSIS, see :func:`_psislw`).

    Parameters
    ----------
    log_weights : array, shape (M,)
        Unnormalised log importance weights; ``-inf`` allowed (weight 0).

    Returns
    -------
    weights : array, shape (M,)
        Normalised smoothed weights.
    k : float
        Pareto shape estimate k̂ (``inf`` if fewer than 2 finite weights, or
        if ArviZ cannot smooth them — too few draws, or NaN weights when they
        span thousands of nats; the raw normalised weights are returned then).
    """
    lw = np.asarray(log_weights, dtype=float)
    ok = np.isfinite(lw)
    w = np.zeros(lw.size)
    if ok.sum() < 2:
        if ok.sum() == 1:
            w[ok] = 1.0
        return w, np.inf
    # where ArviZ cannot smooth them (the weights span thousands of nats: a proposal far from the posterior),
    # _psislw keeps the raw weights with k̂ = inf, so the caller treats the draws as unreliable
    smoothed, k = _psislw(lw[ok] - lw[ok].max())
    sw = np.exp(smoothed - smoothed.max())
    w[ok] = sw / sw.sum()
    return w, float(k)


def psis_loo(log_lik, weights):
    """Leave-one-out log predictive densities from weighted posterior draws (PSIS-LOO).

    For labeled item i, p(y_i | Y without i) = 1 / E_post[1 / p(y_i | θ)]:
    the posterior draws are re-weighted by 1 / p(y_i | θ_m), the ratios
    Pareto-smoothed (:func:`_psislw`; Vehtari, Gelman & Gabry 2017, eq. 10),
    and p(y_i | θ) averaged under the smoothed weights.

    Parameters
    ----------
    log_lik : array, shape (M, n)
        log p(y_i | s_i, θ_m) of the n labeled items under the M draws.
    weights : array, shape (M,)
        Normalised posterior weights of the draws (importance weights).

    Returns
    -------
    loo : array, shape (n,)
        log p(y_i | S, Y_L without i).
    k : array, shape (n,)
        Pareto k̂ of each item's ratios (above 0.7 the estimate for that
        item is unreliable: the item moves the posterior a lot).
    """
    log_lik = np.asarray(log_lik, dtype=float)
    ok = np.asarray(weights) > 0
    ll = log_lik[ok]
    if ll.shape[1] == 0:
        return np.zeros(0), np.zeros(0)
    return psis_log_predictive(ll.T, np.broadcast_to(np.log(np.asarray(weights)[ok]), ll.T.shape))


def psis_log_predictive(log_lik, log_weights):
    """log p(y_A | the other labels) of R groups of labels, each under its own weighted posterior draws (PSIS).

    For each row r, p(y_A) = 1 / E_r[1 / p(y_A | θ)], the expectation over
    the draws weighted by ``log_weights[r]`` (the posterior given every
    label, y_A among them), by Pareto-smoothed importance sampling of the
    ratios 1 / p(y_A | θ_m) (:func:`_psislw`; Vehtari, Gelman & Gabry 2017):
    :func:`psis_loo` is the case of one item per row.

    Parameters
    ----------
    log_lik : array, shape (R, M)
        log p(y_A | θ_m) of each row's group of labels under the M draws.
    log_weights : array, shape (R, M)
        Log posterior weights of the draws per row (unnormalised; finite).

    Returns
    -------
    log_predictive : array, shape (R,)
    k : array, shape (R,)
        Pareto k̂ of each row's ratios.
    """
    ll = np.asarray(log_lik, dtype=float)
    lw = np.asarray(log_weights, dtype=float) - ll
    lw = lw - lw.max(axis=1, keepdims=True)
    smoothed, k = _psislw(lw)
    smoothed = smoothed - special.logsumexp(smoothed, axis=1, keepdims=True)
    return special.logsumexp(smoothed + ll, axis=1), np.atleast_1d(np.asarray(k, dtype=float))


def _positive_definite_cov(h):
    """Covariance −H⁻¹ with eigenvalues clipped to stay positive definite.

    Non-finite curvature (a finite difference that left the support) is
    replaced by unit variance on that axis and no correlation.
    """
    h = np.array(h, dtype=float)
    bad = ~np.isfinite(h)
    if bad.any():
        rows = bad.any(axis=1)
        h[rows, :] = 0.0
        h[:, rows] = 0.0
        h[rows, rows] = -1.0
    cov = -np.linalg.pinv(h)
    cov = 0.5 * (cov + cov.T)
    vals, vecs = np.linalg.eigh(cov)
    if np.all(vals > 0) and np.all(np.isfinite(vals)):
        return cov
    # fall back per axis where the curvature is wrong
    diag = np.diag(h)
    var = np.where(diag < 0, -1.0 / np.where(diag < 0, diag, -1.0), 1.0)
    floor = max(np.max(vals[vals > 0]) * 1e-6, 1e-8) if np.any(vals > 0) else 1e-2
    vals = np.where(vals > floor, vals, np.maximum(np.median(var), floor))
    return (vecs * vals) @ vecs.T


def _weighted_moments(u, w):
    mean = w @ u
    d = u - mean
    cov = (d * w[:, None]).T @ d
    return mean, 0.5 * (cov + cov.T)


class _ConditionalProposal:
    """A Student-t (df = 4) on the ``heavy`` coordinates and, given them, the Normal of the others conditional
    on them, both from one Normal (mean, cov): for a posterior skewed or heavy-tailed along a few coordinates (a
    scale's logarithm) and near Normal given them, whose weights a joint Normal or a joint t spoils in many
    dimensions. ``rvs`` and ``logpdf`` as scipy's frozen distributions."""

    def __init__(self, mean, cov, heavy, df=4):
        p = mean.size
        self.heavy = np.unique(np.arange(p)[np.asarray(heavy, dtype=int)])
        self.rest = np.setdiff1d(np.arange(p), self.heavy)
        h, r = self.heavy, self.rest
        self.mean = mean
        self.marginal = stats.multivariate_t(mean[h], cov[np.ix_(h, h)], df=df, allow_singular=True)
        self.slope = cov[np.ix_(r, h)] @ np.linalg.pinv(cov[np.ix_(h, h)])  # E[rest | heavy] moves by it
        conditional = cov[np.ix_(r, r)] - self.slope @ cov[np.ix_(h, r)]
        self.conditional = (stats.multivariate_normal(np.zeros(r.size), (conditional + conditional.T) / 2,
                                                      allow_singular=True) if r.size else None)

    def _offset(self, u):
        return (u[:, self.heavy] - self.mean[self.heavy]) @ self.slope.T

    def rvs(self, size, random_state):
        u = np.empty((size, self.mean.size))
        u[:, self.heavy] = np.reshape(self.marginal.rvs(size=size, random_state=random_state), (size, -1))
        if self.conditional is not None:
            u[:, self.rest] = (self.mean[self.rest] + self._offset(u)
                               + np.reshape(self.conditional.rvs(size=size, random_state=random_state), (size, -1)))
        return u

    def logpdf(self, u):
        lp = np.atleast_1d(self.marginal.logpdf(u[:, self.heavy]))
        if self.conditional is not None:
            lp = lp + np.atleast_1d(self.conditional.logpdf(u[:, self.rest] - self.mean[self.rest] - self._offset(u)))
        return lp


def importance_sample(log_posterior, u_map, *, draws=1000, rng=None, proposal="full", max_rounds=4,
                      min_ess=None, curvature_log_posterior=None, hessian_at_map=None, heavy_axes=None):
    """Importance sampling of the posterior around its MAP.

    Parameters
    ----------
    log_posterior : callable
        u (M, P) → (M,), unnormalised log density in unconstrained space.
    u_map : array, shape (P,)
        The MAP (proposal centre).
    draws : int
        M, draws per round.
    rng : numpy.random.Generator or int or None
    proposal : {"full", "diagonal"}
        Covariance of the first round's Normal proposal: full
        finite-difference Hessian, or the paper's per-axis fit (§3.1).
    max_rounds : int
        Adaptation rounds tried while k̂ > 0.7.
    min_ess : float, optional
        Below this ESS (default ``max(20, draws / 50)``), with k̂ > 0.7, fall
        back to the equally weighted Laplace approximation.
    curvature_log_posterior : callable, optional
        A smooth version of ``log_posterior`` for the Hessian (e.g. without a
        hard identification constraint, so finite differences at a MAP near
        the constraint's boundary stay finite). Default: ``log_posterior``.
    hessian_at_map : array, shape (P, P), optional
        The log posterior's exact Hessian at the MAP, when the caller has it (then no finite differences;
        ``proposal="diagonal"`` keeps its diagonal).
    heavy_axes : sequence of int, optional
        Coordinates along which the posterior may be skewed or heavy-tailed while near Normal given them (the
        logarithm of a scale). The first proposal is then a Student-t (df = 4) on them and the Normal of the others
        given them (both from the inverse Hessian), before the ``max_rounds`` rounds below; default: none (a Normal
        on every coordinate first). ValueError when empty or out of range.

    Returns
    -------
    PosteriorDraws

    Warns
    -----
    ImportanceSamplingWarning
        If no round reaches k̂ ≤ 0.7.
    """
    check_choice("proposal", proposal, PROPOSALS)
    rng = np.random.default_rng(rng)
    u_map = np.asarray(u_map, dtype=float)
    if hessian_at_map is None:
        h = hessian(curvature_log_posterior or log_posterior, u_map, diagonal_only=proposal == "diagonal")
    else:
        h = np.asarray(hessian_at_map, dtype=float)
        h = np.diag(np.diag(h)) if proposal == "diagonal" else h
    cov = _positive_definite_cov(h)
    mean = u_map
    rounds, best, laplace = [], None, None
    min_ess = max(20.0, draws / 50) if min_ess is None else min_ess
    plan = [("normal", 1.0), ("t", 1.5), ("t", 2.0), ("t", 3.0)][:max_rounds]
    if heavy_axes is not None:
        heavy_axes = _checked_axes(heavy_axes, u_map.size)
        plan = [("conditional", 1.0)] + plan
    for r, (kind, widen) in enumerate(plan):
        c = cov * widen**2
        if kind == "normal":
            q = stats.multivariate_normal(mean, c, allow_singular=True)
        elif kind == "conditional":
            q = _ConditionalProposal(mean, c, heavy_axes)
        else:
            q = stats.multivariate_t(mean, c, df=4, allow_singular=True)
        u = np.atleast_2d(q.rvs(size=draws, random_state=rng)).reshape(draws, -1)
        lp = log_posterior(u)
        lw = lp - q.logpdf(u)
        w, k = psis(lw)
        ess = 1.0 / np.sum(w**2) if np.any(w > 0) else 0.0
        label = _round_label(kind, widen, proposal if r == 0 or plan[r - 1][0] == "conditional" else None,
                             heavy_axes)
        rounds.append({"proposal": label, "pareto_k": k, "ess": ess})
        log_normalizer = float(special.logsumexp(lw) - np.log(draws))
        cand = PosteriorDraws(u, w, ess, k, label, rounds, log_normalizer=log_normalizer)
        if kind == "normal" and laplace is None:
            laplace = PosteriorDraws(u, np.full(draws, 1.0 / draws), float(draws), k,
                                     f"Laplace approximation (normal at the MAP, {proposal} Hessian), equal weights",
                                     rounds, log_normalizer=log_normalizer)
        if best is None or (k < best.pareto_k) or (k == best.pareto_k and ess > best.ess):
            best = cand
        if k <= PARETO_K_GOOD:
            break
        # refit the proposal to what the weighted draws say about the posterior (not after the conditional
        # proposal: the Normal next is the Laplace approximation at the MAP)
        if kind != "conditional" and ess > 5 * u.shape[1]:
            mean, wcov = _weighted_moments(u, w)
            if np.all(np.linalg.eigvalsh(wcov) > 0):
                cov = wcov
    best.rounds = rounds
    if best.pareto_k > PARETO_K_GOOD:
        fallback = best.ess < min_ess and laplace is not None
        warnings.warn(
            f"importance sampling is unreliable: Pareto k̂ = {best.pareto_k:.2f} > {PARETO_K_GOOD} "
            f"(ESS {best.ess:.0f} of {draws}) after {len(rounds)} proposals; the posterior is far "
            "from Normal around its MAP"
            + (", so the draws are taken from the Laplace approximation (a Normal at the MAP) with equal "
               "weights: an approximation, and the bands are only indicative" if fallback else "")
            + ". Run with inference='nuts' (--inference nuts), the reference sampler, or try other families.",
            ImportanceSamplingWarning,
            stacklevel=2,
        )
        if fallback:
            return laplace
    return best


def _checked_axes(axes, p):
    """``heavy_axes`` as sorted, distinct 0-based coordinates of P; ValueError when empty or out of range."""
    axes = np.asarray(axes, dtype=int).ravel()
    if axes.size == 0 or np.any((axes < -p) | (axes >= p)):
        raise ValueError(f"heavy_axes must name one or more of the {p} coordinates, got {axes.tolist()}")
    return np.unique(np.arange(p)[axes])


def _listed(axes):
    return [] if axes is None else np.asarray(axes).tolist()


def _round_label(kind, widen, hessian, heavy_axes):
    """A round's proposal as ``PosteriorDraws.proposal`` says it; ``hessian`` the Hessian it was built from
    ("full"/"diagonal"), or None when refitted to the weighted draws."""
    name = {"normal": "normal", "t": "t(df=4)",
            "conditional": f"t(df=4) on coordinates {_listed(heavy_axes)}, normal given them"}[kind]
    return f"{name} ×{widen:g}" + (f", {hessian} Hessian" if hessian else ", refitted to weighted draws")
