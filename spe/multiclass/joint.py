r"""The joint model of several K-class classifiers that scored the same items (``spe compare``).

A Bayesian stacking of the classifiers' log-probabilities ``L_c`` (N, K), one per classifier c = 1..C:

.. math::
    p(y = k \mid s, θ) = \operatorname{softmax}_k\Big(\sum_c w_c L_{ick} + b_k\Big),\qquad
    w = \frac{a}{C}\,\mathbf 1 + R γ,\quad b = Q β,

``a`` the inverse temperature of the classifiers' geometric-mean ensemble (log a ~ N(0, 0.75²), as temperature
scaling's), ``γ`` the contrasts between their weights (``R``: the C × (C − 1) sum-zero basis, γ ~ N(0,
:data:`WEIGHT_CONTRAST_SD`²) per axis: one classifier alone, w = (1, 0), is γ ≈ 0.7 from the ensemble) and ``b`` a
prior shift (β ~ N(0, 0.5²)). It is a :class:`~spe.multiclass.models.base.CalibrationMap` (fitted by
:func:`~spe.multiclass.models.base.fit_map`), P = C + K − 1 parameters. Each classifier's own score models
(those :func:`spe.evaluate` fits) are the other candidates (:func:`classifier_view`); all are averaged by their
evidence p(Y_L | scores), so the labels decide whether the classifiers together say more than the best alone
(the binary ``spe compare``'s design, :mod:`spe.comparison`, for K classes).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .models.base import CalibrationMap, fit_map, sum_zero_basis
from .models.temperature import INVERSE_TEMPERATURE_PRIOR, PRIOR_SHIFT_SD

__all__ = ["JOINT_NAME", "WEIGHT_CONTRAST_SD", "joint_map", "fit_joint", "classifier_view", "stacked_log_probs"]

#: The joint model's name in the tables of models.
JOINT_NAME = "joint"
#: Prior sd of each contrast between the classifiers' weights.
WEIGHT_CONTRAST_SD = 0.5


def stacked_log_probs(scores) -> np.ndarray:
    """Every classifier's log-probabilities as one float32 array (N, K, C), what the joint draws read."""
    return np.stack([s.log_probs for s in scores], axis=2).astype(np.float32)


def joint_map(k, c, scales=None) -> CalibrationMap:
    """The stacking map of C classifiers over K classes: θ = (a, γ (C−1), β (K−1)) on inputs (N, K, C), each
    classifier's log-probabilities first multiplied by its ``scales`` (C,) (default 1)."""
    qk, qc = sum_zero_basis(k), sum_zero_basis(c)
    scales = np.ones(c) if scales is None else np.asarray(scales, dtype=float)
    mean = np.r_[INVERSE_TEMPERATURE_PRIOR[0], np.zeros(c - 1), np.zeros(k - 1)]
    sd = np.r_[INVERSE_TEMPERATURE_PRIOR[1], np.full(c - 1, WEIGHT_CONTRAST_SD), np.full(k - 1, PRIOR_SHIFT_SD)]

    def design(x):
        n = x.shape[0]
        x = x * scales
        return np.concatenate([x.mean(axis=2)[:, :, None], x @ qc, np.broadcast_to(qk, (n, k, k - 1))], axis=2)

    def logits(theta, x):
        w = ((theta[:, :1] / c + theta[:, 1:c] @ qc.T) * scales).astype(x.dtype)  # (B, C)
        z = np.moveaxis(x @ w.T, -1, 0)  # (B, N, K)
        return z + (theta[:, c:] @ qk.T).astype(x.dtype)[:, None, :]

    return CalibrationMap(mean, sd, design, logits)


def fit_joint(stacked, labeled_index, labeled_class, *, draws, rng, scales=None):
    """The joint map's posterior draws given the labeled items: stacked (N, K, C) → FittedClassModel
    (``scales``: as :func:`joint_map`'s)."""
    _, k, c = stacked.shape
    labeled = np.asarray(stacked[labeled_index], dtype=float)  # the fit reads the labeled items only
    return fit_map(JOINT_NAME, joint_map(k, c, scales), labeled, np.arange(labeled.shape[0]), labeled_class, draws=draws,
                   rng=rng)


def classifier_view(fitted, position, name):
    """One classifier's own fitted model read from the stacked inputs (N, K, C): the same draws and evidence,
    named ``"NAME: model"``."""
    own = fitted.logits

    def logits(theta, x):
        return own(theta, x[..., position])

    return dataclasses.replace(fitted, name=f"{name}: {fitted.name}", logits=logits)
