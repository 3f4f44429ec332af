"""Classify and count (CC) and adjusted classify and count (ACC) (Forman 2008; the baselines of Esuli et al.
2020, §6).

CC counts the unlabeled items the classifier calls positive (score ≥ a threshold: by default its own, 0.5
for probabilities and 0 otherwise). ACC corrects that count for the classifier's errors, p = (cc − fpr) /
(tpr − fpr) clipped to [0, 1], with the true and false positive rates at the same threshold measured on the
labeled items (or on a reference set). CC's interval resamples the unlabeled items (its sampling error only:
its bias, which is what ACC removes, is not in it); ACC's resamples each class of the labeled items
(``scipy.stats.bootstrap``, percentile).
"""

from __future__ import annotations

import numpy as np

from .base import (Method, PrevalenceEstimate, bootstrap_note, natural_threshold, pool_fraction, register,
                   stratified_bootstrap)

__all__ = ["classify_and_count", "adjusted_classify_and_count", "adjusted_fraction"]

#: Bootstrap resamples of CC and ACC.
N_RESAMPLES = 999


def classify_and_count(data, level, rng, threshold=None, n_resamples=N_RESAMPLES):
    """CC: the fraction of the pool called positive (labeled items count as labeled)."""
    from scipy import stats

    t = natural_threshold(data) if threshold is None else float(threshold)
    called = (data.unlabeled >= t).astype(float)
    if called.size < 2:
        lo = hi = pool_fraction(data, called.sum())
    else:
        res = stats.bootstrap((called,), np.mean, n_resamples=n_resamples, confidence_level=level,
                              method="percentile", vectorized=True, batch=max(1, 10_000_000 // called.size),
                              rng=rng)
        lo, hi = (pool_fraction(data, v * called.size) for v in (res.confidence_interval.low,
                                                                   res.confidence_interval.high))
    return PrevalenceEstimate("cc", pool_fraction(data, called.sum()), lo, hi, level,
                              "bootstrap percentile of the unlabeled items (sampling error only)",
                              {"threshold": t})


def adjusted_fraction(called_fraction, tpr, fpr):
    """ACC's (cc − fpr)/(tpr − fpr) clipped to [0, 1] (for tpr < fpr too: then the calls are informative
    reversed); the unadjusted fraction when tpr = fpr, where the calls say nothing of the prevalence."""
    if tpr == fpr:
        return float(called_fraction)
    return float(np.clip((called_fraction - fpr) / (tpr - fpr), 0.0, 1.0))


def adjusted_classify_and_count(data, level, rng, threshold=None, n_resamples=N_RESAMPLES):
    """ACC: CC on the unlabeled items corrected by the true and false positive rates of the labeled items (or of
    the reference set) at the same threshold.

    Where those rates are equal the classifier's calls carry no information about the prevalence: the estimate
    is CC's and its interval is [0, 1] (``details["defined"]`` False), never a bootstrap of a constant."""
    t = natural_threshold(data) if threshold is None else float(threshold)
    s, y = data.calibration_set("acc (its true and false positive rates)")
    cc = float(np.mean(data.unlabeled >= t)) if data.unlabeled.size else 0.0
    u = data.unlabeled.size

    def fraction(pos, neg):
        return pool_fraction(data, u * adjusted_fraction(cc, np.mean(pos >= t), np.mean(neg >= t)))

    tpr, fpr = float(np.mean(s[y == 1] >= t)), float(np.mean(s[y == 0] >= t))
    details = {"threshold": t, "tpr": tpr, "fpr": fpr, "defined": tpr != fpr}
    if tpr == fpr:
        return PrevalenceEstimate("acc", fraction(s[y == 1], s[y == 0]), 0.0, 1.0, level,
                                  "none: tpr = fpr at the threshold, so the calls say nothing of the prevalence",
                                  details)
    lo, hi = stratified_bootstrap(fraction, s, y, level, rng, n_resamples)
    return PrevalenceEstimate("acc", fraction(s[y == 1], s[y == 0]), lo, hi, level, bootstrap_note(lo), details)


register(Method("cc", "classify and count: the fraction called positive at the classifier's threshold",
                classify_and_count))
register(Method("acc", "adjusted classify and count: CC corrected by the labeled items' true/false positive rates",
                adjusted_classify_and_count))
