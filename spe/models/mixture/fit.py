"""Fitting the SPE mixture end to end: families, MAP, importance sampling.

Welinder et al. (2013) §3.1 steps 1–3 and §4.2: choose the families (or take
the given pair), find the MAP (eq. 9), fit the proposal around it (eq. 10),
draw and weight (eq. 8). Returns the fitted model behind the one seam
(:class:`spe.models.base.FittedScoreModel`).
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
import warnings
from functools import partial

import numpy as np
from scipy import special

from ...exceptions import MixtureFitError, SpeWarning
from ...inference import INFERENCE_METHODS, PROPOSALS, PosteriorDraws, find_map, importance_sample, psis_loo
from ...inputs import check_choice
from ...output import format_items
from ...parallel import resolve_workers
from ...progress import stage
from ...quantiles import sorted_quantile
from ..base import FittedScoreModel
from .check import histogram_check, map_histogram_check
from .model import MixtureData, MixtureFit, ScoreSpace, resolve_score_type, start_sample
from .select import EXTENDED_CANDIDATES, parse_families, rank_family_pairs

__all__ = ["fit_mixture", "rank_families", "RankedFamilies", "likelihood_edges", "LIKELIHOOD_RESOLUTION"]

#: Unlabeled scores enter the likelihood on a grid of this width in model space
#: (1/4096 of the score range); see :meth:`MixtureData.build`.
LIKELIHOOD_RESOLUTION = 1.0 / 4096
#: Coarser grid for screening all family pairs before the best few are refitted.
SCREENING_RESOLUTION = 1.0 / 512



def likelihood_edges(x_sorted, bins, counts=None):
    """Edges of about ``bins`` histogram bins for the unlabeled likelihood at large N: (N,) → (E,).

    Half the edges are equally spaced over [min x, max x] (resolution where
    the scores are sparse: the top scores of a rare positive class), half
    at equally spaced quantiles (resolution where they are dense); the
    union, deduplicated, so E ≤ bins + 1. The likelihood of the bin counts
    is exact (:meth:`MixtureData.build` with ``edges``), so the bins lose
    information, not accuracy: the posterior is that of the binned scores.

    Parameters
    ----------
    x_sorted : array, shape (N,)
        Model-space scores, sorted ascending.
    bins : int
        About how many bins (≥ 2).
    counts : int array, shape (N,), optional
        Items each sorted x stands for (a :class:`spe.pool.ScorePool`).

    Returns
    -------
    array, shape (E,)
        Increasing edges in model space, the first at min x and the last at max x.
    """
    xs = np.asarray(x_sorted, dtype=float)
    half = max(int(bins) // 2, 1)
    width = np.linspace(xs[0], xs[-1], half + 1)
    count = sorted_quantile(xs, np.linspace(0.0, 1.0, half + 1), counts)
    return np.unique(np.concatenate([width, count]))


#: Points (quantiles of the scores) over which the mixture's p(y = 1 | s) is made non-decreasing.
MONOTONE_GRID = 513


@dataclass(frozen=True)
class RankedFamilies:
    """What :func:`rank_families` found.

    Attributes
    ----------
    space : ScoreSpace
    x : array, shape (N,)
        Model-space scores.
    x_sorted : array, shape (N,) or None
        ``x`` sorted ascending, when the likelihood is binned (``likelihood_bins``) and they were needed.
    x_start : array
        The scores the MAP starts are computed from: ``x``, or a sample of a pool's items (:func:`start_sample`).
    counts : int array, shape (N,), or None
        Items each x stands for (a :class:`spe.pool.ScorePool`; ``x`` is then sorted).
    data : MixtureData
    pairs : list of (str, str)
        The pairs asked for (``families="auto"`` also screens more, per class).
    ranking : list of FamilyFit
        Best first.
    top, bottom : float or None
        The identification used (None: the paper's, by the means).
    """

    space: ScoreSpace
    x: np.ndarray
    x_sorted: np.ndarray | None
    x_start: np.ndarray
    counts: np.ndarray | None
    data: MixtureData
    pairs: list
    ranking: list
    top: float | None
    bottom: float | None


def rank_families(scores, labeled_index, labeled_value, *, families="auto", prevalence_prior=(1.0, 1.0),
                  resolution=LIKELIHOOD_RESOLUTION, score_space="linear", score_type="auto", identify_top=True,
                  refit=3, likelihood_bins=None, sorted_scores=None, workers=None, counts=None):
    """Map the scores to model space and fit and rank the family pairs by their Schwarz criterion,
    log L − (P/2) log N, higher is better (−BIC/2; paper §4.2).

    The first half of :func:`fit_mixture` (see there for the parameters):
    screening on a coarse grid, the best ``refit`` refitted (0: the
    ranking is the screening's, every pair on the coarse grid); with
    ``identify_top`` the pairs must keep the log-likelihood ratio from
    falling at the top score and rising at the bottom one, and if none
    does, all are fitted again with the paper's identification. With
    ``likelihood_bins`` the final fits see the unlabeled scores as a
    histogram (:func:`likelihood_edges`). ``sorted_scores``: the scores
    sorted ascending, if the caller has them (saves a sort at large N).
    ``workers``: processes for the screening (:class:`spe.parallel.TaskPool`). ``counts``: the scores
    are a :class:`spe.pool.ScorePool`'s sorted values, each standing for that many items.

    Returns
    -------
    RankedFamilies

    Raises
    ------
    MixtureFitError
        If no family pair could be fitted.
    SpeInputError
        Bad ``families``, ``score_type`` or ``score_space``.
    """
    space = ScoreSpace.fit(scores, kind=score_space)
    x = space.to_model(scores)
    edges = x_sorted = None
    if likelihood_bins:
        x_sorted = x if counts is not None else np.sort(x) if sorted_scores is None else space.to_model(sorted_scores)
        edges = likelihood_edges(x_sorted, likelihood_bins, counts)
    data = MixtureData.build(x, labeled_index, labeled_value, resolution=resolution, edges=edges, x_sorted=x_sorted,
                             counts=counts)
    pairs = parse_families(families, resolve_score_type(np.asarray(scores, dtype=float), score_type))
    screen = MixtureData.build(x, labeled_index, labeled_value, resolution=max(resolution or 0, SCREENING_RESOLUTION),
                               counts=counts)
    x_start = x if counts is None else start_sample(x, counts)
    extend = EXTENDED_CANDIDATES if families is None or (isinstance(families, str) and families == "auto") else ()
    ranking, top, bottom = [], None, None
    if identify_top:
        top, bottom = float(np.max(x)), float(np.min(x))
        ranking = rank_family_pairs(x_start, data, pairs, prevalence_prior=prevalence_prior, screen_data=screen,
                                    top=top, bottom=bottom, extend=extend, refit=refit, workers=workers)
    if not ranking:  # no pair has an optimum identified at the end scores: the paper's identification (means)
        top = bottom = None
        ranking = rank_family_pairs(x_start, data, pairs, prevalence_prior=prevalence_prior, screen_data=screen,
                                    extend=extend, refit=refit, workers=workers)
    if not ranking:
        raise MixtureFitError(f"none of the family pairs {pairs} could be fitted to these scores")
    return RankedFamilies(space, x, x_sorted, x_start, counts, data, pairs, ranking, top, bottom)


def fit_mixture(scores, labeled_index, labeled_value, *, families="auto", draws=1000, rng=None,
                proposal="full", prevalence_prior=(1.0, 1.0), resolution=LIKELIHOOD_RESOLUTION,
                score_space="linear", check=True, temper=True, score_type="auto", monotone=True,
                identify_top=True, inference="importance", progressbar=False, likelihood_bins=None,
                sorted_scores=None, workers=None, leave_out_misfit=False, counts=None):
    """Fit the SPE mixture and draw from its posterior.

    After the fit, the histogram of all scores is checked against the
    posterior predictive distribution (:mod:`spe.models.mixture.check`); when the check
    fails, the unlabeled likelihood is tempered to the coarsened posterior
    (Miller & Dunson 2019) and the posterior redrawn, so a mixture that does
    not fit the scores gets wider bands instead of narrow wrong ones. The
    check and the tempering are in ``diagnostics["histogram_check"]``.

    Parameters
    ----------
    scores : array, shape (N,)
        All scores, score units, finite.
    labeled_index : int array, shape (n,)
    labeled_value : 0/1 int array, shape (n,)
    families : "auto", "NEG,POS" or list of pairs
        See :func:`spe.models.mixture.select.parse_families`.
    score_type : {"auto", "probability", "log-odds", "decision"}
        What the scores are (:func:`spe.models.mixture.resolve_score_type`); with
        ``families="auto"``, scores that are not probabilities leave the beta
        family out.
    draws : int
        M posterior draws.
    rng : numpy.random.Generator, int or None
    inference : {"importance", "nuts"}
        The posterior sampler: importance sampling around the MAP (the
        paper's §3.1, :func:`spe.inference.importance_sample`) or NUTS on the
        same log posterior (PyMC, :func:`spe.inference.nuts.nuts_sample`;
        slower, the reference). The log evidence p(labels | scores) is
        estimated by importance sampling either way.
    progressbar : bool
        Show PyMC's progress bar (NUTS only).
    proposal : {"full", "diagonal"}
    prevalence_prior : (float, float)
        Beta prior on π.
    resolution : float or None
        Model-space grid for the unlabeled likelihood (None: exact).
    likelihood_bins : int or None
        About B histogram bins for the unlabeled scores instead
        (:func:`likelihood_edges`; exact likelihood of the bin counts by
        CDF differences, cost O(B) per draw whatever N is). The large-N
        path of :func:`spe.evaluate`.
    sorted_scores : array, shape (N,), optional
        ``scores`` sorted ascending, if the caller has them: the
        quantiles, bins and checks below read them instead of sorting again.
    workers : int or None
        Processes for the family screening (:class:`spe.parallel.TaskPool`;
        None: the usable cores, 1: none). The result does not depend on it.
    counts : int array, shape (N,), optional
        ``scores`` are the K ascending values of a :class:`spe.pool.ScorePool`, each standing for this
        many items (labeled entries for one): every statistic of all items is taken with these weights.
    score_space : {"linear", "logit", "auto"}
        How scores are mapped to model space (:class:`ScoreSpace`).
    check : bool
        Run the histogram check (default True).
    temper : bool
        Temper the unlabeled likelihood when the check fails (default
        True); False keeps the paper's posterior (the check is still run,
        reported and warned about).
    leave_out_misfit : bool
        For a caller that leaves a mixture failing the check out of its
        estimate (:func:`spe.evaluate`'s average of score models): when the
        check fails, stop there: the plain posterior is kept, neither
        tempered nor redrawn, and its evidence is not computed
        (``log_evidence`` None); ``histogram_check.left_out`` says so.
        Default False.
    monotone : bool
        Make p(y = 1 | s) non-decreasing in the score (default True): above
        the median score the log-odds at s is the highest the mixture
        reaches between the median and s, below it the lowest it reaches
        between s and the median (:meth:`Mixture.monotone_class_probability`),
        the prior that the classifier ranks items sensibly. False keeps the
        paper's Bayes rule (eq. 1), which falls at the top scores when the
        negative family has the heavier upper tail and rises at the bottom
        when the negative density vanishes there. Used for the label draws,
        the evidence and the leave-one-out values alike.
    identify_top : bool
        Identify the components also at the top and bottom scores (default
        True, :attr:`Mixture.top`, :attr:`Mixture.bottom`): a family pair
        none of whose optima keeps the log-likelihood ratio from falling at
        the highest scores and from rising at the lowest is left out of the
        ranking. If no pair passes, the pairs are fitted again with the
        paper's identification (positive mean above negative mean);
        ``diagnostics["identified_at_top"]`` says which (true: identified at
        both ends).

    Returns
    -------
    model : FittedScoreModel
    ranking : list of FamilyFit
        Every pair tried, best first.

    Raises
    ------
    MixtureFitError
        If no family pair could be fitted.
    SpeInputError
        Bad ``inference`` or ``proposal`` (before any fitting), ``families``, ``score_type`` or ``score_space``.
    """
    check_choice("inference", inference, INFERENCE_METHODS)
    check_choice("proposal", proposal, PROPOSALS)
    rng = np.random.default_rng(rng)
    ranked = rank_families(
        scores, labeled_index, labeled_value, families=families, prevalence_prior=prevalence_prior,
        resolution=resolution, score_space=score_space, score_type=score_type, identify_top=identify_top,
        likelihood_bins=likelihood_bins, sorted_scores=sorted_scores, workers=workers, counts=counts)
    space, x, data, ranking = ranked.space, ranked.x, ranked.data, ranked.ranking
    x_sorted = ranked.x_sorted
    if x_sorted is None:
        x_sorted = x if counts is not None else np.sort(x) if sorted_scores is None else space.to_model(sorted_scores)
    best = ranking[0]
    mix = best.mixture
    check_rng, rng = rng.spawn(2)
    sampler = _Sampler(mix, inference, draws, rng, proposal, progressbar, cores=resolve_workers(workers))
    left_out = None
    if check and leave_out_misfit:
        with stage("checking the mixture's histogram at its MAP"):
            left_out = _left_out_at_map(best, ranked, x_sorted, data, rng=check_rng)
    if left_out is not None:
        post, data, u_map, tempering, hist = left_out
    else:
        with stage(f"sampling the mixture's posterior ({inference})"):
            post, data, u_map, tempering, hist = _checked_posterior(sampler, best, ranked, x_sorted, data,
                                                                    check=check, temper=temper,
                                                                    leave_out=leave_out_misfit, rng=check_rng)
    pp = _class_probability(mix, x_sorted, monotone, counts)

    probability = partial(_in_model_space, pp, space)

    log_evidence = None  # left out: its evidence is not needed
    if hist is None or not hist.left_out:
        with stage("the mixture's evidence"):
            log_evidence = _mixture_log_evidence(
                mix, ranked, labeled_index, labeled_value, u_map, draws=min(draws, 1000), rng=rng,
                resolution=resolution, proposal=proposal, tempering=tempering, pp=pp, edges=data.bin_edges,
                x_sorted=x_sorted)
    loo = loo_k = None
    if np.asarray(labeled_index).size and _sampled(hist):
        p_lab = np.clip(pp(post.u, x[labeled_index]), 1e-300, 1 - 1e-16)
        loo, loo_k = psis_loo(np.where(np.asarray(labeled_value)[None, :] == 1, np.log(p_lab), np.log1p(-p_lab)),
                              post.weights)
    diagnostics = _diagnostics(post, best, ranked.pairs, ranking, space, data, hist, loo_k, inference=inference,
                               draws=draws, monotone=monotone, identified_at_top=ranked.top is not None)
    model = FittedScoreModel(
        name=f"mixture({mix.name})",
        draws=post.u,
        weights=post.weights,
        probability=probability,
        diagnostics=diagnostics,
        param_names=mix.param_names,
        constrained_draws=mix.constrained(post.u),
        log_evidence=log_evidence,
        loo=loo,
    )
    model.mixture_fit = MixtureFit(mix, space, u_map, best.u_map, hist, post.inference_data,
                                   float(sum(sampler.seconds)))
    return model, ranking


class _Sampler:
    """Draws from the mixture's posterior on given data, from a start (importance sampling or NUTS), and
    keeps the wall time it spent."""

    def __init__(self, mix, inference, draws, rng, proposal, progressbar, cores=None):
        self.mix, self.inference, self.draws, self.rng = mix, inference, draws, rng
        self.proposal, self.progressbar, self.cores = proposal, progressbar, cores
        self.seconds = []

    def __call__(self, data, u_start):
        t0 = time.perf_counter()
        try:
            return self._sample(data, u_start)
        finally:
            self.seconds.append(time.perf_counter() - t0)

    def _sample(self, d, u_start):
        mix = self.mix
        if self.inference == "nuts":
            from ...inference.nuts import nuts_sample

            return nuts_sample(lambda u: mix.log_posterior(u, d, identify=False), u_start, draws=self.draws,
                               rng=self.rng, accept=lambda u: mix.identified(*mix.unpack(u)[1:3]),
                               progressbar=self.progressbar, cores=self.cores)
        return importance_sample(lambda u: mix.log_posterior(u, d), u_start, draws=self.draws, rng=self.rng,
                                 proposal=self.proposal,
                                 curvature_log_posterior=lambda u: mix.log_posterior(u, d, identify=False))


def _checked_posterior(sample, best, ranked, x_sorted, data, *, check, temper, leave_out, rng):
    """The posterior draws after the histogram check (:mod:`spe.models.mixture.check`): the plain posterior when the
    mixture reproduces the score histogram (or tempering is off, or the caller leaves a misfit out), else the
    coarsened one, redrawn.

    Returns (draws, the data they condition on, the MAP, the tempering, the check or None); warns when the
    check fails (and repeats the sampler's warnings of the posterior it keeps).
    """
    mix = best.mixture
    with warnings.catch_warnings(record=True) as first_warnings:
        warnings.simplefilter("always")
        post = sample(data, best.u_map)
    u_map, tempering, hist = best.u_map, 1.0, None
    if check:
        hist = histogram_check(mix, post.u, post.weights, x_sorted, rng=rng,  # order-free: sorted is cheaper
                               counts=ranked.counts)
        if leave_out and not hist.passed:
            hist = dataclasses.replace(hist, left_out=True)
        elif temper:
            tempering = hist.tempering
        else:
            hist = dataclasses.replace(hist, tempering_off=True)
    if tempering < 1.0:
        tempered = data.tempered(tempering)
        try:
            res = find_map(lambda u: mix.log_posterior(u, tempered, identify=False),
                           np.vstack([best.u_map, mix.initial_points(ranked.x_start, tempered)]),
                           scale=tempered.n_items,
                           accept=mix.identified_at)
        except RuntimeError:  # no identified optimum of the tempered posterior: keep the plain one, and say so
            tempering = 1.0
            hist = dataclasses.replace(hist, tempering_failed=True)
    if tempering < 1.0:
        data = tempered
        u_map = res.u
        # the untempered posterior is discarded, and its sampling warnings with it
        post = sample(data, u_map)
        warnings.warn(
            f"{_misfit(mix, hist)}; the scores' shape was given the weight of {format_items(hist.effective_items)} "
            f"items instead of {hist.n_items:,} (coarsened posterior), so its bands are wider", SpeWarning,
            stacklevel=3)
    else:
        for w in first_warnings:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        if hist is not None and hist.left_out:
            warnings.warn(f"{_misfit(mix, hist)}: the mixture is left out", SpeWarning, stacklevel=3)
        elif hist is not None and not hist.passed:
            why = ("tempering is off" if hist.tempering_off else "the tempered posterior had no identified mode")
            warnings.warn(f"{_misfit(mix, hist)} and {why}: its bands may be too narrow", SpeWarning, stacklevel=3)
    return post, data, u_map, tempering, hist


def _left_out_at_map(best, ranked, x_sorted, data, *, rng):
    """For a caller that leaves a misfit out: the histogram check at the best pair's MAP
    (:func:`map_histogram_check`, on a stream spawned from ``rng``); when it fails decisively, what
    :func:`_checked_posterior` returns for a mixture left out — its MAP as the one draw, untempered — without
    drawing its posterior (its draws would be left out), with a warning; else None."""
    at_map = map_histogram_check(best.mixture, best.u_map, x_sorted, rng=rng.spawn(1)[0], counts=ranked.counts)
    if not at_map.decisive:
        return None
    warnings.warn(f"{_misfit(best.mixture, at_map)}: the mixture is left out", SpeWarning, stacklevel=3)
    return _not_sampled(best.u_map), data, best.u_map, 1.0, dataclasses.replace(at_map, left_out=True)


def _misfit(mix, hist):
    """What a failed histogram check says: the fitted densities against the scores' histogram, in numbers."""
    if hist.excess_z is not None:
        return (f"the fitted {mix.name} densities do not reproduce the histogram of the scores (at the MAP: KL "
                f"{hist.discrepancy:.3f} nats/item against {hist.expected_discrepancy:.3f} expected over {hist.bins} "
                f"bins, {hist.excess_z:.0f} standard deviations above it)")
    return (f"the fitted {mix.name} densities do not reproduce the histogram of the scores (posterior-predictive "
            f"p = {hist.p_value:.3f}, KL {hist.discrepancy:.3f} nats/item against {hist.expected_discrepancy:.3f} "
            f"expected over {hist.bins} bins)")


def _sampled(hist):
    """Whether the posterior was drawn: not when the check at the MAP left the mixture out (:func:`_left_out_at_map`)."""
    return hist is None or hist.excess_z is None


def _not_sampled(u_map):
    """The posterior of a mixture left out before sampling: its MAP alone, one draw of weight 1 (what the hybrid
    reads, :func:`spe.models.features.mixture_log_odds_feature`)."""
    return PosteriorDraws(u=np.asarray(u_map, dtype=float)[None, :], weights=np.ones(1), ess=1.0,
                          pareto_k=float("nan"), proposal="none: left out at its MAP, not sampled")


def _class_probability(mix, x_sorted, monotone, counts=None):
    """p(y = 1 | x, θ) of the mixture in model space, (M, P) × (B,) → (M, B): non-decreasing in x when
    ``monotone`` (:meth:`Mixture.monotone_class_probability`), else the paper's Bayes rule."""
    if not monotone:
        return mix.class_probability
    grid_x = np.unique(sorted_quantile(x_sorted, np.linspace(0.0, 1.0, MONOTONE_GRID), counts))
    pivot_x = float(sorted_quantile(x_sorted, [0.5], counts)[0])

    return partial(mix.monotone_class_probability, grid=grid_x, pivot=pivot_x)


def _diagnostics(post, best, pairs, ranking, space, data, hist, loo_k, *, inference, draws, monotone,
                 identified_at_top):
    """The mixture's diagnostics (JSON-ready): sampler, MAP, families, score space, likelihood, checks."""
    sampled = _sampled(hist)
    diagnostics = {
        "inference": inference if sampled else "map",
        "draws": int(draws),
        "ess": float(post.ess) if sampled else None,
        "pareto_k": float(post.pareto_k) if sampled and inference == "importance" else None,
        "proposal": post.proposal,
        "proposal_rounds": post.rounds,
        "map_starts_agreeing": f"{best.n_agree}/{best.n_starts}",
        "map_log_posterior": float(best.log_posterior),
        "family_pairs_tried": len(set(map(tuple, pairs))
                                  | {(f.mixture.negative.name, f.mixture.positive.name) for f in ranking}),
        "family_ranking": [f.to_dict() for f in ranking[:5]],
        "score_space": {"kind": space.kind, "lo": space.lo, "hi": space.hi},
        "likelihood_bins": int(data.x_unlabeled.size),
        "likelihood": "density" if data.bin_edges is None else "histogram",
        "monotone": bool(monotone),
        "identified_at_top": identified_at_top,
        "loo_pareto_k_max": None if loo_k is None else float(np.max(loo_k, initial=0.0)),
        "histogram_check": hist.to_dict() if hist is not None else None,
    }
    if inference == "nuts":
        from ...inference.nuts import nuts_warnings

        diagnostics["nuts"] = dict(post.rounds[0])
        for msg in nuts_warnings(post.rounds[0]):
            warnings.warn(msg, SpeWarning, stacklevel=3)
    return diagnostics


def _mixture_log_evidence(mix, ranked, labeled_index, labeled_value, u_start, *, draws, rng, resolution, proposal,
                          tempering=1.0, pp=None, edges=None, x_sorted=None):
    """log p(Y_L | S) of the mixture: E over p(θ | S) of Π_i p(y_i | s_i, θ).

    p(θ | S) is the posterior with every item unlabeled; it is sampled by
    its own MAP (started at the labeled MAP) and importance sampling, and
    the labels' probability is averaged over those draws. (Reusing the
    labeled draws would be a harmonic-mean estimate, biased low when the
    labels' likelihood varies across the posterior.) With ``tempering``
    ζ < 1, p(θ | S) is the coarsened posterior (the unlabeled likelihood
    raised to ζ), as in the fit. ``pp(u, x)`` is the p(y = 1 | x) the model
    uses (default :meth:`Mixture.class_probability`; the monotone one
    when ``fit_mixture(monotone=True)``). ``edges``: the histogram bins of
    the fit, if any (:meth:`MixtureData.build`). ``ranked``: the scores as :func:`rank_families` mapped them.
    """
    x = ranked.x
    y = np.asarray(labeled_value)
    if y.size == 0:
        return 0.0
    data = MixtureData.build(x, np.zeros(0, dtype=int), np.zeros(0, dtype=int), resolution=resolution, edges=edges,
                             x_sorted=x_sorted, counts=ranked.counts)
    data = data.tempered(tempering)

    def search(starts):
        return find_map(lambda u: mix.log_posterior(u, data, identify=False), starts, scale=data.n_items,
                        accept=mix.identified_at)

    try:
        centre = search(u_start[None, :]).u
    except RuntimeError:  # the labeled MAP leads to a switched optimum: start from the data instead
        try:
            centre = search(mix.initial_points(ranked.x_start, data)).u
        except RuntimeError:
            # no identified mode without the labels (e.g. a heavily tempered, prior-dominated posterior):
            # centre the proposal at the labeled MAP; the importance weights correct for the choice
            centre = np.asarray(u_start, dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        post = importance_sample(lambda u: mix.log_posterior(u, data), centre, draws=draws, rng=rng,
                                 proposal=proposal,
                                 curvature_log_posterior=lambda u: mix.log_posterior(u, data, identify=False))
    p = np.clip((pp or mix.class_probability)(post.u, x[labeled_index]), 1e-300, 1 - 1e-16)
    log_l = np.where(y[None, :] == 1, np.log(p), np.log1p(-p)).sum(axis=1)
    ok = post.weights > 0
    return float(special.logsumexp(log_l[ok], b=post.weights[ok]))


def _in_model_space(pp, space, u, s):
    return pp(u, space.to_model(s))
