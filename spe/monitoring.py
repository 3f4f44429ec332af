"""Performance over time and across slices: :func:`monitor` estimates every chunk of a pool (a week, a batch, a
block of rows) and every slice (a sex, a region) with its interval, beside the labeled reference set's own value,
and says how probable a drop is.

Each chunk and each slice is estimated by :func:`spe.evaluate` on its own items and labels with the shared
reference set: the reference's labels inform every score model's calibration map, fitted once for all the
chunks (:class:`~spe.shared_reference.SharedReference`: one posterior of the reference's map); each chunk has
its own prevalence (the prior shift, estimated from its scores and labels) and its labels may pull its map away
from the reference's (a drift, or a new map: concept shift; :attr:`Estimate.p_concept_shift`). The chunks borrow
strength from one another's labels (:mod:`spe.models.pooling`, partial pooling): a first pass reads what each
labeled chunk's labels say of its drift and of a new map, and every chunk is then estimated with the priors the
other chunks' labels give it — a chunk with 5 labels learns from its 5 labels, the reference and the other chunks;
when several chunks' labels disagree with the reference, a new map becomes more probable in every chunk. The slices
pool among themselves the same way (not with the chunks: they hold the same items). Without labels, or with one
chunk, nothing is pooled.

The probability of a drop of metric m in a chunk is the posterior probability P(m < reference value − δ) (or
P(m < floor) with ``alert_below``); an alert is raised when it is at least :data:`ALERT_PROBABILITY`. A gap
between two slices is the difference of their metrics, from their posterior draws paired at random (their
estimates are independent given the reference).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field, replace
from itertools import combinations
from pathlib import Path

import numpy as np

from .chunk_pools import Keying, Parts, PooledChunk, count_units, decision_bounds, parts_of
from .chunks import Chunk, check_chunking, chunk_starts, chunks_asked, slices_by
from .evaluation import Interval, summarise_draws
from .exceptions import SpeInputError, SpeWarning
from .models.anchor import default_masses
from .models.pooling import PoolPriors, pooled_drift_priors, pooled_hypothesis_masses
from .inputs import as_scores, check_level, item_ids, normalize_labels, normalize_reference, scores_of_frame, seed_of
from .output import jsonable
from .parallel import TaskPool
from .progress import LOGGER, quiet_stages, shown, stage
from .shared_reference import SharedReference

__all__ = ["monitor", "Monitoring", "Estimate", "MONITOR_METRICS", "ALERT_METRICS", "ALERT_PROBABILITY",
           "CONCEPT_SHIFT_FLAG", "METRIC_SHORT_NAMES", "slice_gaps", "grouped_warnings", "alert_bars"]

#: The metrics estimated per chunk and slice: of the whole ranking, then at the operating threshold.
MONITOR_METRICS = ("prevalence", "roc_auc", "average_precision", "precision", "recall", "f1")
#: The metrics a drop is looked for in (the prevalence is not a performance: it is reported, never alerted on).
ALERT_METRICS = ("roc_auc", "average_precision", "precision", "recall", "f1")
#: An alert is raised where the probability of the drop is at least this.
ALERT_PROBABILITY = 0.9
#: The summary flags a chunk whose labels make a new map (concept shift) at least this probable.
CONCEPT_SHIFT_FLAG = 0.5


@dataclass
class Estimate:
    """One chunk's or slice's estimate.

    Attributes
    ----------
    key : str
        The chunk or slice (:class:`spe.chunks.Chunk`).
    start, end : int or None
        0-based data rows (end exclusive) of a chunk of consecutive rows.
    n_items, n_labeled : int
    metrics : dict of str → Interval
        :data:`MONITOR_METRICS`, posterior summaries at the monitoring's level.
    draws : dict of str → array (M,)
        Each metric's posterior draws (weighted by ``weights``).
    weights : array, shape (M,)
    alerts : list of dict
        ``{"metric", "p_drop", "alert"}`` per metric of :data:`ALERT_METRICS` (empty without a reference value
        or a floor to compare with).
    warnings : list of str
        What :func:`spe.evaluate` warned about this chunk.
    p_concept_shift : float or None
        The posterior probability that this chunk's map from score to label is a new one, not the reference's
        (shifted or drifted): its labels disagree with the reference (:mod:`spe.models.anchor`). None without
        labels in the chunk or without a reference set (nothing can tell).
    """

    key: str
    start: int | None
    end: int | None
    n_items: int
    n_labeled: int
    metrics: dict
    draws: dict = field(repr=False)
    weights: np.ndarray = field(repr=False)
    alerts: list
    warnings: list
    p_concept_shift: float | None = None

    @property
    def labels_disagree(self) -> bool:
        """Whether this chunk's labels make a new map at least :data:`CONCEPT_SHIFT_FLAG` probable."""
        return self.p_concept_shift is not None and self.p_concept_shift >= CONCEPT_SHIFT_FLAG

    def to_dict(self):
        """The chunk's entry of :meth:`Monitoring.to_dict`."""
        out = {"key": self.key, "start": self.start, "end": self.end, "n_items": self.n_items,
               "n_labeled": self.n_labeled}
        out.update({name: interval.to_dict() for name, interval in self.metrics.items()})
        out["alerts"] = self.alerts
        out["p_concept_shift"] = self.p_concept_shift
        return out


@dataclass
class Monitoring:
    """What :func:`monitor` found: every chunk's and slice's estimate, the reference's values, the alerts.

    Attributes
    ----------
    n_items, n_labeled : int
    level : float
    threshold : float or None
        The operating threshold (score units) of precision, recall and F1 (None for multiclass scores: their
        decision is the argmax).
    reference : dict or None
        The reference set's own n_items and metrics (exact, from its labels: scikit-learn's).
    chunks, slices : list of Estimate
    gaps : list of dict
        For every pair of slices and metric: ``{"a", "b", "metric", "difference": {mean, median, lo, hi},
        "p_gap"}``, p_gap = P(|a − b| > δ).
    alert_drop, alert_below : float or None
        δ, or the absolute floor.
    diagnostics : dict
    warnings : list of str
    headline : tuple of str
        The metrics the summary, the figure and its slices' gaps show (AP and ROC AUC; accuracy and macro F1 for
        multiclass scores).
    """

    n_items: int
    n_labeled: int
    level: float
    threshold: float | None
    reference: dict | None
    chunks: list
    slices: list
    gaps: list
    alert_drop: float | None
    alert_below: float | None
    diagnostics: dict
    warnings: list
    headline: tuple = ("average_precision", "roc_auc")

    def to_dict(self) -> dict:
        """JSON-ready dict (DESIGN.md's ``spe monitor`` contract): n_items, n_labeled, level, threshold, alert,
        reference, chunks, slices, gaps, diagnostics, warnings; every metric ``{"mean", "median", "lo", "hi"}``."""
        return jsonable({
            "n_items": self.n_items, "n_labeled": self.n_labeled, "level": self.level, "threshold": self.threshold,
            "alert": {"drop": self.alert_drop, "below": self.alert_below, "probability": ALERT_PROBABILITY},
            "reference": self.reference, "chunks": [c.to_dict() for c in self.chunks],
            "slices": [s.to_dict() for s in self.slices], "gaps": self.gaps, "diagnostics": self.diagnostics,
            "warnings": self.warnings})

    def to_frame(self):
        """A tidy pandas DataFrame: one row per chunk or slice and metric (kind, key, n_items, n_labeled, metric,
        mean, median, lo, hi, reference, p_drop, alert, p_concept_shift)."""
        import pandas as pd

        rows = []
        for kind, estimates in (("chunk", self.chunks), ("slice", self.slices)):
            for e in estimates:
                alerts = {a["metric"]: a for a in e.alerts}
                for name, interval in e.metrics.items():
                    a = alerts.get(name, {})
                    rows.append({"kind": kind, "key": e.key, "n_items": e.n_items, "n_labeled": e.n_labeled,
                                 "metric": name, **interval.to_dict(),
                                 "reference": (self.reference or {}).get(name), "p_drop": a.get("p_drop"),
                                 "alert": a.get("alert"), "p_concept_shift": e.p_concept_shift})
        return pd.DataFrame(rows)

    def plot(self, ax=None, *, metric="average_precision"):
        """One metric per chunk (or slice) with its band, the reference and the alert line
        (:func:`spe.plot.plot_monitoring`); returns the Axes."""
        from .plot import plot_monitoring

        return plot_monitoring(self, ax, metric=metric)

    @property
    def alert_probability(self) -> float:
        """P(drop) at or above which an alert is raised (:data:`ALERT_PROBABILITY`)."""
        return ALERT_PROBABILITY

    @property
    def alerts(self) -> list:
        """Every alert raised: ``(kind, key, metric, p_drop)``."""
        return [(kind, e.key, a["metric"], a["p_drop"]) for kind, estimates in (("chunk", self.chunks),
                                                                                  ("slice", self.slices))
                for e in estimates for a in e.alerts if a["alert"]]

    def summary(self) -> str:
        """The estimates as text: one line per chunk or slice (the headline metrics with intervals, alerts)."""
        ref = self.reference
        operating = "" if self.threshold is None else f"threshold {self.threshold:g}; "
        lines = [f"spe monitor: {self.n_items:,} items, {self.n_labeled} labeled; {operating}"
                 f"{self.level:.0%} credible intervals"]
        if ref is not None:
            said = [f"{METRIC_SHORT_NAMES.get(m, m)} {ref[m]:.3f}" for m in (*self.headline, "prevalence") if m in ref]
            lines.append(f"reference ({ref['n_items']:,} labeled items): {', '.join(said)}")
        for kind, estimates in (("chunks", self.chunks), ("slices", self.slices)):
            if estimates:
                lines.append(f"{kind}:")
            for e in estimates:
                raised = [a["metric"] for a in e.alerts if a["alert"]]
                shown = "  ".join(f"{METRIC_SHORT_NAMES.get(m, m)} {e.metrics[m]}" for m in self.headline)
                lines.append(f"  {e.key:<24s} {e.n_items:>8,} items {e.n_labeled:>4} labeled  {shown}"
                             + (f"  ALERT: {', '.join(raised)}" if raised else "")
                             + (f"  LABELS DISAGREE with the reference (P(new map) = {e.p_concept_shift:.2f})"
                                if e.labels_disagree else ""))
        if self.gaps:
            lines.append("gaps between slices (a - b):")
        for g in self.gaps:
            if g["metric"] in self.headline:
                d = g["difference"]
                lines.append(f"  {g['a']} - {g['b']}: {METRIC_SHORT_NAMES.get(g['metric'], g['metric'])} "
                             f"{d['median']:+.3f} [{d['lo']:+.3f}, {d['hi']:+.3f}], P(|gap| > {self.alert_drop:g}) "
                             f"= {g['p_gap']:.2f}")
        what = (f"below {self.alert_below:g}" if self.alert_below is not None else
                f"more than {self.alert_drop:g} below the reference" if ref is not None else None)
        if what:
            lines.append(f"{len(self.alerts)} alert(s): a metric {what} with probability >= {ALERT_PROBABILITY:g}")
        return "\n".join(lines)

    def __repr__(self):
        return (f"<spe.Monitoring: {len(self.chunks)} chunks, {len(self.slices)} slices, {self.n_items:,} items, "
                f"{len(self.alerts)} alerts>")


#: The metrics' short names in the summary and the report (a name not here is its own).
METRIC_SHORT_NAMES = {"average_precision": "AP", "roc_auc": "ROC AUC", "macro_f1": "macro F1",
                      "macro_average_precision": "macro AP", "calibration_error": "ECE"}


def monitor(scores, reference=None, labels=None, *, chunk_size=None, chunk_number=None, chunk_column=None,
            chunk_period=None, timestamp_column=None, by=None, threshold=None, alert_drop=0.02, alert_below=None,
            level=0.9, draws=1000, rng=None, pos_label=None, pooling=True, engine="auto", scheduler=None,
            **options) -> Monitoring:
    """Estimate every chunk and slice of a pool, beside a labeled reference set, and say where performance dropped.

    Parameters
    ----------
    scores : array-like (N,), pandas Series, or DataFrame
        The pool's scores (score units) in the data's order. A DataFrame has a ``score`` column, optionally
        ``id`` (the items' ids, as the labels name them) and the columns ``chunk_column``, ``timestamp_column``
        and ``by`` name. A DataFrame without ``score`` (one column per class) or an (N, K) array holds a
        multiclass classifier's scores: :func:`spe.multiclass.monitoring.monitor_multiclass`.
    reference : None, (scores, labels) pair, or DataFrame with ``score`` and ``label``
        The classifier's labeled reference set (its validation data, an earlier period): every label known
        (:func:`spe.evaluate`'s ``reference``). Optional when ``labels`` are given.
    labels : as :func:`spe.evaluate`'s, optional
        Labels of some pool items (any chunks; a chunk may have none).
    chunk_size, chunk_number : int, optional
        Chunks of ``chunk_size`` consecutive items (the last one shorter), or ``chunk_number`` consecutive
        chunks of (nearly) equal size.
    chunk_column : str, optional
        One chunk per value of that column (a week, a batch id), in the order of first appearance.
    chunk_period : {"D", "W", "M", "Q", "Y"}, optional
        One chunk per calendar period of ``timestamp_column``, in time order.
    by : str or list of str, optional
        Slices: one per combination of values of these columns (with or without chunks).
    threshold : float, optional
        The operating threshold of precision, recall and F1 (score units; items scored ≥ it are predicted
        positive). Default: the one the classifier's own decisions imply when the DataFrame has a ``prediction``
        column (0/1; the lowest score predicted 1), else 0.5 for probabilities and 0 for other scores.
    alert_drop : float
        δ: an alert is raised where P(metric < reference value − δ) ≥ :data:`ALERT_PROBABILITY`.
    alert_below : float, optional
        An absolute floor instead: P(metric < floor) ≥ :data:`ALERT_PROBABILITY`.
    level : float
        Credible level of the intervals.
    draws : int
        M posterior draws per chunk and slice.
    rng : numpy.random.Generator, int or None
        Each chunk and slice gets its own stream spawned from it (the same seed, the same result).
    pos_label : scalar, optional
        As :func:`spe.evaluate`'s.
    pooling : bool
        With labels in several chunks (or slices) and a reference set, estimate each with the priors the others'
        labels give it (partial pooling, :mod:`spe.models.pooling`; module docstring); False: each on its own
        labels and the reference alone.
    engine : {"auto", "memory", "binned", "dask"}
        ``"dask"``: the chunks and slices are counted by Dask tasks over the parts of ``scores`` — a Dask
        DataFrame, or Parquet shards (a file, a directory, a glob) — so that the scores are never in one process
        (:mod:`spe.chunk_pools`); each is then estimated from its :class:`~spe.pool.ScorePool`. ``"auto"``: Dask for
        a Dask DataFrame or a Parquet path, else :func:`spe.evaluate`'s engine choice per chunk; ``"memory"`` and
        ``"binned"`` are passed to :func:`spe.evaluate` for each chunk.
    scheduler : str or None
        With the Dask engine: a ``dask.distributed`` scheduler's address (None: this machine's threads).
    **options
        :func:`spe.evaluate`'s model options (``score_model``, ``families``, ``workers``, ...).

    Returns
    -------
    Monitoring

    Raises
    ------
    SpeInputError
        ``alert_drop`` not a finite number ≥ 0 or ``alert_below`` not a finite number; two chunkings at once,
        ``chunk_period`` without ``timestamp_column``, a named column the DataFrame does
        not have, a missing chunk or slice value, neither a reference nor labels, a chunk or slice of fewer than
        4 items; and whatever :func:`spe.evaluate` refuses, naming the chunk.

    Notes
    -----
    With one chunk (no chunking and no ``by``) the estimate is :func:`spe.evaluate`'s on the whole pool with the
    same reference, labels and options, from the first stream spawned from ``rng``.

    Examples
    --------
    >>> import numpy as np, spe
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(4000) < 0.3
    >>> s = np.clip(np.where(y, rng.beta(5, 2, 4000), rng.beta(2, 5, 4000)), 0, 1)
    >>> ref_y = rng.random(2000) < 0.3
    >>> ref = (np.where(ref_y, rng.beta(5, 2, 2000), rng.beta(2, 5, 2000)), ref_y.astype(int))
    >>> m = spe.monitor(s, reference=ref, chunk_number=2, draws=200, rng=1)
    >>> [c.key for c in m.chunks]
    ['rows 0-1999', 'rows 2000-3999']
    """
    if _multiclass(scores, [chunk_column, timestamp_column, *_names(by)]):
        return _monitor_classes(scores, reference, labels, chunk_size=chunk_size, chunk_number=chunk_number,
                                chunk_column=chunk_column, chunk_period=chunk_period,
                                timestamp_column=timestamp_column, by=by, alert_drop=alert_drop,
                                alert_below=alert_below, level=level, draws=draws, rng=rng,
                                binary=dict(threshold=threshold, pos_label=pos_label, pooling=pooling, engine=engine,
                                            scheduler=scheduler, **options))
    level = check_level(level)
    alert_drop, alert_below = alert_bars(alert_drop, alert_below)
    seed = seed_of(rng)
    ref = normalize_reference(reference, pos_label)
    if _by_dask(scores, engine):
        units, n_chunks, data, threshold, n_labeled = _counted(
            scores, labels, threshold, pos_label, scheduler, options.get("workers"),
            chunk_size=chunk_size, chunk_number=chunk_number, chunk_column=chunk_column, chunk_period=chunk_period,
            timestamp_column=timestamp_column, by=by)
        labeled = [u.n_labeled > 0 for u in units]
    else:
        if scheduler is not None:
            raise SpeInputError("a scheduler address is for the Dask engine (engine='dask')", argument="scheduler")
        options = dict(options, engine=engine)
        units, n_chunks, data, threshold = _in_memory(scores, labels, threshold, pos_label, chunk_size, chunk_number,
                                                      chunk_column, chunk_period, timestamp_column, by)
        n_labeled = int(data[1].size)
        labeled = [bool(np.isin(data[1], u.index).any()) for u in units]
    if ref is None and n_labeled == 0:
        raise SpeInputError("give a labeled reference set, or labels of some items: without either nothing says "
                            "how the scores relate to the classes", argument="reference")
    _check_units(units, labeled, ref is not None)
    ref_values = None if ref is None else reference_values(*ref, threshold)
    streams = np.random.default_rng(seed).spawn(len(units) + 1)
    if ref is not None and len(units) > 1:
        ref = SharedReference(*ref)  # the reference's map fitted once, for every chunk (spe.shared_reference)
    shared = (*data, ref, threshold, alert_drop, alert_below, ref_values,
              dict(options, draws=draws, level=level, pos_label=None))
    groups = [list(range(n_chunks)), list(range(n_chunks, len(units)))] if pooling else []
    with shown(options.get("progressbar")):
        est, priors = _estimate_all(shared, units, streams[:-1], options.get("workers"), groups, labeled)
    gaps = slice_gaps(est[n_chunks:], alert_drop, level, streams[-1])
    said = grouped_warnings(est)
    for text in said:
        warnings.warn(text, SpeWarning, stacklevel=2)
    return Monitoring(
        n_items=sum(u.n_items for u in units[:n_chunks or None]), n_labeled=n_labeled, level=level,
        threshold=threshold, reference=ref_values, chunks=est[:n_chunks], slices=est[n_chunks:], gaps=gaps,
        alert_drop=alert_drop, alert_below=alert_below, warnings=said,
        diagnostics={"seed": seed, "draws": int(draws), "pooling": _pooling_report(units, priors),
                     **_engine_report(units),
                     "method": "each chunk and slice estimated by spe.evaluate with the reference set, whose "
                               "map is fitted once for all; the chunks (and apart, the slices) pool their labels' "
                               "departures from it (spe.models.pooling)"})


def _multiclass(scores, named):
    """K-class scores: a pandas DataFrame with no ``score`` column and two or more numeric columns besides ``id``
    and the ``named`` ones (chunks, timestamps, slices), or a 2-D array of two or more columns."""
    if hasattr(scores, "columns"):
        if not type(scores).__module__.startswith("pandas") or "score" in scores.columns:
            return False
        others = [c for c in scores.columns if c != "id" and c not in named and scores[c].dtype.kind in "biuf"]
        return len(others) >= 2
    return not isinstance(scores, (str, Path)) and np.ndim(scores) == 2 and np.shape(scores)[1] >= 2


def _monitor_classes(scores, reference, labels, *, binary, **kwargs):
    """:func:`spe.multiclass.monitoring.monitor_multiclass`; the options of one score given other values than
    their defaults are named in a warning."""
    from .multiclass.api import warn_unused
    from .multiclass.monitoring import monitor_multiclass

    warn_unused(binary, monitor)
    return monitor_multiclass(scores, reference, labels, **kwargs)


def _by_dask(scores, engine):
    """Whether the Dask engine counts the chunks: asked for, or ``"auto"`` with a Dask DataFrame or Parquet
    shards' path."""
    from .dask_engine import is_dask_collection, require_dask
    from .engines import ENGINES
    from .inputs import check_choice
    from .parquet import is_parquet

    check_choice("engine", engine, ENGINES)
    lazy = (isinstance(scores, Parts) or is_dask_collection(scores)
            or (isinstance(scores, (str, Path)) and is_parquet(scores)))
    if engine == "dask" or (engine == "auto" and lazy):
        require_dask()
        return True
    if lazy:
        raise SpeInputError(f"Parquet shards and Dask DataFrames are read by engine='dask' (or 'auto'), not {engine!r}",
                            argument="engine")
    return False


def _counted(scores, labels, threshold, pos_label, scheduler, workers, *, chunk_size, chunk_number, chunk_column,
             chunk_period, timestamp_column, by):
    """The Dask engine's units (:func:`spe.chunk_pools.count_units`): (the chunks and slices as
    :class:`~spe.chunk_pools.PooledChunk`, the number of chunks, (None, None, None): no scores here, the operating
    threshold, the labeled items)."""
    from .models.mixture import natural_threshold

    check_chunking(chunk_size, chunk_number, chunk_column, chunk_period, timestamp_column)
    keying = Keying(column=chunk_column, period=chunk_period, timestamp=timestamp_column, by=tuple(_names(by)))
    parts = parts_of(scores, keying.columns(), scheduler=scheduler, workers=workers)
    rows = chunk_size is not None or chunk_number is not None
    if rows or not (chunk_column or chunk_period or keying.by):  # consecutive rows, or all items as one chunk
        keying = replace(keying, starts=tuple(chunk_starts(parts.n_items, chunk_size, chunk_number)), whole=not rows)
    counted = count_units(parts, labels, keying, pos_label=pos_label, scheduler=scheduler, workers=workers)
    natural = natural_threshold(np.array([counted.lo, counted.hi]))
    return ([*counted.chunks, *counted.slices], len(counted.chunks), (None, None, None),
            _operating_threshold(threshold, counted.decisions, natural), counted.n_labeled)


def _in_memory(scores, labels, threshold, pos_label, chunk_size, chunk_number, chunk_column, chunk_period,
               timestamp_column, by):
    """The in-memory units (:class:`~spe.chunks.Chunk`): (the chunks and slices, the number of chunks, (scores
    (N,), labeled positions (n,), labels (n,)), the operating threshold)."""
    from .models.mixture import natural_threshold

    frame, columns = _frame_columns(scores, chunk_column, timestamp_column, by)
    series = scores_of_frame(frame) if frame is not None else scores
    s = as_scores(series)
    index, value = normalize_labels(labels, s.size, item_ids(series), pos_label)
    threshold = _operating_threshold(threshold, decision_bounds(s, _predictions(frame)), natural_threshold(s))
    chunks = _chunks(s.size, columns, chunk_size, chunk_number, chunk_column, chunk_period, timestamp_column, by)
    slices = slices_by({b: columns[b] for b in _names(by)}) if by else []
    return [*chunks, *slices], len(chunks), (s, index, value), threshold


def reference_values(scores, labels, threshold):
    """The reference set's own metrics from its labels (scikit-learn's ``sklearn.metrics``).

    Parameters
    ----------
    scores : array, shape (R,)
        Score units.
    labels : 0/1 array, shape (R,)
        Both classes present (:func:`spe.inputs.normalize_reference` ensures it).
    threshold : float
        Score units; items scored ≥ it are predicted positive.

    Returns
    -------
    dict
        n_items; prevalence, roc_auc, average_precision; precision, recall and f1 at ``threshold`` (NaN where
        undefined: nothing predicted positive).
    """
    from sklearn.metrics import average_precision_score, f1_score, precision_score, recall_score, roc_auc_score

    predicted = scores >= threshold
    quiet = {"zero_division": np.nan}
    return {"n_items": int(scores.size), "prevalence": float(labels.mean()),
            "roc_auc": float(roc_auc_score(labels, scores)),
            "average_precision": float(average_precision_score(labels, scores)),
            "precision": float(precision_score(labels, predicted, **quiet)),
            "recall": float(recall_score(labels, predicted, **quiet)), "f1": float(f1_score(labels, predicted, **quiet))}


def _frame_columns(scores, *named):
    """(the DataFrame or None, {column: values (N,)} of the columns named by chunk_column, timestamp_column and
    by); a named column the scores do not have is refused."""
    wanted = [n for n in named[:2] if n is not None] + _names(named[2])
    is_frame = hasattr(scores, "columns") and hasattr(scores, "to_numpy")
    if not wanted:
        return (scores if is_frame else None), {}
    if not is_frame:
        raise SpeInputError(f"the columns {', '.join(map(repr, wanted))} need the scores as a DataFrame with them",
                            argument="scores")
    missing = [n for n in wanted if n not in scores.columns]
    if missing:
        raise SpeInputError(f"no column {missing[0]!r} (the DataFrame has: {', '.join(map(str, scores.columns))})",
                            argument="scores")
    return scores, {n: scores[n].to_numpy() for n in wanted}


def alert_bars(drop, below):
    """δ (a finite number ≥ 0) and the floor (None or a finite number), as floats; anything else is refused."""
    for name, value, optional in (("alert_drop", drop, False), ("alert_below", below, True)):
        if value is None and optional:
            continue
        try:
            ok = np.isfinite(float(value)) and (optional or float(value) >= 0)
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise SpeInputError(f"must be a finite number{'' if optional else ' >= 0'}, got {value!r}",
                                argument=name)
    return float(drop), None if below is None else float(below)


def _names(by):
    return [] if by is None else [by] if isinstance(by, str) else list(by)


def _chunks(n, columns, size, number, column, period, timestamp, by):
    """The chunks asked for (one of the four ways; none: all items as one chunk, unless there are slices)."""
    asked = chunks_asked(n, columns, size, number, column, period, timestamp)
    return asked or ([] if by else [Chunk("all", np.arange(n), 0, n)])


def _check_units(units, labeled, has_reference):
    """Every chunk and slice can be estimated, checked before the first is: at least 4 items, and a labeled item
    (``labeled``: per unit) when there is no reference set to carry."""
    for u, has_labels in zip(units, labeled):
        if u.n_items < 4:
            raise SpeInputError(f"chunk {u.key!r} has {u.n_items} items; an estimate needs at least 4",
                                argument="chunks")
        if not has_reference and not has_labels:
            raise SpeInputError(f"chunk {u.key!r} has no labeled item and there is no reference set to carry",
                                argument="labels")


def _predictions(frame):
    """The classifier's own decisions (N,) 0/1 from a ``prediction`` column of the scores' DataFrame, or None."""
    if frame is None or "prediction" not in frame.columns:
        return None
    from .inputs import binary_labels

    try:
        return binary_labels(np.asarray(frame["prediction"].to_numpy(), dtype=object))
    except SpeInputError as e:
        raise SpeInputError(f"the 'prediction' column: {e.message}", argument="scores") from None


def _operating_threshold(threshold, bounds, natural):
    """The threshold given; else the one the classifier's own decisions imply (``bounds``: the lowest score
    predicted positive, the highest predicted negative — when every item scored at least the first is predicted
    positive); else ``natural`` (0.5 for probability scores, 0 for others)."""
    if threshold is not None:
        t = float(threshold)
        if not np.isfinite(t):
            raise SpeInputError(f"must be a finite number in score units, got {threshold!r}", argument="threshold")
        return t
    if bounds is not None and np.isfinite(bounds[0]):
        t, below = bounds
        if below >= t:
            raise SpeInputError(f"the 'prediction' column is not a threshold on the score: an item predicted 0 "
                                f"scores {below:.6g}, above {t:.6g}, the lowest predicted 1; give the "
                                "threshold", argument="threshold")
        return float(t)
    return natural


def _estimate_all(shared, units, streams, workers, groups, labeled):
    """Every chunk's and slice's :class:`Estimate` (:func:`_estimate`), the first here and the others over
    ``workers`` forked processes (:class:`~spe.parallel.TaskPool`): the first fits what the units share (the
    reference's map, :class:`~spe.shared_reference.SharedReference`) and the workers inherit it, so the result
    does not depend on the number of workers.

    The units of each group (positions in ``units``: the chunks, the slices) that has labeled units pool their
    departures from the reference (:mod:`spe.models.pooling`): a first pass reads what each labeled unit's
    labels say (:func:`_labels_say`), and every unit of the group is estimated with the priors the others give
    it (``labeled``: whether each unit has labels). Returns (estimates, the priors of each unit or None)."""
    pooled = [g for g in groups if len(g) > 1 and any(labeled[i] for i in g)] if shared[3] is not None else []
    first_pass = [i for g in pooled for i in g if labeled[i]]
    total = len(units) + len(first_pass)
    with stage(f"estimating {len(units)} chunks and slices", total, "unit") as progress:
        head = first_pass[0] if first_pass else 0
        said = {head: _labels_say(shared, units[head], streams[head].spawn(1)[0])} if first_pass else {}
        first = None if first_pass else _estimate(shared, units[head], streams[head])
        progress.advance()
        with TaskPool(workers if total > 2 else 1, shared=shared) as pool:
            inner = dict(shared[-1], workers=1) if pool.workers > 1 else shared[-1]
            flags = pool.workers > 1
            rest = first_pass[1:]
            said.update(zip(rest, pool.map_shared(_labels_say, [units[i] for i in rest],
                                                  [streams[i].spawn(1)[0] for i in rest], [inner] * len(rest),
                                                  [flags] * len(rest), progress=progress)))
            priors = _priors_by_unit(len(units), pooled, said)
            todo = list(range(len(units))) if first_pass else list(range(1, len(units)))
            out = pool.map_shared(_estimate, [units[i] for i in todo], [streams[i] for i in todo],
                                  [inner] * len(todo), [flags] * len(todo), [priors[i] for i in todo],
                                  progress=progress)
    return (out if first_pass else [first, *out]), priors


def _priors_by_unit(n, pooled, said):
    """Each of the ``n`` units' :class:`~spe.models.pooling.PoolPriors` (None outside the ``pooled`` groups), from
    what the labeled units said (``said``: unit → :func:`_labels_say`)."""
    priors = [None] * n
    for g in pooled:
        for i, p in zip(g, pooled_priors([said.get(i) for i in g])):
            priors[i] = p
    return priors


def pooled_priors(said):
    """Each unit's :class:`~spe.models.pooling.PoolPriors` from what the others' labels say (a list of
    :func:`_labels_say` results, None for a unit without labels)."""
    assumptions = sorted({a for s in said if s for a in s["drift"]})
    drift = {a: pooled_drift_priors([None if s is None or a not in s["drift"] else s["drift"][a] for s in said])
             for a in assumptions}
    masses = pooled_hypothesis_masses(default_masses(), [None if s is None else s["hypotheses"] for s in said])
    return [PoolPriors({a: drift[a][k] for a in assumptions}, masses[k]) for k in range(len(said))]


def _engine_report(units):
    """``{"engine": "memory"}``, or with the Dask engine ``{"engine": "dask", "pool": {"cells", "max_error"}}``:
    G per chunk and the largest distance of an item's score to its cell's value (score units)."""
    pools = [u.pool for u in units if isinstance(u, PooledChunk)]
    if not pools:
        return {"engine": "memory"}
    return {"engine": "dask", "pool": {"cells": pools[0].cells, "max_error": max(p.max_error for p in pools)}}


def _pooling_report(units, priors):
    """Per pooled unit, the priors the other units gave it: ``{key: {"prior_concept_shift", "drift_prior"}}``."""
    return {u.key: {"prior_concept_shift": p.masses[2],
                    "drift_prior": {a: {"a": [d.a_mean, d.a_sd], "log_b": [d.logb_mean, d.logb_sd]}
                                    for a, d in p.drift.items()}}
            for u, p in zip(units, priors) if p is not None}


def _evaluated(shared, chunk, rng, fit=None, in_worker=False, priors=None):
    """:func:`spe.evaluate` of one chunk (or slice) on its items, its labels and the reference (``shared`` = (s,
    index, value, ref, threshold, drop, below, ref_values, fit options); ``fit`` overrides the options;
    ``priors``: the :class:`~spe.models.pooling.PoolPriors` the other units give it): (Evaluation, its labels).
    In a worker process it shows no progress bars."""
    from .api import evaluate

    s, index, value, ref, *_, options = shared
    fit = options if fit is None else fit
    if priors is not None:
        ref = ref.with_priors(priors)
    items, mine, n_labeled = chunk.items(s, index, value)
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught, shown(False if in_worker else None), quiet_stages():
        warnings.simplefilter("always")
        try:
            ev = evaluate(items, mine, reference=ref, rng=rng, **fit)
        except SpeInputError as e:
            raise SpeInputError(f"chunk {chunk.key!r}: {e.message}", argument=e.argument) from None
    LOGGER.info("chunk %r (%s items, %d labeled%s): %.2f s", chunk.key, f"{chunk.n_items:,}", n_labeled,
                ", pooled" if priors is not None else "", time.perf_counter() - start)
    return ev, n_labeled, [str(c.message) for c in caught]


def _labels_say(shared, chunk, rng, fit=None, in_worker=False):
    """What one labeled unit's labels say of its departure from the reference (:mod:`spe.models.pooling`):
    ``{"drift": {assumption: (Λ (2, 2), η (2,))}, "hypotheses": (no drift, drift, new map) posterior}``."""
    ev = _evaluated(shared, chunk, rng, fit, in_worker)[0]
    found = ev.diagnostics.get("reference") or {}
    drift = {a: (np.array(x["precision"]), np.array(x["shift"]))
             for a, x in (found.get("drift_information") or {}).items()}
    weight, drifted, new = (found.get(k, 0.0) for k in ("weight", "drift_weight", "concept_shift_weight"))
    return {"drift": drift, "hypotheses": (weight - drifted, drifted, new)}


def _estimate(shared, chunk, rng, fit=None, in_worker=False, priors=None):
    """One chunk's (or slice's) :class:`Estimate` (:func:`_evaluated`)."""
    ev, n_labeled, caught = _evaluated(shared, chunk, rng, fit, in_worker, priors)
    threshold, drop, below, ref_values = shared[4:8]
    at = ev.metric_draws_at(threshold)
    draws = {m: at[m] if m in at else ev.metric_draws(m) for m in MONITOR_METRICS}
    metrics = {m: summarise_draws(d, ev.weights, ev.level) for m, d in draws.items()}
    w = ev.weights / ev.weights.sum()
    concept = (ev.diagnostics.get("reference") or {}).get("concept_shift_weight") if n_labeled else None
    return Estimate(chunk.key, chunk.start, chunk.end, chunk.n_items, n_labeled, metrics, draws, w,
                    _alerts(draws, w, ref_values, drop, below), caught, None if concept is None else float(concept))


def _alerts(draws, w, ref_values, drop, below):
    """P(drop) and the alert per metric of :data:`ALERT_METRICS`: below the floor if one is given, else more than
    δ below the reference's value (none without either)."""
    out = []
    for m in ALERT_METRICS:
        bar = below if below is not None else None if ref_values is None else ref_values[m] - drop
        if bar is None or not np.isfinite(bar):
            continue
        d = draws[m]
        ok = ~np.isnan(d)
        p = float(w[ok] @ (d[ok] < bar) / w[ok].sum()) if ok.any() else float("nan")
        out.append({"metric": m, "p_drop": p, "alert": bool(p >= ALERT_PROBABILITY)})
    return out


def slice_gaps(slices, delta, level, rng, metrics=MONITOR_METRICS):
    """Every pair of slices (:class:`Estimate`) and metric: the difference's posterior (the two slices' draws
    resampled by weight and paired at random) and P(|difference| > δ), as the JSON's ``gaps`` entries."""
    out = []
    for a, b in combinations(slices, 2):
        m = max(a.weights.size, b.weights.size)
        ia, ib = rng.choice(a.weights.size, m, p=a.weights), rng.choice(b.weights.size, m, p=b.weights)
        for name in metrics:
            diff = a.draws[name][ia] - b.draws[name][ib]
            ok = ~np.isnan(diff)
            interval = (summarise_draws(diff, np.ones(m), level) if ok.any()
                        else Interval(*(4 * [float("nan")]), level))
            p = float(np.mean(np.abs(diff[ok]) > delta)) if ok.any() else float("nan")
            out.append({"a": a.key, "b": b.key, "metric": name, "difference": interval.to_dict(), "p_gap": p})
    return out


def grouped_warnings(estimates):
    """Each distinct warning once, naming the chunks (or slices) it was raised for."""
    where = {}
    for e in estimates:
        for text in e.warnings:
            where.setdefault(text, []).append(e.key)
    return [f"{', '.join(keys[:5])}{' and %d more' % (len(keys) - 5) if len(keys) > 5 else ''}: {text}"
            for text, keys in where.items()]
