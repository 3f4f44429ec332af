r"""Fréchet distribution (extreme-value type II, right-skewed) on the positive model-space scores.

.. math::
    p(x \mid \alpha, s) = \frac{\alpha}{s} \Big(\frac{x}{s}\Big)^{-1-\alpha}
        e^{-(x/s)^{-\alpha}},\qquad x > 0

=========  ========  ======================================  ==========================
parameter  domain    meaning                                 prior
=========  ========  ======================================  ==========================
shape      positive  α (tail index)                          Gamma(2, rate 0.1)
scale      positive  s                                       Gamma(1.2, rate 1)
=========  ========  ======================================  ==========================

scipy: ``scipy.stats.invweibull(α, scale=s)`` (location fixed at 0, the low
end of the model space). Right-skewed with a polynomial upper tail
(Welinder et al. 2013, §4.2, Table 1 "f-r"). log X is a right-skewed Gumbel
with mode log s and scale 1/α, which gives the initialiser. The mean
s Γ(1 − 1/α) is infinite for α ≤ 1.
"""

import numpy as np
from scipy import special, stats

from .base import Family, Param, gamma_logpdf, log1mexp


class Frechet(Family):
    name = "frechet_r"
    params = (Param("shape", "positive"), Param("scale", "positive"))
    support = "positive"

    def _logpdf(self, x, shape, scale):
        lz = np.log(x) - np.log(scale)
        return np.log(shape) - np.log(scale) - (1 + shape) * lz - np.exp(-shape * lz)

    def log_cdf_sf(self, theta, x):
        """Log CDF and log survival function, each (M, N): log F = −(x/scale)^(−shape), log S = log(1 − F)."""
        shape, scale = self._columns(theta)
        with np.errstate(over="ignore", divide="ignore"):
            lz = np.log(np.maximum(np.asarray(x, dtype=float)[None, :], 0.0)) - np.log(scale)
            low = -np.exp(-shape * lz)
        return low, log1mexp(low)

    def scipy_dist(self, shape, scale):
        return stats.invweibull(shape, scale=scale)

    def mean(self, shape, scale):
        a = np.asarray(shape, dtype=float)
        with np.errstate(invalid="ignore"):
            return np.where(a > 1, scale * special.gamma(1 - 1 / np.maximum(a, 1 + 1e-12)), np.inf)

    def initialize(self, x):
        lx = np.log(np.clip(np.asarray(x, dtype=float), 1e-12, None))
        inv_shape = max(np.std(lx) * np.sqrt(6) / np.pi, 1e-3)
        return np.array([1 / inv_shape, np.exp(np.mean(lx) - np.euler_gamma * inv_shape)])

    def _log_prior(self, shape, scale):
        return gamma_logpdf(shape, 2.0, 0.1) + gamma_logpdf(scale, 1.2, 1.0)
