r"""Log-normal distribution on the positive model-space scores.

.. math::
    p(x \mid \mu, \sigma) = \frac{1}{x\sigma\sqrt{2\pi}}
        \exp\!\Big(-\frac{(\log x - \mu)^2}{2\sigma^2}\Big),\qquad x > 0

=========  ========  ===================================  =====================
parameter  domain    meaning                              prior
=========  ========  ===================================  =====================
mu         real      μ, mean of log x                     Normal(−1, 2)
sigma      positive  σ, standard deviation of log x       Gamma(2, rate 2)
=========  ========  ===================================  =====================

scipy: ``scipy.stats.lognorm(s=σ, scale=exp(μ))``. Right-skewed, for a class
piled at the low end of the (0, 1] model-space range with a long upper tail
(Welinder et al. 2013, §4.2, Table 1 "ln").
"""

import numpy as np
from scipy import special, stats

from .base import Family, Param, gamma_logpdf, normal_logpdf

_LOG_SQRT_2PI = 0.5 * np.log(2 * np.pi)


class LogNormal(Family):
    name = "lognormal"
    params = (Param("mu", "real"), Param("sigma", "positive"))
    support = "positive"

    def _logpdf(self, x, mu, sigma):
        lx = np.log(x)
        z = (lx - mu) / sigma
        return -0.5 * z * z - lx - np.log(sigma) - _LOG_SQRT_2PI

    def log_cdf_sf(self, theta, x):
        """Log CDF and log survival function, each (M, N): log Φ(±(log x − μ)/σ)."""
        mu, sigma = self._columns(theta)
        with np.errstate(divide="ignore"):
            z = (np.log(np.maximum(np.asarray(x, dtype=float)[None, :], 0.0)) - mu) / sigma
        return special.log_ndtr(z), special.log_ndtr(-z)

    def scipy_dist(self, mu, sigma):
        return stats.lognorm(sigma, scale=np.exp(mu))

    def mean(self, mu, sigma):
        return np.exp(mu + 0.5 * sigma * sigma)

    def initialize(self, x):
        lx = np.log(np.clip(np.asarray(x, dtype=float), 1e-12, None))
        return np.array([np.mean(lx), max(np.std(lx), 0.02)])

    def _log_prior(self, mu, sigma):
        return normal_logpdf(mu, -1.0, 2.0) + gamma_logpdf(sigma, 2.0, 2.0)
