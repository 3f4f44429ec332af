"""Prevalence: the fraction of positives among the items (Welinder et al. 2013, §3: π of the data set)."""

from .registry import Metric, register


def prevalence(curves):
    """Positives / items per row, (M,)."""
    return curves.positives / curves.n_items


register(Metric(name="prevalence", label="prevalence", compute=prevalence,
                proportion=lambda c: (c.positives, c.n_items), better=None,
                about="fraction of positives among the items"))
