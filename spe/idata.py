"""An evaluation as an ``arviz.InferenceData``: the quantities of interest per draw, the labeled items'
log-likelihood, and the SPE mixture's parameters, for ArviZ's summaries, plots and LOO.

ArviZ assumes equally weighted draws; importance draws are weighted, so
they are resampled systematically by their weights (M draws, one chain;
duplicates are expected). NUTS draws of a mixture-only evaluation keep
their chains, each cut to the same number of draws in the identified
region, so that R-hat is computed per chain.

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

#: The mixture's parameters are named with this prefix (the metric ``prevalence`` is the sample's; the
#: mixture's π is ``mixture.prevalence``).
PREFIX = "mixture."


def _layout(evaluation, fit):
    """The evaluation's draws as (chains, draws) indices into its M draws, and the NUTS sample_stats to go
    with them (or None)."""
    d = fit.diagnostics if fit is not None else {}
    nuts = fit is not None and fit is evaluation.model and d.get("inference") == "nuts" and \
        fit.mixture_fit.inference_data is not None
    if not nuts:
        m = evaluation.weights.size
        idx = np.sort(systematic_resample(np.asarray(evaluation.weights, dtype=float), m, np.random.default_rng(0)))
        return idx[None, :], None
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


def to_inference_data(evaluation):
    """See :meth:`spe.evaluation.Evaluation.to_inference_data`."""
    try:
        import arviz as az
    except ModuleNotFoundError as error:
        if error.name != "arviz":  # ArviZ is there but broken: its own error says what is missing
            raise
        raise ModuleNotFoundError(f"to_inference_data needs ArviZ, which is not installed: {INSTALL_ARVIZ}",
                                  name="arviz") from None
    import xarray as xr

    fit = evaluation.mixture_model()
    layout, sample_stats = _layout(evaluation, fit)
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
        idx = np.sort(systematic_resample(np.asarray(fit.weights, dtype=float), fit.n_draws,
                                          np.random.default_rng(0)))
        theta = np.asarray(fit.constrained_draws, dtype=float)[idx]
        groups["mixture_posterior"] = xr.Dataset(
            {PREFIX + n: (dims, theta[None, :, j]) for j, n in enumerate(fit.param_names)},
            coords={"chain": [0], "draw": np.arange(idx.size)})
    attrs = {"score_model": evaluation.diagnostics.get("score_model"), "level": evaluation.level,
             "inference": evaluation.diagnostics.get("inference"),
             "negative_family": evaluation.families.get("negative") or "",
             "positive_family": evaluation.families.get("positive") or "",
             "mixture_weight": evaluation.mixture_weight()}
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
