r"""Bayesian vector scaling with a prior-shift term (Guo et al. 2017, §4.2), shrunk toward temperature scaling.

.. math::
    z_{ik} = (a + d_k)\, L_{ik} + b_k,\qquad d = Q δ,\quad b = Q β,

one inverse temperature per class around a common one. Priors as :mod:`.temperature`'s for a and β, and
δ ~ N(0, 0.2²) per axis: the classes' temperatures differ by tens of percent at most unless the labels say
more. P = 2K − 1 parameters.
"""

from __future__ import annotations

import numpy as np

from .base import CalibrationMap, map_model, register, sum_zero_basis
from .temperature import INVERSE_TEMPERATURE_PRIOR, PRIOR_SHIFT_SD

__all__ = ["vector_map", "CLASS_TEMPERATURE_SD"]

#: The per-class inverse temperatures' deviations' prior sd.
CLASS_TEMPERATURE_SD = 0.2


def vector_map(k) -> CalibrationMap:
    """The map for K classes: θ = (a, δ (K−1), β (K−1))."""
    q = sum_zero_basis(k)
    mean = np.r_[INVERSE_TEMPERATURE_PRIOR[0], np.zeros(2 * (k - 1))]
    sd = np.r_[INVERSE_TEMPERATURE_PRIOR[1], np.full(k - 1, CLASS_TEMPERATURE_SD), np.full(k - 1, PRIOR_SHIFT_SD)]

    def design(log_probs):
        n = log_probs.shape[0]
        return np.concatenate([log_probs[:, :, None], log_probs[:, :, None] * q[None],
                               np.broadcast_to(q, (n, k, k - 1))], axis=2)

    def logits(theta, log_probs):
        scale = theta[:, :1] + theta[:, 1:k] @ q.T
        return scale[:, None, :] * log_probs[None] + (theta[:, k:] @ q.T)[:, None, :]

    return CalibrationMap(mean, sd, design, logits)


register(map_model("vector", vector_map,
                   about="vector scaling with a prior shift: one temperature per class around a common one "
                         "(2K − 1 parameters)"))
