"""What a multiclass classifier's labeled items alone say (``--compare-labeled-only``), as
:func:`spe.labeled_only` does for one score (Welinder et al. 2013, §4.3: the *naive* estimate).

Each estimate is the labeled items' own value. The accuracy's interval is the Jeffreys interval of a binomial
proportion (:func:`spe.baselines.jeffreys_interval`); the macro F1's is a percentile bootstrap over the labeled
items (resampled with replacement as multinomial counts of their (class, prediction) pairs), the macro
F1 of a resample averaging the classes with an item or a prediction in it, as
:class:`~spe.multiclass.evaluation.MulticlassEvaluation` does per draw.
"""

from __future__ import annotations

import numpy as np

from ..baselines import jeffreys_interval
from ..evaluation import Interval, summarise_draws
from ..exceptions import SpeInputError
from ..inputs import check_level

__all__ = ["labeled_only_classes"]

def labeled_only_classes(labeled_class, labeled_predicted, n_classes, level=0.9, n_bootstrap=1000,
                         rng=None) -> dict:
    """The labeled items' own accuracy and macro F1, with intervals.

    Parameters
    ----------
    labeled_class, labeled_predicted : int arrays, shape (n,)
        Each labeled item's class and the classifier's predicted (argmax) class, positions 0..K−1; n ≥ 1.
    n_classes : int
        K.
    level : float
        The intervals' level.
    n_bootstrap : int
        Resamples of the labeled items for the macro F1's interval (as :func:`spe.labeled_only`'s).
    rng : numpy.random.Generator, SeedSequence, int or None
        The bootstrap's stream or seed.

    Returns
    -------
    dict
        ``{"accuracy": Interval, "macro_f1": Interval}``, ``mean`` and ``median`` the labeled items' own value.

    Raises
    ------
    SpeInputError
        No labeled item (as :func:`spe.labeled_only`).

    Memory: a resample is drawn as the counts of the labeled items' (class, prediction) pairs, (B, C) for the C
    distinct pairs, whatever n is.
    """
    level = check_level(level)
    y = np.asarray(labeled_class, dtype=np.int64)
    predicted = np.asarray(labeled_predicted, dtype=np.int64)
    n = y.size
    if n == 0:
        raise SpeInputError("no labeled items: the labeled-only estimate needs at least one", argument="labels")
    right = int(np.sum(y == predicted))
    lo, hi = jeffreys_interval(right, n, level)
    cells, counts = np.unique(y * n_classes + predicted, return_counts=True)
    resampled = np.random.default_rng(rng).multinomial(n, counts / n, size=int(n_bootstrap))  # (B, C)
    own = float(_macro_f1(counts[None, :], cells, n_classes)[0])
    boot = summarise_draws(_macro_f1(resampled, cells, n_classes), np.ones(resampled.shape[0]), level)
    return {"accuracy": Interval(right / n, right / n, lo, hi, level),
            "macro_f1": Interval(own, own, boot.lo, boot.hi, level)}


def _macro_f1(counts, cells, k):
    """Macro F1 from the counts (B, C) of the (class, prediction) pairs ``cells`` (C,) = class·K + prediction →
    (B,): the classes with an item or a prediction averaged, as ``f1_score(average="macro")``."""
    true_class, called_class = np.divmod(cells, k)
    true = counts @ np.eye(k)[true_class]  # (B, K)
    called = counts @ np.eye(k)[called_class]
    hits = counts @ (np.eye(k)[true_class] * (true_class == called_class)[:, None])
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.where(true + called > 0, 2 * hits / (true + called), np.nan)
    return np.nanmean(f1, axis=1)
