r"""The calibration map learned on a labeled reference set, carried to the pool under prior shift (and, as
``reference-covariate``, unchanged: covariate shift, :func:`reference_map`).

A user often has the classifier's own validation data: scores with every
label (the *reference set*, R items). Its calibration map p_ref(y = 1 | s)
is known far better than 20 labels on the pool can say, whatever its shape
(a deep network's over-confident top can be *less* often positive than the
items just below it), while the pool's prevalence may differ (prior shift).

The map: Bayesian binning into quantiles (BBQ; Naeini, Cooper & Hauskrecht
2015, "Obtaining well calibrated probabilities using Bayesian binning",
AAAI, §3): equal-frequency bins of the reference scores, B ∈ {2, 4, …,
1024} (at least :data:`MIN_ITEMS_PER_BIN` reference items a bin), a
Beta(N'π̂/B, N'(1 − π̂)/B) prior on each bin's positive rate p_b (their BDeu
prior, N' = 2, centred on the reference prevalence π̂ so that every B has the
same total prior weight), and the binnings averaged by their exact marginal
likelihood of the reference labels (their eq. 4). No monotonicity, no
parametric shape: the reference decides. Between the bins' centres (their
items' mean mid-rank among the reference scores) the log-odds is
interpolated linearly in mid-rank, flat beyond the outer centres: a step
map would discard the classifier's ranking inside a bin (a near-perfect
classifier's boundary bin holds both classes in order). The bins' rates are
what the reference labels and the pool's score likelihood inform, bin by
bin; the pool's labels are predicted with the interpolated map.

Prior shift (Saerens, Latinne & Decaestecker 2002, eq. 2.4;
``../shared/papers/esuli2020_sld.txt``, eq. 3): the class-conditional
score densities are the reference's, so

.. math::
    \operatorname{logit} P_{\text{pool}}(y = 1 \mid s) = \operatorname{logit} p_{b(s)} + \delta,\qquad
    \delta = \operatorname{logit}\pi_{\text{pool}} - \operatorname{logit}\pi_{\text{ref}},

with π_ref = Σ_b n_b p_b / R, and the pool's N scores have the likelihood
Saerens et al.'s EM maximises (their eq. 2.7)

.. math::
    \log p(S \mid p, \delta) = \sum_b N_b \log\Big[\tfrac{\pi_{\text{pool}}}{\pi_{\text{ref}}}\, p_b
      + \tfrac{1 - \pi_{\text{pool}}}{1 - \pi_{\text{ref}}}\,(1 - p_b)\Big] + \text{const}

(N_b pool items in bin b). Its weight is min(1, R / N): the shift can be
known no better than the map it rests on, learned from R items (a
coarsened posterior, Miller & Dunson 2019, as :mod:`spe.models.mixture.check` does for the
SPE mixture). δ ~ N(0, 1.5²), the ``calibrated`` model's intercept prior.

Posterior draws by importance sampling, with a proposal that follows the
pool's scores as well as the reference: the binning from an estimate of its
posterior given both (with a defensive share of its posterior given the
reference alone); the rates from their Beta posteriors given the reference,
each tilted to the pool's score likelihood by matching its first two
derivatives (under a prior shift the pool's scores move the rates too: with
the reference-only Betas the effective sample size fell to 14 of 1,000 for a
reference at prevalence 0.05 and a pool at 0.3); δ from a Student-t (4
degrees of freedom) at the mode and scale of the Laplace approximation of
its conditional given the rates and the pool's scores (Newton's method,
vectorised over draws; a Normal there left heavy-tailed weights on small
references whose δ is skewed). Every draw is weighted by the
exact ratio of the joint posterior to that proposal times p(Y_L | p, δ),
the pool's labels, with Pareto smoothing; k̂ > 0.7 warns. The evidence
is p(Y_ref | S_ref) (BBQ's, the binnings a priori equally likely) times the
importance-sampling estimate of p(Y_L | S, reference), comparable with the
models carried from the reference by :mod:`spe.models.shift` (the reference's
labels decide between the maps) and with the models that learn the map from
the pool's labels alone (concept shift, weighed in :mod:`spe.models.anchor`):
a reference whose map predicts the pool's labels badly (concept shift,
another classifier, another labeling guideline) loses weight in the average,
and the summary says so.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from functools import partial

import numpy as np
from scipy import special, stats

from ..exceptions import ImportanceSamplingWarning
from ..inference.importance import PARETO_K_GOOD, psis, psis_loo
from ..shared_reference import kept
from .average import systematic_resample
from .base import FittedScoreModel
from .registry import ScoreModel, register
from .shift import EPS, SHIFT_PRIOR_SD, PriorShiftLikelihood, carry_to_pool

__all__ = ["Binning", "class_quantile_binning", "candidate_binnings", "fit_reference", "reference_map", "NAME",
           "COVARIATE_NAME", "SHIFT_PRIOR_SD",
           "EQUIVALENT_SAMPLE_SIZE", "MIN_ITEMS_PER_BIN", "MAX_BINS"]

#: The model's name in tables and in ``score_model``.
NAME = "reference"

#: N', the BDeu equivalent sample size: the total prior weight of the bins' Beta priors, whatever B.
EQUIVALENT_SAMPLE_SIZE = 2.0
#: Binnings with fewer reference items a bin than this are not considered.
MIN_ITEMS_PER_BIN = 10
#: The most bins considered.
MAX_BINS = 1024
#: Fixed-point rounds placing the tilted Beta proposal of the rates (:func:`_tilted_beta`).
TILT_ROUNDS = 4
#: Draws per binning that estimate how much the pool's scores reweigh the binnings (:func:`_binning_proposal`).
PILOT_DRAWS = 200
#: Share of the binnings' proposal kept on their posterior given the reference alone (:func:`_binning_proposal`).
DEFENSIVE = 0.2


@dataclass(frozen=True)
class Binning:
    """One binning of the reference scores (:func:`class_quantile_binning`) and its Beta posteriors.

    Attributes
    ----------
    edges : array, shape (B − 1,)
        Interior bin edges, score units; a score s is in bin
        ``searchsorted(edges, s, side="right")``.
    positives, items : arrays, shape (B,)
        Reference positives and items per bin.
    alpha, beta : float
        The Beta prior of each bin's rate.
    log_evidence : float
        log p(reference labels | this binning), exact.
    sorted_scores : array, shape (R,)
        The reference scores, ascending: a score's mid-rank among them places
        it between the bins' centres.
    centres : array, shape (B,)
        Each bin's mean mid-rank of its reference items.
    """

    edges: np.ndarray
    positives: np.ndarray
    items: np.ndarray
    alpha: float
    beta: float
    log_evidence: float
    sorted_scores: np.ndarray
    centres: np.ndarray

    @property
    def n_bins(self):
        """B, the number of bins."""
        return self.items.size

    @property
    def posterior(self):
        """The Beta posterior of each bin's rate given the reference labels: (α + k_b, β + n_b − k_b), two (B,)."""
        return self.alpha + self.positives, self.beta + self.items - self.positives

    def bin_of(self, scores):
        """Bin index of each score: (K,) → (K,) ints in [0, B)."""
        return np.searchsorted(self.edges, np.asarray(scores, dtype=float), side="right")

    def prevalence(self, rates):
        """π_ref = Σ_b n_b p_b / R, the reference prevalence under each draw of the rates: (M, B) → (M,)."""
        return rates @ self.items / self.items.sum()

    def interpolation(self, scores):
        """Where each score sits between the bins' centres: (left bin (K,), weight of the right one (K,)).

        Beyond the outer centres the weight is 0 (the outer bin's rate).
        """
        if self.n_bins == 1:
            return np.zeros(np.size(scores), dtype=int), np.zeros(np.size(scores))
        r = _mid_ranks(self.sorted_scores, scores)
        left = np.clip(np.searchsorted(self.centres, r, side="right") - 1, 0, self.n_bins - 2)
        t = np.clip((r - self.centres[left]) / (self.centres[left + 1] - self.centres[left]), 0.0, 1.0)
        return left, t

    def interpolate(self, values, scores):
        """Per-bin values (M, B) (log-odds) interpolated at the scores (K,) between bin centres: (M, K)."""
        left, t = self.interpolation(scores)
        return (1 - t) * values[:, left] + t * values[:, np.minimum(left + 1, self.n_bins - 1)]


def _mid_ranks(sorted_scores, scores):
    """Mid-rank of each score among ``sorted_scores`` (R,), ascending, in [0, R]: (K,) → (K,); ties share one."""
    s = np.asarray(scores, dtype=float)
    return 0.5 * (np.searchsorted(sorted_scores, s, side="left") + np.searchsorted(sorted_scores, s, side="right"))


def class_quantile_binning(scores, labels, n_bins, prevalence):
    """The reference scores (R,) with labels (R,) 0/1 in about ``n_bins`` bins, and each bin's Beta posterior.

    Half the edges sit at equal steps of the negatives' scores and half at
    equal steps of the positives' (quantiles, inverted CDF: observed scores,
    so tied scores never split), so bins are finest where each class's
    items are (the PR curve moves in steps of positives); coinciding edges
    merge bins (B may be smaller). Prior per bin: the BDeu
    Beta(N' π̂ / B, N' (1 − π̂) / B), π̂ = ``prevalence`` (Naeini et al. 2015,
    §3); ``log_evidence`` is the product of the bins' Beta-binomial
    marginal likelihoods (their eq. 4). Scores in score units.

    Returns
    -------
    Binning
    """
    s, y = np.asarray(scores, dtype=float), np.asarray(labels, dtype=int)
    half = max(n_bins // 2, 1)
    steps = np.arange(1, half) / half
    edges = np.unique(np.concatenate([np.quantile(s[y == c], steps, method="inverted_cdf") for c in (0, 1)]))
    edges = edges[edges > s.min()]  # a bin below the smallest score would hold nothing
    b = np.searchsorted(edges, s, side="right")
    items = np.bincount(b, minlength=edges.size + 1).astype(float)
    positives = np.bincount(b, weights=y, minlength=edges.size + 1)
    alpha = EQUIVALENT_SAMPLE_SIZE * prevalence / items.size
    beta = EQUIVALENT_SAMPLE_SIZE * (1 - prevalence) / items.size
    log_ev = float(np.sum(special.betaln(alpha + positives, beta + items - positives) - special.betaln(alpha, beta)))
    order = np.sort(s)
    centres = np.bincount(b, weights=_mid_ranks(order, s), minlength=edges.size + 1) / items
    return Binning(edges, positives, items, alpha, beta, log_ev, order, centres)


def candidate_binnings(scores, labels):
    """The binnings of BBQ (Naeini et al. 2015): B = 2, 4, 8, … while B ≤ R / :data:`MIN_ITEMS_PER_BIN` and
    B ≤ :data:`MAX_BINS`, each by :func:`class_quantile_binning`.

    Parameters
    ----------
    scores : array, shape (R,)
        The reference set's scores, score units.
    labels : 0/1 array, shape (R,)

    Returns
    -------
    list of Binning
        By increasing B; a count that gives the same bins as a smaller one (tied scores) is kept once.
    """
    r = np.size(scores)
    prevalence = float(np.mean(labels))
    counts = [2 ** k for k in range(1, 11) if 2 ** k <= min(MAX_BINS, r / MIN_ITEMS_PER_BIN)] or [2]
    out = {}
    for c in counts:
        binning = class_quantile_binning(scores, labels, c, prevalence)
        out.setdefault(binning.n_bins, binning)  # ties can make two counts the same binning
    return list(out.values())


def _tilted_beta(binning, pool_counts, power):
    """Beta parameters (a (B,), b (B,)) for the proposal of the rates given the reference *and* the pool's scores.

    The rates' posterior given the reference alone is Beta(a₀, b₀) per bin;
    the pool's scores multiply it by r_b(p, δ)^(power · N_b), where
    r_b = c₁ p_b + c₀ (1 − p_b), c₁ = π_pool / π_ref, c₀ = (1 − π_pool) / (1 − π_ref)
    (Saerens et al. 2002, eq. 2.7). Under a prior shift (c₁ ≠ c₀) that factor
    moves and narrows every bin's rate, and the reference-only Beta is a
    poor proposal (ESS 14 of 1,000 for a reference at 0.05 and a pool at 0.3).
    Here log r_b is replaced by A log p + C log(1 − p), matching its first and
    second derivatives in p at the current rates, with (π_ref, δ) at their
    values there (δ by :meth:`~spe.models.shift.PriorShiftLikelihood.laplace`), a few fixed-point rounds from
    the reference-only means. The tilt is kept from removing more than half
    of a Beta parameter; the importance weights correct what it misses.
    """
    a0, b0 = binning.posterior
    a, b = a0, b0
    for _ in range(TILT_ROUNDS):
        p = a / (a + b)
        shift = PriorShiftLikelihood(p[None, :], binning.prevalence(p[None, :]), pool_counts, power)
        delta = shift.laplace()[0]
        pi_ref = shift.pi_ref[0, 0]
        pi = special.expit(special.logit(pi_ref) + delta[0])
        first, second = _pool_term_derivatives(p, binning, pool_counts, power, pi_ref, pi)
        a = np.maximum(a0 + p ** 2 * first - p ** 2 * (1 - p) * second, 0.5 * a0)
        b = np.maximum(b0 - (1 - p) ** 2 * (p * second + first), 0.5 * b0)
    return a, b


def _pool_term_derivatives(p, binning, pool_counts, power, pi_ref, pi):
    """Derivatives in each rate p_b of power · Σ_b N_b log r_b at fixed δ: first (B,) and the diagonal second (B,).

    π_ref = Σ n_b p_b / R moves with every rate (and π_pool with it, δ fixed), which adds n_b / R · G to each first
    derivative; that term's share of the second derivative, O((n_b / R)²), is left out.
    """
    c1, c0 = pi / pi_ref, (1 - pi) / (1 - pi_ref)
    m, d = power * pool_counts, c1 - c0
    r = c0 + d * p
    d_pi = pi * (1 - pi) / (pi_ref * (1 - pi_ref))  # dπ_pool / dπ_ref at fixed δ
    d_c1 = (d_pi * pi_ref - pi) / pi_ref ** 2
    d_c0 = ((1 - pi) - d_pi * (1 - pi_ref)) / (1 - pi_ref) ** 2
    common = np.sum(m * (p * d_c1 + (1 - p) * d_c0) / r)
    return m * d / r + binning.items / binning.items.sum() * common, -m * d ** 2 / r ** 2


def _draw_rates_and_shift(binning, tilt, pool_counts, power, n, rng):
    """n proposal draws of one binning's rates (the Betas ``tilt`` = :func:`_tilted_beta`) and δ (Laplace given
    the rates).

    Returns (rates (n, B), δ (n,), log ratios (n,) of the posterior given the reference and the pool's scores to
    the proposal, up to a constant shared by all binnings).
    """
    a, c = tilt
    # kept off 0 and 1 (a Beta with a small α underflows), so that every logit below is finite
    p = np.clip(rng.beta(a, c, size=(n, binning.n_bins)), EPS, 1 - EPS)
    shift = PriorShiftLikelihood(p, binning.prevalence(p), pool_counts, power)
    d, shift_ratio = shift.draw(rng)
    reference = stats.beta.logpdf(p, *binning.posterior).sum(axis=1)
    return p, d, shift_ratio + reference - stats.beta.logpdf(p, a, c).sum(axis=1)


def _binning_proposal(binnings, log_prior, tilts, counts, power, rng):
    """Log proposal probabilities of the binnings (K,): an estimate (:data:`PILOT_DRAWS` draws each) of their
    posterior given the reference *and* the pool's scores, mixed with a share :data:`DEFENSIVE` of their posterior
    given the reference alone, ``log_prior`` (defensive importance sampling, Hesterberg 1995), in case the
    estimate is off.

    The pool's scores can move the binnings' posterior far: they favour binnings fine enough to say how the pool's
    score distribution differs from the reference's (with R = 20,000 and N = 60,000 from 15 bins to 31).
    """
    log_z = np.array([special.logsumexp(_draw_rates_and_shift(b, tilt, c, power, PILOT_DRAWS, rng)[2])
                      for b, tilt, c in zip(binnings, tilts, counts)])
    log_post = log_prior + log_z
    # DEFENSIVE = 0 or 1 (a test's crude proposals) drops a term instead of taking the log of 0
    return np.logaddexp(np.log(DEFENSIVE) + log_prior if DEFENSIVE > 0 else -np.inf,
                        np.log1p(-DEFENSIVE) + log_post - special.logsumexp(log_post) if DEFENSIVE < 1 else -np.inf)


def _draw(binnings, log_prior, pool_scores, power, draws, rng, pool_counts=None):
    """Proposal draws: binning k ~ :func:`_binning_proposal`, then :func:`_draw_rates_and_shift`.

    ``log_prior`` (K,) is log p(k | reference). ``pool_counts``: the items each pool score stands for (None:
    one). Returns (k (M,), rates (M, B_max) NaN-padded, δ (M,), log ratios (M,) of the posterior given the
    reference and the pool's scores to the proposal, up to a constant).
    """
    counts = [np.bincount(b.bin_of(pool_scores), weights=pool_counts, minlength=b.n_bins).astype(float)
              for b in binnings]
    tilts = [_tilted_beta(b, c, power) for b, c in zip(binnings, counts)]
    log_q = _binning_proposal(binnings, log_prior, tilts, counts, power, rng)
    k = np.sort(systematic_resample(np.exp(log_q), draws, rng))
    width = max(b.n_bins for b in binnings)
    rates = np.full((draws, width), np.nan)
    delta, log_ratio = np.zeros(draws), np.zeros(draws)
    for j in np.unique(k):
        rows = np.flatnonzero(k == j)
        rates[rows, :binnings[j].n_bins], delta[rows], log_ratio[rows] = _draw_rates_and_shift(
            binnings[j], tilts[j], counts[j], power, rows.size, rng)
        log_ratio[rows] += log_prior[j] - log_q[j]
    return k, rates, delta, log_ratio


def _pool_log_odds(binnings, draws, scores):
    """logit P_pool(y = 1 | s) under each draw (M, 2 + B_max) = (k, δ, rates…): (M,) × (K,) → (M, K)."""
    out = np.empty((draws.shape[0], np.size(scores)))
    k = draws[:, 0].astype(int)
    for j in np.unique(k):
        rows = np.flatnonzero(k == j)
        b = binnings[j]
        out[rows] = b.interpolate(special.logit(draws[rows, 2:2 + b.n_bins]), scores) + draws[rows, 1:2]
    return out


def fit_reference(scores, labeled_index, labeled_value, reference_scores, reference_labels, *, name=NAME,
                  draws=1000, rng=None, counts=None, binnings=None):
    """Posterior draws of the pool's p(y = 1 | s) from a labeled reference set under prior shift (module docstring).

    The map is BBQ (Naeini et al. 2015, §3, eq. 4) on the reference; the
    shift is Saerens et al. (2002)'s, eqs. 2.4 (posteriors) and 2.7 (the
    pool's score likelihood).

    Parameters
    ----------
    scores : array, shape (N,)
        All the pool's scores, score units (or, with ``counts``, a :class:`spe.pool.ScorePool`'s K values).
    labeled_index : int array, shape (n,)
    labeled_value : 0/1 array, shape (n,)
        The pool's labeled items.
    reference_scores : array, shape (R,)
        The reference set's scores, the same classifier's score units.
    reference_labels : 0/1 array, shape (R,)
        Its labels, every one known, both classes present.
    name : str
    draws : int
        M.
    rng : numpy.random.Generator, int or None
    counts : int array, shape (K,), optional
        How many items each of ``scores`` stands for (a pool's counts; N is their sum). The pool's scores
        enter only through the number of items in each bin (N_b above), so a pool whose values are the
        distinct scores gives the fit of the items themselves.
    binnings : list of Binning, optional
        :func:`candidate_binnings` of the reference (computed here when not given; a
        :class:`~spe.shared_reference.SharedReference` keeps them for all its pools).

    Returns
    -------
    FittedScoreModel
        ``draws`` (M, 2 + B_max): (binning index, δ, the bins' rates p_b,
        NaN-padded); ``weights`` (M,) PSIS-smoothed; ``constrained_draws``
        (M, 3) = (δ, π_ref, π_pool) (log-odds, probability, probability);
        ``log_evidence`` = log p(Y_ref, Y_L | S_ref, S), the reference's labels'
        probability under BBQ (the binnings a priori equally likely) times the
        pool's labels' given the reference; ``reference_log_evidence`` the
        first factor;
        ``loo`` (n,); ``diagnostics`` with the reference's size and
        prevalence, the binnings' posterior probabilities (given the
        reference, the pool's scores and its labels), the pool scores'
        weight min(1, R/N), ESS and Pareto k̂.

    Warns
    -----
    ImportanceSamplingWarning
        When Pareto k̂ > 0.7: the weighted draws are then unreliable.

    Raises
    ------
    ValueError
        If the reference labels do not hold both classes (checked with a
        message for users by :func:`spe.inputs.normalize_reference`).
    """
    rng = np.random.default_rng(rng)
    s = np.asarray(scores, dtype=float)
    ref_y = np.asarray(reference_labels, dtype=int)
    binnings, log_prior, reference_evidence = _binnings_posterior(reference_scores, ref_y, binnings)
    weights = None if counts is None else np.asarray(counts, dtype=float)
    power = min(1.0, ref_y.size / (s.size if weights is None else weights.sum()))
    k, rates, delta, log_ratio = _draw(binnings, log_prior, s, power, draws, rng, weights)
    u = np.column_stack([k, delta, rates])
    y = np.asarray(labeled_value, dtype=int)
    z = s[np.asarray(labeled_index, dtype=int)]
    log_lik = special.log_expit(np.where(y == 1, 1.0, -1.0)[None, :] * _pool_log_odds(binnings, u, z))
    log_posterior = log_ratio + log_lik.sum(axis=1)  # importance ratios of the draws given the pool's labels too
    weights, pareto_k = psis(log_posterior)
    label_evidence = float(special.logsumexp(log_posterior) - special.logsumexp(log_ratio)) if y.size else 0.0

    probability = partial(_reference_probability, binnings)

    constrained = _constrained(binnings, u)
    mean = weights @ constrained
    model = FittedScoreModel(
        name=name, draws=u, weights=weights, probability=probability, param_names=["shift", "reference_prevalence",
                                                                                   "pool_prevalence"],
        constrained_draws=constrained,
        diagnostics={"model": name, "assumption": "label", "reference": {
            "n": int(ref_y.size), "positives": int(ref_y.sum()), "prevalence": float(ref_y.mean()),
            "bins": {int(b.n_bins): float(weights[k == j].sum()) for j, b in enumerate(binnings)},
            "pool_score_weight": power,
            "pareto_k_without_labels": float(psis(log_ratio)[1])},
            "posterior_mean": {"shift": float(mean[0]), "reference_prevalence": float(mean[1]),
                               "pool_prevalence": float(mean[2])},
            "ess": float(1 / np.sum(weights ** 2)), "pareto_k": float(pareto_k),
            "proposal": "BBQ posterior of the reference map tilted by the pool's scores × Laplace in the shift"})
    model.log_evidence = reference_evidence + label_evidence
    model.reference_log_evidence = reference_evidence
    model.loo = psis_loo(log_lik, weights)[0] if y.size else np.zeros(0)
    if pareto_k > PARETO_K_GOOD:
        warnings.warn(f"the reference set's importance sampling is unreliable: Pareto k̂ = {pareto_k:.2f} > "
                      f"{PARETO_K_GOOD} (ESS {model.diagnostics['ess']:.0f} of {draws}); its bands are only "
                      "indicative (more draws, --draws, may help)", ImportanceSamplingWarning, stacklevel=2)
    return model


def _constrained(binnings, u):
    """(δ, π_ref, π_pool) of each draw: (M, 3)."""
    out = np.empty((u.shape[0], 3))
    k = u[:, 0].astype(int)
    for j in np.unique(k):
        rows, b = np.flatnonzero(k == j), binnings[j]
        pi_ref = b.prevalence(u[rows, 2:2 + b.n_bins])
        out[rows] = np.column_stack([u[rows, 1], pi_ref, special.expit(special.logit(pi_ref) + u[rows, 1])])
    return out


def _fit_registered(data, rng):
    return fit_reference(data.scores, data.labeled_index, data.labeled_value, *data.reference, draws=data.draws,
                         rng=rng, counts=data.counts, binnings=_binnings_of(data))


def _has_reference(data):
    return data.reference is not None


def _report(fitted, entry, alone):
    """``diagnostics["reference"]``: the reference set and what its BBQ map says of this pool under prior shift
    (:func:`spe.models.anchor.reference_report` adds what every anchored model says, and the warnings)."""
    d = fitted.diagnostics
    return {"reference": dict(d["reference"], **d["posterior_mean"], ess=d["ess"], pareto_k=d["pareto_k"],
                              weight=entry["weight"])}, []


register(ScoreModel(name=NAME, fit=_fit_registered, averaged=_has_reference, needs_reference=True, report=_report,
                    about="the reference set's calibration map alone (needs --reference)"))


#: The BBQ map carried under covariate shift, in tables.
COVARIATE_NAME = "reference-covariate"


def reference_map(reference_scores, reference_labels, *, draws=1000, rng=None, binnings=None):
    """The reference set's own BBQ map p_ref(y = 1 | s) as exact posterior draws, the pool left out (Naeini et al.
    2015, §3): the binning by its posterior probability given the reference labels (eq. 4, the binnings a priori
    equally likely), then each bin's rate from its Beta posterior.

    What :func:`spe.models.shift.carry_to_pool` carries to a pool under covariate shift (``reference-covariate``):
    the map unchanged, as NannyML's CBPE assumes, beside :func:`fit_reference`'s label shift.

    Parameters
    ----------
    reference_scores : array, shape (R,)
        Score units.
    reference_labels : 0/1 array, shape (R,)
        Both classes present.
    draws : int
        M.
    rng : numpy.random.Generator, int or None
    binnings : list of Binning, optional
        :func:`candidate_binnings` of the reference (computed here when not given).

    Returns
    -------
    FittedScoreModel
        ``draws`` (M, 2 + B_max) = (binning index, 0, the bins' rates, NaN-padded), equal ``weights``;
        ``probability`` the interpolated map; ``log_evidence`` = log p(Y_ref | S_ref).

    Raises
    ------
    ValueError
        If the reference labels do not hold both classes (as :func:`fit_reference`).
    """
    rng = np.random.default_rng(rng)
    binnings, log_prior, reference_evidence = _binnings_posterior(reference_scores, reference_labels, binnings)
    k = np.sort(systematic_resample(np.exp(log_prior), draws, rng))
    rates = np.full((draws, max(b.n_bins for b in binnings)), np.nan)
    for j in np.unique(k):
        rows, b = np.flatnonzero(k == j), binnings[j]
        rates[rows, :b.n_bins] = np.clip(rng.beta(*b.posterior, size=(rows.size, b.n_bins)), EPS, 1 - EPS)
    model = FittedScoreModel(name=NAME, draws=np.column_stack([k, np.zeros(draws), rates]),
                             weights=np.full(draws, 1.0 / draws), probability=partial(_reference_probability, binnings),
                             diagnostics={"model": NAME, "fitted_on": "the reference set"})
    model.log_evidence = reference_evidence
    return model


def _binnings_posterior(reference_scores, reference_labels, binnings=None):
    """The reference's candidate binnings (given, or :func:`candidate_binnings`), their log posterior
    probabilities given its labels (K,) and log p(Y_ref | S_ref), the binnings a priori equally likely (Naeini et
    al. 2015, eq. 4); ValueError unless the labels hold both classes."""
    ref_y = np.asarray(reference_labels, dtype=int)
    if not (np.any(ref_y == 0) and np.any(ref_y == 1)):
        raise ValueError("the reference labels must hold both classes")
    binnings = candidate_binnings(np.asarray(reference_scores, dtype=float), ref_y) if binnings is None else binnings
    log_ev = np.array([b.log_evidence for b in binnings])
    return binnings, log_ev - special.logsumexp(log_ev), float(special.logsumexp(log_ev) - np.log(len(binnings)))


def _binnings_of(data):
    """The reference's candidate binnings, computed once per :class:`~spe.shared_reference.SharedReference`."""
    return kept(data.reference, "binnings", lambda: candidate_binnings(*data.reference))


def _fit_covariate(data, rng):
    fit_rng, carry_rng = rng.spawn(2)
    bbq = kept(data.reference, ("bbq map", data.draws),
               lambda: reference_map(*data.reference, draws=data.draws, rng=fit_rng, binnings=_binnings_of(data)))
    return carry_to_pool(bbq, data.reference_cells, data.pool_cells, data.scores[data.labeled_index],
                         data.labeled_value, name=COVARIATE_NAME, draws=data.draws, rng=carry_rng,
                         assumption="covariate")


register(ScoreModel(name=COVARIATE_NAME, fit=_fit_covariate, averaged=_has_reference, needs_reference=True,
                    about="the reference set's calibration map alone, unchanged on the pool: covariate shift "
                          "(needs --reference)"))


def _reference_probability(binnings, d, v):
    return special.expit(_pool_log_odds(binnings, np.asarray(d, dtype=float), v))
