"""Equal error rate: the false positive rate where it equals the false negative rate, on the ROC polyline."""

from .curves import equal_error_rate
from .registry import Metric, register

register(Metric(name="equal_error_rate", label="equal error rate",
                compute=lambda c: equal_error_rate(c.tp, c.fp, c.polyline), better="lower",
                about="the false positive rate where it equals the false negative rate"))
