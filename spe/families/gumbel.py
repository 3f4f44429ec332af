r"""Right- and left-skewed Gumbel distributions (extreme-value type I) on the model-space scores.

.. math::
    p_r(x \mid \mu, \beta) = \tfrac{1}{\beta} e^{-z - e^{-z}},\qquad
    p_l(x \mid \mu, \beta) = \tfrac{1}{\beta} e^{z - e^{z}},\qquad z = (x - \mu)/\beta

=========  ========  ===================================  =====================
parameter  domain    meaning                              prior
=========  ========  ===================================  =====================
loc        real      μ, the mode                          Normal(0.5, 1)
scale      positive  β                                    Gamma(2, rate 4)
=========  ========  ===================================  =====================

scipy: ``scipy.stats.gumbel_r`` / ``gumbel_l`` (loc=μ, scale=β). The
right-skewed one has the long tail above the mode (a negative class whose
hardest items reach up into the positives), the left-skewed one below it (a
positive class near the top of the range); Welinder et al. 2013, §4.2,
Table 1 "g-r", "g-l". The initialiser matches the mean and variance
(mean μ ± γβ, variance π²β²/6, γ Euler's constant).
"""

import numpy as np
from scipy import stats

from .base import Family, Param, gamma_logpdf, log1mexp, normal_logpdf


class GumbelR(Family):
    name = "gumbel_r"
    params = (Param("loc", "real"), Param("scale", "positive"))
    support = "real"
    sign = 1.0  # +1: long tail to the right; −1: to the left

    def _logpdf(self, x, loc, scale):
        z = self.sign * (x - loc) / scale
        return -np.log(scale) - z - np.exp(-z)

    def log_cdf_sf(self, theta, x):
        """Log CDF and log survival function, each (M, N): with z = ±(x − loc)/scale, the right-skewed
        Gumbel has log F = −e^{−z} and log S = log(1 − e^{−e^{−z}}); the left-skewed one the two swapped."""
        loc, scale = self._columns(theta)
        z = self.sign * (np.asarray(x, dtype=float)[None, :] - loc) / scale
        with np.errstate(over="ignore", divide="ignore"):
            low = -np.exp(-z)  # log P(Z ≤ z) of the right-skewed Gumbel
            high = log1mexp(low)
        return (low, high) if self.sign > 0 else (high, low)

    def scipy_dist(self, loc, scale):
        return (stats.gumbel_r if self.sign > 0 else stats.gumbel_l)(loc=loc, scale=scale)

    def mean(self, loc, scale):
        return loc + self.sign * np.euler_gamma * scale

    def initialize(self, x):
        x = np.asarray(x, dtype=float)
        scale = max(np.std(x) * np.sqrt(6) / np.pi, 0.01)
        return np.array([np.mean(x) - self.sign * np.euler_gamma * scale, scale])

    def _log_prior(self, loc, scale):
        return normal_logpdf(loc, 0.5, 1.0) + gamma_logpdf(scale, 2.0, 4.0)


class GumbelL(GumbelR):
    name = "gumbel_l"
    sign = -1.0
