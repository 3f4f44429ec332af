r"""Piecewise-linear Bayesian recalibration: Zhang & Yang's piecewise logistic regression with priors.

.. math::
    P(y = 1 \mid s) = \sigma(\eta(f(s))),\qquad
    \eta(z) = a + \int_0^z b(t)\,dt,\qquad b(t) = b_j \text{ on piece } j

A continuous, monotone, piecewise-linear log-odds in the score feature
``z = f(s)`` (the score's log-odds, as the ``calibrated`` model reads it, or
the standardised score, as ``platt`` does), with knots at the 10%, 50% and
90% quantiles of the feature over all N items: four pieces, each with its
own slope ``b_j > 0`` (Zhang & Yang, "Probabilistic score estimation with
piecewise logistic regression", ICML 2004 workshop, §3.3:
``../shared/papers/zhang_yang_piecewise_logistic.txt``; their eq. for
f(z) with K + 1 knots; their knots are chosen by likelihood among class
percentiles, here they are fixed quantiles of all scores so that no label
chooses them).

Why: one slope cannot be both under- and over-confident. The softmax
probabilities of a deep network are over-confident at the top (a mean
probability of 0.98 for a 69%-positive tenth) and under-confident in the
middle (5–11% positives at a mean probability below 0.005), which the
two-parameter recalibration can only average into a confidently wrong line.

Priors (the regulariser of Zhang & Yang, which keeps adjacent slopes close,
becomes a prior that keeps every slope near a common one, so that the model
falls back to the two-parameter recalibration when the labels say nothing
about the shape):

* a ~ the intercept prior of the base model (``calibrated``: N(0, 1.5²),
  "calibrated up to a prior shift"; ``platt``: N(0, 3²)); a is the log-odds
  at z = 0;
* the common log-slope c ~ the base model's prior on log b (a Student-t₃ or a
  Normal, truncated as in :class:`~spe.models.recalibration.RecalibrationPrior`);
* log b_j = c + τ e_j, e_j ~ N(0, 1) independently, τ = :data:`SLOPE_SPREAD`
  = 0.5 (each piece's slope within a factor e^0.5 ≈ 1.6 of the common one
  for 68% of the prior).

Pieces that hold no labeled item keep their slope's prior spread, so the
bands widen at the ends where no label is.

Posterior: :func:`spe.models.link.fit_link` — the MAP, importance sampling
around it with Pareto smoothing, the evidence p(Y_L | S) as the
importance-sampling estimate of the posterior's normalising constant (mean
of the raw importance ratios), and PSIS-LOO. With a single slope (τ → 0) the model
is the two-parameter recalibration, and its evidence then agrees with that
model's exact grid evidence (tested).
"""

from __future__ import annotations

import numpy as np
from scipy import special, stats

from ..quantiles import repeated_inverted_cdf
from .link import LinkModel, fit_link
from .recalibration import PRIORS, RecalibrationPrior
from .registry import ScoreModel, register

__all__ = ["fit_piecewise", "PiecewiseLink", "knots_at_quantiles", "piece_lengths", "SLOPE_SPREAD",
           "KNOT_QUANTILES"]

#: τ, the prior standard deviation of each piece's log-slope around the common log-slope.
SLOPE_SPREAD = 0.5
#: Quantiles of the feature over all N items at which the knots sit.
KNOT_QUANTILES = (0.1, 0.5, 0.9)
#: Smallest distance between knots, in feature units: closer knots (tied scores) are merged.
MIN_KNOT_GAP = 1e-6


def knots_at_quantiles(z, quantiles=KNOT_QUANTILES, counts=None):
    """Distinct knots at the given quantiles of the feature values z (N,), interior to their range.

    ``counts`` (N,): z is non-decreasing and each value stands for that many items (a
    :class:`spe.pool.ScorePool`).

    Returns an increasing array of K ≤ len(quantiles) knots (feature units);
    knots that coincide (heavily tied scores) or sit on the range's ends are
    dropped, so K may be 0.
    """
    z = np.asarray(z, dtype=float)
    lo, hi = float(np.min(z)), float(np.max(z))
    knots = []
    at = (np.quantile(z, quantiles, method="inverted_cdf") if counts is None  # observed values: ties cannot split
          else repeated_inverted_cdf(z, quantiles, counts))
    for k in at:
        if k - lo > MIN_KNOT_GAP and hi - k > MIN_KNOT_GAP and (not knots or k - knots[-1] > MIN_KNOT_GAP):
            knots.append(float(k))
    return np.array(knots)


def piece_lengths(z, knots):
    """How much of the path from 0 to z lies in each piece, signed: (B,) → (B, K + 1).

    Piece j spans [knot_{j-1}, knot_j] (the first and last pieces are
    unbounded); η(z) = a + Σ_j b_j · piece_lengths(z)[:, j], so equal slopes
    b give η = a + b z.
    """
    z = np.asarray(z, dtype=float)[:, None]
    edges = np.concatenate([[-np.inf], knots, [np.inf]])
    lo, hi = edges[:-1][None, :], edges[1:][None, :]
    return np.clip(z, lo, hi) - np.clip(0.0, lo, hi)


class PiecewiseLink(LinkModel):
    """The piecewise-linear log-odds of the module docstring: u = (a, c, e_1 … e_{K+1}), P = K + 3."""

    def __init__(self, knots, prior: RecalibrationPrior, spread):
        self.knots, self.prior, self.spread = np.asarray(knots, dtype=float), prior, float(spread)
        self.param_names = ["a", "log_b", *[f"e_{j + 1}" for j in range(self.knots.size + 1)]]

    def slopes(self, u):
        """(M, P) → (M, K + 1) slopes b_j = exp(c + τ e_j)."""
        return np.exp(np.clip(u[:, 1:2] + self.spread * u[:, 2:], -50.0, 50.0))

    def log_odds(self, u, z):
        """η(z): (M, P) × (B,) → (M, B)."""
        return u[:, :1] + self.slopes(u) @ piece_lengths(z, self.knots).T

    def log_prior(self, u):
        return self.prior.logpdf(u[:, 0], u[:, 1]) + stats.norm.logpdf(u[:, 2:]).sum(axis=1)

    def probability(self, u, z):
        return special.expit(self.log_odds(u, z))

    def log_likelihood_terms(self, u, z, y):
        return special.log_expit(np.where(np.asarray(y) == 1, 1.0, -1.0)[None, :] * self.log_odds(u, z))

    def starts(self):
        """The prior's centre, and a steeper and a shallower common slope."""
        starts = np.zeros((3, len(self.param_names)))
        starts[:, 0] = self.prior.a_mean
        starts[:, 1] = self.prior.logb_mean + np.array([0.0, 1.0, -1.0])
        return starts

    def constrained(self, u):
        return (np.column_stack([u[:, 0], self.slopes(u)]),
                ["a", *[f"b_{j + 1}" for j in range(self.knots.size + 1)]])

    def summary(self, u, weights):
        return {"a": float(weights @ u[:, 0]), "slopes": [float(v) for v in weights @ self.slopes(u)]}


def fit_piecewise(feature, scores, labeled_index, labeled_value, *, name="piecewise", prior=None, draws=1000,
                  rng=None, knots=None, spread=SLOPE_SPREAD, counts=None, weights=None):
    """Posterior draws of the piecewise-linear recalibration (see the module docstring).

    Parameters
    ----------
    feature : callable
        scores (B,) → f(s) (B,): score units in, feature units (log-odds or
        standardised score) out.
    scores : array, shape (N,)
        All scores; the knots are at quantiles of their feature.
    labeled_index : int array, shape (n,)
    labeled_value : 0/1 array, shape (n,)
    name : str
        The model's name in tables.
    prior : RecalibrationPrior, optional
        Priors on a and the common log-slope (default: the ``calibrated``
        model's, :data:`spe.models.recalibration.PRIORS`).
    draws : int
        M, importance-sampling draws.
    rng : numpy.random.Generator, int or None
    knots : array, optional
        Knots in feature units (default :func:`knots_at_quantiles` of the
        feature of all N scores).
    spread : float
        τ (> 0), the prior sd of each piece's log-slope around the common one.
    counts : int array, shape (N,), optional
        ``scores`` are a :class:`spe.pool.ScorePool`'s sorted values, each standing for this many items.
    weights : array, shape (n,), optional
        How many labeled items each labeled entry stands for (:func:`spe.models.link.fit_link`).

    Returns
    -------
    FittedScoreModel or None
        Weighted draws of u = (a, c, e_1 … e_{K+1}) (P = K + 3); ``constrained_draws``
        are (a, b_1 … b_{K+1}); ``log_evidence`` = log p(Y_L | S) (importance-
        sampling estimate, :func:`spe.models.link.fit_link`); ``loo`` (n,) by
        PSIS-LOO; ``diagnostics`` with the knots, the posterior mean slopes,
        ESS and Pareto k̂. None when the feature has no interior knot (too few
        distinct scores): the model is then the two-parameter recalibration.

    Raises
    ------
    ValueError
        If ``spread`` is not positive.
    """
    if not spread > 0:
        raise ValueError(f"spread must be positive, got {spread!r}")
    prior = PRIORS["calibrated"] if prior is None else prior
    s = np.asarray(scores, dtype=float)
    knots = knots_at_quantiles(feature(s), counts=counts) if knots is None else np.sort(np.asarray(knots, dtype=float))
    if knots.size == 0:
        return None
    link = PiecewiseLink(knots, prior, spread)
    return fit_link(link, feature, s[np.asarray(labeled_index, dtype=int)], labeled_value, name=name, draws=draws,
                    rng=rng, diagnostics={
                        "knots": [float(k) for k in knots],
                        "prior": dict(prior.to_dict(), slope_spread=spread)}, weights=weights)


def _fit_registered(data, rng):
    return fit_piecewise(data.link_feature, data.scores, data.labeled_index, data.labeled_value,
                         prior=PRIORS[data.link_base], draws=data.draws, rng=rng, counts=data.counts,
                         weights=data.labeled_weights)


register(ScoreModel(name="piecewise", fit=_fit_registered, learns_from_reference=True,
                    about="lets the slope change at the 10/50/90% score quantiles (over- and under-confidence at "
                          "once, as deep networks are)"))
