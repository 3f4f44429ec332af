"""How the estimate of a multiclass classifier's accuracy tightens as labels come in.

The labeled items are taken in a random order (seeded), and the accuracy is estimated again from the first n of
them for each n of a grid (nested subsets: each estimate knows every label the one before knew), beside the
labeled items' own accuracy with its Jeffreys interval (the Beta(½ + hits, ½ + misses) quantiles). The figure
:func:`spe.plot.plot_accuracy_vs_labels` draws it.
"""

from __future__ import annotations

import numpy as np

from ..baselines import jeffreys_interval
from ..exceptions import SpeInputError
from ..inputs import seed_of

__all__ = ["accuracy_by_labels", "label_counts"]


def label_counts(n_labeled, most=6):
    """Up to ``most`` label counts from 5 (or fewer) to ``n_labeled``, roughly evenly spaced on a log scale."""
    if n_labeled < 1:
        raise SpeInputError("no labeled item: nothing to estimate against the number of labels", argument="labels")
    low = min(5, n_labeled)
    grid = np.unique(np.round(np.geomspace(low, n_labeled, most)).astype(int))
    return [int(v) for v in grid]


def accuracy_by_labels(evaluation, counts=None, *, rng=None):
    """The accuracy's estimate from the first n labeled items (in a seeded random order), for each n of
    ``counts``.

    Parameters
    ----------
    evaluation : MulticlassEvaluation
        Its scores, labels, draws and level are reused (a reference set it was given is not: the curve is of
        the pool's labels alone).
    counts : sequence of int, optional
        Numbers of labels, each in 1..n (default :func:`label_counts`).
    rng : numpy.random.Generator, int or None
        Orders the labeled items; also seeds each estimate.

    Returns
    -------
    pandas.DataFrame
        One row per count: ``n_labeled``, ``mean``, ``lo``, ``hi`` (spe's estimate and interval),
        ``labeled_mean``, ``labeled_lo``, ``labeled_hi`` (the labeled items' own accuracy and its Jeffreys
        interval at the evaluation's level).

    Raises
    ------
    SpeInputError
        A count outside 1..n, or no labeled item.
    """
    import pandas as pd

    from .api import estimate_from_scores

    n = evaluation.n_labeled
    counts = label_counts(n) if counts is None else [int(c) for c in counts]
    bad = [c for c in counts if not 1 <= c <= n]
    if bad:
        raise SpeInputError(f"each count must be in 1..{n} (the labeled items), got {bad[0]}", argument="counts")
    seed = seed_of(rng)
    order = np.random.default_rng(seed).permutation(n)
    right = evaluation.scores.predicted[evaluation.labeled_index] == evaluation.labeled_class
    names = np.asarray(evaluation.classes, dtype=object)
    rows = []
    for c in counts:
        first = order[:c]
        labels = (evaluation.labeled_index[first], names[evaluation.labeled_class[first]])
        ev = estimate_from_scores(evaluation.scores, labels, draws=evaluation.diagnostics.get("draws", 1000),
                                  level=evaluation.level, rng=seed)
        acc = ev.accuracy()
        hits = int(right[first].sum())
        lo, hi = jeffreys_interval(hits, c, evaluation.level)
        rows.append({"n_labeled": c, "mean": acc.mean, "lo": acc.lo, "hi": acc.hi, "labeled_mean": hits / c,
                     "labeled_lo": lo, "labeled_hi": hi})
    return pd.DataFrame(rows)
