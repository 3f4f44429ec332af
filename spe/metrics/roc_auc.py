"""Area under the ROC curve (trapezoid rule on the ROC polyline, as ``sklearn.metrics.roc_auc_score``)."""

from .curves import roc_auc
from .registry import Metric, register

register(Metric(name="roc_auc", label="ROC AUC", compute=lambda c: roc_auc(c.tp, c.fp, c.polyline),
                about="area under the ROC curve (sklearn's roc_auc_score)"))
