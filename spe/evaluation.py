"""The result object: :class:`Evaluation` and its queries.

An ``Evaluation`` holds the per-draw sample performance
(:class:`spe.performance.SamplePerformance`) and the fitted score model, and
answers queries at any credible level from them; ``to_dict()`` is the single
source of the CLI's JSON. Which metrics it reports is the registry's
(:mod:`spe.metrics`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .display import result_html, result_repr, score_type_lines
from .exceptions import SpeInputError, plain
from .inputs import check_choice, check_level
from .metrics import REGISTRY as METRICS
from .metrics import ranking_metric_names, threshold_metric_names, threshold_metric_values
from .models.base import FittedScoreModel
from .output import format_items, jsonable, save_json
from .performance import SamplePerformance, replay_true_positives
from .performance.requirement import LABELS_ONLY_PRIOR, RequirementCheck, requirement_check
from .quantiles import weighted_quantile

__all__ = ["Evaluation", "Interval", "CurveBand", "ClassDensities", "ThresholdProbability", "ThresholdChoice",
           "PERFORMANCE_KINDS", "summarise_draws", "most_likely_threshold", "metric_names", "metrics_frame",
           "item_index", "score_model_frame", "requirement_met",
           "check_requirement"]

#: ``"sample"``: performance on these N items (labels drawn, paper §3); ``"population"``: from θ alone.
PERFORMANCE_KINDS = ("sample", "population")


@dataclass(frozen=True)
class Interval:
    """A posterior summary of a scalar: weighted mean, median and equal-tailed interval.

    Attributes
    ----------
    mean, median, lo, hi : float
        ``lo``/``hi`` are the (1 − level)/2 and (1 + level)/2 quantiles.
    level : float
    """

    mean: float
    median: float
    lo: float
    hi: float
    level: float

    def to_dict(self):
        return {"mean": self.mean, "median": self.median, "lo": self.lo, "hi": self.hi}

    def __str__(self):
        if not np.isfinite(self.mean):  # e.g. ROC AUC when every labeled item, and so every item, is one class
            return "undefined (no draw defines it)"
        return f"{self.mean:.3f} [{self.lo:.3f}, {self.hi:.3f}]"


@dataclass(frozen=True)
class CurveBand:
    """A curve with its credible band on a fixed grid.

    Attributes
    ----------
    x : array, shape (G,)
        The grid (recall for PR curves, false positive rate for ROC curves).
    median, lo, hi : arrays, shape (G,)
        Pointwise weighted median and equal-tailed band at ``level``.
    level : float
    """

    x: np.ndarray
    median: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    level: float

    def to_frame(self, x="x"):
        """A tidy DataFrame, G rows: the grid (column named ``x``, e.g. ``"recall"``), ``median``, ``lo``,
        ``hi`` and ``level``."""
        import pandas as pd

        return pd.DataFrame({x: self.x, "median": self.median, "lo": self.lo, "hi": self.hi, "level": self.level})


@dataclass(frozen=True)
class ClassDensities:
    """The SPE mixture's class-conditional densities with credible bands (paper Fig. 1A).

    Densities are per unit of ``axis``: the classifier's score for a
    linear score space, the score's log-odds ``logit(s)`` for a logit score
    space (probability scores); a histogram of the scores on that axis,
    normalised to area 1, is directly comparable.

    Attributes
    ----------
    score : array, shape (G,)
        Grid over the range of the scores, in score units (ascending).
    z : array, shape (G,)
        The same grid on ``axis`` (the score itself, or its logit).
    axis : {"score", "logit(score)"}
        What the densities are per unit of.
    negative, positive : CurveBand
        (1 − π) p₀ and π p₁ on the grid: the class-conditional densities
        scaled by the class fractions (their ``x`` is ``score``).
    total : CurveBand
        The mixture density (1 − π) p₀ + π p₁.
    prevalence : Interval
        π, the mixture's prevalence (its own posterior, before averaging
        with the other score models).
    weight : float
        The mixture's weight in the estimates (1 when it is the only score
        model; see ``diagnostics["score_models"]``).
    families : dict
        ``{"negative": name, "positive": name}``.
    histogram_check : dict or None
        The mixture's posterior-predictive check of the score histogram
        (:mod:`spe.models.mixture.check`), as in the diagnostics.
    """

    score: np.ndarray
    z: np.ndarray
    axis: str
    negative: CurveBand
    positive: CurveBand
    total: CurveBand
    prevalence: Interval
    weight: float
    families: dict
    histogram_check: dict | None


@dataclass(frozen=True)
class ThresholdProbability:
    """p(C(τ)): the posterior probability that threshold τ meets a requirement (paper §4.4, Fig. 4).

    C(τ) = [precision(τ) ≥ ``min_precision`` ∧ recall(τ) ≥ ``min_recall``].

    Attributes
    ----------
    threshold : array, shape (T,)
        Ascending thresholds, score units (an item is predicted positive
        when its score is ≥ τ).
    probability : array, shape (T,)
        The probability stated: the score model's, weighed with the
        possibility that the model is wrong above τ
        (:mod:`spe.performance.requirement`).
    min_precision, min_recall : float
    performance : {"sample", "population"}
    model_probability : array, shape (T,), or None
        The score model's own p(C(τ)): the weighted fraction of posterior
        draws in which τ meets the requirement (None for the labeled-only
        estimate).
    labels_only_weight : array, shape (T,), or None
        Posterior probability that the model is wrong above τ.
    labeled_above, positives_above : int arrays, shape (T,), or None
        Labeled items scored ≥ τ, and the positives among them: what the
        statement rests on besides the model.
    """

    threshold: np.ndarray
    probability: np.ndarray
    min_precision: float
    min_recall: float
    performance: str
    model_probability: np.ndarray | None = field(default=None, repr=False)
    labels_only_weight: np.ndarray | None = field(default=None, repr=False)
    labeled_above: np.ndarray | None = field(default=None, repr=False)
    positives_above: np.ndarray | None = field(default=None, repr=False)


@dataclass(frozen=True)
class ThresholdChoice:
    """The threshold most likely to meet a precision/recall requirement.

    Attributes
    ----------
    threshold : float
        Score units (for a class of multiclass scores, :mod:`spe.multiclass.threshold`: the probability of the
        class). Among thresholds of equal probability, the one with the highest posterior-mean F1.
    probability : float
        p(C(τ)) at that threshold.
    metrics : dict of str → Interval
        Every metric at a threshold (:func:`metric_names`) there (for a class of multiclass scores: precision,
        recall and F1 of the one-vs-rest decision).
    likely : bool
        ``probability ≥ 0.5``: whether the requirement is more likely met
        than not.
    curve : ThresholdProbability
        p(C(τ)) at every threshold.
    meets : array, shape (M,), or None
        Per posterior draw, the probability that the chosen threshold meets the requirement (see
        :meth:`Evaluation.requirement_draws`; its weighted mean is ``probability``); None for the labeled-only
        estimate, which has no posterior draws.
    model_meets : bool array, shape (M,), or None
        C(τ) at the chosen threshold under each posterior draw: the score model's own statement (its weighted
        mean is ``rests_on()["model_probability"]``); None for the labeled-only estimate.
    """

    threshold: float
    probability: float
    metrics: dict
    likely: bool
    curve: ThresholdProbability
    meets: np.ndarray | None = field(default=None, repr=False)
    model_meets: np.ndarray | None = field(default=None, repr=False)

    def to_dict(self):
        """JSON-ready dict (what ``spe threshold --json`` writes, with the input sizes added): with posterior
        draws, also what the probability rests on at the threshold (``model_probability``,
        ``labels_only_weight``, ``labeled_above``, ``positives_above``) and the model's own curve."""
        curve = {"threshold": self.curve.threshold, "probability": self.curve.probability}
        out = {
            "min_precision": self.curve.min_precision,
            "min_recall": self.curve.min_recall,
            "performance": self.curve.performance,
            "threshold": self.threshold,
            "probability": self.probability,
            "likely": bool(self.likely),
            "metrics": {k: v.to_dict() for k, v in self.metrics.items()},
            "curve": curve,
        }
        out.update(self.rests_on())
        if self.curve.model_probability is not None:
            curve["model_probability"] = self.curve.model_probability
        return jsonable(out)

    def rests_on(self):
        """What the probability rests on at the chosen threshold: ``{"model_probability": the score model's own
        p(C(τ)), "labels_only_weight": the weight of "the model is wrong above τ", "labeled_above": labeled items
        scored ≥ τ, "positives_above": positives among them}``; an empty dict for the labeled-only estimate; only
        the labeled items for a class of multiclass scores (:mod:`spe.multiclass.threshold`)."""
        c = self.curve
        i = int(np.searchsorted(c.threshold, self.threshold))
        if c.model_probability is None:
            return ({} if c.labeled_above is None else
                    {"labeled_above": int(c.labeled_above[i]), "positives_above": int(c.positives_above[i])})
        return {"model_probability": float(c.model_probability[i]),
                "labels_only_weight": float(c.labels_only_weight[i]),
                "labeled_above": int(c.labeled_above[i]), "positives_above": int(c.positives_above[i])}


def metrics_frame(intervals, level):
    """The tidy metrics table of :meth:`Evaluation.to_frame` from {metric name: Interval}: columns ``metric``,
    ``name`` (the registry's label), ``mean``, ``median``, ``lo``, ``hi``, ``level``."""
    import pandas as pd

    return pd.DataFrame([{"metric": name, "name": METRICS[name].label, "mean": i.mean, "median": i.median,
                          "lo": i.lo, "hi": i.hi, "level": level} for name, i in intervals.items()])


def labels_only_prior(diagnostics):
    """:meth:`Evaluation.labels_only_prior` from the diagnostics dict (also a saved one)."""
    reference = diagnostics.get("reference") or {}
    return LABELS_ONLY_PRIOR * min(1.0, max(0.0, 1.0 - float(reference.get("weight") or 0.0)))


def score_model_frame(diagnostics):
    """:meth:`Evaluation.score_model_table` from the diagnostics dict (also a saved one)."""
    import pandas as pd

    rows = diagnostics.get("score_models") or []
    frame = pd.DataFrame([{k: v for k, v in m.items() if np.isscalar(v) or v is None} for m in rows])
    if not len(frame):
        return frame
    first = [c for c in ("model", "weight", "log_evidence", "elpd_loo", "label_check_p") if c in frame]
    frame = frame[first + [c for c in frame if c not in first]]
    return frame.sort_values("weight", ascending=False, ignore_index=True)


def item_index(ids, n):
    """The index of an items table: ``ids`` (n,) or the positions."""
    import pandas as pd

    if ids is None:
        return pd.RangeIndex(n)
    index = pd.Index(ids)
    if len(index) != n:
        raise SpeInputError(f"ids has {len(index)} entries for {n} items", argument="ids")
    return index


def most_likely_threshold(curve, mean_f1):
    """Index of the threshold with the largest probability of meeting the requirement (paper §4.4); among ties
    (within 10⁻⁹), the one with the highest posterior mean F1.

    Parameters
    ----------
    curve : ThresholdProbability
        ``curve.probability`` (T,): p(requirement met) at each of T thresholds.
    mean_f1 : array, shape (T,)
        Posterior mean F1 at those thresholds (NaN counts as 0).

    Returns
    -------
    int
        An index into the T thresholds.
    """
    top = curve.probability >= curve.probability.max() - 1e-9
    return int(np.flatnonzero(top)[np.argmax(np.nan_to_num(mean_f1, nan=0.0)[top])])


def check_requirement(min_precision, min_recall):
    """SpeInputError, named by argument, unless both ends of a precision/recall requirement are in [0, 1]."""
    for name, v in (("min_precision", min_precision), ("min_recall", min_recall)):
        if not 0 <= v <= 1:
            raise SpeInputError(f"must be in [0, 1], got {plain(v)!r}", argument=name)


def requirement_met(values, min_precision, min_recall):
    """C(τ) per draw and threshold from the metrics at the thresholds (dicts with ``precision`` and ``recall``,
    (M, T) each; NaN, undefined, never meets): (M, T) booleans. SpeInputError for a requirement outside [0, 1]."""
    check_requirement(min_precision, min_recall)
    with np.errstate(invalid="ignore"):
        return (np.nan_to_num(values["precision"], nan=-1.0) >= min_precision - 1e-12) & (
            np.nan_to_num(values["recall"], nan=-1.0) >= min_recall - 1e-12)


def _evidence_text(log_evidence):
    """A model's log evidence for the summary, 8 wide: "—" when it was not computed (a mixture left out)."""
    ok = log_evidence is not None and np.isfinite(log_evidence)
    return f"{log_evidence:8.2f}" if ok else f"{'—':>8s}"


def metric_names():
    """(names of the metrics of the whole ranking, names of the metrics at a threshold), as registered in
    :mod:`spe.metrics`."""
    return ranking_metric_names(), threshold_metric_names()


def summarise_draws(values, weights, level):
    """An :class:`Interval` from weighted draws of a scalar: values (M,) and weights (M,) → weighted mean, median
    and the equal-tailed ``level`` credible interval; draws that are NaN (the metric undefined there) or weigh
    nothing are left out, and with none left every number is NaN."""
    v = np.asarray(values, dtype=float)
    ok = ~np.isnan(v) & (weights > 0)
    if not ok.any():
        nan = float("nan")
        return Interval(nan, nan, nan, nan, level)
    w = weights[ok] / weights[ok].sum()
    lo, med, hi = weighted_quantile(v[ok], w, [(1 - level) / 2, 0.5, (1 + level) / 2])
    return Interval(float(w @ v[ok]), float(med), float(lo), float(hi), level)


@dataclass
class Evaluation:
    """SPE's estimate of a classifier's performance on one data set.

    Build it with :func:`spe.evaluate`. All queries take an optional
    ``level`` (default: the one given to ``evaluate``) and return weighted
    posterior summaries of the *sample* performance (paper §3): performance
    on these N items, with the unknown labels drawn from the posterior.

    Attributes
    ----------
    scores : array, shape (N,) or (K,)
        All scores, score units (a read-only copy); from a pool, its K ascending values (see ``counts``).
    labeled_index : int array, shape (n,)
        Positions of the labeled items in ``scores``.
    labeled_value : int array, shape (n,)
    level : float
    model : FittedScoreModel
    performance : SamplePerformance
    families : dict
        ``{"negative": name, "positive": name}``.
    diagnostics : dict
    warnings : list of str
        Every warning issued while fitting, in order.
    counts : int array, shape (K,), or None
        From a :class:`spe.pool.ScorePool` (the Dask engine, or ``engine="binned"``): ``scores`` are then its
        K ascending values, each standing for this many items, N = ``counts.sum()`` (``diagnostics["pool"]``
        gives the largest distance of an item's score from its value), and the per-item queries
        (:meth:`item_probabilities`, :meth:`items_frame`) answer per value; :meth:`probability_at` gives
        p̂ at any score.
    ids : array, shape (N,), or None
        The items' ids when the scores carried them (a pandas Series or DataFrame indexed by id,
        :func:`spe.inputs.item_ids`), else None (the items are their positions 0..N-1). What
        :meth:`suggest`'s ``Suggestion.to_frame`` names the items by.

    Examples
    --------
    The examples of the queries below start from this ``ev``: 2,000
    simulated items, 30 of them labeled.

    >>> import numpy as np, spe
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(2000) < 0.2
    >>> s = np.where(y, rng.normal(2, 1, 2000), rng.normal(0, 1, 2000))
    >>> ev = spe.evaluate(s, {i: int(y[i]) for i in range(30)}, draws=300, rng=0)
    >>> ev.n_items, ev.n_labeled
    (2000, 30)
    """

    scores: np.ndarray
    labeled_index: np.ndarray
    labeled_value: np.ndarray
    level: float
    model: FittedScoreModel
    performance: SamplePerformance
    families: dict
    diagnostics: dict = field(default_factory=dict)
    warnings: list = field(default_factory=list)
    counts: np.ndarray | None = None
    ids: np.ndarray | None = None

    @property
    def n_items(self) -> int:
        """N."""
        return int(self.scores.size) if self.counts is None else int(self.counts.sum())

    @property
    def n_labeled(self) -> int:
        """n."""
        return int(self.labeled_index.size)

    @property
    def weights(self):
        """Normalised draw weights, shape (M,)."""
        return self.performance.weights

    def _level(self, level):
        return self.level if level is None else check_level(level)

    def performance_of(self, performance="sample") -> SamplePerformance:
        """The per-draw performance behind the queries: ``"sample"`` or ``"population"`` (paper §3).

        Examples
        --------
        >>> ev.performance_of("sample") is ev.performance
        True
        """
        if performance == "sample":
            return self.performance
        if performance == "population":
            return self.performance.population
        raise SpeInputError(f"must be one of {PERFORMANCE_KINDS}, got {performance!r}", argument="performance")

    def prevalence(self, level=None, performance="sample") -> Interval:
        """Fraction of positives among the N items, with its credible interval.

        ``performance="population"`` gives the prevalence from θ alone (the
        mean of p(y = 1 | s, θ) over the pool's scores) instead of the
        fraction of positives among these N items (paper §3).

        Examples
        --------
        >>> i = ev.prevalence()
        >>> bool(0 <= i.lo <= i.mean <= i.hi <= 1), i.level
        (True, 0.9)
        """
        return self.metric("prevalence", level=level, performance=performance)

    def average_precision(self, level=None, performance="sample") -> Interval:
        """Average precision (``sklearn.metrics.average_precision_score`` convention).

        Examples
        --------
        >>> i = ev.average_precision(level=0.5)
        >>> bool(i.lo <= i.median <= i.hi), i.level
        (True, 0.5)
        """
        return self.metric("average_precision", level=level, performance=performance)

    def roc_auc(self, level=None, performance="sample") -> Interval:
        """Area under the ROC curve.

        Examples
        --------
        >>> bool(0.5 < ev.roc_auc().mean <= 1)
        True
        """
        return self.metric("roc_auc", level=level, performance=performance)

    def equal_error_rate(self, level=None, performance="sample") -> Interval:
        """Equal error rate: the false positive rate where it equals the false negative rate.

        Read off the ROC polyline (linear between thresholds); see
        :func:`spe.metrics.curves.equal_error_rate`.

        Examples
        --------
        >>> bool(0 <= ev.equal_error_rate().mean < 0.5)
        True
        """
        return self.metric("equal_error_rate", level=level, performance=performance)

    def _band(self, grid, values, level):
        level = self._level(level)
        lo, med, hi = weighted_quantile(values, self.weights, [(1 - level) / 2, 0.5, (1 + level) / 2])
        return CurveBand(np.array(grid, dtype=float), med, lo, hi, level)

    def pr_curve(self, level=None, performance="sample") -> CurveBand:
        """Precision against recall: median and band on the recall grid (G,).

        Precision at recall r is that of the highest threshold whose recall
        is ≥ r (paper §3, Fig. 1C).

        Examples
        --------
        >>> pr = ev.pr_curve()
        >>> float(pr.x[0]), float(pr.x[-1]), bool((pr.lo <= pr.hi).all())
        (0.0, 1.0, True)
        >>> list(pr.to_frame("recall").columns)
        ['recall', 'median', 'lo', 'hi', 'level']
        """
        p = self.performance_of(performance)
        return self._band(p.recall_grid, p.precision_at_recall, level)

    def roc_curve(self, level=None, performance="sample") -> CurveBand:
        """True positive rate against false positive rate, on the FPR grid.

        Examples
        --------
        >>> roc = ev.roc_curve()
        >>> bool((roc.lo <= roc.median).all() and (roc.median <= roc.hi).all())
        True
        """
        p = self.performance_of(performance)
        return self._band(p.fpr_grid, p.tpr_at_fpr, level)

    def _grid_metrics(self, performance, names):
        """The per-draw performance and the metrics ``names`` at its T thresholds (dict of (M, T))."""
        p = self.performance_of(performance)
        return p, threshold_metric_values(p.true_positives, p.n_predicted, p.n_positive, p.n_items, names)

    def threshold_curve(self, metric="precision", level=None, performance="sample") -> CurveBand:
        """A metric as a function of the threshold, with its band (paper Fig. 1B).

        Parameters
        ----------
        metric : str
            A metric at a threshold (``metric_names()[1]``: "precision",
            "recall", …).
        level : float, optional
        performance : {"sample", "population"}

        Returns
        -------
        CurveBand
            ``x`` = the T thresholds (ascending, score units: all distinct
            scores, or T = 1000 following the score quantiles when there
            are more); median and band of the metric at each.

        Raises
        ------
        ValueError
            Unknown metric or performance kind.

        Examples
        --------
        >>> c = ev.threshold_curve("f1")
        >>> c.x.shape == c.lo.shape
        True
        """
        check_choice("metric", metric, threshold_metric_names())
        p, values = self._grid_metrics(performance, (metric,))
        return self._band(p.thresholds, values[metric], level)

    def precision_curve(self, level=None, performance="sample") -> CurveBand:
        """Precision against the threshold (T,), with its band; see :meth:`threshold_curve`.

        Examples
        --------
        >>> c = ev.precision_curve()
        >>> c.x.shape == c.median.shape
        True
        """
        return self.threshold_curve("precision", level, performance)

    def recall_curve(self, level=None, performance="sample") -> CurveBand:
        """Recall against the threshold (T,), with its band; see :meth:`threshold_curve`.

        Examples
        --------
        >>> c = ev.recall_curve()
        >>> bool(c.median[0] >= c.median[-1])  # recall falls as the threshold rises
        True
        """
        return self.threshold_curve("recall", level, performance)

    def _metric_draws_at(self, thresholds, performance):
        """Per-draw metrics at arbitrary thresholds (Q,): dict of (M, Q) arrays, exact (same label draws)."""
        p = self.performance_of(performance)
        tau = np.atleast_1d(np.asarray(thresholds, dtype=float))
        if not np.all(np.isfinite(tau)):
            raise SpeInputError(f"must be finite numbers in score units, got {plain(thresholds)!r}",
                                argument="threshold")
        tp, n_pred = replay_true_positives(p, tau)
        return threshold_metric_values(tp, n_pred, p.n_positive, p.n_items)

    def metrics_at(self, threshold, level=None, performance="sample") -> dict:
        """Every metric at a threshold (``metric_names()[1]``) at one threshold, with intervals.

        Parameters
        ----------
        threshold : float
            Score units; items scored ≥ it are predicted positive.
        level : float, optional
        performance : {"sample", "population"}
            Sample: counts on these N items with the unknown labels drawn
            (the same draws as the curves); population: expected counts from
            θ alone.

        Returns
        -------
        dict of str → Interval
            precision, recall, F1, accuracy, false positive rate (rates in
            [0, 1]) and the confusion counts (items).

        Examples
        --------
        >>> m = ev.metrics_at(1.0)
        >>> sorted(m)[:3]
        ['accuracy', 'f1', 'false_negatives']
        """
        level = self._level(level)
        values = self._metric_draws_at([float(threshold)], performance)
        return {k: summarise_draws(v[:, 0], self.weights, level) for k, v in values.items()}

    def metric(self, name, threshold=None, level=None, performance="sample") -> Interval:
        """One metric by name, with its interval.

        Parameters
        ----------
        name : str
            A registered metric (:func:`metric_names`): of the whole ranking
            (no threshold) or at a threshold (``threshold`` required).
        threshold : float, optional
            Score units.
        level : float, optional
        performance : {"sample", "population"}

        Raises
        ------
        ValueError
            Unknown name; a threshold metric without a threshold.

        Examples
        --------
        >>> ev.metric("max_f1").level
        0.9
        >>> bool(0 <= ev.metric("precision", threshold=1.0).mean <= 1)
        True
        """
        return summarise_draws(self.metric_draws(name, threshold, performance), self.weights, self._level(level))

    def metric_draws(self, name, threshold=None, performance="sample"):
        """One metric's value under each posterior draw: what :meth:`metric` summarises, with the draws' weights
        :attr:`weights` (for probabilities of events, e.g. P(AP < 0.8) = ``weights @ (draws < 0.8)``).

        Parameters
        ----------
        name, threshold, performance
            As :meth:`metric`.

        Returns
        -------
        array, shape (M,)
            NaN where the metric is undefined under a draw (e.g. precision with nothing predicted positive).

        Raises
        ------
        SpeInputError
            Unknown name; a threshold metric without a threshold.

        Examples
        --------
        >>> d = ev.metric_draws("average_precision")
        >>> d.shape == ev.weights.shape
        True
        """
        if name not in METRICS:
            raise SpeInputError(f"unknown metric {name!r}; known: {tuple(METRICS)}", argument="name")
        if not METRICS[name].at_threshold:
            return np.asarray(self.performance_of(performance).ranking_metrics[name], dtype=float)
        if threshold is None:
            raise SpeInputError(f"metric {name!r} needs a threshold (score units)", argument="threshold")
        return self._metric_draws_at([float(threshold)], performance)[name][:, 0]

    def metric_draws_at(self, threshold, performance="sample") -> dict:
        """Every metric at one threshold (:meth:`metrics_at`'s) under each posterior draw, from one recount of the
        label draws: what :meth:`metric_draws` gives one metric at a time.

        Parameters
        ----------
        threshold : float
            Score units; items scored ≥ it are predicted positive.
        performance : {"sample", "population"}

        Returns
        -------
        dict of str → array (M,)
            precision, recall, F1, accuracy, false positive rate and the confusion counts; NaN where undefined.

        Raises
        ------
        SpeInputError
            A threshold that is not a finite number.

        Examples
        --------
        >>> d = ev.metric_draws_at(1.0)
        >>> bool(np.allclose(d["precision"], ev.metric_draws("precision", 1.0), equal_nan=True))
        True
        """
        return {k: v[:, 0] for k, v in self._metric_draws_at([float(threshold)], performance).items()}

    def threshold_probability(self, min_precision=0.0, min_recall=0.0, performance="sample") -> ThresholdProbability:
        """p(C(τ)) for every threshold τ: the probability that τ meets a precision/recall requirement.

        C(τ) = [precision(τ) ≥ ``min_precision`` ∧ recall(τ) ≥ ``min_recall``]
        (Welinder et al. 2013, §4.4, Fig. 4). Under the score model it is
        the weighted fraction of posterior draws in which C(τ) holds
        (``model_probability``); the probability stated also weighs the
        possibility that the model is wrong above τ, where only the labeled
        items above τ then say what the precision is
        (:mod:`spe.performance.requirement`): a statement that rests on the
        model's extrapolation (few or no labeled items above τ) is never
        confident. A threshold with nothing predicted positive has
        undefined precision and never meets a precision requirement > 0.

        Parameters
        ----------
        min_precision, min_recall : float in [0, 1]
        performance : {"sample", "population"}

        Returns
        -------
        ThresholdProbability
            Over the T thresholds of :meth:`threshold_curve`.

        Raises
        ------
        SpeInputError
            A requirement outside [0, 1].

        Examples
        --------
        >>> c = ev.threshold_probability(min_precision=0.8, min_recall=0.5)
        >>> bool(((c.probability >= 0) & (c.probability <= 1)).all())
        True
        """
        check, _ = self._requirement_check(min_precision, min_recall, performance)
        return self._threshold_probability(check, min_precision, min_recall, performance)

    def requirement_draws(self, min_precision=0.0, min_recall=0.0, performance="sample"):
        """The probability that each threshold meets a precision/recall requirement, per posterior draw.

        Returns
        -------
        thresholds : array, shape (T,)
            As :meth:`threshold_curve`'s (score units, ascending).
        meets : array, shape (M, T)
            Per draw, in [0, 1]: C(τ) under the draw's labels, mixed with its
            probability if the model is wrong above τ (see
            :meth:`threshold_probability`); its weighted mean over draws is p(C(τ)).

        Raises
        ------
        SpeInputError
            A requirement outside [0, 1].

        Examples
        --------
        >>> thresholds, met = ev.requirement_draws(0.8, 0.5)
        >>> met.shape == (ev.weights.size, thresholds.size)
        True
        """
        check, _ = self._requirement_check(min_precision, min_recall, performance)
        return check.thresholds, check.meets

    def requirement_check(self, min_precision=0.0, min_recall=0.0, performance="sample") -> RequirementCheck:
        """Everything behind :meth:`threshold_probability` at the T thresholds of :meth:`threshold_curve`: per
        draw, the score model's C(τ) and the probability stated; the weight of "the model is wrong above τ"; the
        labeled items above τ (:class:`spe.performance.requirement.RequirementCheck`).

        Parameters
        ----------
        min_precision, min_recall : float in [0, 1]
        performance : {"sample", "population"}

        Returns
        -------
        RequirementCheck
            ``meets`` and ``model_meets`` (M, T); ``model_probability``, ``labels_only_weight``,
            ``labeled_above``, ``positives_above`` (T,); ``thresholds`` (T,) in score units.

        Raises
        ------
        SpeInputError
            A requirement outside [0, 1].

        Examples
        --------
        >>> check = ev.requirement_check(0.8, 0.5)
        >>> check.meets.shape == check.model_meets.shape == (ev.weights.size, check.thresholds.size)
        True
        """
        return self._requirement_check(min_precision, min_recall, performance)[0]

    def _requirement_check(self, min_precision, min_recall, performance):
        """:meth:`requirement_check`, and the grid's precision, recall and F1 (dict of (M, T))."""
        p, values = self._grid_metrics(performance, ("precision", "recall", "f1"))
        model_meets = requirement_met(values, min_precision, min_recall)
        prob = p.replay.item_probability_draws(self.scores, self.labeled_index)  # (M, n)
        return requirement_check(p, self.scores[self.labeled_index], self.labeled_value, prob, min_precision,
                                 min_recall, model_meets, self.labels_only_prior()), values

    def labels_only_prior(self) -> float:
        """Prior probability that the score model is wrong above a threshold (:meth:`threshold_probability`):
        :data:`~spe.performance.requirement.LABELS_ONLY_PRIOR`, times the weight of a new map where a labeled
        reference set was given (where its map applies, drifted or not, its labels checked the model across the
        scores: ``1 − diagnostics["reference"]["weight"]``).

        Examples
        --------
        >>> ev.labels_only_prior()
        0.5
        """
        return labels_only_prior(self.diagnostics)

    def _threshold_probability(self, check, min_precision, min_recall, performance):
        prob = self.weights @ check.meets / self.weights.sum()
        return ThresholdProbability(check.thresholds.copy(), np.clip(prob, 0.0, 1.0), float(min_precision),
                                    float(min_recall), performance, model_probability=check.model_probability,
                                    labels_only_weight=check.labels_only_weight, labeled_above=check.labeled_above,
                                    positives_above=check.positives_above)

    def best_threshold(self, min_precision=0.0, min_recall=0.0, level=None, performance="sample") -> ThresholdChoice:
        """The threshold that maximises p(C(τ)) (paper §4.4; :meth:`threshold_probability`), and the metrics there.

        Among thresholds whose probability is within 10⁻⁹ of the largest,
        the one with the highest posterior-mean F1 is chosen (a precision
        requirement alone is met with probability 1 by every high
        threshold; F1 picks the one that keeps the most recall).

        Returns
        -------
        ThresholdChoice
            ``likely`` is False when even the best threshold meets the
            requirement with probability < 0.5.

        Examples
        --------
        >>> choice = ev.best_threshold(min_precision=0.8, min_recall=0.5)
        >>> bool(0 <= choice.probability <= 1), sorted(choice.metrics)[:2]
        (True, ['accuracy', 'f1'])
        """
        check, values = self._requirement_check(min_precision, min_recall, performance)
        curve = self._threshold_probability(check, min_precision, min_recall, performance)
        best = most_likely_threshold(curve, self.weights @ np.nan_to_num(values["f1"], nan=0.0) / self.weights.sum())
        tau = float(curve.threshold[best])
        return ThresholdChoice(tau, float(curve.probability[best]), self.metrics_at(tau, level, performance),
                               bool(curve.probability[best] >= 0.5), curve, check.meets[:, best].copy(),
                               check.model_meets[:, best].copy())

    def suggest(self, k=10, target="pr-band", strategy="information", rng=None):
        """The k items to label next so that their labels settle ``target`` (:func:`spe.active.suggest`: the
        targets, strategies, the expected reduction of the posterior SD, the errors raised).

        Returns
        -------
        spe.active.Suggestion
            ``items`` (positions 0..N-1, never labeled ones), best first, with ``expected_gain``.

        Raises
        ------
        SpeInputError
            An unknown target or strategy, a comparison target, k not an integer in [1, unlabeled items].

        Examples
        --------
        >>> import numpy as np, spe
        >>> rng = np.random.default_rng(0)
        >>> y = rng.random(2000) < 0.2
        >>> s = np.where(y, rng.normal(2, 1, 2000), rng.normal(0, 1, 2000))
        >>> ev = spe.evaluate(s, {int(i): int(y[i]) for i in range(20)}, draws=300, rng=0)
        >>> next_items = ev.suggest(5, target="ap", rng=0).items
        >>> len(next_items), bool(np.all(next_items >= 20))
        (5, True)
        """
        from .active import suggest  # the layer above (it reads this estimate's public queries)

        return suggest(self, k, target=target, strategy=strategy, rng=rng)

    def plan_labels(self, width=None, probability=None, target="ap", strategy="information", max_labels=None,
                    futures=200, rng=None):
        """About how many more labels until ``target`` is settled: its credible interval narrower than
        ``width``, or (``threshold:P,R``) its decision reaching ``probability`` either way, over simulated
        futures of the labels (:func:`spe.active.plan`: the simulation, its limits, the errors raised).

        Returns
        -------
        spe.active.LabelPlan
            ``labels_needed()`` (10%, 50%, 90% over the futures), ``summary()``, ``progress`` per checkpoint.

        Raises
        ------
        SpeInputError
            Neither or both goals, a goal that does not fit the target, an unknown target or strategy,
            max_labels beyond the unlabeled items.

        Examples
        --------
        >>> import numpy as np, spe
        >>> rng = np.random.default_rng(0)
        >>> y = rng.random(2000) < 0.2
        >>> s = np.where(y, rng.normal(2, 1, 2000), rng.normal(0, 1, 2000))
        >>> ev = spe.evaluate(s, {int(i): int(y[i]) for i in range(20)}, draws=300, rng=0)
        >>> plan = ev.plan_labels(width=0.1, target="ap", max_labels=100, futures=50, rng=0)
        >>> q10, median, q90 = plan.labels_needed()
        >>> bool(q10 <= median <= q90)
        True
        """
        from .active import plan  # the layer above (it reads this estimate's public queries)

        return plan(self, width=width, probability=probability, target=target, strategy=strategy,
                    max_labels=max_labels, futures=futures, rng=rng)

    def mixture_model(self):
        """The fitted SPE mixture among the score models (a :class:`FittedScoreModel` whose ``mixture_fit`` holds
        its families, score space, MAP and histogram check), or None when it was not fitted.

        Examples
        --------
        >>> ev.mixture_model().name.startswith("mixture(")
        True
        """
        if self.model.mixture_fit is not None:
            return self.model
        models = self.model.components.models if self.model.components is not None else ()
        return next((m for m in models if m.mixture_fit is not None), None)

    def mixture_weight(self) -> float:
        """The posterior probability, in [0, 1], the averaged model gave the SPE mixture (:meth:`mixture_model`):
        1 when it is the only model, 0 when it was not fitted.

        Examples
        --------
        >>> bool(0 <= ev.mixture_weight() <= 1)
        True
        """
        fit = self.mixture_model()
        if fit is None:
            return 0.0
        if fit is self.model:
            return 1.0
        c = self.model.components
        return next(float(w) for m, w in zip(c.models, c.weights) if m is fit)

    def class_densities(self, level=None, points=400) -> ClassDensities:
        """The fitted class-conditional densities, scaled by the class fractions, with bands (paper Fig. 1A).

        For each posterior draw θ_m of the SPE mixture (its own importance
        draws and weights, eqs. 8–10) the densities (1 − π) p₀(s | θ₀) and
        π p₁(s | θ₁) of eq. 2 are evaluated on a grid over the scores and
        summarised pointwise (weighted median and equal-tailed band).
        Cost O(M · G).

        Parameters
        ----------
        level : float, optional
            Credible level of the bands (default: the evaluation's).
        points : int
            G, grid points (≥ 2).

        Returns
        -------
        ClassDensities

        Raises
        ------
        ValueError
            The evaluation has no SPE mixture among its score models, or
            ``points`` < 2.

        Examples
        --------
        >>> d = ev.class_densities()
        >>> d.axis, d.score.shape == d.total.median.shape
        ('score', True)
        """
        level = self._level(level)
        if int(points) != points or points < 2:
            raise SpeInputError(f"must be an integer ≥ 2, got {plain(points)!r}", argument="points")
        fit = self.mixture_model()
        if fit is None:
            raise ValueError("this evaluation has no SPE mixture among its score models")
        mix, space = fit.mixture_fit.mixture, fit.mixture_fit.space
        x_obs = space.to_model(self.scores)
        x = np.linspace(float(x_obs.min()), float(x_obs.max()), int(points))
        pi, th0, th1, _ = mix.unpack(fit.draws)
        jac = 1.0 / (space.hi - space.lo)  # dx/dz: densities per unit of z (the score, or its logit)
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            neg = (1 - pi)[:, None] * np.exp(mix.negative.logpdf(th0, x)) * jac
            pos = pi[:, None] * np.exp(mix.positive.logpdf(th1, x)) * jac
        neg, pos = np.nan_to_num(neg), np.nan_to_num(pos)
        w = np.asarray(fit.weights, dtype=float)
        q = [(1 - level) / 2, 0.5, (1 + level) / 2]
        score = space.to_scores(x)

        def band(values):
            lo, med, hi = weighted_quantile(values, w, q)
            return CurveBand(score, med, lo, hi, level)

        return ClassDensities(
            score=score, z=space.lo + x * (space.hi - space.lo),
            axis="logit(score)" if space.kind == "logit" else "score",
            negative=band(neg), positive=band(pos), total=band(neg + pos),
            prevalence=summarise_draws(pi, w, level), weight=self.mixture_weight(),
            families={"negative": mix.negative.name, "positive": mix.positive.name},
            histogram_check=fit.diagnostics.get("histogram_check"))

    def to_inference_data(self, rng=0):
        """The evaluation as an ``arviz.InferenceData``, for ArviZ's summaries, plots and LOO, for every score
        model (:mod:`spe.idata`).

        Groups:

        * ``posterior``: the whole-ranking metrics per draw (``prevalence``,
          ``average_precision``, ``roc_auc``, ``equal_error_rate``,
          ``max_f1``; the sample performance, in [0, 1]), dims (chain,
          draw). The M weighted draws go in as about ESS = 1 / Σ w² draws
          (``diagnostics["ess"]`` for importance sampling; M for equal
          weights), resampled systematically by their weights (duplicates
          are expected), in a random order, dealt into 4 chains: so that
          ArviZ's ESS, MCSE and R-hat of them mean what they say. When the
          SPE mixture is the only score model, its parameters join them on
          the same draws as ``mixture.prevalence``, ``mixture.negative.loc``,
          … (natural units; model-space scores), and NUTS draws keep their
          chains, each cut to the same number of draws in the identified
          region.
        * ``log_likelihood`` (with labels): ``label`` (chain, draw, labeled),
          log p(y_i | s_i, draw) of the n labeled items, so that
          ``arviz.loo`` works.
        * ``mixture_posterior`` (the mixture averaged with other models):
          its own parameters, resampled by its own weights in the same way.
        * ``importance_sampling`` (the mixture by importance sampling): its
          raw draws (draw,) and their PSIS-smoothed normalised ``weight``;
          attrs ``pareto_k``, ``ess``, ``proposal``.
        * ``sample_stats`` (NUTS only): PyMC's (step size, tree depth,
          divergences, energy) of the same draws.
        * ``observed_data``: ``score`` (N,), score units, and ``label`` (n,);
          ``constant_data``: ``labeled_index`` (n,).

        attrs of ``posterior``: the score model, the inference method, the
        families, the level and the mixture's weight among the models.

        Parameters
        ----------
        rng : int, numpy.random.Generator or None, default 0
            The resampling of the draws and their random order (the same ``rng`` gives the same object).

        Returns
        -------
        arviz.InferenceData

        Raises
        ------
        ModuleNotFoundError
            ArviZ is not installed: it is the optional extra
            ``pip install 'spe[arviz]'``.

        Examples
        --------
        >>> import arviz as az
        >>> idata = ev.to_inference_data()
        >>> list(az.summary(idata, var_names=["average_precision"], kind="stats").index)
        ['average_precision']
        """
        from .idata import to_inference_data

        return to_inference_data(self, rng)

    def labeled_points(self):
        """Where the labeled items sit on the PR curve.

        Returns
        -------
        dict of arrays, shape (n,) each
            ``score``, ``label``, and the weighted median ``recall`` and
            ``precision`` at the item's score taken as the threshold.

        Examples
        --------
        >>> pts = ev.labeled_points()
        >>> pts["recall"].shape
        (30,)
        """
        p = self.performance
        if self.n_labeled == 0:
            empty = np.zeros(0)
            return {"score": empty, "label": empty.astype(int), "recall": empty, "precision": empty}
        return {
            "score": self.scores[self.labeled_index],
            "label": self.labeled_value.copy(),
            "recall": weighted_quantile(p.labeled_recall, self.weights, 0.5),
            "precision": weighted_quantile(p.labeled_precision, self.weights, 0.5),
        }

    def item_probabilities(self):
        """Posterior probability that each item is positive, p̂(y_i = 1 | S, Y_L) (paper §4.4).

        The weighted average over draws of p(y = 1 | s_i, θ_m); labeled
        items keep their label (0 or 1). When the label draws were binned
        (``diagnostics["score_bins"]``), p̂ is computed at each bin's mean
        score and at the lowest and highest scores, and interpolated
        linearly in the score between them (O(M · B) instead of O(M · N)).

        Returns
        -------
        array, shape (N,)
            Probabilities in [0, 1], in the order of ``scores`` (from a pool: one per value, (K,)).

        Examples
        --------
        >>> p = ev.item_probabilities()
        >>> p.shape, bool(((p >= 0) & (p <= 1)).all())
        ((2000,), True)
        """
        out = self.performance.replay.item_probabilities(self.scores, self.weights)
        out[self.labeled_index] = self.labeled_value
        return out

    def probability_at(self, scores):
        """p̂(y = 1 | s, S, Y_L) of unlabeled items with these scores: (B,) score units → (B,) probabilities.

        What :meth:`item_probabilities` gives an unlabeled item (the same interpolation when the label draws
        were binned), at any score: how the Dask engine writes ``--items`` shard by shard. Scores beyond the
        pool's range take the probability at its end.

        Examples
        --------
        >>> p = ev.probability_at([-1.0, 0.0, 3.0])
        >>> bool(p[0] <= p[1] <= p[2])
        True
        """
        at, grid = self.probability_grid()
        return np.interp(np.atleast_1d(np.asarray(scores, dtype=float)), at, grid)

    def probability_grid(self):
        """Where :meth:`probability_at` interpolates: the score groups' scores and the two end scores (G,),
        ascending, score units, and p̂(y = 1 | s) there (G,), probabilities. G ≤ the label draws' groups + 2.

        Examples
        --------
        >>> at, p = ev.probability_grid()
        >>> at.shape == p.shape, bool(np.all(np.diff(at) > 0))
        (True, True)
        """
        return self.performance.replay.probability_grid(self.scores.min(), self.scores.max(), self.weights)

    def to_dict(self, level=None, performance="sample", items=False) -> dict:
        """JSON-ready dict; the CLI's ``--json`` writes exactly this (DESIGN.md contract).

        The contract's keys, plus ``performance`` ("sample" or
        "population": which the estimates are), every other metric of the
        ranking registered in :mod:`spe.metrics` (``equal_error_rate``, …) and
        ``threshold_curve`` (precision and recall against the T thresholds,
        score units, with bands). With ``items=True`` also ``items``
        (:meth:`items_dict`: every item's score, label and probability; N
        numbers each), so that :func:`spe.load` answers
        :meth:`item_probabilities` and :meth:`items_frame`.

        Examples
        --------
        >>> d = ev.to_dict()
        >>> d["n_items"], d["n_labeled"], sorted(d["pr_curve"])
        (2000, 30, ['precision', 'precision_hi', 'precision_lo', 'recall'])
        """
        level = self._level(level)
        pr = self.pr_curve(level, performance)
        roc = self.roc_curve(level, performance)
        prec = self.precision_curve(level, performance)
        rec = self.recall_curve(level, performance)

        def lst(a):
            return jsonable(np.asarray(a, dtype=float))

        def est(i):
            return jsonable(i.to_dict())

        return {
            "n_items": self.n_items,
            "n_labeled": self.n_labeled,
            "n_labeled_positive": int(np.sum(self.labeled_value == 1)),
            "level": level,
            "performance": performance,
            "families": dict(self.families),
            **{name: est(self.metric(name, level=level, performance=performance)) for name in ranking_metric_names()},
            "pr_curve": {
                "recall": lst(pr.x),
                "precision": lst(pr.median),
                "precision_lo": lst(pr.lo),
                "precision_hi": lst(pr.hi),
            },
            "roc_curve": {"fpr": lst(roc.x), "tpr": lst(roc.median), "tpr_lo": lst(roc.lo), "tpr_hi": lst(roc.hi)},
            "threshold_curve": {
                "threshold": lst(prec.x),
                "precision": lst(prec.median), "precision_lo": lst(prec.lo), "precision_hi": lst(prec.hi),
                "recall": lst(rec.median), "recall_lo": lst(rec.lo), "recall_hi": lst(rec.hi),
            },
            "diagnostics": jsonable(self.diagnostics),
            "warnings": list(self.warnings),
            **({"items": self.items_dict()} if items else {}),
        }

    def items_dict(self) -> dict:
        """The items as JSON-ready lists, in the order of ``scores``, N each (a pool's K values): ``score``
        (score units), ``label`` (0 or 1; None when unlabeled), ``probability`` (:meth:`item_probabilities`),
        ``id`` when the scores carried ids (:attr:`ids`) and, from a pool, ``count``. What ``save(path, items=True)`` adds to the JSON as ``items``.

        Examples
        --------
        >>> d = ev.items_dict()
        >>> sorted(d), len(d["score"]), d["label"].count(None)
        (['label', 'probability', 'score'], 2000, 1970)
        """
        label = [None] * self.scores.size
        for i, v in zip(self.labeled_index.tolist(), self.labeled_value.tolist()):
            label[i] = int(v)
        out = {"score": jsonable(np.asarray(self.scores, dtype=float)), "label": label,
               "probability": jsonable(self.item_probabilities())}
        if self.counts is not None:
            out["count"] = jsonable(np.asarray(self.counts))
        if self.ids is not None:
            out["id"] = jsonable(np.asarray(self.ids).tolist())
        return out

    def to_frame(self, level=None, performance="sample"):
        """The whole-ranking metrics as a tidy DataFrame, one row per metric (prevalence, average precision,
        ROC AUC, equal error rate, max F1).

        Columns: ``metric`` (the registry name, as :meth:`metric` takes it), ``name`` (as the summary prints
        it), ``mean``, ``median``, ``lo``, ``hi`` (the equal-tailed credible interval; all in [0, 1]) and
        ``level``. Raises ``SpeInputError`` on a level outside (0, 1) or an unknown ``performance``.

        Examples
        --------
        >>> ev.to_frame()["metric"].tolist()
        ['prevalence', 'average_precision', 'roc_auc', 'equal_error_rate', 'max_f1']
        """
        level = self._level(level)
        return metrics_frame({name: self.metric(name, level=level, performance=performance)
                              for name in ranking_metric_names()}, level)

    def score_model_table(self):
        """The score models averaged (``diagnostics["score_models"]``) as a DataFrame, one row per model, by
        weight: ``model``, ``weight`` (its share of the posterior draws), ``log_evidence`` (nats), and, where
        computed, ``elpd_loo``, ``label_check_p``, ``excluded``; empty when no model was averaged.

        Examples
        --------
        >>> t = ev.score_model_table()
        >>> list(t.columns[:3]), bool(abs(t["weight"].sum() - 1) < 1e-9)
        (['model', 'weight', 'log_evidence'], True)
        """
        return score_model_frame(self.diagnostics)

    def items_frame(self, ids=None):
        """Every item as a DataFrame, N rows (a pool's K values) in the order of ``scores``: ``score`` (score
        units), ``label`` (the known label, 0 or 1; <NA> when unlabeled) and ``probability``
        (:meth:`item_probabilities`), indexed by ``ids`` (N,) when given, else by the scores' own ids
        (:attr:`ids`, a Series' index) when they carried some, else by position. Raises ``SpeInputError`` when ``ids`` does not have N entries. From a pool (:attr:`counts`):
        one row per value, with its ``count`` of items (and ``ids`` must have K entries).

        Examples
        --------
        >>> f = ev.items_frame()
        >>> list(f.columns), int(f["label"].notna().sum())
        (['score', 'label', 'probability'], 30)
        """
        import pandas as pd

        rows = self.scores.size  # N, or a pool's K values
        label = pd.array([pd.NA] * rows, dtype="Int64")
        label[self.labeled_index] = self.labeled_value
        index = item_index(self.ids if ids is None else ids, rows)
        columns = {"score": self.scores, "label": label, "probability": self.item_probabilities()}
        if self.counts is not None:
            columns["count"] = self.counts
        return pd.DataFrame(columns, index=index)

    def save(self, path, level=None, performance="sample", items=False):
        """Write :meth:`to_dict` to ``path`` as JSON (what ``spe estimate --json`` writes), whole or not at all;
        :func:`spe.load` reads it back as a :class:`spe.saved.SavedEvaluation` (the summaries, curves and
        diagnostics at ``level``, not the posterior draws: pickle the Evaluation to keep those, for the queries
        that need them). ``items=True`` adds every item's score, label and probability (:meth:`items_dict`,
        3 numbers per item), so that the loaded result answers :meth:`item_probabilities` and
        :meth:`items_frame` too. Returns ``path``; raises ``SpeInputError`` when it cannot be written.

        Examples
        --------
        >>> import os, tempfile
        >>> path = ev.save(os.path.join(tempfile.mkdtemp(), "ev.json"))
        >>> spe.load(path).average_precision() == ev.average_precision()
        True
        """
        return save_json(self.to_dict(level, performance, items), path)

    def _counts(self):
        n_pos = int(np.sum(self.labeled_value == 1))
        return (f"spe.Evaluation: {self.n_items} items, {self.n_labeled} labeled ({n_pos} positive), "
                f"{self.weights.size} posterior draws")

    def __repr__(self):
        return result_repr(self._counts(), self)

    def _repr_html_(self):
        """A notebook's view: the counts, the metrics' table (:meth:`to_frame`) and how many warnings."""
        return result_html(self._counts(), self)

    def summary(self, level=None, performance="sample", warnings=True) -> str:
        """A short human-readable report (what ``spe estimate`` prints; ``warnings=False`` leaves out the
        warnings, which the command prints on standard error).

        Examples
        --------
        >>> print(ev.summary())  # doctest: +ELLIPSIS
        spe: 2000 items, 30 labeled (...)
        ...
        """
        level = self._level(level)
        d = self.diagnostics
        n_pos = int(np.sum(self.labeled_value == 1))
        pr = self.pr_curve(level, performance)
        pct = f"{100 * level:g}%"
        lines = [
            f"spe: {self.n_items} items, {self.n_labeled} labeled ({n_pos} positive, "
            f"{self.n_labeled - n_pos} negative)",
            *score_type_lines(d.get("score_type")),
            *self._pool_lines(),
            *self._mixture_lines(),
        ]
        if d.get("label_selection") == "adaptive":
            lines.append("labels chosen adaptively (from the scores and earlier labels, e.g. spe suggest): the "
                         "estimate stands as it is; the labeled items alone are not a random sample")
        models = d.get("score_models") or []
        if len(models) > 1:
            lines.append("score models, weighted by their evidence p("
                         + ("reference labels, " if d.get("reference") else "") + "labels | scores):")
            for m in sorted(models, key=lambda m: -m["weight"]):
                check = f"  label check p {m['label_check_p']:.2f}" if m.get("label_check_p") is not None else ""
                if m.get("excluded"):
                    check += ("  (histogram check failed: left out)" if m.get("left_out_by") == "histogram"
                              else " (failed: left out)")
                # without labels there is nothing to leave out: no LOO column
                loo = f"  LOO {m['elpd_loo']:8.2f}" if m.get("elpd_loo") is not None and self.n_labeled else ""
                lines.append(f"  {m['model']:<36s} weight {m['weight']:.3f}  log evidence "
                             f"{_evidence_text(m['log_evidence'])}{loo}{check}")
        elif models:
            lines.append(f"score model: {models[0]['model']}")
        ref = d.get("reference")
        if ref:
            lines.append(f"reference set: {ref['n']} items, {ref['positives']} positive (prevalence "
                         f"{ref['prevalence']:.3f}); its calibration map says this pool's prevalence is "
                         f"{ref['pool_prevalence']:.3f} (prior shift {ref['shift']:+.2f} log-odds); weight "
                         f"{ref['weight']:.3f}")
            if "assumption" in ref:
                lines.append(f"  assumed: {ref['assumption']}; checked: {ref['check']}")
        lc = d.get("label_check")
        if lc:
            verdict = "as probable as" if lc["passed"] else "LESS probable than"
            lines.append(f"label check: the labeled items are {verdict} labels the model generates itself "
                         f"(posterior-predictive p = {lc['p_value']:.3f})")
        lines += [
            f"{performance} performance"
            + (" (these N items; unknown labels drawn)" if performance == "sample" else " (from θ alone)")
            + f", posterior mean [{pct} credible interval]:",
            *(f"  {METRICS[name].label:<19s}{self.metric(name, level=level, performance=performance)}"
              for name in ranking_metric_names()),
            f"precision at recall (median [{pct} band]):",
        ]
        for r in (0.1, 0.25, 0.5, 0.75, 0.9):
            g = int(np.argmin(np.abs(pr.x - r)))
            lines.append(f"  recall {pr.x[g]:.2f}: {pr.median[g]:.3f} [{pr.lo[g]:.3f}, {pr.hi[g]:.3f}]")
        lines.append(self._sampler_line())
        if d.get("seed") is not None:
            lines.append(f"seed: {d['seed']} (--seed {d['seed']}, or rng={d['seed']} in Python, repeats this run)")
        for w in self.warnings if warnings else ():
            lines.append(f"warning: {w}")
        for note in d.get("notes", []):
            lines.append(f"note: {note}")
        return "\n".join(lines)

    def _pool_lines(self):
        """The binned and Dask engines: how the scores were counted (``diagnostics["pool"]``)."""
        pool = self.diagnostics.get("pool")
        if not pool:
            return []
        return [f"scores counted into {pool['values']:,} values ({pool['cells']:,} score cells): every unlabeled "
                f"item's score is within {pool['max_error']:.3g} of its value"]

    def _mixture_lines(self):
        """The summary's lines on the SPE mixture: its families and its histogram check, or why it is absent."""
        d = self.diagnostics
        if self.families.get("negative") is None:
            why = ("all scores are equal" if d.get("inference") == "exact" else
                   d.get("mixture_not_fitted", "no family pair fits these scores"))
            return [f"SPE mixture: not fitted ({why})"]
        lines = [f"SPE mixture: {self.families['negative']} (negative) and {self.families['positive']} (positive)"
                 + (f", chosen from {d['family_pairs_tried']} family pairs by BIC"
                    if d.get("family_pairs_tried", 1) > 1 else "")]
        hc = d.get("histogram_check")
        if hc and hc["passed"]:
            lines.append(f"  histogram check: the mixture reproduces the score histogram "
                         f"(posterior-predictive p = {hc['p_value']:.3f}, {hc['bins']} bins)")
        elif hc and hc.get("at_map"):
            lines.append(
                f"  histogram check: FAILED at the MAP (KL {hc['discrepancy']:.3f} nats/item against "
                f"{hc['expected_discrepancy']:.3f} expected, {hc['excess_z']:.0f} standard deviations above it): "
                "left out without sampling its posterior")
        elif hc:
            lines.append(
                f"  histogram check: FAILED (posterior-predictive p = {hc['p_value']:.3f}; KL "
                f"{hc['discrepancy']:.3f} nats/item against {hc['expected_discrepancy']:.3f} expected)"
                + (f"; the scores' shape counts as {format_items(hc['effective_unlabeled_items'])} items "
                   f"(coarsened posterior)" if hc.get("effective_unlabeled_items") else ""))
        return lines

    def _sampler_line(self):
        """The summary's line on how the posterior was drawn, and how well."""
        d = self.diagnostics
        if d.get("inference") == "exact":
            return f"posterior: {d.get('draws')} exact draws of the prevalence (Beta posterior of the labels)"
        if d.get("inference") == "grid":
            return f"posterior: {d.get('draws')} draws of the score models without the SPE mixture"
        if d.get("inference") == "map":
            return (f"posterior: {d.get('draws')} draws of the score models; the SPE mixture was left out at its MAP, "
                    "not sampled (its densities miss the histogram of the scores)")
        if d.get("inference") == "nuts":
            nuts = d.get("nuts", {})
            quality = (f"R-hat {nuts.get('r_hat', float('nan')):.3f}, {nuts.get('divergences', 0)} divergences, "
                       f"{100 * nuts.get('dropped', 0.0):.1f}% of draws outside the identified region")
        else:
            quality = f"Pareto k̂ {d.get('pareto_k', float('nan')):.2f}"
        left_out = bool((d.get("histogram_check") or {}).get("left_out"))
        return (f"SPE mixture sampler: {d.get('inference')}, {d.get('draws')} draws, ESS "
                f"{d.get('ess', float('nan')):.0f}, {quality}, MAP starts agreeing {d.get('map_starts_agreeing')}"
                + (" (the mixture is left out of the average: these draws are not used)" if left_out else ""))
