"""Score models that are a parametric link p(y = 1 | s) = g(f(s); u), fitted to the labeled items by importance
sampling around the MAP.

A link model declares its parameters u (P,), its log prior, p(y = 1 | z; u)
and the labels' log-likelihood terms; :func:`fit_link` does the rest the same
way for every such model: the MAP (L-BFGS-B from the model's starting
points, :func:`spe.inference.map.find_map`), importance sampling around it
with Pareto smoothing (:func:`spe.inference.importance.importance_sample`),
the evidence p(Y_L | S) as the importance-sampling estimate of the
posterior's normalising constant (the log prior must be normalised), and
PSIS-LOO. Used by :mod:`spe.models.piecewise` and
:mod:`spe.models.contaminated`.
"""

from __future__ import annotations

import warnings
from functools import partial

import numpy as np

from ..inference.importance import importance_sample, psis_loo
from ..inference.map import find_map
from .base import FittedScoreModel

__all__ = ["LinkModel", "fit_link"]


class LinkModel:
    """What :func:`fit_link` needs of a link model; subclasses implement every method.

    Shapes: u (M, P) parameter draws; z (B,) feature values (the score's
    log-odds or standardised score); y (n,) 0/1 labels.
    """

    #: names of the P unconstrained parameters, in the order of u's columns
    param_names: list

    def log_prior(self, u):
        """Normalised log prior density: (M, P) → (M,); ``-inf`` outside the support."""
        raise NotImplementedError

    def probability(self, u, z):
        """p(y = 1 | z; u): (M, P) × (B,) → (M, B)."""
        raise NotImplementedError

    def log_likelihood_terms(self, u, z, y):
        """log p(y_i | z_i; u): (M, P) × (n,) × (n,) → (M, n), computed stably in the tails."""
        raise NotImplementedError

    def starts(self):
        """Starting points of the MAP search: (S, P)."""
        raise NotImplementedError

    def constrained(self, u):
        """The draws in their natural units (M, P') and the names of those P' columns: the fitted model's
        ``constrained_draws`` and ``param_names`` (:class:`~spe.models.base.FittedScoreModel`)."""
        return u, list(self.param_names)

    def summary(self, u, weights):
        """JSON-ready posterior summaries for the diagnostics (dict)."""
        return {}


class _Posterior:
    """u (M, P) → log prior + log likelihood of the labeled items (each term times its weight, None: one),
    vectorised over draws."""

    def __init__(self, link, z, y, weights=None):
        self.link, self.z, self.y, self.weights = link, z, y, weights

    def __call__(self, u):
        u = np.atleast_2d(np.asarray(u, dtype=float))
        lp = self.link.log_prior(u)
        if self.y.size:
            terms = self.link.log_likelihood_terms(u, self.z, self.y)
            ll = terms.sum(axis=1) if self.weights is None else terms @ self.weights
            lp = lp + np.where(np.isfinite(lp), ll, 0.0)
        return lp


def fit_link(link, feature, labeled_scores, labeled_value, *, name, draws=1000, rng=None, diagnostics=None,
             weights=None):
    """Weighted posterior draws of a link model given the labeled items.

    Parameters
    ----------
    link : LinkModel
    feature : callable
        scores (B,) → f(s) (B,): score units in, the link's feature units out.
    labeled_scores : array, shape (n,)
        The labeled items' scores, score units.
    labeled_value : 0/1 array, shape (n,)
    name : str
        The model's name in tables.
    draws : int
        M, importance-sampling draws.
    rng : numpy.random.Generator, int or None
    diagnostics : dict, optional
        Model-specific entries added to the diagnostics.
    weights : array, shape (n,), optional
        How many labeled items each labeled entry stands for (a compressed reference set); None: one each.
        With weights there is no ``loo`` (an entry is not one item).

    Returns
    -------
    FittedScoreModel
        Draws of u (M, P) with PSIS-smoothed weights; ``constrained_draws``
        and ``param_names`` from ``link.constrained``; ``log_evidence`` =
        log p(Y_L | S) (0 without labels); ``loo`` (n,) by PSIS-LOO;
        ``diagnostics`` with ESS, Pareto k̂, the proposal and ``link.summary``.

    Raises
    ------
    RuntimeError
        If no starting point of ``link.starts()`` reaches a finite log
        posterior (:func:`spe.inference.map.find_map`).
    """
    rng = np.random.default_rng(rng)
    y = np.asarray(labeled_value, dtype=int)
    z = np.asarray(feature(np.asarray(labeled_scores, dtype=float)), dtype=float)
    w = None if weights is None else np.asarray(weights, dtype=float)
    posterior = _Posterior(link, z, y, w)
    centre = find_map(posterior, link.starts()).u
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # k̂ is reported in the diagnostics; the evidence decides the weight
        post = importance_sample(posterior, centre, draws=draws, rng=rng)
    ok = post.weights > 0
    loo = (None if w is not None else psis_loo(link.log_likelihood_terms(post.u[ok], z, y), post.weights[ok])[0]
           if y.size else np.zeros(0))

    probability = partial(_link_probability, link, feature)

    constrained, names = link.constrained(post.u)
    model = FittedScoreModel(
        name=name,
        draws=post.u,
        weights=post.weights,
        probability=probability,
        diagnostics={"model": name, **(diagnostics or {}), "posterior_mean": link.summary(post.u, post.weights),
                     "ess": float(post.ess), "pareto_k": float(post.pareto_k), "proposal": post.proposal},
        param_names=list(names),
        constrained_draws=constrained,
    )
    model.log_evidence = float(post.log_normalizer) if y.size else 0.0
    model.loo = loo
    return model


def _link_probability(link, feature, d, s):
    return link.probability(np.asarray(d, dtype=float), np.asarray(feature(np.asarray(s, dtype=float)), dtype=float))
