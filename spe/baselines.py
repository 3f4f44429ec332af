"""Labeled-only ("naive") estimates: what the labeled items alone say.

Welinder et al. (2013) §4.3, Fig. 2 compare SPE with the *naive* method: the
performance curve computed from the labeled items alone. These functions use
the same curve conventions as :mod:`spe.metrics`, so the two are comparable.
"""

from __future__ import annotations

import numpy as np

from .metrics import RECALL_GRID, ScoreGroups, curves_from_counts, pr_at_recall

__all__ = ["pr_curve_from_labels", "labeled_only_pr_curve"]


def pr_curve_from_labels(scores, labels, grid=RECALL_GRID):
    """Precision at each recall of ``grid`` for fully labeled items.

    Parameters
    ----------
    scores : array, shape (N,)
        Score units.
    labels : 0/1 array, shape (N,)
    grid : array, shape (G,)

    Returns
    -------
    array, shape (G,)
        Precision of the highest threshold whose recall is ≥ r; NaN if there
        is no positive.
    """
    scores = np.asarray(scores, dtype=float)
    labels = np.asarray(labels).astype(int)
    g = ScoreGroups.build(scores, np.arange(scores.size), labels)
    tp, fp = curves_from_counts(g.n_labeled_pos[None, :], g.counts)
    return pr_at_recall(tp, fp, grid)[0]


def labeled_only_pr_curve(scores, labeled_index, labeled_value, grid=RECALL_GRID):
    """The naive estimate: the PR curve of the n labeled items alone.

    Parameters
    ----------
    scores : array, shape (N,)
    labeled_index : int array, shape (n,)
    labeled_value : 0/1 array, shape (n,)
    grid : array, shape (G,)

    Returns
    -------
    array, shape (G,)
        NaN when no labeled item is positive (the labels alone give no curve).
    """
    scores = np.asarray(scores, dtype=float)
    idx = np.asarray(labeled_index, dtype=int)
    if idx.size == 0:
        return np.full(np.size(grid), np.nan)
    return pr_curve_from_labels(scores[idx], np.asarray(labeled_value), grid)
