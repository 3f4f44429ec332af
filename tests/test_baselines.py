"""The labeled-only baseline: its estimates against sklearn, its intervals' coverage by simulation."""

import numpy as np
import pytest
from sklearn.metrics import average_precision_score, f1_score, precision_score, recall_score, roc_auc_score

from spe.baselines import labeled_only, labeled_only_pr_curve


def _pool(seed, n=2000, prevalence=0.3):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < prevalence).astype(int)
    return rng.normal(size=n) + 1.5 * y, y, rng


def test_estimates_are_the_labeled_items_own_values():
    s, y, rng = _pool(0)
    idx = rng.choice(s.size, 60, replace=False)
    lo = labeled_only(s, idx, y[idx], rng=1)
    ys, ss = y[idx], s[idx]
    assert lo.prevalence().mean == pytest.approx(ys.mean())
    assert lo.average_precision().mean == pytest.approx(average_precision_score(ys, ss))
    assert lo.roc_auc().mean == pytest.approx(roc_auc_score(ys, ss))
    np.testing.assert_allclose(lo.pr_curve().median, labeled_only_pr_curve(s, idx, ys))
    for tau in (-0.5, 0.4, 1.3):
        pred = (ss >= tau).astype(int)
        m = lo.metrics_at(tau)
        assert m["precision"].mean == pytest.approx(precision_score(ys, pred))
        assert m["recall"].mean == pytest.approx(recall_score(ys, pred))
        assert m["f1"].mean == pytest.approx(f1_score(ys, pred))
        assert m["accuracy"].mean == pytest.approx(np.mean(pred == ys))
        for v in m.values():
            assert v.lo <= v.mean + 1e-12 and v.mean <= v.hi + 1e-12
    band = lo.pr_curve()
    ok = np.isfinite(band.median)
    assert np.all(band.lo[ok] <= band.median[ok] + 1e-12) and np.all(band.median[ok] <= band.hi[ok] + 1e-12)


def test_jeffreys_intervals_cover_the_pool_values_at_about_the_nominal_rate():
    """Random labeled sets from known pools: the 90% intervals hold the pool's precision/recall/prevalence."""
    hits = {"prevalence": [], "precision": [], "recall": []}
    for seed in range(200):
        s, y, rng = _pool(seed, n=3000, prevalence=0.2)
        idx = rng.choice(s.size, 50, replace=False)
        lo = labeled_only(s, idx, y[idx], rng=seed, n_bootstrap=100)
        p = lo.prevalence()
        hits["prevalence"].append(p.lo <= y.mean() <= p.hi)
        m = lo.metrics_at(1.0)
        pred = s >= 1.0
        for name, truth in (("precision", y[pred].mean()), ("recall", y[pred].sum() / y.sum())):
            if np.isfinite(m[name].lo):
                hits[name].append(m[name].lo <= truth <= m[name].hi)
    for name, h in hits.items():
        assert 0.82 <= np.mean(h) <= 0.97, (name, np.mean(h))


def test_threshold_probability_and_errors():
    s = np.arange(10.0)
    y = np.array([0, 0, 0, 1, 0, 0, 1, 1, 1, 1])
    lo = labeled_only(s, np.arange(10), y, rng=0)
    tp = lo.threshold_probability(min_precision=1.0, min_recall=0.0)
    np.testing.assert_array_equal(tp.threshold, s)
    # at τ = 6 every resample's items above τ are positive (precision 1, or undefined when none drawn)
    assert tp.probability[6] > 0.95 and tp.probability[0] == 0.0
    best = lo.best_threshold(min_precision=1.0)
    assert best.threshold == 6.0
    with pytest.raises(ValueError, match="at least one labeled"):
        labeled_only(s, [], [])
    with pytest.raises(ValueError, match="finite"):
        lo.metrics_at(float("nan"))
    d = lo.to_dict()
    assert d["prevalence"]["mean"] == pytest.approx(0.5) and len(d["pr_curve"]["recall"]) == 101


def test_truth_curves_and_metrics_match_sklearn():
    from sklearn.metrics import precision_score, recall_score, roc_curve

    from spe.baselines import metrics_from_labels, roc_curve_from_labels

    rng = np.random.default_rng(7)
    y = (rng.random(300) < 0.3).astype(int)
    s = np.round(rng.normal(y * 1.5, 1.0), 1)  # rounded: many ties
    thresholds = np.array([-1.0, 0.0, 0.5, 1.2, 2.0, 9.0])
    m = metrics_from_labels(s, y, thresholds)
    for t, p, r in zip(thresholds, m["precision"], m["recall"]):
        pred = (s >= t).astype(int)
        if pred.any():
            assert p == pytest.approx(precision_score(y, pred))
        else:
            assert np.isnan(p)
        assert r == pytest.approx(recall_score(y, pred))
    assert np.all(m["true_positives"] + m["false_negatives"] == y.sum())
    fpr, tpr, _ = roc_curve(y, s)
    grid = np.sort(rng.random(50))  # off the vertices, where the polyline is single-valued
    np.testing.assert_allclose(roc_curve_from_labels(s, y, grid), np.interp(grid, fpr, tpr), atol=1e-12)


def test_metric_by_name_is_the_named_query():
    from spe.baselines import labeled_only

    rng = np.random.default_rng(3)
    y = (rng.random(200) < 0.4).astype(int)
    s = rng.normal(y, 1.0)
    idx = np.arange(0, 200, 4)
    base = labeled_only(s, idx, y[idx], n_bootstrap=200, rng=0)
    assert base.metric("prevalence") == base.prevalence()
    assert base.metric("roc_auc", level=0.8) == base.roc_auc(0.8)
    assert base.metric("recall", threshold=0.5) == base.metrics_at(0.5)["recall"]
    with pytest.raises(ValueError, match="needs a threshold"):
        base.metric("precision")
    with pytest.raises(ValueError, match="unknown metric"):
        base.metric("true_positives", threshold=0.5)


def test_the_labeled_only_baseline_of_a_pool_records_its_items_not_its_distinct_values():
    # a pooled evaluation's scores are its K distinct values; the baseline reads only the labeled ones
    values = np.array([0.1, 0.4, 0.7, 0.9])
    index, label = np.array([0, 2, 3]), np.array([0, 1, 1])
    pooled = labeled_only(values, index, label, rng=0, n_items=1_000_000)
    alone = labeled_only(values, index, label, rng=0)
    assert (pooled.n_items, alone.n_items) == (1_000_000, 4)
    assert pooled.prevalence() == alone.prevalence()
