"""The NUTS backend (PyMC) samples the same posterior as importance sampling, and both export to ArviZ."""

import warnings

import numpy as np
import pytest

import spe
from spe.inference.nuts import _value_and_gradient, nuts_warnings

from .conftest import EXAMPLES, simulate

pytestmark = pytest.mark.slow  # NUTS samples with PyMC: seconds to minutes a test


def _pair(scores, labels, seed, draws):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kw = dict(families="truncnorm,truncnorm", score_model="mixture", draws=draws, rng=seed)
        return spe.evaluate(scores, labels, inference="importance", **kw), spe.evaluate(scores, labels,
                                                                                        inference="nuts", **kw)


def _agree(a, b, name):
    """Posterior means of a metric agree within 4 combined Monte-Carlo standard errors (sd / √ESS)."""
    va, vb = a.performance, b.performance
    pick = {"prevalence": lambda p: p.prevalence,
            "average_precision": lambda p: p.ranking_metrics["average_precision"]}[name]
    xa, xb = pick(va), pick(vb)
    wa, wb = a.weights, b.weights
    ma, mb = wa @ xa, wb @ xb
    sa, sb = np.sqrt(wa @ (xa - ma) ** 2), np.sqrt(wb @ (xb - mb) ** 2)
    se = np.hypot(sa / np.sqrt(a.diagnostics["ess"]), sb / np.sqrt(b.diagnostics["ess"]))
    assert abs(ma - mb) < 4 * se + 1e-3, f"{name}: importance {ma:.4f} vs NUTS {mb:.4f} (MC se {se:.4f})"
    assert 0.6 < sb / sa < 1.6, f"{name}: posterior sd importance {sa:.4f} vs NUTS {sb:.4f}"


def test_finite_difference_gradient_is_the_gradient():
    # a Gaussian log density with a known gradient, and a wall on one side
    def logp(u):
        return np.where(u[:, 0] < 3.0, -0.5 * np.sum((u - 1.0) ** 2 * np.array([1.0, 4.0]), axis=1), -np.inf)

    value, grad = _value_and_gradient(logp, np.array([0.5, 2.0]))
    assert value == pytest.approx(-0.5 * (0.25 + 4.0))
    np.testing.assert_allclose(grad, [0.5, -4.0], rtol=1e-6)
    _, grad = _value_and_gradient(logp, np.array([3.0 - 1e-6, 0.0]))  # at the wall: one-sided
    assert np.isfinite(grad).all() and grad[0] == pytest.approx(-2.0, rel=1e-3)


def test_nuts_and_importance_agree_on_simulated_data():
    s, y = simulate(400, 0.25, 11)
    idx = np.arange(0, 400, 20)
    imp, nuts = _pair(s, (idx, y[idx]), 0, 400)
    _agree(imp, nuts, "prevalence")
    _agree(imp, nuts, "average_precision")
    d = nuts.diagnostics
    assert d["inference"] == "nuts" and d["pareto_k"] is None
    assert d["nuts"]["r_hat"] < 1.05 and d["nuts"]["chains"] == 2
    assert "R-hat" in nuts.summary() and "divergences" in nuts.summary()


@pytest.fixture(scope="module")
def digits_pair():
    from spe.io import read_labels, read_scores

    scores = read_scores(EXAMPLES / "digits_scores.csv")
    labels = read_labels(EXAMPLES / "digits_labels.csv", scores)
    return _pair(scores.scores, labels, 1, 600)


def test_nuts_and_importance_agree_on_the_real_digits_example(digits_pair):
    imp, nuts = digits_pair
    _agree(imp, nuts, "prevalence")
    _agree(imp, nuts, "average_precision")
    # every query works unchanged on NUTS draws
    assert 0 <= nuts.best_threshold(0.9, 0.5).probability <= 1
    assert nuts.to_dict()["diagnostics"]["nuts"]["divergences"] >= 0


def test_inference_data_round_trips_through_arviz(digits_pair, tmp_path):
    import arviz as az
    import matplotlib

    matplotlib.use("Agg")
    imp, nuts = digits_pair
    metrics = ["prevalence", "average_precision", "roc_auc", "equal_error_rate", "max_f1"]
    names = metrics + ["mixture." + n for n in ("prevalence", "negative.loc", "negative.scale", "positive.loc",
                                                "positive.scale")]
    for ev in (imp, nuts):
        idata = ev.to_inference_data()
        assert list(idata.posterior.data_vars) == names
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ArviZ: one chain (importance) gives no R-hat
            table = az.summary(idata)
            az.plot_trace(idata)
            az.plot_posterior(idata)
        assert list(table.index) == names and np.isfinite(table["mean"]).all()
        np.testing.assert_array_equal(idata.observed_data["score"].values, ev.scores)
        np.testing.assert_array_equal(idata.constant_data["labeled_index"].values, ev.labeled_index)
        path = tmp_path / f"{ev.diagnostics['inference']}.nc"
        idata.to_netcdf(path)
        back = az.from_netcdf(path)
        np.testing.assert_allclose(back.posterior["prevalence"].values, idata.posterior["prevalence"].values)
    # importance draws: resampled by their weights, so the posterior mean is the weighted mean
    idata = imp.to_inference_data()
    raw = idata.importance_sampling
    assert float(raw["weight"].sum()) == pytest.approx(1.0)
    weighted = float((raw["weight"] * raw["mixture.prevalence"]).sum())
    assert float(idata.posterior["mixture.prevalence"].mean()) == pytest.approx(weighted, abs=0.01)
    nuts_idata = nuts.to_inference_data()
    assert nuts_idata.posterior.sizes["chain"] == 2
    assert nuts_idata.sample_stats.sizes["draw"] == nuts_idata.posterior.sizes["draw"]
    assert np.isfinite(az.summary(nuts_idata)["r_hat"]).all()
    # the metrics per draw are the evaluation's own: their mean over the chains is its posterior mean
    assert float(nuts_idata.posterior["average_precision"].mean()) == pytest.approx(
        nuts.average_precision().mean, abs=0.01)


def test_nuts_warnings_name_the_problem_and_the_remedy():
    good = {"r_hat": 1.002, "divergences": 0, "ess_bulk": 400.0, "dropped": 0.1}
    assert nuts_warnings(good) == []
    bad = nuts_warnings({"r_hat": 1.2, "divergences": 7, "ess_bulk": 30.0, "dropped": 0.95})
    assert len(bad) == 4 and "--draws" in bad[0] and "7 divergent" in bad[1]


def test_pymc_is_imported_only_for_nuts():
    import subprocess
    import sys

    code = ("import sys, numpy as np, spe; s = np.r_[np.random.default_rng(0).normal(0, 1, 200), "
            "np.random.default_rng(1).normal(2, 1, 60)]; "
            "spe.evaluate(s, {0: 0, 250: 1}, families='truncnorm,truncnorm', draws=100, rng=0); "
            "print('pymc' in sys.modules, 'pytensor' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split()[-2:] == ["False", "False"]


def test_without_pymc_nuts_says_how_to_install_it_and_importance_still_works(monkeypatch, capsys):
    """PyMC is the optional extra spe[nuts]: without it, inference="nuts" is an input error naming the install
    command, before any fit, in Python and in the shell."""
    import sys

    from spe.cli import main
    from spe.exceptions import SpeInputError

    monkeypatch.setitem(sys.modules, "pymc", None)  # as if not installed: importing it fails
    s, y = simulate(300, 0.3, 0)
    with pytest.raises(SpeInputError, match=r"pip install 'spe\[nuts\]'"):
        spe.evaluate(s, {0: int(y[0]), 5: int(y[5])}, inference="nuts")
    argv = ["estimate", str(EXAMPLES / "digits_scores.csv"), "--labels", str(EXAMPLES / "digits_labels.csv"),
            "--inference", "nuts"]
    assert main(argv) == 2
    assert "spe estimate: error: --inference: 'nuts' needs PyMC" in capsys.readouterr().err
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert spe.evaluate(s, {0: int(y[0]), 5: int(y[5])}, draws=100, rng=0).n_labeled == 2


def test_without_arviz_nuts_says_how_to_install_it(monkeypatch):
    """NUTS needs ArviZ too (its diagnostics), which is not a dependency of spe itself: the same input error,
    naming what is missing."""
    import sys

    from spe.exceptions import SpeInputError

    s, y = simulate(300, 0.3, 0)
    monkeypatch.setitem(sys.modules, "arviz", None)  # as if not installed: importing it fails
    with pytest.raises(SpeInputError, match=r"'nuts' needs ArviZ, which is not installed: pip install 'spe\[nuts\]'"):
        spe.evaluate(s, {0: int(y[0]), 5: int(y[5])}, inference="nuts")
    monkeypatch.setitem(sys.modules, "pymc", None)
    with pytest.raises(SpeInputError, match="'nuts' needs PyMC and ArviZ, which are not installed"):
        spe.evaluate(s, {0: int(y[0]), 5: int(y[5])}, inference="nuts")
