r"""Concept shift as a model: the pool's calibration map deviates from what the reference set says under label shift.

Given a labeled reference set, the anchored models (:mod:`spe.models.anchor`)
carry the reference's map to the pool assuming only the prevalence changed.
When more changed (the classifier meets other data, a subgroup, a new
labeling guideline), the pool's map is that map deviated. This model lets
the pool's labels say by how much: with g(s) the log-odds of the best
anchored model's posterior-mean map on the pool,

.. math::
    P(y = 1 \mid s) = \sigma\big(a + b\, g(s)\big),\qquad a \sim N(0, 0.15^2),\ \log b \sim t_3(0, 0.075),

a logistic recalibration (:func:`spe.models.recalibration.fit_recalibration`)
of the reference's map instead of the score: a = 0, b = 1 is no deviation,
a ≠ 0 a shift the pool's scores did not reveal, b ≠ 1 a map more or less
confident on the pool than on the reference (Raina et al. 2004's hybrid,
with the reference's map as the generative part). The prior says the drift
is mostly small (a within ±0.3 log-odds, b within a factor 1.2 for 95% of
its mass) and, through the Student-t on log b, now and then large. Fitted
on the pool's labels; without them its draws are the prior's around the
anchored map, which is what keeps the bands honest about a drift the
reference cannot see (on NannyML's census data every reference-only
estimate misses the later years' prevalence by 0.01–0.02). Several pools
against one reference (:func:`spe.monitor`'s chunks) pool their drifts: each
pool's prior is then what the others' labels say (:mod:`spe.models.pooling`),
and each fit reports its labels' information on the drift for that.
"""

from __future__ import annotations

from functools import partial

import numpy as np
from scipy import special

from .recalibration import RecalibrationPrior, fit_recalibration
from .registry import ScoreModel
from .cells import compressed
from ..shared_reference import priors_of

__all__ = ["NAME", "PRIOR", "fit_deviation", "labels_information", "deviation_models", "drift_name"]

#: The model's name in tables.
NAME = "reference-deviation"
#: Probabilities are kept this far from 0 and 1 before taking logits.
EPS = 1e-9
#: The drift's prior: a ~ N(0, 0.15²) (log-odds), log b ~ t₃(0, 0.075).
PRIOR = RecalibrationPrior(0.0, 0.15, 0.0, 0.075, logb_df=3.0)


def fit_deviation(anchored, scores, labeled_index, labeled_value, *, counts=None, draws=1000, rng=None,
                  cells=None, prior=None):
    """The best anchored model's pool map, drifted and fitted to the pool's labels (module docstring).

    Parameters
    ----------
    anchored : list of FittedScoreModel
        Anchored models of one assumption (label or covariate shift); the one with the largest
        ``log_evidence`` is drifted, and the drift keeps its assumption (``diagnostics["assumption"]``).
    scores : array, shape (N,)
        The pool's scores, score units (or a :class:`spe.pool.ScorePool`'s K values, with ``counts``).
    labeled_index : int array, shape (n,)
    labeled_value : 0/1 array, shape (n,)
    counts : int array, shape (N,), optional
    draws : int
        M.
    rng : numpy.random.Generator, int or None
    cells : array, shape (K,), optional
        The pool's score cells (:attr:`spe.models.features.LabeledScores.pool_cells`), where the anchored map is
        evaluated and interpolated between; None: compressed from ``scores`` here.
    prior : RecalibrationPrior, optional
        The drift's prior; None: :data:`PRIOR` (a pooled one: :func:`spe.models.pooling.pooled_drift_priors`).

    Returns
    -------
    FittedScoreModel
        Draws of (a, log b), as :func:`spe.models.recalibration.fit_recalibration`, named :func:`drift_name`;
        ``log_evidence`` = log p(Y_L | S) (0 without labels; the reference's share is added by
        :func:`spe.models.anchor.hypothesis_prior`); ``diagnostics["labels_information"]``: the labels'
        information on (a, log b), ``{"precision": (2, 2), "shift": (2,)}`` lists
        (:func:`labels_information`).
    """
    best = _best(anchored)
    cells = compressed(scores, counts=counts).scores if cells is None else cells
    at = np.union1d(cells, np.asarray(scores, dtype=float)[np.asarray(labeled_index, dtype=int)])
    mean = np.asarray(best.weights, dtype=float) @ best.probability(best.draws, at)
    feature = partial(_interpolated, at, special.logit(np.clip(mean, EPS, 1 - EPS)))
    model = fit_recalibration("calibrated", feature, scores, labeled_index, labeled_value,
                              prior=PRIOR if prior is None else prior, draws=draws, rng=rng)
    assumption = best.diagnostics.get("assumption")
    model.name = drift_name(assumption)
    z = feature(np.asarray(scores, dtype=float)[np.asarray(labeled_index, dtype=int)])
    precision, shift = labels_information(z, labeled_value, model.weights @ model.draws)
    model.diagnostics.update(model=model.name, deviates=best.name, assumption=assumption,
                             labels_information={"precision": precision.tolist(), "shift": shift.tolist()})
    return model


def labels_information(z, y, at):
    """A Gaussian approximation of the labels' log-likelihood of the drift θ = (a, log b), in information form.

    The log-likelihood Σᵢ log σ(±(a + b zᵢ)) is expanded to second order at ``at`` (the posterior mean):
    ℓ(θ) ≈ const + ηᵀθ − ½ θᵀΛθ, with Λ the negative Hessian made positive semi-definite (eigenvalues clipped
    at 0) and η = Λ·at + ∇ℓ(at): the normal approximation of a likelihood at a point (Gelman et al., *Bayesian
    Data Analysis*, 3rd ed., §4.1), which :func:`spe.models.pooling.pooled_drift_priors` combines across pools.

    Parameters
    ----------
    z : array, shape (n,)
        The labeled items' log-odds under the anchored map (the drift's feature).
    y : 0/1 array, shape (n,)
    at : array, shape (2,)
        (a, log b) where the expansion is taken: a in log-odds, b unitless.

    Returns
    -------
    (Λ (2, 2), η (2,)) : arrays
        Λ in 1/(log-odds)² units of θ; zeros for no labels. Raises nothing (any finite input).
    """
    z, y = np.asarray(z, dtype=float), np.asarray(y, dtype=float)
    a, logb = float(at[0]), float(at[1])
    u = np.exp(logb) * z
    p = special.expit(a + u)
    r, w = y - p, p * (1 - p)
    grad = np.array([r.sum(), (r * u).sum()])
    hess = np.array([[w.sum(), (w * u).sum()], [(w * u).sum(), (w * u * u).sum() - (r * u).sum()]])
    values, vectors = np.linalg.eigh(hess)
    precision = (vectors * np.clip(values, 0.0, None)) @ vectors.T
    return precision, precision @ np.array([a, logb]) + grad


def drift_name(assumption):
    """The drift's name: ``reference-deviation`` (of a label-shift map), ``reference-deviation-covariate``."""
    return NAME + ("" if assumption == "label" else "-" + str(assumption))


def _interpolated(at, values, s):
    """The anchored map's log-odds at scores s (B,), interpolated between the scores ``at`` (ascending)."""
    return np.interp(np.asarray(s, dtype=float), at, values)


def deviation_models(anchored):
    """The drift of the fitted ``anchored`` models' best map under each assumption among them, as
    :class:`~spe.models.registry.ScoreModel` objects (not registered: they exist only beside the anchored models):
    list, one per assumption."""
    by = {}
    for m in anchored:
        by.setdefault(m.diagnostics.get("assumption"), []).append(m)
    return [ScoreModel(name=drift_name(a), fit=partial(_fit, models),
                       about="the reference set's map under one shift, drifted and fitted to the pool's labels")
            for a, models in by.items()]


def _best(anchored):
    """The anchored model with the largest evidence: the one drifted."""
    return max(anchored, key=lambda m: m.log_evidence)


def _fit(anchored, data, rng):
    pooled = priors_of(data.reference)
    prior = None if pooled is None else pooled.drift.get(_best(anchored).diagnostics.get("assumption"))
    return fit_deviation(anchored, data.scores, data.labeled_index, data.labeled_value, counts=data.counts,
                         draws=data.draws, rng=rng, cells=data.pool_cells.scores, prior=prior)
