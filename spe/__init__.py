"""spe — Bayesian semisupervised performance evaluation of classifiers.

From all of a classifier's scores on a data set and a few labels, estimate
its performance on that data set with credible bands (Welinder, Welling &
Perona 2013). Start with :func:`spe.evaluate`.
"""

from .api import evaluate
from .evaluation import CurveBand, Evaluation, Interval
from .exceptions import ImportanceSamplingWarning, SpeInputError, SpeWarning

__version__ = "0.1.0"

__all__ = [
    "evaluate",
    "Evaluation",
    "Interval",
    "CurveBand",
    "SpeInputError",
    "SpeWarning",
    "ImportanceSamplingWarning",
    "__version__",
]
