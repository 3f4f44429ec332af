"""Every calibration method side by side: log-loss, Brier score and expected calibration error, by
cross-validation on the labeled items (``spe calibrate --compare``).

Each method is fitted K times on K − 1 folds of the labeled items (stratified, shuffled with the given seed;
K = min(``folds``, the fewest items of a class)) and predicts the held-out fold; the scores are computed on
the n out-of-fold predictions together. Semisupervised methods also see every unlabeled score, and the
held-out items' scores without their labels. The expected calibration error uses :data:`ECE_BINS`
equal-width bins of the predicted probability on [0, 1] (Naeini et al. 2015; Guo et al. 2017, eq. 3).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from ..exceptions import SpeInputError
from ..metrics.curves import reliability_bins
from .base import REGISTRY, check_scores, check_training, make

__all__ = ["expected_calibration_error", "calibration_scores", "cross_validated_probabilities",
           "compare_methods", "CalibrationComparison", "ECE_BINS"]

#: The equal-width probability bins of the expected calibration error.
ECE_BINS = 10


def expected_calibration_error(probabilities, labels, bins=ECE_BINS):
    """Σ_b (n_b / n) |ȳ_b − p̄_b| over ``bins`` equal-width bins of the probability on [0, 1] (Guo et al. 2017,
    eq. 3): (n,), (n,) → float in [0, 1]. The last bin includes 1."""
    n, positives, total_p = reliability_bins(probabilities, labels, bins)
    return float(np.abs(positives - total_p).sum() / max(n.sum(), 1))


def calibration_scores(probabilities, labels, bins=ECE_BINS):
    """{"log_loss" (nats per item, sklearn.metrics.log_loss), "brier" (sklearn.metrics.brier_score_loss),
    "ece"} of probabilities p(y = 1) (n,) against 0/1 labels (n,)."""
    from sklearn.metrics import brier_score_loss, log_loss

    p = np.clip(np.asarray(probabilities, dtype=float), 0.0, 1.0)
    y = np.asarray(labels).astype(int)
    return {"log_loss": float(log_loss(y, p, labels=[0, 1])), "brier": float(brier_score_loss(y, p, pos_label=1)),
            "ece": expected_calibration_error(p, y, bins)}


def number_of_folds(labels, folds):
    """K = min(``folds``, the fewest items of a class); raises :class:`SpeInputError` when ``folds`` is not an
    integer ≥ 2 (naming ``folds``) or a class has fewer than 2 labeled items (naming the labels)."""
    try:
        whole = isinstance(folds, (int, float, np.number)) and not isinstance(folds, bool) and int(folds) == folds
    except (OverflowError, ValueError):  # inf, nan
        whole = False
    if not whole or folds < 2:
        shown = folds.item() if isinstance(folds, np.generic) else folds
        raise SpeInputError(f"must be an integer ≥ 2 (cross-validation needs at least 2 folds), got {shown!r}",
                            argument="folds")
    y = np.asarray(labels)
    k = min(int(folds), int(y.sum()), int(y.size - y.sum()))
    if k < 2:
        raise SpeInputError(f"cross-validation needs at least 2 labeled items of each class (got {int(y.sum())} "
                            f"positive, {int(y.size - y.sum())} negative)", argument="labels")
    return k


def cross_validated_probabilities(method, scores, labels, unlabeled_scores=None, folds=5, seed=0, options=None):
    """Out-of-fold p(y = 1) of each labeled item under the registered ``method``: (n,) probabilities.

    Parameters
    ----------
    method : str
        A registered calibration method.
    scores, labels : array-like, shape (n,)
        The labeled items.
    unlabeled_scores : array-like, shape (U,), optional
        Seen by semisupervised methods, with the held-out fold's scores.
    folds : int
        At most this many folds (fewer when a class has fewer items).
    seed : int
        Seed of the fold assignment.
    options : dict, optional
        The method's parameters.

    Raises
    ------
    SpeInputError
        As :func:`spe.calibration.base.check_training`; fewer than 2 items of a class.
    """
    from sklearn.model_selection import StratifiedKFold

    s, y = check_training(scores, labels)
    u = np.empty(0) if unlabeled_scores is None else check_scores(unlabeled_scores)
    out = np.empty(s.size)
    split = StratifiedKFold(number_of_folds(y, folds), shuffle=True, random_state=int(seed))
    for train, test in split.split(s, y):
        calibrator = make(method, **(options or {})).fit(s[train], y[train], np.concatenate([s[test], u]))
        out[test] = calibrator.positive_probability(s[test])
    return out


@dataclass
class CalibrationComparison:
    """The methods' cross-validated scores.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per method (index ``method``): ``log_loss``, ``brier``, ``ece``, best log-loss first.
    probabilities : dict of str → array, shape (n,)
        Each method's out-of-fold probabilities of the labeled items.
    labels : array, shape (n,)
    folds : int
        K.
    bins : int
        The expected calibration error's bins.
    """

    table: object
    probabilities: dict
    labels: np.ndarray
    folds: int
    bins: int = ECE_BINS

    def to_dict(self):
        """JSON-ready: {"folds", "ece_bins", "methods": {name: {log_loss, brier, ece}}}."""
        return {"folds": self.folds, "ece_bins": self.bins,
                "methods": {m: {k: float(v) for k, v in row.items()} for m, row in self.table.iterrows()}}


def compare_methods(scores, labels, unlabeled_scores=None, methods=None, folds=5, rng=0, options=None):
    """Every (or the named) calibration method by cross-validation on the labeled items.

    Parameters
    ----------
    scores, labels : array-like, shape (n,)
    unlabeled_scores : array-like, shape (U,), optional
    methods : sequence of str, optional
        Default: every registered method.
    folds : int
    rng : int
        Seed of the folds.
    options : dict of str → dict, optional
        Parameters per method (e.g. ``{"spe": {"draws": 500}}``).

    Returns
    -------
    CalibrationComparison

    Raises
    ------
    SpeInputError
        An unknown method; as :func:`cross_validated_probabilities`.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.calibration import compare_methods
    >>> rng = np.random.default_rng(0)
    >>> y = (rng.random(300) < 0.3).astype(int)
    >>> s = np.where(y == 1, rng.normal(1.5, 1, 300), rng.normal(-1, 1, 300))
    >>> cmp = compare_methods(s, y, methods=["platt", "isotonic"])
    >>> list(cmp.table.columns), cmp.folds
    (['log_loss', 'brier', 'ece'], 5)
    """
    import pandas as pd

    names = list(methods or REGISTRY)
    for name in names:
        make(name)  # an unknown name is an input error before any work
    s, y = check_training(scores, labels)
    preds = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the K refits repeat the estimate's warnings
        for name in names:
            preds[name] = cross_validated_probabilities(name, s, y, unlabeled_scores, folds, rng,
                                                        (options or {}).get(name))
    rows = {name: calibration_scores(p, y) for name, p in preds.items()}
    table = pd.DataFrame.from_dict(rows, orient="index").rename_axis("method").sort_values("log_loss")
    return CalibrationComparison(table, preds, y, number_of_folds(y, folds))
