"""The best F1 any threshold reaches: max over thresholds τ of 2·TP(τ) / (TP(τ) + FP(τ) + P).

The F1 of the F1-optimal threshold (Lipton, Elkan & Narayanaswamy 2014,
"Optimal thresholding of classifiers to maximize F1 measure"): what the
classifier can reach on this data set when its threshold is tuned for F1.
Per draw it is the maximum over that draw's thresholds, so it counts the
uncertainty about where the best threshold lies. Equal to
``max(2 P R / (P + R))`` over ``sklearn.metrics.precision_recall_curve``;
NaN without positives.
"""

import numpy as np

from .registry import Metric, register


def max_f1(curves):
    """The largest F1 over the K thresholds of each row, (M, K) counts → (M,)."""
    positives = curves.positives[:, None]
    f1 = 2 * curves.tp / (curves.tp + curves.fp + positives)
    return np.where(curves.positives > 0, np.max(np.nan_to_num(f1, nan=0.0), axis=1), np.nan)


register(Metric(name="max_f1", label="max F1", compute=max_f1,
                about="the best F1 any threshold reaches (the F1-optimal threshold's F1)"))
