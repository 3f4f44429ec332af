"""The metrics at a threshold: rates and confusion counts (an item is predicted positive when its score is ≥ it).

Rates are in [0, 1], NaN where undefined (precision with nothing predicted
positive, recall without positives, false positive rate without negatives,
F1 with neither); counts are items (expected items for population
performance).
"""

import numpy as np

from .registry import Metric, register


def _precision(c):
    return np.where(c.predicted > 0, c.tp / c.predicted, np.nan)


def _recall(c):
    return np.where(c.positives > 0, c.tp / c.positives, np.nan)


def _f1(c):
    denom = 2 * c.tp + c.fp + c.fn
    return np.where(denom > 0, 2 * c.tp / denom, np.nan)


def _false_positive_rate(c):
    return np.where(c.negatives > 0, c.fp / c.negatives, np.nan)


for _metric in (
    Metric("precision", "precision", _precision, "true positives / items predicted positive", True,
           proportion=lambda c: (c.tp, c.predicted)),
    Metric("recall", "recall", _recall, "true positives / positives (the true positive rate)", True,
           proportion=lambda c: (c.tp, c.positives)),
    Metric("f1", "F1", _f1, "harmonic mean of precision and recall", True),
    Metric("accuracy", "accuracy", lambda c: (c.tp + c.tn) / c.n_items, "correctly classified / items", True,
           proportion=lambda c: (c.tp + c.tn, c.n_items)),
    Metric("false_positive_rate", "false positive rate", _false_positive_rate, "false positives / negatives", True,
           proportion=lambda c: (c.fp, c.negatives)),
    Metric("true_positives", "true positives", lambda c: c.tp, "positives predicted positive", True, count=True),
    Metric("false_positives", "false positives", lambda c: c.fp, "negatives predicted positive", True, count=True),
    Metric("true_negatives", "true negatives", lambda c: c.tn, "negatives predicted negative", True, count=True),
    Metric("false_negatives", "false negatives", lambda c: c.fn, "positives predicted negative", True, count=True),
):
    register(_metric)
