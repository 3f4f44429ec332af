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
    assert ll.shape == (1, ev.weights.size, 20) and np.all(ll.values <= 0)
    # log p(y_i | s_i) of one draw is the model's own probability at that draw
    model, i = ev.model, int(ev.labeled_index[3])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # one chain
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
