"""The Dask engine: the passes over all N scores as Dask computations over their chunks.

``engine="dask"`` (``spe estimate --engine dask [--scheduler ADDRESS]``)
never holds the N scores in one process: each chunk (a Parquet shard, a
block of whole rows of a CSV file, a block of a Dask array, a partition of
a Dask Series) is read by a Dask task, and only small partial results
travel:

1. **First pass**: each chunk's :class:`spe.pool.ScoreStats` (count,
   range; a non-finite score stops the run, named by shard and row) and
   the scores of its labeled items (by id, or by 0-based position).
2. **Second pass**: each chunk's :class:`spe.pool.CellSummary` on the
   cells the first pass fixed, combined pairwise as a Dask tree.

The result is the same :class:`spe.pool.ScorePool` that
:func:`spe.pool.pool_from_scores` builds in memory (``engine="binned"``):
counts, minima and maxima combine exactly in any order, so both engines
give the same estimate for the same seed, bit for bit. Everything after
the pool is the in-memory code. :func:`write_items` writes ``--items`` back
as Parquet shards, one per chunk, with p̂(y = 1) of every item.

Dask is an optional extra (``pip install 'spe[dask]'``); without a
``scheduler`` address the tasks run on this machine's threads
(:func:`spe.parallel.resolve_workers`), with one a ``dask.distributed``
client is opened to that scheduler and the same tasks run on its cluster
(the workers need ``spe`` installed, and the shards' paths must be
readable from them).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from .exceptions import SpeInputError, plain
from .parallel import resolve_workers
from .pool import CELLS, CellLayout, CellSummary, ScorePool, ScoreStats, tree_combine
from .progress import stage

__all__ = ["require_dask", "is_dask_collection", "ScoreSource", "LabelKeys", "label_keys_from_file", "dask_pool",
           "write_items", "StagedDirectory", "scheduler_context", "labeled_rows", "labeled_scores", "items_of",
           "offsets_of", "SCHEDULER_TIMEOUT"]


#: Seconds to wait for a ``dask.distributed`` scheduler to answer.
SCHEDULER_TIMEOUT = 10


def require_dask():
    """Import dask, or raise SpeInputError naming the extra to install."""
    try:
        import dask  # noqa: F401
    except ImportError:
        raise SpeInputError("the Dask engine needs Dask: pip install 'spe[dask]'", argument="engine") from None


def is_dask_collection(obj) -> bool:
    """Whether ``obj`` is a Dask collection (an Array, Series, DataFrame), without importing Dask."""
    if "dask" not in sys.modules:
        return False
    import dask

    return dask.is_dask_collection(obj)


@dataclass
class ScoreSource:
    """N scores stored in chunks that Dask tasks read.

    Attributes
    ----------
    chunks : list
        One Dask ``delayed`` per chunk, computing ``(scores (m,) float64, ids (m,) str or None)``.
    names : list of str
        Each chunk's place, for messages: a shard's path, or ``"block k"``.
    rows : int array, shape (C,)
        Items per chunk.
    has_ids : bool
        Whether the chunks carry ids (labels are then matched by id, else by 0-based position).
    score_chunks : list or None
        One Dask ``delayed`` per chunk computing ``(scores, None)``, cheaper than ``chunks`` (a CSV block
        without its ids), for the second pass; None: ``chunks``.
    """

    chunks: list
    names: list
    rows: np.ndarray
    has_ids: bool
    score_chunks: list | None = None

    n_items = property(lambda self: items_of(self.rows), doc="N, the items of every chunk.")
    offsets = property(lambda self: offsets_of(self.rows), doc="The position of each chunk's first item, (C,).")

    @classmethod
    def from_parquet(cls, path, score_column="score", id_column="id"):
        """A Parquet file, a directory of shards or a glob (:func:`spe.parquet.parquet_files`): one chunk per shard.

        Raises
        ------
        SpeInputError
            No shard, or one whose footer pyarrow cannot read (a bad schema or score is found by the tasks).
        """
        import pyarrow.parquet as pq
        from dask import delayed

        from .parquet import parquet_files, read_shard, shard_rows

        files = parquet_files(path)
        rows = np.array([shard_rows(f) for f in files], dtype=np.int64)
        has_ids = id_column in pq.read_schema(files[0]).names
        chunks = [delayed(_shard_chunk, pure=True)(read_shard, f, score_column, id_column, has_ids) for f in files]
        return cls(chunks, [str(f) for f in files], rows, has_ids)

    @classmethod
    def from_csv(cls, path, score_column="score", id_column="id", block_bytes=None):
        """A CSV file: one chunk per block of whole rows (:func:`spe.csv_blocks.csv_blocks`, about
        :data:`spe.csv_blocks.BLOCK_BYTES` each), read by its task exactly as the in-memory reader reads the file.

        Raises
        ------
        SpeInputError
            As :func:`spe.csv_blocks.csv_blocks` (a bad value in a later block is found by its task, and named by
            the file's row).
        """
        from dask import delayed

        from .csv_blocks import BLOCK_BYTES, csv_blocks

        layout = csv_blocks(path, [score_column], id_column, BLOCK_BYTES if block_bytes is None else block_bytes)
        read = delayed(_csv_chunk, pure=True)
        chunks, scores = ([read(layout.path, layout.header, b, score_column, id_column, with_ids)
                           for b in layout.blocks] for with_ids in (True, False))  # the second pass's: no ids
        names = [f"{layout.path} (rows {b.first_row:,} to {b.first_row + b.rows - 1:,})" for b in layout.blocks]
        return cls(chunks, names, layout.rows, layout.has_ids, scores)

    @classmethod
    def from_dask(cls, obj, score_column="score", id_column="id", *, scheduler=None, workers=None):
        """A 1-D Dask Array or a Dask Series of scores (score units), labels by 0-based position; or a Dask
        DataFrame with a ``score`` column and, when it has one, an ``id`` column that the labels name.

        The partition lengths of a Series or DataFrame are computed first: one more pass over it, where
        ``scheduler`` and ``workers`` say (:func:`scheduler_context`), as the pool's passes.

        Raises
        ------
        SpeInputError
            A DataFrame without the score column; an Array of another shape; anything else.
        """
        import dask.array as da
        import dask.dataframe as dd
        from dask import delayed

        if isinstance(obj, dd.DataFrame):
            if score_column not in obj.columns:
                raise SpeInputError(f"the Dask DataFrame has no column {score_column!r} (columns: "
                                    f"{', '.join(map(str, obj.columns))})", argument="scores")
            has_ids = id_column in obj.columns
            frame = obj[[score_column, id_column] if has_ids else [score_column]]
            with scheduler_context(scheduler, workers):
                rows = np.asarray(frame.map_partitions(len).compute(), dtype=np.int64)
            parts = frame.to_delayed()
            chunks = [delayed(_frame_chunk, pure=True)(p, score_column, id_column if has_ids else None)
                      for p in parts]
            return cls(chunks, [f"partition {k}" for k in range(len(parts))], rows, has_ids)
        if isinstance(obj, dd.Series):
            with scheduler_context(scheduler, workers):
                obj = obj.to_dask_array(lengths=True)
        if not isinstance(obj, da.Array) or obj.ndim != 1:
            raise SpeInputError(f"must be a 1-D Dask Array, a Dask Series or a Dask DataFrame, got "
                                f"{type(obj).__name__} of {getattr(obj, 'ndim', '?')} dimensions", argument="scores")

        if any(np.isnan(c) for c in obj.chunks[0]):
            raise SpeInputError("the Dask Array's chunk sizes are unknown (e.g. after a boolean selection): call its "
                                ".compute_chunk_sizes() first", argument="scores")
        blocks = obj.to_delayed().ravel().tolist()
        chunks = [delayed(_array_chunk, pure=True)(b) for b in blocks]
        return cls(chunks, [f"block {k}" for k in range(len(blocks))], np.asarray(obj.chunks[0], dtype=np.int64), False)


def items_of(rows):
    """N, the items of chunks of ``rows`` (C,) items each."""
    return int(np.sum(rows))


def offsets_of(rows):
    """The position of each chunk's first item, (C,) int64, for chunks of ``rows`` (C,) items each."""
    return np.concatenate([[0], np.cumsum(rows)[:-1]]).astype(np.int64)


def _shard_chunk(read, f, score_column, id_column, has_ids):
    columns, ids = read(f, [score_column], id_column, has_ids=has_ids)
    return columns[0], ids


def _csv_chunk(path, header, block, score_column, id_column, with_ids):
    from .csv_blocks import read_csv_block

    columns, ids = read_csv_block(path, header, block, [score_column], id_column, ids=with_ids)
    return columns[0], ids


def _frame_chunk(frame, score_column, id_column):
    ids = None if id_column is None else np.asarray(frame[id_column].astype(str).str.strip(), dtype=object)
    return frame[score_column].to_numpy(dtype=float), ids


def _array_chunk(block):
    return np.asarray(block, dtype=float).ravel(), None


@dataclass(frozen=True)
class LabelKeys:
    """The labels before they are matched to the chunks: by id (str) or by 0-based position.

    Attributes
    ----------
    keys : array, shape (n,)
        str ids, or int64 positions.
    values : int array, shape (n,)
        0 or 1.
    by_id : bool
    source : str
        Where they came from, for messages (a file's path, or "labels").
    """

    keys: np.ndarray
    values: np.ndarray
    by_id: bool
    source: str = "labels"

    @classmethod
    def of(cls, labels, has_ids, pos_label=None):
        """From :func:`spe.evaluate`'s ``labels``: None, a mapping {id or position: 0/1}, or an (index, value)
        pair of positions; with ids (``has_ids``) the keys are ids (as str). Label values as
        :func:`spe.inputs.binary_labels` reads them (``pos_label``); NaN or None: unlabeled.

        Raises
        ------
        SpeInputError
            A label other than 0/1, or a position that is not an integer ≥ 0.
        """
        if labels is None:
            keys, values = [], []
        elif isinstance(labels, dict):
            keys, values = list(labels.keys()), list(labels.values())
        elif isinstance(labels, tuple) and len(labels) == 2:
            keys, values = list(np.asarray(labels[0]).tolist()), list(np.asarray(labels[1]).tolist())
        else:
            raise SpeInputError("with the Dask engine, labels are a mapping {id or position: 0/1} or an "
                                "(index, value) pair", argument="labels")
        from .inputs import encoded_labels, is_missing

        values = np.asarray(values, dtype=object)
        keep = ~is_missing(values)
        keys, values = [k for k, kept in zip(keys, keep) if kept], values[keep]
        v = encoded_labels(values, np.asarray(keys, dtype=object), pos_label)
        if has_ids:
            k = np.asarray([str(x).strip() for x in keys], dtype=object)
        else:
            try:
                f = np.asarray(keys, dtype=float) if keys else np.zeros(0)
            except (TypeError, ValueError):
                f = np.array([np.nan])
            if not np.all(np.isfinite(f) & (f == np.round(f))):
                raise SpeInputError("without ids, labels are keyed by 0-based position (integers)",
                                    argument="labels")
            k = f.astype(np.int64)
            if k.size and k.min() < 0:
                raise SpeInputError(f"position {int(k.min())} is negative", argument="labels")
        if np.unique(k).size != k.size:
            raise SpeInputError("an item is labeled twice", argument="labels")
        return cls(k, v.astype(np.int64), has_ids)


def label_keys_from_file(path, has_ids, id_column="id", label_column="label", pos_label=None):
    """A labels file (:func:`spe.io.read_label_table`) as :class:`LabelKeys`: by id when the scores have ids,
    else by 0-based row.

    Raises
    ------
    SpeInputError
        As :func:`spe.io.read_label_table`; without ids, an id that is not a row number (named by row).
    """
    from .io import read_label_table

    ids, values, rows = read_label_table(path, id_column, label_column, pos_label=pos_label)
    if has_ids:
        return LabelKeys(np.asarray(ids, dtype=object), values, True, str(path))
    keys = np.empty(ids.size, dtype=np.int64)
    for r, v in enumerate(ids):
        if not (v.isdigit() and str(int(v)) == v):
            raise SpeInputError(f"id {plain(v)!r} is not a 0-based row number (the scores have no 'id' column)",
                                path=path, row=int(rows[r]), column=id_column)
        keys[r] = int(v)
    return LabelKeys(keys, values, False, str(path))


def _first_pass(chunk, offset, labels):
    """One chunk's statistics and its labeled items: (ScoreStats, label positions into ``labels`` (h,),
    the chunk's rows of them (h,), their scores (h,))."""
    scores, ids = chunk
    which, rows = labeled_rows(scores.size, ids, offset, labels)
    return ScoreStats.of(scores), which, rows, scores[rows]


def labeled_rows(m, ids, offset, labels):
    """Which of the :class:`LabelKeys` ``labels`` fall in a chunk of m items starting at item ``offset`` (its ids
    (m,) str, or None: by position): (positions into ``labels`` (h,), the chunk's rows of them (h,))."""
    if labels.by_id:
        import pandas as pd

        found = pd.Index(labels.keys).get_indexer(ids)  # hashed: O(m), whatever the number of labels
        rows = np.flatnonzero(found >= 0)
        return found[rows], rows
    which = np.flatnonzero((labels.keys >= offset) & (labels.keys < offset + m))
    return which, labels.keys[which] - offset


def _second_pass(chunk, layout):
    return CellSummary.of(chunk[0], layout)


@contextmanager
def scheduler_context(scheduler=None, workers=None):
    """Where the tasks run: this machine's threads (``scheduler`` None), or a ``dask.distributed`` scheduler at
    ``scheduler`` (an address such as ``tcp://10.0.0.5:8786``), whose client is closed on exit.

    Raises
    ------
    SpeInputError
        An address no scheduler answers at (within :data:`SCHEDULER_TIMEOUT` seconds), or ``dask.distributed``
        not installed.
    """
    import dask

    if scheduler is None:
        with dask.config.set(scheduler="threads", num_workers=resolve_workers(workers)):
            yield
        return
    try:
        from distributed import Client
    except ImportError:
        raise SpeInputError("a scheduler address needs dask.distributed: pip install 'spe[dask]'",
                            argument="scheduler") from None
    try:
        client = Client(scheduler, timeout=SCHEDULER_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as e:
        raise SpeInputError(f"no Dask scheduler answers at {scheduler!r} ({e})", argument="scheduler") from None
    try:
        with dask.config.set(scheduler=client.get):
            yield
    finally:
        client.close()


def dask_pool(source, labels, *, cells=CELLS, scheduler=None, workers=None):
    """The :class:`~spe.pool.ScorePool` of a :class:`ScoreSource`, computed by Dask (two passes, see the module
    docstring).

    Parameters
    ----------
    source : ScoreSource
    labels : LabelKeys
    cells : int
        G (:data:`spe.pool.CELLS`).
    scheduler : str or None
        A ``dask.distributed`` scheduler's address; None: this machine's threads.
    workers : int or None
        Threads on this machine (None: the usable cores).

    Returns
    -------
    ScorePool
        The labeled items in score order.

    Raises
    ------
    SpeInputError
        A non-finite score (named by shard or block and row), a bad shard, fewer than 4 items, a label whose id
        or position is not among the items, a labeled id found more than once (unlabeled ids are not checked
        for repeats: that would need every id in one place), scores that changed between the passes.
    """
    import dask
    from dask import delayed

    with scheduler_context(scheduler, workers):
        with stage("reading the scores (Dask, first pass)"):
            first = dask.compute(*[delayed(_first_pass)(c, int(o), labels)
                                   for c, o in zip(source.chunks, source.offsets)])
        stats = tree_combine(f[0] for f in first)
        _check_stats(source, [f[0] for f in first])
        lab_scores = labeled_scores(labels, [(f[1], f[3]) for f in first], source.n_items)
        layout = CellLayout.of(stats, cells)
        with stage("counting the scores in cells (Dask, second pass)"):
            tree = tree_combine([delayed(_second_pass)(c, layout) for c in source.score_chunks or source.chunks],
                                delayed(CellSummary.combine))
            (summary,) = dask.compute(tree)
    if int(summary.count.sum()) != stats.n:
        raise SpeInputError(f"the scores changed between the two passes ({stats.n:,} items, then "
                            f"{int(summary.count.sum()):,}): the input must not change while spe reads it",
                            argument="scores")
    return ScorePool.from_cells(summary, lab_scores, labels.values)


def _check_stats(source, stats):
    for name, offset, s in zip(source.names, source.offsets, stats):
        if s.bad >= 0:
            raise SpeInputError(f"score is not a finite number ({plain(s.bad_value)!r}) at row {s.bad + 1} of {name} "
                                f"(item {int(offset) + s.bad})", argument="scores")
    if source.n_items < 4:
        raise SpeInputError(f"need at least 4 scores, got {source.n_items}", argument="scores")


def labeled_scores(labels, found, n_items):
    """The labeled items' scores (n,) in the order of the :class:`LabelKeys` ``labels``, from what each chunk
    found (``found``: per chunk, (positions into ``labels`` (h,), their scores (h,))) among ``n_items`` items.

    Raises
    ------
    SpeInputError
        A label not found (its id or position is not among the items), or an id found more than once.
    """
    out = np.full(labels.keys.size, np.nan)
    seen = np.zeros(labels.keys.size, dtype=np.int64)
    for which, scores in found:
        np.add.at(seen, which, 1)  # an id repeated within one chunk counts twice
        out[which] = scores
    what = "id" if labels.by_id else "position"
    missing = np.flatnonzero(seen == 0)
    if missing.size:
        k = labels.keys[missing[0]]
        shown = repr(str(k)) if labels.by_id else int(k)
        where = f"the {n_items:,} items (0..{n_items - 1})" if not labels.by_id else "the scores"
        raise SpeInputError(f"the labeled {what} {shown} ({labels.source}) is not among {where}", argument="labels")
    twice = np.flatnonzero(seen > 1)
    if twice.size:
        raise SpeInputError(f"the labeled id {str(labels.keys[twice[0]])!r} occurs {int(seen[twice[0]])} times in "
                            "the scores",
                            argument="labels")
    return out


def write_items(evaluation, source, labels, directory, *, scheduler=None, workers=None):
    """``--items`` with the Dask engine: Parquet shards, one per chunk, into ``directory`` (which must exist and
    be readable from where the tasks run: a shared file system on a cluster).

    Each shard ``part-00000.parquet``, … holds the chunk's ``id`` (or its 0-based ``position``), ``score`` and
    ``probability``: p̂(y = 1) (:meth:`spe.evaluation.Evaluation.probability_at`, from its grid
    :meth:`~spe.evaluation.Evaluation.probability_grid`, the only part of the evaluation sent to the tasks);
    labeled items keep their label. :class:`StagedDirectory` makes the output whole or absent.

    Raises
    ------
    SpeInputError
        A shard missing afterwards, or with another number of rows than its chunk (the tasks wrote elsewhere:
        no shared file system).
    """
    import dask
    from dask import delayed

    at, p = evaluation.probability_grid()
    outs = [os.path.join(directory, f"part-{k:05d}.parquet") for k in range(len(source.chunks))]
    with scheduler_context(scheduler, workers), stage("writing the items (Dask)"):
        dask.compute(*[delayed(_write_chunk)(c, int(o), labels, at, p, out)
                       for c, o, out in zip(source.chunks, source.offsets, outs)])
    _check_written(outs, source.rows)


def _check_written(outs, rows):
    import pyarrow.parquet as pq

    for out, n in zip(outs, rows):
        if not os.path.exists(out) or pq.ParquetFile(out).metadata.num_rows != n:
            raise SpeInputError(f"the item shard {out} was not written here (on a cluster, --items must be on a "
                                "file system the workers share with this machine)", argument="items")


def _write_chunk(chunk, offset, labels, at, grid, out):
    import pyarrow as pa
    import pyarrow.parquet as pq

    scores, ids = chunk
    p = np.interp(scores, at, grid)
    which, rows = labeled_rows(scores.size, ids, offset, labels)
    p[rows] = labels.values[which]
    key = {"id": pa.array(ids, type=pa.string())} if ids is not None else {
        "position": pa.array(np.arange(offset, offset + scores.size, dtype=np.int64))}
    pq.write_table(pa.table({**key, "score": scores, "probability": p}), out)


class StagedDirectory:
    """A new output directory written whole or not at all: a temporary directory beside ``path``
    (:attr:`tmp`), moved to ``path`` by :meth:`commit`, removed by :meth:`discard` (and on leaving a ``with``
    block without a commit).

    Raises
    ------
    SpeInputError
        ``path`` exists, or its parent directory does not (checked when made, before any work).
    """

    def __init__(self, path, flag="--items"):
        self.path = os.path.abspath(path)
        parent = os.path.dirname(self.path)
        if os.path.exists(self.path):
            raise SpeInputError(f"{path} exists: {flag} names a new directory", argument=flag.lstrip("-"))
        if not os.path.isdir(parent):
            raise SpeInputError(f"no directory {parent} to write {path} in", argument=flag.lstrip("-"))
        self.tmp = None
        self._parent = parent

    def __enter__(self):
        self.tmp = tempfile.mkdtemp(prefix=".spe-items-", dir=self._parent)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(self.tmp, 0o777 & ~umask)  # mkdtemp's 0700 would hide the result from the user's group
        return self

    def commit(self):
        """Move the written directory to ``path``."""
        os.replace(self.tmp, self.path)
        self.tmp = None

    def discard(self):
        """Remove the written directory (nothing when already committed)."""
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
            self.tmp = None

    def __exit__(self, *exc):
        self.discard()
        return False
