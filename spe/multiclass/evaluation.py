"""A multiclass classifier's estimated performance on one pool, and its queries.

Every number comes from the same M label draws (:mod:`spe.multiclass.performance`): a metric's interval is
the equal-tailed ``level`` interval of its M values. Precision, recall and F1 are at the classifier's argmax
decision; F1 is 2·TP / (2·TP + FP + FN), a class's value undefined (left out of that draw) when it has no item
and no prediction; the macro F1 averages the classes that have an item or a prediction in the draw
(scikit-learn's ``f1_score(average="macro")`` on those labels), the weighted F1 weighs them by their items.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from ..evaluation import CurveBand, Interval, PERFORMANCE_KINDS, summarise_draws
from ..inputs import check_choice, check_level
from ..metrics.curves import FPR_GRID, RECALL_GRID
from ..output import jsonable, save_json

__all__ = ["MulticlassEvaluation", "ClassSummary", "CLASS_METRICS", "SCALAR_METRICS"]

#: The per-class metrics of :meth:`MulticlassEvaluation.per_class`.
CLASS_METRICS = ("precision", "recall", "f1", "average_precision", "roc_auc")
#: The one-number metrics of :meth:`MulticlassEvaluation.metric_draws` → whether higher is better.
SCALAR_METRICS = {"accuracy": True, "macro_f1": True, "weighted_f1": True, "macro_average_precision": True,
                  "macro_roc_auc": True, "calibration_error": False, "classwise_calibration_error": False}


class ClassSummary:
    """The text summary of a multiclass estimate from its public queries, and a class's position from its name
    (shared by :class:`MulticlassEvaluation` and the one read back from its JSON,
    :class:`spe.multiclass.saved.SavedMulticlassEvaluation`)."""

    def summary(self, level=None, performance="sample", warnings=True) -> str:
        """What ``spe estimate`` prints: the headline metrics, each class's, and how the scores were read (and the
        warnings, unless ``warnings=False``: the command prints them on standard error)."""
        level = self._level(level)
        pct = f"{100 * level:g}%"
        lines = [f"{self.n_items} items, {len(self.classes)} classes, {self.n_labeled} labeled; scores read as "
                 f"{self.score_type}",
                 f"accuracy            {self.accuracy(level, performance)}   ({pct} interval)",
                 *[f"top-{k} accuracy      {self.top_k_accuracy(k, level)}" for k in self.top_ks],
                 f"macro F1            {self.macro_f1(level, performance)}",
                 f"macro AP            {self.macro_average_precision(level)}",
                 f"calibration error   {self.calibration_error('top-label', level)}  (top-label ECE of the "
                 "classifier's probabilities)"]
        lines += self._class_lines(level, performance)
        lines += [f"{name} at probability ≥ {a['threshold']:g}: precision {a['precision']}, recall {a['recall']}, "
                  f"F1 {a['f1']}" for name, a in self.at_thresholds(level, performance).items()]
        lines += ["score models: " + ", ".join(f"{m['name']} {m['weight']:.2f}"
                                               + (f" (left out: {m['left_out_by']} unreliable, Pareto k̂ "
                                                  f"{m['pareto_k']:.2f})" if m.get("left_out_by") else "")
                                               for m in self.diagnostics.get("score_models", []))]
        lines += [f"seed {self.diagnostics.get('seed')}"]
        lines += [f"warning: {w}" for w in self.warnings] if warnings else []
        return "\n".join(lines)

    def _repr_html_(self):
        """A notebook's view: the headline metrics and each class's, with their intervals."""
        from ..display import class_result_html

        return class_result_html(self)

    def _class_lines(self, level, performance, most=20):
        prevalence = self.prevalence(level, performance)
        per_class = self.per_class(level, performance)
        width = max(5, *(len(str(c)) for c in self.classes[:most]))
        lines = [f"{'class':<{width}}  prevalence            precision             recall                AP"]
        for name in self.classes[:most]:
            m = per_class[name]
            lines.append(f"{name:<{width}}  {prevalence[name]!s:<20}  {m['precision']!s:<20}  {m['recall']!s:<20}  "
                         f"{m['average_precision']}")
        if len(self.classes) > most:
            lines.append(f"… {len(self.classes) - most} more classes in the JSON")
        return lines

    def class_index(self, cls) -> int:
        """A class's position 0..K−1, from its name (or its position); ValueError for neither."""
        if cls in self.classes:
            return self.classes.index(cls)
        if isinstance(cls, (int, np.integer)) and 0 <= cls < len(self.classes):
            return int(cls)
        raise ValueError(f"{cls!r} is not one of the classes {list(self.classes)}")


@dataclass
class MulticlassEvaluation(ClassSummary):
    """SPE's estimate of a K-class classifier's performance on one pool.

    Attributes
    ----------
    scores : spe.multiclass.scores.ClassScores
    labeled_index, labeled_class : int arrays, shape (n,)
    model : spe.multiclass.average.AveragedClassModel
    performance : spe.multiclass.performance.ClassPerformance
    level : float
    diagnostics : dict
    warnings : list of str
    model_inputs : array or None
        What the model's draws read (``model.blocks``' probabilities): None for this classifier's
        log-probabilities (N, K); a comparison's joint model reads every classifier's, (N, K, C).
    """

    scores: object
    labeled_index: np.ndarray
    labeled_class: np.ndarray
    model: object
    performance: object
    level: float = 0.9
    diagnostics: dict = field(default_factory=dict)
    warnings: list = field(default_factory=list)
    model_inputs: object = None

    @property
    def score_type(self) -> str:
        """How the scores were read: ``"probabilities"`` or ``"logits"``."""
        return self.scores.score_type

    @property
    def top_ks(self) -> list:
        """The k of the top-k accuracies kept (those below K)."""
        return sorted(self.performance.top_k)

    @property
    def inputs(self):
        """The array the model's probabilities are computed from: (N, K), or (N, K, C) in a comparison."""
        return self.scores.log_probs if self.model_inputs is None else self.model_inputs

    @property
    def classes(self) -> tuple:
        return self.scores.classes

    @property
    def n_items(self) -> int:
        return self.scores.n_items

    @property
    def n_labeled(self) -> int:
        return int(self.labeled_index.size)

    def _level(self, level):
        return self.level if level is None else check_level(level)

    def _interval(self, values, level):
        values = np.asarray(values, dtype=float)
        return summarise_draws(values, np.full(values.shape[0], 1.0 / values.shape[0]), self._level(level))

    def confusion_draws(self, performance="sample"):
        """The K × K confusion counts per draw (M, K, K): row = true class, column = predicted; ``"sample"``
        counts the drawn labels of these N items, ``"population"`` the counts expected under each draw."""
        check_choice("performance", performance, PERFORMANCE_KINDS)
        p = self.performance
        return p.confusion.astype(float) if performance == "sample" else p.expected_confusion

    def metric_draws(self, metric, performance="sample"):
        """One of :data:`SCALAR_METRICS` per draw, (M,): accuracy, macro and weighted F1 (of ``performance``),
        macro AP and ROC AUC, top-label and class-wise calibration error (of the drawn labels)."""
        check_choice("metric", metric, tuple(SCALAR_METRICS))
        p = self.performance
        if metric == "accuracy":
            return np.trace(self.confusion_draws(performance), axis1=1, axis2=2) / self.n_items
        if metric == "macro_f1":
            return np.nanmean(self.class_metric_draws("f1", performance), axis=1)
        if metric == "weighted_f1":
            f1 = np.nan_to_num(self.class_metric_draws("f1", performance))
            true = self.confusion_draws(performance).sum(axis=2)
            return np.sum(f1 * true, axis=1) / true.sum(axis=1)
        if metric in ("macro_average_precision", "macro_roc_auc"):
            return np.nanmean(getattr(p, metric[len("macro_"):]), axis=1)
        return p.calibration_error if metric == "calibration_error" else p.classwise_calibration_error

    def accuracy(self, level=None, performance="sample") -> Interval:
        """The share of items whose argmax class is their true class."""
        return self._interval(self.metric_draws("accuracy", performance), level)

    def top_k_accuracy(self, k, level=None) -> Interval:
        """The share of items whose true class is among their k highest-scored (k < K; sample)."""
        if k not in self.performance.top_k:
            raise ValueError(f"top-k accuracy is kept for k in {sorted(self.performance.top_k)}")
        return self._interval(self.performance.top_k[k], level)

    def prevalence(self, level=None, performance="sample") -> dict:
        """Each class's share of the pool: class name → Interval."""
        c = self.confusion_draws(performance)
        share = c.sum(axis=2) / self.n_items
        return {name: self._interval(share[:, j], level) for j, name in enumerate(self.classes)}

    def class_metric_draws(self, metric, performance="sample"):
        """One of :data:`CLASS_METRICS` per draw and class, (M, K); NaN where undefined in a draw. The ranking
        metrics (average precision, ROC AUC) are of the drawn labels (sample) either way."""
        check_choice("metric", metric, CLASS_METRICS)
        if metric in ("average_precision", "roc_auc"):
            return getattr(self.performance, metric)
        c = self.confusion_draws(performance)
        tp = np.diagonal(c, axis1=1, axis2=2)
        true, predicted = c.sum(axis=2), c.sum(axis=1)
        denominator = {"precision": predicted, "recall": true, "f1": (true + predicted) / 2}[metric]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(denominator > 0, tp / denominator, np.nan)

    @property
    def class_thresholds(self) -> dict:
        """The per-class probability thresholds given (class name → threshold), {} for none."""
        return dict(self.diagnostics.get("class_thresholds", {}))

    def threshold_draws(self, performance="sample"):
        """Per draw and class, (M, K) each: (items of the class at or above its threshold, items at or above it,
        items of the class) — the true positives, predicted positives and positives of the one-vs-rest decision
        at :attr:`class_thresholds`."""
        check_choice("performance", performance, PERFORMANCE_KINDS)
        p = self.performance
        hits = p.threshold_hits.astype(float) if performance == "sample" else p.expected_threshold_hits
        true = self.confusion_draws(performance).sum(axis=2)
        return hits, np.broadcast_to(p.threshold_predicted.astype(float), hits.shape), true

    def at_thresholds(self, level=None, performance="sample") -> dict:
        """Each class given a threshold (:attr:`class_thresholds`): ``{"threshold", "precision", "recall",
        "f1"}``, the one-vs-rest decision "probability of the class ≥ threshold" (Intervals but the threshold;
        precision undefined where no item is at or above it)."""
        hits, predicted, true = self.threshold_draws(performance)
        out = {}
        with np.errstate(invalid="ignore", divide="ignore"):
            for name, t in self.class_thresholds.items():
                j = self.class_index(name)
                tp, pp, pos = hits[:, j], predicted[:, j], true[:, j]
                out[name] = {"threshold": t,
                             "precision": self._interval(np.where(pp > 0, tp / pp, np.nan), level),
                             "recall": self._interval(np.where(pos > 0, tp / pos, np.nan), level),
                             "f1": self._interval(np.where(pp + pos > 0, 2 * tp / (pp + pos), np.nan), level)}
        return out

    def best_threshold(self, cls, min_precision=0.0, min_recall=0.0, level=None, performance="sample"):
        """The threshold on class ``cls``'s probability most likely to meet a precision/recall requirement for the
        one-vs-rest decision "probability of ``cls`` ≥ τ", and how likely. For example
        ``ev.best_threshold("spam", min_precision=0.9, min_recall=0.5).threshold`` is the probability of
        ``spam`` at or above which to flag an item as spam.

        Parameters
        ----------
        cls : str or int
            A class's name (or its position 0..K−1).
        min_precision, min_recall : float in [0, 1]
        level : float or None
            The intervals' level (None: the evaluation's).
        performance : {"sample", "population"}

        Returns
        -------
        spe.evaluation.ThresholdChoice
            The threshold in probability units, p(requirement met) there, precision, recall and F1 (Intervals)
            and p(requirement met) at every candidate threshold
            (:func:`spe.multiclass.threshold.best_class_threshold`, which also says what is raised).
        """
        from .threshold import best_class_threshold

        return best_class_threshold(self, cls, min_precision, min_recall, level, performance)

    def per_class(self, level=None, performance="sample") -> dict:
        """class name → {metric: Interval} for every metric of :data:`CLASS_METRICS`."""
        draws = {m: self.class_metric_draws(m, performance) for m in CLASS_METRICS}
        return {name: {m: self._interval(d[:, j], level) for m, d in draws.items()}
                for j, name in enumerate(self.classes)}

    def macro_f1(self, level=None, performance="sample") -> Interval:
        """The mean F1 over the classes with an item or a prediction in each draw."""
        return self._interval(self.metric_draws("macro_f1", performance), level)

    def weighted_f1(self, level=None, performance="sample") -> Interval:
        """The classes' F1 weighed by their items in each draw."""
        return self._interval(self.metric_draws("weighted_f1", performance), level)

    def macro_average_precision(self, level=None) -> Interval:
        """The mean one-vs-rest average precision over the classes present in each draw."""
        return self._interval(self.metric_draws("macro_average_precision"), level)

    def macro_roc_auc(self, level=None) -> Interval:
        """The mean one-vs-rest ROC AUC over the classes present in each draw."""
        return self._interval(self.metric_draws("macro_roc_auc"), level)

    def calibration_error(self, kind="top-label", level=None) -> Interval:
        """The expected calibration error of the classifier's stated probabilities on this pool (15 equal-width
        bins): ``"top-label"`` (of the predicted class's probability against being right; Guo et al. 2017) or
        ``"classwise"`` (every class's probability against its one-vs-rest label, averaged; Kull et al. 2019)."""
        check_choice("kind", kind, ("top-label", "classwise"))
        return self._interval(self.metric_draws("calibration_error" if kind == "top-label"
                                                else "classwise_calibration_error"), level)

    def reliability(self, level=None) -> dict:
        """The top-label reliability diagram on this pool: per bin of the classifier's stated confidence (15
        equal-width bins), ``confidence`` (its mean), ``items``, and the accuracy there with its interval
        (``accuracy``, ``accuracy_lo``, ``accuracy_hi``; NaN for an empty bin), each (B,)."""
        p = self.performance
        items = p.confidence_items
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_conf = p.confidence_sum / items
            acc = p.correct_by_confidence / items
        lo, med, hi = _equal_tailed(acc, self._level(level))
        return {"confidence": mean_conf, "items": items, "accuracy": med, "accuracy_lo": lo, "accuracy_hi": hi}

    def confusion_matrix(self, normalize="true", level=None, performance="sample") -> dict:
        """The expected confusion matrix with its intervals: ``{"mean", "lo", "hi"}`` each (K, K), row = true
        class. ``normalize="true"``: rates (each row sums to one, as ``sklearn.metrics.confusion_matrix``'s);
        ``None``: counts."""
        if normalize not in ("true", None):
            raise ValueError(f"normalize must be 'true' or None, got {normalize!r}")
        c = self.confusion_draws(performance)
        if normalize == "true":
            with np.errstate(invalid="ignore", divide="ignore"):
                c = c / c.sum(axis=2, keepdims=True)
        lo, _, hi = _equal_tailed(c.reshape(c.shape[0], -1), self._level(level))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a class no draw has: NaN, as documented
            mean = np.nanmean(c, axis=0)
        return {"mean": mean, "lo": lo.reshape(c.shape[1:]), "hi": hi.reshape(c.shape[1:])}

    def pr_curve(self, cls, level=None) -> CurveBand:
        """One class's one-vs-rest precision against recall (the classifier's probability of the class ranks the
        items), median and band per recall of the grid."""
        return self._band(self.performance.precision_at_recall[:, self.class_index(cls), :], RECALL_GRID, level)

    def roc_curve(self, cls, level=None) -> CurveBand:
        """One class's one-vs-rest ROC curve: true positive rate against false positive rate (the grid), median
        and band."""
        return self._band(self.performance.tpr_at_fpr[:, self.class_index(cls), :], FPR_GRID, level)

    def _band(self, values, grid, level):
        """Median and equal-tailed band per grid point of a curve's draws (M, G), the draws where it is undefined
        (NaN) left out."""
        level = self._level(level)
        lo, med, hi = _equal_tailed(values, level)
        return CurveBand(grid, med, lo, hi, level)

    def to_dict(self, level=None, performance="sample") -> dict:
        """JSON-ready dict; ``spe estimate --json`` on K-class scores writes exactly this (DESIGN.md, "Multiclass").
        """
        level = self._level(level)

        def est(i):
            return jsonable(i.to_dict())

        per_class = self.per_class(level, performance)
        at = self.at_thresholds(level, performance)
        out = {
            "n_items": self.n_items, "n_labeled": self.n_labeled, "level": level, "performance": performance,
            "classes": list(self.classes), "score_type": self.scores.score_type,
            "accuracy": est(self.accuracy(level, performance)),
            "top_k_accuracy": {str(k): est(self.top_k_accuracy(k, level)) for k in sorted(self.performance.top_k)},
            "macro_f1": est(self.macro_f1(level, performance)),
            "weighted_f1": est(self.weighted_f1(level, performance)),
            "macro_average_precision": est(self.macro_average_precision(level)),
            "macro_roc_auc": est(self.macro_roc_auc(level)),
            "calibration_error": est(self.calibration_error("top-label", level)),
            "classwise_calibration_error": est(self.calibration_error("classwise", level)),
            "prevalence": {k: est(v) for k, v in self.prevalence(level, performance).items()},
            "per_class": {name: {**{m: est(v) for m, v in metrics.items()},
                                 "pr_curve": self._pr_dict(name, level), "roc_curve": self._roc_dict(name, level),
                                 **({"at_threshold": {k: v if k == "threshold" else est(v)
                                                      for k, v in at[name].items()}} if name in at else {})}
                          for name, metrics in per_class.items()},
            "confusion_matrix": self._confusion_dict(level, performance),
            "diagnostics": jsonable(self.diagnostics),
            "warnings": list(self.warnings),
        }
        return out

    def _pr_dict(self, name, level):
        band = self.pr_curve(name, level)
        return {"recall": jsonable(band.x), "precision": jsonable(band.median), "precision_lo": jsonable(band.lo),
                "precision_hi": jsonable(band.hi)}

    def suggest(self, k=10, target="accuracy", rng=None):
        """The ``k`` unlabeled items whose labels would shrink the target's uncertainty most (target
        ``"accuracy"``, ``"macro_f1"``, ``"ap:NAME"`` or ``"threshold:NAME:P,R"``):
        :func:`spe.multiclass.suggest.suggest_labels`."""
        from .suggest import suggest_labels

        return suggest_labels(self, k, target, rng)

    def plan_labels(self, width, target="accuracy", strategy="information", max_labels=None, futures=200,
                    level=None, rng=None):
        """About how many more labels until the target's interval is narrower than ``width`` (the target's units),
        over simulated futures of the labels: :func:`spe.multiclass.plan.plan_class_labels`, whose parameters these
        are.

        Returns
        -------
        spe.active.LabelPlan

        Raises
        ------
        SpeInputError
            A width ≤ 0, an unknown target, strategy or class, an option out of range.
        """
        from .plan import plan_class_labels

        return plan_class_labels(self, width=width, target=target, strategy=strategy, max_labels=max_labels,
                                 futures=futures, level=level, rng=rng)

    def item_probabilities(self):
        """Each item's posterior class probabilities (N, K) — the classifier's probabilities recalibrated by
        the score models, averaged over the M posterior draws; a labeled item is one-hot at its label
        (:func:`~spe.multiclass.performance.mean_probabilities`). In a comparison, the joint model's (every
        classifier's scores read together)."""
        from .performance import mean_probabilities

        return mean_probabilities(self.model, self.inputs, self.labeled_index, self.labeled_class)

    def items_frame(self):
        """A DataFrame of every item: ``id`` (or its position), ``predicted`` (the classifier's argmax class),
        ``label`` (the known class, or None) and ``prob_CLASS`` per class, of :meth:`item_probabilities`."""
        import pandas as pd

        classes = np.asarray(self.classes, dtype=object)
        ids = self.scores.ids if self.scores.ids is not None else np.arange(self.n_items)
        label = np.full(self.n_items, None, dtype=object)
        label[self.labeled_index] = classes[self.labeled_class]
        frame = pd.DataFrame({"id": ids, "predicted": classes[self.scores.predicted], "label": label})
        probs = pd.DataFrame(self.item_probabilities(), columns=[f"prob_{c}" for c in self.classes])
        return pd.concat([frame, probs], axis=1)

    def true_values(self, truth) -> dict:
        """The metrics this estimate gives intervals for, counted from every item's true class (to check the
        estimate on a fully labeled pool, ``spe estimate --truth``).

        Parameters
        ----------
        truth : int array, shape (N,)
            Every item's class index 0..K−1.

        Returns
        -------
        dict
            ``accuracy``, ``top_k_accuracy`` {k}, the scalar metrics, ``prevalence`` {class}, ``per_class`` {class:
            {precision, recall, f1, average_precision, roc_auc}} and, for the classes given thresholds,
            ``at_threshold`` {class: {precision, recall, f1}}: floats (NaN where undefined).
        """
        from dataclasses import replace

        from .performance import count_labels

        truth = np.asarray(truth, dtype=np.int64)
        if truth.shape != (self.n_items,) or truth.min() < 0 or truth.max() >= len(self.classes):
            raise ValueError(f"truth must hold a class index 0..{len(self.classes) - 1} for each of the "
                             f"{self.n_items} items")
        thresholds = np.full(len(self.classes), np.nan)
        for name, t in self.class_thresholds.items():
            thresholds[self.class_index(name)] = t
        known = replace(self, labeled_index=np.arange(self.n_items), labeled_class=truth,
                        performance=count_labels(self.scores.log_probs, self.scores.predicted, truth,
                                                 thresholds=thresholds))

        def value(interval):
            return float(interval.mean)

        per_class = known.per_class()
        return {"accuracy": value(known.accuracy()),
                "top_k_accuracy": {str(k): value(known.top_k_accuracy(k)) for k in known.top_ks},
                **{m: float(known.metric_draws(m)[0]) for m in SCALAR_METRICS if m != "accuracy"},
                "prevalence": {c: value(v) for c, v in known.prevalence().items()},
                "per_class": {c: {m: value(v) for m, v in d.items()} for c, d in per_class.items()},
                "at_threshold": {c: {m: value(v) for m, v in d.items() if m != "threshold"}
                                 for c, d in known.at_thresholds().items()}}

    def accuracy_by_labels(self, counts=None, rng=None):
        """The accuracy estimated again from the first n labeled items (a seeded random order) for each n of
        ``counts``, beside the labeled items' own accuracy: a DataFrame (:func:`spe.multiclass.by_labels.
        accuracy_by_labels`), which :func:`spe.plot.plot_accuracy_vs_labels` draws."""
        from .by_labels import accuracy_by_labels

        return accuracy_by_labels(self, counts, rng=self.diagnostics.get("seed") if rng is None else rng)

    def _roc_dict(self, name, level):
        band = self.roc_curve(name, level)
        return {"fpr": jsonable(band.x), "tpr": jsonable(band.median), "tpr_lo": jsonable(band.lo),
                "tpr_hi": jsonable(band.hi)}

    def _confusion_dict(self, level, performance):
        rates = self.confusion_matrix("true", level, performance)
        counts = self.confusion_matrix(None, level, performance)
        return {"rates": jsonable(rates["mean"]), "rates_lo": jsonable(rates["lo"]),
                "rates_hi": jsonable(rates["hi"]), "counts": jsonable(counts["mean"]),
                "counts_lo": jsonable(counts["lo"]), "counts_hi": jsonable(counts["hi"])}

    def save(self, path, level=None, performance="sample"):
        """Write :meth:`to_dict` as JSON to ``path`` (whole or not at all)."""
        save_json(self.to_dict(level, performance), path)

    def __repr__(self):
        return (f"<MulticlassEvaluation: {self.n_items} items, {len(self.classes)} classes, {self.n_labeled} labeled; "
                f"accuracy {self.accuracy()}>")


def _equal_tailed(values, level):
    """The lower end, median and upper end of the equal-tailed ``level`` interval per column of equally weighted
    draws (M, G) → three (G,), NaN draws left out (NaN where all are), by the inverted CDF as the scalar
    intervals (:func:`spe.evaluation.summarise_draws`, whose weights are equal here) are."""
    values = np.asarray(values, dtype=float)
    q = [(1 - level) / 2, 0.5, (1 + level) / 2]
    out = np.empty((3,) + values.shape[1:])
    gaps = np.isnan(values).any(axis=0)  # np.nanquantile loops over every column: only these need it
    out[:, ~gaps] = np.quantile(values[:, ~gaps], q, axis=0, method="inverted_cdf")
    if gaps.any():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a column of NaN draws only: NaN
            out[:, gaps] = np.nanquantile(values[:, gaps], q, axis=0, method="inverted_cdf")
    return out
