"""Which engine does the passes over all N scores: in memory exactly, in memory into a pool, or with Dask.

- ``"memory"``: every score in this process, each its own item (exact; the
  default below :data:`POOL_ABOVE` items).
- ``"binned"``: every score in this process, counted into a
  :class:`spe.pool.ScorePool` of at most :data:`spe.pool.CELLS` cells (the
  in-memory binned path; the default for an array above :data:`POOL_ABOVE`).
- ``"dask"``: the same pool computed by Dask over the chunks of a Dask
  collection or of Parquet shards (:mod:`spe.dask_engine`), on this machine
  or on a cluster (``scheduler``); the default for a Dask collection.

``"binned"`` and ``"dask"`` give the same pool for the same scores, so the
same estimate for the same seed. ``"auto"`` picks as above.
"""

from __future__ import annotations

from .exceptions import SpeInputError

# the command line reads ENGINES at start-up: numpy, pandas and the pool are imported when an engine runs

__all__ = ["ENGINES", "POOL_ABOVE", "resolve_engine", "pooled_scores"]

ENGINES = ("auto", "memory", "binned", "dask")

#: ``engine="auto"``: arrays with more items than this are counted into a pool (benchmarks/speed.py measures
#: both paths; below it the exact path is as fast and keeps every item's own score).
POOL_ABOVE = 10_000_000


def resolve_engine(engine, scores):
    """The engine ``"auto"`` means for these scores: ``"dask"`` for a Dask collection, ``"binned"`` above
    :data:`POOL_ABOVE` items, else ``"memory"``; any other choice is checked and kept.

    Raises
    ------
    SpeInputError
        An unknown engine, or "memory"/"binned" given a Dask collection (it would be computed whole).
    """
    from .dask_engine import is_dask_collection
    from .inputs import check_choice

    check_choice("engine", engine, ENGINES)
    lazy = is_dask_collection(scores)
    if engine == "auto":
        return "dask" if lazy else "binned" if _size(scores) > POOL_ABOVE else "memory"
    if lazy and engine != "dask":
        raise SpeInputError(f"the scores are a Dask collection: use engine='dask' (or 'auto'), not {engine!r}",
                            argument="engine")
    return engine


def _size(scores):
    try:
        return len(scores)
    except TypeError:
        return 0


def pooled_scores(scores, labels, *, engine="auto", scheduler=None, cells=None, workers=None, pos_label=None):
    """The :class:`~spe.pool.ScorePool` of the scores and labels, or None for the exact in-memory path.

    Parameters
    ----------
    scores : array-like (N,), Dask Array, Series or DataFrame, a :class:`spe.dask_engine.ScoreSource`, or a
        :class:`~spe.pool.ScorePool` already counted (its labels in it; :mod:`spe.chunk_pools`), returned as it is
    labels : as :func:`spe.evaluate`'s (with Dask: a mapping or an (index, value) pair,
        :class:`spe.dask_engine.LabelKeys`); None with a ScorePool
    engine : {"auto", "memory", "binned", "dask"}
    scheduler : str or None
        ``engine="dask"``: a ``dask.distributed`` scheduler's address (None: this machine).
    cells : int or None
        G, the pool's cells (None: :data:`spe.pool.CELLS`).
    pos_label : scalar or None
        The positive class's label value (:func:`spe.inputs.normalize_labels`).

    Raises
    ------
    SpeInputError
        As :func:`resolve_engine`; a scheduler without the Dask engine; bad scores or labels (named); labels
        beside a ScorePool.
    """
    from .dask_engine import LabelKeys, ScoreSource, dask_pool, require_dask
    from .inputs import as_scores, item_ids, normalize_labels
    from .pool import CELLS, ScorePool, pool_from_scores

    if isinstance(scores, ScorePool):
        if labels is not None:
            raise SpeInputError("a ScorePool holds its labels: give no others", argument="labels")
        return scores
    cells = CELLS if cells is None else cells

    if isinstance(scores, ScoreSource):
        engine = "dask"
    else:
        engine = resolve_engine(engine, scores)
    if scheduler is not None and engine != "dask":
        raise SpeInputError("a scheduler address is for the Dask engine (engine='dask')", argument="scheduler")
    if engine == "memory":
        return None
    if engine == "binned":
        s = as_scores(scores)
        return pool_from_scores(s, *normalize_labels(labels, s.size, item_ids(scores), pos_label), cells=cells)
    require_dask()
    source = scores if isinstance(scores, ScoreSource) else None
    if source is None:
        from .dask_engine import is_dask_collection

        if not is_dask_collection(scores):  # in memory already: its ids become positions here
            import dask.array as da

            s = as_scores(scores)
            if not isinstance(labels, LabelKeys):
                labels = normalize_labels(labels, s.size, item_ids(scores), pos_label)
            scores = da.from_array(s, chunks=1 << 22)
        source = ScoreSource.from_dask(scores, scheduler=scheduler, workers=workers)
    keys = labels if isinstance(labels, LabelKeys) else LabelKeys.of(labels, source.has_ids, pos_label)
    return dask_pool(source, keys, cells=cells, scheduler=scheduler, workers=workers)
