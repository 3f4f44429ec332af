"""Multiclass results read back from their JSON (:func:`spe.load` of what ``spe estimate --json`` and
``spe compare --json`` write on K-class scores, or ``MulticlassEvaluation.save``/``MulticlassComparison.save``).

The JSON holds the summaries at the level and performance they were written at, never the posterior draws.
:class:`SavedMulticlassEvaluation` answers the queries of :class:`~spe.multiclass.evaluation.MulticlassEvaluation`
that the file holds, with the same names, arguments and answers (``accuracy()``, ``per_class()``,
``confusion_matrix()``, ``pr_curve("cat")``, ``summary()``, …); those that need the draws (``suggest``,
``item_probabilities``, ``metric_draws``, another level) raise :class:`~spe.exceptions.NotSavedError`.
:class:`SavedMulticlassComparison` does the same for a comparison. Every field read is checked when the file is
read (an ``SpeInputError`` names the file and the field).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..evaluation import CurveBand, Interval
from ..exceptions import NotSavedError, SpeInputError
from ..metrics.curves import FPR_GRID, RECALL_GRID
from ..output import save_json
from .comparison import ComparisonSummary
from .evaluation import CLASS_METRICS, ClassSummary

__all__ = ["SavedMulticlassEvaluation", "SavedMulticlassComparison", "is_multiclass_result"]

#: What a multiclass estimate's JSON must hold (DESIGN.md, "Multiclass").
ESTIMATE_KEYS = ("n_items", "n_labeled", "level", "classes", "accuracy", "top_k_accuracy", "macro_f1", "weighted_f1",
                 "macro_average_precision", "macro_roc_auc", "calibration_error", "prevalence", "per_class",
                 "confusion_matrix")
#: Its one-number fields.
_SCALARS = ("accuracy", "macro_f1", "weighted_f1", "macro_average_precision", "macro_roc_auc", "calibration_error")
_KEEP = ("keep the live result, or pickle it (pickle.dump(ev, f)), which keeps the posterior draws; the JSON holds "
         "the summaries only")


def is_multiclass_result(data) -> bool:
    """Whether a JSON object is a multiclass estimate (``classes`` and ``per_class``) or a comparison of them
    (``classes`` and ``classifiers``)."""
    return isinstance(data, dict) and "classes" in data and ("per_class" in data or "classifiers" in data)


def _bad(path, field, what):
    raise SpeInputError(f"{field!r} {what}", path=path)


def _is_number(v):
    return v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))


def _interval(d, field, path, level):
    """An Interval from ``{"mean", "median", "lo", "hi"}`` (null read as NaN), checked."""
    if not isinstance(d, dict) or any(k not in d or not _is_number(d[k]) for k in ("mean", "median", "lo", "hi")):
        _bad(path, field, "is not an estimate {mean, median, lo, hi} of numbers")
    return Interval(*(float("nan") if d[k] is None else float(d[k]) for k in ("mean", "median", "lo", "hi")), level)


def _numbers(values, field, path, shape):
    """A JSON array of numbers (null as NaN) of ``shape``, checked."""
    try:
        out = np.array([[np.nan if v is None else v for v in row] for row in values] if len(shape) == 2
                       else [np.nan if v is None else v for v in values], dtype=float)
    except (TypeError, ValueError):
        _bad(path, field, "is not an array of numbers")
    if out.shape != tuple(shape):
        _bad(path, field, f"has shape {out.shape}, not {tuple(shape)}")
    return out


def _not_saved(query, path):
    raise NotSavedError(query, f"{query} needs the posterior draws, which this saved result does not hold: {_KEEP}",
                        path=path)


def _refuse(query):
    def method(self, *args, **kwargs):
        _not_saved(query, self.path)

    method.__name__ = query
    method.__doc__ = f"Raises :class:`~spe.exceptions.NotSavedError`: ``{query}`` needs the posterior draws."
    return method


class _SavedClassResult:
    """What both saved multiclass results read the same way from their JSON ``data``."""

    @property
    def classes(self) -> tuple:
        return tuple(str(c) for c in self.data["classes"])

    @property
    def n_items(self) -> int:
        return int(self.data["n_items"])

    @property
    def n_labeled(self) -> int:
        return int(self.data["n_labeled"])

    @property
    def level(self) -> float:
        return float(self.data["level"])

    @property
    def diagnostics(self) -> dict:
        return self.data.get("diagnostics", {})

    @property
    def warnings(self) -> list:
        return list(self.data.get("warnings", []))

    def save(self, path, level=None, performance="sample"):
        """Write the JSON back (whole or not at all); another level or performance raises NotSavedError."""
        save_json(self.to_dict(level, performance), path)


@dataclass(frozen=True)
class SavedMulticlassEvaluation(ClassSummary, _SavedClassResult):
    """A multiclass estimate read back from its JSON (:func:`spe.load`): the queries of
    :class:`~spe.multiclass.evaluation.MulticlassEvaluation` the file answers, at its level and performance.

    Attributes
    ----------
    data : dict
        The JSON, as read.
    path : str or None
    """

    data: dict
    path: str | None = None

    @classmethod
    def from_dict(cls, data, path=None, prefix=""):
        """Check every field the queries read (``prefix`` names a comparison's ``classifiers.NAME.``) and wrap
        the dict. Raises SpeInputError naming the file and the field."""
        if not isinstance(data, dict):
            raise SpeInputError("not a multiclass result (not a JSON object)", path=path)
        missing = next((k for k in ESTIMATE_KEYS if k not in data), None)
        if missing is not None:
            raise SpeInputError(f"not a multiclass result: no {prefix + missing!r}", path=path)
        saved = cls(data, path)
        saved._check(prefix)
        return saved

    def _check(self, prefix):
        d, path, level = self.data, self.path, self.data["level"]
        if not _is_number(level) or level is None or not 0 < level < 1:
            _bad(path, prefix + "level", f"is not a credible level in (0, 1) (got {level!r})")
        if not isinstance(d["classes"], list) or len(d["classes"]) < 2:
            _bad(path, prefix + "classes", "is not a list of two or more class names")
        for key in _SCALARS:
            _interval(d[key], prefix + key, path, level)
        for name in self.classes:
            _interval(d["prevalence"].get(name) if isinstance(d["prevalence"], dict) else None,
                      f"{prefix}prevalence.{name}", path, level)
            self._check_class(name, prefix)
        k = len(self.classes)
        for key in ("rates", "rates_lo", "rates_hi", "counts", "counts_lo", "counts_hi"):
            if not isinstance(d["confusion_matrix"], dict) or key not in d["confusion_matrix"]:
                _bad(path, f"{prefix}confusion_matrix.{key}", "is missing")
            _numbers(d["confusion_matrix"][key], f"{prefix}confusion_matrix.{key}", path, (k, k))

    def _check_class(self, name, prefix):
        d, path, level = self.data, self.path, self.data["level"]
        entry = d["per_class"].get(name) if isinstance(d["per_class"], dict) else None
        if not isinstance(entry, dict):
            _bad(path, f"{prefix}per_class.{name}", "is missing")
        for m in CLASS_METRICS:
            _interval(entry.get(m), f"{prefix}per_class.{name}.{m}", path, level)
        for curve, x, ys, grid in (("pr_curve", "recall", ("precision",), RECALL_GRID),
                                   ("roc_curve", "fpr", ("tpr",), FPR_GRID)):
            c = entry.get(curve)
            if not isinstance(c, dict):
                _bad(path, f"{prefix}per_class.{name}.{curve}", "is missing")
            for key in (x, *[y + s for y in ys for s in ("", "_lo", "_hi")]):
                _numbers(c.get(key, []), f"{prefix}per_class.{name}.{curve}.{key}", path, (grid.size,))

    @property
    def score_type(self) -> str:
        return str(self.data.get("score_type", "probabilities"))

    @property
    def top_ks(self) -> list:
        return sorted(int(k) for k in self.data["top_k_accuracy"])

    def _level(self, level, performance="sample", query="this query"):
        """The saved level; NotSavedError for another level or performance."""
        saved_performance = self.data.get("performance", "sample")
        if level is not None and not np.isclose(level, self.level):
            raise NotSavedError(query, f"{query} at level {level} needs the posterior draws; the file holds level "
                                f"{self.level}: {_KEEP}", path=self.path)
        if performance != saved_performance:
            raise NotSavedError(query, f"the {performance} performance needs the posterior draws; the file holds "
                                f"the {saved_performance} performance: {_KEEP}", path=self.path)
        return self.level

    def _scalar(self, key, level, performance="sample"):
        self._level(level, performance, key)
        return _interval(self.data[key], key, self.path, self.level)

    def accuracy(self, level=None, performance="sample") -> Interval:
        return self._scalar("accuracy", level, performance)

    def top_k_accuracy(self, k, level=None) -> Interval:
        if str(k) not in self.data["top_k_accuracy"]:
            raise ValueError(f"top-k accuracy is kept for k in {self.top_ks}")
        self._level(level, self.data.get("performance", "sample"), "top_k_accuracy")
        return _interval(self.data["top_k_accuracy"][str(k)], f"top_k_accuracy.{k}", self.path, self.level)

    def macro_f1(self, level=None, performance="sample") -> Interval:
        return self._scalar("macro_f1", level, performance)

    def weighted_f1(self, level=None, performance="sample") -> Interval:
        return self._scalar("weighted_f1", level, performance)

    def macro_average_precision(self, level=None) -> Interval:
        return self._scalar("macro_average_precision", level, self.data.get("performance", "sample"))

    def macro_roc_auc(self, level=None) -> Interval:
        return self._scalar("macro_roc_auc", level, self.data.get("performance", "sample"))

    def calibration_error(self, kind="top-label", level=None) -> Interval:
        key = "calibration_error" if kind == "top-label" else "classwise_calibration_error"
        if key not in self.data:
            raise NotSavedError("calibration_error", f"the {kind} calibration error is not in the file",
                                path=self.path)
        return self._scalar(key, level, self.data.get("performance", "sample"))

    def prevalence(self, level=None, performance="sample") -> dict:
        self._level(level, performance, "prevalence")
        return {c: _interval(self.data["prevalence"][c], f"prevalence.{c}", self.path, self.level)
                for c in self.classes}

    def per_class(self, level=None, performance="sample") -> dict:
        self._level(level, performance, "per_class")
        return {c: {m: _interval(self.data["per_class"][c][m], f"per_class.{c}.{m}", self.path, self.level)
                    for m in CLASS_METRICS} for c in self.classes}

    def confusion_matrix(self, normalize="true", level=None, performance="sample") -> dict:
        if normalize not in ("true", None):
            raise ValueError(f"normalize must be 'true' or None, got {normalize!r}")
        self._level(level, performance, "confusion_matrix")
        key = "rates" if normalize == "true" else "counts"
        cm, k = self.data["confusion_matrix"], len(self.classes)
        return {"mean": _numbers(cm[key], key, self.path, (k, k)),
                "lo": _numbers(cm[f"{key}_lo"], key, self.path, (k, k)),
                "hi": _numbers(cm[f"{key}_hi"], key, self.path, (k, k))}

    @property
    def class_thresholds(self) -> dict:
        return dict(self.diagnostics.get("class_thresholds", {}))

    def at_thresholds(self, level=None, performance="sample") -> dict:
        self._level(level, performance, "at_thresholds")
        out = {}
        for name in self.class_thresholds:
            a = self.data["per_class"][name].get("at_threshold")
            if a is None:
                _bad(self.path, f"per_class.{name}.at_threshold", "is missing")
            out[name] = {"threshold": a["threshold"], **{m: _interval(a[m], f"per_class.{name}.at_threshold.{m}",
                                                                      self.path, self.level)
                                                         for m in ("precision", "recall", "f1")}}
        return out

    def _band(self, cls, curve, x, y, grid, level):
        self._level(level, self.data.get("performance", "sample"), curve)
        c = self.data["per_class"][self.classes[self.class_index(cls)]][curve]
        return CurveBand(grid, *(_numbers(c[k], k, self.path, (grid.size,)) for k in (y, f"{y}_lo", f"{y}_hi")),
                         self.level)

    def pr_curve(self, cls, level=None) -> CurveBand:
        return self._band(cls, "pr_curve", "recall", "precision", RECALL_GRID, level)

    def roc_curve(self, cls, level=None) -> CurveBand:
        return self._band(cls, "roc_curve", "fpr", "tpr", FPR_GRID, level)

    def to_dict(self, level=None, performance="sample") -> dict:
        self._level(level, performance, "to_dict")
        return dict(self.data)

    suggest = _refuse("suggest")
    item_probabilities = _refuse("item_probabilities")
    items_frame = _refuse("items_frame")
    accuracy_by_labels = _refuse("accuracy_by_labels")
    metric_draws = _refuse("metric_draws")
    class_metric_draws = _refuse("class_metric_draws")
    confusion_draws = _refuse("confusion_draws")
    threshold_draws = _refuse("threshold_draws")
    reliability = _refuse("reliability")

    def __repr__(self):
        return (f"<SavedMulticlassEvaluation: {self.n_items} items, {len(self.classes)} classes, {self.n_labeled} "
                f"labeled; accuracy {self.accuracy()}>")


@dataclass(frozen=True)
class SavedMulticlassComparison(ComparisonSummary, _SavedClassResult):
    """A multiclass comparison read back from its JSON (:func:`spe.load`): each classifier's
    :class:`SavedMulticlassEvaluation`, the saved differences and ranking, at the file's level and performance.

    Attributes
    ----------
    data : dict
    path : str or None
    """

    data: dict
    path: str | None = None

    @classmethod
    def from_dict(cls, data, path=None):
        """Check every classifier's estimate and the comparisons, and wrap the dict."""
        for key in ("n_items", "n_labeled", "level", "classes", "classifiers", "comparisons", "ranking"):
            if key not in data:
                raise SpeInputError(f"not a multiclass comparison: no {key!r}", path=path)
        if not isinstance(data["classifiers"], dict) or len(data["classifiers"]) < 2:
            _bad(path, "classifiers", "does not hold two or more classifiers' estimates")
        for name, ev in data["classifiers"].items():
            SavedMulticlassEvaluation.from_dict(ev, path, prefix=f"classifiers.{name}.")
        for i, c in enumerate(data["comparisons"] + data.get("per_class_comparisons", [])):
            if not isinstance(c, dict) or not {"a", "b", "metric", "difference", "p_a_better"} <= set(c):
                _bad(path, f"comparisons[{i}]", "is not {a, b, metric, difference, p_a_better}")
            _interval(c["difference"], f"comparisons[{i}].difference", path, data["level"])
        return cls(data, path)

    @property
    def names(self) -> list:
        return list(self.data["classifiers"])

    def __getitem__(self, name) -> SavedMulticlassEvaluation:
        if name not in self.data["classifiers"]:
            raise SpeInputError(f"{name!r} is none of the classifiers {', '.join(self.names)}", argument="name")
        return SavedMulticlassEvaluation(self.data["classifiers"][name], self.path)

    def _level(self, level, performance="sample", query="this query"):
        return self[self.names[0]]._level(level, performance, query)

    def _saved(self, a, b, metric, query):
        """The saved entry of the pair (either order: b − a is the negated a − b) and metric."""
        for name in (a, b):
            self[name]  # an unknown name raises
        base, _, cls = str(metric).partition(":")
        rows = self.data["comparisons"] if not cls else self.data.get("per_class_comparisons", [])
        for c in rows:
            if c["metric"] == base and c.get("class", cls or None) == (cls or None) and {c["a"], c["b"]} == {a, b}:
                return c, c["a"] == a
        raise NotSavedError(query, f"{query} of {metric!r} needs the posterior draws; the file holds "
                            f"{sorted({c['metric'] for c in rows})}: {_KEEP}", path=self.path)

    def difference(self, a, b, metric="accuracy", level=None, performance="sample") -> Interval:
        """The saved metric(a) − metric(b); for the pair in the other order than the file's, the saved interval
        negated (its median and ends may then differ from the live result's by one draw's step)."""
        self._level(level, performance, "difference")
        c, same = self._saved(a, b, metric, "difference")
        d = _interval(c["difference"], "difference", self.path, self.level)
        return d if same else Interval(-d.mean, -d.median, -d.hi, -d.lo, d.level)

    def probability_better(self, a, b, metric="accuracy", performance="sample") -> float:
        self._level(None, performance, "probability_better")
        c, same = self._saved(a, b, metric, "probability_better")
        p = float("nan") if c["p_a_better"] is None else float(c["p_a_better"])
        return p if same else 1.0 - p

    def ranking(self, metric="accuracy", performance="sample") -> list:
        self._level(None, performance, "ranking")
        if metric != "accuracy":
            _not_saved(f"ranking by {metric}", self.path)
        return [dict(r) for r in self.data["ranking"]]

    def comparisons(self, metrics=None, level=None, performance="sample") -> list:
        self._level(level, performance, "comparisons")
        return [dict(c) for c in self.data["comparisons"] if metrics is None or c["metric"] in metrics]

    def class_comparisons(self, metrics=None, level=None, performance="sample") -> list:
        self._level(level, performance, "class_comparisons")
        return [dict(c) for c in self.data.get("per_class_comparisons", [])
                if metrics is None or c["metric"] in metrics]

    def to_dict(self, level=None, performance="sample") -> dict:
        self._level(level, performance, "to_dict")
        return dict(self.data)

    suggest = _refuse("suggest")
    metric_draws = _refuse("metric_draws")

    def __repr__(self):
        return (f"<SavedMulticlassComparison: {len(self.names)} classifiers, {self.n_items} items, "
                f"{len(self.classes)} classes, {self.n_labeled} labeled>")
