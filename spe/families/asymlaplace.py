r"""Asymmetric Laplace distribution (Bennett 2003, eq. 1).

.. math::
    p(x \mid \theta, \beta, \gamma) = \frac{\beta\gamma}{\beta+\gamma}
    \begin{cases} e^{-\beta(\theta - x)} & x \le \theta \\
                  e^{-\gamma(x - \theta)} & x > \theta \end{cases}

=========  ========  ===================================  =====================
parameter  domain    meaning                              prior
=========  ========  ===================================  =====================
mode       real      θ, the mode                          Normal(0.5, 1)
left       positive  β, inverse scale left of the mode    Gamma(1.2, rate 0.02)
right      positive  γ, inverse scale right of the mode   Gamma(1.2, rate 0.02)
=========  ========  ===================================  =====================

scipy: ``scipy.stats.laplace_asymmetric(kappa=sqrt(γ/β), loc=θ,
scale=1/sqrt(βγ))``. The initialiser uses Bennett's closed-form MLEs of β and
γ for a fixed mode (eq. 3) at the sample median.

References
----------
P. N. Bennett (2003), "Using Asymmetric Distributions to Improve Text
Classifier Probability Estimates", SIGIR, eqs. 1 and 3.
"""

import numpy as np
from scipy import stats

from .base import Family, Param, gamma_logpdf, log1mexp, normal_logpdf


def bennett_mle(x, mode):
    """Bennett (2003) eq. 3: MLEs (β, γ) of the rates for a fixed mode.

    Parameters
    ----------
    x : array, shape (N,)
    mode : float

    Returns
    -------
    (float, float)
        ``β = N / (D_l + sqrt(D_l D_r))`` and ``γ = N / (D_r + sqrt(D_l D_r))``
        where ``D_l`` and ``D_r`` are the summed distances to the mode on
        each side; empty sides are given a small positive distance.
    """
    x = np.asarray(x, dtype=float)
    n = x.size
    d_l = max(np.sum(mode - x[x <= mode]), 1e-3 * max(n, 1))
    d_r = max(np.sum(x[x > mode] - mode), 1e-3 * max(n, 1))
    root = np.sqrt(d_l * d_r)
    return n / (d_l + root), n / (d_r + root)


class AsymLaplace(Family):
    name = "asymlaplace"
    params = (Param("mode", "real"), Param("left", "positive"), Param("right", "positive"))
    support = "real"

    def _logpdf(self, x, mode, left, right):
        d = x - mode
        return np.log(left) + np.log(right) - np.log(left + right) - np.where(
            d <= 0, -left * d, right * d
        )

    def log_cdf_sf(self, theta, x):
        """Log CDF and log survival function, each (M, N): below the mode F(x) = γ/(β+γ) e^{−β(θ−x)}, above
        it S(x) = β/(β+γ) e^{−γ(x−θ)}, and the other tail as log(1 − that)."""
        mode, left, right = self._columns(theta)
        d = np.asarray(x, dtype=float)[None, :] - mode
        log_total = np.log(left + right)
        low = np.log(right) - log_total + left * np.minimum(d, 0.0)  # log F, exact for x ≤ mode
        high = np.log(left) - log_total - right * np.maximum(d, 0.0)  # log S, exact for x > mode
        return np.where(d <= 0, low, log1mexp(high)), np.where(d <= 0, log1mexp(low), high)

    def scipy_dist(self, mode, left, right):
        return stats.laplace_asymmetric(np.sqrt(right / left), loc=mode, scale=1 / np.sqrt(left * right))

    def mean(self, mode, left, right):
        return mode + 1 / right - 1 / left

    def initialize(self, x):
        x = np.asarray(x, dtype=float)
        mode = float(np.median(x))
        left, right = bennett_mle(x, mode)
        return np.array([mode, left, right])

    def _log_prior(self, mode, left, right):
        return (
            normal_logpdf(mode, 0.5, 1.0)
            + gamma_logpdf(left, 1.2, 0.02)
            + gamma_logpdf(right, 1.2, 0.02)
        )
