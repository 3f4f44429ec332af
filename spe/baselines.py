"""Labeled-only ("naive") estimates: what the labeled items alone say.

Welinder et al. (2013) §4.3, Fig. 2 compare SPE with the *naive* method: the
performance curve computed from the labeled items alone. These functions use
the same curve conventions and metrics as :mod:`spe.metrics`, so the two are comparable.

:func:`labeled_only` answers the same queries as :class:`spe.Evaluation`
from the n labeled items alone: each estimate is the labeled items' own
value; intervals are Jeffreys Beta intervals for the metrics that are
binomial proportions (``proportion`` in their declaration: prevalence,
precision, recall, false positive rate, accuracy at a threshold: Brown, Cai
& DasGupta 2001) and percentile-bootstrap intervals (resampling the labeled
items) for everything else — curves, average precision, ROC AUC, equal error
rate, F1 and the probability that a threshold meets a requirement.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from .evaluation import (
    CurveBand,
    Interval,
    ThresholdChoice,
    ThresholdProbability,
    most_likely_threshold,
    summarise_draws,
)
from .exceptions import SpeInputError, plain
from .inputs import check_level
from .metrics import REGISTRY as METRICS
from .metrics import (Confusion, Curves, metric_values, ranking_metric_names, ranking_metric_values,
                      threshold_metric_names, threshold_metric_values)
from .metrics.curves import FPR_GRID, RECALL_GRID, curves_from_counts, pr_at_recall, roc_at_fpr
from .output import jsonable
from .performance import ScoreGroups, groups_at
from .quantiles import weighted_quantile

__all__ = ["pr_curve_from_labels", "roc_curve_from_labels", "metrics_from_labels", "true_performance",
           "labeled_only_pr_curve", "labeled_only", "LabeledOnly", "labeled_only_metric_names", "jeffreys_interval"]


def labeled_only_metric_names():
    """The registered metrics the labeled items alone give: every metric of the ranking, and the rates at a
    threshold (not the counts of the pool's items)."""
    return ranking_metric_names() + _rate_names()


def _rate_names():
    """The metrics at a threshold that are rates, not counts of the pool's items."""
    return tuple(n for n in threshold_metric_names() if not METRICS[n].count)


def _curves_from_labels(scores, labels):
    """True and false positives above each distinct score of fully labeled items: two arrays of shape (1, K)."""
    scores = np.asarray(scores, dtype=float)
    g = ScoreGroups.build(scores, np.arange(scores.size), np.asarray(labels).astype(int))
    return curves_from_counts(g.n_labeled_pos[None, :], g.counts)


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
    return pr_at_recall(*_curves_from_labels(scores, labels), grid)[0]


def true_performance(scores, labels):
    """Every metric of the ranking for fully labeled items (the truth an estimate is checked against).

    Parameters
    ----------
    scores : array, shape (N,)
        Score units.
    labels : 0/1 array, shape (N,)

    Returns
    -------
    dict of str → float
        Each metric of the whole ranking registered in :mod:`spe.metrics`
        (``prevalence``, ``average_precision``, ``roc_auc``, …; ties count
        as in :func:`spe.metrics.curves.roc_auc`, a step between distinct
        scores); NaN where undefined (no positive, or no negative).
    """
    tp, fp = _curves_from_labels(scores, labels)
    values = ranking_metric_values(Curves(tp, fp, int(np.asarray(labels).size)))
    return {name: float(v[0]) for name, v in values.items()}


def roc_curve_from_labels(scores, labels, grid=FPR_GRID):
    """True positive rate at each false positive rate of ``grid`` for fully labeled items.

    Parameters
    ----------
    scores : array, shape (N,)
        Score units.
    labels : 0/1 array, shape (N,)
    grid : array, shape (G,)
        False positive rates in [0, 1].

    Returns
    -------
    array, shape (G,)
        The ROC polyline (ties as one step, as ``sklearn.metrics.roc_curve``)
        at ``grid``; NaN without a positive or a negative.
    """
    return roc_at_fpr(*_curves_from_labels(scores, labels), grid)[0]


def metrics_from_labels(scores, labels, thresholds):
    """Every metric at a threshold (:func:`spe.evaluation.metric_names`) at thresholds, for fully labeled items.

    Parameters
    ----------
    scores : array, shape (N,)
        Score units.
    labels : 0/1 array, shape (N,)
    thresholds : array, shape (Q,)
        Score units; an item is predicted positive when its score is ≥ the
        threshold.

    Returns
    -------
    dict of str → array, shape (Q,)
        Rates in [0, 1] (NaN where undefined) and counts, as
        :func:`spe.metrics.threshold_metric_values`.
    """
    s = np.asarray(scores, dtype=float)
    y = np.asarray(labels).astype(int)
    t = np.atleast_1d(np.asarray(thresholds, dtype=float))
    order = np.argsort(s, kind="stable")
    s_sorted, y_sorted = s[order], y[order]
    below = np.searchsorted(s_sorted, t, side="left")  # items scored < t
    pos_below = np.concatenate([[0], np.cumsum(y_sorted)])[below]
    tp = y.sum() - pos_below
    out = threshold_metric_values(tp[None, :], s.size - below, np.array([y.sum()]), s.size)
    return {k: np.asarray(v)[0] for k, v in out.items()}


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


def jeffreys_interval(k, n, level):
    """The Jeffreys ``level`` interval (lo, hi) of a binomial proportion k/n: Beta(k + ½, n − k + ½) quantiles,
    with the usual boundary rule — 0 when k = 0, 1 when k = n (Brown, Cai & DasGupta 2001) — and NaN when n = 0."""
    if n <= 0:
        return float("nan"), float("nan")
    lo = 0.0 if k == 0 else float(stats.beta.ppf((1 - level) / 2, k + 0.5, n - k + 0.5))
    hi = 1.0 if k == n else float(stats.beta.ppf((1 + level) / 2, k + 0.5, n - k + 0.5))
    return lo, hi


@dataclass
class LabeledOnly:
    """What the n labeled items alone say, with the query methods of :class:`spe.Evaluation`.

    Build it with :func:`labeled_only`. Each estimate (``mean`` and
    ``median`` of the returned :class:`~spe.evaluation.Interval`) is the
    labeled items' own value — the naive method of Welinder et al. (2013),
    §4.3; ``lo``/``hi`` are Jeffreys intervals for proportions and
    percentile-bootstrap intervals otherwise. Confusion counts are not
    given: the labeled items do not say how many of the N items are
    positive beyond the prevalence.

    Attributes
    ----------
    scores : array, shape (n,)
        The labeled items' scores, score units.
    labels : int array, shape (n,)
    n_items : int
        N, the pool the labeled items were drawn from.
    level : float
    bootstrap_tp, bootstrap_fp : arrays, shape (B, K)
        Cumulative positives and negatives at the K distinct labeled scores
        (descending) in each of B bootstrap resamples.
    groups : ScoreGroups
        The labeled items grouped by distinct score.
    """

    scores: np.ndarray
    labels: np.ndarray
    n_items: int
    level: float
    bootstrap_tp: np.ndarray
    bootstrap_fp: np.ndarray
    groups: ScoreGroups

    @property
    def n_labeled(self) -> int:
        """n."""
        return int(self.labels.size)

    def _level(self, level):
        return self.level if level is None else check_level(level)

    def _own(self):
        """The labeled items' own cumulative counts, (1, K) each."""
        g = self.groups
        return curves_from_counts(g.n_labeled_pos[None, :], g.counts)

    def _boot_interval(self, point, draws, level):
        level = self._level(level)
        w = np.ones(draws.shape[0])
        boot = summarise_draws(draws, w, level)
        return Interval(float(point), float(point), boot.lo, boot.hi, level)

    def _interval(self, metric, own, boot, level):
        """A metric's interval from its values on the labeled items (``own``) and on the bootstrap resamples:
        Jeffreys for a proportion, else percentile bootstrap; ``own``/``boot`` are what ``metric.compute``
        reads (:class:`~spe.metrics.Curves` or :class:`~spe.metrics.Confusion`)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            point = float(np.ravel(metric.compute(own))[0])
            if metric.proportion is None:
                return self._boot_interval(point, np.ravel(metric.compute(boot)), level)
        k, n = (int(np.ravel(v)[0]) for v in metric.proportion(own))
        lo, hi = jeffreys_interval(k, n, self._level(level))
        return Interval(point, point, lo, hi, self._level(level))

    def prevalence(self, level=None) -> Interval:
        """Fraction of positives among the labeled items, with its Jeffreys interval."""
        return self.metric("prevalence", level=level)

    def average_precision(self, level=None) -> Interval:
        """Average precision of the labeled items, percentile-bootstrap interval."""
        return self.metric("average_precision", level=level)

    def roc_auc(self, level=None) -> Interval:
        """ROC AUC of the labeled items, percentile-bootstrap interval."""
        return self.metric("roc_auc", level=level)

    def equal_error_rate(self, level=None) -> Interval:
        """Equal error rate of the labeled items, percentile-bootstrap interval."""
        return self.metric("equal_error_rate", level=level)

    def _curve(self, fn, grid, level):
        level = self._level(level)
        tp, fp = self._own()
        point = fn(tp, fp, grid)[0]
        lo, hi = weighted_quantile(fn(self.bootstrap_tp, self.bootstrap_fp, grid), np.ones(self.bootstrap_tp.shape[0]),
                                   [(1 - level) / 2, (1 + level) / 2])
        return CurveBand(np.array(grid, dtype=float), point, lo, hi, level)

    def pr_curve(self, level=None, grid=RECALL_GRID) -> CurveBand:
        """The labeled items' PR curve on the recall grid (G,), percentile-bootstrap band.

        ``median`` holds the labeled items' own curve (NaN without a
        labeled positive).
        """
        return self._curve(pr_at_recall, grid, level)

    def roc_curve(self, level=None, grid=FPR_GRID) -> CurveBand:
        """The labeled items' ROC curve on the FPR grid (G,), percentile-bootstrap band."""
        return self._curve(roc_at_fpr, grid, level)

    def _confusion_at(self, tp, fp, thresholds):
        """The :class:`~spe.metrics.Confusion` at Q thresholds from cumulative counts (rows, K)."""
        j, _ = groups_at(self.groups, thresholds)  # labeled score groups scored ≥ each threshold
        pad = np.zeros((tp.shape[0], 1))
        tp_at = np.hstack([pad, tp])[:, j]
        return Confusion(tp_at, tp_at + np.hstack([pad, fp])[:, j], tp[:, -1:], self.n_labeled)

    def metrics_at(self, threshold, level=None) -> dict:
        """The rates at a threshold (precision, recall, F1, accuracy, false positive rate, …) of the labeled items.

        Parameters
        ----------
        threshold : float
            Score units; items scored ≥ it are predicted positive.

        Returns
        -------
        dict of str → Interval
            Every registered metric at a threshold but the pool's counts:
            Jeffreys intervals for the proportions, percentile-bootstrap
            intervals otherwise (F1); NaN where the labeled items leave a
            rate undefined (e.g. precision with no labeled item above the
            threshold).
        """
        if not np.isfinite(threshold):
            raise SpeInputError(f"must be a finite number in score units, got {plain(threshold)!r}",
                                argument="threshold")
        own = self._confusion_at(*self._own(), [threshold])
        boot = self._confusion_at(self.bootstrap_tp, self.bootstrap_fp, [threshold])
        return {name: self._interval(METRICS[name], own, boot, level) for name in _rate_names()}

    def metric(self, name, threshold=None, level=None) -> Interval:
        """One metric by name, as :meth:`spe.Evaluation.metric`.

        Parameters
        ----------
        name : str
            One of :func:`labeled_only_metric_names`: a metric of the whole
            ranking (no threshold) or a rate at a threshold (precision,
            recall, f1, accuracy, false_positive_rate, …; the labeled items
            alone give no counts for the pool).
        threshold : float, optional
            Score units.
        level : float, optional

        Raises
        ------
        ValueError
            Unknown name; a rate without a threshold.
        """
        if name not in labeled_only_metric_names():
            raise SpeInputError(f"unknown metric {name!r} for the labeled items alone; known: "
                                f"{labeled_only_metric_names()}", argument="name")
        if not METRICS[name].at_threshold:
            own = Curves(*self._own(), self.n_labeled)
            boot = Curves(self.bootstrap_tp, self.bootstrap_fp, self.n_labeled)
            return self._interval(METRICS[name], own, boot, level)
        if threshold is None:
            raise SpeInputError(f"metric {name!r} needs a threshold (score units)", argument="threshold")
        return self.metrics_at(threshold, level)[name]

    def threshold_probability(self, min_precision=0.0, min_recall=0.0, thresholds=None) -> ThresholdProbability:
        """The bootstrap frequency with which each threshold meets [precision ≥ p̂ ∧ recall ≥ r̂].

        Parameters
        ----------
        min_precision, min_recall : float in [0, 1]
        thresholds : array, shape (T,), optional
            Score units; default the distinct labeled scores (ascending).
        """
        tau = np.sort(self.groups.scores) if thresholds is None else np.sort(np.asarray(thresholds, dtype=float))
        boot = metric_values(self._confusion_at(self.bootstrap_tp, self.bootstrap_fp, tau), ("precision", "recall"))
        meets = (np.nan_to_num(boot["precision"], nan=-1.0) >= min_precision - 1e-12) & (
            np.nan_to_num(boot["recall"], nan=-1.0) >= min_recall - 1e-12)
        return ThresholdProbability(tau, meets.mean(axis=0), float(min_precision), float(min_recall), "labeled-only")

    def best_threshold(self, min_precision=0.0, min_recall=0.0, level=None, thresholds=None) -> ThresholdChoice:
        """The threshold the labeled items alone would pick (highest bootstrap frequency, then F1)."""
        curve = self.threshold_probability(min_precision, min_recall, thresholds)
        own = metric_values(self._confusion_at(*self._own(), curve.threshold), ("f1",))
        best = most_likely_threshold(curve, own["f1"][0])
        tau = float(curve.threshold[best])
        return ThresholdChoice(tau, float(curve.probability[best]), self.metrics_at(tau, level),
                               bool(curve.probability[best] >= 0.5), curve)

    def to_dict(self, level=None) -> dict:
        """JSON-ready dict: the scalar estimates and the PR and ROC curves with bands."""
        level = self._level(level)
        pr, roc = self.pr_curve(level), self.roc_curve(level)
        return jsonable({
            "method": "labeled items only (Jeffreys intervals for proportions, percentile bootstrap otherwise)",
            "n_labeled": self.n_labeled,
            "n_bootstrap": int(self.bootstrap_tp.shape[0]),
            **{name: self.metric(name, level=level).to_dict() for name in ranking_metric_names()},
            "pr_curve": {"recall": pr.x, "precision": pr.median, "precision_lo": pr.lo,
                         "precision_hi": pr.hi},
            "roc_curve": {"fpr": roc.x, "tpr": roc.median, "tpr_lo": roc.lo, "tpr_hi": roc.hi},
        })


def labeled_only(scores, labeled_index, labeled_value, *, level=0.9, n_bootstrap=1000, rng=None,
                 n_items=None) -> LabeledOnly:
    """The labeled-only baseline: every query answered from the n labeled items alone.

    Parameters
    ----------
    scores : array, shape (N,)
        All scores, score units (only the labeled ones are used, and N).
    labeled_index : int array, shape (n,)
    labeled_value : 0/1 array, shape (n,)
    level : float
        Credible/confidence level of the intervals, in (0, 1).
    n_bootstrap : int
        B, bootstrap resamples of the labeled items (≥ 100).
    rng : numpy.random.Generator, int or None
    n_items : int, optional
        N, the items the labeled ones were drawn from (default: the length
        of ``scores``; a pooled evaluation's ``scores`` are its K distinct
        values, so it passes its N here).

    Returns
    -------
    LabeledOnly

    Raises
    ------
    ValueError
        No labeled items, a bad level or B < 100.
    """
    level = check_level(level)
    idx = np.asarray(labeled_index, dtype=int)
    y = np.asarray(labeled_value).astype(int)
    if idx.size == 0:
        raise SpeInputError("the labeled-only baseline needs at least one labeled item", argument="labeled_index")
    if int(n_bootstrap) != n_bootstrap or n_bootstrap < 100:
        raise SpeInputError(f"must be an integer ≥ 100, got {plain(n_bootstrap)!r}", argument="n_bootstrap")
    s_lab = np.asarray(scores, dtype=float)[idx]
    n = idx.size
    groups = ScoreGroups.build(s_lab, np.arange(n), y)
    rng = np.random.default_rng(rng)
    mult = rng.multinomial(n, np.full(n, 1.0 / n), size=int(n_bootstrap))  # (B, n) resample multiplicities
    k = groups.n_groups
    pos = np.zeros((mult.shape[0], k))
    neg = np.zeros((mult.shape[0], k))
    g = groups.group_of_item
    for i in range(n):  # n is small (the labeled items)
        (pos if y[i] == 1 else neg)[:, g[i]] += mult[:, i]
    n_items = int(np.asarray(scores).size) if n_items is None else int(n_items)
    return LabeledOnly(s_lab, y, n_items, level, np.cumsum(pos, axis=1), np.cumsum(neg, axis=1),
                       groups)
