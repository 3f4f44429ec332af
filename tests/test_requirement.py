"""The probability that a threshold meets a requirement, allowing that the score model is wrong above it
(spe.performance.requirement): exact small cases and simulations with known truth."""

import numpy as np
import pytest
from scipy import stats

from spe.evaluation import Evaluation
from spe.models.base import FittedScoreModel
from spe.performance import sample_performance


def _evaluation(scores, prob, index, value, m=60, rng=0):
    """An Evaluation whose M draws all say p(y = 1 | s) = prob(s): a posterior with no spread."""
    model = FittedScoreModel("fixed", np.zeros((m, 1)), np.full(m, 1 / m),
                             lambda d, s: np.tile(prob(np.asarray(s, dtype=float)), (d.shape[0], 1)))
    index, value = np.asarray(index, dtype=int), np.asarray(value, dtype=int)
    perf = sample_performance(model, scores, index, value, rng=rng)
    return Evaluation(np.asarray(scores, dtype=float), index, value, 0.9, model, perf,
                      {"negative": "-", "positive": "-"})


def test_labels_only_weight_is_the_two_predictions_of_the_labels_above():
    """Four labeled items above τ (3 positive): the model (p = 0.9 there, the same under every draw) predicted
    them with 0.9³ · 0.1, Beta(1, 1) with 3! 1! / 5!; prior 1/2 each."""
    s = np.linspace(-1, 1, 201)
    ev = _evaluation(s, lambda v: np.where(v >= 0, 0.9, 0.1), index=[150, 160, 170, 180, 20, 30],
                     value=[1, 1, 1, 0, 0, 0])
    check = ev.requirement_check(0.8, 0.0)
    at = np.searchsorted(check.thresholds, 0.45)  # above it: the items at 0.5, 0.6, 0.7, 0.8
    model, alone = 0.9 ** 3 * 0.1, 6 / 120
    assert check.labeled_above[at] == 4 and check.positives_above[at] == 3
    assert check.labels_only_weight[at] == pytest.approx(alone / (alone + model))
    # nothing labeled above the top item's score: neither predicted anything, the weight stays at its prior
    assert check.labels_only_weight[-1] == pytest.approx(0.5)
    # under the labels-only hypothesis, sample precision = (3 + q · unlabeled above) / items above ≥ 0.8
    n_above = np.sum(s >= check.thresholds[at])
    alone_meets = stats.beta.sf((0.8 * n_above - 3) / (n_above - 4), 4, 2)
    w = check.labels_only_weight[at]
    model_meets = check.model_probability[at]
    assert check.meets[:, at].mean() == pytest.approx((1 - w) * model_meets + w * alone_meets, rel=1e-6)


def test_population_performance_reads_the_rate_as_the_precision():
    s = np.linspace(-1, 1, 101)
    ev = _evaluation(s, lambda v: np.where(v >= 0, 0.95, 0.05), index=[90, 95, 10], value=[1, 1, 0])
    check = ev.requirement_check(0.9, 0.0, performance="population")
    at = np.searchsorted(check.thresholds, 0.7)
    assert check.labeled_above[at] == 2 and check.positives_above[at] == 2
    w = check.labels_only_weight[at]
    expected = (1 - w) * 1.0 + w * stats.beta.sf(0.9, 3, 1)  # the model's 0.95 meets 0.9 under every draw
    assert ev.threshold_probability(0.9, 0.0, performance="population").probability[at] == pytest.approx(expected)


def test_a_confident_model_wrong_above_the_threshold_is_not_believed_once_labels_there_disagree():
    """The model says 0.99 above 1.0 where the truth is 0.7: with labels there that disagree, the statement
    drops to what they support; with none there, it cannot exceed about (1 + P(q ≥ 0.9)) / 2."""
    rng = np.random.default_rng(0)
    s = rng.normal(size=4000)
    y = rng.random(4000) < np.where(s >= 1.0, 0.7, 0.05)
    prob = lambda v: np.where(v >= 1.0, 0.99, 0.05)  # noqa: E731
    top = np.flatnonzero(s >= 1.0)
    index = np.concatenate([top[:20], np.flatnonzero(s < 1.0)[:20]])
    ev = _evaluation(s, prob, index, y[index].astype(int))
    curve = ev.threshold_probability(0.9)
    at = np.searchsorted(curve.threshold, 1.0)
    assert curve.labeled_above[at] == 20 and 10 <= curve.positives_above[at] <= 17
    assert curve.model_probability[at] == pytest.approx(1.0)
    assert curve.labels_only_weight[at] > 0.99
    assert curve.probability[at] < 0.1
    blind = _evaluation(s, prob, np.flatnonzero(s < 1.0)[:20], y[s < 1.0][:20].astype(int))
    at = np.searchsorted(blind.threshold_probability(0.9).threshold, 1.0)
    assert blind.threshold_probability(0.9).probability[at] <= 0.5 * (1 + 0.1) + 1e-9


def test_labels_that_agree_with_the_model_leave_it_nearly_its_own_word():
    rng = np.random.default_rng(1)
    s = rng.normal(size=4000)
    prob = lambda v: np.where(v >= 1.0, 0.99, 0.05)  # noqa: E731
    y = rng.random(4000) < prob(s)
    top = np.flatnonzero(s >= 1.0)[:40]
    ev = _evaluation(s, prob, top, y[top].astype(int))
    check = ev.requirement_check(0.9, 0.0)
    at = np.searchsorted(check.thresholds, 1.0)
    assert check.labels_only_weight[at] < 0.05
    assert ev.threshold_probability(0.9).probability[at] > 0.95


def test_labels_the_model_calls_certain_under_most_draws_give_a_finite_probability():
    """Every labeled item negative and p(y = 1 | s) = 0 there under most draws: the ratios PSIS would smooth are
    nearly all equal (ArviZ returns NaN for them); the raw ratios are used and every probability is a number."""
    s = np.linspace(-1, 1, 301)
    m = 60
    model = FittedScoreModel("fixed", np.arange(m, dtype=float)[:, None], np.full(m, 1 / m),
                             lambda d, v: np.clip(np.outer(d[:, 0] >= m - 3, 0.5 + 0 * v) + 0.0 * v, 0, 1))
    index = np.arange(0, 300, 30)
    perf = sample_performance(model, s, index, np.zeros(index.size, dtype=int), rng=0)
    ev = Evaluation(s, index, np.zeros(index.size, dtype=int), 0.9, model, perf, {"negative": "-", "positive": "-"})
    check = ev.requirement_check(0.5, 0.0)
    assert np.all(np.isfinite(check.meets)) and np.all(np.isfinite(check.labels_only_weight))
    assert 0 <= ev.best_threshold(0.5, 0.0).probability <= 1


def test_a_reference_set_whose_map_applies_has_checked_the_model_above_every_threshold():
    """A labeled reference set of the same population and no pool label: its labels checked the model across the
    scores, so the statement is the model's (the labels-only prior falls with the weight of its map)."""
    import spe

    rng = np.random.default_rng(0)
    y = rng.random(6000) < 0.3
    s = np.where(y, rng.normal(2, 1, 6000), rng.normal(0, 1, 6000))
    ev = spe.evaluate(s[:3000], {}, reference=(s[3000:], y[3000:].astype(int)), draws=300, rng=0, workers=1)
    weight = ev.diagnostics["reference"]["weight"]
    assert ev.labels_only_prior() == pytest.approx(0.5 * (1 - weight))
    curve = ev.threshold_probability(0.8, 0.3)
    assert weight > 0.9
    np.testing.assert_allclose(curve.probability, curve.model_probability, atol=0.5 * (1 - weight) + 1e-9)
