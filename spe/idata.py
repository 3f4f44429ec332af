"""An evaluation as an ``arviz.InferenceData``: the quantities of interest per draw, the labeled items'
log-likelihood, and the SPE mixture's parameters, for ArviZ's summaries, plots and LOO.

ArviZ assumes equally weighted draws, and reads the effective sample size
from their count and their order. Weighted draws (M, weights w) therefore
go in as about ESS draws (Kish's effective sample size 1 / Σ w²: for
importance sampling, ``diagnostics["ess"]``; for an average of score
models, that of their own weighted draws together), resampled systematically by
their weights (duplicates are expected), put in a random order and dealt
into ``CHAINS`` chains: consecutive draws are independent, as ArviZ's ESS
and R-hat assume, so its ESS is close to the sampler's own and its R-hat
near 1. (Draws in the order they were made would sit grouped by score
model, and ArviZ would read the jumps between models as a chain that barely
moves.) The resampling and the order come from an explicit ``rng``. NUTS
draws of a mixture-only evaluation keep their chains, each cut to the same
number of draws in the identified region, so that R-hat is computed per
chain.

ArviZ (with xarray) is the optional extra ``spe[arviz]``, imported only
here; without it this is a ``ModuleNotFoundError`` that says how to install it.
"""

from __future__ import annotations

import warnings

import numpy as np

from .metrics import ranking_metric_names
from .models.average import systematic_resample

__all__ = ["to_inference_data", "INSTALL_ARVIZ"]

#: How to get ArviZ, an optional extra that only ``Evaluation.to_inference_data`` (and NUTS) needs.
INSTALL_ARVIZ = "pip install 'spe[arviz]'"

#: Chains the resampled (non-NUTS) draws are dealt into: enough for ArviZ's R-hat (it needs 2).
CHAINS = 4

#: The mixture's parameters are named with this prefix (the metric ``prevalence`` is the sample's; the
#: mixture's π is ``mixture.prevalence``).
PREFIX = "mixture."


def kish_ess(weights):
    """Kish's effective sample size 1 / Σ w² of weights (M,) normalised to sum 1: a number of draws in [1, M]."""
    w = np.asarray(weights, dtype=float)
    w = w / w.sum()
    return 1.0 / float(w @ w)


def effective_draws(model, weights):
    """The effective sample size of an evaluation's M draws (``weights`` (M,)), a number of draws in [1, M].

    Kish's 1 / Σ w² of the weights; for an averaged model, whose M equally weighted draws are resampled from
    each model k's own weighted draws (ESS e_k) in proportion to its weight W_k, the ESS of those weighted
    draws taken together, 1 / Σ_k W_k² / e_k, when it is smaller (importance sampling's ESS travels through
    the average).
    """
    ess = kish_ess(weights)
    parts = model.components
    if parts is None:
        return ess
    inverse = sum(float(w) ** 2 / kish_ess(m.weights) for m, w in zip(parts.models, parts.weights) if w > 0)
    return min(ess, 1.0 / inverse) if inverse > 0 else ess


def resampled_layout(weights, ess, rng):
    """Weighted draws as equally weighted ones in ArviZ's layout: (CHAINS, D) indices into the M draws.

    D · CHAINS is ``ess`` (a number of draws, e.g. :func:`kish_ess` of the weights) rounded up to a multiple
    of ``CHAINS`` (at least one draw per chain), so that ArviZ's ESS of the layout estimates it; the draws are
    resampled systematically by the normalised ``weights`` (M,) and put in a random order (``rng``, a
    ``numpy.random.Generator``), so that no chain holds a run of one score model's draws.
    """
    w = np.asarray(weights, dtype=float)
    per_chain = max(1, int(np.ceil(ess / CHAINS - 1e-9)))
    idx = systematic_resample(w / w.sum(), CHAINS * per_chain, rng)
    return rng.permutation(idx).reshape(CHAINS, per_chain)


def _layout(evaluation, fit, rng):
    """The evaluation's draws as (chains, draws) indices into its M draws, and the NUTS sample_stats to go
    with them (or None)."""
    d = fit.diagnostics if fit is not None else {}
    nuts = fit is not None and fit is evaluation.model and d.get("inference") == "nuts" and \
        fit.mixture_fit.inference_data is not None
    if not nuts:
        return resampled_layout(evaluation.weights, effective_draws(evaluation.model, evaluation.weights),
                                rng), None
    import xarray as xr

    nuts_idata = fit.mixture_fit.inference_data
    mix = fit.mixture_fit.mixture
    u = nuts_idata.posterior["u"].values  # (chains, per_chain, P), before the identification filter
    kept = [np.flatnonzero(mix.identified(*mix.unpack(uc)[1:3])) for uc in u]
    length = min(k.size for k in kept)
    offsets = np.cumsum([0] + [k.size for k in kept[:-1]])  # the kept draws are chain-major
    layout = np.stack([off + np.arange(length) for off in offsets])
    stats = nuts_idata.sample_stats
    sample_stats = xr.concat([stats.isel(chain=c, draw=k[:length]).assign_coords(draw=np.arange(length))
                              for c, k in enumerate(kept)], dim="chain")
    return layout, sample_stats


def _log_likelihood(evaluation, draws):
    """log p(y_i | s_i, draw) of the n labeled items under the evaluation's model: (D, n)."""
    model = evaluation.model
    s = evaluation.scores[evaluation.labeled_index]
    p = np.clip(model.probability(model.draws[draws], s), 1e-300, 1 - 1e-16)
    return np.where(evaluation.labeled_value[None, :] == 1, np.log(p), np.log1p(-p))


def to_inference_data(evaluation, rng=0):
    """See :meth:`spe.evaluation.Evaluation.to_inference_data`."""
    try:
        import arviz as az
    except ModuleNotFoundError as error:
        if error.name != "arviz":  # ArviZ is there but broken: its own error says what is missing
            raise
        raise ModuleNotFoundError(f"to_inference_data needs ArviZ, which is not installed: {INSTALL_ARVIZ}",
                                  name="arviz") from None
    import xarray as xr

    rng = np.random.default_rng(rng)
    fit = evaluation.mixture_model()
    layout, sample_stats = _layout(evaluation, fit, rng)
    chains, per_chain = layout.shape
    coords = {"chain": np.arange(chains), "draw": np.arange(per_chain)}
    dims = ("chain", "draw")
    metrics = evaluation.performance.ranking_metrics
    posterior = {name: (dims, np.asarray(metrics[name], dtype=float)[layout]) for name in ranking_metric_names()}
    groups = {}
    if fit is not None and fit is evaluation.model:  # the mixture's parameters are the evaluation's draws
        theta = np.asarray(fit.constrained_draws, dtype=float)
        posterior.update({PREFIX + n: (dims, theta[layout, j]) for j, n in enumerate(fit.param_names)})
    elif fit is not None:  # one of several averaged models: its own posterior, its own draws
        own = resampled_layout(fit.weights, kish_ess(fit.weights), rng)
        theta = np.asarray(fit.constrained_draws, dtype=float)[own]
        groups["mixture_posterior"] = xr.Dataset(
            {PREFIX + n: (dims, theta[..., j]) for j, n in enumerate(fit.param_names)},
            coords={"chain": np.arange(own.shape[0]), "draw": np.arange(own.shape[1])})
    attrs = {"score_model": evaluation.diagnostics.get("score_model"), "level": evaluation.level,
             "inference": evaluation.diagnostics.get("inference"),
             "negative_family": evaluation.families.get("negative") or "",
             "positive_family": evaluation.families.get("positive") or "",
             "mixture_weight": evaluation.mixture_weight()}
    if sample_stats is None:  # weighted draws: their own effective sample size, which ArviZ's ESS estimates
        attrs["effective_sample_size"] = float(effective_draws(evaluation.model, evaluation.weights))
    groups["posterior"] = xr.Dataset(posterior, coords=coords, attrs=attrs)
    labeled = {"labeled": np.arange(evaluation.n_labeled)}
    observed = {"score": ("item", evaluation.scores)}
    if evaluation.counts is not None:  # a pool: its K values and the items each stands for
        observed["count"] = ("item", evaluation.counts)
    if evaluation.n_labeled:
        ll = _log_likelihood(evaluation, layout.ravel()).reshape(chains, per_chain, -1)
        groups["log_likelihood"] = xr.Dataset({"label": (("chain", "draw", "labeled"), ll)},
                                              coords={**coords, **labeled})
        observed["label"] = ("labeled", evaluation.labeled_value)
    groups["observed_data"] = xr.Dataset(observed, coords={"item": np.arange(evaluation.scores.size),
                                                           **(labeled if evaluation.n_labeled else {})})
    groups["constant_data"] = xr.Dataset({"labeled_index": ("labeled", evaluation.labeled_index)}, coords=labeled)
    if sample_stats is not None:
        groups["sample_stats"] = sample_stats
    if fit is not None and fit.diagnostics.get("inference") == "importance":
        d = fit.diagnostics
        groups["importance_sampling"] = xr.Dataset(
            {**{PREFIX + n: ("draw", np.asarray(fit.constrained_draws)[:, j]) for j, n in enumerate(fit.param_names)},
             "weight": ("draw", np.asarray(fit.weights, dtype=float))},
            coords={"draw": np.arange(fit.n_draws)},
            attrs={"pareto_k": d.get("pareto_k"), "ess": d.get("ess"), "proposal": d.get("proposal")})
    with warnings.catch_warnings():  # the groups outside ArviZ's scheme (mixture_posterior, importance_sampling)
        warnings.filterwarnings("ignore", message=".*not defined in the InferenceData scheme")
        return az.InferenceData(**groups)
