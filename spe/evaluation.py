"""The result object: :class:`Evaluation` and its queries.

An ``Evaluation`` holds the per-draw sample performance
(:class:`spe.metrics.SamplePerformance`) and the fitted score model, and
answers queries at any credible level from them; ``to_dict()`` is the single
source of the CLI's JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .check import format_items
from .metrics import _BLOCK, SamplePerformance, weighted_quantile
from .models.base import FittedScoreModel

__all__ = ["Evaluation", "Interval", "CurveBand"]


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


def _summarise(values, weights, level):
    v = np.asarray(values, dtype=float)
    ok = ~np.isnan(v) & (weights > 0)
    if not ok.any():
        nan = float("nan")
        return Interval(nan, nan, nan, nan, level)
    w = weights[ok] / weights[ok].sum()
    lo, med, hi = weighted_quantile(v[ok], w, [(1 - level) / 2, 0.5, (1 + level) / 2])
    return Interval(float(w @ v[ok]), float(med), float(lo), float(hi), level)


def _check_level(level):
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    return float(level)


@dataclass
class Evaluation:
    """SPE's estimate of a classifier's performance on one data set.

    Build it with :func:`spe.evaluate`. All queries take an optional
    ``level`` (default: the one given to ``evaluate``) and return weighted
    posterior summaries of the *sample* performance (paper §3): performance
    on these N items, with the unknown labels drawn from the posterior.

    Attributes
    ----------
    scores : array, shape (N,)
        All scores, score units (a read-only copy).
    labeled_index : int array, shape (n,)
    labeled_value : int array, shape (n,)
    level : float
    model : FittedScoreModel
    performance : SamplePerformance
    families : dict
        ``{"negative": name, "positive": name}``.
    diagnostics : dict
    warnings : list of str
        Every warning issued while fitting, in order.
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

    @property
    def n_items(self) -> int:
        """N."""
        return int(self.scores.size)

    @property
    def n_labeled(self) -> int:
        """n."""
        return int(self.labeled_index.size)

    @property
    def weights(self):
        """Normalised draw weights, shape (M,)."""
        return self.performance.weights

    def _level(self, level):
        return self.level if level is None else _check_level(level)

    def prevalence(self, level=None) -> Interval:
        """Fraction of positives among the N items, with its credible interval."""
        return _summarise(self.performance.prevalence, self.weights, self._level(level))

    def average_precision(self, level=None) -> Interval:
        """Average precision (``sklearn.metrics.average_precision_score`` convention)."""
        return _summarise(self.performance.average_precision, self.weights, self._level(level))

    def roc_auc(self, level=None) -> Interval:
        """Area under the ROC curve."""
        return _summarise(self.performance.roc_auc, self.weights, self._level(level))

    def _band(self, grid, values, level):
        level = self._level(level)
        lo, med, hi = weighted_quantile(values, self.weights, [(1 - level) / 2, 0.5, (1 + level) / 2])
        return CurveBand(grid.copy(), med, lo, hi, level)

    def pr_curve(self, level=None) -> CurveBand:
        """Precision against recall: median and band on the recall grid (G,).

        Precision at recall r is that of the highest threshold whose recall
        is ≥ r (paper §3, Fig. 1C).
        """
        p = self.performance
        return self._band(p.recall_grid, p.precision_at_recall, level)

    def roc_curve(self, level=None) -> CurveBand:
        """True positive rate against false positive rate, on the FPR grid."""
        p = self.performance
        return self._band(p.fpr_grid, p.tpr_at_fpr, level)

    def labeled_points(self):
        """Where the labeled items sit on the PR curve.

        Returns
        -------
        dict of arrays, shape (n,) each
            ``score``, ``label``, and the weighted median ``recall`` and
            ``precision`` at the item's score taken as the threshold.
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
        items keep their label (0 or 1).

        Returns
        -------
        array, shape (N,)
            Probabilities in [0, 1], in the order of ``scores``.
        """
        uniq, inv = np.unique(self.scores, return_inverse=True)
        w = self.weights
        acc = np.zeros(uniq.size)
        step = max(1, _BLOCK // max(uniq.size, 1))
        for start in range(0, w.size, step):
            rows = slice(start, min(start + step, w.size))
            acc += w[rows] @ self.model.positive_probability(uniq, rows)
        out = acc[inv]
        out[self.labeled_index] = self.labeled_value
        return out

    def to_dict(self, level=None) -> dict:
        """JSON-ready dict; the CLI's ``--json`` writes exactly this (DESIGN.md contract)."""
        level = self._level(level)
        pr = self.pr_curve(level)
        roc = self.roc_curve(level)

        def lst(a):
            return [None if not np.isfinite(v) else float(v) for v in np.asarray(a, dtype=float)]

        def est(i):
            return {k: (None if not np.isfinite(v) else v) for k, v in i.to_dict().items()}

        return {
            "n_items": self.n_items,
            "n_labeled": self.n_labeled,
            "n_labeled_positive": int(np.sum(self.labeled_value == 1)),
            "level": level,
            "families": dict(self.families),
            "prevalence": est(self.prevalence(level)),
            "average_precision": est(self.average_precision(level)),
            "roc_auc": est(self.roc_auc(level)),
            "pr_curve": {
                "recall": lst(pr.x),
                "precision": lst(pr.median),
                "precision_lo": lst(pr.lo),
                "precision_hi": lst(pr.hi),
            },
            "roc_curve": {"fpr": lst(roc.x), "tpr": lst(roc.median), "tpr_lo": lst(roc.lo), "tpr_hi": lst(roc.hi)},
            "diagnostics": _jsonable(self.diagnostics),
            "warnings": list(self.warnings),
        }

    def summary(self, level=None) -> str:
        """A short human-readable report (what ``spe estimate`` prints)."""
        level = self._level(level)
        d = self.diagnostics
        n_pos = int(np.sum(self.labeled_value == 1))
        pr = self.pr_curve(level)
        pct = f"{100 * level:g}%"
        lines = [
            f"spe: {self.n_items} items, {self.n_labeled} labeled ({n_pos} positive, {self.n_labeled - n_pos} negative)",
            f"SPE mixture: {self.families['negative']} (negative) and {self.families['positive']} (positive)"
            + (f", chosen from {d['family_pairs_tried']} family pairs by BIC" if d.get("family_pairs_tried", 1) > 1 else ""),
        ]
        hc = d.get("histogram_check")
        if hc:
            if hc["passed"]:
                lines.append(f"  histogram check: the mixture reproduces the score histogram "
                             f"(posterior-predictive p = {hc['p_value']:.3f}, {hc['bins']} bins)")
            else:
                lines.append(
                    f"  histogram check: FAILED (posterior-predictive p = {hc['p_value']:.3f}; KL "
                    f"{hc['discrepancy']:.3f} nats/item against {hc['expected_discrepancy']:.3f} expected)"
                    + (f"; the scores' shape counts as {format_items(hc['effective_unlabeled_items'])} items "
                       f"(coarsened posterior)" if hc.get("effective_unlabeled_items") else ""))
        models = d.get("score_models") or []
        if len(models) > 1:
            lines.append("score models, weighted by their evidence p(labels | scores):")
            for m in sorted(models, key=lambda m: -m["weight"]):
                check = f"  label check p {m['label_check_p']:.2f}" if m.get("label_check_p") is not None else ""
                if m.get("excluded"):
                    check += ("  (histogram check failed: left out)" if m.get("left_out_by") == "histogram"
                              else " (failed: left out)")
                loo = f"  LOO {m['elpd_loo']:8.2f}" if m.get("elpd_loo") is not None else ""
                lines.append(f"  {m['model']:<36s} weight {m['weight']:.3f}  log evidence "
                             f"{m['log_evidence']:8.2f}{loo}{check}")
        elif models:
            lines.append(f"score model: {models[0]['model']}")
        lc = d.get("label_check")
        if lc:
            verdict = "as probable as" if lc["passed"] else "LESS probable than"
            lines.append(f"label check: the labeled items are {verdict} labels the model generates itself "
                         f"(posterior-predictive p = {lc['p_value']:.3f})")
        lines += [
            f"estimates (posterior mean [{pct} credible interval]):",
            f"  prevalence         {self.prevalence(level)}",
            f"  average precision  {self.average_precision(level)}",
            f"  ROC AUC            {self.roc_auc(level)}",
            f"precision at recall (median [{pct} band]):",
        ]
        for r in (0.1, 0.25, 0.5, 0.75, 0.9):
            g = int(np.argmin(np.abs(pr.x - r)))
            lines.append(f"  recall {pr.x[g]:.2f}: {pr.median[g]:.3f} [{pr.lo[g]:.3f}, {pr.hi[g]:.3f}]")
        lines.append(
            f"SPE mixture sampler: {d.get('inference')}, {d.get('draws')} draws, ESS {d.get('ess', float('nan')):.0f}, "
            f"Pareto k̂ {d.get('pareto_k', float('nan')):.2f}, MAP starts agreeing {d.get('map_starts_agreeing')}"
        )
        for w in self.warnings:
            lines.append(f"warning: {w}")
        for note in d.get("notes", []):
            lines.append(f"note: {note}")
        return "\n".join(lines)


def _jsonable(obj):
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return [_jsonable(v) for v in obj.tolist()]
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return float(obj) if np.isfinite(obj) else None
    return obj
