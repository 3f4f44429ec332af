r"""Student's t distribution truncated to the model-space score range [0, 1].

.. math::
    p(x \mid \mu, \sigma, \nu) = \frac{t_\nu((x-\mu)/\sigma)}
        {\sigma\,[T_\nu((1-\mu)/\sigma) - T_\nu(-\mu/\sigma)]},\qquad 0 \le x \le 1

=========  ========  ==========================================  =======================================
parameter  domain    meaning                                     prior
=========  ========  ==========================================  =======================================
loc        real      μ, centre of the untruncated t               Normal(0.5, 1)
scale      positive  σ, scale before truncation                   Gamma(2, rate 4)
df         positive  ν, degrees of freedom (tail weight)           Gamma(2, rate 0.1) (Juárez & Steel 2010)
=========  ========  ==========================================  =======================================

scipy: ``scipy.stats.truncate(StudentT(df=ν) · σ + μ, 0, 1)``. The paper's
truncated normal with heavier tails (Welinder et al. 2013, §4.2, Table 1
"t"): items the classifier scores far from the bulk of their class do not
drag the fit. ν → ∞ is the truncated normal.
"""

import numpy as np
from scipy import special, stats

from .base import Family, Param, gamma_logpdf, normal_logpdf


def _t_tails(df, t):
    """(T_ν(t), 1 − T_ν(t)) from one ``stdtr`` of the smaller tail, T_ν(−|t|), which is exact; the other is
    1 minus it (≥ ½, so nothing cancels)."""
    small = special.stdtr(df, -np.abs(t))
    lower = t <= 0
    return np.where(lower, small, 1.0 - small), np.where(lower, 1.0 - small, small)


def _t_mass(tails_a, tails_b, a):
    """T_ν(b) − T_ν(a) for b > a from both ends' tails (:func:`_t_tails`), in the nearer tail: a difference of
    survival functions when a > 0 (both ends in the upper tail), of CDFs otherwise."""
    (cdf_a, sf_a), (cdf_b, sf_b) = tails_a, tails_b
    return np.where(a > 0, sf_a - sf_b, cdf_b - cdf_a)


def _log_t_mass(df, a, b):
    """log(T_ν(b) − T_ν(a)) for b > a."""
    return np.log(_t_mass(_t_tails(df, a), _t_tails(df, b), a))


class TruncT(Family):
    name = "trunct"
    params = (Param("loc", "real"), Param("scale", "positive"), Param("df", "positive"))
    support = "unit"

    def _in_support(self, x):
        return (x >= 0) & (x <= 1)

    def _logpdf(self, x, loc, scale, df):
        z = (x - loc) / scale
        log_t = (special.gammaln((df + 1) / 2) - special.gammaln(df / 2) - 0.5 * np.log(df * np.pi)
                 - (df + 1) / 2 * np.log1p(z * z / df))
        return log_t - np.log(scale) - _log_t_mass(df, -loc / scale, (1 - loc) / scale)

    def log_cdf_sf(self, theta, x):
        """Log CDF and log survival function, each (M, N), from Student-t mass differences in the nearer tail
        (one ``stdtr`` per draw and score: both tails of t come from the smaller one)."""
        loc, scale, df = self._columns(theta)
        x = np.clip(np.asarray(x, dtype=float)[None, :], 0.0, 1.0)
        a, b, z = -loc / scale, (1 - loc) / scale, (x - loc) / scale
        tails_a, tails_b, tails_z = (_t_tails(df, t) for t in (a, b, z))
        with np.errstate(divide="ignore", invalid="ignore"):
            log_norm = np.log(_t_mass(tails_a, tails_b, a))
            return (np.log(_t_mass(tails_a, tails_z, a)) - log_norm,
                    np.log(_t_mass(tails_z, tails_b, z)) - log_norm)

    def scipy_dist(self, loc, scale, df):
        t = stats.make_distribution(stats.t)(df=float(np.ravel(df)[0]))
        return stats.truncate(t * float(np.ravel(scale)[0]) + float(np.ravel(loc)[0]), 0.0, 1.0)

    def mean(self, loc, scale, df):
        # ∫_a^b z t_ν(z) dz = C_ν ν/(ν−1) [(1 + a²/ν)^{−(ν−1)/2} − (1 + b²/ν)^{−(ν−1)/2}], finite on [a, b] for
        # any ν > 0 (ν = 1 is the limit; nudged off it)
        loc, scale, df = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (loc, scale, df)))
        df = np.where(np.abs(df - 1) < 1e-7, 1 + 1e-7, df)
        a, b = -loc / scale, (1 - loc) / scale
        log_c = special.gammaln((df + 1) / 2) - special.gammaln(df / 2) - 0.5 * np.log(df * np.pi)
        k = (df - 1) / 2
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            diff = np.exp(-k * np.log1p(a * a / df)) - np.exp(-k * np.log1p(b * b / df))
            ez = np.exp(log_c - _log_t_mass(df, a, b)) * df / (df - 1) * diff
            out = loc + scale * ez
        return np.clip(np.where(np.isfinite(out), out, np.clip(loc, 0, 1)), 0.0, 1.0)

    def initialize(self, x):
        x = np.asarray(x, dtype=float)
        q1, med, q3 = np.quantile(x, [0.25, 0.5, 0.75])
        return np.array([med, max((q3 - q1) / 1.35, 0.02), 10.0])

    def _log_prior(self, loc, scale, df):
        return normal_logpdf(loc, 0.5, 1.0) + gamma_logpdf(scale, 2.0, 4.0) + gamma_logpdf(df, 2.0, 0.1)
