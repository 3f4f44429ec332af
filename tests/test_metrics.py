"""Curves and metrics from label draws, against sklearn.metrics on the same labels."""

import warnings

import numpy as np
import pytest
from sklearn.metrics import average_precision_score, precision_recall_curve, roc_auc_score, roc_curve

from spe.baselines import labeled_only_pr_curve, pr_curve_from_labels
from spe.metrics.curves import RECALL_GRID, average_precision, curves_from_counts, pr_at_recall, roc_at_fpr, roc_auc
from spe.performance import ScoreGroups, sample_performance
from spe.quantiles import weighted_quantile
from spe.models.base import FittedScoreModel

import spe

from .conftest import simulate


def _tp_fp(scores, labels):
    g = ScoreGroups.build(scores, np.arange(scores.size), labels)
    return curves_from_counts(g.n_labeled_pos[None, :], g.counts)


def _sklearn_pr_at_recall(scores, labels, grid):
    """The contract's definition via sklearn: precision of the highest threshold with recall ≥ r."""
    prec, rec, thr = precision_recall_curve(labels, scores)
    prec, rec = prec[:-1], rec[:-1]  # drop sklearn's (recall 0, precision 1) end point
    out = []
    for r in grid:
        ok = np.flatnonzero(rec >= r - 1e-12)
        j = ok[np.argmax(thr[ok])]  # highest threshold among those
        out.append(prec[j])
    return np.array(out)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("tied", [False, True])
def test_pr_roc_ap_auc_match_sklearn(seed, tied):
    rng = np.random.default_rng(seed)
    n = 300
    y = (rng.random(n) < 0.2).astype(int)
    s = rng.normal(size=n) + 1.5 * y
    if tied:
        s = np.round(s, 1)  # heavy ties, like a random forest
    tp, fp = _tp_fp(s, y)
    np.testing.assert_allclose(pr_at_recall(tp, fp)[0], _sklearn_pr_at_recall(s, y, RECALL_GRID), atol=1e-12)
    assert average_precision(tp, fp)[0] == pytest.approx(average_precision_score(y, s), abs=1e-12)
    assert roc_auc(tp, fp)[0] == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    fpr, tpr, _ = roc_curve(y, s, drop_intermediate=False)
    grid = np.linspace(0, 1, 57)
    np.testing.assert_allclose(roc_at_fpr(tp, fp, grid)[0], np.interp(grid, fpr, tpr), atol=1e-12)


def test_rows_are_independent():
    """Row-wise searchsorted: each draw's curve equals the curve computed alone."""
    rng = np.random.default_rng(1)
    s = rng.normal(size=200)
    ys = [(rng.random(200) < p).astype(int) for p in (0.05, 0.3, 0.6)]
    rows = [_tp_fp(s, y) for y in ys]
    tp = np.vstack([r[0] for r in rows])
    fp = np.vstack([r[1] for r in rows])
    both = pr_at_recall(tp, fp)
    for m, (t, f) in enumerate(rows):
        np.testing.assert_array_equal(both[m], pr_at_recall(t, f)[0])


def test_no_positive_gives_nan_curve():
    tp, fp = _tp_fp(np.arange(5.0), np.zeros(5, dtype=int))
    assert np.all(np.isnan(pr_at_recall(tp, fp)))
    assert np.all(np.isnan(labeled_only_pr_curve(np.arange(5.0), np.array([0, 1]), np.array([0, 0]))))


def test_weighted_quantile_matches_numpy_and_repetition():
    rng = np.random.default_rng(0)
    v = rng.normal(size=(50, 3))
    w = rng.integers(1, 4, size=50)
    rep = np.repeat(v, w, axis=0)
    for q in (0.05, 0.5, 0.95):
        np.testing.assert_allclose(weighted_quantile(v, w, q), np.quantile(rep, q, axis=0, method="inverted_cdf"))
    v[3, 1] = np.nan
    out = weighted_quantile(v, w, [0.5])
    keep = ~np.isnan(v[:, 1])
    assert out[0, 1] == pytest.approx(np.quantile(np.repeat(v[keep, 1], w[keep]), 0.5, method="inverted_cdf"))


class _Fixed:
    """A score model with a known p(y = 1 | s) and equal weights."""

    def __init__(self, prob, m):
        self.model = FittedScoreModel("fixed", np.zeros((m, 1)), np.full(m, 1 / m),
                                      lambda d, s: np.tile(prob(s), (d.shape[0], 1)))


def test_each_draw_curve_is_the_curve_of_its_drawn_labels():
    """Reconstruct draw m's labels from its stream and compare its row with sklearn."""
    rng = np.random.default_rng(3)
    n = 150
    s = np.round(rng.normal(size=n), 2)
    prob = lambda x: 1 / (1 + np.exp(-3 * x))  # noqa: E731
    lab_idx = np.array([0, 10, 20])
    lab_val = np.array([1, 0, 1])
    model = _Fixed(prob, 6).model
    perf = sample_performance(model, s, lab_idx, lab_val, rng=11)
    # replay the per-draw streams to recover each draw's labels
    groups = ScoreGroups.build(s, lab_idx, lab_val)
    streams = np.random.default_rng(11).spawn(6)
    has = groups.n_unlabeled > 0
    for m in range(6):
        drawn = streams[m].binomial(groups.n_unlabeled[has], prob(groups.scores[has]))
        pos = groups.n_labeled_pos.copy()
        pos[has] += drawn
        tp, fp = curves_from_counts(pos[None, :], groups.counts)
        np.testing.assert_array_equal(perf.precision_at_recall[m], pr_at_recall(tp, fp)[0])
        assert perf.prevalence[m] == pytest.approx(tp[0, -1] / n)
    # and the labeled items keep their labels in every draw: a model saying "all negative"
    zero = _Fixed(lambda x: np.zeros_like(x), 4).model
    perf0 = sample_performance(zero, s, lab_idx, lab_val, rng=0)
    assert np.all(perf0.prevalence == 2 / n)


def test_result_does_not_depend_on_block_size(monkeypatch):
    import spe.performance.sampling as metrics

    rng = np.random.default_rng(4)
    s = rng.normal(size=500)
    model = _Fixed(lambda x: 1 / (1 + np.exp(-2 * x)), 40).model
    a = sample_performance(model, s, np.array([1]), np.array([1]), rng=2)
    monkeypatch.setattr(metrics, "_BLOCK", 1000)  # 2 draws per block
    b = sample_performance(model, s, np.array([1]), np.array([1]), rng=2)
    c = sample_performance(model, s, np.array([1]), np.array([1]), rng=2, workers=3)  # blocks over 3 threads
    from spe.performance import replay_true_positives

    tau = np.array([-0.31, 0.0123, 1.7])  # not kept thresholds: the label draws are replayed
    for other in (b, c):
        np.testing.assert_array_equal(a.precision_at_recall, other.precision_at_recall)
        np.testing.assert_array_equal(a.ranking_metrics["roc_auc"], other.ranking_metrics["roc_auc"])
        np.testing.assert_array_equal(a.true_positives, other.true_positives)
        np.testing.assert_array_equal(replay_true_positives(a, tau)[0], replay_true_positives(other, tau)[0])
        np.testing.assert_array_equal(a.population.precision_at_recall, other.population.precision_at_recall)
        np.testing.assert_array_equal(replay_true_positives(a.population, tau)[0],
                                      replay_true_positives(other.population, tau)[0])


def test_pr_curve_from_labels_is_the_truth_definition():
    rng = np.random.default_rng(9)
    y = (rng.random(400) < 0.3).astype(int)
    s = rng.normal(size=400) + y
    np.testing.assert_allclose(pr_curve_from_labels(s, y), _sklearn_pr_at_recall(s, y, RECALL_GRID))


def test_binned_groups_keep_ties_whole_and_cover_every_item():
    from spe.performance import ScoreGroups

    rng = np.random.default_rng(4)
    s = np.round(rng.normal(size=5000), 2)  # many ties
    idx = np.arange(0, 5000, 250)
    y = (rng.random(idx.size) < 0.3).astype(int)
    g = ScoreGroups.build(s, idx, y, bins=40)
    assert g.binned and 30 <= g.n_groups <= 40
    assert np.all(np.diff(g.scores) < 0) and g.counts.sum() == s.size
    assert g.n_labeled_pos.sum() == y.sum() and g.n_labeled_neg.sum() == (1 - y).sum()
    # every item lies in its bin: at or above the bin's threshold, below the previous bin's
    assert np.all(s >= g.scores[g.group_of_item])
    upper = np.r_[np.inf, g.scores[:-1]]
    assert np.all(s < upper[g.group_of_item])
    np.testing.assert_allclose(g.p_scores, [s[g.group_of_item == b].mean() for b in range(g.n_groups)])
    exact = ScoreGroups.build(s, idx, y, bins=10**6)  # more bins than distinct scores: exact
    assert not exact.binned and exact.n_groups == np.unique(s).size


def test_guided_bins_resolve_recall_and_false_positive_rate_in_steps_of_two_over_b():
    """With a guide p(s), half of the boundaries are at equal steps of expected positives and half at equal
    steps of expected negatives: no bin holds more than 2/B of either (plus the one item a step can overrun
    by). At a prevalence of 2% equal-count bins lump a fifth of the positives into the top bin."""
    from scipy import special

    from spe.performance import ScoreGroups

    rng = np.random.default_rng(5)
    n, prevalence, bins = 50_000, 0.02, 200
    y = rng.random(n) < prevalence
    s = np.where(y, rng.normal(2.5, 1.0, n), rng.normal(0.0, 1.0, n))

    def p(v):  # the true p(y = 1 | s) of this simulation
        return special.expit(np.log(prevalence / (1 - prevalence)) + 2.5 * v - 2.5**2 / 2)

    idx = np.arange(0, n, 2500)
    guided = ScoreGroups.build(s, idx, y[idx].astype(int), bins=bins, guide=p)
    plain = ScoreGroups.build(s, idx, y[idx].astype(int), bins=bins)
    assert guided.binned and guided.n_groups <= bins and guided.counts.sum() == n
    shares = {}
    for name, g in (("guided", guided), ("plain", plain)):
        pos = np.bincount(g.group_of_item, weights=p(s), minlength=g.n_groups)
        neg = np.bincount(g.group_of_item, weights=1 - p(s), minlength=g.n_groups)
        shares[name] = (pos.max(), pos.sum(), neg.max(), neg.sum())
    top_pos, all_pos, top_neg, all_neg = shares["guided"]
    assert top_pos <= 2 * all_pos / bins + 1 and top_neg <= 2 * all_neg / bins + 1
    assert shares["plain"][0] > 0.15 * all_pos > 5 * top_pos


@pytest.mark.parametrize("bins", [None, 300])
def test_score_groups_from_sorted_scores_are_the_same(bins):
    """Grouping from the scores sorted (O(N), what evaluate does) gives the groups of the O(N log N) path."""
    rng = np.random.default_rng(4)
    s = np.round(rng.normal(size=5000), 2)  # ties
    idx = rng.choice(s.size, 30, replace=False)
    y = rng.integers(0, 2, 30)
    a = ScoreGroups.build(s, idx, y, bins=bins)
    b = ScoreGroups.build(s, idx, y, bins=bins, sorted_scores=np.sort(s))
    for name in ("scores", "n_unlabeled", "n_labeled_pos", "n_labeled_neg", "p_scores", "group_of_item"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert a.binned == b.binned == (bins is not None)
    np.testing.assert_array_equal(b.groups_of(s[idx]), a.group_of_item[idx])


@pytest.mark.slow
@pytest.mark.parametrize("prevalence", [0.2, 0.02])
def test_binned_label_draws_approximate_the_exact_curves(prevalence):
    s, y = simulate(20000, prevalence, 9)
    idx = np.arange(0, 20000, 500)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exact = spe.evaluate(s, (idx, y[idx]), families="truncnorm,truncnorm", draws=300, rng=3, score_bins=None)
        binned = spe.evaluate(s, (idx, y[idx]), families="truncnorm,truncnorm", draws=300, rng=3, score_bins=500)
    assert exact.diagnostics["score_bins"] is None and 400 <= binned.diagnostics["score_bins"] <= 500
    from spe.benchmark import pr_curve_error

    assert pr_curve_error(binned.pr_curve().median, exact.pr_curve().median) < 0.005
    assert abs(binned.prevalence().mean - exact.prevalence().mean) < 0.005
    assert np.max(np.abs(binned.item_probabilities() - exact.item_probabilities())) < 0.01
    with pytest.raises(ValueError, match="score_bins"):
        spe.evaluate(s[:100], None, score_bins=0)
