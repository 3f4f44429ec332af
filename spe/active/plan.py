"""A label-budget plan: about how many more labels until a target is settled, from posterior simulation.

"Until the AP interval is narrower than w" or "until the threshold decision reaches probability q" is a
question about labels not yet seen, so it is answered by simulating them (a preposterior analysis, Raiffa &
Schlaifer 1961, carried out by Monte Carlo). The estimate's weighted posterior draws (θ_m, w_m) stand for what
is unknown. Each of S simulated futures

1. draws a "true" θ_t from them (with probability w_t);
2. labels the next items in the order the strategy would suggest them now (:mod:`spe.active.strategies`: for
   ``information``, the greedy order given the labels so far), each y_i ~ Bernoulli(p(y_i = 1 | item, θ_t));
3. after n of them, reweights every draw by those labels' likelihood, w_m Π_i p(y_i | θ_m), and reads the
   target's credible interval (or decision probability) from the reweighted draws — the posterior those labels
   would give, by importance sampling from the current one, without a refit;
4. records the first n at which the goal holds.

The spread of that n over the futures is the plan's uncertainty. Two limits, both reported:

* the reweighted draws degenerate as labels accumulate (their effective sample size falls); a future whose ESS
  falls below :data:`ESS_FLOOR` of the current one before the goal is reached is *censored* there: the current
  draws cannot see that far (refit after the next labels and plan again);
* the order of the items is fixed now, whereas a user who refits after each batch gets suggestions that adapt:
  for the information strategy the plan is on the cautious side.

Like the estimate, the plan assumes the score model: it says what the labels would do if the posterior is right.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from ..exceptions import SpeInputError, plain
from ..inference import psis_log_predictive
from ..performance.requirement import label_log_likelihood, labels_only_meets, labels_only_weight
from ..inputs import check_choice, check_count
from .candidates import MAX_GROUPS
from .strategies import STRATEGIES
from .suggest import prepare
from .targets import parse_target

__all__ = ["plan", "check_goal", "LabelPlan", "ESS_FLOOR"]

#: A future is censored once its reweighted draws' ESS falls below this fraction of the current ESS.
ESS_FLOOR = 0.1
#: ... or below this many draws, whichever is larger.
MIN_ESS = 20.0


@dataclass
class LabelPlan:
    """About how many more labels until the goal holds, over S simulated futures.

    Attributes
    ----------
    goal : str
        In words, e.g. ``"the 90% interval of ap narrower than 0.05"``.
    kind : {"width", "probability"}
    value : float
        The goal's width (target units) or probability.
    target, strategy : str
    checkpoints : int array, shape (C,)
        The numbers of further labels at which the futures were read (0 = now).
    needed : array, shape (S,)
        Per future, the first checkpoint at which the goal held; ``inf`` when it did not within the horizon
        or before the future was censored.
    censored : bool array, shape (S,)
        Futures whose draws degenerated (ESS below the floor) before the goal held.
    progress : array, shape (C, 3)
        The 10%, 50% and 90% quantiles over the futures of the goal's quantity at each checkpoint (the
        interval width in the target's units, or the decision probability); NaN once fewer than half of the
        futures are still uncensored.
    now : float
        That quantity now.
    n_labeled : int
    seed : int
    """

    goal: str
    kind: str
    value: float
    target: str
    strategy: str
    checkpoints: np.ndarray
    needed: np.ndarray
    censored: np.ndarray
    progress: np.ndarray
    now: float
    n_labeled: int
    seed: int

    @property
    def horizon(self) -> int:
        """The most further labels simulated."""
        return int(self.checkpoints[-1])

    def labels_needed(self, q=(0.1, 0.5, 0.9)):
        """Quantiles over the futures of the further labels needed (``inf`` where more than the futures show):
        float or array shaped like ``q``."""
        return np.quantile(self.needed, q, method="inverted_cdf")

    def summary(self) -> str:
        """The plan in a few sentences: the median labels needed and its 80% range, what was not reached."""
        lo, mid, hi = self.labels_needed()
        head = f"Until {self.goal} ({self.strategy} strategy; {self.n_labeled} labels known):"
        if mid == 0:
            return f"{head} already so (now {self.now:.3g})."
        if self.horizon == 0:
            return f"{head} not reached, and every item is labeled: no further label can reach it (now {self.now:.3g})."
        missed = np.mean(~np.isfinite(self.needed))
        if np.isfinite(mid):
            text = (f"{head} about {int(mid)} more labels (80% of {self.needed.size} simulated futures: "
                    f"{int(lo)} to {_count(hi, self.horizon)}; now {self.now:.3g}).")
        else:
            text = (f"{head} more than {self.horizon} more labels (not reached within them in {missed:.0%} of "
                    f"{self.needed.size} simulated futures; now {self.now:.3g}).")
        if missed and np.isfinite(mid):
            text += f" In {missed:.0%} of the futures it is not reached within the {self.horizon} labels simulated."
        if self.censored.any():
            text += (f" In {np.mean(self.censored):.0%} the current posterior draws could not see far enough "
                     "(their effective sample size fell): label some, refit and plan again.")
        return text

    def to_dict(self) -> dict:
        """JSON-ready (``inf`` as None)."""
        finite = [float(v) if np.isfinite(v) else None for v in self.labels_needed()]
        return {"goal": self.goal, "kind": self.kind, "value": self.value, "target": self.target,
                "strategy": self.strategy, "n_labeled": self.n_labeled,
                "now": self.now, "labels_needed": dict(zip(("q10", "median", "q90"), finite)),
                "futures": int(self.needed.size), "reached": float(np.mean(np.isfinite(self.needed))),
                "censored": float(np.mean(self.censored)), "horizon": self.horizon,
                "checkpoints": self.checkpoints.tolist(),
                "progress": [[None if np.isnan(v) else float(v) for v in row] for row in self.progress],
                "seed": self.seed}


def _count(value, horizon):
    return f"more than {horizon}" if not np.isfinite(value) else str(int(value))


def plan(source, *, width=None, probability=None, target="ap", strategy="information", max_labels=None,
         futures=200, level=None, classifier=None, rng=None, max_groups=MAX_GROUPS) -> LabelPlan:
    """About how many more labels, chosen by ``strategy``, until ``target`` is settled.

    Parameters
    ----------
    source : Evaluation or Comparison
        The current estimate; its posterior draws are used as they are.
    width : float, optional
        Goal: the mean width over the target's components of its ``level`` credible interval below this
        (target units: AP, precision for ``pr-band`` — the band's mean width —, prevalence, AP difference).
    probability : float in (0.5, 1), optional
        Goal: a decision target (``threshold:P,R``: whether that threshold meets the requirement;
        ``compare``: the sign of each AP difference) decided with at least this probability either way.
        Exactly one of ``width`` and ``probability``.
    target, strategy, classifier, max_groups
        As :func:`spe.active.suggest`.
    max_labels : int, optional
        The horizon: the most further labels simulated (≤ the unlabeled items; default 200, or the unlabeled
        items if fewer). When every item is labeled the horizon is 0: the plan says whether the goal holds now
        (labels needed 0) or cannot be reached.
    futures : int
        S, the simulated futures (≥ 10).
    level : float, optional
        The credible level of the interval (default: the estimate's).
    rng : numpy.random.Generator, int or None
        The futures and the random strategies. Same seed, same plan.

    Returns
    -------
    LabelPlan

    Raises
    ------
    SpeInputError
        Neither or both goals; a width ≤ 0; a probability outside (0.5, 1); a width goal on a yes/no target or
        a probability goal on one that is not a decision; max_labels or futures out of range; what
        :func:`spe.active.suggest` raises.
    """
    check_choice("strategy", strategy, tuple(STRATEGIES))
    spec = check_goal(target, width, probability)
    setup = prepare(source, target, classifier, rng, max_groups)
    ev = setup.evaluation
    level = ev.level if level is None else float(level)
    kind, value, goal, read = _goal(spec, str(target), width, probability, level)
    horizon = _horizon(max_labels, setup.n_free)
    n_futures = check_count("futures", futures, np.inf, least=10)
    picks = STRATEGIES[strategy].choose(setup.candidates, setup.preposterior, horizon, setup.rng) if horizon else []
    items = np.array([item for item, _ in picks], dtype=int)
    probabilities = ev.performance.replay.item_probability_draws(ev.scores, items)  # (M, horizon)
    checkpoints = (np.unique(np.r_[0, np.round(np.geomspace(1, horizon, 40))].astype(int)) if horizon
                   else np.zeros(1, dtype=int))
    weights = np.asarray(ev.weights, dtype=float) / np.sum(ev.weights)
    reader = read(setup.target_draws)
    if kind == "probability" and spec.yes_probability:
        reader = _ThresholdDecision(ev, parse_target(target)[1], items, probabilities, value)
    floor = max(MIN_ESS, ESS_FLOOR / np.sum(weights ** 2))
    needed, censored, values = _simulate(weights, probabilities, checkpoints, reader, floor, n_futures, setup.rng)
    half = np.mean(np.isnan(values), axis=0) > 0.5
    progress = np.where(half[:, None], np.nan, np.nanquantile(np.where(half, 0.0, values), [0.1, 0.5, 0.9],
                                                             axis=0).T)
    return LabelPlan(goal=goal, kind=kind, value=value, target=str(target), strategy=strategy,
                     checkpoints=checkpoints, needed=needed, censored=censored, progress=progress,
                     now=float(reader.value(weights[None, :])[0]), n_labeled=ev.n_labeled, seed=setup.seed)


def _horizon(max_labels, n_free):
    """The most further labels simulated: ``max_labels`` (default 200) within the unlabeled items; 0 when every
    item is labeled (the plan then reads the goal now: nothing is left to label)."""
    if n_free == 0:
        if max_labels is not None:
            check_count("max_labels", max_labels, np.inf)
        return 0
    return check_count("max_labels", min(200, n_free) if max_labels is None else max_labels, n_free)


def _simulate(weights, probabilities, checkpoints, reader, floor, n_futures, rng):
    """The futures: per future the labels needed (inf if not reached), whether censored, and the goal's
    quantity at every checkpoint (NaN once censored): (S,), (S,), (S, C)."""
    log_p, log_q = np.log(np.clip(probabilities, 1e-300, 1.0)), np.log(np.clip(1.0 - probabilities, 1e-300, 1.0))
    needed = np.full(n_futures, np.inf)
    censored = np.zeros(n_futures, dtype=bool)
    values = np.full((n_futures, checkpoints.size), np.nan)
    truths = rng.choice(weights.size, n_futures, p=weights)
    for s, t in enumerate(truths):
        labels = rng.random(probabilities.shape[1]) < probabilities[t]
        loglik = np.cumsum(np.where(labels, log_p, log_q), axis=1)          # (M, horizon)
        log_w = np.log(np.maximum(weights, 1e-300))[None, :] + np.vstack([np.zeros(weights.size),
                                                                        loglik[:, checkpoints[1:] - 1].T])
        w = np.exp(log_w - log_w.max(axis=1, keepdims=True))
        w /= w.sum(axis=1, keepdims=True)                                   # (C, M)
        alive = 1.0 / np.sum(w ** 2, axis=1) >= floor
        alive = np.cumprod(alive).astype(bool)
        values[s, alive] = reader.future(labels, checkpoints[alive]).value(w[alive])
        met = alive & reader.met(values[s])
        if met.any():
            needed[s] = checkpoints[np.argmax(met)]
        elif not alive.all():
            censored[s] = True
    return needed, censored, values


class _Reader:
    """What a plan reads off each simulated future's reweighted draws (:func:`_simulate`): ``value(w)`` per
    checkpoint and ``met(values)``; ``future(labels, checkpoints)`` is the reader of one future — itself, unless
    the future's labels change how its draws are read (:class:`_ThresholdDecision`)."""

    def future(self, labels, checkpoints):
        return self


class _Width(_Reader):
    """The mean width over the components of the central credible interval, from weighted draws."""

    def __init__(self, draws, level, width):
        self.order = np.argsort(draws, axis=0)                 # (M, R)
        self.sorted = np.take_along_axis(draws, self.order, axis=0)
        self.tails = ((1 - level) / 2, (1 + level) / 2)
        self.width = width

    def value(self, w):
        """(K, M) weights → (K,) mean widths (inverted-CDF quantiles, as the estimate's intervals)."""
        cum = np.cumsum(w[:, self.order], axis=1)               # (K, M, R)
        m = self.sorted.shape[0] - 1
        lo = np.minimum((cum < self.tails[0] - 1e-12).sum(axis=1), m)
        hi = np.minimum((cum < self.tails[1] - 1e-12).sum(axis=1), m)
        r = np.arange(self.sorted.shape[1])
        return (self.sorted[hi, r] - self.sorted[lo, r]).mean(axis=1)

    def met(self, values):
        return values < self.width


class _Decision(_Reader):
    """The smallest over the components of the probability of the more likely side of the decision (a draw at the
    decision value counts one half to each side, as :meth:`spe.comparison.Comparison.probability_better` counts a
    tie: two classifiers that rank alike are never decided)."""

    def __init__(self, draws, spec, probability):
        # (M, R): each draw's probability of "yes" (the threshold decision), or whether it says yes
        draws = np.asarray(draws, dtype=float)
        self.yes = draws if spec.yes_probability else (draws > spec.decision) + 0.5 * (draws == spec.decision)
        self.probability = probability

    def value(self, w):
        p = w @ self.yes                                        # (K, R)
        return np.maximum(p, 1 - p).min(axis=1)

    def met(self, values):
        return values >= self.probability


class _ThresholdDecision(_Decision):
    """The threshold decision (``threshold:P,R``) as :meth:`Evaluation.threshold_probability` states it, in each
    simulated future: the model's C(τ) per reweighted draw, mixed with the labels-only hypothesis above τ
    (:mod:`spe.performance.requirement`), whose weight and Beta posterior take in the future's labels that fall
    above τ — without them, labels could never settle a statement that rests on too few labeled items above τ.
    """

    def __init__(self, ev, requirement, items, probabilities, probability):
        choice = ev.best_threshold(*requirement)
        rests = choice.rests_on()
        at = int(np.searchsorted(choice.curve.threshold, choice.threshold))
        perf = ev.performance
        self.model_yes = choice.model_meets.astype(float)                            # (M,)
        self.below = perf.n_positive - perf.true_positives[:, at]                   # (M,) positives below τ
        self.n_predicted, self.requirement = float(perf.n_predicted[at]), requirement
        self.labeled, self.positives = rests["labeled_above"], rests["positives_above"]
        mine = ev.scores[ev.labeled_index] >= choice.threshold                     # (n,) labeled above τ
        self.log_lik = label_log_likelihood(perf.replay.item_probability_draws(ev.scores, ev.labeled_index[mine]),
                                            ev.labeled_value[mine]).sum(axis=1)       # (M,)
        self.above = ev.scores[items] >= choice.threshold                          # (horizon,)
        # log p(y | θ_m) of each future item above τ, for y = 1 and y = 0: (M, A) each, the same in every future
        above = probabilities[:, self.above]
        self.log_yes = label_log_likelihood(above, np.ones(above.shape[1]))
        self.log_no = label_log_likelihood(above, np.zeros(above.shape[1]))
        self.prior, self.probability = ev.labels_only_prior(), probability
        self.labels, self.checkpoints = np.zeros(len(items), dtype=bool), np.zeros(1, dtype=int)

    def future(self, labels, checkpoints):
        """The reader of a future whose next items have these labels (horizon,), read at these checkpoints."""
        out = copy.copy(self)
        out.labels, out.checkpoints = np.asarray(labels, dtype=bool), np.asarray(checkpoints, dtype=int)
        return out

    def value(self, w):
        """(K, M) weights, one row per checkpoint from the first → (K,) probability of the more likely side."""
        cut = self.checkpoints[:w.shape[0]]
        y = self.labels[self.above]
        step = np.where(y, self.log_yes, self.log_no)                                # (M, A) the future's above τ
        count = np.searchsorted(np.flatnonzero(self.above), cut, side="left")       # (K,) of them by each checkpoint
        log_lik = self.log_lik[None, :] + np.hstack([np.zeros((step.shape[0], 1)), np.cumsum(step, axis=1)])[:, count].T
        n, k = self.labeled + count, self.positives + np.concatenate([[0], np.cumsum(y)])[count]
        model = psis_log_predictive(log_lik, np.log(np.maximum(w, 1e-300)))[0]     # (K,)
        weight = labels_only_weight(model, n, k, self.prior)[:, None]
        alone = labels_only_meets(self.n_predicted, self.below[None, :], n[:, None], k[:, None], *self.requirement)
        yes = np.sum(w * ((1.0 - weight) * self.model_yes[None, :] + weight * alone), axis=1)
        return np.maximum(yes, 1.0 - yes)


def check_goal(target, width=None, probability=None):
    """Check that exactly one goal is given and that it fits the target (before any fit); returns the Target.

    Raises
    ------
    SpeInputError
        An unknown target; neither or both goals; a width ≤ 0 or a width on a yes/no target; a probability
        outside (0.5, 1) or on a target that is not a decision.
    """
    spec, _ = parse_target(target)
    if (width is None) == (probability is None):
        raise SpeInputError("give exactly one goal: a width or a probability", argument="width")
    if width is not None:
        if not spec.interval:
            raise SpeInputError(f"target {target!r} is a yes/no decision: give a probability goal", argument="width")
        if not (isinstance(width, (int, float, np.floating)) and np.isfinite(width) and width > 0):
            raise SpeInputError(f"must be a number > 0, got {plain(width)!r}", argument="width")
        return spec
    if spec.decision is None:
        raise SpeInputError(f"target {target!r} is not a decision: give a width goal "
                            "(a probability goal needs threshold:P,R or compare)", argument="probability")
    if not (isinstance(probability, (int, float, np.floating)) and 0.5 < probability < 1):
        raise SpeInputError(f"must be a number in (0.5, 1), got {plain(probability)!r}", argument="probability")
    return spec


def _goal(spec, target, width, probability, level):
    """The goal (checked by :func:`check_goal`)'s kind, value, words, and a function of the target's draws
    giving its reader."""
    if width is not None:
        what = "band" if spec.name == "pr-band" else "interval"
        return ("width", float(width), f"the {level:.0%} {what} of {target} narrower than {width:g}",
                lambda draws: _Width(draws, level, float(width)))
    return ("probability", float(probability), f"the decision on {target} reaches probability {probability:g}",
            lambda draws: _Decision(draws, spec, float(probability)))
