r"""Asymmetric Gaussian distribution (Bennett 2003, eq. 2).

.. math::
    p(x \mid \theta, \sigma_l, \sigma_r) = \frac{2}{\sqrt{2\pi}(\sigma_l + \sigma_r)}
    \begin{cases} e^{-(x-\theta)^2 / 2\sigma_l^2} & x \le \theta \\
                  e^{-(x-\theta)^2 / 2\sigma_r^2} & x > \theta \end{cases}

=========  ========  =======================================  =====================
parameter  domain    meaning                                  prior
=========  ========  =======================================  =====================
mode       real      θ, the mode                              Normal(0.5, 1)
left       positive  σ_l, spread left of the mode             Gamma(2, rate 4)
right      positive  σ_r, spread right of the mode            Gamma(2, rate 4)
=========  ========  =======================================  =====================

scipy: the mixture of the half-normals θ − σ_l |Z| and θ + σ_r |Z| with
weights σ_l/(σ_l + σ_r) and σ_r/(σ_l + σ_r) (``scipy.stats.Mixture``), which
is this density. The initialiser uses Bennett's closed-form MLEs of σ_l and
σ_r for a fixed mode (eq. 4) at the sample median.

References
----------
P. N. Bennett (2003), "Using Asymmetric Distributions to Improve Text
Classifier Probability Estimates", SIGIR, eqs. 2 and 4.
"""

import numpy as np
from scipy import special, stats

from .base import Family, Param, gamma_logpdf, normal_logpdf

_LOG_2_OVER_SQRT_2PI = np.log(2.0) - 0.5 * np.log(2 * np.pi)


def bennett_gaussian_mle(x, mode):
    """Bennett (2003) eq. 4: MLEs (σ_l, σ_r) of the spreads for a fixed mode.

    Parameters
    ----------
    x : array, shape (N,)
    mode : float

    Returns
    -------
    (float, float)
        ``σ_l = sqrt((D_l + D_l^{2/3} D_r^{1/3}) / N)`` and
        ``σ_r = sqrt((D_r + D_r^{2/3} D_l^{1/3}) / N)``, with ``D_l`` and
        ``D_r`` the summed squared distances to the mode on each side (the
        stationary point of N log(σ_l + σ_r) + D_l/2σ_l² + D_r/2σ_r²); an
        empty side gets a small positive distance.
    """
    x = np.asarray(x, dtype=float)
    n = max(x.size, 1)
    floor = 1e-6 * n
    d_l = max(np.sum((x[x <= mode] - mode) ** 2), floor)
    d_r = max(np.sum((x[x > mode] - mode) ** 2), floor)
    return (np.sqrt((d_l + d_l ** (2 / 3) * d_r ** (1 / 3)) / n),
            np.sqrt((d_r + d_r ** (2 / 3) * d_l ** (1 / 3)) / n))


class AsymGauss(Family):
    name = "asymgauss"
    params = (Param("mode", "real"), Param("left", "positive"), Param("right", "positive"))
    support = "real"

    def _logpdf(self, x, mode, left, right):
        d = x - mode
        s = np.where(d <= 0, left, right)
        return _LOG_2_OVER_SQRT_2PI - np.log(left + right) - 0.5 * (d / s) ** 2

    def log_cdf_sf(self, theta, x):
        """Log CDF and log survival function, each (M, N), from the two half-normals."""
        mode, left, right = self._columns(theta)
        x = np.asarray(x, dtype=float)[None, :]
        w_l = left / (left + right)
        w_r = right / (left + right)
        d = x - mode
        with np.errstate(divide="ignore"):
            # below the mode: P(X ≤ x) = 2 w_l Φ(d/σ_l); above: P(X > x) = 2 w_r Φ(−d/σ_r)
            low_cdf = np.log(2 * w_l) + special.log_ndtr(np.minimum(d, 0) / left)
            high_sf = np.log(2 * w_r) + special.log_ndtr(-np.maximum(d, 0) / right)
            cdf = np.where(d <= 0, low_cdf, np.log1p(-np.exp(high_sf)))
            sf = np.where(d <= 0, np.log1p(-np.exp(low_cdf)), high_sf)
        return cdf, sf

    def scipy_dist(self, mode, left, right):
        mode, left, right = (float(np.ravel(v)[0]) for v in (mode, left, right))
        half = stats.make_distribution(stats.halfnorm)()
        return stats.Mixture([mode - left * half, mode + right * half],
                             weights=[left / (left + right), right / (left + right)])

    def mean(self, mode, left, right):
        return mode + np.sqrt(2 / np.pi) * (right - left)

    def initialize(self, x):
        x = np.asarray(x, dtype=float)
        mode = float(np.median(x))
        left, right = bennett_gaussian_mle(x, mode)
        return np.array([mode, max(left, 0.005), max(right, 0.005)])

    def _log_prior(self, mode, left, right):
        return normal_logpdf(mode, 0.5, 1.0) + gamma_logpdf(left, 2.0, 4.0) + gamma_logpdf(right, 2.0, 4.0)
