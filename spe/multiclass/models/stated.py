r"""The classifier's probabilities as it states them: p(y = k | s) = s_k (for logits, their softmax).

No parameter: its evidence is the labels' probability under the stated probabilities, Π_i p(y_i | s_i). It is
not in the average (``score_model="stated"`` fits it alone): a model without uncertainty that wins the evidence
by chance — 20 labels that happen to agree with an over-confident network — gave intervals that missed the
truth (20 labels, 10 seeds, `benchmarks/multiclass.py`: accuracy interval hits 0.86 → 0.81, 0.6–0.7 on the
MultiNLI networks).
"""

from __future__ import annotations

import numpy as np

from .base import ClassModel, FittedClassModel, register

__all__ = ["stated_model"]


def _stated_logits(theta, log_probs):
    return np.broadcast_to(log_probs, (theta.shape[0], *log_probs.shape))


def stated_model(log_probs, labeled_index, labeled_class, draws, rng=None, reference=None):
    """The model fitted: M identical (empty) draws; log evidence Σ_i log p(y_i | s_i) over the pool's labeled
    items and the reference's (``reference``: (log-probabilities (R, K), classes (R,)) or None)."""
    loo = log_probs[labeled_index, labeled_class]
    evidence = float(np.sum(loo))
    if reference is not None:
        ref_log_probs, ref_class = reference
        evidence += float(np.sum(ref_log_probs[np.arange(ref_class.size), ref_class]))
    diagnostics = {"ess": float(draws), "pareto_k": 0.0, "proposal": "none (no parameter)", "n_params": 0}
    return FittedClassModel("stated", np.zeros((draws, 0)), np.full(draws, 1.0 / draws), _stated_logits,
                            evidence, loo, diagnostics)


register(ClassModel(name="stated", fit=stated_model, averaged=False,
                    about="the classifier's probabilities as stated (calibrated here; no parameter; not averaged)"))
