"""Performance metrics (plug-ins): each declared once, in one module that registers it.

Importing this package registers them (:mod:`spe.metrics.registry`), in the
order of the imports below: the order of the JSON and of the summary. A new
metric is one new module here, imported last. :mod:`spe.metrics.curves`
holds the curve arithmetic they share (cumulative counts → PR and ROC
curves, average precision, ROC AUC, equal error rate).
"""

from .registry import (REGISTRY, Confusion, Curves, Metric, confusion_at, metric_values, ranking_metric_names,
                       ranking_metric_values, register, threshold_metric_names, threshold_metric_values)
from . import prevalence, average_precision, roc_auc, equal_error_rate, confusion  # noqa: F401  (registers, in order)
from . import max_f1  # noqa: F401  (registers)

__all__ = ["Metric", "Curves", "Confusion", "register", "REGISTRY", "metric_values", "confusion_at",
           "ranking_metric_names", "threshold_metric_names", "ranking_metric_values", "threshold_metric_values"]
