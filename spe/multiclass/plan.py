"""A label-budget plan for a multiclass estimate: about how many more labels until a target's interval is narrow.

The preposterior simulation of :mod:`spe.active.plan`, with categorical labels. The estimate's M posterior draws
stand for what is unknown; each of S simulated futures

1. takes one draw θ_t as the truth (each draw of the averaged model weighs 1/M);
2. labels the next items — in a random order (``strategy="random"``), or in the order of their expected
   reduction of the target's variance now (``"information"``, :mod:`spe.multiclass.suggest`) — each
   y_i ~ Categorical(p(y_i | s_i, θ_t));
3. after n of them reweighs every draw by those labels' likelihood, w_m ∝ Π_i p(y_i | s_i, θ_m), and reads the
   target's credible interval width from the reweighted draws (the posterior those labels would give, by
   importance sampling from the current one, without a refit);
4. records the first n at which the width is below the goal.

A future whose reweighted draws' effective sample size falls below :data:`spe.active.plan.ESS_FLOOR` of M (or
:data:`spe.active.plan.MIN_ESS`) before the goal holds is censored there. Like the estimate, the plan assumes
its score models.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import SpeInputError
from ..inputs import check_count, seed_of
from ..quantiles import weighted_quantile
from .suggest import target_draws

__all__ = ["plan_class_labels", "CLASS_PLAN_STRATEGIES"]

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
        A width ≤ 0, an unknown target, strategy or class, ``max_labels`` or ``futures`` out of range.
    """
    if not (isinstance(width, (int, float)) and np.isfinite(width) and width > 0):
        raise SpeInputError(f"must be a number > 0, got {width!r}", argument="width")
    if strategy not in CLASS_PLAN_STRATEGIES:
        raise SpeInputError(f"must be one of {', '.join(CLASS_PLAN_STRATEGIES)}, got {strategy!r}",
                            argument="strategy")
    level = evaluation.level if level is None else float(level)
    try:
        values = target_draws(evaluation, target)
    except ValueError as e:
        raise SpeInputError(str(e), argument="target") from None
    free = np.setdiff1d(np.arange(evaluation.n_items), evaluation.labeled_index)
    horizon = check_count("max_labels", min(200, free.size) if max_labels is None else max_labels, free.size) \
        if free.size else 0
    n_futures = check_count("futures", futures, np.inf, least=10)
    seed = seed_of(rng)
    generator = np.random.default_rng(seed)
    items = _order(evaluation, target, strategy, free, horizon, seed, generator)
    checkpoints = (np.unique(np.r_[0, np.round(np.geomspace(1, horizon, 40))].astype(int)) if horizon
                   else np.zeros(1, dtype=int))
    probs = _item_probabilities(evaluation, items)                                    # (M, H, K)
    needed, censored, widths = _simulate(values, probs, checkpoints, level, width, n_futures, generator)
    half = np.mean(np.isnan(widths), axis=0) > 0.5
    progress = np.where(half[:, None], np.nan,
                        np.nanquantile(np.where(half, 0.0, widths), [0.1, 0.5, 0.9], axis=0).T)
    now = _width(values, np.full(values.size, 1.0 / values.size), level)
    from ..active.plan import LabelPlan  # the layer above: its plan's result and figure are shared

    return LabelPlan(goal=f"the {100 * level:g}% interval of {target} narrower than {width:g}", kind="width",
                     value=float(width), target=str(target), strategy=strategy, checkpoints=checkpoints,
                     needed=needed, censored=censored, progress=progress, now=now, n_labeled=evaluation.n_labeled,
                     seed=seed)


def _order(evaluation, target, strategy, free, horizon, seed, generator):
    """The next ``horizon`` items to label: at random, or by their expected gain now (best first)."""
    if not horizon:
        return np.zeros(0, dtype=int)
    if strategy == "random":
        return generator.permutation(free)[:horizon]
    return evaluation.suggest(horizon, target, rng=seed).items


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


def _simulate(values, probs, checkpoints, level, goal, n_futures, rng):
    """Per future: the labels needed (inf if not reached), whether censored, the width at every checkpoint."""
    from ..active.plan import ESS_FLOOR, MIN_ESS

    m, h, k = probs.shape
    floor = max(MIN_ESS, ESS_FLOOR * m)
    needed = np.full(n_futures, np.inf)
    censored = np.zeros(n_futures, dtype=bool)
    widths = np.full((n_futures, checkpoints.size), np.nan)
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
            widths[s, c] = _width(values, w, level)
            if widths[s, c] < goal and not np.isfinite(needed[s]):
                needed[s] = n
    return needed, censored, widths
