"""``spe.compare`` for K-class classifiers: several (N, K) score matrices of the same items, one set of labels.

The joint stacking of all the classifiers' log-probabilities (:mod:`spe.multiclass.joint`: the geometric mean of
each one's temperature-scaled probabilities, with weights, votes and a prior shift learned from the labels) is
fitted to the labeled items. The unknown classes are drawn once per posterior draw from it, and every classifier's
confusion matrix, curves and metrics are counted from the same drawn labels
(:func:`~spe.multiclass.performance.sample_joint_class_performance`): the difference between two classifiers'
accuracies has the interval of a difference, and P(A more accurate than B) is a posterior probability.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ..evaluation import Interval, summarise_draws
from ..exceptions import SpeInputError, plain
from ..inputs import MIN_DRAWS, check_level, seed_of
from ..output import jsonable, save_json
from .api import class_warnings, warn_unused
from .average import average_class_models, fit_class_models
from .evaluation import CLASS_METRICS, SCALAR_METRICS, MulticlassEvaluation
from .joint import fit_joint, stacked_log_probs
from .performance import Rankings, sample_joint_class_performance
from .scores import (ClassScores, class_labels, class_scores, is_multiclass, score_matrix, score_type_of,
                     second_class_score)

__all__ = ["compare_multiclass", "compare_classes", "MulticlassComparison", "ComparisonSummary", "all_multiclass",
           "COMPARED_METRICS",
           "CLASS_COMPARED_METRICS"]

#: The metrics every pair is compared by (``comparisons`` of the JSON), the first also ranks the classifiers.
COMPARED_METRICS = ("accuracy", "macro_f1", "macro_average_precision", "macro_roc_auc")
#: The per-class metrics every pair is compared by (``per_class_comparisons`` of the JSON).
CLASS_COMPARED_METRICS = ("f1", "average_precision")


def all_multiclass(scores) -> bool:
    """Whether ``scores`` hold several classifiers' K-class matrices: a mapping or list whose every value is an
    (N, K) array or a DataFrame of class columns (:func:`~spe.multiclass.scores.is_multiclass`)."""
    values = list(scores.values()) if isinstance(scores, Mapping) else scores
    return isinstance(values, (list, tuple)) and len(values) > 0 and all(is_multiclass(v) for v in values)


def compare_multiclass(scores, labels=None, *, names=None, classes=None, draws=1000, level=0.9, rng=None,
                       workers=None) -> MulticlassComparison:
    """Evaluate several K-class classifiers that scored the same items, from all their scores and one set of labels.

    Parameters
    ----------
    scores : mapping name → (N, K) array or DataFrame, or a list of them
        Each classifier's scores, one column per class, read as :func:`~spe.multiclass.scores.class_scores` reads
        them (probabilities, logits or decision values; each classifier's own reading). Every classifier has the
        same classes (a DataFrame's columns may come in another order; they are matched by name). DataFrames with
        ids (an ``id`` column or index) are matched by id, in the first one's order. Never modified.
    labels : as :func:`spe.evaluate_multiclass`'s
        Known classes of items of the first classifier's order, shared by all.
    names : list of str, optional
        The classifiers' names (default: the mapping's keys, else "classifier 1", …).
    classes : sequence of str, optional
        The classes' names (default: the first DataFrame's columns, or "0".."K−1").
    draws, level, rng, workers
        As :func:`spe.evaluate_multiclass`'s (``workers``: threads of the label draws).

    Returns
    -------
    MulticlassComparison

    Raises
    ------
    SpeInputError
        Fewer than two classifiers, names that repeat, classifiers of different classes or items, and as
        :func:`spe.evaluate_multiclass`.
    """
    level = check_level(level)
    if int(draws) < MIN_DRAWS:
        raise SpeInputError(f"must be at least {MIN_DRAWS}, got {draws}", argument="draws")
    keys, read = _read_classifiers(scores, names, classes)
    seed = seed_of(rng)
    index, value = class_labels(labels, read[0])
    fit_rng, average_rng, label_rng = np.random.default_rng(seed).spawn(3)
    stacked = stacked_log_probs(read)
    model = average_class_models(_candidates(keys, read, stacked, index, value, int(draws), fit_rng),
                                 draws=int(draws), rng=average_rng)
    performances = sample_joint_class_performance(model, stacked, [Rankings(s.log_probs, s.predicted) for s in read],
                                                  index, value, rng=label_rng, workers=workers)
    diagnostics = {"seed": seed, "draws": int(draws), "score_models": model.table()}
    warnings = class_warnings(read[0], value)
    evaluations = {k: MulticlassEvaluation(s, index, value, model, p, level, diagnostics, warnings, stacked)
                   for k, s, p in zip(keys, read, performances)}
    return MulticlassComparison(keys, evaluations, index, value, level, diagnostics, warnings)


def _candidates(keys, read, stacked, index, value, draws, rng):
    """The joint stacking model, each classifier's log-probabilities scaled by its own inverse temperature (the
    posterior mean of its temperature scaling on the labeled items), fitted. Each classifier's own models are
    not candidates: under one, that classifier wins the disagreements it is confident about, and the
    differences lean its way (on MultiNLI at 50 labels their intervals held the truth in 65% of the pairs)."""
    joint_rng, *own_rngs = rng.spawn(len(read) + 1)
    scales = [_inverse_temperature(s, index, value, draws, r) for s, r in zip(read, own_rngs)]
    return [fit_joint(stacked, index, value, draws=draws, rng=joint_rng, scales=scales)]


def _inverse_temperature(scores, index, value, draws, rng):
    """A classifier's posterior mean inverse temperature under temperature scaling on the labeled items."""
    model = fit_class_models(scores.log_probs, index, value, names=("temperature",), draws=draws, rng=rng)[0]
    return float(model.weights @ np.exp(model.draws[:, 0]))


def _classifier_items(scores, names):
    """(names, the classifiers' score objects) from a mapping or a list."""
    if isinstance(scores, Mapping):
        keys, values = [str(k) for k in scores], list(scores.values())
    else:
        values = list(scores)
        keys = [f"classifier {k + 1}" for k in range(len(values))]
    if names is not None:
        names = [str(n) for n in names]
        if len(names) != len(values):
            raise SpeInputError(f"{len(names)} names for {len(values)} classifiers", argument="names")
        keys = names
    if len(values) < 2:
        raise SpeInputError("compare needs two or more classifiers' scores", argument="scores")
    twice = sorted({k for k in keys if keys.count(k) > 1})
    if twice:
        raise SpeInputError(f"two classifiers are named {twice[0]!r}: give each its own name", argument="names")
    return keys, values


def _read_classifiers(scores, names, classes):
    """(names, ClassScores per classifier) with the same classes, the items in the first one's order."""
    keys, values = _classifier_items(scores, names)
    first = class_scores(values[0], classes, argument=f"scores[{keys[0]!r}]")
    read = [first]
    for key, v in zip(keys[1:], values[1:]):
        arg = f"scores[{key!r}]"
        if hasattr(v, "columns") and classes is None:
            v = _columns_as(v, first.classes, arg)
        s = class_scores(v, classes if classes is not None else first.classes, argument=arg)
        read.append(_aligned(s, first, arg))
    return keys, read


def _columns_as(frame, classes, argument):
    """A DataFrame's class columns in the first classifier's order (by name)."""
    own = [str(c) for c in frame.columns if c != "id"]
    if sorted(own) != sorted(classes):
        raise SpeInputError(f"its classes {own} are not the first classifier's {list(classes)}", argument=argument)
    frame = frame.rename(columns=str)
    return frame[(["id"] if "id" in frame.columns else []) + list(classes)]


def _aligned(s, first, argument):
    """Classifier scores ``s`` in the first's item order (by id when both carry ids, else by position)."""
    if s.n_items != first.n_items:
        raise SpeInputError(f"it scores {s.n_items} items, the first classifier {first.n_items}: they must score "
                            "the same items", argument=argument)
    if s.ids is None and first.ids is None:
        return s
    own, wanted = _ids_or_positions(s), _ids_or_positions(first)
    if np.array_equal(own, wanted):
        return ClassScores(s.log_probs, s.classes, s.score_type, first.ids)
    position = {v: i for i, v in enumerate(own.tolist())}
    missing = [v for v in wanted.tolist() if v not in position]
    if missing or len(position) != s.n_items:
        said = (f"id {plain(missing[0])!r} is missing" if missing else "an id repeats")
        hint = ("; some classifiers' scores carry ids and others do not: match the items by id in every one, or "
                "by position in none") if (s.ids is None) != (first.ids is None) else ""
        raise SpeInputError(f"it does not score the first classifier's items: {said}{hint}", argument=argument)
    order = np.array([position[v] for v in wanted.tolist()])
    return ClassScores(s.log_probs[order], s.classes, s.score_type, first.ids)


def _ids_or_positions(s):
    """The items' ids, or their positions 0..N−1 for scores without ids (a DataFrame's default index)."""
    return np.arange(s.n_items) if s.ids is None else np.asarray(s.ids)


def compare_classes(scores, labels=None, *, names=None, classes=None, draws=1000, level=0.9, rng=None,
                    workers=None, **binary_options):
    """Several classifiers' K-class scores: :func:`compare_multiclass` for K ≥ 3; for K = 2, :func:`spe.compare`
    of each classifier's second-class score (its probability, or the difference of its two logits), the second
    class positive — the answer their one-column files give. ``binary_options``: :func:`spe.compare`'s (K = 2).

    Returns
    -------
    MulticlassComparison (K ≥ 3) or spe.comparison.Comparison (K = 2)

    Raises
    ------
    SpeInputError
        As :func:`compare_multiclass` (K ≥ 3) or :func:`spe.compare` (K = 2).
    """
    from ..comparison import compare

    keys, values = _classifier_items(scores, names)
    first = class_scores(values[0], classes, argument=f"scores[{keys[0]!r}]")
    if first.n_classes > 2:
        return compare_multiclass(dict(zip(keys, values)), labels, classes=classes, draws=draws, level=level,
                                  rng=rng, workers=workers, **_no_binary(binary_options))
    columns = {}
    for key, v in zip(keys, values):
        matrix, _, ids = score_matrix(v, classes if classes is not None else first.classes,
                                      argument=f"scores[{key!r}]")
        one = second_class_score(matrix, score_type_of(matrix))  # each classifier read once
        columns[key] = one if ids is None else _series(one, ids)
    index, value = class_labels(labels, first)
    return compare(columns, (index, value), draws=draws, level=level, rng=rng, workers=workers, **binary_options)


def _series(values, ids):
    import pandas as pd

    return pd.Series(values, index=ids)


def _no_binary(options):
    """K ≥ 3: the binary-only options given are named in a warning, and none is passed on."""
    from ..comparison import compare

    warn_unused(options, compare)
    return {}


class ComparisonSummary:
    """The text summary of a multiclass comparison, from its public queries (shared by
    :class:`MulticlassComparison` and the one read back from its JSON,
    :class:`spe.multiclass.saved.SavedMulticlassComparison`)."""

    def summary(self, level=None, performance="sample", warnings=True) -> str:
        """What ``spe compare`` prints on K-class scores: each classifier's headline metrics, the probability of
        being the most accurate, every pair's differences, the classes where a pair differs most."""
        level = self._level(level)
        pct = f"{100 * level:g}%"
        width = max(len(n) for n in self.names)
        lines = [f"spe compare: {len(self.names)} classifiers, {self.n_items} items, {len(self.classes)} classes, "
                 f"{self.n_labeled} labeled; every figure from the same label draws",
                 f"{performance} performance, posterior mean [{pct} interval]:"]
        for n in self.names:
            ev = self[n]
            lines.append(f"  {n:<{width}}  accuracy {ev.accuracy(level, performance)}  macro F1 "
                         f"{ev.macro_f1(level, performance)}  ({ev.score_type})")
        lines.append("probability of being the most accurate: "
                     + ", ".join(f"{r['name']} {r['p_best']:.3f}" for r in self.ranking(performance=performance)))
        lines.append(f"differences (a − b), posterior mean [{pct} interval], P(a better than b):")
        for c in self.comparisons(("accuracy", "macro_f1"), level, performance):
            d = c["difference"]
            lines.append(f"  {c['a']} − {c['b']}  {c['metric']:<9} {d['mean']:+.3f} [{d['lo']:+.3f}, "
                         f"{d['hi']:+.3f}]  P = {c['p_a_better']:.3f}")
        lines += self._sure_class_lines(level, performance)
        lines.append("score models: " + ", ".join(f"{m['name']} {m['weight']:.2f}"
                                                  for m in self.diagnostics["score_models"] if m["weight"] >= 0.005))
        lines.append(f"seed {self.diagnostics['seed']}")
        lines += [f"warning: {w}" for w in self.warnings] if warnings else []
        return "\n".join(lines)

    def _repr_html_(self):
        """A notebook's view: each classifier's headline metrics and its probability of being the most accurate."""
        from ..display import class_comparison_html

        return class_comparison_html(self)

    def _sure_class_lines(self, level, performance, most=5):
        """The per-class F1 differences of which the posterior is surest (P ≥ 0.9 either way), at most ``most``."""
        rows = [c for c in self.class_comparisons(("f1",), level, performance)
                if np.isfinite(c["p_a_better"]) and max(c["p_a_better"], 1 - c["p_a_better"]) >= 0.9]
        rows.sort(key=lambda c: -abs(c["difference"]["mean"]))
        if not rows:
            return ["no class's F1 differs between two classifiers with probability ≥ 0.9"]
        out = ["classes whose F1 differs with probability ≥ 0.9 either way (P(a better) ≥ 0.9 or ≤ 0.1), largest "
               "difference first:"]
        for c in rows[:most]:
            d = c["difference"]
            out.append(f"  {c['class']}: {c['a']} − {c['b']} {d['mean']:+.3f} [{d['lo']:+.3f}, {d['hi']:+.3f}]  "
                       f"P(a better) = {c['p_a_better']:.3f}")
        return out


@dataclass
class MulticlassComparison(ComparisonSummary):
    """SPE's joint estimate of several K-class classifiers' performance on one pool.

    Attributes
    ----------
    names : list of str, length C
    evaluations : dict name → MulticlassEvaluation
        Each classifier's estimate, every one from the same M label draws.
    labeled_index, labeled_class : int arrays, shape (n,)
    level : float
    diagnostics : dict
        ``seed``, ``draws``, ``score_models`` (the joint model and each classifier's own, weighted by evidence).
    warnings : list of str
    """

    names: list
    evaluations: dict
    labeled_index: np.ndarray
    labeled_class: np.ndarray
    level: float = 0.9
    diagnostics: dict = field(default_factory=dict)
    warnings: list = field(default_factory=list)

    def __getitem__(self, name) -> MulticlassEvaluation:
        return self.evaluations[self._name(name)]

    @property
    def classes(self) -> tuple:
        return self.evaluations[self.names[0]].classes

    @property
    def n_items(self) -> int:
        return self.evaluations[self.names[0]].n_items

    @property
    def n_labeled(self) -> int:
        return int(self.labeled_index.size)

    def _name(self, name):
        if name not in self.evaluations:
            raise SpeInputError(f"{name!r} is none of the classifiers {', '.join(self.names)}", argument="name")
        return name

    def _level(self, level):
        return self.level if level is None else check_level(level)

    def metric_draws(self, name, metric="accuracy", performance="sample"):
        """A classifier's metric under each of the M shared draws, (M,): one of
        :data:`~spe.multiclass.evaluation.SCALAR_METRICS`, or ``"METRIC:CLASS"`` with METRIC one of
        :data:`~spe.multiclass.evaluation.CLASS_METRICS` (NaN where undefined in a draw).

        Raises
        ------
        SpeInputError
            An unknown classifier, metric or class.
        """
        ev = self[name]
        base, _, cls = str(metric).partition(":")
        if not cls:
            if base not in SCALAR_METRICS:
                raise SpeInputError(f"{metric!r} is none of {', '.join(SCALAR_METRICS)} (or METRIC:CLASS with METRIC "
                                    f"one of {', '.join(CLASS_METRICS)})", argument="metric")
            return ev.metric_draws(base, performance)
        if base not in CLASS_METRICS:
            raise SpeInputError(f"{base!r} is none of the per-class metrics {', '.join(CLASS_METRICS)}",
                                argument="metric")
        try:
            j = ev.class_index(cls)
        except ValueError as e:
            raise SpeInputError(str(e), argument="metric") from None
        return ev.class_metric_draws(base, performance)[:, j]

    def _higher_is_better(self, metric):
        return SCALAR_METRICS.get(str(metric), True)

    def _difference_draws(self, a, b, metric, performance):
        return self.metric_draws(a, metric, performance) - self.metric_draws(b, metric, performance)

    def _p_better(self, d, metric):
        """P(d (M,) favours a), a tie counting one half; draws where either is undefined left out."""
        d = d[np.isfinite(d)]
        if not d.size:
            return float("nan")
        d = d if self._higher_is_better(metric) else -d
        return float(np.mean(d > 0) + 0.5 * np.mean(d == 0))

    def difference(self, a, b, metric="accuracy", level=None, performance="sample") -> Interval:
        """metric(a) − metric(b) over the shared label draws: mean, median and equal-tailed interval (the
        metric's units: a difference of shares for accuracy). Raises SpeInputError as :meth:`metric_draws`."""
        d = self._difference_draws(a, b, metric, performance)
        return summarise_draws(d, np.full(d.size, 1.0 / d.size), self._level(level))

    def probability_better(self, a, b, metric="accuracy", performance="sample") -> float:
        """P(a is better than b by ``metric``) in [0, 1] (lower is better for the calibration errors); a tie
        counts one half."""
        return self._p_better(self._difference_draws(a, b, metric, performance), metric)

    def ranking(self, metric="accuracy", performance="sample") -> list:
        """Each classifier's probability of being the best by ``metric`` (ties shared) and its posterior mean,
        best first: ``[{"name", "p_best", "mean"}]``."""
        values = np.column_stack([self.metric_draws(n, metric, performance) for n in self.names])
        means = np.nanmean(values, axis=0)
        signed = values if self._higher_is_better(metric) else -values
        signed = np.where(np.isfinite(signed), signed, -np.inf)
        best = signed == signed.max(axis=1, keepdims=True)
        p = np.mean(best / best.sum(axis=1, keepdims=True), axis=0)
        rows = [{"name": n, "p_best": float(pb), "mean": float(mu)} for n, pb, mu in zip(self.names, p, means)]
        return sorted(rows, key=lambda r: -r["p_best"])

    def _pairs(self):
        return [(a, b) for i, a in enumerate(self.names) for b in self.names[i + 1:]]

    def _compared(self, a, b, metric, level, performance):
        d = self._difference_draws(a, b, metric, performance)
        interval = summarise_draws(d, np.full(d.size, 1.0 / d.size), level)
        return {"difference": jsonable(interval.to_dict()), "p_a_better": self._p_better(d, metric)}

    def comparisons(self, metrics=COMPARED_METRICS, level=None, performance="sample") -> list:
        """Every pair (a before b in ``names``) and metric: ``{"a", "b", "metric", "difference", "p_a_better"}``."""
        level = self._level(level)
        return [{"a": a, "b": b, "metric": m, **self._compared(a, b, m, level, performance)}
                for a, b in self._pairs() for m in metrics]

    def class_comparisons(self, metrics=CLASS_COMPARED_METRICS, level=None, performance="sample") -> list:
        """Every pair, per-class metric and class: ``{"a", "b", "metric", "class", "difference", "p_a_better"}``."""
        level = self._level(level)
        return [{"a": a, "b": b, "metric": m, "class": c,
                 **self._compared(a, b, f"{m}:{c}", level, performance)}
                for a, b in self._pairs() for m in metrics for c in self.classes]

    def item_probabilities(self):
        """Each item's posterior class probabilities under the joint model, (N, K): every classifier's scores
        read together, averaged over the draws; labeled items one-hot at their label."""
        return self[self.names[0]].item_probabilities()

    def items_frame(self):
        """A DataFrame of every item: ``id`` (or its position), each classifier's predicted class (a column named
        after it), ``label`` (the known class, or None) and ``prob_CLASS`` per class, of
        :meth:`item_probabilities`."""
        import pandas as pd

        first = self[self.names[0]].items_frame()
        classes = np.asarray(self.classes, dtype=object)
        predicted = pd.DataFrame({n: classes[self[n].scores.predicted] for n in self.names})
        return pd.concat([first[["id"]], predicted, first.drop(columns=["id", "predicted"])], axis=1)

    def suggest(self, k=10, target="compare", classifier=None, rng=None):
        """The ``k`` unlabeled items whose labels are expected to shrink a target's posterior variance most
        (:mod:`spe.multiclass.suggest`, the joint model's draws weighing each possible label).

        ``target="compare"``: the accuracy difference of the two classifiers most likely the most accurate (the
        population's, under each draw). Any other target (``"accuracy"``, ``"macro_f1"``, ``"ap:CLASS"``,
        ``"threshold:CLASS:P,R"``) is of one classifier, ``classifier`` (default the first).

        Returns
        -------
        spe.multiclass.suggest.ClassSuggestion

        Raises
        ------
        SpeInputError
            An unknown classifier or target, ``k`` below 1.
        """
        from .suggest import suggest_for_draws

        try:
            if target != "compare":
                return self[classifier if classifier is not None else self.names[0]].suggest(k, target, rng)
            a, b = (r["name"] for r in self.ranking(performance="population")[:2])
            values = (self.metric_draws(a, "accuracy", "population")
                      - self.metric_draws(b, "accuracy", "population"))
            return suggest_for_draws(self[a], k, values, f"compare: accuracy of {a} − {b}", rng)
        except ValueError as e:
            if isinstance(e, SpeInputError):
                raise
            raise SpeInputError(str(e), argument="target") from None

    def plan_labels(self, width=None, probability=None, target="compare", strategy="information", classifier=None,
                    max_labels=None, futures=200, level=None, rng=None):
        """About how many more labels until ``target`` is settled, over simulated futures of the labels
        (:func:`spe.multiclass.plan.plan_comparison_labels`, whose parameters these are). Without a goal: which of
        every pair is the more accurate decided with probability 0.9.

        Returns
        -------
        spe.active.LabelPlan

        Raises
        ------
        SpeInputError
            Both goals, a goal that does not fit the target, an unknown target, strategy or classifier,
            ``max_labels`` beyond the unlabeled items.
        """
        from .plan import plan_comparison_labels

        if width is None and probability is None:
            probability = 0.9
        return plan_comparison_labels(self, width=width, probability=probability, target=target,
                                      classifier=classifier, strategy=strategy, max_labels=max_labels,
                                      futures=futures, level=level, rng=rng)

    def to_dict(self, level=None, performance="sample") -> dict:
        """JSON-ready dict; ``spe compare --json`` on K-class scores writes exactly this (docs/json.md)."""
        level = self._level(level)
        return {
            "n_items": self.n_items, "n_labeled": int(self.labeled_index.size), "level": level,
            "performance": performance, "classes": list(self.classes),
            "classifiers": {n: self[n].to_dict(level, performance) for n in self.names},
            "comparisons": self.comparisons(level=level, performance=performance),
            "per_class_comparisons": self.class_comparisons(level=level, performance=performance),
            "ranking": self.ranking(performance=performance),
            "diagnostics": jsonable(self.diagnostics), "warnings": list(self.warnings),
        }

    def save(self, path, level=None, performance="sample"):
        """Write :meth:`to_dict` as JSON to ``path`` (whole or not at all)."""
        save_json(self.to_dict(level, performance), path)

    def __repr__(self):
        return (f"<MulticlassComparison: {len(self.names)} classifiers, {self.n_items} items, "
                f"{len(self.classes)} classes, {self.labeled_index.size} labeled>")
