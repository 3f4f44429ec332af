"""Every registered multiclass score model fitted, and averaged by its evidence on the labeled items.

Model k's posterior probability is ``w_k ∝ ρ_k p(Y_L | S, k)`` (Bayesian model averaging; Hoeting et al. 1999),
as :mod:`spe.models.average` does for one score. The prior model probabilities ρ are a dilution prior (George
2010, "Dilution priors: compensating for model space redundancy"): shared evenly by the hypotheses the models
stand for (:attr:`~.models.base.ClassModel.hypothesis`: the classifier's errors follow its stated probabilities
through a calibration map, or some of them come at any confidence, a ceiling), then evenly by each hypothesis's
models. Equal ρ would let the calibration maps — temperature, vector, Dirichlet and top-label scaling, which make
the same claim about how often the classifier errs — outvote the ceiling by their number: when every labeled
item is classified right, the maps' extrapolation from the stated confidence then took about 90% of the weight,
and on the over-confident networks every such accuracy interval ended above the truth (`benchmarks/multiclass.py`,
20 labels, 30 seeds: hits 0.0 in those 10 trials, 0.3 under the dilution prior; over all nine classifiers' 38 such
trials 0.74 and 0.82; docs/benchmarks.md).

The averaged model keeps M draws in all: each of the M slots picks a model by systematic resampling of ``w``, and
a model's slots resample its own weighted draws the same way, so every draw of the average weighs 1/M.

A model whose importance sampling is unreliable (Pareto k̂ > 0.7, :data:`spe.inference.importance.PARETO_K_GOOD`)
is left out of the average while another model's is reliable: its draws do not represent its posterior, and its
evidence — the mean of the same importance weights — is unreliable too. (Vector scaling over many classes, with
2K − 1 parameters, is the usual case: its Normal proposal around the MAP can miss the posterior, and the equally
weighted Laplace draws that :func:`~spe.inference.importance.importance_sample` then returns put some of the
average's draws on calibrations the labels rule out.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from ..inference.importance import PARETO_K_GOOD
from ..models.average import systematic_resample
from .models import CLASS_MODELS
from .models.base import CALIBRATION

__all__ = ["AveragedClassModel", "fit_class_models", "average_class_models", "reliable_models",
           "prior_model_probabilities", "averaged_log_evidence"]


@dataclass
class AveragedClassModel:
    """M equally weighted posterior draws of p(y | s) from one or more models.

    Attributes
    ----------
    segments : list of (FittedClassModel, array (m_k, P_k))
        Each model's resampled draws, in order; Σ m_k = M.
    models : list of FittedClassModel
        Every model fitted (also those given no draw).
    model_weights : array, shape (len(models),)
        Their posterior probabilities.
    """

    segments: list
    models: list
    model_weights: np.ndarray

    @property
    def n_draws(self) -> int:
        return sum(theta.shape[0] for _, theta in self.segments)

    def blocks(self, size):
        """The M draws in blocks of at most ``size``: a list of (start, model, θ (B, P)); a block's probabilities
        are ``model.probabilities(θ, log_probs)``."""
        out, start = [], 0
        for model, theta in self.segments:
            out += [(start + lo, model, theta[lo:lo + size]) for lo in range(0, theta.shape[0], size)]
            start += theta.shape[0]
        return out

    def table(self):
        """Each model's evidence, weight and sampler diagnostics, as a list of dicts (the JSON's
        ``diagnostics.score_models``)."""
        return [{"name": m.name, "prior": float(rho), "weight": float(w), "log_evidence": m.log_evidence,
                 "elpd_loo": float(np.sum(m.loo)), **m.diagnostics,
                 "left_out_by": None if ok else "importance sampling"}
                for m, rho, w, ok in zip(self.models, prior_model_probabilities(self.models), self.model_weights,
                                         reliable_models(self.models))]


def fit_class_models(log_probs, labeled_index, labeled_class, *, names, draws, rng, reference=None):
    """Fit the models ``names`` (each with its own random stream, in registry order) → list of FittedClassModel;
    ``reference``: a labeled reference set's (log-probabilities (R, K), classes (R,)), or None."""
    k = log_probs.shape[1]
    chosen = [m for m in CLASS_MODELS.values() if m.name in names and m.fits(k)]
    streams = rng.spawn(len(chosen))
    return [m.fit(log_probs, labeled_index, labeled_class, draws, s, reference) for m, s in zip(chosen, streams)]


def average_class_models(models, *, draws, rng) -> AveragedClassModel:
    """The evidence-weighted average of fitted models as M equally weighted draws."""
    log_ev = _log_prior_times_evidence(models)
    weights = np.exp(log_ev - special.logsumexp(log_ev))
    slots = np.bincount(systematic_resample(weights, draws, rng), minlength=len(models))
    segments = [(m, m.draws[systematic_resample(m.weights, int(c), rng)]) for m, c in zip(models, slots) if c > 0]
    return AveragedClassModel(segments, list(models), weights)


def reliable_models(models):
    """Which fitted models the average may weigh, (len(models),) bool: those whose importance sampling is reliable
    (Pareto k̂ ≤ 0.7; a model without importance weights, k̂ NaN, counts as reliable) — or all of them when none
    is."""
    k_hat = np.array([m.diagnostics.get("pareto_k", np.nan) for m in models], dtype=float)
    reliable = ~(k_hat > PARETO_K_GOOD)
    return reliable if reliable.any() else np.ones(len(models), dtype=bool)


def prior_model_probabilities(models):
    """ρ, the average's prior model probabilities (len(models),), summing to one: even over the hypotheses of the
    models it may weigh (:func:`reliable_models`), then even over each hypothesis's models; 0 for a model left
    out. A model not in the registry (the comparison's joint model) stands for a calibration map."""
    kinds = [CLASS_MODELS[m.name].hypothesis if m.name in CLASS_MODELS else CALIBRATION for m in models]
    weighed = reliable_models(models)
    counts = {k: sum(w for kind, w in zip(kinds, weighed) if kind == k) for k in set(kinds)}
    hypotheses = sum(c > 0 for c in counts.values())
    return np.array([1.0 / (hypotheses * counts[k]) if w else 0.0 for k, w in zip(kinds, weighed)])


def averaged_log_evidence(models) -> float:
    """log p(Y_L | S) of the average of fitted models: log Σ_k ρ_k p(Y_L | S, k) (nats), ρ its prior model
    probabilities (:func:`prior_model_probabilities`; a model left out adds nothing)."""
    return float(special.logsumexp(_log_prior_times_evidence(models)))


def _log_prior_times_evidence(models):
    """log ρ_k + log p(Y_L | S, k) per model (len(models),); −inf for a model left out (ρ_k = 0), whatever its
    evidence (NaN included)."""
    rho = prior_model_probabilities(models)
    evidence = np.array([m.log_evidence for m in models], dtype=float)
    out = np.full(rho.shape, -np.inf)
    out[rho > 0] = np.log(rho[rho > 0]) + evidence[rho > 0]
    return out

