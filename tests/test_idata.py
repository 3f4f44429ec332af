"""Evaluation.to_inference_data for every score model: the metrics per draw, the labeled items'
log-likelihood (arviz.loo), the mixture's own posterior when it is averaged (spe.idata)."""

import warnings

import arviz as az
import numpy as np
import pytest

import spe

from .conftest import simulate


def test_the_averaged_model_gives_metrics_loglik_and_the_mixture_posterior(twenty_labels_of_3000):
    ev, _, _ = twenty_labels_of_3000
    idata = ev.to_inference_data()
    assert list(idata.posterior.data_vars) == ["prevalence", "average_precision", "roc_auc", "equal_error_rate",
                                               "max_f1"]
    # resampled by the weights: the posterior means are the evaluation's weighted means
    for name in idata.posterior.data_vars:
        assert float(idata.posterior[name].mean()) == pytest.approx(ev.metric(name).mean, abs=0.02)
    ll = idata.log_likelihood["label"]
    # equal weights and every model's own draws well spread: all M draws, dealt into 4 chains
    assert ll.shape == (4, ev.weights.size // 4, 20) and np.all(ll.values <= 0)
    # log p(y_i | s_i) of one draw is the model's own probability at that draw
    model, i = ev.model, int(ev.labeled_index[3])
    loo = az.loo(idata)
    assert np.isfinite(loo.elpd_loo) and loo.elpd_loo < 0
    mixture = idata.mixture_posterior
    assert "mixture.prevalence" in mixture and idata.posterior.attrs["score_model"] == "average"
    assert 0 < idata.posterior.attrs["mixture_weight"] < 1
    p = model.probability(model.draws, ev.scores[[i]])[:, 0]
    y = ev.labeled_value[3]
    expected = np.log(p) if y == 1 else np.log1p(-p)
    assert set(np.round(ll.values[0, :, 3], 10)) <= set(np.round(expected, 10))


def test_without_arviz_the_error_says_how_to_install_it(monkeypatch, twenty_labels_of_3000):
    """ArviZ is the optional extra spe[arviz]: without it, to_inference_data says so, with the command."""
    import sys

    ev, _, _ = twenty_labels_of_3000
    monkeypatch.setitem(sys.modules, "arviz", None)  # as if not installed: importing it fails
    with pytest.raises(ModuleNotFoundError, match=r"^to_inference_data needs ArviZ, which is not installed: "
                                                  r"pip install 'spe\[arviz\]'$") as error:
        ev.to_inference_data()
    assert error.value.name == "arviz"


def test_a_score_model_without_the_mixture():
    s, y = simulate(800, 0.3, seed=7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = spe.evaluate(s, {i: int(y[i]) for i in range(30)}, score_model="platt", draws=200, rng=0)
    idata = ev.to_inference_data()
    assert "mixture_posterior" not in idata.groups() and "importance_sampling" not in idata.groups()
    assert idata.posterior.attrs["mixture_weight"] == 0.0
    table = az.summary(idata, kind="stats")
    assert list(table.index)[:3] == ["prevalence", "average_precision", "roc_auc"]
    assert table.loc["average_precision", "mean"] == pytest.approx(ev.average_precision().mean, abs=0.02)


def _mixture_by_importance_sampling():
    s, y = simulate(1500, 0.15, seed=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = spe.evaluate(s, {i: int(y[i]) for i in range(30)}, score_model="mixture",
                          families="truncnorm,truncnorm", draws=1000, rng=0)
    assert ev.diagnostics["inference"] == "importance" and ev.diagnostics["ess"] < 0.8 * ev.weights.size
    return ev


def test_arviz_reads_the_importance_samplers_own_ess():
    ev = _mixture_by_importance_sampling()
    # ArviZ's ESS of one layout is itself an estimate (about ±10% here): averaged over 8 random orders
    tables = [az.summary(ev.to_inference_data(rng=r), kind="diagnostics") for r in range(8)]
    ess = np.mean([t["ess_bulk"].mean() for t in tables])
    assert ess == pytest.approx(ev.diagnostics["ess"], rel=0.2)
    assert all(t["r_hat"].notna().all() and (t["r_hat"] < 1.05).all() for t in tables)
    assert list(tables[0].index)[:2] == ["prevalence", "average_precision"] and "mixture.prevalence" in tables[0].index


def test_an_average_of_models_is_not_read_as_a_chain_that_barely_moves(twenty_labels_of_3000):
    ev, _, _ = twenty_labels_of_3000
    # the M draws were made grouped by score model (ev.model.components): in that order ArviZ found an ESS of
    # 30-75 of 300 draws and no R-hat. Averaged over 8 random orders (one order's ESS is within about ±40%)
    fit = ev.mixture_model()
    w = fit.weights / np.sum(fit.weights)
    ess, own, worst_r_hat = [], [], 0.0
    for r in range(8):
        idata = ev.to_inference_data(rng=r)
        table = az.summary(idata, kind="diagnostics")
        ess.append(table["ess_bulk"].mean())
        worst_r_hat = max(worst_r_hat, table["r_hat"].max())
        own.append(az.summary(idata.mixture_posterior, kind="diagnostics")["ess_bulk"].mean())
    assert np.mean(ess) == pytest.approx(ev.weights.size, rel=0.2) and worst_r_hat < 1.1
    assert np.mean(own) == pytest.approx(1 / np.sum(w ** 2), rel=0.3)  # its own weights, ~140 draws


def test_the_layout_is_reproducible_from_its_rng(twenty_labels_of_3000):
    ev, _, _ = twenty_labels_of_3000
    a, b, c = (ev.to_inference_data(rng=r).posterior["average_precision"].values for r in (1, 1, 2))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    # the same draws in another order: the weighted means do not move with the order
    assert a.mean() == pytest.approx(c.mean(), abs=0.01)
