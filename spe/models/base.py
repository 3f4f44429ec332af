"""The one seam between score models and estimators.

A fitted score model is M weighted posterior draws plus a vectorised
function giving p(y = 1 | s) under each draw for any batch of scores
((M,) draws × (B,) scores → (M, B)), its diagnostics, and (where it has one)
its log evidence on the labeled items. Label draws, curves, bands and item
probabilities are computed from that alone (``spe.metrics``).
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
    details : dict
        Model-specific objects for callers that need them: the SPE mixture
        keeps ``mixture`` (:class:`~spe.models.Mixture`), ``space``
        (:class:`~spe.models.ScoreSpace`), ``u_map`` (P,; of the tempered
        posterior when the histogram check failed), ``u_map_untempered`` and
        ``histogram_check`` (:class:`~spe.check.HistogramCheck` or None),
        ``inference_data`` (NUTS: PyMC's record) and ``sampling_seconds``
        (wall time of the posterior sampling); an averaged
        model keeps ``models`` (its components) and ``weights`` (their
        posterior probabilities).
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
    details: dict = field(default_factory=dict)

    @property
    def elpd_loo(self) -> float | None:
        """Σ_i loo_i, the expected log predictive density of the labels (Vehtari et al. 2017), or None."""
        return None if self.loo is None else float(np.sum(self.loo))

    @property
    def n_draws(self) -> int:
        """M."""
        return self.draws.shape[0]

    def positive_probability(self, scores, rows=slice(None)):
        """p(y = 1 | s) for the selected draws: scores (B,) → (M_rows, B)."""
        return self.probability(self.draws[rows], np.asarray(scores, dtype=float))
