r"""Top-label recalibration (Platt scaling of the predicted class's confidence; Gupta & Ramdas 2022, "top-label
calibration"): how often the argmax is right is recalibrated on its own, the other classes keep their stated
proportions.

.. math::
    p(y = \hat y \mid s) = σ\big(α + β \operatorname{logit} c(s)\big),\qquad
    p(y = k \mid s) = \big(1 - p(y = \hat y \mid s)\big)\, \frac{s_k}{1 - c(s)}\quad (k ≠ \hat y),

with c(s) the stated confidence of the predicted class ŷ. As a softmax map: z_ŷ = α + β logit c, z_k = log s_k −
log(1 − c) (an offset). Temperature scaling ties the accuracy to how sharp every class's probability is; this
model reads the accuracy off the confidence alone, where a classifier's temperature misfits (on MultiNLI's IRM
network, temperature scaling fitted to every label still errs 0.037 in accuracy). Priors: log β ~ N(0, 0.75²)
(as the temperature's), α ~ N(0, 0.5²). P = 2 parameters.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .base import CalibrationMap, map_model, per_pool, register
from .temperature import INVERSE_TEMPERATURE_PRIOR

__all__ = ["top_label_map", "top_label_parts", "top_label_logit_parts", "OFFSET_SD"]

#: The prior sd of α, the shift of the correctness log-odds.
OFFSET_SD = 0.5


def top_label_parts(log_probs):
    """The predicted class as a one-hot mask (n, K), log(1 − c) (n,) and logit c (n,), c the stated confidence of
    the predicted class, from log-probabilities L (n, K)."""
    predicted = np.argmax(log_probs, axis=1)
    top = np.eye(log_probs.shape[1], dtype=bool)[predicted]
    rest = special.logsumexp(np.where(top, -np.inf, log_probs), axis=1)
    return top, rest, log_probs[np.arange(log_probs.shape[0]), predicted] - rest


@per_pool
def top_label_logit_parts(log_probs):
    """What a top-label map's logits need of a pool, in its dtype, computed once per pool: the predicted class's
    mask (N, K), the other classes' logits log s_k − log(1 − c) (N, K; 0 at the predicted class) and logit c (N,)."""
    top, rest, logit_c = top_label_parts(log_probs)
    base = np.where(top, 0.0, log_probs - rest[:, None]).astype(log_probs.dtype)
    return top, base, logit_c.astype(log_probs.dtype)


def top_label_map(k) -> CalibrationMap:
    """The map for K classes: θ = (β, α); the prior is on u = (log β, α)."""
    mean = np.array([INVERSE_TEMPERATURE_PRIOR[0], 0.0])
    sd = np.array([INVERSE_TEMPERATURE_PRIOR[1], OFFSET_SD])

    def design(log_probs):
        top, _, logit_c = top_label_parts(log_probs)
        return np.stack([top * logit_c[:, None], top.astype(float)], axis=2)

    def offset(log_probs):
        return top_label_logit_parts(log_probs)[1]

    def logits(theta, log_probs):
        top, base, logit_c = top_label_logit_parts(log_probs)
        z_top = theta[:, :1].astype(log_probs.dtype) * logit_c[None, :] + theta[:, 1:2].astype(log_probs.dtype)
        return np.where(top[None], z_top[:, :, None], base[None])

    return CalibrationMap(mean, sd, design, logits, offset)


register(map_model("top-label", top_label_map,
                   about="Platt scaling of the predicted class's confidence, the other classes as stated "
                         "(2 parameters)"))
