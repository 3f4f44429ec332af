"""Threshold queries (paper §3, §4.4): metrics at a threshold, threshold curves, p(C(τ)), EER, population."""

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, confusion_matrix, f1_score, precision_score, recall_score, roc_curve

import spe
from spe.evaluation import Evaluation
from spe.metrics import threshold_metric_names
from spe.performance import ScoreGroups, sample_performance
from spe.metrics.curves import curves_from_counts, equal_error_rate
from spe.models.base import FittedScoreModel


def _model(prob, m, weights=None):
    w = np.full(m, 1 / m) if weights is None else np.asarray(weights, dtype=float)
    return FittedScoreModel("fixed", np.arange(m, dtype=float)[:, None], w,
                            lambda d, s: np.stack([prob(s, int(r)) for r in d[:, 0]]))


def _evaluation(scores, model, index=(), value=(), rng=0, **kw):
    index, value = np.asarray(index, dtype=int), np.asarray(value, dtype=int)
    perf = sample_performance(model, scores, index, value, rng=rng, **kw)
    families = {"negative": "-", "positive": "-"}
    return Evaluation(np.asarray(scores, dtype=float), index, value, 0.9, model, perf, families)


def _known_labels_evaluation(s, y, m=3):
    """Every item's label is certain under every draw (p ∈ {0, 1}): the posterior is the truth."""
    lookup = dict(zip(s.tolist(), y.tolist()))
    return _evaluation(s, _model(lambda v, r: np.array([lookup[x] for x in v], dtype=float), m))


@pytest.mark.parametrize("tied", [False, True])
def test_metrics_at_threshold_match_sklearn_when_labels_are_certain(tied):
    rng = np.random.default_rng(1)
    y = (rng.random(300) < 0.3).astype(int)
    s = rng.normal(size=300) + 1.5 * y
    if tied:
        s = np.round(s, 1)
    # equal scores must share a label for p(y | s) ∈ {0, 1}; give tied groups their majority label
    uniq, inv = np.unique(s, return_inverse=True)
    y = (np.bincount(inv, weights=y) / np.bincount(inv) >= 0.5).astype(int)[inv]
    ev = _known_labels_evaluation(s, y)
    for tau in (np.quantile(s, 0.2), 0.37, np.median(s), s.max(), s.max() + 1, s.min() - 1):
        pred = (s >= tau).astype(int)
        got = ev.metrics_at(tau)
        tn, fp, fn, tp = confusion_matrix(y, pred, labels=[0, 1]).ravel()
        ref = {"precision": precision_score(y, pred, zero_division=np.nan), "recall": recall_score(y, pred),
               "f1": f1_score(y, pred), "accuracy": accuracy_score(y, pred), "false_positive_rate": fp / (fp + tn),
               "true_positives": tp, "false_positives": fp, "true_negatives": tn, "false_negatives": fn}
        for name in threshold_metric_names():
            assert got[name].median == pytest.approx(ref[name], nan_ok=True), (name, tau)
            assert got[name].lo == pytest.approx(ref[name], nan_ok=True)
        assert ev.metric("precision", threshold=tau).mean == pytest.approx(ref["precision"], nan_ok=True)


def test_threshold_curves_match_sklearn_at_every_distinct_score():
    rng = np.random.default_rng(2)
    y = (rng.random(200) < 0.4).astype(int)
    s = rng.normal(size=200) + y
    ev = _known_labels_evaluation(s, y)
    prec, rec = ev.precision_curve(), ev.recall_curve()
    np.testing.assert_array_equal(prec.x, np.sort(s))
    for k in range(0, 200, 17):
        pred = (s >= prec.x[k]).astype(int)
        assert prec.median[k] == pytest.approx(precision_score(y, pred))
        assert rec.median[k] == pytest.approx(recall_score(y, pred))


def test_equal_error_rate_against_sklearn_roc_curve():
    rng = np.random.default_rng(3)
    for _ in range(5):
        y = (rng.random(500) < 0.25).astype(int)
        s = np.round(rng.normal(size=500) + 1.2 * y, 1)
        g = ScoreGroups.build(s, np.arange(500), y)
        tp, fp = curves_from_counts(g.n_labeled_pos[None, :], g.counts)
        eer = equal_error_rate(tp, fp)[0]
        fpr, tpr, _ = roc_curve(y, s)
        # sklearn's ROC vertices; the EER is where fpr = 1 - tpr on the polyline joining them
        d = fpr - (1 - tpr)
        j = np.flatnonzero(d >= 0)[0]
        t = -d[j - 1] / (d[j] - d[j - 1])
        assert eer == pytest.approx(fpr[j - 1] + t * (fpr[j] - fpr[j - 1]))
        assert abs(eer - (1 - np.interp(eer, fpr, tpr))) < 1e-9


def test_equal_error_rate_exact_small_case():
    # scores 4 > 3 > 2 > 1 with labels 1, 0, 1, 0: ROC vertices (0,0) (0,.5) (.5,.5) (.5,1) (1,1)
    # fpr + tpr = 1 at (.5, .5): EER = 0.5
    g = ScoreGroups.build(np.array([4.0, 3, 2, 1]), np.arange(4), np.array([1, 0, 1, 0]))
    tp, fp = curves_from_counts(g.n_labeled_pos[None, :], g.counts)
    assert equal_error_rate(tp, fp)[0] == pytest.approx(0.5)
    # perfectly separated: EER 0
    g = ScoreGroups.build(np.array([4.0, 3, 2, 1]), np.arange(4), np.array([1, 1, 0, 0]))
    assert equal_error_rate(*curves_from_counts(g.n_labeled_pos[None, :], g.counts))[0] == 0.0


def test_threshold_probability_exact_two_draws():
    """Two draws with certain but different labels: p(C(τ)) is the weight of the draws meeting C."""
    s = np.array([1.0, 2, 3, 4, 5, 6])
    labels = {0: np.array([0, 0, 1, 0, 1, 1.0]), 1: np.array([0, 1, 0, 1, 1, 1.0])}
    model = _model(lambda v, r: labels[r][np.searchsorted(s, v)], 2, weights=[0.25, 0.75])
    ev = _evaluation(s, model)
    tp = ev.threshold_probability(min_precision=0.75, min_recall=0.6)
    np.testing.assert_array_equal(tp.threshold, s)
    expected = []
    for tau in s:
        prob = 0.0
        for r, w in ((0, 0.25), (1, 0.75)):
            pred = s >= tau
            prec = labels[r][pred].mean()
            rec = labels[r][pred].sum() / labels[r].sum()
            prob += w * (prec >= 0.75 and rec >= 0.6)
        expected.append(prob)
    np.testing.assert_allclose(tp.model_probability, expected)
    # no labeled item: the model may be wrong above every τ with weight 1/2, and then the positive rate q of the
    # items above τ is uniform: it meets C when q·N_a ≥ 0.75·N_a and q·N_a ≥ 0.6/0.4 · (positives below τ)
    stated = []
    for k, tau in enumerate(s):
        n_above = np.sum(s >= tau)
        alone = sum(w * (1 - min(1.0, max(0.75 * n_above, 1.5 * labels[r][s < tau].sum()) / n_above))
                    for r, w in ((0, 0.25), (1, 0.75)))
        stated.append(0.5 * expected[k] + 0.5 * alone)
    np.testing.assert_allclose(tp.probability, stated)
    np.testing.assert_array_equal(tp.labels_only_weight, 0.5)
    np.testing.assert_array_equal(tp.labeled_above, 0)
    best = ev.best_threshold(min_precision=0.75, min_recall=0.6)
    assert best.probability == pytest.approx(max(stated))
    assert best.likely == (max(stated) >= 0.5)
    # unattainable: no threshold reaches precision 1 with recall 1 in draw 0 (item 4 is negative there)
    none = ev.best_threshold(min_precision=1.0, min_recall=1.0)
    assert none.probability < 0.5 and not none.likely


def test_replayed_metrics_agree_with_the_curves_beyond_the_threshold_grid():
    """More distinct scores than kept thresholds: metrics_at recounts the same label draws."""
    rng = np.random.default_rng(5)
    s = rng.normal(size=3000)
    model = _model(lambda v, r: 1 / (1 + np.exp(-2 * v - 0.1 * r)), 30)
    ev = _evaluation(s, model, index=[3, 8], value=[1, 0], rng=4, max_thresholds=50)
    grid = ev.precision_curve()
    assert grid.x.size <= 51
    perf = ev.performance
    for k in (0, 10, 25, grid.x.size - 1):
        at = ev._metric_draws_at([grid.x[k]], "sample")
        np.testing.assert_allclose(at["true_positives"][:, 0], perf.true_positives[:, k])
    # between grid thresholds, recall is monotone in the threshold within each draw
    tau = np.sort(rng.choice(s, 40))
    rec = ev._metric_draws_at(tau, "sample")["recall"]
    assert np.all(np.diff(rec, axis=1) <= 1e-12)
    # the lowest threshold predicts everything positive: recall 1, precision = the drawn prevalence
    low = ev._metric_draws_at([s.min()], "sample")
    np.testing.assert_allclose(low["recall"][:, 0], 1.0)
    np.testing.assert_allclose(low["precision"][:, 0], perf.prevalence)


def test_population_performance_is_the_expected_counts():
    rng = np.random.default_rng(6)
    s = rng.normal(size=400)
    p = 1 / (1 + np.exp(-3 * s))
    ev = _evaluation(s, _model(lambda v, r: 1 / (1 + np.exp(-3 * v)), 20), rng=1)
    assert ev.prevalence(performance="population").mean == pytest.approx(p.mean())
    tau = 0.5
    m = ev.metrics_at(tau, performance="population")
    assert m["precision"].mean == pytest.approx(p[s >= tau].mean())
    assert m["recall"].mean == pytest.approx(p[s >= tau].sum() / p.sum())
    # population intervals have no label noise here (one θ): zero width; sample intervals do not
    assert m["precision"].hi - m["precision"].lo < 1e-12
    samp = ev.metrics_at(tau)
    assert samp["precision"].hi - samp["precision"].lo > 0.01
    assert abs(samp["precision"].mean - m["precision"].mean) < 0.03
    with pytest.raises(ValueError, match="performance"):
        ev.prevalence(performance="both")


def test_bad_threshold_queries_raise():
    s, y = np.arange(10.0), np.array([0] * 5 + [1] * 5)
    ev = _known_labels_evaluation(s, y)
    with pytest.raises(ValueError, match="needs a threshold"):
        ev.metric("precision")
    with pytest.raises(ValueError, match="unknown metric"):
        ev.metric("sensitivity_index")
    with pytest.raises(ValueError, match="min_precision"):
        ev.threshold_probability(min_precision=1.5)
    with pytest.raises(ValueError, match="finite"):
        ev.metrics_at(float("nan"))


@pytest.mark.slow
def test_requirement_probability_is_calibrated_on_simulated_pools():
    """Simulated pools with known labels: the stated p(C(τ*)) matches how often τ* truly meets C."""
    from tests.conftest import simulate

    stated, model, met = [], [], []
    for seed in range(16):
        s, y = simulate(1500, 0.3, seed)
        rng = np.random.default_rng(100 + seed)
        idx = rng.choice(s.size, 30, replace=False)
        ev = spe.evaluate(s, (idx, y[idx]), families="truncnorm,truncnorm", score_model="mixture", draws=300,
                          rng=seed)
        best = ev.best_threshold(min_precision=0.8, min_recall=0.6)
        pred = s >= best.threshold
        stated.append(best.probability)
        model.append(best.rests_on()["model_probability"])
        met.append(y[pred].mean() >= 0.8 and y[pred].sum() / y.sum() >= 0.6)
    # a crude calibration check with known truth (mean stated against observed frequency): the probability
    # stated also allows that the model is wrong above the threshold, so with the model that made the data it
    # errs low (conservative), never high; and the model's own errs no higher
    assert np.mean(met) - 0.45 < np.mean(stated) <= np.mean(met) + 0.05
    assert np.mean(model) <= np.mean(met) + 0.05
