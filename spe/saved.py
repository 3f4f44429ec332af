"""Results read back from their JSON: :func:`load` of what ``spe estimate --json``, ``spe compare --json``,
:meth:`Evaluation.save` and :meth:`Comparison.save` write.

The JSON holds the summaries at the credible level they were written at
(the intervals, the PR, ROC and threshold curves with their bands, the
diagnostics and the warnings), not the posterior draws. So a
:class:`SavedEvaluation` answers the queries those summaries answer, at
that level, with the same names and types as :class:`~spe.evaluation.Evaluation`
(``prevalence()``, ``pr_curve()``, ``to_frame()``, …), shows itself in a
notebook and overlays on a plot (:func:`spe.plot.plot_pr_curve`,
:func:`spe.plot.plot_roc_curve`); asking for another level raises
``SpeInputError`` saying why. To keep the draws (another level, other
metrics, the threshold queries), pickle the Evaluation itself.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .comparison import differences_frame
from .display import classifiers_frame, comparison_html, comparison_repr, result_html, result_repr
from .evaluation import CurveBand, Interval, metrics_frame, score_model_frame
from .exceptions import SpeInputError
from .metrics import REGISTRY as METRICS

__all__ = ["load", "SavedEvaluation", "SavedComparison"]

#: What an estimate's JSON must hold (DESIGN.md, the CLI contract).
_ESTIMATE_KEYS = ("n_items", "n_labeled", "level", "prevalence", "average_precision", "roc_auc", "pr_curve",
                  "roc_curve")


def load(path):
    """Read a result written as JSON by ``spe estimate --json``, ``spe compare --json``, ``Evaluation.save`` or
    ``Comparison.save``.

    Parameters
    ----------
    path : str or path-like
        The JSON file.

    Returns
    -------
    SavedEvaluation or SavedComparison
        A comparison when the file holds ``classifiers`` (``spe compare``), else an evaluation.

    Raises
    ------
    SpeInputError
        The file cannot be read, is not JSON (naming the line and column), or is not such a result (naming
        the missing key).

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
    data = _read_json(path)
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


def _array(values):
    return np.array([_number(v) for v in values], dtype=float)


@dataclass(frozen=True)
class SavedEvaluation:
    """An evaluation read back from its JSON (:func:`load`): the summaries at the level it was written at.

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
        """Check that ``data`` is an estimate's JSON (raises ``SpeInputError`` naming a missing key)."""
        _check_keys(data, _ESTIMATE_KEYS, "spe estimate or spe compare --json", path)
        return cls(data, path)

    n_items = property(lambda self: int(self.data["n_items"]), doc="N, the items evaluated.")
    n_labeled = property(lambda self: int(self.data["n_labeled"]), doc="n, the labeled items.")
    level = property(lambda self: float(self.data["level"]), doc="The credible level of every interval and band.")
    performance = property(lambda self: self.data.get("performance", "sample"), doc='"sample" or "population".')
    families = property(lambda self: dict(self.data.get("families") or {}), doc="The SPE mixture's families.")
    diagnostics = property(lambda self: self.data.get("diagnostics") or {}, doc="As Evaluation.diagnostics.")
    warnings = property(lambda self: list(self.data.get("warnings") or []), doc="The warnings, as written.")

    def _check_level(self, level, performance="sample"):
        if level is not None and not np.isclose(float(level), self.level):
            raise SpeInputError(f"this result was saved at level {self.level:g}: it holds no other level (the "
                                "posterior draws are not in the JSON; pickle the Evaluation to keep them)",
                                argument="level")
        if performance != self.performance:
            raise SpeInputError(f"this result holds the {self.performance} performance, not the {performance}",
                                argument="performance")

    def metric(self, name, threshold=None, level=None, performance="sample") -> Interval:
        """A whole-ranking metric saved in the JSON (``prevalence``, ``average_precision``, ``roc_auc``, …) as
        an :class:`Interval` at the saved level. Raises ``SpeInputError`` for a metric not saved, a
        ``threshold`` (the metrics at a threshold need the draws), another level or another performance."""
        if threshold is not None:
            raise SpeInputError("the metrics at a threshold need the posterior draws, which the JSON does not hold "
                                "(pickle the Evaluation to keep them)", argument="threshold")
        self._check_level(level, performance)
        value = self.data.get(name)
        if name not in METRICS or not isinstance(value, dict):
            saved = ", ".join(self.metric_names())
            raise SpeInputError(f"{name!r} is not among the saved metrics ({saved})", argument="name")
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

    def _curve(self, key, x, y, level, performance):
        self._check_level(level, performance)
        c = self.data[key]
        return CurveBand(_array(c[x]), _array(c[y]), _array(c[f"{y}_lo"]), _array(c[f"{y}_hi"]), self.level)

    def pr_curve(self, level=None, performance="sample") -> CurveBand:
        """Precision (median, band) on the saved recall grid (G,)."""
        return self._curve("pr_curve", "recall", "precision", level, performance)

    def roc_curve(self, level=None, performance="sample") -> CurveBand:
        """True positive rate (median, band) on the saved false-positive-rate grid."""
        return self._curve("roc_curve", "fpr", "tpr", level, performance)

    def precision_curve(self, level=None, performance="sample") -> CurveBand:
        """Precision against the saved thresholds (score units). Raises ``SpeInputError`` when not saved."""
        self._require("threshold_curve")
        return self._curve("threshold_curve", "threshold", "precision", level, performance)

    def recall_curve(self, level=None, performance="sample") -> CurveBand:
        """Recall against the saved thresholds (score units). Raises ``SpeInputError`` when not saved."""
        self._require("threshold_curve")
        return self._curve("threshold_curve", "threshold", "recall", level, performance)

    def _require(self, key):
        if key not in self.data:
            raise SpeInputError(f"this result holds no {key!r}", path=self.path)

    def to_frame(self, level=None, performance="sample"):
        """The saved whole-ranking metrics as :meth:`Evaluation.to_frame`'s tidy DataFrame."""
        return metrics_frame({n: self.metric(n, level=level, performance=performance) for n in self.metric_names()},
                             self.level)

    def score_model_table(self):
        """The score models by weight, as :meth:`Evaluation.score_model_table`."""
        return score_model_frame(self.diagnostics)

    def to_dict(self) -> dict:
        """The JSON as read (a deep copy)."""
        return json.loads(json.dumps(self.data))

    def summary(self) -> str:
        """A short text: the counts, the families and the saved metrics with their intervals."""
        pct = f"{100 * self.level:g}%"
        lines = [self._counts()]
        if self.families.get("negative"):
            lines.append(f"SPE mixture: {self.families['negative']} (negative) and {self.families['positive']} "
                         "(positive)")
        lines.append(f"{self.performance} performance, posterior mean [{pct} credible interval]:")
        lines += [f"  {METRICS[n].label:<19s}{self.metric(n)}" for n in self.metric_names()]
        lines += [f"warning: {w}" for w in self.warnings]
        return "\n".join(lines)

    def _counts(self):
        where = f" from {self.path}" if self.path else ""
        return f"spe.SavedEvaluation{where}: {self.n_items} items, {self.n_labeled} labeled"

    def __repr__(self):
        return result_repr(self._counts(), self)

    def _repr_html_(self):
        return result_html(self._counts(), self)


@dataclass(frozen=True)
class SavedComparison:
    """A comparison read back from its JSON (:func:`load`): each classifier a :class:`SavedEvaluation`, the
    pairwise differences and the ranking, at the level it was written at.

    Attributes
    ----------
    data : dict
    path : str or None
    """

    data: dict
    path: str | None = None

    @classmethod
    def from_dict(cls, data, path=None):
        """Check that ``data`` is a comparison's JSON (raises ``SpeInputError`` naming a missing key)."""
        _check_keys(data, ("classifiers", "comparisons", "level"), "spe compare --json", path)
        for entry in data["classifiers"].values():
            SavedEvaluation.from_dict(entry, path)
        return cls(data, path)

    names = property(lambda self: list(self.data["classifiers"]), doc="The classifiers' names, K.")
    level = property(lambda self: float(self.data["level"]), doc="The credible level.")
    n_items = property(lambda self: int(self.data.get("n_items", 0)), doc="N.")
    warnings = property(lambda self: list(self.data.get("warnings") or []), doc="The warnings, as written.")

    def __getitem__(self, name) -> SavedEvaluation:
        if name not in self.data["classifiers"]:
            raise SpeInputError(f"no classifier {name!r}; the classifiers are {', '.join(self.names)}",
                                argument="name")
        return SavedEvaluation(self.data["classifiers"][name], self.path)

    def ranking(self) -> list:
        """``[{"name", "p_best", ...}]``, as saved (by average precision, best first)."""
        return list(self.data.get("ranking") or [])

    def to_frame(self):
        """Every classifier's saved metrics as one tidy DataFrame (a first column ``classifier``)."""
        return classifiers_frame({n: self[n].to_frame() for n in self.names})

    def differences_frame(self):
        """The saved pairwise differences as :meth:`Comparison.differences_frame`'s DataFrame."""
        return differences_frame(self.data["comparisons"], self.level)

    def to_dict(self) -> dict:
        """The JSON as read (a deep copy)."""
        return json.loads(json.dumps(self.data))

    def _counts(self):
        where = f" from {self.path}" if self.path else ""
        return f"spe.SavedComparison{where}: {len(self.names)} classifiers, {self.n_items} items"

    def __repr__(self):
        return comparison_repr(self._counts(), self)

    def _repr_html_(self):
        return comparison_html(self._counts(), self)
