"""What every calibration method shares: the scikit-learn-style interface, the inputs' checks and the registry.

A calibrator turns a classifier's scores (score units) into probabilities
p(y = 1 | s): ``fit(scores, labels[, unlabeled_scores])`` on the labeled
items, then ``predict_proba(scores)`` on any scores, as scikit-learn's
estimators do. Each method is one module of :mod:`spe.calibration` that
ends with ``register(NAME, Class)``; ``spe calibrate --method`` and
:func:`spe.calibration.make` read the registry.

Every method but isotonic regression reads the score as log-odds
(:func:`spe.models.features.log_odds_feature`: the clipped logit of
probability scores, the score itself otherwise), as Bennett (2003, §4.1)
and Platt do for probabilistic classifiers.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator

from ..exceptions import SpeInputError, plain
from ..models.features import log_odds_feature
from ..registries import add_unique

__all__ = ["Calibrator", "REGISTRY", "register", "make", "check_training", "check_scores", "method_names",
           "smoothed_targets", "fit_logistic"]

#: Every calibration method by name, in the order of ``spe calibrate --compare``.
REGISTRY: dict[str, type] = {}


def register(name, cls):
    """Add a calibrator class under ``name`` (its module calls this when imported); returns the class.

    Raises
    ------
    ValueError
        The name is registered already.
    """
    cls.method = name
    return add_unique(REGISTRY, name, cls, "calibration method")


def method_names():
    """The registered methods' names, in order."""
    return tuple(REGISTRY)


def make(name, argument="method", **options):
    """A new, unfitted calibrator of the registered method ``name`` with ``options``.

    Raises
    ------
    SpeInputError
        No method of that name.
    """
    if name not in REGISTRY:
        raise SpeInputError(f"unknown calibration method {name!r}; one of {', '.join(REGISTRY)}",
                            argument=argument)
    return REGISTRY[name](**options)


def check_training(scores, labels):
    """The labeled items as two float/int arrays, checked.

    Parameters
    ----------
    scores : array-like, shape (n,)
        Score units, finite.
    labels : array-like, shape (n,)
        0 or 1.

    Returns
    -------
    (scores (n,) float, labels (n,) int)

    Raises
    ------
    SpeInputError
        Lengths differ, no items, a score NaN or infinite, a label other than 0/1, or only one class labeled
        (no calibration map can be learned from one class).
    """
    s = np.asarray(scores, dtype=float).ravel()
    y = np.asarray(labels).ravel()
    if s.size != y.size:
        raise SpeInputError(f"{s.size} scores but {y.size} labels", argument="labels")
    if s.size == 0:
        raise SpeInputError("no labeled items to calibrate on", argument="labels")
    if not np.isfinite(s).all():
        raise SpeInputError(f"score {plain(s[~np.isfinite(s)][0])!r} is not finite", argument="scores")
    if not np.isin(y, (0, 1)).all():
        raise SpeInputError(f"labels must be 0 or 1, got {plain(y[~np.isin(y, (0, 1))][0])!r}", argument="labels")
    y = y.astype(int)
    if y.min() == y.max():
        raise SpeInputError(f"every labeled item is {'positive' if y[0] else 'negative'}: a calibration map "
                            "needs both classes labeled", argument="labels")
    return s, y


def check_scores(scores):
    """Scores to predict at: (B,) float, finite; raises :class:`SpeInputError` otherwise."""
    s = np.asarray(scores, dtype=float).ravel()
    if not np.isfinite(s).all():
        raise SpeInputError(f"score {plain(s[~np.isfinite(s)][0])!r} is not finite", argument="scores")
    return s


class Calibrator(BaseEstimator):
    """The interface of every calibration method (scikit-learn's estimator conventions).

    Subclasses implement ``_fit(feature, labels, unlabeled_feature, scores)`` (the labeled items' log-odds
    feature (n,), their labels (n,), the unlabeled items' feature (U,) or None, and the raw labeled scores) and
    ``_positive(feature, scores)`` → (B,) probabilities. ``fit`` and ``predict_proba`` check the inputs and read
    the score as log-odds (:func:`spe.models.features.log_odds_feature`, fixed at ``fit`` from every score it
    sees) once for all methods.

    Parameters
    ----------
    score_type : {"auto", "probability", "log-odds", "decision"}
        How to read the scores, as :func:`spe.evaluate`.
    """

    #: The registered name (set by :func:`register`).
    method = None

    def __init__(self, score_type="auto"):
        self.score_type = score_type

    def fit(self, scores, labels, unlabeled_scores=None):
        """Learn the calibration map from the labeled items.

        Parameters
        ----------
        scores : array-like, shape (n,)
            The labeled items' scores, score units.
        labels : array-like, shape (n,)
            Their labels, 0 or 1.
        unlabeled_scores : array-like, shape (U,), optional
            The scores of items without labels (the rest of the pool). Only semisupervised methods (``spe``)
            use them beyond fixing how probability scores are clipped before the logit.

        Returns
        -------
        self

        Raises
        ------
        SpeInputError
            As :func:`check_training` (unless the method learns from other labels too, :meth:`needs_labels`); a
            non-finite unlabeled score.
        """
        if self.needs_labels():
            s, y = check_training(scores, labels)
        else:
            s, y = check_scores(scores), np.asarray(labels, dtype=int).ravel()
        u = None if unlabeled_scores is None else check_scores(unlabeled_scores)
        seen = s if u is None else np.concatenate([s, u])
        self.feature_ = log_odds_feature(seen, self.score_type)
        self._fit(self.feature_(s), y, None if u is None else self.feature_(u), s, u)
        return self

    def needs_labels(self):
        """Whether :meth:`fit` needs labeled items of both classes (True; a method with other labels to learn
        from, such as ``spe`` given a reference set, says False)."""
        return True

    def positive_probability(self, scores):
        """p(y = 1 | s) at each score: (B,) → (B,), probabilities in [0, 1].

        Raises
        ------
        SpeInputError
            A non-finite score.
        sklearn.exceptions.NotFittedError
            Called before :meth:`fit`.
        """
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "feature_")
        s = check_scores(scores)
        return np.clip(self._positive(self.feature_(s), s), 0.0, 1.0)

    def predict_proba(self, scores):
        """Class probabilities, as scikit-learn's ``predict_proba``: (B,) → (B, 2), columns p(y = 0), p(y = 1)."""
        p = self.positive_probability(scores)
        return np.column_stack([1.0 - p, p])

    def _fit(self, feature, labels, unlabeled_feature, scores, unlabeled_scores):  # pragma: no cover - abstract
        raise NotImplementedError

    def _positive(self, feature, scores):  # pragma: no cover - abstract
        raise NotImplementedError


def smoothed_targets(labels):
    """Platt's (1999, §2.2) regularised targets: (N₊ + 1)/(N₊ + 2) for positives, 1/(N₋ + 2) for negatives, (n,).

    They keep a logistic fit finite when the labeled items are perfectly separated by the score (common with
    10–100 labels): the same add-one idea as Bennett's (2003, §4.1) class prior (|c| + 1)/(n + 2), applied to
    each item's target."""
    y = np.asarray(labels)
    n_pos, n_neg = int(y.sum()), int(y.size - y.sum())
    return np.where(y == 1, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))


def fit_logistic(design, targets, penalty=None, start=None):
    """Minimise the cross-entropy of σ(design @ w) against ``targets`` (plus ``w @ penalty @ w``) by L-BFGS.

    The objective of Platt (1999, eq. 1, with his targets) and of Zhang & Yang's (2004, §3.3) regularised
    piecewise fit; scipy's L-BFGS-B with the analytic gradient. Raises nothing on bad data: callers check it.

    Parameters
    ----------
    design : array, shape (n, P)
    targets : array, shape (n,)
        In [0, 1] (smoothed targets allowed).
    penalty : array, shape (P, P), optional
        A positive semi-definite quadratic penalty (Zhang & Yang's slope smoothness).
    start : array, shape (P,), optional

    Returns
    -------
    array, shape (P,)
    """
    from scipy import optimize, special

    X = np.asarray(design, dtype=float)
    t = np.asarray(targets, dtype=float)
    K = np.zeros((X.shape[1], X.shape[1])) if penalty is None else np.asarray(penalty, dtype=float)

    def loss(w):
        z = X @ w
        # -[t log σ(z) + (1 - t) log(1 - σ(z))] = logaddexp(0, z) - t z
        value = np.sum(np.logaddexp(0.0, z) - t * z) + w @ K @ w
        grad = X.T @ (special.expit(z) - t) + 2 * K @ w
        return value, grad

    w0 = np.zeros(X.shape[1]) if start is None else np.asarray(start, dtype=float)
    return optimize.minimize(loss, w0, jac=True, method="L-BFGS-B").x
