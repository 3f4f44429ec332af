"""What a multiclass classifier's labeled items alone say (``--compare-labeled-only``), as
:func:`spe.labeled_only` does for one score (Welinder et al. 2013, §4.3: the *naive* estimate).

Each estimate is the labeled items' own value. The accuracy's interval is the Jeffreys interval of a binomial
proportion (:func:`spe.baselines.jeffreys_interval`); the macro F1's is a percentile bootstrap over the labeled
items (resampled with replacement, their confusion counts reweighted: no loop over the resamples), the macro
F1 of a resample averaging the classes with an item or a prediction in it, as
:class:`~spe.multiclass.evaluation.MulticlassEvaluation` does per draw.
"""

from __future__ import annotations

import numpy as np

from ..baselines import jeffreys_interval
from ..evaluation import Interval, summarise_draws
from ..inputs import check_level

__all__ = ["labeled_only_classes", "BOOTSTRAP_RESAMPLES"]

#: Bootstrap resamples of the labeled items for the macro F1's interval.
BOOTSTRAP_RESAMPLES = 2000


def labeled_only_classes(labeled_class, labeled_predicted, n_classes, level=0.9, rng=None) -> dict:
    """The labeled items' own accuracy and macro F1, with intervals.

    Parameters
    ----------
    labeled_class, labeled_predicted : int arrays, shape (n,)
        Each labeled item's class and the classifier's predicted (argmax) class, positions 0..K−1.
    n_classes : int
        K.
    level : float
        The intervals' level.
    rng : numpy.random.Generator, int or None
        The bootstrap's stream or seed.

    Returns
    -------
    dict
        ``{"accuracy": Interval, "macro_f1": Interval}`` (``mean`` and ``median`` the labeled items' own value;
        NaN without labeled items).
    """
    level = check_level(level)
    y = np.asarray(labeled_class, dtype=np.int64)
    predicted = np.asarray(labeled_predicted, dtype=np.int64)
    n = y.size
    if n == 0:
        nan = float("nan")
        return {"accuracy": Interval(nan, nan, nan, nan, level), "macro_f1": Interval(nan, nan, nan, nan, level)}
    right = int(np.sum(y == predicted))
    lo, hi = jeffreys_interval(right, n, level)
    weights = np.random.default_rng(rng).multinomial(n, np.full(n, 1.0 / n), size=BOOTSTRAP_RESAMPLES)
    own = float(_macro_f1(np.ones((1, n)), y, predicted, n_classes)[0])
    boot = summarise_draws(_macro_f1(weights, y, predicted, n_classes), np.ones(BOOTSTRAP_RESAMPLES), level)
    return {"accuracy": Interval(right / n, right / n, lo, hi, level),
            "macro_f1": Interval(own, own, boot.lo, boot.hi, level)}


def _macro_f1(weights, y, predicted, k):
    """Macro F1 of the labeled items under each row of item weights (B, n) → (B,)."""
    true = weights @ np.eye(k)[y]  # (B, K)
    called = weights @ np.eye(k)[predicted]
    hits = weights @ (np.eye(k)[y] * (y == predicted)[:, None])
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.where(true + called > 0, 2 * hits / (true + called), np.nan)
    return np.nanmean(f1, axis=1)
