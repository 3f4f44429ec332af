"""The one seam between score models and estimators.

A fitted score model is M weighted posterior draws plus a vectorised
function giving p(y = 1 | s) under each draw for any batch of scores
((M,) draws × (B,) scores → (M, B)), its diagnostics, and (where it has one)
its log evidence on the labeled items. Label draws, curves, bands and item
probabilities are computed from that alone (``spe.performance``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

__all__ = ["FittedScoreModel"]


@dataclass
class FittedScoreModel:
    """Weighted posterior draws of a score model.

    Attributes
    ----------
    name : str
        Human-readable model name (e.g. ``"mixture(gamma,truncnorm)"``).
    draws : array, shape (M, P)
        Posterior draws of the model's parameters (the model's own
        parameterisation; for the mixture, unconstrained).
    weights : array, shape (M,)
        Normalised weights of the draws (sum to 1).
    probability : callable
        ``probability(draws (M', P), scores (B,)) -> (M', B)``: p(y = 1 | s)
        for scores in the classifier's own units.
    diagnostics : dict
        JSON-ready diagnostics (ESS, Pareto k̂, MAP restarts, …).
    param_names : list of str
        Names of the P parameter columns (constrained meaning).
    constrained_draws : array, shape (M, P)
        The draws in the parameters' natural units (π, locations, scales).
    log_evidence : float or None
        log p(Y_L | S): how probable the model found the observed labels
        given the scores (the quantity models are averaged by,
        :mod:`spe.models.average`).
    loo : array, shape (n,), or None
        Leave-one-out log predictive densities log p(y_i | S, Y_L without
        item i) of the n labeled items: how well the model predicts each
        labeled item it was not fitted on (reported; see
        :attr:`elpd_loo`).
    mixture_fit : spe.models.mixture.MixtureFit or None
        On the SPE mixture's fit only: its mixture, score space, MAP and
        histogram check.
    components : spe.models.average.Components or None
        On an averaged model only: the models averaged and their posterior
        probabilities.
    reference_log_evidence : float or None
        With a labeled reference set: log p(Y_ref | S_ref), how probable the
        model found the reference's labels (part of ``log_evidence``, which
        is then log p(Y_ref, Y_L | S_ref, S)); None without one.
    """

    name: str
    draws: np.ndarray
    weights: np.ndarray
    probability: Callable[[np.ndarray, np.ndarray], np.ndarray]
    diagnostics: dict = field(default_factory=dict)
    param_names: list = field(default_factory=list)
    constrained_draws: np.ndarray | None = None
    log_evidence: float | None = None
    loo: np.ndarray | None = None
    mixture_fit: object = None
    components: object = None
    reference_log_evidence: float | None = None

    @property
    def elpd_loo(self) -> float | None:
        """Σ_i loo_i, the expected log predictive density of the labels (Vehtari et al. 2017), or None."""
        return None if self.loo is None else float(np.sum(self.loo))

    @property
    def n_draws(self) -> int:
        """M."""
        return self.draws.shape[0]

    def positive_probability(self, scores, rows=slice(None)):
        """p(y = 1 | s) for the selected draws: scores (B,) in score units → (M_rows, B) probabilities.

        The one contract every score model meets (the mixture's own
        :meth:`spe.models.mixture.Mixture.class_probability` works in model
        space on unconstrained parameters instead)."""
        return self.probability(self.draws[rows], np.asarray(scores, dtype=float))
