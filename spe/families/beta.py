r"""Beta distribution on the model-space scores in (0, 1).

.. math::
    p(x \mid a, b) = \frac{x^{a-1} (1-x)^{b-1}}{B(a, b)},\qquad 0 < x < 1

=========  ========  ==========================  =====================
parameter  domain    meaning                     prior
=========  ========  ==========================  =====================
a          positive  first shape                 Gamma(1.2, rate 0.02)
b          positive  second shape                Gamma(1.2, rate 0.02)
=========  ========  ==========================  =====================

scipy: ``scipy.stats.beta(a, b)``. Suited to probability scores, which the
model space keeps inside (0, 1).
"""

import numpy as np
from scipy import special, stats

from .base import Family, Param, gamma_logpdf


class Beta(Family):
    name = "beta"
    params = (Param("a", "positive"), Param("b", "positive"))
    support = "unit"

    def _logpdf(self, x, a, b):
        return (a - 1) * np.log(x) + (b - 1) * np.log1p(-x) - special.betaln(a, b)

    def log_cdf_sf(self, theta, x):
        """Log CDF and log survival function, each (M, N), from one regularised incomplete beta function per
        draw and score: I_x(a, b) below the mean, I_{1−x}(b, a) above it (the smaller tail, so that neither
        cancels near 0 or 1), the other tail 1 minus it."""
        a, b = self._columns(theta)
        x = np.clip(np.asarray(x, dtype=float)[None, :], 0.0, 1.0)
        a, b, x = np.broadcast_arrays(a, b, x)
        lower = x <= a / (a + b)
        near = np.empty(x.shape)
        near[lower] = special.betainc(a[lower], b[lower], x[lower])
        upper = ~lower
        near[upper] = special.betainc(b[upper], a[upper], 1.0 - x[upper])
        with np.errstate(divide="ignore"):
            return np.log(np.where(lower, near, 1.0 - near)), np.log(np.where(lower, 1.0 - near, near))

    def scipy_dist(self, a, b):
        return stats.beta(a, b)

    def mean(self, a, b):
        return a / (a + b)

    def initialize(self, x):
        x = np.clip(np.asarray(x, dtype=float), 1e-6, 1 - 1e-6)
        m, v = np.mean(x), max(np.var(x), 1e-6)
        common = max(m * (1 - m) / v - 1, 0.1)
        return np.array([m * common, (1 - m) * common])

    def _log_prior(self, a, b):
        return gamma_logpdf(a, 1.2, 0.02) + gamma_logpdf(b, 1.2, 0.02)
