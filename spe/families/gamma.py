r"""Gamma distribution on the positive model-space scores.

.. math::
    p(x \mid k, \vartheta) = \frac{x^{k-1} e^{-x/\vartheta}}{\Gamma(k)\,\vartheta^k},\qquad x > 0

=========  ========  ===============================  =======================
parameter  domain    meaning                          prior
=========  ========  ===============================  =======================
shape      positive  k                                Gamma(1.2, rate 0.02)
scale      positive  ϑ (scale, not rate)              Gamma(1.2, rate 1)
=========  ========  ===============================  =======================

scipy: ``scipy.stats.gamma(a=k, scale=ϑ)``. With model-space scores in
(0, 1], a component piled near the low end has k ≲ 1, a narrow component far
from 0 has a large k; the priors are broad on both. The paper's second most
used family (Welinder et al. 2013, §4.2, Fig. 1: a Gamma negative component).
"""

import numpy as np
from scipy import special, stats

from .base import Family, Param, gamma_logpdf


class Gamma(Family):
    name = "gamma"
    params = (Param("shape", "positive"), Param("scale", "positive"))
    support = "positive"

    def _logpdf(self, x, shape, scale):
        return (shape - 1) * np.log(x) - x / scale - special.gammaln(shape) - shape * np.log(scale)

    def log_cdf_sf(self, theta, x):
        """Log CDF and log survival function, each (M, N), from the regularised incomplete gamma functions."""
        shape, scale = self._columns(theta)
        z = np.maximum(np.asarray(x, dtype=float)[None, :], 0.0) / scale
        with np.errstate(divide="ignore"):
            return np.log(special.gammainc(shape, z)), np.log(special.gammaincc(shape, z))

    def scipy_dist(self, shape, scale):
        return stats.gamma(shape, scale=scale)

    def mean(self, shape, scale):
        return shape * scale

    def initialize(self, x):
        x = np.asarray(x, dtype=float)
        m, v = np.mean(x), max(np.var(x), 1e-6)
        return np.array([m * m / v, v / m])

    def _log_prior(self, shape, scale):
        return gamma_logpdf(shape, 1.2, 0.02) + gamma_logpdf(scale, 1.2, 1.0)
