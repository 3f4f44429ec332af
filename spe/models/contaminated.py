r"""Logistic recalibration with a floor and a ceiling: Copas's contaminated binary regression, Bayesian.

.. math::
    P(y = 1 \mid s) = \varepsilon_0 + (1 - \varepsilon_0 - \varepsilon_1)\,\sigma(a + b\, f(s)),\qquad b > 0

(Copas 1988, "Binary regression models for contaminated data", JRSS B 50:
225–265, the "misclassification" model of §2: a fraction of labels
contradicts the score whatever it says). ``f`` is the score's log-odds (as in
the ``calibrated`` model) or the standardised decision value (as in
``platt``), with that model's priors on a and log b.

Why: the other recalibrations let p(y = 1 | s) reach 0 and 1 at extreme
scores, so a score near 1 means certainty. A deep network's softmax piles
items within 10⁻⁴ of 0 and 1 whose labels are not certain at all (on the
CivilComments pools, the top-scored twentieth is 82–85% toxic at a mean
probability above 0.99, and the lowest-scored items 0.1–6%): label noise and
over-confidence put a ceiling 1 − ε₁ and a floor ε₀ on the probability.
With few labels and a score model whose prior believes the score, a single
labeled positive at the top made the band say "precision ≥ 0.87" where the
truth was 0.74. Here the ceiling and floor are unknown, with the prior
ε₀, ε₁ ~ Beta(1, 9) (mean 0.1; 95% below 0.28), so the band stays wide
until labels at the ends pin them, and the evidence decides how much weight
this model gets against the ones without a floor or ceiling.

Parameters u = (a, log b, logit ε₀, logit ε₁); the prior on the logits is
the Beta density with its Jacobian, so the evidence is normalised. Fitted by
:func:`spe.models.link.fit_link` (MAP, importance sampling, PSIS).
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .link import LinkModel, fit_link
from .recalibration import PRIORS, RecalibrationPrior
from .registry import ScoreModel, register

__all__ = ["ContaminatedLink", "fit_contaminated", "CONTAMINATION_PRIOR"]

#: (α, β) of the Beta prior on the floor ε₀ and on the ceiling's complement ε₁.
CONTAMINATION_PRIOR = (1.0, 9.0)


def _logit_beta_logpdf(t, alpha, beta):
    """Log density of t = logit ε for ε ~ Beta(α, β), Jacobian included: (…) → (…), normalised.

    log p(t) = α log σ(t) + β log σ(−t) − log B(α, β).
    """
    return alpha * special.log_expit(t) + beta * special.log_expit(-t) - special.betaln(alpha, beta)


def _floor_ceiling_log_probabilities(eps0, eps1, eta):
    """log p and log (1 − p) for p = ε₀ + (1 − ε₀ − ε₁) σ(η), without cancellation near p = 0 or 1.

    Shapes broadcast (e.g. (M, 1), (M, 1), (M, B) → two (M, B) arrays);
    ε₀, ε₁ are probabilities, η is log-odds. ``-inf`` where p (or 1 − p) is 0.
    """
    p = eps0 + (1.0 - eps0 - eps1) * special.expit(eta)
    q = eps1 + (1.0 - eps0 - eps1) * special.expit(-eta)
    with np.errstate(divide="ignore"):
        return np.log(p), np.log(q)


class ContaminatedLink(LinkModel):
    """p(y = 1 | z) = ε₀ + (1 − ε₀ − ε₁) σ(a + b z), u = (a, log b, logit ε₀, logit ε₁)."""

    param_names = ["a", "log_b", "logit_floor", "logit_ceiling_gap"]

    def __init__(self, prior: RecalibrationPrior, contamination=CONTAMINATION_PRIOR):
        self.prior, self.contamination = prior, tuple(float(v) for v in contamination)

    def _parts(self, u, z):
        eps0, eps1 = special.expit(u[:, 2:3]), special.expit(u[:, 3:4])
        eta = u[:, :1] + np.exp(np.clip(u[:, 1:2], -50.0, 50.0)) * z[None, :]
        return eps0, eps1, eta

    def log_prior(self, u):
        log_eps = _logit_beta_logpdf(u[:, 2:], *self.contamination).sum(axis=1)
        return self.prior.logpdf(u[:, 0], u[:, 1]) + log_eps

    def probability(self, u, z):
        eps0, eps1, eta = self._parts(u, np.asarray(z, dtype=float))
        return eps0 + (1.0 - eps0 - eps1) * special.expit(eta)

    def log_likelihood_terms(self, u, z, y):
        log_p, log_q = _floor_ceiling_log_probabilities(*self._parts(u, np.asarray(z, dtype=float)))
        return np.where(np.asarray(y)[None, :] == 1, log_p, log_q)

    def starts(self):
        """The prior's centre with a small floor and ceiling gap, and a steeper and a shallower slope."""
        alpha, beta = self.contamination
        t = special.logit(alpha / (alpha + beta))
        return np.array([[self.prior.a_mean, self.prior.logb_mean + d, t, t] for d in (0.0, 1.0, -1.0)])

    def constrained(self, u):
        return (np.column_stack([u[:, 0], np.exp(u[:, 1]), special.expit(u[:, 2]), 1.0 - special.expit(u[:, 3])]),
                ["a", "b", "floor", "ceiling"])

    def summary(self, u, weights):
        c, _ = self.constrained(u)
        mean = weights @ c
        return {"a": float(mean[0]), "b": float(mean[1]), "floor": float(mean[2]), "ceiling": float(mean[3])}


def fit_contaminated(feature, scores, labeled_index, labeled_value, *, name="contaminated", prior=None,
                     contamination=CONTAMINATION_PRIOR, draws=1000, rng=None, weights=None):
    """Posterior draws of the contaminated logistic recalibration (Copas 1988, §2; see the module docstring).

    Parameters
    ----------
    feature : callable
        scores (B,) → f(s) (B,): score units in, log-odds or standardised score out.
    scores : array, shape (N,)
        All scores, score units (only the labeled items' enter the fit).
    labeled_index : int array, shape (n,)
    labeled_value : 0/1 array, shape (n,)
    name : str
    prior : RecalibrationPrior, optional
        Priors on a and log b (default: the ``calibrated`` model's).
    contamination : (float, float)
        (α, β) of the Beta prior on the floor ε₀ and on 1 − ceiling, ε₁.
    draws : int
        M.
    rng : numpy.random.Generator, int or None
    weights : array, shape (n,), optional
        How many labeled items each labeled entry stands for (:func:`spe.models.link.fit_link`).

    Returns
    -------
    FittedScoreModel
        Weighted draws of u = (a, log b, logit ε₀, logit ε₁) (P = 4);
        ``constrained_draws`` (a, b, floor, ceiling; floor and ceiling are
        probabilities); ``log_evidence`` = log p(Y_L | S) (importance-sampling
        estimate, :func:`spe.models.link.fit_link`); ``loo`` (n,).

    Raises
    ------
    RuntimeError
        If the MAP search finds no finite log posterior (:func:`spe.models.link.fit_link`).
    """
    prior = PRIORS["calibrated"] if prior is None else prior
    link = ContaminatedLink(prior, contamination)
    s = np.asarray(scores, dtype=float)
    return fit_link(link, feature, s[np.asarray(labeled_index, dtype=int)], labeled_value, name=name, draws=draws,
                    rng=rng, diagnostics={"prior": dict(prior.to_dict(),
                                                        floor_and_ceiling_gap=list(link.contamination))},
                    weights=weights)


def _fit_registered(data, rng):
    return fit_contaminated(data.link_feature, data.scores, data.labeled_index, data.labeled_value,
                            prior=PRIORS[data.link_base], draws=data.draws, rng=rng, weights=data.labeled_weights)


register(ScoreModel(name="contaminated", fit=_fit_registered, learns_from_reference=True,
                    about="adds an unknown floor and ceiling to the probability (label noise)"))
