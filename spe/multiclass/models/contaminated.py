r"""Top-label recalibration with a ceiling: the predicted class is wrong at least a fraction ε of the time
(Copas 1988's contaminated regression, as :mod:`spe.models.contaminated` for two classes, on the top label).

.. math::
    p(y = \hat y \mid s) = (1 - ε)\, σ\big(α + β \operatorname{logit} c(s)\big),\qquad
    p(y = k \mid s) = \big(1 - p(y = \hat y \mid s)\big)\, \frac{s_k}{1 - c(s)}\quad (k ≠ \hat y),

with c(s) the stated confidence of the predicted class ŷ (:mod:`.top_label` is the case ε = 0).

Why: a deep network states confidences within 10⁻³ of 1 for items it gets wrong a few percent of the time
(label noise, over-confidence). Under the maps without a ceiling, 20 labeled items that all happen to be right
push the confidence's calibration sharper still, and the accuracy's interval ends above the truth. Here the
ceiling's share ε is unknown, with the binary model's prior ε ~ Beta(1, 9)
(:data:`spe.models.contaminated.CONTAMINATION_PRIOR`), so the interval keeps room below until labels pin ε;
the evidence decides the model's weight against the maps without a ceiling.

Parameters u = (log β, α, logit ε), P = 3; priors log β ~ N(0, 0.75²), α ~ N(0, 0.5²) (as the top-label map's)
and the Beta density of ε with its Jacobian on logit ε, so the evidence is normalised. The MAP is found by
L-BFGS (scipy), the draws by importance sampling around it. A reference set's labeled items are evidence for
the same map (no separate prior shift: the ceiling and the confidence's calibration are what it carries).
"""

from __future__ import annotations

import numpy as np
from scipy import optimize, special

from ...inference.importance import importance_sample, psis_loo
from ...models.contaminated import CONTAMINATION_PRIOR
from .base import ClassModel, FittedClassModel, gaussian_log_prior, linear, posterior_diagnostics, register
from .temperature import INVERSE_TEMPERATURE_PRIOR
from .top_label import OFFSET_SD, top_label_logit_parts, top_label_parts

__all__ = ["fit_contaminated_top_label"]

_MEAN = np.array([INVERSE_TEMPERATURE_PRIOR[0], 0.0])
_SD = np.array([INVERSE_TEMPERATURE_PRIOR[1], OFFSET_SD])


def _log_prior(u):
    """log p(u) (B,) for u (B, 3): Normal on (log β, α), Beta(1, 9) on ε with the Jacobian of logit ε."""
    a, b = CONTAMINATION_PRIOR
    t = u[:, 2]
    return (gaussian_log_prior(u[:, :2], _MEAN, _SD)
            + a * special.log_expit(t) + b * special.log_expit(-t) - special.betaln(a, b))


def _log_p_top(theta, logit_c):
    """log p(y = ŷ | s) (B, n) for linear θ = (β, α, logit ε) (B, 3) and logit c (n,)."""
    eta = theta[:, :1] * logit_c[None, :] + theta[:, 1:2]
    return special.log_expit(-theta[:, 2:3]) + special.log_expit(eta)


def _log_not(log_p):
    """log(1 − p) from log p, p capped just below one."""
    return np.log1p(-np.exp(np.minimum(log_p, -1e-12)))


def _log_likelihood(u, top, rest, logit_c, log_probs, y):
    """log p(y_i | u) (B, n) of the labeled items."""
    log_top = _log_p_top(linear(u), logit_c)
    right = top[np.arange(y.size), y]
    log_other = _log_not(log_top) + (log_probs[np.arange(y.size), y] - rest)[None, :]
    return np.where(right[None, :], log_top, log_other)


def _logits(theta, log_probs):
    """Calibrated logits (B, N, K) for linear θ (B, 3): the top label's log-odds, the others as stated."""
    top, base, logit_c = top_label_logit_parts(log_probs)
    log_top = _log_p_top(np.asarray(theta, dtype=float), logit_c.astype(float))
    z_top = (log_top - _log_not(log_top)).astype(log_probs.dtype)
    return np.where(top[None], z_top[:, :, None], base[None])


def fit_contaminated_top_label(log_probs, labeled_index, labeled_class, draws, rng, reference=None):
    """Posterior draws of the contaminated top-label map (the module's equation), its evidence and LOO.

    Parameters
    ----------
    log_probs : array, shape (N, K)
        The classifier's log-probabilities (natural log).
    labeled_index, labeled_class : int arrays, shape (n,)
    draws : int
        M.
    rng : numpy.random.Generator
    reference : (array (R, K), int array (R,)) or None
        A labeled reference set's log-probabilities and classes, evidence for the same map.

    Returns
    -------
    FittedClassModel
        Draws of u = (log β, α, logit ε), shape (M, 3).
    """
    y = np.asarray(labeled_class, dtype=int)
    pool_parts = (*top_label_parts(log_probs[labeled_index]), log_probs[labeled_index], y)
    parts = pool_parts
    if reference is not None:
        ref_log_probs, ref_class = reference
        parts = tuple(np.concatenate([p, r]) for p, r in
                      zip(pool_parts, (*top_label_parts(ref_log_probs), ref_log_probs,
                                       np.asarray(ref_class, dtype=int))))

    def log_posterior(u):
        u = np.atleast_2d(u)
        return _log_likelihood(u, *parts).sum(axis=1) + _log_prior(u)

    start = np.r_[_MEAN, special.logit(CONTAMINATION_PRIOR[0] / sum(CONTAMINATION_PRIOR))]
    u_map = optimize.minimize(lambda u: -log_posterior(u)[0], start, method="L-BFGS-B").x
    post = importance_sample(log_posterior, u_map, draws=draws, rng=rng)
    loo = psis_loo(_log_likelihood(post.u, *pool_parts), post.weights)[0] if y.size else np.zeros(0)
    return FittedClassModel("contaminated", post.u, post.weights, _logits, float(post.log_normalizer), loo,
                            posterior_diagnostics(post))


register(ClassModel("contaminated", fit_contaminated_top_label,
                    about="top-label recalibration with a ceiling: the predicted class is wrong at least a "
                          "share ε ~ Beta(1, 9) of the time (3 parameters)",
                    hypothesis="ceiling"))
