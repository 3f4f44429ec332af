r"""Bayesian temperature scaling with a prior-shift term (Guo et al. 2017, §4.2; Saerens et al. 2002).

.. math::
    z_{ik} = a\, L_{ik} + b_k,\qquad b = Q β,

``L`` the classifier's log-probabilities, ``a = 1/T`` the inverse temperature (a < 1: the classifier is
over-confident) and ``b`` the log ratio of the pool's class prior to the classifier's (a prior shift moves the
log-odds of every class by it), summing to zero over the classes (``Q``: :func:`~.base.sum_zero_basis`).
Priors: log a ~ N(0, 0.75²) ("about as confident as it says", and as ready to be twice too confident as twice
too unsure: 90% of its mass within a factor 3.4 of 1, the range of the temperatures fitted to deep networks and
of regularised linear models), β ~ N(0, 0.5²) per axis (class priors within a factor e of the classifier's for
most of its mass). P = K parameters.
"""

from __future__ import annotations

import numpy as np

from .base import CalibrationMap, map_model, register, sum_zero_basis

__all__ = ["temperature_map", "INVERSE_TEMPERATURE_PRIOR", "PRIOR_SHIFT_SD"]

#: log a = −log T ~ N(mean, sd²).
INVERSE_TEMPERATURE_PRIOR = (0.0, 0.75)
#: The prior-shift coordinates' prior sd (log ratio of class priors).
PRIOR_SHIFT_SD = 0.5


def temperature_map(k) -> CalibrationMap:
    """The map for K classes: θ = (a, β (K−1)); the prior is on u = (log a, β)."""
    q = sum_zero_basis(k)
    mean = np.r_[INVERSE_TEMPERATURE_PRIOR[0], np.zeros(k - 1)]
    sd = np.r_[INVERSE_TEMPERATURE_PRIOR[1], np.full(k - 1, PRIOR_SHIFT_SD)]

    def design(log_probs):
        n = log_probs.shape[0]
        return np.concatenate([log_probs[:, :, None], np.broadcast_to(q, (n, k, k - 1))], axis=2)

    def logits(theta, log_probs):
        return theta[:, None, None, 0] * log_probs[None] + (theta[:, 1:] @ q.T)[:, None, :]

    return CalibrationMap(mean, sd, design, logits)


register(map_model("temperature", temperature_map,
                   about="temperature scaling with a prior shift: softmax(a·log p + b), Bayesian (K parameters)"))
