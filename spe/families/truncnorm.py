r"""Normal distribution truncated to the model-space score range [0, 1].

.. math::
    p(x \mid \mu, \sigma) = \frac{\phi((x-\mu)/\sigma)}
        {\sigma\,[\Phi((1-\mu)/\sigma) - \Phi(-\mu/\sigma)]},\qquad 0 \le x \le 1

=========  ========  ==========================================  =====================
parameter  domain    meaning                                     prior
=========  ========  ==========================================  =====================
loc        real      μ, mean of the untruncated normal            Normal(0.5, 1)
scale      positive  σ, standard deviation before truncation     Gamma(2, rate 4)
=========  ========  ==========================================  =====================

scipy: ``scipy.stats.truncnorm(a=(0-μ)/σ, b=(1-μ)/σ, loc=μ, scale=σ)``.
The paper's most used family (Welinder et al. 2013, §4.2: in the top three for
48 of 78 class-conditionals), with the paper's prior (Normal on the mean,
Gamma on the standard deviation).
"""

import numpy as np
from scipy import special, stats

from .base import Family, Param, gamma_logpdf, normal_logpdf

_LOG_SQRT_2PI = 0.5 * np.log(2 * np.pi)


def _log_ndtr_diff(b, a):
    """log(Φ(b) − Φ(a)) for b > a, stable in both tails."""
    return _log_ndtr_diff_of_logs(a > 0, special.log_ndtr(b), special.log_ndtr(-b), special.log_ndtr(a),
                                  special.log_ndtr(-a))


def _log_ndtr_diff_of_logs(upper, lb, lmb, la, lma):
    """log(Φ(b) − Φ(a)) for b > a from log Φ(±b) and log Φ(±a), so that callers can share them.

    Where ``upper`` (a > 0, the upper tail) it is computed as Φ(−a) − Φ(−b), which does not cancel there.
    """
    lhi, llo = np.where(upper, lma, lb), np.where(upper, lmb, la)
    return lhi + np.log1p(-np.exp(np.minimum(llo - lhi, 0.0)))


class TruncNorm(Family):
    name = "truncnorm"
    params = (Param("loc", "real"), Param("scale", "positive"))
    support = "unit"

    def _in_support(self, x):
        return (x >= 0) & (x <= 1)

    def _logpdf(self, x, loc, scale):
        z = (x - loc) / scale
        return -0.5 * z * z - _LOG_SQRT_2PI - np.log(scale) - _log_ndtr_diff(
            (1 - loc) / scale, -loc / scale
        )

    def log_cdf_sf(self, theta, x):
        """Log CDF and log survival function, each (M, N), from stable log-Φ differences (scipy's
        truncnorm.logcdf recurses without end for some far-tail parameters)."""
        loc, scale = self._columns(theta)
        x = np.clip(np.asarray(x, dtype=float)[None, :], 0.0, 1.0)
        a, b, z = -loc / scale, (1 - loc) / scale, (x - loc) / scale
        with np.errstate(divide="ignore", invalid="ignore"):
            norm = _log_ndtr_diff(b, a)
            # _log_ndtr_diff(z, a) and _log_ndtr_diff(b, z), with log Φ(±z) computed once for both: the
            # (M, N) log Φ calls are most of the cost; those of a and b are per row
            lz, lmz = special.log_ndtr(z), special.log_ndtr(-z)
            la, lma, lb, lmb = (special.log_ndtr(v) for v in (a, -a, b, -b))
            cdf = _log_ndtr_diff_of_logs(a > 0, lz, lmz, la, lma)
            sf = _log_ndtr_diff_of_logs(z > 0, lb, lmb, lz, lmz)
            return cdf - norm, sf - norm

    def scipy_dist(self, loc, scale):
        return stats.truncnorm((0 - loc) / scale, (1 - loc) / scale, loc=loc, scale=scale)

    def mean(self, loc, scale):
        # μ + σ (φ(α) − φ(β)) / (Φ(β) − Φ(α)), stable for any (μ, σ) importance draws can reach (scipy's
        # truncnorm.mean raises OverflowError for extreme ones). Reflect so that μ ≤ 1/2, then β > 0; when
        # α > 0 too (all mass in the upper tail), divide through by the upper-tail probability Q(α), whose
        # Mills ratio φ(α)/Q(α) = √(2/π)/erfcx(α/√2) is exact in the far tail.
        loc, scale = np.broadcast_arrays(np.asarray(loc, dtype=float), np.asarray(scale, dtype=float))
        flip = loc > 0.5
        m = np.where(flip, 1 - loc, loc)
        a, b = -m / scale, (1 - m) / scale
        with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
            log_mass = _log_ndtr_diff(b, a)
            direct = (np.exp(-0.5 * a * a - _LOG_SQRT_2PI - log_mass) - np.exp(-0.5 * b * b - _LOG_SQRT_2PI - log_mass))
            aa = np.maximum(a, 0.0)
            mills_a = np.sqrt(2 / np.pi) / special.erfcx(aa / np.sqrt(2))
            mills_b = np.sqrt(2 / np.pi) / special.erfcx(b / np.sqrt(2))
            q_ratio = np.exp(special.log_ndtr(-b) - special.log_ndtr(-aa))  # Q(β)/Q(α) < 1
            tail = (mills_a - mills_b * q_ratio) / (1 - q_ratio)
            ratio = np.where(a > 0, tail, direct)
            out = m + scale * ratio
        out = np.clip(np.where(np.isfinite(out), out, np.clip(m, 0, 1)), 0.0, 1.0)
        return np.where(flip, 1 - out, out)

    def initialize(self, x):
        x = np.asarray(x, dtype=float)
        return np.array([np.mean(x), max(np.std(x), 0.02)])

    def _log_prior(self, loc, scale):
        return normal_logpdf(loc, 0.5, 1.0) + gamma_logpdf(scale, 2.0, 4.0)
