r"""Bayesian Dirichlet calibration (Kull et al., NeurIPS 2019), shrunk toward temperature scaling.

.. math::
    z_{ik} = a\, L_{ik} + \sum_j D_{kj} L_{ij} + b_k,\qquad b = Q β,

the map that is exact when each class's probability vectors are Dirichlet-distributed (Kull et al., §3). The
K² entries of D get the prior N(0, 0.1²), so 20 labels move them little: the map is temperature scaling with a
prior shift until the labels show the classes confused in a structured way (Kull et al. regularise the
off-diagonal entries for the same reason, ODIR). Fitted for K ≤ :data:`MAX_CLASSES` (P = K² + K parameters).
"""

from __future__ import annotations

import numpy as np

from .base import CalibrationMap, map_model, register, sum_zero_basis
from .temperature import INVERSE_TEMPERATURE_PRIOR, PRIOR_SHIFT_SD

__all__ = ["dirichlet_map", "MATRIX_SD", "MAX_CLASSES"]

#: The prior sd of each entry of D.
MATRIX_SD = 0.1
#: Largest K fitted (K² + K parameters).
MAX_CLASSES = 10


def dirichlet_map(k) -> CalibrationMap:
    """The map for K classes: θ = (a, D (K², row-major), β (K−1))."""
    q = sum_zero_basis(k)
    mean = np.r_[INVERSE_TEMPERATURE_PRIOR[0], np.zeros(k * k + k - 1)]
    sd = np.r_[INVERSE_TEMPERATURE_PRIOR[1], np.full(k * k, MATRIX_SD), np.full(k - 1, PRIOR_SHIFT_SD)]

    def design(log_probs):
        n = log_probs.shape[0]
        cross = np.einsum("kl,nj->nklj", np.eye(k), log_probs).reshape(n, k, k * k)
        return np.concatenate([log_probs[:, :, None], cross, np.broadcast_to(q, (n, k, k - 1))], axis=2)

    def logits(theta, log_probs):
        d = theta[:, 1:1 + k * k].reshape(-1, k, k)
        return (theta[:, None, None, 0] * log_probs[None] + np.einsum("bkj,nj->bnk", d, log_probs)
                + (theta[:, 1 + k * k:] @ q.T)[:, None, :])

    return CalibrationMap(mean, sd, design, logits)


register(map_model("dirichlet", dirichlet_map, applies=lambda k: k <= MAX_CLASSES,
                   about=f"Dirichlet calibration, a K × K map shrunk toward temperature scaling "
                         f"(K ≤ {MAX_CLASSES})"))
