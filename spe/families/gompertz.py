r"""Gompertz distribution on the positive model-space scores.

.. math::
    p(x \mid c, b) = \frac{c}{b}\, e^{x/b}\, \exp\!\big(-c\,(e^{x/b} - 1)\big),\qquad x \ge 0

=========  ========  ======================================  ==========================
parameter  domain    meaning                                 prior
=========  ========  ======================================  ==========================
shape      positive  c                                       log c ~ Normal(0, 5)
scale      positive  b                                       Gamma(2, rate 4)
=========  ========  ======================================  ==========================

scipy: ``scipy.stats.gompertz(c, scale=b)``. Its hazard (c/b) e^{x/b} grows
exponentially, so for small c it is left-skewed with a sharp upper edge: a
positive class packed against the top of the range (Welinder et al. 2013,
§4.2, Table 1 "gz"). With E ~ Exponential(1), X = b log(1 + E/c); for
small c, X ≈ b (log E − log c), a left-skewed Gumbel, which gives the
initialiser (mean ≈ b(−γ − log c), variance ≈ π²b²/6). The mean is
b e^{c} E₁(c) (E₁ the exponential integral).
"""

import numpy as np
from scipy import special, stats

from .base import Family, Param, gamma_logpdf, log1mexp, normal_logpdf


class Gompertz(Family):
    name = "gompertz"
    params = (Param("shape", "positive"), Param("scale", "positive"))
    support = "positive"

    def _in_support(self, x):
        return x >= 0

    def _logpdf(self, x, shape, scale):
        z = x / scale
        return np.log(shape) - np.log(scale) + z - shape * np.expm1(z)

    def log_cdf_sf(self, theta, x):
        """Log CDF and log survival function, each (M, N): log S = −c (e^{x/b} − 1), log F = log(1 − S)."""
        shape, scale = self._columns(theta)
        with np.errstate(over="ignore"):
            high = -shape * np.expm1(np.maximum(np.asarray(x, dtype=float)[None, :], 0.0) / scale)
        return log1mexp(high), high

    def scipy_dist(self, shape, scale):
        return stats.gompertz(shape, scale=scale)

    def mean(self, shape, scale):
        c = np.asarray(shape, dtype=float)
        with np.errstate(over="ignore", invalid="ignore"):
            small = np.exp(np.minimum(c, 50.0)) * special.exp1(np.minimum(c, 50.0))
            large = (1 - 1 / c + 2 / c**2 - 6 / c**3 + 24 / c**4) / c  # asymptotic e^c E1(c), c > 50
        return scale * np.where(c <= 50.0, small, large)

    def initialize(self, x):
        x = np.asarray(x, dtype=float)
        scale = max(np.std(x) * np.sqrt(6) / np.pi, 0.005)
        shape = float(np.clip(np.exp(-np.euler_gamma - np.mean(x) / scale), 1e-12, 10.0))
        return np.array([shape, scale])

    def _log_prior(self, shape, scale):
        log_c = np.log(shape)
        return normal_logpdf(log_c, 0.0, 5.0) - log_c + gamma_logpdf(scale, 2.0, 4.0)
