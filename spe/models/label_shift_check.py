r"""Does the pool's score histogram allow a label shift from the reference set? A check from the scores alone.

Under label shift the pool's scores are a mixture of the reference's two
class-conditional score distributions with a new weight π' (Saerens,
Latinne & Decaestecker 2002): p_pool(s) = π' f₁(s) + (1 − π') f₀(s). Any
other change of the population (a new age mix, a new region: *covariate
shift*) moves the scores in a way no π' reproduces, and the label-shift
estimate of π' is then wrong, sometimes far (on NannyML's census data the
chunk whose mean score fell from 0.49 to 0.35 got π' = 0.15 for a truth of
0.34). So the label-shift models are checked against the pool's histogram,
as the SPE mixture is (:mod:`spe.models.mixture.check`): a posterior-
bootstrap test (Efron & Tibshirani 1993, §16) over :data:`BINS` equal-count
bins of the reference's scores, with the reference's own sampling noise
kept:

1. the statistic: the reference's class-conditional bin frequencies f̂₁, f̂₀,
   π̂' fitted to the pool's histogram under them (EM, Saerens et al.'s), and
   the G discrepancy of the pool's histogram from π̂' f̂₁ + (1 − π̂') f̂₀;
2. its distribution under label shift: replicate the reference's positives
   and negatives (multinomial from f̂₁, f̂₀, as many as the reference has)
   and the pool (multinomial from π̂' f̂₁ + (1 − π̂') f̂₀ with N' = min(N, R)
   items: the pool is known no better than the reference it is compared
   with, as in the shift's coarsened likelihood,
   :func:`spe.models.shift.shift_power`), and compute the statistic on each
   replicate exactly as on the data (the observed pool scaled to N').

p < :data:`~spe.models.criticism.P_VALUE_THRESHOLD`: the pool's scores
refute the label shift (reported). What weighs the label-shift models
against the covariate-shift ones is their evidence on the pool's histogram,
:func:`pool_score_evidence` (:mod:`spe.models.anchor`): a model that misfits
is switched off by its evidence, not by a threshold.
"""

from __future__ import annotations

import numpy as np
from scipy import special

__all__ = ["label_shift_check", "pool_score_evidence", "BINS", "SIMULATIONS", "PI_GRID"]

#: Equal-count bins of the reference's scores.
BINS = 20
#: Replicates of the pool's histogram.
SIMULATIONS = 400
#: EM steps fitting π' to a histogram.
EM_STEPS = 200
#: Grid points of π' integrating the label shift's evidence.
PI_GRID = 2001


def label_shift_check(reference, pool, rng, bins=BINS, simulations=SIMULATIONS):
    """Bootstrap p-value of "the pool's scores are a mixture of the reference's two classes' scores" (module
    docstring: Efron & Tibshirani 1993, §16, over the reference's sampling noise too).

    Parameters
    ----------
    reference : spe.models.cells.CompressedScores
        The reference set, with ``positives``.
    pool : spe.models.cells.CompressedScores
        The pool's scores.
    rng : numpy.random.Generator
    bins : int
        Equal-count bins of the reference's scores (fewer where ties merge them).
    simulations : int

    Returns
    -------
    float
        The p-value, in [0, 1]; small: the pool's histogram is not one a label shift makes.
    """
    ref_pos, ref_neg, observed = _histograms(reference, pool, bins)
    size = int(min(pool.n_items, reference.n_items))
    f1, f0 = ref_pos / ref_pos.sum(), ref_neg / ref_neg.sum()
    fitted = _fitted(f1[None, :], f0[None, :], observed[None, :])[0]
    statistic = _statistic(ref_pos[None, :], ref_neg[None, :], observed[None, :] / observed.sum() * size)[0]
    pos = rng.multinomial(int(ref_pos.sum()), f1, simulations)
    neg = rng.multinomial(int(ref_neg.sum()), f0, simulations)
    replicate = rng.multinomial(size, fitted, simulations)
    return float(np.mean(_statistic(pos, neg, replicate) >= statistic))


def _statistic(positives, negatives, pool):
    """The G discrepancy of each pool histogram (S, B) from the label-shift mixture of its reference's class
    histograms (S, B) each (Jeffreys-smoothed), π' fitted: (S,)."""
    return _g(pool / pool.sum(axis=1, keepdims=True), _fitted(_jeffreys(positives), _jeffreys(negatives), pool))


def _jeffreys(counts):
    """Bin frequencies of histograms (..., B) with half a count added to every bin (the Jeffreys prior's mean)."""
    return (counts + 0.5) / (counts + 0.5).sum(axis=-1, keepdims=True)


def pool_score_evidence(reference, pool, bins=BINS):
    """log p(the pool's score histogram | assumption) for label and covariate shift, on a common scale.

    The histogram is the pool's items in :data:`BINS` equal-count bins of
    the reference's scores, scaled to N' = min(N, R) items (the coarsened
    likelihood of :func:`spe.models.shift.shift_power`). Under label shift
    its bin probabilities are π' f₁ + (1 − π') f₀ (f₁, f₀ the reference's
    class histograms, Jeffreys-smoothed; π' uniform on (0, 1), integrated
    on a grid of :data:`PI_GRID` points): one free parameter. Under
    covariate shift the scores' distribution may be any: a uniform Dirichlet
    prior on the bin probabilities (the Dirichlet-multinomial). The
    multinomial coefficient, common to both, is left out. So the pool's
    scores favour the label shift when they are the reference's classes
    remixed (Occam's razor: it predicted them with one parameter), and the
    covariate shift when no remix reproduces them.

    Parameters
    ----------
    reference : spe.models.cells.CompressedScores
        The reference set, with ``positives``.
    pool : spe.models.cells.CompressedScores
        The pool's scores.
    bins : int
        Equal-count bins of the reference's scores (fewer where ties merge them).

    Returns
    -------
    dict
        ``{"label": float, "covariate": float}``, natural log (nats).
    """
    positives, negatives, observed = _histograms(reference, pool, bins)
    n = observed / observed.sum() * min(pool.n_items, reference.n_items)
    f1, f0 = _jeffreys(positives), _jeffreys(negatives)
    pi = (np.arange(PI_GRID) + 0.5) / PI_GRID
    label = special.logsumexp(np.log(np.outer(pi, f1) + np.outer(1 - pi, f0)) @ n) - np.log(PI_GRID)
    alpha = np.ones(n.size)
    covariate = (special.gammaln(alpha.sum()) - special.gammaln(alpha.sum() + n.sum())
                 + np.sum(special.gammaln(alpha + n) - special.gammaln(alpha)))
    return {"label": float(label), "covariate": float(covariate)}


def _histograms(reference, pool, bins):
    """The reference's positives and negatives and the pool's items in equal-count bins of the reference's scores:
    three (B,)."""
    cumulative = np.cumsum(reference.counts)
    cuts = np.searchsorted(cumulative, cumulative[-1] * np.arange(1, bins) / bins)
    edges = np.unique(reference.scores[np.minimum(cuts, reference.scores.size - 1)])
    b_ref = np.searchsorted(edges, reference.scores, side="right")
    b_pool = np.searchsorted(edges, pool.scores, side="right")
    width = edges.size + 1
    positives = np.bincount(b_ref, weights=reference.positives, minlength=width)
    negatives = np.bincount(b_ref, weights=reference.counts - reference.positives, minlength=width)
    return positives, negatives, np.bincount(b_pool, weights=pool.counts, minlength=width)


def _fitted(f1, f0, counts):
    """π' f₁ + (1 − π') f₀ with π' the maximum-likelihood weight of each histogram (S, B) under its (f₁, f₀)
    (S, B) each (EM, vectorised over the S rows): (S, B)."""
    pi = np.full((f1.shape[0], 1), 0.5)
    total = counts.sum(axis=1, keepdims=True)
    for _ in range(EM_STEPS):
        mix = pi * f1 + (1 - pi) * f0
        # a bin the reference left empty (below its lowest score, where ties put the first cut) says nothing of π'
        share = np.divide(pi * f1, mix, out=np.zeros_like(mix), where=mix > 0)
        pi = np.sum(share * counts, axis=1, keepdims=True) / total
    return pi * f1 + (1 - pi) * f0


def _g(frequencies, expected):
    """The G discrepancy Σ_b q_b log(q_b / p_b) of frequencies (S, B) from expected (S, B): (S,)."""
    q = frequencies
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(q > 0, q * np.log(q / expected), 0.0)
    return terms.sum(axis=1)
