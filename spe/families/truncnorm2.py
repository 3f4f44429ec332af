r"""Two-component mixture of normals truncated to the model-space range [0, 1].

.. math::
    p(x \mid w, \mu_1, \sigma_1, \delta, \sigma_2) =
        w\, \mathrm{TN}(x \mid \mu_1, \sigma_1) + (1 - w)\, \mathrm{TN}(x \mid \mu_1 + \delta, \sigma_2)

with TN the normal truncated to [0, 1] (:mod:`.truncnorm`).

=========  ========  ============================================  =====================
parameter  domain    meaning                                       prior
=========  ========  ============================================  =====================
weight     unit      w, weight of the lower component              Beta(2, 2)
loc        real      μ₁, mean of the lower (untruncated) normal     Normal(0.5, 1)
scale      positive  σ₁                                             Gamma(2, rate 4)
gap        positive  δ = μ₂ − μ₁ > 0, so the components are ordered  Gamma(1.5, rate 6)
scale2     positive  σ₂                                             Gamma(2, rate 4)
=========  ========  ============================================  =====================

The richer class-conditional the SPE paper asks for where one family is not
enough (Welinder et al. 2013, §4.2 and Fig. 3C: "a mixture model would have
been a better fit" for classes whose scores are bimodal — a negative class
made of several kinds of items, each scored differently). The priors are
meant to keep it identifiable within the class: the ordering δ > 0 removes
the label switching of the two components, the Beta(2, 2) weight keeps both
components populated, and the
Gamma prior on δ (mean 0.25 of the score range) keeps them from drifting
apart to explain single outliers.

``families="auto"`` tries it for the negative class of scores that are not
probabilities (:data:`spe.models.mixture.select.DECISION_NEGATIVE_CANDIDATES`); any pair
can be named, e.g. ``families=("truncnorm2", "truncnorm")``. It fits SVMs
whose negative class is several digits; a wide second negative component
could also take the top scores, where the unlabeled scores cannot tell it
from the positives, and the mixture's identification at the top score
(:attr:`spe.models.Mixture.top`) rejects such fits. On probability scores
it degenerated to spikes at 0: these priors do not make it fully
identifiable. (Measured: the CHANGELOG's "Benchmark history".)

No single scipy.stats distribution is this mixture over draws;
``scipy_dist`` gives the ``scipy.stats.Mixture`` of one
parameter row, and the vectorised ``logcdf``/``logsf`` are the weighted sums
of the two truncated-normal components'.
"""

import numpy as np
from scipy import stats

from .base import Family, Param, beta_logpdf, gamma_logpdf, normal_logpdf
from .truncnorm import TruncNorm

_TN = TruncNorm()  # the one-component density (instances do not register; subclasses do)


class TruncNorm2(Family):
    name = "truncnorm2"
    params = (Param("weight", "unit"), Param("loc", "real"), Param("scale", "positive"),
              Param("gap", "positive"), Param("scale2", "positive"))
    support = "unit"

    def _in_support(self, x):
        return (x >= 0) & (x <= 1)

    def _logpdf(self, x, w, loc, scale, gap, scale2):
        return np.logaddexp(np.log(w) + _TN._logpdf(x, loc, scale),
                            np.log1p(-w) + _TN._logpdf(x, loc + gap, scale2))

    def scipy_dist(self, w, loc, scale, gap, scale2):
        """``scipy.stats.Mixture`` of two ``truncate(Normal)`` components, for one parameter row.

        scipy's mixtures take scalar parameters only, so the vectorised
        :meth:`logcdf` / :meth:`logsf` are the weighted sums of the two
        truncated-normal components' instead (the family tests check them
        against this distribution's density).

        Raises
        ------
        ValueError
            If the parameters are not one row.
        """
        p = [np.asarray(v, dtype=float) for v in (w, loc, scale, gap, scale2)]
        if any(v.size != 1 for v in p):
            raise ValueError("truncnorm2.scipy_dist takes one parameter row (scipy.stats.Mixture is scalar)")
        w, loc, scale, gap, scale2 = (float(v.reshape(-1)[0]) for v in p)
        comp = [stats.truncate(stats.Normal(mu=m, sigma=s), lb=0.0, ub=1.0)
                for m, s in ((loc, scale), (loc + gap, scale2))]
        return stats.Mixture(comp, weights=[w, 1.0 - w])

    def log_cdf_sf(self, theta, x):
        """Log CDF and log survival function, each (M, N): the components' weighted in log space."""
        w, loc, scale, gap, scale2 = self._columns(theta)
        c1, s1 = _TN.log_cdf_sf(np.hstack([loc, scale]), x)
        c2, s2 = _TN.log_cdf_sf(np.hstack([loc + gap, scale2]), x)
        with np.errstate(divide="ignore"):
            lw, l1mw = np.log(w), np.log1p(-w)
            return np.logaddexp(lw + c1, l1mw + c2), np.logaddexp(lw + s1, l1mw + s2)

    def mean(self, w, loc, scale, gap, scale2):
        return w * _TN.mean(loc, scale) + (1 - w) * _TN.mean(loc + gap, scale2)

    def initialize(self, x):
        """Split the scores at their median: each half initialises one component."""
        x = np.sort(np.asarray(x, dtype=float))
        lo, hi = x[: max(x.size // 2, 1)], x[x.size // 2:]
        m1, m2 = float(np.mean(lo)), float(np.mean(hi))
        return np.array([0.5, m1, max(float(np.std(lo)), 0.02), max(m2 - m1, 0.02), max(float(np.std(hi)), 0.02)])

    def _log_prior(self, w, loc, scale, gap, scale2):
        return (beta_logpdf(w, 2.0, 2.0) + normal_logpdf(loc, 0.5, 1.0) + gamma_logpdf(scale, 2.0, 4.0)
                + gamma_logpdf(gap, 1.5, 6.0) + gamma_logpdf(scale2, 2.0, 4.0))
