"""Results read back from their JSON: :func:`load` of what ``spe estimate --json``, ``spe compare --json``,
:meth:`Evaluation.save` and :meth:`Comparison.save` write.

The JSON holds the summaries at the credible level they were written at
(the intervals, the PR, ROC and threshold curves with their bands, a
comparison's differences and ranking, the diagnostics and the warnings) and,
when saved with ``items=True``, every item's score, label and probability;
never the posterior draws. A :class:`SavedEvaluation` has every query of
:class:`~spe.evaluation.Evaluation` (and a :class:`SavedComparison` every
query of :class:`~spe.comparison.Comparison`), with the same names,
arguments and types. Those the file answers give the original's answer
exactly (``prevalence()``, ``pr_curve()``, ``precision_curve()``,
``to_frame()``, ``mixture_weight()``, ``difference(a, b)``,
``probability_better(a, b)``, ``item_probabilities()`` when saved, …); it
shows itself in a notebook and overlays on a plot
(:func:`spe.plot.plot_pr_curve`, :func:`spe.plot.plot_roc_curve`). The
others raise :class:`~spe.exceptions.NotSavedError` (an ``SpeInputError``)
naming the query, what it needs and how to keep it: another credible level
or the population performance, the metrics at a threshold
(``metrics_at``), the threshold choice (``best_threshold``,
``threshold_probability``), the items to label next (``suggest``,
``plan_labels``), ArviZ (``to_inference_data``) and the fitted model
(``class_densities``) need the posterior draws: keep the live result, or
``pickle.dump(ev, f)``, which keeps them.

:func:`load` checks every field it reads when it reads the file (an
``SpeInputError`` names the file and the field), so a loaded result fails
now or not at all.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .comparison import differences_frame
from .display import classifiers_frame, comparison_html, comparison_repr, result_html, result_repr
from .evaluation import (PERFORMANCE_KINDS, CurveBand, Interval, item_index, labels_only_prior, metrics_frame,
                         score_model_frame)
from .exceptions import NotSavedError, SpeInputError
from .inputs import check_choice
from .metrics import REGISTRY as METRICS
from .metrics import ranking_metric_names, threshold_metric_names
from .output import save_json

__all__ = ["load", "SavedEvaluation", "SavedComparison"]

#: What an estimate's JSON must hold (DESIGN.md, the CLI contract).
_ESTIMATE_KEYS = ("n_items", "n_labeled", "level", "prevalence", "average_precision", "roc_auc", "pr_curve",
                  "roc_curve")

#: Each curve of an estimate's JSON: its key, its grid and the curves on that grid (each with ``_lo`` and
#: ``_hi`` bands).
_CURVES = (("pr_curve", "recall", ("precision",)), ("roc_curve", "fpr", ("tpr",)),
           ("threshold_curve", "threshold", ("precision", "recall")))

#: How to keep what a saved result does not hold (the end of every NotSavedError's message).
_KEEP_DRAWS = ("keep the live result, or pickle it (pickle.dump(ev, f)), which keeps the posterior draws; the "
               "JSON holds the summaries only")


def load(path):
    """Read a result written as JSON by ``spe estimate --json``, ``spe compare --json``, ``Evaluation.save`` or
    ``Comparison.save``.

    Parameters
    ----------
    path : str or path-like
        The JSON file.

    Returns
    -------
    SavedEvaluation, SavedComparison, SavedMulticlassEvaluation or SavedMulticlassComparison
        A comparison when the file holds ``classifiers`` (``spe compare``), else an evaluation; the multiclass
        ones (:mod:`spe.multiclass.saved`) when it holds ``classes`` (a K-class result).

    Raises
    ------
    SpeInputError
        The file cannot be read, is not JSON (naming the line and column), or is not such a result: a key
        missing, or a field of the wrong type or length (naming the file and the field, e.g.
        ``pr_curve.precision_lo``), so that a loaded result does not fail later.

    Examples
    --------
    >>> import numpy as np, spe, tempfile, os
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(1000) < 0.3
    >>> s = np.where(y, rng.normal(2, 1, 1000), rng.normal(0, 1, 1000))
    >>> ev = spe.evaluate(s, {i: int(y[i]) for i in range(20)}, families="truncnorm,truncnorm", draws=200, rng=0)
    >>> path = ev.save(os.path.join(tempfile.mkdtemp(), "ev.json"))
    >>> back = spe.load(path)
    >>> back.average_precision() == ev.average_precision()
    True
    """
    from .multiclass.saved import SavedMulticlassComparison, SavedMulticlassEvaluation, is_multiclass_result

    data = _read_json(path)
    if is_multiclass_result(data):
        if "classifiers" in data:
            return SavedMulticlassComparison.from_dict(data, str(path))
        return SavedMulticlassEvaluation.from_dict(data, str(path))
    if isinstance(data, dict) and "classifiers" in data:
        return SavedComparison.from_dict(data, str(path))
    return SavedEvaluation.from_dict(data, str(path))


def _read_json(path):
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise SpeInputError(f"cannot read it: {getattr(e, 'strerror', None) or e}", path=str(path)) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise SpeInputError(f"not JSON: {e.msg} at line {e.lineno}, column {e.colno}", path=str(path)) from None


def _check_keys(data, keys, what, path):
    """Raise ``SpeInputError`` (naming ``path``) unless ``data`` is a JSON object holding every one of ``keys``."""
    if not isinstance(data, dict):
        raise SpeInputError(f"not a result of {what} (not a JSON object)", path=path)
    missing = next((k for k in keys if k not in data), None)
    if missing is not None:
        raise SpeInputError(f"not a result of {what}: no {missing!r}", path=path)


def _number(value):
    """A JSON number, with null (what the JSON writes for NaN) back to NaN."""
    return float("nan") if value is None else float(value)


def _is_number(value, null=True):
    return (value is None and null) or (isinstance(value, (int, float)) and not isinstance(value, bool))


def _bad(path, field, what):
    raise SpeInputError(f"{field!r} {what}", path=path)


def _check_numbers(values, field, path, length=None):
    """A JSON list of numbers or null at ``field``, of ``length`` when given: its length."""
    if not isinstance(values, list):
        _bad(path, field, "is not a list of numbers")
    bad = next((i for i, v in enumerate(values) if not _is_number(v)), None)
    if bad is not None:
        _bad(path, f"{field}[{bad}]", f"is not a number (got {values[bad]!r})")
    if length is not None and len(values) != length:
        _bad(path, field, f"has {len(values)} values, not {length} as its grid")
    return len(values)


def _check_estimate(data, path, prefix=""):
    """Check every field of an estimate's JSON that :class:`SavedEvaluation` reads; raise ``SpeInputError``
    naming ``path`` and the field (``prefix`` before it: a comparison's ``classifiers.NAME.``)."""
    _check_keys(data, _ESTIMATE_KEYS, "spe estimate or spe compare --json", path)
    for key in ("n_items", "n_labeled"):
        if not isinstance(data[key], int) or isinstance(data[key], bool) or data[key] < 0:
            _bad(path, prefix + key, f"is not a count of items (got {data[key]!r})")
    if not _is_number(data["level"], null=False) or not 0 < data["level"] < 1:
        _bad(path, prefix + "level", f"is not a credible level in (0, 1) (got {data['level']!r})")
    if data.get("performance", "sample") not in PERFORMANCE_KINDS:
        _bad(path, prefix + "performance", f"is not one of {PERFORMANCE_KINDS}")
    for name in ranking_metric_names():
        if name in data:
            value = data[name]
            if not isinstance(value, dict):
                _bad(path, prefix + name, "is not an interval (mean, median, lo, hi)")
            for k in ("mean", "median", "lo", "hi"):
                if k not in value:
                    _bad(path, f"{prefix}{name}.{k}", "is missing")
                if not _is_number(value[k]):
                    _bad(path, f"{prefix}{name}.{k}", f"is not a number (got {value[k]!r})")
    for key, grid, curves in _CURVES:
        if key in data or key != "threshold_curve":
            _check_curve(data[key], f"{prefix}{key}", grid, curves, path)
    for key, kind in (("families", dict), ("diagnostics", dict), ("warnings", list)):
        if data.get(key) is not None and not isinstance(data[key], kind):
            _bad(path, prefix + key, f"is not a JSON {'object' if kind is dict else 'list'}")
    if "items" in data:
        _check_items(data["items"], data, prefix + "items", path)


def _check_curve(curve, field, grid, curves, path):
    if not isinstance(curve, dict):
        _bad(path, field, "is not a JSON object")
    fields = [grid, *(c + end for c in curves for end in ("", "_lo", "_hi"))]
    missing = next((f for f in fields if f not in curve), None)
    if missing is not None:
        _bad(path, f"{field}.{missing}", "is missing")
    length = _check_numbers(curve[grid], f"{field}.{grid}", path)
    for f in fields[1:]:
        _check_numbers(curve[f], f"{field}.{f}", path, length)


def _check_items(items, data, field, path, classifiers=None):
    """``items`` of ``save(path, items=True)``: score (or, of a comparison, classifier → scores), label,
    probability, and a pool's count, all of one length."""
    if not isinstance(items, dict):
        _bad(path, field, "is not a JSON object")
    missing = next((k for k in ("score", "label", "probability") if k not in items), None)
    if missing is not None:
        _bad(path, f"{field}.{missing}", "is missing")
    length = _check_numbers(items["probability"], f"{field}.probability", path)
    if classifiers is None:
        _check_numbers(items["score"], f"{field}.score", path, length)
    elif not isinstance(items["score"], dict) or list(items["score"]) != list(classifiers):
        _bad(path, f"{field}.score", "does not hold one list of scores per classifier")
    else:
        for name in classifiers:
            _check_numbers(items["score"][name], f"{field}.score.{name}", path, length)
    _check_numbers(items["label"], f"{field}.label", path, length)
    if any(v not in (None, 0, 1) for v in items["label"]):
        _bad(path, f"{field}.label", "holds a label other than 0, 1 or null")
    if "count" in items:
        _check_numbers(items["count"], f"{field}.count", path, length)


def _array(values):
    return np.array([_number(v) for v in values], dtype=float)


def _not_saved(query, needs="the posterior draws", keep=_KEEP_DRAWS, path=None, argument=None):
    """The :class:`NotSavedError` of a saved result's ``query``: what it needs, and how to keep it."""
    raise NotSavedError(query, f"{query} needs {needs}, which this saved result does not hold: {keep}",
                        path=path, argument=argument)


def _refuse(query, needs="the posterior draws", keep=_KEEP_DRAWS):
    """A method of a saved result that raises :class:`NotSavedError` for ``query``, whatever its arguments."""
    def method(self, *args, **kwargs):
        _not_saved(query, needs, keep, self.path)

    method.__name__ = query.partition("(")[0]
    method.__doc__ = (f"Raises :class:`~spe.exceptions.NotSavedError`: ``{query}`` needs {needs}, which the JSON "
                      f"does not hold ({keep}).")
    return method


def _refused_property(name, needs="the posterior draws"):
    def get(self):
        _not_saved(name, needs, _KEEP_DRAWS, self.path)

    return property(get, doc=f"Raises :class:`~spe.exceptions.NotSavedError`: ``{name}`` needs {needs}.")


def _labeled_property(name, part, what):
    """A saved result's ``labeled_index`` (``part`` 0) or ``labeled_value`` (1), read from its saved items."""
    def get(self):
        return _labeled(self._items(name))[part]

    return property(get, doc=f"{what}, when saved with ``items=True``; else raises "
                             ":class:`~spe.exceptions.NotSavedError`.")


#: How to keep the items of a saved result.
_KEEP_ITEMS = ("save the result with save(path, items=True) (every item's score, label and probability), or "
               "keep the live result; spe estimate --items writes them as CSV, to 6 significant digits")

#: How to keep the threshold choice (its own JSON, or the live result).
_KEEP_THRESHOLD = ("save the choice itself when the result is made (ev.best_threshold(...).to_dict(), or spe "
                   "threshold --json), or " + _KEEP_DRAWS)


@dataclass(frozen=True)
class SavedEvaluation:
    """An evaluation read back from its JSON (:func:`load`): the summaries at the level it was written at.

    It has every query of :class:`~spe.evaluation.Evaluation`. Those the JSON answers give the original's
    answer at the saved level (the whole-ranking metrics, the PR, ROC, precision and recall curves with their
    bands, :meth:`mixture_weight`, the score models, and with ``save(path, items=True)`` the items); the
    others, and another level or performance, raise :class:`~spe.exceptions.NotSavedError` naming the query,
    what it needs (the posterior draws, or the items) and how to keep it.

    Attributes
    ----------
    data : dict
        The JSON as read (:meth:`to_dict` returns a copy).
    path : str or None
        The file it was read from.
    """

    data: dict
    path: str | None = None

    @classmethod
    def from_dict(cls, data, path=None):
        """Check that ``data`` is an estimate's JSON (raises ``SpeInputError`` naming a missing or bad field)."""
        _check_estimate(data, path)
        return cls(data, path)

    n_items = property(lambda self: int(self.data["n_items"]), doc="N, the items evaluated.")
    n_labeled = property(lambda self: int(self.data["n_labeled"]), doc="n, the labeled items.")
    level = property(lambda self: float(self.data["level"]), doc="The credible level of every interval and band.")
    performance = property(lambda self: self.data.get("performance", "sample"), doc='"sample" or "population".')
    families = property(lambda self: dict(self.data.get("families") or {}), doc="The SPE mixture's families.")
    diagnostics = property(lambda self: self.data.get("diagnostics") or {}, doc="As Evaluation.diagnostics.")
    warnings = property(lambda self: list(self.data.get("warnings") or []), doc="The warnings, as written.")
    weights = _refused_property("weights")
    model = _refused_property("model", needs="the fitted model")

    @property
    def scores(self):
        """The scores (N,) (a pool's K values), score units, when saved with ``items=True``; else raises
        :class:`~spe.exceptions.NotSavedError`."""
        return _array(self._items("scores")["score"])

    @property
    def ids(self):
        """The items' ids (N,) as :attr:`Evaluation.ids` (None when the scores carried none), when saved with
        ``items=True``; else raises :class:`~spe.exceptions.NotSavedError`."""
        ids = self._items("ids").get("id")
        return None if ids is None else np.asarray(ids)

    labeled_index = _labeled_property("labeled_index", 0, "Positions of the labeled items (n,)")
    labeled_value = _labeled_property("labeled_value", 1, "Their labels (n,), 0 or 1")

    @property
    def counts(self):
        """A pool's counts (K,) as :attr:`Evaluation.counts` (saved with ``items=True``), None when the scores
        were not pooled. Raises :class:`~spe.exceptions.NotSavedError` for a pool saved without its items."""
        if not self.diagnostics.get("pool"):
            return None
        return np.asarray(self._items("counts")["count"], dtype=np.int64)

    def _check_level(self, level, performance="sample", query="this query"):
        if level is not None and not np.isclose(float(level), self.level):
            _not_saved(f"{query} at level {float(level):g}", needs="the posterior draws", argument="level",
                       keep=f"this result was saved at level {self.level:g}, and holds no other level; "
                            f"{_KEEP_DRAWS} (or save it at that level: ev.save(path, level={float(level):g}))")
        if performance != self.performance:
            check_choice("performance", performance, PERFORMANCE_KINDS)
            _not_saved(f"{query} of the {performance} performance", needs="the posterior draws",
                       argument="performance",
                       keep=f"this result holds the {self.performance} performance; {_KEEP_DRAWS} (or save "
                            f"it with ev.save(path, performance={performance!r}))")

    def metric(self, name, threshold=None, level=None, performance="sample") -> Interval:
        """A whole-ranking metric saved in the JSON (``prevalence``, ``average_precision``, ``roc_auc``, …) as
        an :class:`Interval` at the saved level (``threshold`` is ignored, as :meth:`Evaluation.metric` does).
        Raises ``SpeInputError`` for an unknown metric or a metric at a threshold without one, and
        :class:`~spe.exceptions.NotSavedError` for a metric at a threshold (it needs the draws), a metric not
        saved, another level or another performance."""
        if name not in METRICS:
            raise SpeInputError(f"unknown metric {name!r}; known: {tuple(METRICS)}", argument="name")
        if METRICS[name].at_threshold and threshold is None:
            raise SpeInputError(f"metric {name!r} needs a threshold (score units)", argument="threshold")
        if METRICS[name].at_threshold:
            _not_saved(f"metric({name!r}, threshold={threshold!r})", path=self.path, argument="threshold")
        self._check_level(level, performance, f"metric({name!r})")
        value = self.data.get(name)
        if not isinstance(value, dict):
            _not_saved(f"metric({name!r})", path=self.path,
                       keep=f"the JSON holds {', '.join(self.metric_names())}; save it again from the live result")
        return Interval(*(_number(value.get(k)) for k in ("mean", "median", "lo", "hi")), self.level)

    def metric_names(self):
        """The whole-ranking metrics the JSON holds, in the registry's order."""
        return [n for n in METRICS if isinstance(self.data.get(n), dict) and "mean" in self.data[n]]

    def prevalence(self, level=None, performance="sample") -> Interval:
        """The prevalence, as saved."""
        return self.metric("prevalence", level=level, performance=performance)

    def average_precision(self, level=None, performance="sample") -> Interval:
        """The average precision, as saved."""
        return self.metric("average_precision", level=level, performance=performance)

    def roc_auc(self, level=None, performance="sample") -> Interval:
        """The ROC AUC, as saved."""
        return self.metric("roc_auc", level=level, performance=performance)

    def equal_error_rate(self, level=None, performance="sample") -> Interval:
        """The equal error rate, as saved."""
        return self.metric("equal_error_rate", level=level, performance=performance)

    def _curve(self, key, x, y, level, performance):
        self._check_level(level, performance, key)
        c = self.data[key]
        return CurveBand(_array(c[x]), _array(c[y]), _array(c[f"{y}_lo"]), _array(c[f"{y}_hi"]), self.level)

    def pr_curve(self, level=None, performance="sample") -> CurveBand:
        """Precision (median, band) on the saved recall grid (G,)."""
        return self._curve("pr_curve", "recall", "precision", level, performance)

    def roc_curve(self, level=None, performance="sample") -> CurveBand:
        """True positive rate (median, band) on the saved false-positive-rate grid."""
        return self._curve("roc_curve", "fpr", "tpr", level, performance)

    def threshold_curve(self, metric="precision", level=None, performance="sample") -> CurveBand:
        """A metric against the saved thresholds (T,), score units, with its band: ``precision`` and
        ``recall`` are saved; the other metrics at a threshold (``f1``, …) raise
        :class:`~spe.exceptions.NotSavedError` (their bands need the draws), an unknown one ``SpeInputError``."""
        check_choice("metric", metric, threshold_metric_names())
        if metric not in ("precision", "recall"):
            _not_saved(f"threshold_curve({metric!r})", path=self.path, argument="metric")
        if "threshold_curve" not in self.data:
            _not_saved(f"threshold_curve({metric!r})", needs="the threshold curve", path=self.path,
                       keep="this JSON was written without it; save it again from the live result")
        return self._curve("threshold_curve", "threshold", metric, level, performance)

    def precision_curve(self, level=None, performance="sample") -> CurveBand:
        """Precision against the saved thresholds (score units); see :meth:`threshold_curve`."""
        return self.threshold_curve("precision", level, performance)

    def recall_curve(self, level=None, performance="sample") -> CurveBand:
        """Recall against the saved thresholds (score units); see :meth:`threshold_curve`."""
        return self.threshold_curve("recall", level, performance)

    metrics_at = _refuse("metrics_at")
    metric_draws = _refuse("metric_draws")
    metric_draws_at = _refuse("metric_draws_at")
    threshold_probability = _refuse("threshold_probability", keep=_KEEP_THRESHOLD)
    requirement_draws = _refuse("requirement_draws", keep=_KEEP_THRESHOLD)
    requirement_check = _refuse("requirement_check", keep=_KEEP_THRESHOLD)
    best_threshold = _refuse("best_threshold", keep=_KEEP_THRESHOLD)
    suggest = _refuse("suggest")
    plan_labels = _refuse("plan_labels")
    performance_of = _refuse("performance_of")
    labeled_points = _refuse("labeled_points")
    probability_at = _refuse("probability_at", keep=f"{_KEEP_DRAWS} (item_probabilities() answers from a JSON "
                                                   "saved with items=True)")
    probability_grid = _refuse("probability_grid")
    mixture_model = _refuse("mixture_model", needs="the fitted model")
    class_densities = _refuse("class_densities", needs="the SPE mixture's posterior draws")
    to_inference_data = _refuse("to_inference_data")

    def mixture_weight(self) -> float:
        """The SPE mixture's weight among the score models, from ``diagnostics["score_models"]``: as
        :meth:`Evaluation.mixture_weight` (0 when it was not fitted)."""
        models = self.diagnostics.get("score_models") or []
        return next((float(m["weight"]) for m in models if str(m.get("model", "")).startswith("mixture(")), 0.0)

    def _items(self, query):
        items = self.data.get("items")
        if items is None:
            _not_saved(query, needs="the items", keep=_KEEP_ITEMS, path=self.path)
        return items

    def item_probabilities(self):
        """p̂(y_i = 1 | S, Y_L) of every item, (N,) (a pool's K values), as :meth:`Evaluation.item_probabilities`
        gave them when saved with ``items=True``; else raises :class:`~spe.exceptions.NotSavedError`."""
        return _array(self._items("item_probabilities")["probability"])

    def items_dict(self) -> dict:
        """The ``items`` saved with ``items=True`` (as :meth:`Evaluation.items_dict`); else raises
        :class:`~spe.exceptions.NotSavedError`."""
        return json.loads(json.dumps(self._items("items_dict")))

    def items_frame(self, ids=None):
        """Every item as :meth:`Evaluation.items_frame`'s DataFrame, from the items saved with ``items=True``
        (else raises :class:`~spe.exceptions.NotSavedError`); ``SpeInputError`` when ``ids`` has not N
        entries."""
        items = self._items("items_frame")
        return _items_frame(items, {"score": None}, items.get("id") if ids is None else ids)

    def to_frame(self, level=None, performance="sample"):
        """The saved whole-ranking metrics as :meth:`Evaluation.to_frame`'s tidy DataFrame."""
        return metrics_frame({n: self.metric(n, level=level, performance=performance) for n in self.metric_names()},
                             self.level)

    def labels_only_prior(self):
        """As :meth:`Evaluation.labels_only_prior` (from the saved diagnostics)."""
        return labels_only_prior(self.diagnostics)

    def score_model_table(self):
        """The score models by weight, as :meth:`Evaluation.score_model_table`."""
        return score_model_frame(self.diagnostics)

    def to_dict(self, level=None, performance="sample", items=False) -> dict:
        """The JSON as read (a deep copy), at the saved level and performance (another raises
        :class:`~spe.exceptions.NotSavedError`); ``items`` only when ``items=True``."""
        self._check_level(level, performance, "to_dict")
        return _json_copy(self.data, items, self._items)

    def save(self, path, level=None, performance="sample", items=False):
        """Write :meth:`to_dict` to ``path`` as JSON, whole or not at all (as :meth:`Evaluation.save`); returns
        ``path``."""
        return save_json(self.to_dict(level, performance, items), path)

    def summary(self, level=None, performance="sample", warnings=True) -> str:
        """A short text: the counts, the families and the saved metrics with their intervals (``warnings=False``
        leaves out the warnings)."""
        self._check_level(level, performance, "summary")
        pct = f"{100 * self.level:g}%"
        lines = [self._counts()]
        if self.families.get("negative"):
            lines.append(f"SPE mixture: {self.families['negative']} (negative) and {self.families['positive']} "
                         "(positive)")
        lines.append(f"{self.performance} performance, posterior mean [{pct} credible interval]:")
        lines += [f"  {METRICS[n].label:<19s}{self.metric(n)}" for n in self.metric_names()]
        lines += [f"warning: {w}" for w in self.warnings] if warnings else []
        return "\n".join(lines)

    def _counts(self):
        where = f" from {self.path}" if self.path else ""
        return f"spe.SavedEvaluation{where}: {self.n_items} items, {self.n_labeled} labeled"

    def __repr__(self):
        return result_repr(self._counts(), self)

    def _repr_html_(self):
        return result_html(self._counts(), self)


def _labeled(items):
    """(positions (n,), labels (n,)) of the labeled items of a saved ``items``."""
    label = items["label"]
    index = np.array([i for i, v in enumerate(label) if v is not None], dtype=np.int64)
    return index, np.array([label[i] for i in index], dtype=np.int64)


def _json_copy(data, items, saved_items):
    """A deep copy of a saved result's JSON ``data``, its ``items`` kept only when ``items`` is true (then
    ``saved_items(query)`` refuses a result saved without them)."""
    data = json.loads(json.dumps(data))
    if items:
        saved_items("to_dict(items=True)")
    else:
        data.pop("items", None)
    return data


def _items_frame(items, scores, ids):
    """The items table of a saved result from its ``items``: ``scores`` {column: list or None (items["score"])},
    ``label`` (Int64), ``probability`` and a pool's ``count``, indexed by ``ids`` or the positions."""
    import pandas as pd

    label = pd.array(items["label"], dtype="Int64")
    columns = {name: _array(items["score"] if v is None else v) for name, v in scores.items()}
    columns.update(label=label, probability=_array(items["probability"]))
    if "count" in items:
        columns["count"] = np.asarray(items["count"], dtype=np.int64)
    return pd.DataFrame(columns, index=item_index(ids, len(label)))


@dataclass(frozen=True)
class SavedComparison:
    """A comparison read back from its JSON (:func:`load`): each classifier a :class:`SavedEvaluation`, the
    pairwise differences and the ranking, at the level it was written at.

    It has every query of :class:`~spe.comparison.Comparison`: the saved ones give the original's answer
    (:meth:`difference` and :meth:`probability_better` of a saved pair and metric, :meth:`ranking` by average
    precision, :meth:`comparisons`, the items when saved with ``items=True``); the others raise
    :class:`~spe.exceptions.NotSavedError` naming the query, what it needs and how to keep it.

    Attributes
    ----------
    data : dict
    path : str or None
    """

    data: dict
    path: str | None = None

    @classmethod
    def from_dict(cls, data, path=None):
        """Check that ``data`` is a comparison's JSON (raises ``SpeInputError`` naming a missing or bad
        field)."""
        _check_keys(data, ("classifiers", "comparisons", "level"), "spe compare --json", path)
        if not isinstance(data["classifiers"], dict) or not data["classifiers"]:
            _bad(path, "classifiers", "does not hold one estimate per classifier")
        for name, entry in data["classifiers"].items():
            _check_estimate(entry, path, prefix=f"classifiers.{name}.")
        _check_comparisons(data, path)
        if "items" in data:
            _check_items(data["items"], data, "items", path, classifiers=list(data["classifiers"]))
        return cls(data, path)

    names = property(lambda self: list(self.data["classifiers"]), doc="The classifiers' names, K.")
    level = property(lambda self: float(self.data["level"]), doc="The credible level.")
    n_items = property(lambda self: int(self.data.get("n_items", 0)), doc="N.")
    warnings = property(lambda self: list(self.data.get("warnings") or []), doc="The warnings, as written.")
    performance = property(lambda self: self.data.get("performance", "sample"), doc='"sample" or "population".')
    diagnostics = property(lambda self: self.data.get("diagnostics") or {}, doc="As Comparison.diagnostics.")
    evaluations = property(lambda self: {n: self[n] for n in self.names}, doc="name → SavedEvaluation.")
    weights = _refused_property("weights")
    model = _refused_property("model", needs="the fitted joint model")

    labeled_index = _labeled_property("labeled_index", 0, "Positions of the labeled items (n,)")
    labeled_value = _labeled_property("labeled_value", 1, "Their labels (n,), 0 or 1")

    def __getitem__(self, name) -> SavedEvaluation:
        """One classifier's :class:`SavedEvaluation` (with its items when the comparison saved them)."""
        if name not in self.data["classifiers"]:
            raise SpeInputError(f"no classifier {name!r}; the classifiers are {', '.join(self.names)}",
                                argument="name")
        entry = self.data["classifiers"][name]
        if "items" in self.data:
            items = self.data["items"]
            entry = {**entry, "items": {"score": items["score"][name], "label": items["label"],
                                        "probability": items["probability"]}}
        return SavedEvaluation(entry, self.path)

    def _check(self, level, performance, query):
        self[self.names[0]]._check_level(level, performance, query)

    def _saved(self, a, b, metric, query):
        """The saved entry of ``comparisons`` for (a, b, metric), and whether it is b − a (the pair reversed)."""
        for name in (a, b):
            self[name]
        for c in self.data["comparisons"]:
            if c["metric"] == metric and (c["a"], c["b"]) in ((a, b), (b, a)):
                return c, c["a"] != a
        saved = sorted({c["metric"] for c in self.data["comparisons"]})
        _not_saved(f"{query}({a!r}, {b!r}, {metric!r})", path=self.path,
                   keep=f"the JSON holds the differences by {', '.join(saved)}; {_KEEP_DRAWS}")

    def difference(self, a, b, metric="average_precision", level=None, performance="sample") -> Interval:
        """metric(a) − metric(b) as saved (:meth:`Comparison.difference`), for a pair in the order of
        ``names``; the reversed pair, another metric, level or performance raise
        :class:`~spe.exceptions.NotSavedError` (the median of b − a needs the draws)."""
        self._check(level, performance, "difference")
        c, reversed_ = self._saved(a, b, metric, "difference")
        if reversed_:
            _not_saved(f"difference({a!r}, {b!r}, {metric!r})", path=self.path,
                       keep=f"the JSON holds {b} − {a} (the order of the classifiers); ask difference({b!r}, "
                            f"{a!r}, {metric!r}), or {_KEEP_DRAWS}")
        d = c["difference"]
        return Interval(*(_number(d.get(k)) for k in ("mean", "median", "lo", "hi")), self.level)

    def probability_better(self, a, b, metric="average_precision", performance="sample") -> float:
        """P(a better than b by ``metric``) as saved (:meth:`Comparison.probability_better`); of the reversed
        pair, 1 − the saved one (ties count one half either way). Another metric or performance raises
        :class:`~spe.exceptions.NotSavedError`."""
        self._check(None, performance, "probability_better")
        c, reversed_ = self._saved(a, b, metric, "probability_better")
        p = _number(c["p_a_better"])
        return 1.0 - p if reversed_ else p

    def ranking(self, metric="average_precision", performance="sample") -> list:
        """``[{"name", "p_best", "mean"}]`` by average precision, best first, as saved; another metric or
        performance raises :class:`~spe.exceptions.NotSavedError`."""
        self._check(None, performance, "ranking")
        if metric != "average_precision":
            _not_saved(f"ranking({metric!r})", path=self.path,
                       keep=f"the JSON holds the ranking by average precision; {_KEEP_DRAWS}")
        return json.loads(json.dumps(self.data.get("ranking") or []))

    def comparisons(self, metrics=None, level=None, performance="sample") -> list:
        """The saved pairs and metrics (``{"a", "b", "metric", "difference", "p_a_better"}``, as
        :meth:`Comparison.comparisons`), of ``metrics`` when given (each must be saved, else
        :class:`~spe.exceptions.NotSavedError`)."""
        self._check(level, performance, "comparisons")
        saved = self.data["comparisons"]
        if metrics is None:
            return json.loads(json.dumps(saved))
        missing = next((m for m in metrics if m not in {c["metric"] for c in saved}), None)
        if missing is not None:
            self._saved(self.names[0], self.names[-1], missing, "comparisons")
        return json.loads(json.dumps([c for m in metrics for c in saved if c["metric"] == m]))

    def differences_frame(self, metrics=None, level=None, performance="sample"):
        """The saved pairwise differences as :meth:`Comparison.differences_frame`'s DataFrame."""
        return differences_frame(self.comparisons(metrics, level, performance), self.level)

    def to_frame(self, level=None, performance="sample"):
        """Every classifier's saved metrics as one tidy DataFrame (a first column ``classifier``)."""
        return classifiers_frame({n: self[n].to_frame(level, performance) for n in self.names})

    metric_draws = _refuse("metric_draws")
    suggest = _refuse("suggest")
    plan_labels = _refuse("plan_labels")

    def _items(self, query):
        if "items" not in self.data:
            _not_saved(query, needs="the items", keep=_KEEP_ITEMS.replace("spe estimate", "spe compare"),
                       path=self.path)
        return self.data["items"]

    def item_probabilities(self):
        """p̂(y_i = 1 | S¹, …, Sᴷ, Y_L), (N,), as :meth:`Comparison.item_probabilities` gave them when saved with
        ``items=True``; else raises :class:`~spe.exceptions.NotSavedError`."""
        return _array(self._items("item_probabilities")["probability"])

    def items_frame(self, ids=None):
        """Every item as :meth:`Comparison.items_frame`'s DataFrame (a score column per classifier, ``label``,
        ``probability``), from the items saved with ``items=True``; else raises
        :class:`~spe.exceptions.NotSavedError`."""
        items = self._items("items_frame")
        return _items_frame(items, {n: items["score"][n] for n in self.names}, ids)

    def to_dict(self, level=None, performance="sample", items=False) -> dict:
        """The JSON as read (a deep copy), at the saved level and performance; ``items`` only when
        ``items=True``."""
        self._check(level, performance, "to_dict")
        return _json_copy(self.data, items, self._items)

    def save(self, path, level=None, performance="sample", items=False):
        """Write :meth:`to_dict` to ``path`` as JSON, whole or not at all (as :meth:`Comparison.save`); returns
        ``path``."""
        return save_json(self.to_dict(level, performance, items), path)

    def summary(self, level=None, performance="sample", warnings=True) -> str:
        """A short text: each classifier's saved AP and ROC AUC, the ranking and the saved differences."""
        self._check(level, performance, "summary")
        pct = f"{100 * self.level:g}%"
        width = max(len(n) for n in self.names)
        lines = [self._counts(), f"{self.performance} performance, posterior mean [{pct} credible interval]:"]
        lines += [f"  {n:<{width}s}  AP {self[n].average_precision()}  ROC AUC {self[n].roc_auc()}"
                  for n in self.names]
        lines.append("probability of being the best by average precision: "
                     + ", ".join(f"{r['name']} {_number(r['p_best']):.3f}" for r in self.ranking()))
        lines.append(f"differences (a − b), posterior mean [{pct} interval], P(a better than b):")
        for c in self.comparisons():
            if c["metric"] in ("average_precision", "roc_auc"):
                d = self.difference(c["a"], c["b"], c["metric"])
                lines.append(f"  {c['a']} − {c['b']}  {METRICS[c['metric']].label:<17s} {d.mean:+.3f} "
                             f"[{d.lo:+.3f}, {d.hi:+.3f}]  P = {_number(c['p_a_better']):.3f}")
        lines += [f"warning: {w}" for w in self.warnings] if warnings else []
        return "\n".join(lines)

    def _counts(self):
        where = f" from {self.path}" if self.path else ""
        return f"spe.SavedComparison{where}: {len(self.names)} classifiers, {self.n_items} items"

    def __repr__(self):
        return comparison_repr(self._counts(), self)

    def _repr_html_(self):
        return comparison_html(self._counts(), self)


def _check_comparisons(data, path):
    """A comparison's ``comparisons`` (pairs of its classifiers, each with its difference and P(a better)) and
    ``ranking``."""
    names = set(data["classifiers"])
    if not isinstance(data["comparisons"], list):
        _bad(path, "comparisons", "is not a list")
    for i, c in enumerate(data["comparisons"]):
        field = f"comparisons[{i}]"
        if not isinstance(c, dict):
            _bad(path, field, "is not a JSON object")
        missing = next((k for k in ("a", "b", "metric", "difference", "p_a_better") if k not in c), None)
        if missing is not None:
            _bad(path, f"{field}.{missing}", "is missing")
        if c["a"] not in names or c["b"] not in names:
            _bad(path, field, f"compares a classifier not in 'classifiers' ({c['a']!r}, {c['b']!r})")
        if not isinstance(c["difference"], dict) or any(not _is_number(c["difference"].get(k, "missing"))
                                                        for k in ("mean", "median", "lo", "hi")):
            _bad(path, f"{field}.difference", "is not an interval of numbers (mean, median, lo, hi)")
        if not _is_number(c["p_a_better"]):
            _bad(path, f"{field}.p_a_better", "is not a number")
    ranking = data.get("ranking") or []
    if not isinstance(ranking, list) or any(not isinstance(r, dict) or r.get("name") not in names
                                            or not _is_number(r.get("p_best", "missing")) for r in ranking):
        _bad(path, "ranking", "is not a list of {name, p_best} of the classifiers")
