"""The labeled items' own fraction of positives, with a Jeffreys interval: what random labels alone say."""

from __future__ import annotations

from ..baselines import labeled_only
from .base import Method, PrevalenceEstimate, register

__all__ = ["labeled_fraction"]


def labeled_fraction(data, level, rng):
    """k/n of the n labeled pool items with the Jeffreys interval Beta(k + ½, n − k + ½) (Brown, Cai & DasGupta
    2001); unbiased when the labeled items were drawn at random from the pool. NaN without labels."""
    if data.labeled_value.size == 0:
        return PrevalenceEstimate("labeled", float("nan"), float("nan"), float("nan"), level, "Jeffreys")
    i = labeled_only(data.scores, data.labeled_index, data.labeled_value, level=level, rng=rng).prevalence()
    return PrevalenceEstimate("labeled", i.mean, i.lo, i.hi, level, "Jeffreys")


register(Method("labeled", "the labeled items' fraction of positives (Jeffreys interval): random labels alone",
                labeled_fraction))
