"""Bennett's (2003) asymmetric class-conditional densities as a calibration method.

Each class's scores (read as log-odds, §4.1) are fitted by maximum likelihood with an asymmetric Laplace
(eq. 1) or an asymmetric Gaussian (eq. 2); p(y = 1 | s) follows by Bayes' rule with the add-one class
prior P(c) = (|c| + 1)/(n + 2) (§4.1). The fit is §3.3's: for a fixed mode θ the spreads have closed forms
(eq. 3 for the Laplace's inverse scales β, γ; eqs. 4–5 for the Gaussian's σ_l, σ_r), so θ is chosen by a
sweep over the sorted scores with running sums, among the scores and nine evenly spaced points in each gap
between adjacent scores ("intervals between adjacent scores are divided by 10", §4.1).

Bennett replaces an infinite inverse scale (every item of a class on one side of θ at θ itself) by "a very
large constant"; here no spread falls below 10⁻³ of the labeled scores' range (:data:`MIN_SPREAD`), which
also keeps a class with one labeled item a narrow density instead of a point mass.

The asymmetric Gaussian's log-odds are quadratic in the score on each side, so p(y = 1 | s) need not be
monotone: far beyond the labeled scores the class with the wider tail wins (Zhang & Yang 2004, §2, make the
same remark of Gaussians). The asymmetric Laplace's log-odds are piecewise linear (Zhang & Yang 2004, §3.4).
"""

from __future__ import annotations

import numpy as np

from .base import Calibrator, register

__all__ = ["AsymmetricLaplace", "AsymmetricGaussian", "laplace_spreads", "gaussian_spreads", "sweep",
           "MIN_SPREAD"]

#: The smallest spread (1/β, 1/γ or σ), as a fraction of the labeled scores' range (log-odds units).
MIN_SPREAD = 1e-3

_SUBDIVISIONS = 10


def candidate_modes(x):
    """The sorted scores and nine evenly spaced points in each gap between adjacent distinct scores: (C,)."""
    u = np.unique(x)
    if u.size == 1:
        return u
    steps = np.arange(_SUBDIVISIONS) / _SUBDIVISIONS
    inner = (u[:-1, None] + steps[None, :] * np.diff(u)[:, None]).ravel()
    return np.append(inner, u[-1])


def side_sums(x, theta):
    """Running sums of the sorted scores ``x`` on each side of each mode ``theta`` (C,): (N_l, S_l, S2_l, N_r,
    S_r, S2_r), each (C,); the left side is x ≤ θ (Bennett 2003, §3.3.1)."""
    xs = np.sort(x)
    c1 = np.concatenate([[0.0], np.cumsum(xs)])
    c2 = np.concatenate([[0.0], np.cumsum(xs * xs)])
    nl = np.searchsorted(xs, theta, side="right")
    return nl, c1[nl], c2[nl], xs.size - nl, c1[-1] - c1[nl], c2[-1] - c2[nl]


def _deviations(x, theta):
    """(D_l, D_r, D_l2, D_r2) at each mode (C,): the absolute and squared deviations from θ summed on each side
    (Bennett 2003, §3.3.1–2)."""
    nl, sl, sl2, nr, sr, sr2 = side_sums(x, theta)
    dl, dr = np.maximum(nl * theta - sl, 0.0), np.maximum(sr - nr * theta, 0.0)
    dl2 = np.maximum(sl2 - 2 * theta * sl + theta ** 2 * nl, 0.0)
    dr2 = np.maximum(sr2 - 2 * theta * sr + theta ** 2 * nr, 0.0)
    return dl, dr, dl2, dr2


def laplace_spreads(x, theta):
    """The maximum-likelihood inverse scales (β, γ) of an asymmetric Laplace with mode θ (Bennett 2003, eq. 3):
    β = N/(D_l + √(D_l D_r)), γ = N/(D_r + √(D_l D_r)), D_l = N_l θ − S_l, D_r = S_r − N_r θ. Arrays (C,);
    inf where a side's D is 0."""
    dl, dr, _, _ = _deviations(x, np.asarray(theta, dtype=float))
    root, n = np.sqrt(dl * dr), x.size
    with np.errstate(divide="ignore"):
        return n / (dl + root), n / (dr + root)


def gaussian_spreads(x, theta):
    """The maximum-likelihood (σ_l, σ_r) of an asymmetric Gaussian with mode θ (Bennett 2003, eqs. 4–5):
    σ_l² = (D_l2 + D_l2^(2/3) D_r2^(1/3))/N, σ_r² likewise, D_l2 = Σ_{x ≤ θ} (x − θ)². Arrays (C,)."""
    _, _, dl2, dr2 = _deviations(x, np.asarray(theta, dtype=float))
    cl, cr = np.cbrt(dl2), np.cbrt(dr2)
    return np.sqrt((dl2 + cl * cl * cr) / x.size), np.sqrt((dr2 + cr * cr * cl) / x.size)


def _laplace_loglik(x, theta, floor):
    """Floored (β, γ) and the log-likelihood of the N scores at each mode, from the running sums alone: O(C)."""
    dl, dr, _, _ = _deviations(x, theta)
    beta, gamma = (np.minimum(r, 1 / floor) for r in laplace_spreads(x, theta))
    return beta, gamma, x.size * (np.log(beta) + np.log(gamma) - np.log(beta + gamma)) - beta * dl - gamma * dr


def _gaussian_loglik(x, theta, floor):
    """Floored (σ_l, σ_r) and the log-likelihood of the N scores at each mode, from the running sums: O(C)."""
    _, _, dl2, dr2 = _deviations(x, theta)
    sl, sr = (np.maximum(v, floor) for v in gaussian_spreads(x, theta))
    norm = np.log(2.0) - 0.5 * np.log(2 * np.pi) - np.log(sl + sr)
    return sl, sr, x.size * norm - dl2 / (2 * sl ** 2) - dr2 / (2 * sr ** 2)


def laplace_logpdf(x, theta, beta, gamma):
    """log Λ(x | θ, β, γ), Bennett (2003) eq. 1; x (B,), parameters scalars."""
    norm = np.log(beta) + np.log(gamma) - np.log(beta + gamma)
    return norm - np.where(x <= theta, beta * (theta - x), gamma * (x - theta))


def gaussian_logpdf(x, theta, sigma_l, sigma_r):
    """log Γ(x | θ, σ_l, σ_r), Bennett (2003) eq. 2; x (B,), parameters scalars."""
    norm = np.log(2.0) - 0.5 * np.log(2 * np.pi) - np.log(sigma_l + sigma_r)
    return norm - 0.5 * ((x - theta) / np.where(x <= theta, sigma_l, sigma_r)) ** 2


#: kind → (the floored spreads and log-likelihood at each mode; the log density)
_KINDS = {"laplace": (_laplace_loglik, laplace_logpdf), "gaussian": (_gaussian_loglik, gaussian_logpdf)}


def sweep(x, kind, min_spread=0.0):
    """The maximum-likelihood (θ, a, b) of one class's scores ``x`` (N,): the closed-form spreads at every
    candidate mode (:func:`candidate_modes`), the mode of the highest log-likelihood (Bennett 2003, §3.3).

    ``kind`` "laplace" gives (θ, β, γ), inverse scales; "gaussian" (θ, σ_l, σ_r). Spreads are floored at
    ``min_spread`` (β, γ capped at 1/min_spread)."""
    x = np.asarray(x, dtype=float)
    theta = candidate_modes(x)
    with np.errstate(invalid="ignore", divide="ignore"):
        a, b, loglik = _KINDS[kind][0](x, theta, max(min_spread, 1e-12))
    loglik = np.where(np.isnan(loglik), -np.inf, loglik)
    best = int(np.argmax(loglik))
    return float(theta[best]), float(a[best]), float(b[best])


class _Asymmetric(Calibrator):
    """Two asymmetric class-conditional densities and Bayes' rule (Bennett 2003, §3, §4.1)."""

    kind = None

    def _fit(self, feature, labels, unlabeled_feature, scores, unlabeled_scores):
        span = float(np.ptp(feature)) or 1.0
        floor = MIN_SPREAD * span
        self.negative_ = sweep(feature[labels == 0], self.kind, floor)
        self.positive_ = sweep(feature[labels == 1], self.kind, floor)
        n_pos = int(labels.sum())
        self.prior_ = (n_pos + 1) / (labels.size + 2)

    def _positive(self, feature, scores):
        _, logpdf = _KINDS[self.kind]
        log_pos = np.log(self.prior_) + logpdf(feature, *self.positive_)
        log_neg = np.log1p(-self.prior_) + logpdf(feature, *self.negative_)
        return np.exp(log_pos - np.logaddexp(log_pos, log_neg))


class AsymmetricLaplace(_Asymmetric):
    """Bennett's (2003) asymmetric Laplace method: eq. 1 per class, fitted by eq. 3 and the sweep of §3.3.1.

    Attributes
    ----------
    negative_, positive_ : (θ, β, γ)
        Mode (log-odds units) and inverse scales left and right of it, per class.
    prior_ : float
        The add-one prior of the positive class.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.calibration import AsymmetricLaplace
    >>> s = np.array([-3.0, -2.0, -1.5, -1.0, 0.5, 1.0, 2.0, 2.5, 4.0])
    >>> y = np.array([0, 0, 0, 0, 1, 0, 1, 1, 1])
    >>> cal = AsymmetricLaplace().fit(s, y)
    >>> cal.positive_[0] in s, bool(cal.positive_probability([3.0])[0] > 0.5)
    (True, True)
    """

    kind = "laplace"


class AsymmetricGaussian(_Asymmetric):
    """Bennett's (2003) asymmetric Gaussian method: eq. 2 per class, fitted by eqs. 4–5 and the sweep of §3.3.2.

    Attributes
    ----------
    negative_, positive_ : (θ, σ_l, σ_r)
        Mode and the spreads left and right of it (log-odds units), per class.
    prior_ : float
        The add-one prior of the positive class.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.calibration import AsymmetricGaussian
    >>> s = np.array([-3.0, -2.0, -1.5, -1.0, 0.5, 1.0, 2.0, 2.5, 4.0])
    >>> y = np.array([0, 0, 0, 0, 1, 0, 1, 1, 1])
    >>> p = AsymmetricGaussian().fit(s, y).positive_probability([-2.0, 3.0])
    >>> bool(p[0] < 0.5 < p[1])
    True
    """

    kind = "gaussian"


register("asymlaplace", AsymmetricLaplace)
register("asymgauss", AsymmetricGaussian)
