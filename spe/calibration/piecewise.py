"""Zhang & Yang's piecewise logistic regression: log-odds piecewise linear in the score, three pieces.

p(y = 1 | s) = σ(f(s)), f continuous and linear between four knots θ₀ < θ₁ < θ₂ < θ₃ (Zhang & Yang 2004,
§3.3): f(x) = Σ_j w_j l_j(x), l_j the hat functions of the knots (linear interpolation of the values w_j at
the knots; beyond θ₀ and θ₃ the end pieces continue, where the paper's l_j vanish). θ₀ and θ₃ are the
smallest and largest labeled scores (the paper's θ₃ = max + ε is max itself, no piece narrower than 10⁻³ of
the range); θ₁ is one of the 10%, …, 90% percentiles of the negatives' scores, θ₂
of the positives', the pair of highest penalised likelihood at λ = 1. The regulariser is the paper's
λ Σ_j (slope_j − slope_{j−1})², slope_j = (w_j − w_{j−1})/(θ_j − θ_{j−1}), which lets the fit fall back to
Platt's single line. λ ("empirically chosen using a holdout dataset") is chosen here from :data:`LAMBDAS` by
stratified K-fold cross-validated log-loss on the labeled items (K = min(5, fewest items of a class), with
the knots chosen on all of them), and the knot values are refitted at that λ; with fewer than two items of a
class, λ = 1. The fit uses Platt's
regularised targets (:func:`spe.calibration.base.smoothed_targets`), which keep it finite when the labeled
items are separated by the score. The score is read as log-odds, as for the other methods.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .base import Calibrator, fit_logistic, register, smoothed_targets

__all__ = ["PiecewiseLogistic", "hat_basis", "slope_penalty", "LAMBDAS", "PERCENTILES"]

#: The candidate smoothness weights λ.
LAMBDAS = (0.01, 0.1, 1.0, 10.0, 100.0)
#: The λ at which the knots are chosen (and the λ when too few labels for cross-validation).
KNOT_LAMBDA = 1.0
#: The percentiles of each class's scores the inner knots are chosen from (Zhang & Yang 2004, §3.3).
PERCENTILES = tuple(range(10, 100, 10))


def hat_basis(x, knots):
    """The design of a continuous piecewise-linear function with the given knots (K + 1,): (B,) → (B, K + 1).

    Row i holds the weights of the knot values w_j in f(x_i): linear interpolation between the two knots
    around x_i, the end pieces extended beyond the first and last knot."""
    x = np.asarray(x, dtype=float)
    k = np.asarray(knots, dtype=float)
    piece = np.clip(np.searchsorted(k, x, side="right") - 1, 0, k.size - 2)
    t = (x - k[piece]) / (k[piece + 1] - k[piece])
    out = np.zeros((x.size, k.size))
    rows = np.arange(x.size)
    out[rows, piece] = 1.0 - t
    out[rows, piece + 1] = t
    return out


def slope_penalty(knots):
    """The matrix P of Zhang & Yang's regulariser: w @ P @ w = Σ_j (slope_j − slope_{j−1})², (K + 1, K + 1)."""
    k = np.asarray(knots, dtype=float)
    slopes = np.zeros((k.size - 1, k.size))  # slope_j = (w_{j+1} - w_j) / (k_{j+1} - k_j)
    for j, width in enumerate(np.diff(k)):
        slopes[j, j], slopes[j, j + 1] = -1 / width, 1 / width
    d = np.diff(slopes, axis=0)
    return d.T @ d


def _penalised_fit(x, targets, knots, lam):
    """(knot values w, penalised cross-entropy) of one set of knots and λ."""
    design = hat_basis(x, knots)
    penalty = lam * slope_penalty(knots)
    w = fit_logistic(design, targets, penalty)
    z = design @ w
    return w, float(np.sum(np.logaddexp(0.0, z) - targets * z) + w @ penalty @ w)


def candidate_knots(x, y):
    """Every (θ₀, θ₁, θ₂, θ₃) with θ₁ a percentile of the negatives', θ₂ of the positives' scores, θ₀ and θ₃ the
    smallest and largest score, each piece at least 10⁻³ of the range wide: list of (4,) arrays (Zhang & Yang
    2004, §3.3; the paper's θ₃ = max + ε is max itself here, the end pieces extending past it). Two knots
    (Platt's line) when no pair fits."""
    lo, hi = float(x.min()), float(x.max())
    hi = max(hi, lo + 1e-6)
    gap = 1e-3 * (hi - lo)
    inner1 = np.unique(np.percentile(x[y == 0], PERCENTILES))
    inner2 = np.unique(np.percentile(x[y == 1], PERCENTILES))
    out = [np.array([lo, a, b, hi]) for a in inner1 for b in inner2
           if lo + gap <= a and a + gap <= b and b + gap <= hi]
    return out or [np.array([lo, hi])]


def best_knots(x, y, lam):
    """The candidate knots of highest penalised likelihood at λ: (knots, w)."""
    t = smoothed_targets(y)
    fits = [(_penalised_fit(x, t, k, lam), k) for k in candidate_knots(x, y)]
    (w, _), knots = min(fits, key=lambda f: f[0][1])
    return knots, w


def cross_validated_loss(x, y, knots, lam, folds):
    """The mean held-out log-loss of the piecewise fit with these knots and λ over stratified folds."""
    from sklearn.model_selection import StratifiedKFold

    losses = []
    for train, test in StratifiedKFold(folds, shuffle=True, random_state=0).split(x, y):
        w, _ = _penalised_fit(x[train], smoothed_targets(y[train]), knots, lam)
        z = hat_basis(x[test], knots) @ w
        losses.append(np.sum(np.logaddexp(0.0, z) - y[test] * z))
    return float(np.sum(losses) / x.size)


class PiecewiseLogistic(Calibrator):
    """Zhang & Yang's (2004) piecewise logistic regression, three pieces (§3.3), λ by cross-validation.

    Parameters
    ----------
    score_type : as :class:`spe.calibration.base.Calibrator`
    smoothness : float or None
        λ; None (default) chooses it from :data:`LAMBDAS` by cross-validation on the labeled items.

    Attributes
    ----------
    knots_ : array, shape (4,) (or (2,) when no inner knots fit)
        Log-odds units.
    values_ : array, same shape
        f at the knots (log-odds of the positive class).
    smoothness_ : float
        The λ used.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.calibration import PiecewiseLogistic
    >>> rng = np.random.default_rng(0)
    >>> y = (rng.random(200) < 0.3).astype(int)
    >>> s = np.where(y == 1, rng.normal(1.5, 1, 200), rng.normal(-1, 1.5, 200))
    >>> cal = PiecewiseLogistic().fit(s, y)
    >>> cal.knots_.shape, bool(cal.positive_probability([-3.0])[0] < 0.5 < cal.positive_probability([4.0])[0])
    ((4,), True)
    """

    def __init__(self, score_type="auto", smoothness=None):
        super().__init__(score_type)
        self.smoothness = smoothness

    def _fit(self, feature, labels, unlabeled_feature, scores, unlabeled_scores):
        folds = min(5, int(labels.sum()), int(labels.size - labels.sum()))
        self.knots_, _ = best_knots(feature, labels, KNOT_LAMBDA if self.smoothness is None else self.smoothness)
        if self.smoothness is not None or folds < 2:
            lam = KNOT_LAMBDA if self.smoothness is None else float(self.smoothness)
        else:
            lam = min(LAMBDAS, key=lambda v: cross_validated_loss(feature, labels, self.knots_, v, folds))
        self.values_, _ = _penalised_fit(feature, smoothed_targets(labels), self.knots_, lam)
        self.smoothness_ = lam

    def _positive(self, feature, scores):
        return special.expit(hat_basis(feature, self.knots_) @ self.values_)


register("piecewise", PiecewiseLogistic)
