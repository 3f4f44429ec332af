r"""The joint model of several K-class classifiers that scored the same items (``spe compare``).

A Bayesian stacking of the classifiers' log-probabilities ``L_c`` (N, K), one per classifier c = 1..C, each
first multiplied by its own fitted inverse temperature ``s_c``:

.. math::
    p(y = k \mid s, θ) = \operatorname{softmax}_k\Big(\sum_c w_c s_c L_{ick} + \sum_c v_c [k = \hat y_{ic}]
    + b_k\Big),\qquad w = \frac{a}{C}\,\mathbf 1 + R γ,\quad v = R ν,\quad b = Q β,

``a`` the inverse temperature of the classifiers' geometric-mean ensemble (log a ~ N(0, 0.75²), as temperature
scaling's), ``γ`` the contrasts between their weights (``R``: the C × (C − 1) sum-zero basis, γ ~ N(0,
:data:`WEIGHT_CONTRAST_SD`²) per axis: one classifier alone, w = (1, 0), is γ ≈ 0.7 from the ensemble), ``ν``
the contrasts between their votes (ŷ_c the argmax of classifier c; ν ~ N(0, :data:`VOTE_CONTRAST_SD`²): where the
classifiers disagree, how much more often one is right than the ensemble says — zero where they agree) and
``b`` a prior shift (β ~ N(0, 0.5²)). It is a :class:`~spe.multiclass.models.base.CalibrationMap` (fitted by
:func:`~spe.multiclass.models.base.fit_map`), P = 2C + K − 2 parameters. The votes' contrasts keep the
disagreements' uncertainty in the posterior: few labeled items fall where two good classifiers disagree, and
the difference of their accuracies rests on those items.
"""

from __future__ import annotations

import numpy as np

from .models.base import CalibrationMap, fit_map, per_pool, sum_zero_basis
from .models.temperature import INVERSE_TEMPERATURE_PRIOR, PRIOR_SHIFT_SD

__all__ = ["JOINT_NAME", "WEIGHT_CONTRAST_SD", "VOTE_CONTRAST_SD", "joint_map", "fit_joint", "stacked_log_probs"]

#: The joint model's name in the tables of models.
JOINT_NAME = "joint"
#: Prior sd of each contrast between the classifiers' weights.
WEIGHT_CONTRAST_SD = 0.5
#: Prior sd of each contrast between the classifiers' votes (logit units).
VOTE_CONTRAST_SD = 0.5


def stacked_log_probs(scores) -> np.ndarray:
    """Every classifier's log-probabilities as one float32 array (N, K, C), what the joint draws read."""
    return np.stack([s.log_probs for s in scores], axis=2).astype(np.float32)


def joint_map(k, c, scales=None) -> CalibrationMap:
    """The stacking map of C classifiers over K classes: θ = (a, γ (C−1), ν (C−1), β (K−1)) on inputs
    (N, K, C), each classifier's log-probabilities first multiplied by its ``scales`` (C,) (default 1)."""
    qk, qc = sum_zero_basis(k), sum_zero_basis(c)
    scales = np.ones(c) if scales is None else np.asarray(scales, dtype=float)
    mean = np.r_[INVERSE_TEMPERATURE_PRIOR[0], np.zeros(c - 1), np.zeros(c - 1), np.zeros(k - 1)]
    sd = np.r_[INVERSE_TEMPERATURE_PRIOR[1], np.full(c - 1, WEIGHT_CONTRAST_SD), np.full(c - 1, VOTE_CONTRAST_SD),
               np.full(k - 1, PRIOR_SHIFT_SD)]

    def votes(x):
        """Each classifier's argmax as one-hot (n, K, C)."""
        return (x == x.max(axis=1, keepdims=True)).astype(x.dtype)

    pool_votes = per_pool(votes)  # the label draws' blocks read one pool's array

    def design(x):
        n = x.shape[0]
        scaled = x * scales
        return np.concatenate([scaled.mean(axis=2)[:, :, None], scaled @ qc, votes(x) @ qc,
                               np.broadcast_to(qk, (n, k, k - 1))], axis=2)

    def logits(theta, x):
        w = ((theta[:, :1] / c + theta[:, 1:c] @ qc.T) * scales).astype(x.dtype)  # (B, C)
        v = (theta[:, c:2 * c - 1] @ qc.T).astype(x.dtype)  # (B, C)
        z = np.moveaxis(x @ w.T + pool_votes(x) @ v.T, -1, 0)  # (B, N, K)
        return z + (theta[:, 2 * c - 1:] @ qk.T).astype(x.dtype)[:, None, :]

    return CalibrationMap(mean, sd, design, logits)


def fit_joint(stacked, labeled_index, labeled_class, *, draws, rng, scales=None):
    """The joint map's posterior draws given the labeled items: stacked (N, K, C) → FittedClassModel
    (``scales``: as :func:`joint_map`'s)."""
    _, k, c = stacked.shape
    labeled = np.asarray(stacked[labeled_index], dtype=float)  # the fit reads the labeled items only
    return fit_map(JOINT_NAME, joint_map(k, c, scales), labeled, np.arange(labeled.shape[0]), labeled_class,
                   draws=draws, rng=rng)
