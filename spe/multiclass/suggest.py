"""Which items to label next for a multiclass estimate: the expected reduction of a target's posterior variance.

For an unlabeled item i, its label y_i = k would reweigh the posterior draws θ_m by p(y_i = k | s_i, θ_m)
(Bayes' rule on the draws); the expected posterior variance of a target t (accuracy, macro F1, a class's AP) is
Σ_k p(y_i = k) Var_{w_k}(t), and the gain is Var(t) minus it (the preposterior analysis of
:mod:`spe.active.preposterior`, with K outcomes per label). The k items of largest gain are suggested, each
valued against the current posterior (not conditioned on the others). Candidates: every unlabeled item, or a
random :data:`MAX_CANDIDATE_CELLS` / K of them on a large pool (M·C·K probabilities are held).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["ClassSuggestion", "suggest_labels", "suggest_for_draws", "target_draws", "threshold_target", "TARGETS",
           "MAX_CANDIDATE_CELLS"]

#: Most candidate items × classes valued at once.
MAX_CANDIDATE_CELLS = 200_000
#: The targets: accuracy, macro F1 (both of the population under each draw), one class's AP ("ap:NAME"), or
#: whether one class's best threshold meets a precision/recall requirement ("threshold:NAME:P,R").
TARGETS = ("accuracy", "macro_f1", "ap:CLASS", "threshold:CLASS:P,R")


@dataclass(frozen=True)
class ClassSuggestion:
    """The items to label next, best first.

    Attributes
    ----------
    items : array, shape (k,)
        Their positions 0..N−1.
    ids : array, shape (k,) or None
        Their ids, when the scores carry them.
    expected_gain : array, shape (k,)
        The expected reduction of the target's posterior variance (target units²).
    variance : float
        The target's posterior variance now.
    target : str
    """

    items: np.ndarray
    ids: np.ndarray | None
    expected_gain: np.ndarray
    variance: float
    target: str

    def to_frame(self):
        """A DataFrame ``id, expected_gain`` (``id``: the item's id, or its position), best first."""
        import pandas as pd

        return pd.DataFrame({"id": self.items if self.ids is None else self.ids, "expected_gain": self.expected_gain})


def target_draws(evaluation, target):
    """The target's value under each draw, (M,): accuracy and macro F1 of the population (expected under each
    draw), a class's AP of the drawn labels, or whether the threshold :meth:`MulticlassEvaluation.best_threshold`
    chooses for a class meets the requirement under the draw (the population's, 1 or 0: its variance p(1 − p) is
    the doubt whether it is met). Raises ValueError for an unknown target or class, a malformed requirement."""
    if target == "accuracy":
        return evaluation.confusion_draws("population").trace(axis1=1, axis2=2) / evaluation.n_items
    if target == "macro_f1":
        return np.nanmean(evaluation.class_metric_draws("f1", "population"), axis=1)
    if target.startswith("ap:"):
        return evaluation.class_metric_draws("average_precision")[:, evaluation.class_index(target[3:])]
    if target.startswith("threshold:"):  # the population's, as accuracy's: a function of the draw alone
        return evaluation.best_threshold(*threshold_target(target), performance="population").meets
    raise ValueError(f"target must be 'accuracy', 'macro_f1', 'ap:CLASS' or 'threshold:CLASS:P,R', got {target!r}")


def threshold_target(target):
    """``"threshold:CLASS:P,R"`` → (CLASS, P, R); ValueError when malformed or P, R are outside [0, 1]."""
    name, sep, requirement = target[len("threshold:"):].rpartition(":")
    try:
        p, r = (float(v) for v in requirement.split(","))
    except ValueError:
        sep = ""
    if not sep or not name or not (0 <= p <= 1 and 0 <= r <= 1):
        raise ValueError(f"a threshold target is threshold:CLASS:P,R (P, R in [0, 1]), got {target!r}")
    return name, p, r


def _candidates(evaluation, rng):
    n, k = evaluation.n_items, len(evaluation.classes)
    free = np.setdiff1d(np.arange(n), evaluation.labeled_index)
    most = max(1, MAX_CANDIDATE_CELLS // k)
    return np.sort(rng.choice(free, most, replace=False)) if free.size > most else free


def suggest_labels(evaluation, k=10, target="accuracy", rng=None) -> ClassSuggestion:
    """The ``k`` unlabeled items whose labels are expected to shrink the target's posterior variance most.

    Parameters
    ----------
    evaluation : MulticlassEvaluation
    k : int
    target : {"accuracy", "macro_f1"}, "ap:NAME" or "threshold:NAME:P,R"
    rng : numpy.random.Generator, int or None
        Picks the candidates on a large pool.

    Returns
    -------
    ClassSuggestion

    Raises
    ------
    ValueError
        An unknown target or class, ``k`` below 1.
    """
    return suggest_for_draws(evaluation, k, target_draws(evaluation, target), target, rng)


def suggest_for_draws(evaluation, k, values, target, rng=None) -> ClassSuggestion:
    """:func:`suggest_labels` for any target given by its value under each of the evaluation's draws.

    Parameters
    ----------
    evaluation : MulticlassEvaluation
        Its model's draws (and :attr:`~spe.multiclass.evaluation.MulticlassEvaluation.inputs`) weigh the labels.
    k : int
    values : array, shape (M,)
        The target under each draw (NaN where undefined), e.g. a difference of two classifiers' accuracies.
    target : str
        Its name, as the suggestion reports it.
    rng : numpy.random.Generator, int or None

    Raises
    ------
    ValueError
        ``k`` below 1.
    """
    if int(k) < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    t = np.asarray(values, dtype=float)
    ok = np.isfinite(t)
    t = t - np.mean(t[ok])
    cand = _candidates(evaluation, np.random.default_rng(rng))
    s0, s1, s2 = _weighted_sums(evaluation, cand, np.where(ok, t, 0.0), ok)
    with np.errstate(invalid="ignore", divide="ignore"):
        within = np.where(s0 > 0, s2 / s0 - (s1 / s0) ** 2, 0.0)
    mass = s0 / s0.sum(axis=1, keepdims=True)
    variance = float(np.mean(t[ok] ** 2))
    gain = variance - np.sum(mass * within, axis=1)
    best = np.argsort(-gain, kind="stable")[: int(k)]
    ids = evaluation.scores.ids
    return ClassSuggestion(cand[best], None if ids is None else ids[cand[best]], gain[best], variance, target)


def _weighted_sums(evaluation, cand, t, ok):
    """Σ_m w, Σ_m w t, Σ_m w t² per candidate and class, (C, K), with w = p(y_i = k | θ_m) over the draws that
    define the target."""
    log_probs = evaluation.inputs[cand].astype(np.float32)
    shape = (cand.size, len(evaluation.classes))
    s0, s1, s2 = np.zeros(shape), np.zeros(shape), np.zeros(shape)
    for start, model, theta in evaluation.model.blocks(8):
        probs = model.probabilities(theta, log_probs) * ok[start:start + theta.shape[0], None, None]
        tb = t[start:start + theta.shape[0]]
        s0 += probs.sum(axis=0)
        s1 += np.einsum("m,mck->ck", tb, probs)
        s2 += np.einsum("m,mck->ck", tb * tb, probs)
    return s0, s1, s2
