"""SPE's posterior prevalence: the fraction of positives among the N items under the posterior (labeled items
at their labels, the unknown labels drawn), with its equal-tailed credible interval (Welinder et al. 2013, §3;
:meth:`spe.Evaluation.prevalence`)."""

from __future__ import annotations

from .base import Method, PrevalenceEstimate, register

__all__ = ["spe_prevalence"]


def spe_prevalence(data, level, rng, draws=1000, **options):
    """:func:`spe.evaluate` on the pool and its labels (``options``: its keyword arguments), then its prevalence;
    a reference set is passed on as ``reference``."""
    from ..api import evaluate

    labels = (data.labeled_index, data.labeled_value)
    ev = evaluate(data.scores, labels, draws=draws, level=level, rng=rng, score_type=data.score_type,
                  reference=data.reference, **options)
    i = ev.prevalence()
    return PrevalenceEstimate("spe", i.mean, i.lo, i.hi, level, "credible (equal-tailed)",
                              {"warnings": list(ev.warnings)})


register(Method("spe", "SPE's posterior: the fraction of positives among the N items, credible interval",
                spe_prevalence))
