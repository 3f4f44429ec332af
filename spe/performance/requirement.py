r"""Whether a threshold meets a precision/recall requirement, allowing that the score model is wrong above it.

The posterior probability that threshold τ meets the requirement C(τ) =
[precision(τ) ≥ P ∧ recall(τ) ≥ R] (Welinder et al. 2013, §4.4) is, under
the score model alone, the weighted fraction of posterior draws in which it
holds. That number is only as good as the model's p(y = 1 | s) above τ,
where a high threshold often has one or two labeled items, or none: a deep
network's probabilities piled near 1, or a naive-Bayes score shared by
hundreds of items, are then taken at the model's word, and the statement
can be near-certain while the true precision is 0.7.

So the probability is averaged over two hypotheses about the items scored
≥ τ, with prior probability 1/2 each (:data:`LABELS_ONLY_PRIOR`; with a
labeled reference set whose map applies, its labels have checked the model
across the scores and the second keeps only the weight of a new map,
:meth:`spe.evaluation.Evaluation.labels_only_prior`):

* **the score model is right there**: C(τ) per posterior draw, as before;
* **it is not**: the positive rate q among the items above τ is unknown,
  q ~ Beta(1, 1), and learned from the labeled items above τ alone (they
  are a random sample of them): q | k of n positive ~ Beta(1 + k, 1 + n − k).
  Below τ the model still counts the positives (what recall needs).

Their posterior weights come from how well each predicted the labels of the
labeled items above τ given the others: the model's p(Y_above | Y_below) by
Pareto-smoothed importance sampling of its posterior draws
(:func:`spe.inference.psis_log_predictive`: PSIS-LOO with the group of items
above τ left out), the alternative's the Beta-binomial k! (n − k)! / (n + 1)!. With no
labeled item above τ both predict nothing and the weight stays 1/2, so a
statement that rests on the model's extrapolation alone cannot exceed
(1 + P(q ≥ P)) / 2, about 0.55 for P = 0.9. With many labeled items above
τ that the model predicted well, its weight approaches 1 and the statement
is the model's.

Sample performance counts the labeled items above τ as they are and the
unlabeled ones at the rate q (the binomial spread among them is left out:
with few labels q's own spread is much wider); population performance
reads q as the precision.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from ..inference import psis_log_predictive

__all__ = ["LABELS_ONLY_PRIOR", "RequirementCheck", "requirement_check", "labels_only_weight",
           "labels_only_meets", "label_log_likelihood"]

#: Prior probability that the score model is wrong above a threshold (its positive rate there then known
#: only from the labeled items above it).
LABELS_ONLY_PRIOR = 0.5


@dataclass(frozen=True)
class RequirementCheck:
    """C(τ) at T thresholds under M posterior draws, with the hypothesis that the model is wrong above τ.

    Attributes
    ----------
    thresholds : array, shape (T,)
        Ascending, score units.
    meets : array, shape (M, T)
        Per draw, the probability that τ meets the requirement: C(τ) under
        the draw (0 or 1) and P(C(τ)) under the labels-only hypothesis (with
        the draw's positives below τ), mixed by ``labels_only_weight``.
    model_meets : bool array, shape (M, T)
        C(τ) under each draw: the score model's own statement.
    model_probability : array, shape (T,)
        The score model's own p(C(τ)): the weighted fraction of draws.
    labels_only_weight : array, shape (T,)
        Posterior probability that the model is wrong above τ.
    labeled_above, positives_above : int arrays, shape (T,)
        Labeled items scored ≥ τ, and the positives among them.
    """

    thresholds: np.ndarray
    meets: np.ndarray
    model_meets: np.ndarray
    model_probability: np.ndarray
    labels_only_weight: np.ndarray
    labeled_above: np.ndarray
    positives_above: np.ndarray


def requirement_check(perf, labeled_scores, labeled_values, probabilities, min_precision, min_recall, model_meets,
                      prior=LABELS_ONLY_PRIOR):
    """:class:`RequirementCheck` of a requirement at the thresholds of ``perf`` (module docstring; the requirement
    C(τ) of Welinder et al. 2013, §4.4).

    Parameters
    ----------
    perf : spe.performance.SamplePerformance
        Its ``thresholds`` (T,), ``n_predicted`` (T,), ``true_positives``
        (M, T), ``n_positive`` (M,), ``weights`` (M,) and ``kind``.
    labeled_scores : array, shape (n,)
        Score units.
    labeled_values : int array, shape (n,)
        0/1.
    probabilities : array, shape (M, n)
        p(y_i = 1 | s_i, θ_m) of the labeled items under each draw.
    min_precision, min_recall : float in [0, 1]
    model_meets : bool array, shape (M, T)
        C(τ) under each draw.
    prior : float in [0, 1)
        Prior probability that the model is wrong above a threshold (:data:`LABELS_ONLY_PRIOR`; less where a
        labeled reference set checked the model across the scores, see
        :meth:`spe.evaluation.Evaluation.labels_only_prior`).

    Returns
    -------
    RequirementCheck
    """
    w = perf.weights / perf.weights.sum()
    order, scores_down, top_positives = _descending(labeled_scores, labeled_values)
    above, positives = _labeled_above(perf.thresholds, scores_down, top_positives)
    log_lik = label_log_likelihood(probabilities, labeled_values)
    top = np.cumsum(log_lik[:, order], axis=1).T  # (n, M): the top j items' log likelihood, j = 1..n
    model = np.zeros(top.shape[0] + 1)
    if top.shape[0]:
        model[1:] = psis_log_predictive(top, np.broadcast_to(np.log(np.maximum(w, 1e-300)), top.shape))[0]
    weight = labels_only_weight(model, np.arange(model.size), top_positives, prior)[above]
    below = perf.n_positive[:, None] - perf.true_positives  # (M, T): positives below τ under each draw
    alternative = labels_only_meets(perf.n_predicted, below, above, positives, min_precision, min_recall,
                                    perf.kind)
    meets = (1.0 - weight) * model_meets + weight * alternative
    return RequirementCheck(perf.thresholds.copy(), meets, model_meets, w @ model_meets, weight, above, positives)


def label_log_likelihood(probabilities, labels):
    """log p(y_i | θ_m) of labels under each draw: (M, n) from p(y_i = 1 | θ_m) (M, n) and labels (n,) 0/1.

    The probability of each label is kept at least 10⁻³⁰⁰, so that a label a draw calls impossible costs about
    −690 nats, not −∞.
    """
    p = np.clip(np.asarray(probabilities, dtype=float), 0.0, 1.0)
    return np.log(np.maximum(np.where(np.asarray(labels) == 1, p, 1.0 - p), 1e-300))


def labels_only_weight(model_log_predictive, labeled_above, positives_above, prior=LABELS_ONLY_PRIOR):
    """Posterior probability that the score model is wrong above a threshold (arrays broadcast together).

    Parameters
    ----------
    model_log_predictive : array
        log p(labels of the items above τ | the other labels) under the score model's posterior.
    labeled_above, positives_above : int arrays
        n labeled items above τ and the k positives among them; the alternative predicted their labels with
        k! (n − k)! / (n + 1)! (a uniform prior on their positive rate).
    prior : float in [0, 1)
        Its prior probability (default :data:`LABELS_ONLY_PRIOR`).

    Returns
    -------
    array
        The arguments' broadcast shape, probabilities in [0, 1].
    """
    if prior <= 0:
        return np.zeros(np.broadcast(model_log_predictive, labeled_above).shape)
    k, n = np.asarray(positives_above), np.asarray(labeled_above)
    alternative = special.betaln(1 + k, 1 + n - k)
    return special.expit(np.log(prior) + alternative - np.log1p(-prior) - model_log_predictive)


def labels_only_meets(n_predicted, positives_below, labeled_above, positives_above, min_precision, min_recall,
                      kind="sample"):
    """P(C(τ)) if the model is wrong above τ: its positive rate q ~ Beta(1 + k, 1 + n − k) from the labeled items
    above τ alone; the positives below τ as given (arrays broadcast together, e.g. (T,) with (M, T)).

    Parameters
    ----------
    n_predicted : array
        Items scored ≥ τ.
    positives_below : array
        Positives scored < τ (per posterior draw: what recall needs).
    labeled_above, positives_above : int arrays
        n and k.
    min_precision, min_recall : float in [0, 1]
    kind : {"sample", "population"}
        Sample performance counts the n labeled items above τ as labeled and the others at rate q; population
        performance reads q as the precision.

    Returns
    -------
    array
        The arrays' broadcast shape, probabilities in [0, 1].
    """
    n_pred = np.asarray(n_predicted, dtype=float)
    above, positives = np.asarray(labeled_above), np.asarray(positives_above)
    need = np.maximum(min_precision * n_pred, _recall_need(positives_below, min_recall)) - 1e-9
    if kind == "sample":
        unlabeled = n_pred - above
        with np.errstate(divide="ignore", invalid="ignore"):
            rate = np.where(unlabeled > 0, (need - positives) / unlabeled, np.where(need <= positives, -1.0, 2.0))
    else:
        rate = need / np.maximum(n_pred, 1.0)
    # P(q ≥ rate) for q ~ Beta(1 + k, 1 + n − k): scipy.special.betainc, 10× faster here than stats.beta.sf
    out = special.betainc(1.0 + above - positives, 1.0 + positives, 1.0 - np.clip(rate, 0.0, 1.0))
    out = np.where(rate <= 0, 1.0, np.where(rate > 1, 0.0, out))
    return np.where(n_pred > 0, out, 0.0) if min_precision > 0 else out


def _descending(labeled_scores, labeled_values):
    """The labeled items from the highest score down: (their order (n,), their scores (n,), the positives among
    the top j for j = 0..n (n + 1,))."""
    order = np.argsort(np.asarray(labeled_scores, dtype=float), kind="stable")[::-1]
    y = np.asarray(labeled_values)[order]
    return order, np.asarray(labeled_scores, dtype=float)[order], np.concatenate([[0], np.cumsum(y)]).astype(np.int64)


def _labeled_above(thresholds, scores_down, top_positives):
    """Labeled items scored ≥ each threshold, and the positives among them: two int arrays (T,)."""
    above = scores_down.size - np.searchsorted(scores_down[::-1], thresholds, side="left")
    return above.astype(np.int64), top_positives[above]


def _recall_need(below, min_recall):
    """True positives above τ that recall ≥ R needs, given ``below`` positives under it: R/(1 − R) · below
    (R = 1: none may be below)."""
    if min_recall >= 1:
        return np.where(np.asarray(below) > 0, np.inf, 0.0)
    return min_recall / (1.0 - min_recall) * np.asarray(below)
