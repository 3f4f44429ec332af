"""A label-budget plan for a multiclass estimate: about how many more labels until a target's interval is narrow,
or (several classifiers) until it is settled which of every pair is the more accurate.

The preposterior simulation of :mod:`spe.active.plan`, with categorical labels. The estimate's M posterior draws
stand for what is unknown; each of S simulated futures

1. takes one draw θ_t as the truth (each draw of the averaged model weighs 1/M);
2. labels the next items — in a random order (``strategy="random"``), or in the order of their expected
   reduction of the target's variance now (``"information"``, :mod:`spe.multiclass.suggest`) — each
   y_i ~ Categorical(p(y_i | s_i, θ_t));
3. after n of them reweighs every draw by those labels' likelihood, w_m ∝ Π_i p(y_i | s_i, θ_m), and reads the
   goal's quantity from the reweighted draws (the posterior those labels would give, by importance sampling from
   the current one, without a refit): the target's credible interval width (for a comparison, the mean over the
   pairs of their accuracy difference's, as :mod:`spe.active.plan` reads several components), or for a
   comparison the probability of the more likely side of the decision "a is more accurate than b" (the smallest
   over the pairs; a draw where the two are equal counts one half to each side, as
   :meth:`MulticlassComparison.probability_better` counts it);
4. records the first n at which the goal holds.

A future whose reweighted draws' effective sample size falls below :data:`spe.active.plan.ESS_FLOOR` of M (or
:data:`spe.active.plan.MIN_ESS`) before the goal holds is censored there. Like the estimate, the plan assumes
its score models.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from ..exceptions import SpeInputError
from ..inputs import check_choice, check_count, check_level, seed_of
from ..quantiles import weighted_quantile
from .suggest import target_draws

__all__ = ["plan_class_labels", "plan_comparison_labels", "CLASS_PLAN_STRATEGIES", "THRESHOLD_TARGET_REFUSAL"]

#: How the further items are chosen.
CLASS_PLAN_STRATEGIES = ("information", "random")


def plan_class_labels(evaluation, *, width, target="accuracy", strategy="information", max_labels=None,
                      futures=200, level=None, rng=None):
    """About how many more labels until the ``level`` credible interval of ``target`` is narrower than ``width``.

    Parameters
    ----------
    evaluation : MulticlassEvaluation
    width : float > 0
        The goal, in the target's units (a share for accuracy and macro F1, AP for ``"ap:CLASS"``).
    target : {"accuracy", "macro_f1"} or "ap:CLASS"
        Not ``"threshold:CLASS:P,R"``: whether a requirement is met is 1 or 0 under each draw and has no interval
        width to plan for.
    strategy : {"information", "random"}
    max_labels : int, optional
        The most further labels simulated (default 200, or the unlabeled items if fewer).
    futures : int
        S (≥ 10).
    level : float, optional
        Default: the estimate's.
    rng : numpy.random.Generator, int or None

    Returns
    -------
    spe.active.plan.LabelPlan

    Raises
    ------
    SpeInputError
        A width ≤ 0, an unknown target, strategy or class, a threshold target, ``max_labels`` or ``futures`` out of
        range.
    """
    _check_width(width)
    _refuse_threshold_target(target)
    check_choice("strategy", strategy, CLASS_PLAN_STRATEGIES)
    level = evaluation.level if level is None else check_level(level)
    try:
        values = target_draws(evaluation, target)
    except ValueError as e:
        raise SpeInputError(str(e), argument="target") from None
    reader = _MeanWidth(values[:, None], level, float(width))
    return _plan(evaluation, reader, f"the {100 * level:g}% interval of {target} narrower than {width:g}",
                 str(target), strategy, lambda n, seed: evaluation.suggest(n, target, rng=seed).items,
                 max_labels, futures, rng)


def _refuse_threshold_target(target):
    if str(target).startswith("threshold:"):
        raise SpeInputError(THRESHOLD_TARGET_REFUSAL, argument="target")


#: Why ``spe plan`` takes no ``threshold:CLASS:P,R`` target.
THRESHOLD_TARGET_REFUSAL = ("threshold:CLASS:P,R is a target of spe suggest: whether a requirement is met has no "
                            "interval width to plan for")


def plan_comparison_labels(comparison, *, width=None, probability=None, target="compare", classifier=None,
                           strategy="information", max_labels=None, futures=200, level=None, rng=None):
    """About how many more labels until several multiclass classifiers are told apart by accuracy.

    ``target="compare"``: every pair's accuracy difference (a before b in ``comparison.names``; the population's,
    under each draw of the joint model), with one goal: ``probability`` — for every pair, P(a more accurate than b)
    or its complement reaches it (a draw where they are equal counts one half) — or ``width`` — the mean over the
    pairs of the ``level`` interval's width of the difference below it (accuracy units). The information strategy
    labels the items :meth:`MulticlassComparison.suggest` names for ``"compare"`` (those that best tell apart the
    two classifiers most likely the most accurate); ``"random"`` labels items at random. Any other target
    (``"accuracy"``, ``"macro_f1"``, ``"ap:CLASS"``) is one classifier's (``classifier``, default the first):
    :func:`plan_class_labels` of its estimate, the joint model's draws.

    Parameters
    ----------
    comparison : MulticlassComparison
    width : float > 0, optional
    probability : float in (0.5, 1), optional
        Exactly one of ``width`` and ``probability`` (``probability`` only for ``"compare"``).
    target : "compare" or a one-classifier target
    classifier : str, optional
    strategy : {"information", "random"}
    max_labels, futures, level, rng
        As :func:`plan_class_labels`.

    Returns
    -------
    spe.active.plan.LabelPlan

    Raises
    ------
    SpeInputError
        Neither or both goals, a probability outside (0.5, 1) or on a one-classifier target, a width ≤ 0, an
        unknown target, classifier, strategy or class, ``level``, ``max_labels`` or ``futures`` out of range.
    """
    if (width is None) == (probability is None):
        raise SpeInputError("give exactly one goal: a width or a probability", argument="width")
    if classifier is not None and classifier not in comparison.names:
        raise SpeInputError(f"{classifier!r} is none of the classifiers {', '.join(comparison.names)}",
                            argument="classifier")
    if target != "compare":
        if probability is not None:
            raise SpeInputError(f"target {target!r} is not a decision: give a width goal (a probability goal needs "
                                "compare)", argument="probability")
        return plan_class_labels(comparison[classifier if classifier is not None else comparison.names[0]],
                                 width=width, target=target, strategy=strategy, max_labels=max_labels,
                                 futures=futures, level=level, rng=rng)
    check_choice("strategy", strategy, CLASS_PLAN_STRATEGIES)
    level = comparison.level if level is None else check_level(level)
    values = np.column_stack([comparison.metric_draws(a, "accuracy", "population")
                              - comparison.metric_draws(b, "accuracy", "population")
                              for a, b in combinations(comparison.names, 2)])          # (M, pairs)
    if probability is None:
        _check_width(width)
        reader = _MeanWidth(values, level, float(width))
        goal = f"the {100 * level:g}% interval of the pairs' accuracy differences narrower than {width:g} (mean)"
    else:
        if not (isinstance(probability, (int, float, np.floating)) and 0.5 < probability < 1):
            raise SpeInputError(f"must be a number in (0.5, 1), got {probability!r}", argument="probability")
        reader = _Decided(values, float(probability))
        goal = f"which of every pair is the more accurate decided with probability {probability:g}"
    evaluation = comparison[comparison.names[0]]                 # its draws are the joint model's
    return _plan(evaluation, reader, goal, "compare", strategy,
                 lambda n, seed: comparison.suggest(n, "compare", rng=seed).items, max_labels, futures, rng)


def _check_width(width):
    if not (isinstance(width, (int, float, np.floating)) and np.isfinite(width) and width > 0):
        raise SpeInputError(f"must be a number > 0, got {width!r}", argument="width")


class _MeanWidth:
    """The mean over the columns of ``values`` (M, R) of their ``level`` interval's width (a column without a
    finite draw left out); the goal: below ``width``."""

    kind = "width"

    def __init__(self, values, level, width):
        self.values, self.level, self.goal = values, level, width

    def value(self, w):
        """Under the draws' weights w (M,) → float (NaN when no column has a finite draw)."""
        widths = np.array([_width(v, w, self.level) for v in self.values.T])
        return float(np.mean(widths[np.isfinite(widths)])) if np.isfinite(widths).any() else float("nan")

    def met(self, value):
        return value < self.goal


class _Decided:
    """The smallest over the columns of ``values`` (M, R) of the probability of the more likely sign (a zero
    counting one half to each side; draws where a column is not finite left out of it); the goal: at least
    ``probability``."""

    kind = "probability"

    def __init__(self, values, probability):
        self.finite = np.isfinite(values)                              # (M, R)
        self.positive = np.where(self.finite, (values > 0) + 0.5 * (values == 0), 0.0)
        self.goal = probability

    def value(self, w):
        """Under the draws' weights w (M,) → float (NaN when no column has a finite draw of weight)."""
        mass = w @ self.finite
        p = (w @ self.positive)[mass > 0] / mass[mass > 0]
        return float(np.maximum(p, 1 - p).min()) if p.size else float("nan")

    def met(self, value):
        return value >= self.goal


def _plan(evaluation, reader, goal, target, strategy, informative, max_labels, futures, rng):
    """The simulation shared by the plans: ``informative(n, seed)`` gives the n items the information strategy
    labels first."""
    free = np.setdiff1d(np.arange(evaluation.n_items), evaluation.labeled_index)
    horizon = check_count("max_labels", min(200, free.size) if max_labels is None else max_labels, free.size) \
        if free.size else 0
    n_futures = check_count("futures", futures, np.inf, least=10)
    seed = seed_of(rng)
    generator = np.random.default_rng(seed)
    if not horizon:
        items = np.zeros(0, dtype=int)
    else:
        items = generator.permutation(free)[:horizon] if strategy == "random" else informative(horizon, seed)
    checkpoints = (np.unique(np.r_[0, np.round(np.geomspace(1, horizon, 40))].astype(int)) if horizon
                   else np.zeros(1, dtype=int))
    probs = _item_probabilities(evaluation, items)                                    # (M, H, K)
    needed, censored, read = _simulate(reader, probs, checkpoints, n_futures, generator)
    half = np.mean(np.isnan(read), axis=0) > 0.5
    progress = np.where(half[:, None], np.nan,
                        np.nanquantile(np.where(half, 0.0, read), [0.1, 0.5, 0.9], axis=0).T)
    m = probs.shape[0]
    from ..active.plan import LabelPlan  # the layer above: its plan's result and figure are shared

    return LabelPlan(goal=goal, kind=reader.kind, value=float(reader.goal), target=target, strategy=strategy,
                     checkpoints=checkpoints, needed=needed, censored=censored, progress=progress,
                     now=reader.value(np.full(m, 1.0 / m)), n_labeled=evaluation.n_labeled, seed=seed)


def _item_probabilities(evaluation, items):
    """p(y_i = k | s_i, θ_m) of the given items under every draw, (M, H, K) float32."""
    inputs = np.asarray(evaluation.inputs[items], dtype=np.float32)
    parts = [model.probabilities(theta, inputs) for _, model, theta in evaluation.model.blocks(64)]
    return np.concatenate(parts, axis=0) if parts else np.zeros((0, items.size, len(evaluation.classes)))


def _width(values, w, level):
    """The weighted equal-tailed interval's width of ``values`` (M,) under weights ``w`` (M,)."""
    ok = np.isfinite(values)
    if not ok.any():
        return float("nan")
    lo, hi = weighted_quantile(values[ok], w[ok], [(1 - level) / 2, (1 + level) / 2])
    return float(hi - lo)


def _simulate(reader, probs, checkpoints, n_futures, rng):
    """Per future: the labels needed (inf if not reached), whether censored, the goal's quantity at every
    checkpoint."""
    from ..active.plan import ESS_FLOOR, MIN_ESS

    m, h, k = probs.shape
    floor = max(MIN_ESS, ESS_FLOOR * m)
    needed = np.full(n_futures, np.inf)
    censored = np.zeros(n_futures, dtype=bool)
    read = np.full((n_futures, checkpoints.size), np.nan)
    log_probs = np.log(np.maximum(probs, 1e-30))
    for s, truth in enumerate(rng.integers(0, m, n_futures)):
        cdf = np.cumsum(probs[truth], axis=1)                                         # (H, K)
        labels = np.minimum((cdf < rng.random(h)[:, None] * cdf[:, -1:]).sum(axis=1), k - 1)
        loglik = np.cumsum(log_probs[:, np.arange(h), labels], axis=1)               # (M, H)
        for c, n in enumerate(checkpoints):
            log_w = loglik[:, n - 1] if n else np.zeros(m)
            w = np.exp(log_w - log_w.max())
            w /= w.sum()
            if 1.0 / np.sum(w ** 2) < floor:
                censored[s] = not np.isfinite(needed[s])
                break
            read[s, c] = reader.value(w)
            if reader.met(read[s, c]) and not np.isfinite(needed[s]):
                needed[s] = n
    return needed, censored, read
