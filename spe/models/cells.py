"""Scores grouped into score cells: a reference set or a pool of any size as at most :data:`CELLS` weighted values.

What the models that learn from a reference set read (:mod:`spe.models.shift`), and what the pool's score
histogram is counted from (:mod:`spe.models.label_shift_check`, :mod:`spe.models.deviation`): built once per
estimate, as :attr:`spe.models.features.LabeledScores.reference_cells` and ``pool_cells``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["CompressedScores", "compressed", "CELLS"]

#: The most score cells a reference set or a pool is compressed to.
CELLS = 1024


@dataclass(frozen=True)
class CompressedScores:
    """Items grouped by score cell: the K cells' scores and how many items each stands for.

    Attributes
    ----------
    scores : array, shape (K,)
        Each cell's median score, ascending (score units).
    counts : array, shape (K,)
        Items per cell.
    positives : array, shape (K,), or None
        Labeled positives per cell (a fully labeled reference set), else None.
    """

    scores: np.ndarray
    counts: np.ndarray
    positives: np.ndarray | None = None

    @property
    def n_items(self):
        """N (or R), the items compressed."""
        return float(self.counts.sum())


def compressed(scores, labels=None, counts=None, cells=CELLS):
    """Scores grouped into at most ``cells`` cells, as :class:`CompressedScores`.

    Exactly by distinct score when there are at most ``cells`` of them;
    else by equal-count cells of the sorted scores (cut where the score
    changes), each represented by its median item's score.

    Parameters
    ----------
    scores : array, shape (N,)
        Score units, finite (callers have checked them).
    labels : 0/1 array, shape (N,), optional
        With them the cells count their positives too (``positives``).
    counts : array, shape (N,), optional
        How many items each score stands for (a :class:`spe.pool.ScorePool`'s counts); None: one each.
    cells : int
        The most cells, K ≤ ``cells``.

    Returns
    -------
    CompressedScores
    """
    s = np.asarray(scores, dtype=float)
    w = np.ones(s.size) if counts is None else np.asarray(counts, dtype=float)
    order = np.argsort(s, kind="stable")
    s, w = s[order], w[order]
    y = None if labels is None else np.asarray(labels, dtype=float)[order]
    starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])  # one group per distinct score
    cum = np.cumsum(w)
    if starts.size > cells:  # groups joined into cells of about equal weight, cut only where the score changes
        cell = np.floor((cum[starts] - w[starts]) / cum[-1] * cells).astype(int)
        starts = starts[np.r_[True, cell[1:] != cell[:-1]]]
    cell_counts = np.add.reduceat(w, starts)
    ends = np.r_[starts[1:], s.size] - 1
    mid = np.clip(np.searchsorted(cum, np.cumsum(cell_counts) - cell_counts / 2), starts, ends)
    positives = None if y is None else np.add.reduceat(y * w, starts)
    return CompressedScores(s[mid], cell_counts, positives)
