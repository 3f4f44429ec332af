"""Criticism of a fitted score model by the labeled items: a posterior-predictive check.

Every score model (the SPE mixture, the recalibrations, the link models, the
reference map) is checked the same way against the n labeled items
(Gelman, Meng & Stern 1996); a model that fails is left out of the average
(``spe.api``). The mixture's own check of the score histogram is
:mod:`spe.models.mixture.check`.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

__all__ = ["label_check", "weighted_draws", "P_VALUE_THRESHOLD"]

#: A posterior-predictive p-value below this fails a check (the label check; the histogram check, which then
#: tempers the mixture).
P_VALUE_THRESHOLD = 0.01


def weighted_draws(draws, weights):
    """The draws with positive weight (M', P) and their weights renormalised (M',)."""
    w = np.asarray(weights, dtype=float)
    keep = w > 0
    return np.asarray(draws)[keep], w[keep] / w[keep].sum()


def label_check(model, labeled_scores, labeled_value, *, rng) -> float:
    """Posterior-predictive p-value of the labeled items under a fitted score model.

    Two discrepancies, each computed for the observed labels and for labels
    replicated from the same posterior draw (Gelman, Meng & Stern 1996):

    * the log-likelihood of the n labels, ``Σ_i log p(y_i | s_i, θ)``
      (omnibus: are the labels as probable as the model expects?),
      p₁ = P(T(y_rep) ≤ T(y));
    * the score-weighted residual ``Σ_i (y_i − p_i)·r_i`` with r_i the
      centred rank of s_i among the labeled scores (a calibration-slope
      check: do positives sit higher or lower on the score than the model
      says?), two-sided, p₂ = P(|T(y_rep)| ≥ |T(y)|).

    The result is ``min(1, 2·min(p₁, p₂))`` (Bonferroni). A small value says
    the model predicts the labeled items worse than it expects to: a misfit
    the labels can see. With few labels the check has little power; a large
    value is not proof of fit.

    Parameters
    ----------
    model : spe.models.base.FittedScoreModel
    labeled_scores : array, shape (n,) or (n, V)
        Scores of the labeled items, score units (or the rows of features a
        joint model reads, :mod:`spe.models.joint`: ranked by the first
        column, the joint log-odds).
    labeled_value : 0/1 array, shape (n,)
    rng : numpy.random.Generator

    Returns
    -------
    float
        p-value in [0, 1]; NaN when there are no labels.
    """
    y = np.asarray(labeled_value, dtype=float)
    if y.size == 0:
        return float("nan")
    s = np.asarray(labeled_scores, dtype=float)
    draws, w = weighted_draws(model.draws, model.weights)
    p = np.clip(model.probability(draws, s), 1e-12, 1 - 1e-12)
    y_rep = (rng.random(p.shape) < p).astype(float)

    def loglik(lab):
        return np.sum(lab * np.log(p) + (1 - lab) * np.log1p(-p), axis=1)

    ranked = s if s.ndim == 1 else s[:, 0]
    r = (stats.rankdata(ranked) - 0.5) / ranked.size - 0.5
    slope_obs, slope_rep = (y[None, :] - p) @ r, (y_rep - p) @ r
    p1 = float(np.sum(w * (loglik(y_rep) <= loglik(y[None, :]))))
    p2 = float(np.sum(w * (np.abs(slope_rep) >= np.abs(slope_obs) - 1e-12)))
    return min(1.0, 2 * min(p1, p2))
