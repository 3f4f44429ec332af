"""Choosing the class-conditional families (Welinder et al. 2013, §4.2).

The paper's heuristic: try combinations of families for p₀ and p₁ and keep
the one with the highest maximum likelihood on the labeled and unlabeled
scores. Families differ in their number of parameters (the asymmetric
Laplace has three), so the comparison here uses the Bayesian information
criterion, ``log L(θ̂) − (P/2) log N``, with θ̂ the MAP; with equal P this is
the paper's rule.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from itertools import product

import numpy as np

from ...exceptions import MixtureFitError, SpeInputError
from ...families import family_names, get_family
from ...inference import MapResult, find_map
from .model import Mixture
from ...parallel import TaskPool
from ...progress import stage

__all__ = ["FamilyFit", "ClassFamilyFit", "rank_family_pairs", "rank_class_families", "fit_family_weighted",
           "parse_families", "DEFAULT_CANDIDATES", "EXTENDED_CANDIDATES", "DECISION_NEGATIVE_CANDIDATES"]

#: Families ``families="auto"`` considers for each class.
DEFAULT_CANDIDATES = ("truncnorm", "gamma", "asymlaplace", "beta")

#: The other families of the paper's Table 1 (§4.2) and Bennett's asymmetric Gaussian. ``families="auto"``
#: considers them through a per-class screening (:func:`rank_class_families`): each is fitted to each
#: class of the best default pair's soft assignment, and the best few per class are paired and fitted as
#: mixtures; trying all pairs of all families costs about ten times as much.
EXTENDED_CANDIDATES = ("trunct", "lognormal", "gumbel_r", "gumbel_l", "gompertz", "frechet_r", "asymgauss")

#: Families per class that the screening passes on to be paired.
CLASS_SCREEN_TOP = 3

#: Families ``families="auto"`` also considers for the negative class when the
#: scores are not probabilities (decision values, log-odds). The negatives of a
#: one-vs-rest classifier are a union of classes, and their decision values are
#: often multimodal (paper §4.2, Fig. 3C: "a mixture model would have been a
#: better fit"); two truncated normals fit them. Not for probability scores,
#: where it degenerated to spikes at 0, and not for the positive class, where
#: it made the mixture worse on the benchmark (the CHANGELOG's "Benchmark history").
DECISION_NEGATIVE_CANDIDATES = ("truncnorm2",)


@dataclass
class FamilyFit:
    """One (negative, positive) combination fitted by MAP.

    Attributes
    ----------
    mixture : Mixture
    u_map : array, shape (P,)
    log_posterior, log_likelihood : float
        At the MAP.
    schwarz : float
        The Schwarz criterion ``log_likelihood − (P/2) log N`` (Schwarz 1978;
        −BIC/2 in today's sign convention): higher is better.
    n_starts, n_agree : int
        MAP starts tried and starts that reached the best optimum.
    optima : array, shape (n_starts,) or None
        The log posterior at each start's optimum (:attr:`spe.inference.MapResult.optima`).
    """

    mixture: Mixture
    u_map: np.ndarray
    log_posterior: float
    log_likelihood: float
    schwarz: float
    n_starts: int
    n_agree: int
    optima: np.ndarray | None = None

    def map_result(self):
        """This fit's MAP search as a :class:`spe.inference.MapResult` (what :func:`find_map` continues from)."""
        optima = np.full(self.n_starts, self.log_posterior) if self.optima is None else self.optima
        return MapResult(self.u_map, self.log_posterior, self.n_starts, self.n_agree, optima)

    def to_dict(self):
        """The pair's row of ``diagnostics["family_ranking"]`` and ``spe families --json``: its families, the
        log-likelihood (nats) and Schwarz criterion log L − (P/2) log N at the MAP (higher is better), and how
        many MAP starts reached the optimum."""
        return {
            "negative": self.mixture.negative.name,
            "positive": self.mixture.positive.name,
            "log_likelihood": float(self.log_likelihood),
            "schwarz": float(self.schwarz),
            "map_starts_agreeing": f"{self.n_agree}/{self.n_starts}",
        }


def parse_families(families, score_type="probability"):
    """Normalise the ``families`` argument to a list of (negative, positive) names.

    Parameters
    ----------
    families : "auto", "all", "NEG,POS", (NEG, POS) or list of such pairs
        ``"all"``: every pair of every registered family (the exhaustive
        version of ``"auto"``'s screening; about ten times slower).
    score_type : {"probability", "log-odds", "decision"}
        What the scores are (see :func:`spe.models.mixture.resolve_score_type`). For
        ``"auto"`` with scores that are not probabilities, the beta family is
        left out: its support is the model-space interval, whose ends are
        then only the data's range plus a margin, and a beta density must
        vanish or diverge there — a fitted positive beta made the log-odds
        fall at the top scores of SVM margins; and the negative class may
        also be :data:`DECISION_NEGATIVE_CANDIDATES` (two truncated normals).

    Returns
    -------
    list of (str, str)

    Raises
    ------
    SpeInputError
        If a name is not a registered family or the argument is malformed.
    """
    if isinstance(families, str) and families == "all":
        names = [f for f in family_names() if f != "truncnorm2" and (f != "beta" or score_type == "probability")]
        pairs = list(product(names, names))
        if score_type != "probability":
            pairs += [(neg, pos) for neg in DECISION_NEGATIVE_CANDIDATES for pos in names]
        return pairs
    if families is None or (isinstance(families, str) and families == "auto"):
        pairs = list(product(DEFAULT_CANDIDATES, DEFAULT_CANDIDATES))
        if score_type != "probability":
            pairs = [pair for pair in pairs if "beta" not in pair]
            pairs += [(neg, pos) for neg in DECISION_NEGATIVE_CANDIDATES for pos in DEFAULT_CANDIDATES if pos != "beta"]
        return pairs
    malformed = SpeInputError(f"must be 'auto', 'all' or 'NEGATIVE,POSITIVE' (e.g. 'gamma,truncnorm'), got "
                              f"{families!r}; known families: {', '.join(family_names())}", argument="families")
    if isinstance(families, str):
        parts = [p.strip() for p in families.split(",")]
        if len(parts) != 2 or not all(parts):
            raise malformed
        pairs = [tuple(parts)]
    elif isinstance(families, tuple) and len(families) == 2 and all(isinstance(f, str) for f in families):
        pairs = [families]
    else:
        try:
            pairs = [tuple(p) for p in families]
        except TypeError:
            raise malformed from None
    if not pairs or any(len(p) != 2 or not all(isinstance(f, str) for f in p) for p in pairs):
        raise malformed
    for pair in pairs:
        for name in pair:
            try:
                get_family(name)
            except ValueError as e:
                raise SpeInputError(str(e), argument="families") from None
    return pairs


def fit_pair(neg, pos, x, data, *, prevalence_prior=(1.0, 1.0), max_starts=None, starts=None, top=None,
             bottom=None, searched=None):
    """MAP fit of one family combination; ``None`` if no start reached an identified optimum.

    ``max_starts`` limits the data-driven starting points (the first ones
    are the labeled prevalence and the broadest splits); ``starts`` (S, P)
    replaces them. ``top`` and ``bottom`` are :attr:`Mixture.top` and
    :attr:`Mixture.bottom`. ``searched``: a fit of the same pair on the same data from its first starts, which
    are not searched again (:func:`spe.inference.find_map`).
    """
    mix = Mixture(neg, pos, prevalence_prior, top=top, bottom=bottom)
    if starts is None:
        try:
            starts = mix.initial_points(x, data, limit=max_starts)
        except (ValueError, MixtureFitError):
            return None

    try:
        res = find_map(
            lambda u: mix.log_posterior(u, data, identify=False), starts, scale=data.n_items, accept=mix.identified_at,
            searched=None if searched is None else searched.map_result())
    except RuntimeError:
        return None
    ll = float(mix.log_likelihood(res.u[None, :], data)[0])
    schwarz = ll - 0.5 * mix.n_params * np.log(data.n_items)
    return FamilyFit(mix, res.u, res.log_posterior, ll, schwarz, res.n_starts, res.n_agree, res.optima)


def _screen_pair(shared, neg, pos, starts=1, searched=None):
    """:func:`fit_pair` of one pair from its first ``starts`` starting points on the screening data of ``shared``
    = (x, screen data, final data, fit_pair options), which the pool's workers receive once
    (:meth:`spe.parallel.TaskPool.map_shared`); ``searched``: its fit from fewer starts, continued."""
    x, screen, _, options = shared
    return fit_pair(neg, pos, x, screen, max_starts=starts, searched=searched, **options)


def _refit(shared, f):
    """One screened pair refitted on the final data of ``shared`` (as :func:`_screen_pair`), started from its
    screening optimum (None when it fails there)."""
    x, screen, data, options = shared
    g = fit_pair(f.mixture.negative.name, f.mixture.positive.name, x, data,
                 starts=f.u_map[None, :] if screen is not data else None, **options)
    if not _fitted(g):
        return None
    # how many starts agreed is the screening's answer (the refit has one start)
    return (dataclasses.replace(g, n_starts=f.n_starts, n_agree=f.n_agree, optima=f.optima) if screen is not data
            else g)


def rank_family_pairs(x, data, pairs, *, prevalence_prior=(1.0, 1.0), screen_starts=2, refit=3,
                      screen_data=None, top=None, bottom=None, extend=(), class_top=CLASS_SCREEN_TOP,
                      workers=None):
    """Fit each (negative, positive) pair by MAP and rank by the Schwarz criterion (−BIC/2), best first.

    All pairs are first screened on the coarse ``screen_data`` from their
    first MAP start; the ``refit`` best are screened again from
    ``screen_starts`` starts (the first one included: the diagnostic "MAP
    starts agreeing" is theirs), then refitted on ``data``, started from
    their screening optimum (the same scores on a finer grid move the optimum
    little), and ranked among themselves. Screening every pair from two
    starts (before 2026-11-26) took about 1.7× as long and was no more
    accurate on the shared cases (the CHANGELOG's benchmark history, "The family
    screening": the same error, band coverage and prevalence coverage at
    10, 20 and 50 labels, within one trial), although it chose another pair
    in 10 of 36 cases: which pair is chosen moves the average of score
    models little.

    Parameters
    ----------
    x : array, shape (N,)
        Model-space scores of all items.
    data : MixtureData
        The data of the final fits.
    pairs : list of (str, str)
    screen_data : MixtureData, optional
        Coarser data for the screening pass (default: ``data``); the
        refitted pairs are compared on ``data``.
    prevalence_prior : (float, float)
        Beta prior on π.
    screen_starts : int
        Starts of the ``refit`` (at least one) best pairs of the first
        screening pass, which gives every pair one start.
    refit : int
        Pairs refitted on ``data``.
    top : float, optional
        :attr:`Mixture.top` of every pair (the identification at the top
        score); a pair none of whose optima satisfies it is left out.
    bottom : float, optional
        :attr:`Mixture.bottom` (the same at the lowest score).
    extend : sequence of str
        More families to consider through the per-class screening: after
        the screening pass, the families of ``pairs`` and these are ranked
        per class on the best screened pair's soft assignment
        (:func:`rank_class_families`), and the pairs of the ``class_top``
        best per class not yet tried are screened too.
    class_top : int
    workers : int or None
        Processes for the screening and the refits (:class:`spe.parallel.TaskPool`;
        None: the usable cores). The ranking does not depend on it.

    Returns
    -------
    list of FamilyFit
        Sorted by decreasing Schwarz criterion; pairs that failed to fit are left out.
    """
    one = len(pairs) == 1
    if one:
        return _ranked([fit_pair(*pairs[0], x, data, prevalence_prior=prevalence_prior, top=top, bottom=bottom)])
    screen = data if screen_data is None else screen_data
    shared = (x, screen, data, dict(prevalence_prior=prevalence_prior, top=top, bottom=bottom))
    # one stage per batch of pairs, each bar's total known when it starts
    with TaskPool(workers, shared=shared) as pool:
        with stage("screening family pairs", len(pairs), "pair") as progress:
            fits = _ranked(pool.map_shared(_screen_pair, *zip(*pairs), progress=progress))
        if extend and fits:
            names = list(dict.fromkeys([n for pair in pairs for n in pair
                                        if n not in DECISION_NEGATIVE_CANDIDATES] + list(extend)))
            with stage("ranking each class's families"):
                per_class = rank_class_families(fits[0], screen, names, pool=pool)
            tried = {(f.mixture.negative.name, f.mixture.positive.name) for f in fits} | set(map(tuple, pairs))
            extra = [(n.family, p.family) for n in per_class["negative"][:class_top]
                     for p in per_class["positive"][:class_top] if (n.family, p.family) not in tried]
            if extra:
                with stage("screening the pairs of each class's best families", len(extra), "pair") as progress:
                    fits = _ranked(fits + pool.map_shared(_screen_pair, *zip(*extra), progress=progress))
        if screen_starts > 1 and fits:
            fits = _with_more_starts(pool, fits, max(refit, 1), screen_starts)
        with stage("refitting the best family pairs", min(refit, len(fits)), "pair") as progress:
            refitted = pool.map_shared(_refit, fits[:refit], progress=progress)
    refitted = _ranked(refitted)  # _refit returns None for a pair whose refit fails or is not finite
    # the refitted pairs (on the final data) first, then the rest of the screening ranking
    return refitted + fits[refit:]


def _fitted(f):
    """Whether a pair's fit (a FamilyFit or None) reached a finite Schwarz criterion."""
    return f is not None and np.isfinite(f.schwarz)


def _ranked(fits):
    """The pairs that could be fitted, by decreasing Schwarz criterion."""
    return sorted(filter(_fitted, fits), key=lambda f: -f.schwarz)


def _with_more_starts(pool, fits, k, starts):
    """``fits`` ranked again after its ``k`` best pairs are screened from ``starts`` starts (their first start
    included, so each is at least as good as before; one that fails to fit keeps its first fit)."""
    best = fits[:k]
    with stage(f"screening the best pairs from {starts} starts", len(best), "pair") as progress:
        again = pool.map_shared(_screen_pair, [f.mixture.negative.name for f in best],
                                [f.mixture.positive.name for f in best], [starts] * len(best), best,
                                progress=progress)
    return _ranked([g if _fitted(g) else f for f, g in zip(best, again)] + fits[k:])


@dataclass
class ClassFamilyFit:
    """One family fitted to one class's (soft-assigned) scores.

    Attributes
    ----------
    family : str
    theta : array, shape (P,)
        MAP parameters, constrained.
    log_likelihood : float
        Weighted log-likelihood Σ_i w_i log p(x_i | θ) at the MAP.
    schwarz : float
        The Schwarz criterion ``log_likelihood − (P/2) log Σ_i w_i`` (−BIC/2):
        higher is better.
    """

    family: str
    theta: np.ndarray
    log_likelihood: float
    schwarz: float


def _weighted_sample(x, w, size=512):
    """A deterministic stand-in sample of a weighted set of scores: its weighted quantiles (size,)."""
    order = np.argsort(x)
    cw = np.cumsum(w[order])
    q = (np.arange(size) + 0.5) / size * cw[-1]
    return x[order][np.clip(np.searchsorted(cw, q), 0, x.size - 1)]


def fit_family_weighted(family, x, w):
    """MAP of one family on weighted model-space scores (the M-step of EM for one class).

    Maximises Σ_i w_i log p(x_i | θ) + log p(θ) over unconstrained θ with
    L-BFGS-B (``scipy.optimize.minimize``), from the family's initialiser
    on the weighted quantiles of x.

    Parameters
    ----------
    family : str or Family
    x : array, shape (K,)
        Model-space scores.
    w : array, shape (K,)
        Non-negative weights (e.g. counts × class responsibilities).

    Returns
    -------
    ClassFamilyFit or None
        None when the fit fails (no finite optimum).
    """
    from scipy import optimize

    fam = get_family(family)
    x = np.asarray(x, dtype=float)
    w = np.asarray(w, dtype=float)
    keep = w > 0
    x, w = x[keep], w[keep]
    if w.sum() <= 0:
        return None

    def negative(u):
        theta, jac = fam.from_unconstrained(u[None, :])
        val = w @ fam.logpdf(theta, x)[0] + fam.log_prior(theta)[0] + jac[0]
        return -val if np.isfinite(val) else 1e300

    try:
        u0 = fam.to_unconstrained(fam.initialize(_weighted_sample(x, w))[None, :])[0]
    except (ValueError, FloatingPointError):
        return None
    if not np.all(np.isfinite(u0)):
        return None
    with np.errstate(all="ignore"):
        res = optimize.minimize(negative, u0, method="L-BFGS-B")
    if not np.isfinite(res.fun) or res.fun >= 1e300:
        return None
    theta = fam.from_unconstrained(res.x[None, :])[0]
    ll = float(w @ fam.logpdf(theta, x)[0])
    if not np.isfinite(ll):
        return None
    return ClassFamilyFit(fam.name, theta[0], ll, ll - 0.5 * fam.n_params * np.log(w.sum()))


def rank_class_families(fit, data, candidates, *, pool=None):
    """Rank families for each class on the soft assignment of a fitted mixture (paper §4.2, per class).

    Every unlabeled score bin is split between the classes by the fit's
    p(y = 1 | x) at its MAP (labeled items count for their own class), and
    each candidate family is fitted to each class's weighted scores
    (:func:`fit_family_weighted`) and ranked by the Schwarz criterion.

    Parameters
    ----------
    fit : FamilyFit
        A fitted mixture (typically the best default pair).
    data : MixtureData
    candidates : sequence of str
    pool : spe.parallel.TaskPool, optional
        Runs the 2 × len(candidates) fits (default: one after the other here).

    Returns
    -------
    dict
        ``{"negative": [ClassFamilyFit, ...], "positive": [...]}``, best
        first; families that could not be fitted are left out.
    """
    r = np.clip(fit.mixture.class_probability(fit.u_map[None, :], data.x_unlabeled)[0], 0.0, 1.0)
    xs = np.concatenate([data.x_unlabeled, data.x_negative, data.x_positive])
    n0, n1 = data.x_negative.size, data.x_positive.size
    w_pos = np.concatenate([data.count_unlabeled * r, np.zeros(n0), np.ones(n1)])
    w_neg = np.concatenate([data.count_unlabeled * (1 - r), np.ones(n0), np.zeros(n1)])
    names = list(candidates)
    k = len(names)
    ws = [w_neg] * k + [w_pos] * k
    fits = (pool or TaskPool(1)).map(fit_family_weighted, names * 2, [xs] * (2 * k), ws)
    return {cls: sorted([f for f in part if f is not None], key=lambda f: -f.schwarz)
            for cls, part in (("negative", fits[:k]), ("positive", fits[k:]))}
