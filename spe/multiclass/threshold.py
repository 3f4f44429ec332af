r"""One class's threshold most likely to meet a precision/recall requirement, and how likely (Welinder et al.
2013, §4.4, for K classes).

The decision is one-vs-rest: an item is flagged as class k when the classifier's probability of k is at least
τ (probability units: the softmax of the logits when logits were given). For every candidate τ and every
posterior draw θ_m of the evaluation's score model, the items of class k among those flagged are counted from
labels drawn under θ_m — only "is it class k", a Bernoulli draw of p(y_i = k | s_i, θ_m) per unlabeled item,
the labeled items keeping their labels — and the requirement

.. math::
    C(τ):\quad \mathrm{precision}(τ) = \frac{TP(τ)}{D(τ)} \ge P_{\min},\qquad
    \mathrm{recall}(τ) = \frac{TP(τ)}{TP(∞)} \ge R_{\min}

is checked per draw; p(C(τ)) is the share of draws that meet it (``"population"``: the expected counts under
θ_m instead of drawn ones). The chosen τ maximises p(C(τ)), among ties the one of highest posterior-mean F1
(:func:`spe.evaluation.most_likely_threshold`, as for one score).

The label draws are the evaluation's model's, drawn again from their own stream (the evaluation's seed), so the
intervals here are of the same posterior as ``spe estimate``'s but not of the very same draws. Unlike the binary
:meth:`spe.Evaluation.best_threshold`, no labels-only alternative is mixed in: the average's ceiling model
(:mod:`.models.contaminated`) is what keeps room for a map that is wrong at high confidence.
"""

from __future__ import annotations

import numpy as np

from ..evaluation import (PERFORMANCE_KINDS, ThresholdChoice, ThresholdProbability, check_requirement,
                          most_likely_threshold, requirement_met, summarise_draws)
from ..inputs import check_choice
from .performance import draws_per_block

__all__ = ["best_class_threshold", "choose_class_threshold", "class_threshold_counts", "candidate_thresholds",
           "MAX_THRESHOLDS"]

#: At most this many candidate thresholds per class (half spaced evenly in the number of items flagged, half
#: geometrically, so that a rare class's few top items are candidates too).
MAX_THRESHOLDS = 400


def candidate_thresholds(log_probs_k, most=MAX_THRESHOLDS):
    """Candidate thresholds (T,) ascending, in probability units, and the items flagged at each, D (T,), from one
    class's log-probabilities ``log_probs_k`` (N,) (natural log); T ≤ ``most``.

    Each candidate is an item's own probability of the class, at depths 1..N spaced both evenly and
    geometrically, so D(τ) = #{i : p_ik ≥ τ} ≥ 1."""
    p = np.sort(np.exp(np.asarray(log_probs_k, dtype=float)))  # ascending
    n = p.size
    depth = np.unique(np.r_[np.linspace(1, n, most // 2), np.geomspace(1, n, most // 2)].round().astype(np.int64))
    thresholds = np.unique(p[n - depth])
    flagged = n - np.searchsorted(p, thresholds, side="left")
    return thresholds, flagged


def class_threshold_counts(evaluation, k, thresholds, performance="sample", rng=None):
    """True positives per draw at each threshold, and positives per draw, for class position ``k``.

    Parameters
    ----------
    evaluation : spe.multiclass.MulticlassEvaluation
    k : int
        The class's position 0..K−1.
    thresholds : array, shape (T,)
        Probability units.
    performance : {"sample", "population"}
    rng : numpy.random.Generator, int or None
        The label draws' stream or its seed (None: from the evaluation's seed).

    Returns
    -------
    tp : array, shape (M, T)
        Items of class k whose probability of k is ≥ τ (drawn, or expected under θ_m).
    positives : array, shape (M,)
        Items of class k.

    Memory: a block of draws' probabilities (B·N·K float32, :func:`spe.multiclass.performance.draws_per_block`)
    and the (B, N) indicators at a time.
    """
    check_choice("performance", performance, PERFORMANCE_KINDS)
    rng = np.random.default_rng([int(evaluation.diagnostics.get("seed", 0)), 3] if rng is None else rng)
    log_p = evaluation.scores.log_probs[:, k]
    order = np.argsort(-log_p, kind="stable")
    ascending = np.exp(log_p[order[::-1]])  # the probabilities sorted, from the order already found
    depth = len(log_p) - np.searchsorted(ascending, thresholds, side="left")  # 0: none flagged
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    labeled_at = rank[evaluation.labeled_index]
    labeled_is_k = (evaluation.labeled_class == k).astype(np.float32)
    inputs = np.asarray(evaluation.inputs, dtype=np.float32)
    block = draws_per_block(inputs.shape[0], inputs.shape[1])
    tp = np.zeros((evaluation.model.n_draws, np.size(thresholds)))
    positives = np.zeros(evaluation.model.n_draws)
    for start, fitted, theta in evaluation.model.blocks(block):
        q = fitted.probabilities(theta, inputs)[:, order, k]  # (B, N): p(y_i = k | θ_m), items by p_ik descending
        if performance == "sample":
            q = (rng.random(q.shape, dtype=np.float32) < q).astype(np.float32)
            q[:, labeled_at] = labeled_is_k
        cum = np.zeros((q.shape[0], q.shape[1] + 1))
        np.cumsum(q, axis=1, dtype=np.float64, out=cum[:, 1:])  # cum[:, d]: class k among the d first items
        stop = start + q.shape[0]
        tp[start:stop], positives[start:stop] = cum[:, depth], cum[:, -1]
    return tp, positives


def best_class_threshold(evaluation, cls, min_precision=0.0, min_recall=0.0, level=None, performance="sample",
                         rng=None) -> ThresholdChoice:
    """The threshold on class ``cls``'s probability most likely to meet the requirement (the module's C(τ)).

    Parameters
    ----------
    evaluation : spe.multiclass.MulticlassEvaluation
    cls : str or int
        The class's name (or position).
    min_precision, min_recall : float in [0, 1]
    level : float or None
        The intervals' level (None: the evaluation's).
    performance : {"sample", "population"}
    rng : numpy.random.Generator, int or None
        The label draws' stream or its seed (None: from the evaluation's seed, so the same seed gives the same
        choice).

    Returns
    -------
    spe.evaluation.ThresholdChoice
        ``threshold`` in probability units; ``metrics``: precision, recall and F1 of the one-vs-rest decision
        there (Intervals); ``curve``: p(C(τ)) at every candidate (:func:`candidate_thresholds`), with the labeled
        items at or above each (``labeled_above``) and those of class ``cls`` among them (``positives_above``);
        ``meets``: C(τ) per draw at the chosen threshold; ``likely``: probability ≥ 0.5.

    Raises
    ------
    SpeInputError
        A requirement outside [0, 1], an unknown performance kind.
    ValueError
        A class that is not one of the evaluation's.
    """
    check_requirement(min_precision, min_recall)  # before the pass over the draws
    k = evaluation.class_index(cls)
    thresholds, flagged = candidate_thresholds(evaluation.scores.log_probs[:, k])
    tp, positives = class_threshold_counts(evaluation, k, thresholds, performance, rng)
    return choose_class_threshold(evaluation, k, thresholds, flagged, tp, positives, min_precision, min_recall,
                                  level, performance)


def choose_class_threshold(evaluation, k, thresholds, flagged, tp, positives, min_precision, min_recall,
                           level=None, performance="sample") -> ThresholdChoice:
    """The choice of :func:`best_class_threshold` from counts already drawn (:func:`candidate_thresholds`,
    :func:`class_threshold_counts`): several requirements of one class share one pass over the draws.

    Parameters
    ----------
    evaluation : spe.multiclass.MulticlassEvaluation
    k : int
        The class's position.
    thresholds, flagged : arrays, shape (T,)
    tp : array, shape (M, T)
    positives : array, shape (M,)
    min_precision, min_recall, level, performance
        As :func:`best_class_threshold`.

    Returns
    -------
    spe.evaluation.ThresholdChoice
        As :func:`best_class_threshold`'s.

    Raises
    ------
    SpeInputError
        A requirement outside [0, 1].
    """
    metrics = _metric_draws(tp, flagged, positives)
    meets = requirement_met(metrics, min_precision, min_recall)
    labeled_p = np.exp(evaluation.scores.log_probs[evaluation.labeled_index, k])
    above = labeled_p[None, :] >= thresholds[:, None]
    curve = ThresholdProbability(thresholds, meets.mean(axis=0), float(min_precision), float(min_recall),
                                 performance, labeled_above=above.sum(axis=1),
                                 positives_above=(above & (evaluation.labeled_class == k)[None, :]).sum(axis=1))
    best = most_likely_threshold(curve, np.nan_to_num(metrics["f1"], nan=0.0).mean(axis=0))
    weights = np.full(tp.shape[0], 1.0 / tp.shape[0])
    level = evaluation.level if level is None else level
    at = {name: summarise_draws(values[:, best], weights, level) for name, values in metrics.items()}
    probability = float(curve.probability[best])
    return ThresholdChoice(float(thresholds[best]), probability, at, probability >= 0.5, curve,
                           meets[:, best].astype(float))


def _metric_draws(tp, flagged, positives):
    """Precision, recall and F1 per draw and threshold, (M, T) each; NaN where undefined (nothing flagged, no
    item of the class)."""
    flagged = np.broadcast_to(np.asarray(flagged, dtype=float)[None, :], tp.shape)
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(flagged > 0, tp / flagged, np.nan)
        recall = np.where(positives[:, None] > 0, tp / positives[:, None], np.nan)
        both = flagged + positives[:, None]
        return {"precision": precision, "recall": recall, "f1": np.where(both > 0, 2 * tp / both, np.nan)}
