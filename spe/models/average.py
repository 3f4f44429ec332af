"""Averaging score models by their evidence on the labeled items.

Each candidate model k reports log p(Y_L | S, k), the probability it gave
the observed labels given the scores. With prior model probabilities ρ_k
(equal by default) the posterior model probabilities are
``w_k ∝ ρ_k p(Y_L | S, k)`` (Bayesian model averaging; Hoeting et al. 1999),
and the averaged model's posterior
over p(y = 1 | s) is the w-mixture of the models' posteriors. A model that
misfits the labels is switched off by its evidence, not by a threshold.

Each model's leave-one-out log predictive density of the labeled items
(``FittedScoreModel.loo``) is listed beside its evidence (``elpd_loo``).
Weighting by it instead — pseudo-BMA, pseudo-BMA+ with the Bayesian
bootstrap, or stacking (Yao et al. 2018) — was worse on the real benchmark
cases, so the evidence stays (the numbers: the CHANGELOG's "Benchmark history").

The averaged model behind the seam keeps M draws in all: model k gets about
w_k·M of them (largest-remainder allocation), resampled from its weighted
draws by systematic resampling, so the downstream cost does not grow with
the number of models.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np
from scipy import special

from .base import FittedScoreModel

__all__ = ["average_models", "systematic_resample", "Components"]


def systematic_resample(weights, count, rng):
    """Indices of ``count`` draws resampled systematically from normalised ``weights`` (M,)."""
    if count <= 0:
        return np.zeros(0, dtype=int)
    cdf = np.cumsum(weights)
    cdf[-1] = 1.0
    points = (rng.random() + np.arange(count)) / count
    return np.searchsorted(cdf, points, side="right").clip(0, len(weights) - 1)


def _allocate(probs, total):
    raw = probs * total
    counts = np.floor(raw).astype(int)
    rest = total - counts.sum()
    if rest > 0:
        counts[np.argsort(-(raw - counts))[:rest]] += 1
    return counts


@dataclass(frozen=True)
class Components:
    """What an averaged model is made of (:attr:`FittedScoreModel.components`).

    Attributes
    ----------
    models : tuple of FittedScoreModel
        The K models averaged, in order.
    weights : array, shape (K,)
        Their posterior probabilities (0 for a model left out).
    """

    models: tuple
    weights: np.ndarray


def average_models(models, *, draws=1000, rng=None, exclude=None, prior=None):
    """Average fitted score models by their evidence on the labeled items.

    Parameters
    ----------
    models : list of FittedScoreModel
        Each with ``log_evidence`` set.
    draws : int
        M, draws of the averaged model.
    rng : numpy.random.Generator, int or None
    exclude : list of bool, optional
        Models rejected by a check (e.g. the labels' posterior-predictive
        check, :func:`spe.models.criticism.label_check`): they get weight 0 but stay
        in the table. Ignored when it would exclude every model.
    prior : array, shape (K,), optional
        Prior model probabilities (non-negative; renormalised over the models
        not excluded). Default: equal.

    Returns
    -------
    FittedScoreModel
        Draws of shape (M, 2): (model index, draw index within the model),
        equal weights; ``diagnostics["models"]`` lists each model's log
        evidence and posterior probability; ``log_evidence`` is the log of
        the average evidence of the models averaged (those not excluded,
        under the prior renormalised over them): p(Y_L | S) of the averaged
        model.

    Raises
    ------
    ValueError
        If no model has a finite log evidence.
    """
    rng = np.random.default_rng(rng)
    log_ev = np.array([m.log_evidence if m.log_evidence is not None else -np.inf for m in models], dtype=float)
    if not np.isfinite(log_ev).any():
        raise ValueError("no score model has a finite evidence on the labeled items")
    log_ev = np.where(np.isfinite(log_ev), log_ev, -np.inf)
    excluded = np.zeros(len(models), dtype=bool) if exclude is None else np.asarray(exclude, dtype=bool)
    if np.all(excluded | ~np.isfinite(log_ev)):
        excluded = np.zeros(len(models), dtype=bool)
    with np.errstate(divide="ignore"):
        log_prior = np.zeros(len(models)) if prior is None else np.log(np.asarray(prior, dtype=float))
    log_prior = np.where(excluded, -np.inf, log_prior)  # the prior over the models averaged
    if not np.isfinite(log_prior + log_ev).any():  # every model the prior allows was excluded: it cannot choose
        log_prior = np.where(excluded, -np.inf, 0.0)
    active = log_ev + log_prior
    probs = np.exp(active - special.logsumexp(active))
    counts = _allocate(probs, draws)
    rows = []
    for k, (m, c) in enumerate(zip(models, counts)):
        idx = systematic_resample(np.asarray(m.weights, dtype=float), int(c), rng)
        rows.append(np.column_stack([np.full(idx.size, k), idx]))
    index = np.vstack(rows).astype(np.int64)

    probability = partial(_average_probability, tuple(models))

    summary = [
        {"model": m.name, "log_evidence": float(le), "elpd_loo": m.elpd_loo, "weight": float(p), "draws": int(c),
         "excluded": bool(x)}
        for m, le, p, c, x in zip(models, log_ev, probs, counts, excluded)
    ]
    best = int(np.argmax(probs))
    averaged = FittedScoreModel(
        name="average(" + ", ".join(m.name for m in models) + ")",
        draws=index,
        weights=np.full(index.shape[0], 1.0 / index.shape[0]),
        probability=probability,
        diagnostics={"models": summary, "chosen": models[best].name},
        param_names=["model", "draw"],
        log_evidence=float(special.logsumexp(active) - special.logsumexp(log_prior)),
    )
    averaged.components = Components(tuple(models), probs)
    return averaged


def _average_probability(models, d, s):
    """p(y = 1 | s) under draws (model, draw) of the average, (M', 2) × (B,) → (M', B)."""
    d = np.asarray(d, dtype=np.int64)
    out = np.empty((d.shape[0], np.shape(s)[0]))
    for k in np.unique(d[:, 0]):
        sel = d[:, 0] == k
        out[sel] = models[k].probability(models[k].draws[d[sel, 1]], s)
    return out
