"""Platt scaling: p(y = 1 | s) = σ(a f(s) + b), the baseline of Bennett (2003) and Zhang & Yang (2004, §3.1).

Platt (1999), "Probabilistic outputs for support vector machines", eq. 1, fitted by maximum likelihood on
his regularised targets (§2.2; :func:`spe.calibration.base.smoothed_targets`), with f(s) the score read as
log-odds. It is scikit-learn's ``CalibratedClassifierCV(method="sigmoid")`` on the same feature.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .base import Calibrator, fit_logistic, register, smoothed_targets

__all__ = ["Platt"]


class Platt(Calibrator):
    """Platt scaling (Platt 1999, eq. 1): a logistic regression of the label on the score's log-odds feature.

    Attributes
    ----------
    slope_, intercept_ : float
        a and b of σ(a f(s) + b), f in log-odds units.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.calibration import Platt
    >>> s = np.array([-2.0, -1.0, -0.5, 0.2, 0.5, 1.0, 1.5, 2.0])
    >>> y = np.array([0, 0, 1, 0, 1, 0, 1, 1])
    >>> p = Platt().fit(s, y).positive_probability([-1.0, 0.0, 1.0])
    >>> bool(p[0] < p[1] < p[2])
    True
    """

    def _fit(self, feature, labels, unlabeled_feature, scores, unlabeled_scores):
        w = fit_logistic(np.column_stack([feature, np.ones_like(feature)]), smoothed_targets(labels))
        self.slope_, self.intercept_ = float(w[0]), float(w[1])

    def _positive(self, feature, scores):
        return special.expit(self.slope_ * feature + self.intercept_)


register("platt", Platt)
