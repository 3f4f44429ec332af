"""The metric registry: a metric declared once reaches every report; the example metric (max F1) against sklearn."""

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import precision_recall_curve

import spe
from spe.baselines import labeled_only, true_performance
from spe.cli import main
from spe.metrics import REGISTRY, Metric, register
from spe.models.base import FittedScoreModel
from spe.performance import sample_performance

from .conftest import simulate


def _sklearn_max_f1(y, s):
    precision, recall, _ = precision_recall_curve(y, s)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.nanmax(2 * precision * recall / (precision + recall))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("tied", [False, True])
def test_max_f1_is_sklearns_best_f1_over_thresholds(seed, tied):
    rng = np.random.default_rng(seed)
    y = (rng.random(400) < 0.15).astype(int)
    s = rng.normal(size=400) + 1.2 * y
    if tied:
        s = np.round(s, 1)
    assert true_performance(s, y)["max_f1"] == pytest.approx(_sklearn_max_f1(y, s), abs=1e-12)


def test_max_f1_is_undefined_without_positives():
    assert np.isnan(true_performance(np.arange(5.0), np.zeros(5, int))["max_f1"])


def test_max_f1_with_every_label_known_is_the_truth_in_every_draw():
    s, y = simulate(300, 0.3, 5)
    model = FittedScoreModel("fixed", np.zeros((7, 1)), np.full(7, 1 / 7),
                             lambda d, x: np.full((d.shape[0], x.size), 0.5))
    perf = sample_performance(model, s, np.arange(s.size), y, rng=0)
    np.testing.assert_allclose(perf.ranking_metrics["max_f1"], _sklearn_max_f1(y, s), atol=1e-12)


def test_a_metric_declared_once_reaches_every_report(monkeypatch, capsys):
    """One declaration: per-draw values, the interval, to_dict, the summary, the labeled-only baseline (a Jeffreys
    interval for a proportion), the truth and `spe list`."""
    share = Metric(name="negative_share", label="negative share", compute=lambda c: c.negatives / c.n_items,
                   proportion=lambda c: (c.negatives, c.n_items), about="fraction of negatives")
    monkeypatch.setitem(REGISTRY, share.name, share)
    s, y = simulate(400, 0.3, 1)
    idx = np.arange(0, 400, 20)
    ev = spe.evaluate(s, (idx, y[idx]), rng=0, score_model="platt", workers=1)
    np.testing.assert_allclose(ev.performance.ranking_metrics["negative_share"], 1 - ev.performance.prevalence)
    assert ev.metric("negative_share").mean == pytest.approx(1 - ev.prevalence().mean)
    assert ev.to_dict()["negative_share"]["mean"] == pytest.approx(1 - ev.prevalence().mean)
    assert "negative share" in ev.summary()
    base = labeled_only(s, idx, y[idx], rng=0)
    k, n = int(np.sum(y[idx] == 0)), idx.size
    interval = base.metric("negative_share", level=0.9)
    assert interval.mean == pytest.approx(k / n)
    assert interval.lo == pytest.approx(stats.beta.ppf(0.05, k + 0.5, n - k + 0.5))
    assert base.to_dict()["negative_share"]["hi"] == pytest.approx(stats.beta.ppf(0.95, k + 0.5, n - k + 0.5))
    assert true_performance(s, y)["negative_share"] == pytest.approx(np.mean(y == 0))
    assert main(["list", "metrics"]) == 0
    assert "negative_share" in capsys.readouterr().out


def test_a_name_is_registered_once():
    with pytest.raises(ValueError, match="registered already"):
        register(Metric(name="prevalence", label="prevalence", compute=lambda c: c.positives))


def test_an_unknown_metric_names_the_known_ones():
    s, y = simulate(200, 0.3, 2)
    base = labeled_only(s, np.arange(20), y[:20], rng=0)
    with pytest.raises(spe.SpeInputError, match="max_f1"):
        base.metric("no_such_metric")
    with pytest.raises(spe.SpeInputError, match="true_positives"):  # a count of the pool: not from the labels alone
        base.metric("true_positives", threshold=0.0)
