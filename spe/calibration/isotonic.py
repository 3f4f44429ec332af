"""Isotonic regression: the non-parametric reference calibrator (Zadrozny & Elkan 2002), scikit-learn's.

The monotone step function of the score that best fits the labels in squared error (pool adjacent
violators), clipped to the range of the labeled scores beyond it. It reads the score itself (a monotone
transform leaves it unchanged). Its steps at 0 and 1 make the log-loss of a wrong item infinite (in practice
−log of the smallest float, about 36 nats per item), which the comparison reports as it is.
"""

from __future__ import annotations

from .base import Calibrator, register

__all__ = ["Isotonic"]


class Isotonic(Calibrator):
    """Isotonic regression (scikit-learn's, increasing, clipped beyond the labeled scores) as a calibrator.

    Attributes
    ----------
    regression_ : sklearn.isotonic.IsotonicRegression

    Examples
    --------
    >>> import numpy as np
    >>> from spe.calibration import Isotonic
    >>> cal = Isotonic().fit([0.1, 0.2, 0.3, 0.6, 0.7, 0.9], [0, 0, 1, 0, 1, 1])
    >>> cal.positive_probability([0.0, 0.65, 1.0]).round(3).tolist()
    [0.0, 0.75, 1.0]
    """

    def _fit(self, feature, labels, unlabeled_feature, scores, unlabeled_scores):
        from sklearn.isotonic import IsotonicRegression

        self.regression_ = IsotonicRegression(y_min=0.0, y_max=1.0, increasing=True, out_of_bounds="clip")
        self.regression_.fit(scores, labels)

    def _positive(self, feature, scores):
        return self.regression_.predict(scores)


register("isotonic", Isotonic)
