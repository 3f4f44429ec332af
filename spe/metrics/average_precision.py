"""Average precision: Σ_k (R_k − R_{k−1}) P_k, as ``sklearn.metrics.average_precision_score``."""

from .curves import average_precision
from .registry import Metric, register

register(Metric(name="average_precision", label="average precision",
                compute=lambda c: average_precision(c.tp, c.fp, c.polyline),
                about="precision averaged over the recall steps (sklearn's average_precision_score)"))
