"""A multiclass classifier's performance over time and across slices: ``spe.monitor`` on K-class scores.

Every chunk of the pool (consecutive rows, a column's values, a calendar period) and every slice (the values of
one or more columns) is estimated by :func:`spe.evaluate_multiclass` on its own scores and labels with the
labeled reference set (its labels teach every score model the map; each chunk keeps its own class shares, a
prior shift), beside the reference's own value of each metric (counted from its labels). A chunk with labels
may also have a new map (concept shift: the classifier's probabilities mean something else there): its estimate
from its own labels alone competes with the shared one by their evidence, p(Y_chunk | new map) p(Y_ref | the
reference's own map) against p(Y_chunk, Y_ref | one map), the new map a priori
:data:`~spe.models.anchor.NEW_MAP_PRIOR` (as the binary monitor's, :mod:`spe.models.anchor`); its posterior
probability is the estimate's ``p_concept_shift`` and its metrics' draws are the two estimates' draws mixed in
those proportions. A drop of metric m in
a chunk is P(m < reference value − δ) (or P(m < floor)), an alert where it is at least
:data:`spe.monitoring.ALERT_PROBABILITY`; a gap between two slices is the difference of their metrics, from
their posterior draws paired at random (their estimates are independent given the reference). The result is a
:class:`spe.monitoring.Monitoring` (the binary monitor's, with :data:`CLASS_MONITOR_METRICS`); the chunks do not
borrow from one another's labels here (the binary monitor's partial pooling is not carried to K classes).
"""

from __future__ import annotations

import numpy as np
from scipy import special

from ..chunks import chunks_asked, slices_by
from ..evaluation import summarise_draws
from ..exceptions import SpeInputError
from ..inputs import MIN_DRAWS, check_level, seed_of
from ..models.anchor import NEW_MAP_PRIOR
from ..monitoring import ALERT_PROBABILITY, Estimate, Monitoring, alert_bars, grouped_warnings, slice_gaps
from .api import estimate_from_scores
from .average import averaged_log_evidence
from .scores import ClassScores, class_labels, class_scores, reference_values

__all__ = ["monitor_multiclass", "CLASS_MONITOR_METRICS", "CLASS_ALERT_METRICS"]

#: The metrics estimated per chunk and slice (:data:`~spe.multiclass.evaluation.SCALAR_METRICS`).
CLASS_MONITOR_METRICS = ("accuracy", "macro_f1", "macro_average_precision", "calibration_error")
#: The metrics a drop is looked for in (higher is better for each).
CLASS_ALERT_METRICS = ("accuracy", "macro_f1", "macro_average_precision")


def monitor_multiclass(scores, reference=None, labels=None, *, classes=None, chunk_size=None, chunk_number=None,
                       chunk_column=None, chunk_period=None, timestamp_column=None, by=None, alert_drop=0.02,
                       alert_below=None, level=0.9, draws=1000, rng=None) -> Monitoring:
    """Estimate every chunk and slice of a pool of K-class scores, beside a labeled reference set.

    Parameters
    ----------
    scores : pandas DataFrame or array-like (N, K)
        One column per class (probabilities, logits or decision values), in the data's order; a DataFrame may
        also hold ``id`` and the columns ``chunk_column``, ``timestamp_column`` and ``by`` name.
    reference : DataFrame with the class columns and ``label``, (scores (R, K), labels (R,)) pair, or None
        The classifier's labeled reference set (:func:`~spe.multiclass.scores.reference_values`). Optional when
        ``labels`` are given.
    labels : as :func:`spe.evaluate_multiclass`'s, optional
        Classes of some pool items (any chunks).
    classes : sequence of str, optional
        The class columns of a DataFrame (default: every numeric column but ``id`` and the named ones).
    chunk_size, chunk_number, chunk_column, chunk_period, timestamp_column, by
        As :func:`spe.monitor`'s (one chunking at most; ``by`` slices with or without chunks).
    alert_drop : float
        δ ≥ 0: an alert where P(metric < reference value − δ) ≥ :data:`~spe.monitoring.ALERT_PROBABILITY`.
    alert_below : float, optional
        An absolute floor instead.
    level, draws, rng
        As :func:`spe.evaluate_multiclass`'s; each chunk and slice gets its own stream spawned from ``rng``.

    Returns
    -------
    spe.monitoring.Monitoring
        ``threshold`` None; ``reference`` the reference set's values of :data:`CLASS_MONITOR_METRICS` (exact,
        from its labels) and ``n_items``; each :class:`~spe.monitoring.Estimate`'s ``metrics`` those four.

    Raises
    ------
    SpeInputError
        Neither a reference nor labels, two chunkings at once, a named column absent, a chunk or slice of fewer
        than 4 items, a bad ``alert_drop``/``alert_below``, and what :func:`spe.evaluate_multiclass` refuses
        (naming the chunk).
    """
    level = check_level(level)
    alert_drop, alert_below = alert_bars(alert_drop, alert_below)
    if int(draws) < MIN_DRAWS:
        raise SpeInputError(f"must be at least {MIN_DRAWS}, got {draws}", argument="draws")
    by = [by] if isinstance(by, str) else list(by or [])
    named = [c for c in (chunk_column, timestamp_column) if c] + by
    data, columns = _read(scores, classes, named)
    index, value = class_labels(labels, data)
    if reference is None and not index.size:
        raise SpeInputError("give a labeled reference set or labels of some items", argument="reference")
    ref = None if reference is None else _reference_pair(reference, data.classes)
    chunks = chunks_asked(data.n_items, columns, chunk_size, chunk_number, chunk_column, chunk_period,
                          timestamp_column)
    slices = slices_by({c: columns[c] for c in by}) if by else []
    seed = seed_of(rng)
    streams = iter(np.random.default_rng(seed).spawn(len(chunks) + len(slices) + 1))
    ref_values, ref_evidence = (None, None) if ref is None else _reference_values(data, ref, level, next(streams))
    options = dict(draws=int(draws), level=level, reference=ref, ref_values=ref_values, ref_evidence=ref_evidence,
                   drop=alert_drop, below=alert_below)
    chunk_estimates = [_estimate(data, index, value, c, next(streams), **options) for c in chunks]
    slice_estimates = [_estimate(data, index, value, s, next(streams), **options) for s in slices]
    return Monitoring(
        n_items=data.n_items, n_labeled=int(index.size), level=level, threshold=None, reference=ref_values,
        chunks=chunk_estimates, slices=slice_estimates,
        gaps=slice_gaps(slice_estimates, alert_drop, level, np.random.default_rng([seed, 1]),
                        CLASS_ALERT_METRICS),
        alert_drop=alert_drop, alert_below=alert_below,
        diagnostics={"seed": seed, "draws": int(draws), "classes": list(data.classes),
                     "score_type": data.score_type},
        warnings=grouped_warnings(chunk_estimates + slice_estimates), headline=("accuracy", "macro_f1"))


def _read(scores, classes, named):
    """(ClassScores of the class columns, name → values (N,) of the named columns)."""
    if not hasattr(scores, "columns"):
        if named:
            raise SpeInputError(f"{named[0]!r}: chunk and slice columns need a DataFrame", argument="scores")
        return class_scores(scores), {}
    absent = [c for c in named + list(classes or []) if c not in scores.columns]
    if absent:
        raise SpeInputError(f"no column {absent[0]!r} (the columns are {[str(c) for c in scores.columns]})",
                            argument="scores")
    others = set(named) | {"id"}
    class_columns = list(classes) if classes is not None else [
        c for c in scores.columns if c not in others and scores[c].dtype.kind in "biuf"]
    keep = (["id"] if "id" in scores.columns else []) + class_columns
    return class_scores(scores[keep]), {c: scores[c].to_numpy() for c in named}


def _reference_pair(reference, classes):
    """The reference as (scores (R, K) as given, class names (R,)): what every chunk's estimate reads."""
    values, codes = reference_values(reference, classes)
    return values, np.asarray(classes, dtype=object)[codes]


def _reference_values(data, ref, level, rng):
    """The reference set's own value of every metric (its estimate with every item labeled: each draw the same)
    and the log evidence p(Y_ref | S_ref) of its own map."""
    values, names = ref
    read = class_scores(values, data.classes, argument="reference")
    ev = estimate_from_scores(read, (np.arange(read.n_items), names), draws=MIN_DRAWS, level=level, rng=rng)
    metrics = {m: float(np.nanmean(ev.metric_draws(m))) for m in CLASS_MONITOR_METRICS}
    return {"n_items": read.n_items, **metrics}, averaged_log_evidence(ev.model.models)


def _estimate(data, index, value, chunk, rng, *, draws, level, reference, ref_values, ref_evidence, drop, below):
    """One chunk's or slice's :class:`~spe.monitoring.Estimate`."""
    if chunk.n_items < 4:
        raise SpeInputError(f"chunk or slice {chunk.key!r} holds {chunk.n_items} items; each needs at least 4",
                            argument="scores")
    log_probs, (positions, classes), n_labeled = chunk.items(data.log_probs, index, value)
    part = ClassScores(log_probs, data.classes, data.score_type,
                       None if data.ids is None else data.ids[chunk.index])
    labels = (positions, np.asarray(data.classes, dtype=object)[classes])
    shared_rng, new_rng, mix_rng = rng.spawn(3)
    try:
        ev = estimate_from_scores(part, labels, draws=draws, level=level, rng=shared_rng, reference=reference)
        draws_of = {m: ev.metric_draws(m) for m in CLASS_MONITOR_METRICS}
        p_new = None
        if reference is not None and n_labeled:
            new = estimate_from_scores(part, labels, draws=draws, level=level, rng=new_rng)
            log_odds = (np.log(NEW_MAP_PRIOR / (1 - NEW_MAP_PRIOR)) + averaged_log_evidence(new.model.models)
                        + ref_evidence - averaged_log_evidence(ev.model.models))
            p_new = float(special.expit(log_odds))
            use_new = mix_rng.random(ev.model.n_draws) < p_new
            draws_of = {m: np.where(use_new, new.metric_draws(m), d) for m, d in draws_of.items()}
    except SpeInputError as e:
        raise SpeInputError(f"chunk or slice {chunk.key!r}: {e}", argument="scores") from None
    weights = np.full(ev.model.n_draws, 1.0 / ev.model.n_draws)
    metrics = {m: summarise_draws(d, weights, level) for m, d in draws_of.items()}
    return Estimate(key=chunk.key, start=chunk.start, end=chunk.end, n_items=chunk.n_items, n_labeled=n_labeled,
                    metrics=metrics, draws=draws_of, weights=weights,
                    alerts=_alerts(draws_of, ref_values, drop, below), warnings=list(ev.warnings),
                    p_concept_shift=p_new)


def _alerts(draws, ref_values, drop, below):
    """P(metric < bar) per alert metric, bar the floor or the reference's value − δ; [] with neither."""
    out = []
    for m in CLASS_ALERT_METRICS:
        bar = below if below is not None else None if ref_values is None else ref_values[m] - drop
        if bar is None:
            continue
        d = draws[m][np.isfinite(draws[m])]
        p = float(np.mean(d < bar)) if d.size else float("nan")
        out.append({"metric": m, "p_drop": p, "alert": bool(p >= ALERT_PROBABILITY)})
    return out
