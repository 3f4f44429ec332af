"""The metric registry: each performance metric declared once, and everything that reports metrics reads it.

A metric is either a metric of the whole ranking (no threshold: prevalence,
average precision, ROC AUC, …), computed from the cumulative confusion counts
at every threshold (:class:`Curves`), or a metric at a threshold (precision,
recall, the confusion counts, …), computed from the confusion counts there
(:class:`Confusion`). Both are computed per row — per posterior draw for
SPE, per bootstrap resample for the labeled-only baseline — so one
declaration gives:

* the per-draw values of the sample and population performance
  (:mod:`spe.performance.sampling`), their intervals
  (:meth:`spe.Evaluation.metric`), the JSON (``Evaluation.to_dict``) and the
  printed summary;
* the labeled-only baseline (:class:`spe.baselines.LabeledOnly`): the
  labeled items' own value, with a Jeffreys interval when the metric is a
  binomial proportion (``proportion``) and a percentile-bootstrap interval
  otherwise;
* the truth of a fully labeled set (:func:`spe.baselines.true_performance`),
  and the CLI's lines.

A new metric is one module in ``spe/metrics/`` ending with
``register(Metric(...))`` and imported in ``spe/metrics/__init__.py``
(``max_f1.py`` is the example).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..registries import add_unique
from .curves import roc_polyline

__all__ = ["Metric", "Curves", "Confusion", "register", "REGISTRY", "ranking_metric_names",
           "threshold_metric_names", "ranking_metric_values", "threshold_metric_values", "metric_values",
           "confusion_at"]


@dataclass(frozen=True)
class Curves:
    """Cumulative confusion counts at every threshold, one row per draw: what a ranking metric reads.

    Attributes
    ----------
    tp, fp : arrays, shape (M, K)
        Positives and negatives among the items scored ≥ each of K
        thresholds (descending; the last one predicts every item positive).
        Counts of items; expected counts for population performance.
    n_items : int
        All items counted (N; n for the labeled items alone).
    """

    tp: np.ndarray
    fp: np.ndarray
    n_items: int

    @functools.cached_property
    def polyline(self):
        """The ROC vertices (FPR, TPR), two (M, K + 1) arrays (:func:`spe.metrics.curves.roc_polyline`)."""
        return roc_polyline(self.tp, self.fp)

    @property
    def positives(self):
        """Positives among all items, shape (M,)."""
        return self.tp[:, -1]

    @property
    def negatives(self):
        """Negatives among all items, shape (M,)."""
        return self.fp[:, -1]


@dataclass(frozen=True)
class Confusion:
    """Confusion counts at Q thresholds, one row per draw: what a metric at a threshold reads.

    Attributes
    ----------
    tp : array, shape (M, Q)
        True positives: positives among the items scored ≥ each threshold.
    predicted : array, shape (1, Q) or (M, Q)
        Items scored ≥ each threshold (predicted positive).
    positives : array, shape (M, 1)
        Positives among all items.
    n_items : int
        All items counted.
    """

    tp: np.ndarray
    predicted: np.ndarray
    positives: np.ndarray
    n_items: int

    @property
    def fp(self):
        """False positives, (M, Q)."""
        return self.predicted - self.tp

    @property
    def fn(self):
        """False negatives, (M, Q)."""
        return self.positives - self.tp

    @property
    def negatives(self):
        """Negatives among all items, (M, 1)."""
        return self.n_items - self.positives

    @property
    def tn(self):
        """True negatives, (M, Q)."""
        return self.negatives - self.fp


@dataclass(frozen=True)
class Metric:
    """One performance metric, declared once.

    Attributes
    ----------
    name : str
        Its key: in the JSON, in :meth:`spe.Evaluation.metric`, in the
        labeled-only baseline.
    label : str
        How the summary and the CLI print it ("average precision").
    compute : callable
        ``Curves`` → values (M,) for a metric of the ranking; with
        ``at_threshold``, ``Confusion`` → values (M, Q). NaN where the
        metric is undefined in a row (e.g. no positive); called inside
        ``np.errstate(invalid="ignore", divide="ignore")``.
    about : str
        One line: what it is, and its source.
    at_threshold : bool
        A metric at a threshold (precision, recall, …) rather than of the
        whole ranking.
    proportion : callable or None
        For a binomial proportion, the same argument → (successes, trials)
        of the same shape: the labeled-only baseline then gives a Jeffreys
        interval (Brown, Cai & DasGupta 2001). None: a percentile-bootstrap
        interval.
    count : bool
        A count of the pool's items (true positives, …): the labeled items
        alone do not give it, and it is printed with one decimal.
    better : {"higher", "lower"} or None
        Which value makes one classifier better than another
        (:func:`spe.compare`); None for a property of the items, not of the
        classifier (the prevalence).
    """

    name: str
    label: str
    compute: Callable
    about: str = ""
    at_threshold: bool = False
    proportion: Callable | None = None
    count: bool = False
    better: str | None = "higher"


#: Every metric by name, in the order of registration (the order of the JSON and of the summary).
REGISTRY: dict[str, Metric] = {}


def register(metric):
    """Add a :class:`Metric` (its module calls this when imported); returns it.

    Raises
    ------
    ValueError
        A metric of that name is registered already.
    """
    return add_unique(REGISTRY, metric.name, metric, "metric")


def ranking_metric_names():
    """Names of the metrics of the whole ranking (no threshold), in registration order."""
    return tuple(name for name, m in REGISTRY.items() if not m.at_threshold)


def threshold_metric_names():
    """Names of the metrics at a threshold, in registration order."""
    return tuple(name for name, m in REGISTRY.items() if m.at_threshold)


def metric_values(counts, names):
    """The metrics ``names`` computed from ``counts`` (a :class:`Curves` for metrics of the ranking, a
    :class:`Confusion` for metrics at a threshold): dict of name → (M,) or (M, Q), NaN where undefined."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return {name: REGISTRY[name].compute(counts) for name in names}


def ranking_metric_values(curves):
    """Every metric of the ranking, per row: :class:`Curves` → dict of name → (M,)."""
    return metric_values(curves, ranking_metric_names())


def confusion_at(true_positives, n_predicted, n_positive, n_items):
    """The :class:`Confusion` of rows of counts at Q thresholds (parameters as :func:`threshold_metric_values`)."""
    pred = np.asarray(n_predicted, dtype=float)
    return Confusion(np.asarray(true_positives, dtype=float), pred[None, :] if pred.ndim == 1 else pred,
                     np.asarray(n_positive, dtype=float)[:, None], n_items)


def threshold_metric_values(true_positives, n_predicted, n_positive, n_items, names=None):
    """Every metric at thresholds (or those ``names``), per row.

    Parameters
    ----------
    true_positives : array, shape (M, Q)
        Positives among the items scored ≥ each threshold.
    n_predicted : array, shape (Q,) or (M, Q)
        Items scored ≥ each threshold (per row when it varies, as in a
        bootstrap).
    n_positive : array, shape (M,)
        Positives among all items.
    n_items : int
        All items (N).
    names : sequence of str, optional
        Only these metrics (default: every metric at a threshold); each is an (M, Q) array, so computing only
        the ones asked for saves their time and memory at large M and Q.

    Returns
    -------
    dict of str → array, shape (M, Q)
        Counts (expected counts for population performance) and rates in
        [0, 1]; NaN where a rate is undefined (precision with nothing
        predicted positive, recall without positives, false positive rate
        without negatives).
    """
    confusion = confusion_at(true_positives, n_predicted, n_positive, n_items)
    values = metric_values(confusion, threshold_metric_names() if names is None else names)
    return {name: v if v.shape == confusion.tp.shape else np.broadcast_to(v, confusion.tp.shape)
            for name, v in values.items()}
