"""Calibrated probabilities from a classifier's scores: the seed papers' calibration methods behind one
scikit-learn-style interface, and their comparison.

``make(name).fit(scores, labels[, unlabeled_scores]).predict_proba(scores)``; the methods, in the order of
``spe calibrate --compare``:

- ``platt``: Platt scaling (Platt 1999).
- ``asymlaplace``, ``asymgauss``: Bennett's (2003) asymmetric Laplace and asymmetric Gaussian class-conditionals.
- ``piecewise``: Zhang & Yang's (2004) piecewise logistic regression.
- ``isotonic``: isotonic regression (scikit-learn's), the non-parametric reference.
- ``spe``: SPE's semisupervised probabilities (:func:`spe.evaluate` on every score and the labels).

A new method is one module ending with ``register(NAME, Class)``, imported below.
"""

from .base import REGISTRY, Calibrator, make, method_names, register  # noqa: F401
from .platt import Platt  # noqa: F401
from .bennett import AsymmetricGaussian, AsymmetricLaplace  # noqa: F401
from .piecewise import PiecewiseLogistic  # noqa: F401
from .isotonic import Isotonic  # noqa: F401
from .semisupervised import SemisupervisedSPE  # noqa: F401
from .compare import (CalibrationComparison, calibration_scores, compare_methods,  # noqa: F401
                      cross_validated_probabilities, expected_calibration_error)

__all__ = ["Calibrator", "REGISTRY", "make", "method_names", "register", "Platt", "AsymmetricLaplace",
           "AsymmetricGaussian", "PiecewiseLogistic", "Isotonic", "SemisupervisedSPE", "compare_methods",
           "CalibrationComparison", "calibration_scores", "cross_validated_probabilities",
           "expected_calibration_error"]
