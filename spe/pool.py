"""The N scores as K weighted values: what the large-N engines hand to the model.

Everything :func:`spe.evaluate` does with all N scores reduces to a few
passes over them: their range, quantiles, a histogram, the scores of the
labeled items. Above a few million items these passes are done once, into
a :class:`ScorePool`, and the model reads the pool instead of the scores:
K ≤ :data:`CELLS` + n values, each with the number of items it stands for.

How the pool is built (the same arithmetic in memory and over Dask chunks,
so both engines give the same pool, bit for bit):

1. **Range** (:class:`ScoreStats`, one pass): N, the smallest and largest
   score, the smallest and largest score strictly inside (0, 1), and the
   first non-finite score if any.
2. **Cells** (:class:`CellLayout`): G cells of equal width on a cell
   scale chosen from the first pass: the logit (clipped as
   :func:`spe.models.mixture.logit_clip` clips it) when every score is a
   probability; the score itself when the range spans at most
   :data:`LINEAR_SPAN` standard deviations; else asinh(s / c) with
   c = 10⁻⁶ · max |s|, which is linear near 0 and logarithmic in |s| far
   from it, so an outlier a million times the bulk's scale does not squash
   the bulk into a few cells.
3. **Counts** (:class:`CellSummary`, a second pass): per cell, how many
   items, and their smallest and largest score. Sums, minima and maxima
   combine exactly in any order.
4. **The pool** (:meth:`ScorePool.from_cells`): each non-empty cell becomes
   one value — its only score when all its items share one, else the
   midpoint of its smallest and largest — weighted by its items less the
   labeled ones, and each labeled item is its own entry at its exact score.

The approximation is stated: every unlabeled item's score is within
:attr:`ScorePool.max_error` (score units; the largest half-spread of a
cell) of the value that stands for it; it is 0 for scores that take at most
one value per cell (probabilities rounded to a few digits, integers).
Quantiles of the pool are those of the N scores to within twice that bound
(a cell's spread: a labeled item keeps its own score inside its cell).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .exceptions import SpeInputError

__all__ = ["ScorePool", "ScoreStats", "CellLayout", "CellSummary", "SparseCells", "CELLS",
           "pool_from_scores", "tree_combine"]

#: G, the cells of the pool's cell scale (2¹⁸: 6 MB of counts, minima and maxima; at most G values for the model).
CELLS = 1 << 18
#: c of the asinh cell scale, as a fraction of the largest |score|.
ASINH_SCALE = 1e-6
#: Scores whose range spans at most this many standard deviations are cut into cells as they are (no outlier
#: squashes the bulk: each standard deviation gets at least G / LINEAR_SPAN cells).
LINEAR_SPAN = 100.0


@dataclass(frozen=True)
class ScoreStats:
    """The first pass over the scores: what fixes the cells (combine chunks with :meth:`combine`).

    Attributes
    ----------
    n : int
        Scores seen.
    lo, hi : float
        Smallest and largest score (score units; ±inf when ``n`` is 0).
    inner_lo, inner_hi : float
        Smallest and largest score strictly inside (0, 1) (inf, −inf when none).
    bad : int
        Position of the first non-finite score within the scores seen (−1: none).
    bad_value : float
        That score (NaN or ±inf).
    mean, m2 : float
        The scores' mean and Σ (s − mean)² (combined by Chan et al.'s pairwise update, which does not cancel
        for scores far from 0); for the standard deviation that picks the cell scale.
    """

    n: int
    lo: float
    hi: float
    inner_lo: float
    inner_hi: float
    bad: int = -1
    bad_value: float = 0.0
    mean: float = 0.0
    m2: float = 0.0

    @classmethod
    def of(cls, scores):
        """The statistics of one chunk of scores (n,), score units."""
        s = np.asarray(scores, dtype=float)
        finite = np.isfinite(s)
        if not finite.all():
            k = int(np.argmin(finite))
            return cls(s.size, np.inf, -np.inf, np.inf, -np.inf, k, float(s[k]))
        if s.size == 0:
            return cls(0, np.inf, -np.inf, np.inf, -np.inf)
        lo, hi = float(s.min()), float(s.max())
        inner_lo, inner_hi = np.inf, -np.inf
        if lo < 1 and hi > 0:
            inner = s[(s > 0) & (s < 1)]
            inner_lo, inner_hi = (float(inner.min()), float(inner.max())) if inner.size else (np.inf, -np.inf)
        mean = float(s.mean())
        d = s - mean
        return cls(s.size, lo, hi, inner_lo, inner_hi, mean=mean, m2=float(np.dot(d, d)))

    def combine(self, later):
        """These statistics followed by those of the chunk after them (the first bad score wins)."""
        bad, bad_value = self.bad, self.bad_value
        if bad < 0 and later.bad >= 0:
            bad, bad_value = self.n + later.bad, later.bad_value
        n = self.n + later.n
        mean, m2 = self.mean, self.m2
        if later.n and self.n:
            delta = later.mean - self.mean
            mean = self.mean + delta * later.n / n
            m2 = self.m2 + later.m2 + delta * delta * self.n * later.n / n
        elif later.n:
            mean, m2 = later.mean, later.m2
        return ScoreStats(n, min(self.lo, later.lo), max(self.hi, later.hi), min(self.inner_lo, later.inner_lo),
                          max(self.inner_hi, later.inner_hi), bad, bad_value, mean, m2)

    @property
    def std(self) -> float:
        """The scores' standard deviation (score units; 0 for fewer than 2)."""
        return float(np.sqrt(self.m2 / self.n)) if self.n >= 2 and np.isfinite(self.m2) else 0.0

    @property
    def probabilities(self) -> bool:
        """Every score lies in [0, 1]."""
        return self.lo >= 0 and self.hi <= 1


@dataclass(frozen=True)
class CellLayout:
    """G equal cells on a monotone cell scale of the scores (see the module docstring).

    Attributes
    ----------
    kind : {"logit", "linear", "asinh"}
    eps : float
        The logit's clip (``kind="logit"``).
    scale : float
        c of asinh(s / c) (``kind="asinh"``).
    start, width : float
        Cell j covers [start + j·width, start + (j + 1)·width) on the cell scale (the last one closed).
    cells : int
        G.
    """

    kind: str
    eps: float
    scale: float
    start: float
    width: float
    cells: int

    @classmethod
    def of(cls, stats, cells=CELLS):
        """The layout for scores with these :class:`ScoreStats` (G = ``cells`` ≥ 1)."""
        if stats.probabilities:
            inner = min(stats.inner_lo, 1 - stats.inner_hi) if stats.inner_lo <= stats.inner_hi else 2e-6
            kind, eps, scale = "logit", min(max(0.5 * inner, 1e-12), 1e-3), 1.0
        elif stats.hi - stats.lo <= LINEAR_SPAN * stats.std:
            kind, eps, scale = "linear", 0.0, 1.0
        else:
            kind, eps, scale = "asinh", 0.0, max(ASINH_SCALE * max(abs(stats.lo), abs(stats.hi)), 1e-300)
        probe = cls(kind, eps, scale, 0.0, 1.0, int(cells))
        a, b = probe.scale_of(np.array([stats.lo, stats.hi]))
        width = (b - a) / cells if b > a else 1.0
        return cls(kind, eps, scale, float(a), float(width), int(cells))

    def scale_of(self, scores):
        """The cell scale of scores (n,) in score units: (n,)."""
        s = np.asarray(scores, dtype=float)
        if self.kind == "logit":
            c = np.clip(s, self.eps, 1 - self.eps)
            z = np.log1p(-c)
            np.log(c, out=c)
            return np.subtract(c, z, out=c)
        if self.kind == "linear":
            return s
        z = s / self.scale
        return np.arcsinh(z, out=z)

    def cell_of(self, scores):
        """The cell of each score (n,): int64 (n,) in [0, G)."""
        z = np.subtract(self.scale_of(scores), self.start)  # a new array: the scores are never modified
        z /= self.width
        np.floor(z, out=z)
        np.clip(z, 0, self.cells - 1, out=z)
        return z.astype(np.int64)


@dataclass
class CellSummary:
    """The second pass: per cell, the items and their smallest and largest score (combine with :meth:`combine`).

    Attributes
    ----------
    count : int64 array, shape (G,)
    lo, hi : float arrays, shape (G,)
        Score units; inf and −inf in empty cells.
    """

    count: np.ndarray
    lo: np.ndarray
    hi: np.ndarray

    @classmethod
    def of(cls, scores, layout):
        """The summary of one chunk of finite scores (n,) on ``layout``."""
        s = np.asarray(scores, dtype=float)
        j = layout.cell_of(s)
        lo, hi = np.full(layout.cells, np.inf), np.full(layout.cells, -np.inf)
        np.minimum.at(lo, j, s)
        np.maximum.at(hi, j, s)
        return cls(np.bincount(j, minlength=layout.cells).astype(np.int64), lo, hi)

    def combine(self, other):
        """The summary of both chunks (exact, in any order)."""
        return CellSummary(self.count + other.count, np.minimum(self.lo, other.lo), np.maximum(self.hi, other.hi))


@dataclass
class SparseCells:
    """A :class:`CellSummary` of only the cells that hold items: for many pools at once (:mod:`spe.chunk_pools`,
    one per chunk), where G cells per pool and per task would not fit.

    Attributes
    ----------
    cell : int64 array, shape (k,)
        The cells holding items, ascending.
    count : int64 array, shape (k,)
    lo, hi : float arrays, shape (k,)
        Score units.
    cells : int
        G.
    """

    cell: np.ndarray
    count: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    cells: int

    @classmethod
    def of(cls, scores, layout):
        """The summary of one chunk of finite scores (n,) on ``layout`` (the same cells as :meth:`CellSummary.of`)."""
        s = np.asarray(scores, dtype=float)
        return cls._grouped(layout.cell_of(s), np.ones(s.size, dtype=np.int64), s, s, layout.cells)

    @classmethod
    def _grouped(cls, cell, count, lo, hi, cells):
        if not cell.size:
            return cls(cell, count, lo, hi, cells)
        order = np.argsort(cell, kind="stable")
        cell = cell[order]
        starts = np.flatnonzero(np.r_[True, cell[1:] != cell[:-1]])
        return cls(cell[starts], np.add.reduceat(count[order], starts), np.minimum.reduceat(lo[order], starts),
                   np.maximum.reduceat(hi[order], starts), cells)

    def combine(self, other):
        """The summary of both chunks (exact, in any order)."""
        return SparseCells._grouped(np.concatenate([self.cell, other.cell]), np.concatenate([self.count, other.count]),
                                    np.concatenate([self.lo, other.lo]), np.concatenate([self.hi, other.hi]),
                                    self.cells)

    def dense(self):
        """The same summary as a :class:`CellSummary` (G cells)."""
        count = np.zeros(self.cells, dtype=np.int64)
        lo, hi = np.full(self.cells, np.inf), np.full(self.cells, -np.inf)
        count[self.cell], lo[self.cell], hi[self.cell] = self.count, self.lo, self.hi
        return CellSummary(count, lo, hi)


def tree_combine(parts, combine=None):
    """Combine partial results pairwise, order kept: a list → one result.

    ``combine(a, b)``: default ``a.combine(b)`` (:class:`ScoreStats`, :class:`CellSummary`); the Dask engine
    passes a lazy one, so that the same tree is built as a Dask graph. The order is kept so that floating-point
    sums (Chan's variance update) come out the same for the same chunks on any engine.

    Raises
    ------
    IndexError
        ``parts`` empty (every caller has at least one chunk).
    """
    combine = _combined if combine is None else combine
    parts = list(parts)
    while len(parts) > 1:
        parts = [combine(parts[i], parts[i + 1]) if i + 1 < len(parts) else parts[i] for i in range(0, len(parts), 2)]
    return parts[0]


def _combined(a, b):
    return a.combine(b)


@dataclass(frozen=True)
class ScorePool:
    """N scores as K weighted values, the labeled items each their own entry at its exact score.

    Attributes
    ----------
    values : array, shape (K,)
        Ascending, score units.
    counts : int64 array, shape (K,)
        The items each value stands for (≥ 1; 1 at a labeled item). N = ``counts.sum()``.
    labeled_index : int array, shape (n,)
        Positions of the labeled items in ``values``, ascending.
    labeled_value : 0/1 int array, shape (n,)
    max_error : float
        Every unlabeled item's score is within this of its value (score units; 0: the values are the scores).
    cells : int
        G, the cells the pool was counted in (0: not binned).
    n_distinct : int
        An upper bound on the distinct scores (exact when ``max_error`` is 0): a cell holding one score counts
        1, another its items.
    """

    values: np.ndarray
    counts: np.ndarray
    labeled_index: np.ndarray
    labeled_value: np.ndarray
    max_error: float
    cells: int
    n_distinct: int

    @property
    def n_items(self) -> int:
        """N, the items of the pool."""
        return int(self.counts.sum())

    @classmethod
    def from_cells(cls, summary, labeled_scores, labeled_value):
        """The pool from a :class:`CellSummary` of all N scores (G cells) and the labeled items' exact scores
        (n,), score units, with their labels (n,) 0/1, in any order (the pool keeps them by score, then label).

        Returns
        -------
        ScorePool
            K ≤ G + n values.

        Raises
        ------
        SpeInputError
            A labeled score in a cell with no items (the labels do not belong to these scores).
        """
        count = summary.count.copy()
        lab_s = np.asarray(labeled_scores, dtype=float)
        lab_y = np.asarray(labeled_value, dtype=np.int64)
        canonical = np.lexsort((lab_y, lab_s))  # by score, then label: the same pool however the labels came
        lab_s, lab_y = lab_s[canonical], lab_y[canonical]
        filled = count > 0
        single = filled & (summary.lo == summary.hi)
        with np.errstate(invalid="ignore"):
            rep = np.where(single, summary.lo, 0.5 * (summary.lo + summary.hi))
        cell = _cell_of_labeled(summary, lab_s)
        np.subtract.at(count, cell, 1)
        if np.any(count < 0):
            raise SpeInputError("a labeled item's score is not among the scores", argument="labels")
        keep = count > 0
        values = np.concatenate([rep[keep], lab_s])
        counts = np.concatenate([count[keep], np.ones(lab_s.size, dtype=np.int64)])
        order = np.argsort(values, kind="stable")
        position = np.empty(order.size, dtype=np.int64)
        position[order] = np.arange(order.size)
        with np.errstate(invalid="ignore"):  # the distance of a cell's value to its farthest score, as computed
            spread = np.where(filled & ~single, np.maximum(rep - summary.lo, summary.hi - rep), 0.0)
        bound = int(np.count_nonzero(single) + summary.count[filled & ~single].sum())
        # the labeled entries come after the cells' and are sorted, so a stable sort keeps them ascending
        return cls(values[order], counts[order], position[keep.sum():], lab_y, float(spread.max(initial=0.0)),
                   int(count.size), bound)

    def to_dict(self) -> dict:
        """JSON-ready: ``{"cells", "values", "max_error"}`` (what ``diagnostics["pool"]`` holds)."""
        return {"cells": self.cells, "values": int(self.values.size), "max_error": self.max_error}


def _cell_of_labeled(summary, lab_s):
    """The non-empty cell whose [lo, hi] holds each labeled score (n,) → int (n,).

    Raises SpeInputError when a labeled score lies in no cell's range (it is not one of the scores)."""
    filled = np.flatnonzero(summary.count > 0)
    k = np.searchsorted(summary.hi[filled], lab_s, side="left")
    k = np.minimum(k, filled.size - 1)
    inside = (summary.lo[filled][k] <= lab_s) & (lab_s <= summary.hi[filled][k])
    if not inside.all():
        raise SpeInputError("a labeled item's score is not among the scores", argument="labels")
    return filled[k]


def pool_from_scores(scores, labeled_index, labeled_value, cells=CELLS, chunk=1 << 24):
    """The in-memory binned path: the :class:`ScorePool` of scores (N,) already in memory.

    The same passes as the Dask engine (:mod:`spe.dask_engine`), in chunks
    of ``chunk`` scores, so both give the same pool for the same scores.

    Parameters
    ----------
    scores : array, shape (N,)
        Finite, score units.
    labeled_index : int array, shape (n,)
        Positions of the labeled items.
    labeled_value : 0/1 array, shape (n,)
    cells : int
        G (:data:`CELLS`).

    Returns
    -------
    ScorePool
    """
    s = np.asarray(scores, dtype=float)
    pieces = [s[i:i + chunk] for i in range(0, max(s.size, 1), chunk)]
    layout = CellLayout.of(tree_combine(ScoreStats.of(p) for p in pieces), cells)
    summary = tree_combine(CellSummary.of(p, layout) for p in pieces)
    return ScorePool.from_cells(summary, s[np.asarray(labeled_index, dtype=int)], labeled_value)
