"""Curves and ranking metrics from cumulative confusion counts, one row per draw (or bootstrap resample).

Conventions (they match ``sklearn.metrics`` on the same labels):

* thresholds are the distinct scores, or score bins, descending; an item is
  predicted positive when its score is ≥ the threshold;
* precision at recall r is the precision of the highest threshold whose
  recall is ≥ r (DESIGN.md);
* average precision is Σ_k (R_k − R_{k−1}) P_k (``average_precision_score``);
* ROC AUC is the trapezoid area under (FPR, TPR) (``roc_auc_score``), and the
  ROC curve at a false positive rate f is the linear interpolation of the
  ROC polyline.

Every function takes the cumulative true and false positives ``tp``, ``fp``
(M, K) — row m, column k: positives and negatives among the items scored ≥
the k-th threshold under draw m — and is vectorised over the rows; but
:func:`reliability_bins`, the counts behind a reliability diagram and the
expected calibration error.
"""

from __future__ import annotations

import numpy as np

__all__ = ["RECALL_GRID", "FPR_GRID", "curves_from_counts", "pr_at_recall", "roc_polyline", "roc_at_fpr",
           "average_precision", "roc_auc", "equal_error_rate", "probability_bins", "reliability_bins"]

#: Default recall grid G = 101 points on [0, 1].
RECALL_GRID = np.linspace(0.0, 1.0, 101)
#: Default false-positive-rate grid, 101 points on [0, 1].
FPR_GRID = np.linspace(0.0, 1.0, 101)


def curves_from_counts(positives, counts):
    """Cumulative confusion counts from per-group positive counts.

    Parameters
    ----------
    positives : array, shape (M, K)
        Positives per score group (groups in descending score order).
    counts : array, shape (K,)
        Items per group.

    Returns
    -------
    tp, fp : arrays, shape (M, K)
        True and false positives when the threshold is each group's score.
    """
    tp = np.cumsum(positives, axis=1, dtype=float)
    fp = np.cumsum(counts, dtype=float)[None, :] - tp
    return tp, fp


def _rowwise_searchsorted(a, v, side):
    """searchsorted of v (G,) in each row of a (M, K), rows ascending in [0, 1]."""
    m, k = a.shape
    offs = 2.0 * np.arange(m)[:, None]
    flat = (a + offs).ravel()
    idx = np.searchsorted(flat, (v[None, :] + offs).ravel(), side=side).reshape(m, -1)
    return idx - k * np.arange(m)[:, None]


def pr_at_recall(tp, fp, grid=RECALL_GRID):
    """Precision at each recall of ``grid`` for each row: (M, K) → (M, G).

    Precision at recall r is that of the highest threshold with recall ≥ r.
    Rows without positives give NaN.
    """
    total = tp[:, -1:]
    with np.errstate(invalid="ignore", divide="ignore"):
        recall = tp / total
        precision = tp / (tp + fp)
    recall = np.where(np.isfinite(recall), recall, 0.0)
    idx = _rowwise_searchsorted(recall, np.asarray(grid, dtype=float) - 1e-12, side="left")
    idx = np.clip(idx, 0, tp.shape[1] - 1)
    out = np.take_along_axis(precision, idx, axis=1)
    out[(total[:, 0] <= 0)] = np.nan
    return out


def roc_polyline(tp, fp):
    """(FPR, TPR) vertices per row, starting at (0, 0): (M, K) → two (M, K + 1) arrays (0 where undefined)."""
    m, k = tp.shape
    tpr = np.zeros((m, k + 1))
    fpr = np.zeros((m, k + 1))
    pos, neg = tp[:, -1:], fp[:, -1:]
    np.divide(tp, pos, out=tpr[:, 1:], where=pos > 0)
    np.divide(fp, neg, out=fpr[:, 1:], where=neg > 0)
    return fpr, tpr


def roc_at_fpr(tp, fp, grid=FPR_GRID, polyline=None):
    """TPR at each false positive rate of ``grid`` (linear interpolation): (M, K) → (M, G).

    Rows without positives or without negatives give NaN. ``polyline``:
    the rows' ROC vertices if already computed (:func:`roc_polyline`).
    """
    fpr, tpr = roc_polyline(tp, fp) if polyline is None else polyline
    g = np.asarray(grid, dtype=float)
    j = np.clip(_rowwise_searchsorted(fpr, g, side="right") - 1, 0, fpr.shape[1] - 2)
    f0 = np.take_along_axis(fpr, j, axis=1)
    f1 = np.take_along_axis(fpr, j + 1, axis=1)
    t0 = np.take_along_axis(tpr, j, axis=1)
    t1 = np.take_along_axis(tpr, j + 1, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = np.where(f1 > f0, (g[None, :] - f0) / (f1 - f0), 1.0)
    out = t0 + np.clip(frac, 0, 1) * (t1 - t0)
    bad = (tp[:, -1] <= 0) | (fp[:, -1] <= 0)
    out[bad] = np.nan
    return out


def average_precision(tp, fp, polyline=None):
    """Σ_k (R_k − R_{k−1}) P_k per row, as ``sklearn.metrics.average_precision_score``: (M, K) → (M,).

    Rows without positives give NaN. ``polyline``: as :func:`roc_at_fpr`
    (its TPR is the recall).
    """
    _, recall = roc_polyline(tp, fp) if polyline is None else polyline
    predicted = tp + fp
    precision = np.zeros(tp.shape)
    np.divide(tp, predicted, out=precision, where=predicted > 0)
    return np.sum(np.diff(recall, axis=1) * precision, axis=1) + np.where(tp[:, -1] > 0, 0.0, np.nan)


def roc_auc(tp, fp, polyline=None):
    """Trapezoid area under the ROC polyline per row, as ``roc_auc_score``: (M, K) → (M,)."""
    fpr, tpr = roc_polyline(tp, fp) if polyline is None else polyline
    auc = np.sum(np.diff(fpr, axis=1) * (tpr[:, 1:] + tpr[:, :-1]) / 2, axis=1)
    return np.where((tp[:, -1] > 0) & (fp[:, -1] > 0), auc, np.nan)


def equal_error_rate(tp, fp, polyline=None):
    """Equal error rate per row: the false positive rate where it equals the false negative rate.

    On the ROC polyline (linear between thresholds, as :func:`roc_at_fpr`)
    FPR + TPR − 1 rises from −1 at (0, 0) to 1 at (1, 1); the EER is the FPR
    where it crosses 0 (there FPR = 1 − TPR = FNR). (M, K) → (M,); NaN for
    rows without positives or without negatives.
    """
    fpr, tpr = roc_polyline(tp, fp) if polyline is None else polyline
    g = (fpr + tpr) / 2.0  # in [0, 1], non-decreasing; the EER is where it reaches 1/2
    j = np.clip(_rowwise_searchsorted(g, np.array([0.5]), side="left")[:, 0], 1, g.shape[1] - 1)
    rows = np.arange(g.shape[0])
    g0, g1 = g[rows, j - 1], g[rows, j]
    f0, f1 = fpr[rows, j - 1], fpr[rows, j]
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = np.where(g1 > g0, (0.5 - g0) / (g1 - g0), 0.0)
    out = f0 + np.clip(frac, 0, 1) * (f1 - f0)
    return np.where((tp[:, -1] > 0) & (fp[:, -1] > 0), out, np.nan)


def probability_bins(probabilities, bins):
    """Each probability's bin among ``bins`` equal-width bins of [0, 1] (the last one includes 1): int array of
    the probabilities' shape."""
    return np.minimum((np.asarray(probabilities, dtype=float) * bins).astype(int), bins - 1)


def reliability_bins(probabilities, labels, bins):
    """Probabilities p(y = 1) (n,) and 0/1 labels (n,) in ``bins`` equal-width bins of [0, 1] (the last one
    includes 1): the items, the positives and the sum of the probabilities in each bin, three arrays (bins,)
    (Guo et al. 2017, §2: the reliability diagram and the expected calibration error are read from them)."""
    p = np.asarray(probabilities, dtype=float)
    which = probability_bins(p, bins)
    return (np.bincount(which, minlength=bins), np.bincount(which, np.asarray(labels, dtype=float), bins),
            np.bincount(which, p, bins))
