"""The Dask engine of :func:`spe.monitor`: every chunk's and slice's :class:`~spe.pool.ScorePool`, counted by Dask
tasks over the parts of the data (Parquet shards, or the partitions of a Dask DataFrame), so that the N scores are
never in one process.

Two passes, as :func:`spe.dask_engine.dask_pool`'s for one pool, each one task per part:

1. Each item's chunk (its row, a column's value, its timestamp's calendar period) and slice (the values of the
   ``by`` columns); per chunk and slice found in the part, the :class:`~spe.pool.ScoreStats` of its scores and its
   first item; the labeled items' scores; the bounds of the classifier's own decisions (a ``prediction`` column).
2. Per chunk and slice, its scores counted into the cells its statistics fix. Only the filled cells travel
   (:class:`~spe.pool.SparseCells`), combined pairwise as a Dask tree, in batches of chunks that hold at most
   :data:`CELL_BUDGET` cells.

A chunk's pool is the one :func:`~spe.dask_engine.dask_pool` counts from that chunk's items alone (the statistics
combine in the parts' order, the cells exactly); with one chunk, the same pool bit for bit, so the same estimate as
``spe estimate --engine dask``. Memory here: the pools, about 16 bytes per filled cell (at most the chunk's items
plus its labels, and at most G + its labels, each), and one batch of cells.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .chunks import groups, item_keys, period_keys, rows_key, slice_keys
from .dask_engine import LabelKeys, items_of, labeled_rows, labeled_scores, offsets_of, scheduler_context
from .exceptions import SpeInputError
from .pool import CELLS, CellLayout, ScorePool, ScoreStats, SparseCells, tree_combine
from .progress import stage

__all__ = ["PooledChunk", "Keying", "Parts", "CountedUnits", "count_units", "parts_of", "decision_bounds",
           "CELL_BUDGET"]

#: The most cells (over the chunks of one batch of the second pass) held at once: 2²³, about 270 MB.
CELL_BUDGET = 1 << 23


@dataclass(frozen=True)
class PooledChunk:
    """One chunk's or slice's items, counted into a :class:`~spe.pool.ScorePool` (its labeled items at their exact
    scores): what :func:`spe.monitor` estimates in place of a :class:`spe.chunks.Chunk`.

    Attributes
    ----------
    key : str
        As :class:`spe.chunks.Chunk`'s.
    pool : ScorePool
    start, end : int or None
        0-based rows (end exclusive) of a chunk of consecutive rows; else None.
    """

    key: str
    pool: ScorePool = field(repr=False)
    start: int | None = None
    end: int | None = None

    @property
    def n_items(self) -> int:
        return self.pool.n_items

    @property
    def n_labeled(self) -> int:
        return int(self.pool.labeled_index.size)

    def items(self, scores=None, index=None, value=None):
        """As :meth:`spe.chunks.Chunk.items`: (the pool, None: its labels are in it, the labeled items)."""
        return self.pool, None, self.n_labeled


@dataclass(frozen=True)
class Keying:
    """Which chunk and which slice each item is in, read from its part (sent to every task).

    Attributes
    ----------
    starts : tuple of int or None
        Chunks of consecutive rows: their first rows (ascending, the first 0; :func:`spe.chunks.chunk_starts`).
    column : str or None
        One chunk per value of this column.
    period, timestamp : str or None
        One chunk per calendar period (:data:`spe.chunks.PERIODS`) of the ``timestamp`` column.
    by : tuple of str
        The slices' columns (none: no slices).
    whole : bool
        No chunking was asked for: the one chunk (when there are no slices) is ``"all"``.
    """

    starts: tuple | None = None
    column: str | None = None
    period: str | None = None
    timestamp: str | None = None
    by: tuple = ()
    whole: bool = False

    def columns(self):
        """The columns a task reads besides the scores and ids."""
        return list(dict.fromkeys([c for c in (self.column, self.timestamp) if c] + list(self.by)))

    def chunk_of(self, values, offset, m):
        """Each of a part's m items' chunk (m,): a value, a period, or a consecutive chunk's number (from item
        ``offset`` on); None with slices only."""
        if self.column is not None:
            return item_keys(values[self.column], "chunk_column")
        if self.period is not None:
            return period_keys(values[self.timestamp], self.period)
        if self.starts is None:
            return None
        return np.searchsorted(np.asarray(self.starts), np.arange(offset, offset + m), side="right") - 1

    def slice_of(self, values):
        """Each item's slice (m,), or None without slices."""
        return slice_keys({b: values[b] for b in self.by}) if self.by else None


@dataclass
class Parts:
    """The data's parts, each read by one Dask task as (scores (m,) float64 score units, ids (m,) str or None,
    {column: values (m,)}, the classifier's decisions (m,) or None).

    Attributes
    ----------
    read : list
        One Dask ``delayed`` per part.
    names : list of str
        Each part's place, for messages: a shard's path, or ``"partition k"``.
    rows : int array, shape (C,)
    has_ids : bool
    """

    read: list
    names: list
    rows: np.ndarray
    has_ids: bool

    n_items = property(lambda self: items_of(self.rows), doc="N, the items of every part.")
    offsets = property(lambda self: offsets_of(self.rows), doc="Each part's first item, (C,).")

    @classmethod
    def from_parquet(cls, path, columns, score_column="score", id_column="id"):
        """A Parquet file, a directory of shards or a glob (:func:`spe.parquet.parquet_files`): one part per shard;
        the columns read as text (as ``spe monitor`` reads them in memory).

        Raises
        ------
        SpeInputError
            No shard, a shard pyarrow cannot read, a named column the first shard does not have (a later shard's
            bad value is found by its task, named by shard, row and column).
        """
        import pyarrow.parquet as pq
        from dask import delayed

        from .parquet import parquet_files, shard_rows

        files = parquet_files(path)
        names = pq.read_schema(files[0]).names
        missing = [c for c in columns if c not in names]
        if missing:
            raise SpeInputError(f"no column '{missing[0]}' (the file has: {', '.join(names)})", path=files[0])
        has_ids, decided = id_column in names, "prediction" in names
        rows = np.array([shard_rows(f) for f in files], dtype=np.int64)
        read = [delayed(_parquet_part, pure=True)(f, score_column, id_column, has_ids, columns, decided)
                for f in files]
        return cls(read, [str(f) for f in files], rows, has_ids)

    @classmethod
    def from_dask(cls, frame, columns, score_column="score", id_column="id", *, scheduler=None, workers=None):
        """A Dask DataFrame with a ``score`` column (optionally ``id``, ``prediction``) and ``columns``: one part
        per partition. Their lengths are computed first (one more pass, where ``scheduler`` says).

        Raises
        ------
        SpeInputError
            A named column the DataFrame does not have.
        """
        from dask import delayed

        missing = [c for c in [score_column, *columns] if c not in frame.columns]
        if missing:
            raise SpeInputError(f"no column {missing[0]!r} (the DataFrame has: {', '.join(map(str, frame.columns))})",
                                argument="scores")
        has_ids, decided = id_column in frame.columns, "prediction" in frame.columns
        kept = frame[list(dict.fromkeys([score_column, *([id_column] if has_ids else []), *columns,
                                         *(["prediction"] if decided else [])]))]
        with scheduler_context(scheduler, workers):
            rows = np.asarray(kept.map_partitions(len).compute(), dtype=np.int64)
        names = [f"partition {k}" for k in range(rows.size)]
        read = [delayed(_frame_part, pure=True)(p, name, score_column, id_column if has_ids else None, columns,
                                                decided) for p, name in zip(kept.to_delayed(), names)]
        return cls(read, names, rows, has_ids)


def _parquet_part(f, score_column, id_column, has_ids, columns, decided):
    import pyarrow.parquet as pq

    from .parquet import read_shard, read_text_columns

    (scores,), ids = read_shard(f, [score_column], id_column, has_ids=has_ids)
    values = read_text_columns(f, columns) if columns else {}
    decisions = None
    if decided:
        raw = np.asarray(pq.read_table(f, columns=["prediction"]).column(0).to_pylist(), dtype=object)
        decisions = _decisions(raw, f)
    return scores, ids, values, decisions


def _frame_part(frame, name, score_column, id_column, columns, decided):
    try:
        scores = frame[score_column].to_numpy(dtype=float)
    except (TypeError, ValueError):
        raise SpeInputError(f"{name}: the scores must be numbers", argument="scores") from None
    bad = np.flatnonzero(~np.isfinite(scores))
    if bad.size:
        raise SpeInputError(f"{name}, row {bad[0] + 1}: score is not a finite number ({scores[bad[0]]!r})",
                            argument="scores")
    ids = None if id_column is None else np.asarray(frame[id_column].astype(str).str.strip(), dtype=object)
    values = {c: frame[c].to_numpy() for c in columns}
    decisions = _decisions(np.asarray(frame["prediction"].to_numpy(), dtype=object), name) if decided else None
    return scores, ids, values, decisions


def _decisions(raw, where):
    from .inputs import binary_labels

    try:
        return binary_labels(raw)
    except SpeInputError as e:
        raise SpeInputError(f"{where}: the 'prediction' column: {e.message}", argument="scores") from None


@dataclass
class CountedUnits:
    """What :func:`count_units` counted.

    Attributes
    ----------
    chunks, slices : list of PooledChunk
        In :mod:`spe.chunks`' order.
    n_items, n_labeled : int
    lo, hi : float
        The smallest and largest score (score units).
    decisions : (float, float) or None
        With a ``prediction`` column: the lowest score decided 1 (inf: none) and the highest decided 0 (−inf: none).
    """

    chunks: list
    slices: list
    n_items: int
    n_labeled: int
    lo: float
    hi: float
    decisions: tuple | None


def count_units(data, labels, keying, *, pos_label=None, cells=CELLS, scheduler=None, workers=None,
                score_column="score", id_column="id"):
    """Every chunk's and slice's pool, counted by Dask (module docstring).

    Parameters
    ----------
    data : Parts, str or Path (Parquet: a file, a directory of shards, a glob), or a Dask DataFrame
    labels : LabelKeys, mapping {id or position: 0/1}, (index, value) pair, or None
        Labels by id when the data have ids, else by 0-based position across the parts.
    keying : Keying
    cells : int
        G of each pool (:data:`spe.pool.CELLS`).
    scheduler : str or None
        A ``dask.distributed`` scheduler's address; None: this machine's threads.
    workers : int or None
        Threads on this machine (None: the usable cores).

    Returns
    -------
    CountedUnits

    Raises
    ------
    SpeInputError
        A bad score, column value, timestamp or decision (named by its part and row), a label whose id or position
        is not among the items, fewer than 4 items, the data changed between the passes.
    """
    import dask

    parts = data if isinstance(data, Parts) else parts_of(data, keying.columns(), score_column, id_column,
                                                          scheduler=scheduler, workers=workers)
    keys = labels if isinstance(labels, LabelKeys) else LabelKeys.of(labels, parts.has_ids, pos_label)
    with scheduler_context(scheduler, workers):
        with stage("reading the scores, chunk by chunk (Dask, first pass)"):
            first = dask.compute(*[dask.delayed(_first_pass)(r, name, int(o), keying, keys)
                                   for r, name, o in zip(parts.read, parts.names, parts.offsets)])
        n_items = parts.n_items
        if n_items < 4:
            raise SpeInputError(f"need at least 4 scores, got {n_items}", argument="scores")
        found = _units_found(first)
        lab_scores = labeled_scores(keys, [f["labeled"][:2] for f in first], n_items)
        lab_units = [None if found[j] is None else np.concatenate([f["labeled"][2][j] for f in first])
                     for j in (0, 1)]
        lab_order = np.concatenate([f["labeled"][0] for f in first])
        pools = _count_cells(parts, keying, found, cells)
    units = [[_pooled(keying, j, key, pools[(j, key)], lab_scores, keys.values, lab_units[j], lab_order,
                      n_items)
              for key in _ordered(keying, j, found[j])] for j in (0, 1)]
    stats = tree_combine([f["stats"] for f in first if f["stats"].n])
    return CountedUnits(units[0], units[1], n_items, int(keys.keys.size), stats.lo, stats.hi,
                        _combined_bounds(first))


def parts_of(data, columns, score_column="score", id_column="id", *, scheduler=None, workers=None):
    """The :class:`Parts` of Parquet shards (a path: :meth:`Parts.from_parquet`) or of a Dask DataFrame
    (:meth:`Parts.from_dask`), reading ``columns`` besides the scores.

    Given Parts, returns them.

    Raises
    ------
    SpeInputError
        Another Dask collection than a DataFrame; as the two readers.
    """
    from .dask_engine import is_dask_collection

    if isinstance(data, Parts):
        return data
    if is_dask_collection(data):
        import dask.dataframe as dd

        if not isinstance(data, dd.DataFrame):
            raise SpeInputError(f"with the Dask engine the scores are a Dask DataFrame with a {score_column!r} column "
                                f"(and the chunks' and slices' columns), not a {type(data).__name__}",
                                argument="scores")
        return Parts.from_dask(data, columns, score_column, id_column, scheduler=scheduler, workers=workers)
    return Parts.from_parquet(data, columns, score_column, id_column)


def _first_pass(part, name, offset, keying, labels):
    """One part's chunks and slices ({key: (ScoreStats, first item)} each, or None), its labeled items (positions
    into ``labels``, scores, their chunk and slice), its ScoreStats and its decisions' bounds."""
    scores, ids, values, decisions = part
    try:
        units = (keying.chunk_of(values, offset, scores.size), keying.slice_of(values))
    except SpeInputError as e:
        raise SpeInputError(f"{name} (its items counted from 0): {e.message}", argument=e.argument) from None
    which, rows = labeled_rows(scores.size, ids, offset, labels)
    return {"units": [None if k is None else _stats_by_key(scores, k, offset) for k in units],
            "labeled": (which, scores[rows], [None if k is None else k[rows] for k in units]),
            "stats": ScoreStats.of(scores), "decisions": decision_bounds(scores, decisions)}


def decision_bounds(scores, decisions):
    """The bounds of the classifier's own decisions: (the lowest score decided 1 (inf: none), the highest decided 0
    (−inf: none)), score units, from scores (m,) and decisions (m,) 0/1; None without decisions. Every item scored
    at least the first is decided 1 exactly when the second is below it (then it is the operating threshold)."""
    if decisions is None:
        return None
    yes, no = scores[decisions == 1], scores[decisions == 0]
    return float(yes.min()) if yes.size else np.inf, float(no.max()) if no.size else -np.inf


def _stats_by_key(scores, keys, offset):
    """{key: (ScoreStats of its scores, in the part's order; its first item)} of one part."""
    distinct, first, members = groups(keys)
    return {k: (ScoreStats.of(scores[m]), offset + int(f)) for k, f, m in zip(distinct.tolist(), first, members)}


def _units_found(first):
    """Per family (chunks, slices): {key: (ScoreStats combined over the parts in order, first item, the parts
    holding it)}, or None when the family is absent."""
    out = []
    for j in (0, 1):
        if first[0]["units"][j] is None:
            out.append(None)
            continue
        stats, where = {}, {}
        for p, f in enumerate(first):
            for key, (s, at) in f["units"][j].items():
                stats.setdefault(key, []).append(s)
                where.setdefault(key, ([], at))[0].append(p)
        out.append({k: (tree_combine(stats[k]), where[k][1], where[k][0]) for k in stats})
    return out


def _ordered(keying, family, found):
    """The keys of one family in :mod:`spe.chunks`' order: consecutive chunks and slices by key, values by first
    item, periods in time order."""
    if found is None:
        return []
    if family == 0 and keying.column is not None:
        return sorted(found, key=lambda k: found[k][1])
    return sorted(found)


def _count_cells(parts, keying, found, cells):
    """{(family, key): SparseCells} of every chunk and slice (the second pass, in batches of at most
    :data:`CELL_BUDGET` cells)."""
    import dask

    units = [(j, k) for j in (0, 1) if found[j] is not None for k in _ordered(keying, j, found[j])]
    layouts = {(j, k): CellLayout.of(found[j][k][0], cells) for j, k in units}
    offsets = parts.offsets
    out = {}
    with stage("counting the scores in cells, chunk by chunk (Dask, second pass)", len(units), "chunk") as progress:
        for batch in _batches(units, found, cells):
            holding = sorted({p for j, k in batch for p in found[j][k][2]})
            wanted = {u: layouts[u] for u in batch}
            tree = tree_combine([dask.delayed(_second_pass)(parts.read[p], int(offsets[p]), keying, wanted)
                                 for p in holding], dask.delayed(_merged))
            (counted,) = dask.compute(tree)
            for u in batch:
                n = found[u[0]][u[1]][0].n
                if u not in counted or int(counted[u].count.sum()) != n:
                    raise SpeInputError(f"the scores changed between the two passes ({n:,} items in a chunk, then "
                                        f"{int(counted[u].count.sum()) if u in counted else 0:,}): the input must not "
                                        "change while spe reads it", argument="scores")
                out[u] = counted[u]
                progress.advance()
    return out


def _batches(units, found, cells):
    """The units in batches whose cells (each at most min(its items, G)) add up to at most :data:`CELL_BUDGET`."""
    batch, size = [], 0
    for u in units:
        need = min(found[u[0]][u[1]][0].n, cells)
        if batch and size + need > CELL_BUDGET:
            yield batch
            batch, size = [], 0
        batch.append(u)
        size += need
    if batch:
        yield batch


def _second_pass(part, offset, keying, layouts):
    """One part's SparseCells of each chunk and slice of ``layouts`` ({(family, key): CellLayout}) it holds."""
    scores, _, values, _ = part
    keys = (keying.chunk_of(values, offset, scores.size), keying.slice_of(values))
    out = {}
    for j in (0, 1):
        if keys[j] is None or not any(u[0] == j for u in layouts):
            continue
        distinct, _, members = groups(keys[j])
        for k, m in zip(distinct.tolist(), members):
            if (j, k) in layouts:
                out[(j, k)] = SparseCells.of(scores[m], layouts[(j, k)])
    return out


def _merged(a, b):
    """Two parts' {unit: SparseCells} as one."""
    out = dict(a)
    for u, cells in b.items():
        out[u] = out[u].combine(cells) if u in out else cells
    return out


def _pooled(keying, family, key, cells, lab_scores, lab_values, lab_units, lab_order, n):
    """One chunk's or slice's PooledChunk: its cells and its labeled items."""
    mine = np.zeros(lab_scores.size, dtype=bool)
    if lab_units is not None and lab_order.size:
        mine[lab_order[lab_units == key]] = True
    pool = ScorePool.from_cells(cells.dense(), lab_scores[mine], lab_values[mine])
    if family == 1 or keying.starts is None:  # a slice, or a chunk by a column's value or a period
        return PooledChunk(str(key), pool)
    start = keying.starts[key]
    end = keying.starts[key + 1] if key + 1 < len(keying.starts) else n
    return PooledChunk("all" if keying.whole else rows_key(start, end), pool, int(start), int(end))


def _combined_bounds(first):
    """(lowest score decided 1, highest decided 0) over the parts, or None without decisions."""
    bounds = [f["decisions"] for f in first if f["decisions"] is not None]
    if not bounds:
        return None
    return min(b[0] for b in bounds), max(b[1] for b in bounds)
