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
        # fitted on the standardised feature, so that L-BFGS sees a well-conditioned problem whatever the
        # scores' offset and scale (decision values near 1,000 with a spread of 1 left it at a flat line)
        center, spread = _centre_and_spread(feature)
        z = (feature - center) / spread
        w = fit_logistic(np.column_stack([z, np.ones_like(z)]), smoothed_targets(labels))
        self.slope_ = float(w[0] / spread)
        self.intercept_ = float(w[1] - w[0] * center / spread)

    def _positive(self, feature, scores):
        return special.expit(self.slope_ * feature + self.intercept_)


def _centre_and_spread(feature):
    """(mean, standard deviation) of the labeled items' feature (n,); a spread of 1 when all are equal."""
    center = float(np.mean(feature))
    spread = float(np.std(feature))
    return center, spread if spread > 0 else 1.0


register("platt", Platt)
