r"""Label-conditional score models: Bayesian logistic recalibration of a score feature.

.. math::
    P(y = 1 \mid s) = \sigma(a + b\, f(s)),\qquad b > 0

with a feature ``f`` of the score and a prior on (a, log b). ``b > 0`` says
that the classifier ranks items sensibly (higher score, more likely
positive). Three features give three models:

* ``calibrated`` — f = the score's log-odds (the logit of a probability
  score, or a decision value read as log-odds) with the prior
  a ~ N(0, 1.5²), log b ~ t₃(0, 0.5): "roughly calibrated up to a prior
  shift". A shift of the class prior between training and this data set
  moves only a, by logit(π_here) − logit(π_train) (Saerens et al. 2002;
  Esuli et al. 2020, eq. 4); b ≠ 1 allows over- or under-confidence.
  This is Platt's sigmoid (Platt 1999; Bennett 2003, §3.4) made Bayesian.
* ``platt`` — f = the score (its logit for probabilities) standardised
  over all N items (centred at the median, scaled by the standard
  deviation), prior a ~ N(0, 3²), log b ~ N(log 2, 1): Platt scaling for
  scores whose units say nothing about probabilities (SVM margins, ranks).
* ``hybrid`` — f = the log-odds of the fitted SPE mixture,
  log π p₁(s) − log (1 − π) p₀(s) at its MAP (made non-decreasing in the
  score, see :func:`spe.api.evaluate`), prior a ~ N(0, 1),
  log b ~ t₃(0, 0.5): the class-conditional densities are fitted
  generatively on all scores and only an offset and a slope on their
  log-likelihood ratio are fitted discriminatively on the labeled items
  (Raina et al. 2004, §2).

The slope's prior is a Student-t on log b (3 degrees of freedom) for the
two models whose b = 1 means something: most of its mass says "about as
confident as the score claims" (b within a factor e ≈ 2.7 of 1 for 86% of it),
and its heavy tails let labels that are separated by the score pull b far
from 1 — the top of a near-perfect classifier's scores is pure, and a
Normal prior on log b held its precision there near σ(a + 2.7 f). The grid
covers |log b| ≤ 5 and the prior is truncated there (0.2% of the t₃
mass lies beyond).

The posterior of (a, log b) given the n labels is computed on a grid (a
coarse pass over ±5 prior standard deviations (for log b, its
:meth:`RecalibrationPrior.logb_range`), then a fine grid over the
region holding the mass), so the evidence p(Y_L | S) = ∫ Π_i p(y_i | s_i,
a, b) p(a, b) is exact up to the grid; draws are grid cells picked by their
posterior mass and jittered uniformly within the cell.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, partial

import numpy as np
from scipy import special, stats

from .base import FittedScoreModel
from .registry import ScoreModel, register

__all__ = ["RecalibrationPrior", "fit_recalibration", "PRIORS"]


@dataclass(frozen=True)
class RecalibrationPrior:
    """Independent priors on the intercept a (Normal) and on log b (Normal, or Student-t when
    ``logb_df`` is finite, truncated to :meth:`logb_range`); a in log-odds units, b unitless."""

    a_mean: float
    a_sd: float
    logb_mean: float
    logb_sd: float
    #: degrees of freedom of a Student-t prior on log b (``inf``: Normal)
    logb_df: float = np.inf

    @cached_property
    def _a_dist(self):
        return stats.norm(self.a_mean, self.a_sd)

    @cached_property
    def _logb_dist(self):
        if np.isinf(self.logb_df):
            return stats.norm(self.logb_mean, self.logb_sd)
        return stats.t(self.logb_df, self.logb_mean, self.logb_sd)

    def logpdf(self, a, logb):
        """Joint log prior density of (a, log b), arrays broadcast together (same shape out); ``-inf`` where
        log b is outside :meth:`logb_range`."""
        return self._a_dist.logpdf(a) + self.logb_logpdf(logb)

    def to_dict(self):
        """The prior's parameters for the diagnostics: ``{"a": [mean, sd], "log_b": [centre, scale]}``."""
        return {"a": [self.a_mean, self.a_sd], "log_b": [self.logb_mean, self.logb_sd]}

    def logb_logpdf(self, logb):
        """Log prior density of log b (array of any shape, same shape out): Normal, or Student-t with
        ``logb_df`` degrees of freedom, truncated to :meth:`logb_range` (and renormalised there);
        ``-inf`` outside it."""
        lo, hi = self.logb_range()
        inside = (np.asarray(logb) >= lo) & (np.asarray(logb) <= hi)
        return np.where(inside, self._logb_dist.logpdf(logb) - self._log_mass_in_range, -np.inf)

    @cached_property
    def _log_mass_in_range(self):
        dist, (lo, hi) = self._logb_dist, self.logb_range()
        return float(np.log(dist.cdf(hi) - dist.cdf(lo)))

    def logb_range(self):
        """(lo, hi), the range of log b the grid covers: ±5 sd, and for a Student-t prior up to ±5
        (b within e^±5)."""
        return self._logb_range

    @cached_property
    def _logb_range(self):
        half = 5.0 * self.logb_sd
        if not np.isinf(self.logb_df):
            half = max(half, min(float(stats.t.ppf(1 - 3e-7, self.logb_df)) * self.logb_sd, 5.0))
        return self.logb_mean - half, self.logb_mean + half


#: The default priors of the three recalibration models (see the module docstring).
PRIORS = {
    "calibrated": RecalibrationPrior(0.0, 1.5, 0.0, 0.5, logb_df=3.0),
    "platt": RecalibrationPrior(0.0, 3.0, np.log(2.0), 1.0),
    "hybrid": RecalibrationPrior(0.0, 1.0, 0.0, 0.5, logb_df=3.0),
}


def _log_lik_terms(a, logb, z, y):
    """log p(y_i | z_i, a, b) on a grid: a (Ga, 1), logb (1, Gb) → (Ga, Gb, n)."""
    eta = a[..., None] + np.exp(logb)[..., None] * z
    return special.log_expit(np.where(y == 1, 1.0, -1.0) * eta)


def _log_post(a, logb, z, y, prior, weights=None):
    """Unnormalised log posterior on a grid: a (Ga, 1), logb (1, Gb) → (Ga, Gb); ``weights`` (n,): how many
    labeled items each term stands for (None: one)."""
    lp = prior.logpdf(a, logb)
    if z.size:
        terms = _log_lik_terms(a, logb, z, y)
        lp = lp + (terms.sum(axis=-1) if weights is None else terms @ weights)
    return lp


#: Grid points per axis of the leave-one-out computation (over the prior's whole range).
LOO_GRID = 160
_LOO_BLOCK = 64


def _loo(z, y, prior, grid=LOO_GRID):
    """Exact leave-one-out log predictive densities log p(y_i | Y_L without i), shape (n,).

    p(y_i | Y_-i) = Z(Y) / Z(Y_-i) with Z the evidence, both sums over one
    grid spanning the prior's whole range (the posterior without an
    influential item, e.g. the only labeled positive, can lie far from the
    posterior with it, outside the fine grid of the fit).
    """
    if z.size == 0:
        return np.zeros(0)
    ga = np.linspace(prior.a_mean - 5 * prior.a_sd, prior.a_mean + 5 * prior.a_sd, grid)[:, None]
    gb = np.linspace(*prior.logb_range(), grid)[None, :]
    # items in blocks, so memory is O(G²·block), not O(G²·n), for many labels
    blocks = [slice(i, i + _LOO_BLOCK) for i in range(0, z.size, _LOO_BLOCK)]
    lp = prior.logpdf(ga, gb)
    for b in blocks:
        lp = lp + _log_lik_terms(ga, gb, z[b], y[b]).sum(axis=-1)
    log_z = special.logsumexp(lp)
    return np.concatenate([
        log_z - special.logsumexp(lp[..., None] - _log_lik_terms(ga, gb, z[b], y[b]), axis=(0, 1)) for b in blocks
    ])


def fit_recalibration(name, feature, scores, labeled_index, labeled_value, *, prior=None, draws=1000,
                      rng=None, grid=64, weights=None):
    """Posterior draws of a logistic recalibration model (see the module docstring).

    Parameters
    ----------
    name : str
        Model name; also selects the default prior from :data:`PRIORS`.
    feature : callable
        scores (B,) → f(s) (B,), score units in, feature units out.
    scores : array, shape (N,)
    labeled_index : int array, shape (n,)
    labeled_value : 0/1 array, shape (n,)
    prior : RecalibrationPrior, optional
    draws : int
        M.
    rng : numpy.random.Generator, int or None
    grid : int
        Grid points per axis (fine pass).
    weights : array, shape (n,), optional
        How many labeled items each labeled entry stands for (a compressed reference set); None: one each.

    Returns
    -------
    FittedScoreModel
        Draws of (a, log b), equal weights; ``log_evidence`` = log p(Y_L | S);
        ``loo`` (n,) = log p(y_i | s, Y_L without item i), exact on a grid
        (None with ``weights``: an entry is not one item).
    """
    rng = np.random.default_rng(rng)
    prior = PRIORS[name] if prior is None else prior
    z = np.asarray(feature(np.asarray(scores, dtype=float)[labeled_index]), dtype=float)
    y = np.asarray(labeled_value)
    # coarse pass over the prior's ±5 sd, then a fine grid over where the mass is
    a_lo, a_hi = prior.a_mean - 5 * prior.a_sd, prior.a_mean + 5 * prior.a_sd
    b_lo, b_hi = prior.logb_range()
    for _ in range(2):
        ga, gb = np.linspace(a_lo, a_hi, grid), np.linspace(b_lo, b_hi, grid)
        lp = _log_post(ga[:, None], gb[None, :], z, y, prior, weights)
        # ≥: at log posteriors of magnitude ~1e17 and beyond (features of 1e20, say) max − 14 rounds to max
        keep = lp >= lp.max() - 14.0
        ia, ib = np.flatnonzero(keep.any(axis=1)), np.flatnonzero(keep.any(axis=0))
        da, db = ga[1] - ga[0], gb[1] - gb[0]
        a_lo, a_hi = ga[max(ia[0] - 1, 0)] - da / 2, ga[min(ia[-1] + 1, grid - 1)] + da / 2
        b_lo, b_hi = gb[max(ib[0] - 1, 0)] - db / 2, gb[min(ib[-1] + 1, grid - 1)] + db / 2
    # final grid: cell centres over the box
    da, db = (a_hi - a_lo) / grid, (b_hi - b_lo) / grid
    ga = a_lo + da * (np.arange(grid) + 0.5)
    gb = b_lo + db * (np.arange(grid) + 0.5)
    lp = _log_post(ga[:, None], gb[None, :], z, y, prior, weights)
    log_evidence = float(special.logsumexp(lp) + np.log(da * db))
    p = np.exp(lp - lp.max()).ravel()
    p /= p.sum()
    cells = rng.choice(p.size, size=draws, p=p)
    ia, ib = np.unravel_index(cells, lp.shape)
    u = np.column_stack([ga[ia] + da * (rng.random(draws) - 0.5), gb[ib] + db * (rng.random(draws) - 0.5)])

    probability = partial(_recalibrated_probability, feature)

    post_mean = np.array([np.mean(u[:, 0]), np.mean(u[:, 1])])
    model = FittedScoreModel(
        name=name,
        draws=u,
        weights=np.full(draws, 1.0 / draws),
        probability=probability,
        diagnostics={
            "model": name,
            "prior": prior.to_dict(),
            "posterior_mean": {"a": float(post_mean[0]), "b": float(np.exp(post_mean[1]))},
            "grid": [grid, grid],
        },
        param_names=["a", "log_b"],
        constrained_draws=np.column_stack([u[:, 0], np.exp(u[:, 1])]),
    )
    model.log_evidence = log_evidence
    model.loo = _loo(z, y, prior) if weights is None else None
    return model


def _fitter(name, feature):
    """The registry's ``fit(data, rng)`` of the recalibration ``name`` on the feature ``data.<feature>``."""
    def fit(data, rng):
        return fit_recalibration(name, getattr(data, feature), data.scores, data.labeled_index, data.labeled_value,
                                 draws=data.draws, rng=rng, weights=data.labeled_weights)
    return fit


def _reads_log_odds(data):
    return data.score_type != "decision"


register(ScoreModel(name="hybrid", fit=_fitter("hybrid", "mixture_log_odds"), uses_mixture=True,
                    about="recalibrates the SPE mixture's log-odds (Raina et al.'s hybrid)"))
register(ScoreModel(name="calibrated", fit=_fitter("calibrated", "log_odds"), averaged=_reads_log_odds,
                    learns_from_reference=True, about="reads the score as log-odds up to a shift and slope"))
register(ScoreModel(name="platt", fit=_fitter("platt", "standardized"), learns_from_reference=True,
                    about="Bayesian Platt scaling"))


def _recalibrated_probability(feature, d, s):
    """expit(a + b·feature(s)) under draws (a, log b), (M', 2) × (B,) → (M', B)."""
    f = np.asarray(feature(s), dtype=float)
    return special.expit(d[:, :1] + np.exp(d[:, 1:2]) * f[None, :])
