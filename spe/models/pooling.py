r"""Partial pooling of several pools' departures from one reference set (chunks of a stream, slices of users).

Each of K pools (:func:`spe.monitor`'s chunks) is estimated against the same labeled reference set, and its
labels weigh three hypotheses of its calibration map (:mod:`spe.models.anchor`): the reference's map carried
under a shift (the *spike*), that map drifted (the *slab*, :mod:`spe.models.deviation`), or a new map (concept
shift). Estimated one at a time, a pool with 5 labels learns from its 5 labels alone. Pooled, the pools are
exchangeable draws from one population of departures, and each pool's prior is what the *other* pools' labels
say of that population (leave-one-out: a pool's own labels are not counted twice):

* **The drift** (a, log b) of pool k is θ_k = μ + ε_k, μ ~ N(0, ρ Σ₀), ε_k ~ N(0, (1 − ρ) Σ₀), with Σ₀ the
  drift prior of one pool alone (:data:`spe.models.deviation.PRIOR`: sd 0.15 and 0.075), so a pool with no
  neighbours keeps it. The shared share ρ has a uniform prior over :data:`SHARED_SHARES`. Each pool's labels
  enter through a Gaussian approximation of their log-likelihood of θ
  (:func:`spe.models.deviation.labels_information`), so the
  leave-one-out predictive N(μ̂₋ₖ, (1 − ρ) Σ₀ + P₋ₖ) is closed-form for each ρ (Gelman et al., *Bayesian Data
  Analysis*, 3rd ed., §5.4–5.5) and averaged over ρ by the other pools' marginal likelihood.
* **The hypotheses' prior** (spike, slab, new map) of pool k is the posterior mean of their shares π given the
  others' labels: π ~ Dirichlet(:data:`CONCENTRATION` × today's prior masses), each pool's labels entering by
  their likelihood of the three hypotheses (posterior ÷ prior), evaluated on a grid over the simplex. When some
  pools' labels disagree with the reference, a new map becomes more probable in every pool — also in one whose
  few labels happened to agree.

Pools without labels inform nothing and borrow from all the labeled ones.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from .deviation import PRIOR
from .recalibration import RecalibrationPrior

__all__ = ["PoolPriors", "pooled_drift_priors", "drift_predictive", "pooled_hypothesis_masses",
           "SHARED_SHARES", "CONCENTRATION"]

#: The shares ρ of the drift's prior variance that the pools share (uniform prior over them).
SHARED_SHARES = np.linspace(0.1, 0.9, 9)
#: Total concentration of the Dirichlet prior on the hypotheses' shares (2: as weak as a uniform Beta).
CONCENTRATION = 2.0
#: The drift prior's variances, (a, log b): Σ₀'s diagonal.
_SIGMA0 = np.array([PRIOR.a_sd ** 2, PRIOR.logb_sd ** 2])


@dataclass(frozen=True)
class PoolPriors:
    """One pool's priors from the other pools (carried to its fit by
    :meth:`spe.shared_reference.SharedReference.with_priors`).

    Attributes
    ----------
    drift : dict of str → RecalibrationPrior
        The drift's prior under each shift assumption (``"label"``, ``"covariate"``); an assumption not named
        keeps :data:`spe.models.deviation.PRIOR`.
    masses : tuple (spike, slab, new map) or None
        Prior probabilities of the three hypotheses (sum 1); None: :mod:`spe.models.anchor`'s.
    """

    drift: dict
    masses: tuple | None = None


def pooled_drift_priors(informations):
    """Each pool's drift prior given the others' labels (module docstring).

    Parameters
    ----------
    informations : list of (Λ (2, 2), η (2,)) or None
        K pools' labels' information on their drift (:func:`spe.models.deviation.labels_information`); None for a pool without
        labels.

    Returns
    -------
    list of RecalibrationPrior, length K
        N(mean, sd) on a and a Student-t₃ (the default's shape, :data:`spe.models.deviation.PRIOR`) of the
        predictive's sd on log b; the default prior where no other pool has labels.
    """
    out = []
    for k in range(len(informations)):
        others = [x for j, x in enumerate(informations) if j != k and x is not None]
        if not others:
            out.append(PRIOR)
            continue
        mean, var = _predictive(others)
        sd = np.sqrt(var)
        out.append(RecalibrationPrior(float(mean[0]), float(sd[0]), float(mean[1]), float(sd[1]),
                                      logb_df=PRIOR.logb_df))
    return out


def _predictive(informations):
    """The predictive N(mean (2,), diag var (2,)) of a new pool's drift given these pools' information: the
    mixture over :data:`SHARED_SHARES` (:func:`drift_predictive`), weighted by their marginal likelihood, matched
    by its moments."""
    fits = [drift_predictive(informations, rho) for rho in SHARED_SHARES]
    log_ml = np.array([f[2] for f in fits])
    w = np.exp(log_ml - special.logsumexp(log_ml))
    means, variances = np.array([f[0] for f in fits]), np.array([np.diag(f[1]) for f in fits])
    mean = w @ means
    return mean, w @ (variances + (means - mean) ** 2)


def drift_predictive(informations, shared_share):
    """A new pool's drift given these pools' labels, when a share ρ of the drift's prior variance is shared.

    Parameters
    ----------
    informations : list of (Λ (2, 2), η (2,))
        The pools' labels' information on their drift θ_j = (a, log b)
        (:func:`spe.models.deviation.labels_information`): likelihood ∝ exp(ηᵀθ − ½θᵀΛθ).
    shared_share : float in (0, 1)
        ρ: μ ~ N(0, ρ Σ₀), θ_j ~ N(μ, (1 − ρ) Σ₀).

    Returns
    -------
    (mean (2,), cov (2, 2), log marginal likelihood) : (array, array, float)
        The predictive N(mean, cov) of a new pool's θ, and log ∫ Π_j L_j(θ_j) p(θ_j | μ) p(μ) dθ dμ (the
        likelihoods as given, unnormalised).
    """
    shared, own = shared_share * np.diag(_SIGMA0), (1 - shared_share) * np.diag(_SIGMA0)
    precision, shift, log_ml = np.linalg.inv(shared), np.zeros(2), 0.0
    for lam, eta in informations:
        damp = np.linalg.inv(np.eye(2) + lam @ own)  # the pool's θ integrated out: its information on μ
        precision, shift = precision + damp @ lam, shift + damp @ eta
        log_ml += _log_marginal_term(lam, eta, own)
    cov = np.linalg.inv(precision)
    mu = cov @ shift
    log_ml += 0.5 * (shift @ mu) + 0.5 * np.linalg.slogdet(cov)[1] - 0.5 * np.linalg.slogdet(shared)[1]
    return mu, own + cov, float(log_ml)


def _log_marginal_term(lam, eta, own):
    """The part of log ∫ exp(ηᵀθ − ½θᵀΛθ) N(θ; μ, own) dθ that does not depend on μ (the μ-dependent part is
    carried by the damped information): −½ log det(I + Λ·own) + ½ ηᵀ(Λ + own⁻¹)⁻¹η."""
    inner = np.linalg.inv(lam + np.linalg.inv(own))
    return -0.5 * np.linalg.slogdet(np.eye(2) + lam @ own)[1] + 0.5 * eta @ inner @ eta


def pooled_hypothesis_masses(prior, posteriors):
    """Each pool's prior probabilities of (spike, slab, new map) given the others' labels (module docstring).

    Exact: the product of the other pools' likelihoods Σ_c π_c L_jc is a polynomial in π whose terms are
    Dirichlet moments, summed over the count vectors (n₁, n₂, n₃) by dynamic programming (O(K³) per pool).

    Parameters
    ----------
    prior : array, shape (3,)
        Today's prior masses (sum 1), the Dirichlet's mean.
    posteriors : list of array (3,) or None
        K pools' posterior probabilities of the three hypotheses under ``prior``; None for a pool without
        labels.

    Returns
    -------
    list of tuple (3,), length K
        Posterior means of π given the other pools; ``prior`` where no other pool has labels.

    Examples
    --------
    >>> masses = pooled_hypothesis_masses([0.5, 0.45, 0.05], [[0.1, 0.1, 0.8], [0.1, 0.1, 0.8], None])
    >>> [round(m[2], 3) for m in masses]
    [0.3, 0.3, 0.51]
    """
    prior = np.asarray(prior, dtype=float)
    log_lik = [None if p is None else np.log(np.clip(np.asarray(p, dtype=float), 1e-300, None)) - np.log(prior)
               for p in posteriors]
    out = []
    for k in range(len(log_lik)):
        others = [x - x.max() for j, x in enumerate(log_lik) if j != k and x is not None]
        out.append(tuple(float(v) for v in (_dirichlet_posterior_mean(CONCENTRATION * prior, others)
                                            if others else prior)))
    return out


def _dirichlet_posterior_mean(alpha, log_liks):
    """E[π | data] for π ~ Dirichlet(alpha) (3,) and independent observations with likelihood Σ_c π_c L_c
    (``log_liks``: m arrays (3,) of log L), exactly (see :func:`pooled_hypothesis_masses`)."""
    m = len(log_liks)
    coef = np.full((m + 1, m + 1), -np.inf)  # log coefficient of π₁^n₁ π₂^n₂ π₃^(i − n₁ − n₂) after i factors
    coef[0, 0] = 0.0
    for i, ll in enumerate(log_liks):
        new = coef + ll[2]
        new[1:, :] = np.logaddexp(new[1:, :], coef[:-1, :] + ll[0])
        new[:, 1:] = np.logaddexp(new[:, 1:], coef[:, :-1] + ll[1])
        coef = new
    n1, n2 = np.meshgrid(np.arange(m + 1), np.arange(m + 1), indexing="ij")
    n3 = m - n1 - n2
    ok = n3 >= 0
    counts = np.stack([n1[ok], n2[ok], n3[ok]], axis=1)
    log_terms = coef[ok] + special.gammaln(alpha + counts).sum(axis=1)  # ∝ E_Dir[π^n] (common factors dropped)
    w = np.exp(log_terms - special.logsumexp(log_terms))
    return w @ ((alpha + counts) / (alpha.sum() + m))
