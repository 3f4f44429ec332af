"""A posterior-predictive check of a multiclass estimate's score models against its labeled items.

The multiclass analogue of :func:`spe.models.criticism.label_check` (Gelman, Meng & Stern 1996). Under each of
the averaged model's M draws θ_m, the labeled items' classes are replicated, y_rep ~ p(y | s_i, θ_m), and two
discrepancies are compared with the observed labels':

* the log-likelihood of the n labels, ``Σ_i log p(y_i | s_i, θ_m)`` (are the labels as probable as the models
  expect?): p₁ = P(T(y_rep) ≤ T(y));
* how often the classifier is right per third of its stated confidence among the labeled items, against what
  θ_m expects there: ``Σ_b (R_b − E_b)² / (E_b (1 − E_b / n_b))`` with R_b the items of bin b whose class is the
  predicted one ŷ_i and E_b = Σ_{i ∈ b} p(ŷ_i | s_i, θ_m) (is it right more or less often, at some confidence,
  than the models say — also where no monotone map could make it so?): p₂ = P(T(y_rep) ≥ T(y)).

The check's p-value is ``min(1, 2·min(p₁, p₂))`` (Bonferroni). A small value says the labels disagree with every
model of the average: the intervals rest on a map the labels do not support. With 10–20 labels the check has
little power: a large value is not proof of fit.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

__all__ = ["class_label_check", "CHECK_THRESHOLD"]

#: Below this p-value the estimate warns (the binary models' label check's threshold).
CHECK_THRESHOLD = 0.01


def class_label_check(model, inputs, predicted, labeled_class, *, rng) -> float:
    """The posterior-predictive p-value of the labeled items under an averaged multiclass model.

    Parameters
    ----------
    model : spe.multiclass.average.AveragedClassModel
    inputs : array, shape (n, K) or (n, K, C)
        What the model's draws read, of the labeled items only.
    predicted : int array, shape (n,)
        The classifier's decision for them.
    labeled_class : int array, shape (n,)
    rng : numpy.random.Generator

    Returns
    -------
    float
        In [0, 1]; NaN without labels.
    """
    y = np.asarray(labeled_class, dtype=np.int64)
    n = y.size
    if n == 0:
        return float("nan")
    items = np.arange(n)
    inputs = np.asarray(inputs, dtype=np.float32)
    probs = np.concatenate([fitted.probabilities(theta, inputs) for _, fitted, theta in model.blocks(256)])
    probs = np.maximum(probs.astype(float), 1e-12)                                          # (M, n, K)
    confidence = probs.mean(axis=0)[items, predicted]
    bins = np.minimum((stats.rankdata(confidence, method="ordinal") - 1) * 3 // n, 2)        # thirds, (n,)
    cdf = np.cumsum(probs, axis=2)
    y_rep = np.minimum((cdf < rng.random(probs.shape[:2])[..., None] * cdf[..., -1:]).sum(axis=2), probs.shape[2] - 1)
    log_obs = np.log(probs[:, items, y]).sum(axis=1)
    log_rep = np.log(np.take_along_axis(probs, y_rep[..., None], axis=2)[..., 0]).sum(axis=1)
    p_right = probs[:, items, predicted]                                                       # (M, n)
    p1 = np.mean(log_rep <= log_obs)
    p2 = np.mean(_binned_misfit(y_rep == predicted, p_right, bins) >= _binned_misfit(y == predicted, p_right, bins))
    return float(min(1.0, 2.0 * min(p1, p2)))


def _binned_misfit(right, p_right, bins):
    """Σ_b (R_b − E_b)² / (E_b (1 − E_b / n_b)) per draw: right (M, n) or (n,) bool, p_right (M, n), bins (n,)."""
    right = np.broadcast_to(right, p_right.shape).astype(float)
    onehot = np.eye(3)[bins]                                                                   # (n, 3)
    observed, expected, size = right @ onehot, p_right @ onehot, onehot.sum(axis=0)
    variance = np.maximum(expected * (1 - expected / np.maximum(size, 1)), 1e-9)
    return np.sum((observed - expected) ** 2 / variance, axis=1)
