"""What every prevalence method shares: the estimate with its interval, the inputs, the registry, the
bootstrap and the comparison.

A prevalence method estimates the fraction of positives among the N items of the pool from every score and
the n labeled items (drawn at random, or a labeled reference set for methods that take one). Items whose
label is known count as known: the methods estimate the number of positives among the N − n unlabeled
items, except ``labeled``, the labeled items' own fraction. Each method is one module ending with
``register(Method(...))``; ``spe prevalence --method`` and :func:`estimate_prevalence` read the registry.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..exceptions import SpeInputError, SpeWarning
from ..inputs import as_scores, check_level, normalize_labels, normalize_reference, reference_warnings, seed_of
from ..registries import add_unique

__all__ = ["PrevalenceEstimate", "Method", "REGISTRY", "register", "PoolLabels", "estimate_prevalence",
           "compare_prevalence", "estimate_all", "check_method", "stratified_bootstrap", "bootstrap_note", "natural_threshold",
           "pool_fraction"]


@dataclass
class PrevalenceEstimate:
    """One method's prevalence of the pool.

    Attributes
    ----------
    method : str
    estimate : float
        The fraction of positives among the N items, in [0, 1].
    lo, hi : float
        The interval at ``level`` (NaN where none can be given).
    level : float
    interval : str
        What the interval is ("credible", "Jeffreys", "bootstrap percentile, …").
    details : dict
        What else the method reports (SLD's iterations and convergence, the threshold, …).
    """

    method: str
    estimate: float
    lo: float
    hi: float
    level: float
    interval: str
    details: dict = field(default_factory=dict)

    def to_dict(self):
        """JSON-ready."""
        from ..output import jsonable

        return jsonable({"method": self.method, "estimate": self.estimate, "lo": self.lo, "hi": self.hi,
                         "level": self.level, "interval": self.interval, **self.details})

    def __str__(self):
        return f"{self.estimate:.3f} [{self.lo:.3f}, {self.hi:.3f}]"


@dataclass(frozen=True)
class Method:
    """A registered prevalence method: ``estimate(data, level, rng, **options)`` → PrevalenceEstimate."""

    name: str
    about: str
    estimate: Callable


#: Every prevalence method by name, in the order of ``spe prevalence --compare``.
REGISTRY: dict[str, Method] = {}


def register(method):
    """Add a :class:`Method` (its module calls this when imported); returns it."""
    return add_unique(REGISTRY, method.name, method, "prevalence method")


@dataclass
class PoolLabels:
    """The pool's scores and its labeled items, checked once.

    Attributes
    ----------
    scores : array, shape (N,)
    labeled_index : int array, shape (n,)
    labeled_value : int array, shape (n,)
    reference : (scores (R,), labels (R,)) or None
        A labeled set from elsewhere (the classifier's validation set) for the methods that learn a map there.
    score_type : str
    """

    scores: np.ndarray
    labeled_index: np.ndarray
    labeled_value: np.ndarray
    reference: tuple | None = None
    score_type: str = "auto"

    @property
    def unlabeled(self):
        """The unlabeled items' scores, (N − n,)."""
        mask = np.ones(self.scores.size, dtype=bool)
        mask[self.labeled_index] = False
        return self.scores[mask]

    @property
    def labeled_scores(self):
        """(n,)."""
        return self.scores[self.labeled_index]

    def calibration_set(self, method):
        """The labeled set a map is learned on: the reference set when given, else the pool's labeled items;
        :class:`SpeInputError` (naming ``method``) unless it holds both classes."""
        s, y = self.reference if self.reference is not None else (self.labeled_scores, self.labeled_value)
        if y.size == 0 or y.min() == y.max():
            raise SpeInputError(f"{method} needs labeled items of both classes (got {int(y.sum())} positive, "
                                f"{int(y.size - y.sum())} negative)", argument="labels")
        return s, y


def pool_fraction(data, unlabeled_positives):
    """(known positives + the estimated positives among the unlabeled items) / N."""
    return float((data.labeled_value.sum() + unlabeled_positives) / data.scores.size)


def natural_threshold(data):
    """The classifier's own decision threshold of the pool's scores (:func:`spe.models.mixture.natural_threshold`)."""
    from ..models.mixture import natural_threshold as of_scores

    return of_scores(data.scores, data.score_type)


def stratified_bootstrap(statistic, scores, labels, level, rng, n_resamples):
    """Percentile interval of ``statistic(positive_scores, negative_scores)`` resampling each class of a labeled
    set apart (``scipy.stats.bootstrap`` with two samples), so every resample keeps both classes: (lo, hi).
    (NaN, NaN) when a class has fewer than two items: a single item cannot be resampled, and an interval that
    held it fixed would hide the largest part of the uncertainty."""
    from scipy import stats

    s, y = np.asarray(scores, dtype=float), np.asarray(labels)
    if min(int(y.sum()), int(y.size - y.sum())) < 2:
        return float("nan"), float("nan")
    res = stats.bootstrap((s[y == 1], s[y == 0]), statistic, n_resamples=int(n_resamples), confidence_level=level,
                          method="percentile", vectorized=False, paired=False, rng=rng)
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def _estimate_or_reason(method, *args, **kwargs):
    """:func:`estimate_prevalence`, or a NaN row saying why this method cannot answer (e.g. one class labeled)."""
    try:
        return estimate_prevalence(method, *args, **kwargs)
    except SpeInputError as e:
        if e.argument != "labels":
            raise
        return PrevalenceEstimate(method, float("nan"), float("nan"), float("nan"), kwargs["level"],
                                  f"none: {e.message}")


def check_method(name, argument="method"):
    """Raise :class:`SpeInputError` naming ``argument`` unless ``name`` is a registered method."""
    if name not in REGISTRY:
        raise SpeInputError(f"unknown prevalence method {name!r}; one of {', '.join(REGISTRY)}", argument=argument)


def bootstrap_note(lo):
    """What a stratified bootstrap interval is, or why there is none (``lo`` NaN)."""
    if np.isnan(lo):
        return "none: fewer than 2 labeled items of a class to resample"
    return "bootstrap percentile of each labeled class"


def _pool(scores, labels, reference, score_type, pos_label=None):
    """The checked :class:`PoolLabels`; a :class:`~spe.exceptions.SpeWarning` for probabilities clipped of float
    noise and for a suspect reference set (:func:`spe.inputs.reference_warnings`)."""
    from ..models.mixture import clipped_probabilities, resolve_score_reading

    s = as_scores(scores)
    index, value = normalize_labels(labels, s.size, pos_label=pos_label)
    s, note = clipped_probabilities(s, score_type)
    notes = [] if note is None else [note]
    ref = normalize_reference(reference, pos_label)
    if ref is not None:
        types = (resolve_score_reading(x, score_type)[0] for x in (s, ref[0]))
        notes += reference_warnings(*types, ref)
    for message in notes:
        warnings.warn(SpeWarning(message), stacklevel=3)
    return PoolLabels(s, np.asarray(index, dtype=int), np.asarray(value, dtype=int), ref, score_type)


def estimate_prevalence(method, scores, labels=None, *, level=0.9, rng=None, reference=None, score_type="auto",
                        pos_label=None, **options):
    """The pool's prevalence by one registered method.

    Parameters
    ----------
    method : str
        "labeled", "cc", "acc", "sld" or "spe" (``spe list`` and :data:`REGISTRY` list them).
    scores : array-like, shape (N,)
        Every item's score, score units.
    labels : as :func:`spe.evaluate`
        The labeled items (positions → 0/1).
    level : float
        The interval's level, in (0, 1).
    rng : int, numpy.random.Generator or None
        Seed of the bootstrap (and of SPE's draws).
    reference : (scores (R,), labels (R,)), optional
        A labeled set from elsewhere: SLD and ACC learn their map or rates there (prior shift allowed).
    score_type, pos_label : as :func:`spe.evaluate`'s
    **options
        The method's own (``threshold`` of cc/acc, ``calibrator`` and ``n_resamples`` of sld, ``draws`` of spe).

    Returns
    -------
    PrevalenceEstimate

    Raises
    ------
    SpeInputError
        An unknown method; bad scores, labels or level (as :func:`spe.evaluate`); a method that needs labels of
        both classes without them.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.prevalence import estimate_prevalence
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(5000) < 0.2
    >>> s = np.where(y, rng.normal(2, 1, 5000), rng.normal(0, 1, 5000))
    >>> est = estimate_prevalence("acc", s, {i: int(y[i]) for i in range(200)}, rng=0)
    >>> bool(est.lo < y.mean() < est.hi)
    True
    """
    check_method(method)
    level = check_level(level)
    data = _pool(scores, labels, reference, score_type, pos_label)
    return REGISTRY[method].estimate(data, level, np.random.default_rng(seed_of(rng)), **options)


def compare_prevalence(scores, labels=None, *, methods=None, level=0.9, rng=None, reference=None,
                       score_type="auto", options=None):
    """Every (or the named) prevalence method on the same data: a DataFrame indexed by method with ``estimate``,
    ``lo``, ``hi``, ``interval`` (and ``level``). ``options``: {method: its keyword arguments}.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.prevalence import compare_prevalence
    >>> rng = np.random.default_rng(1)
    >>> y = rng.random(3000) < 0.3
    >>> s = np.where(y, rng.normal(1.5, 1, 3000), rng.normal(0, 1, 3000))
    >>> table = compare_prevalence(s, {i: int(y[i]) for i in range(100)}, methods=["labeled", "cc", "acc"], rng=0)
    >>> list(table.index)
    ['labeled', 'cc', 'acc']
    """
    import pandas as pd

    rows = estimate_all(scores, labels, methods=methods, level=level, rng=rng, reference=reference,
                        score_type=score_type, options=options)
    return pd.DataFrame([{"method": r.method, "estimate": r.estimate, "lo": r.lo, "hi": r.hi, "level": r.level,
                          "interval": r.interval} for r in rows]).set_index("method")


def estimate_all(scores, labels=None, *, methods=None, level=0.9, rng=None, reference=None, score_type="auto",
                 options=None):
    """:func:`estimate_prevalence` of every (or the named) method with one seed: list of PrevalenceEstimate, a
    NaN one with the reason for a method these labels cannot serve (see :func:`compare_prevalence`)."""
    names = list(methods or REGISTRY)
    for m in names:
        check_method(m)
    seed = seed_of(rng)
    return [_estimate_or_reason(m, scores, labels, level=level, rng=seed, reference=reference, score_type=score_type,
                                **(options or {}).get(m, {})) for m in names]
