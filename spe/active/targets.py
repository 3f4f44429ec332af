"""What a user wants the next labels to settle: the targets of ``spe suggest``, one registry.

A target turns an estimate's posterior draws into the quantity whose uncertainty the labels should reduce:
an (M, R) array, R components per draw (R = 1 for a scalar; the recall grid for the PR band; every pair of
classifiers for a comparison). Its uncertainty is the root mean posterior variance over the R components, in
the target's own units (AP, precision, a prevalence, a probability).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..exceptions import SpeInputError
from ..registries import add_unique

__all__ = ["Target", "TARGETS", "register", "parse_target"]


@dataclass(frozen=True)
class Target:
    """A quantity whose posterior uncertainty labels should reduce.

    Attributes
    ----------
    name : str
        As typed after ``--target`` (before any ``:``).
    about : str
        One line: what it is, in its units.
    draws : callable
        ``draws(source, parameters) -> (M, R)``: its values under each posterior draw, from an
        :class:`~spe.evaluation.Evaluation` (or a :class:`~spe.comparison.Comparison` when ``comparison``).
    comparison : bool
        Whether it needs several classifiers (``spe.compare``'s result).
    parameters : str or None
        What follows ``name:`` (e.g. ``"P,R"``), None when it takes none.
    decision : float or None
        When the target decides a question: a draw says "yes" when a component exceeds this value (the
        threshold decision's 0/1 draws: 0.5; an AP difference: 0). None otherwise. Used by the label-budget
        plan's probability goal (:mod:`spe.active.plan`).
    interval : bool
        Whether a credible interval's width means something (not for 0/1 draws).
    yes_probability : bool
        Whether each draw's value is the probability of "yes" under that draw (the threshold decision): the
        decision's probability is then their weighted mean, not the share of draws above ``decision``.
    """

    name: str
    about: str
    draws: Callable
    comparison: bool = False
    parameters: str | None = None
    decision: float | None = None
    interval: bool = True
    yes_probability: bool = False


TARGETS: dict[str, Target] = {}


def register(target: Target) -> Target:
    """Add a target to :data:`TARGETS` (a duplicate name is a programming error: ``ValueError``)."""
    return add_unique(TARGETS, target.name, target, "target")


def parse_target(text):
    """``"ap"``, ``"pr-band"``, ``"prevalence"``, ``"threshold:0.9,0.5"``, ``"compare"`` → (Target, parameters).

    Raises
    ------
    SpeInputError
        An unknown name, or parameters missing, extra or out of [0, 1].
    """
    name, _, rest = str(text).partition(":")
    if name not in TARGETS:
        known = ", ".join(t.name + (f":{t.parameters}" if t.parameters else "") for t in TARGETS.values())
        raise SpeInputError(f"unknown target {text!r}; known: {known}", argument="target")
    target = TARGETS[name]
    if target.parameters is None:
        if rest:
            raise SpeInputError(f"target {name!r} takes no parameters, got {text!r}", argument="target")
        return target, ()
    try:
        values = tuple(float(v) for v in rest.split(","))
    except ValueError:
        values = ()
    if len(values) != len(target.parameters.split(",")) or not all(0 <= v <= 1 for v in values):
        raise SpeInputError(f"target {name!r} needs {name}:{target.parameters} with numbers in [0, 1] "
                            f"(e.g. {name}:0.9,0.5), got {text!r}", argument="target")
    return target, values


def _metric(name):
    return lambda ev, _: ev.performance.ranking_metrics[name][:, None]


def _pr_band(ev, _):
    """Precision at every recall of the grid (M, G); a draw's undefined precision (no positive) counts as the
    weighted mean of the others, which adds no covariance."""
    values = np.array(ev.performance.precision_at_recall, dtype=float)
    bad = ~np.isfinite(values)
    if bad.any():
        w = ev.weights[:, None] * ~bad
        mean = (w * np.nan_to_num(values)).sum(0) / np.maximum(w.sum(0), 1e-300)
        values[bad] = np.broadcast_to(mean, values.shape)[bad]
    return values


def _threshold_decision(ev, requirement):
    """The probability that the threshold most likely to meet the requirement (:meth:`Evaluation.best_threshold`)
    meets it, per draw: (M, 1) in [0, 1] (its weighted mean is the probability ``spe threshold`` states)."""
    return ev.best_threshold(*requirement).meets[:, None].astype(float)


def _ap_differences(cmp, _):
    """The average precision of every pair of classifiers, a − b, per draw: (M, K(K − 1)/2)."""
    names = cmp.names
    return np.column_stack([cmp.metric_draws(a) - cmp.metric_draws(b)
                            for i, a in enumerate(names) for b in names[i + 1:]])


register(Target("ap", "the average precision (AP units)", _metric("average_precision")))
register(Target("pr-band", "the PR curve's band: precision at every recall of the grid (precision units)", _pr_band))
register(Target("prevalence", "the fraction of positives among the items", _metric("prevalence")))
register(Target("threshold", "whether the threshold most likely to meet precision >= P and recall >= R does "
                "(probability units)", _threshold_decision, parameters="P,R", decision=0.5, interval=False,
                yes_probability=True))
register(Target("compare", "the difference in average precision of every pair of classifiers (AP units; "
                "spe compare)", _ap_differences, comparison=True, decision=0.0))
