"""SLD (EMQ): Saerens, Latinne & Decaestecker's (2002) EM for the prevalence under prior shift, as in Esuli,
Molinari & Sebastiani (2020), Algorithm 1.

The posteriors Pr(y | x) come from a calibrator (default Platt, :mod:`spe.calibration`) fitted on a labeled
set L — the reference set when one is given (the classifier's validation set, whose prior may differ from the
pool's), else the pool's labeled items — whose prevalence is the training prior Pr_L(y). On the unlabeled
items U, SLD alternates Algorithm 1's line 11 (the prior as the mean posterior) and line 14 (every posterior
rescaled by the ratio of the new prior to the training prior, renormalised), stopping when the absolute
change of the priors (eq. 6) falls below 10⁻⁶ or after 1,000 iterations — the paper's rule and cap (§2).
Esuli et al. find it helps only when the posteriors are calibrated; with labels drawn from the pool itself
there is no prior shift between L and U, and SLD then mostly returns the calibrated posteriors' mean.

The interval resamples each class of L (``scipy.stats.bootstrap``, percentile), refitting the calibrator and
rerunning SLD each time.
"""

from __future__ import annotations

import numpy as np

from ..calibration import make
from .base import Method, PrevalenceEstimate, bootstrap_note, pool_fraction, register, stratified_bootstrap

__all__ = ["sld", "sld_prevalence", "TOLERANCE", "MAX_ITERATIONS"]

#: Esuli et al.'s (2020, §2) stopping rule: AE of the priors below this, or
TOLERANCE = 1e-6
#: this many iterations.
MAX_ITERATIONS = 1000
#: Bootstrap resamples of the interval (each refits the calibrator and reruns SLD).
N_RESAMPLES = 200


def sld(posteriors, training_prior, tolerance=TOLERANCE, max_iterations=MAX_ITERATIONS):
    """Esuli et al. (2020) Algorithm 1 for two classes.

    Parameters
    ----------
    posteriors : array, shape (U,)
        Pr⁽⁰⁾(y = 1 | x) of the unlabeled items, probabilities.
    training_prior : float
        Pr_L(y = 1), in (0, 1).
    tolerance, max_iterations
        The stopping rule: AE(p⁽ˢ⁻¹⁾, p⁽ˢ⁾) (eq. 6) < tolerance, or s = max_iterations.

    Returns
    -------
    (prior, adjusted posteriors (U,), iterations, converged)
        Pr_U(y = 1), the posteriors Pr⁽ˢ⁾(y = 1 | x), s, whether the rule's tolerance was met.
    """
    p1 = np.asarray(posteriors, dtype=float)
    p0 = 1.0 - p1
    prior0 = np.array([1 - training_prior, training_prior])
    prior, post = prior0, p1
    for s in range(1, max_iterations + 1):
        new_prior = np.array([1 - post.mean(), post.mean()])           # line 11
        ratio = new_prior / prior0                                      # line 13
        post = ratio[1] * p1 / (ratio[1] * p1 + ratio[0] * p0)          # line 14 (two classes)
        change = float(np.mean(np.abs(new_prior - prior)))              # eq. 6
        prior = new_prior
        if change < tolerance:
            return float(prior[1]), post, s, True
    return float(prior[1]), post, max_iterations, False


def sld_prevalence(data, level, rng, calibrator="platt", n_resamples=N_RESAMPLES):
    """SLD on the unlabeled items from ``calibrator``'s posteriors, fitted on the labeled (or reference) set."""
    s, y = data.calibration_set("sld (to learn its posteriors)")
    u = data.unlabeled
    if u.size == 0:  # every item is labeled: nothing to estimate
        known = pool_fraction(data, 0.0)
        return PrevalenceEstimate("sld", known, known, known, level, "none needed: every item is labeled",
                                  {"calibrator": calibrator, "iterations": 0, "converged": True,
                                   "training_prior": float(y.mean())})

    def run(pos, neg):
        scores = np.concatenate([pos, neg])
        labels = np.r_[np.ones(pos.size, int), np.zeros(neg.size, int)]
        cal = make(calibrator, score_type=data.score_type).fit(scores, labels, u)
        return sld(cal.positive_probability(u), labels.mean())

    prior, _, iterations, converged = run(s[y == 1], s[y == 0])
    lo, hi = stratified_bootstrap(lambda pos, neg: pool_fraction(data, u.size * run(pos, neg)[0]), s, y, level,
                                  rng, n_resamples)
    return PrevalenceEstimate("sld", pool_fraction(data, u.size * prior), lo, hi, level,
                              bootstrap_note(lo),
                              {"calibrator": calibrator, "iterations": iterations, "converged": converged,
                               "training_prior": float(y.mean())})


register(Method("sld", "SLD/EMQ (Saerens et al. 2002; Esuli et al. 2020 Alg. 1) on calibrated posteriors",
                sld_prevalence))
