"""The labeled items' own fraction of positives, with a Jeffreys interval: what random labels alone say."""

from __future__ import annotations

from scipy import stats

from .base import Method, PrevalenceEstimate, register

__all__ = ["labeled_fraction"]


def labeled_fraction(data, level, rng):
    """k/n of the n labeled pool items with the Jeffreys interval Beta(k + ½, n − k + ½) (Brown, Cai & DasGupta
    2001); unbiased when the labeled items were drawn at random from the pool. NaN without labels."""
    n, k = int(data.labeled_value.size), int(data.labeled_value.sum())
    if n == 0:
        return PrevalenceEstimate("labeled", float("nan"), float("nan"), float("nan"), level, "Jeffreys")
    lo = 0.0 if k == 0 else float(stats.beta.ppf((1 - level) / 2, k + 0.5, n - k + 0.5))
    hi = 1.0 if k == n else float(stats.beta.ppf((1 + level) / 2, k + 0.5, n - k + 0.5))
    return PrevalenceEstimate("labeled", k / n, lo, hi, level, "Jeffreys")


register(Method("labeled", "the labeled items' fraction of positives (Jeffreys interval): random labels alone",
                labeled_fraction))
