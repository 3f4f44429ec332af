"""The score pool (spe.pool): the N scores as weighted values, within its stated error of the scores."""

import numpy as np
import pytest

from spe.exceptions import SpeInputError
from spe.pool import CellLayout, CellSummary, ScoreStats, pool_from_scores, tree_combine
from spe.quantiles import sorted_quantile


def test_quantiles_of_repeated_values_are_those_of_the_values_repeated():
    rng = np.random.default_rng(0)
    for _ in range(20):
        values = np.sort(rng.normal(size=rng.integers(1, 40)))
        counts = rng.integers(1, 6, values.size)
        q = rng.random(15)
        assert np.array_equal(sorted_quantile(values, q, counts), sorted_quantile(np.repeat(values, counts), q))
        np.testing.assert_allclose(sorted_quantile(values, q, counts), np.quantile(np.repeat(values, counts), q))


@pytest.mark.parametrize("kind", ["probability", "normal", "outlier"])
def test_every_item_is_within_the_stated_error_of_its_value(kind):
    rng = np.random.default_rng(1)
    s = {"probability": rng.beta(0.3, 0.3, 50_000), "normal": rng.normal(size=50_000),
         "outlier": np.append(rng.normal(size=49_999), 1e6)}[kind]
    labeled = rng.choice(s.size, 40, replace=False)
    pool = pool_from_scores(s, labeled, rng.integers(0, 2, 40), cells=4096)
    assert pool.n_items == s.size
    assert np.array_equal(np.sort(pool.values[pool.labeled_index]), np.sort(s[labeled]))
    assert np.all(pool.counts[pool.labeled_index] == 1)
    # each item's value: its cell's (the midpoint of the cell's smallest and largest score)
    layout = CellLayout.of(ScoreStats.of(s), 4096)
    summary = CellSummary.of(s, layout)
    with np.errstate(invalid="ignore"):  # empty cells: inf − inf
        value = (0.5 * (summary.lo + summary.hi))[layout.cell_of(s)]
    assert np.max(np.abs(value - s)) <= pool.max_error
    assert set(np.delete(value, labeled)) <= set(pool.values)
    # order statistics move by at most a cell's spread (a labeled item keeps its own score inside its cell)
    assert np.max(np.abs(np.repeat(pool.values, pool.counts) - np.sort(s))) <= 2 * pool.max_error
    q = np.linspace(0, 1, 101)
    assert np.max(np.abs(sorted_quantile(pool.values, q, pool.counts) - np.quantile(s, q))) <= 2 * pool.max_error
    assert pool.values.size < s.size


def test_an_outlier_does_not_squash_the_bulk_into_a_few_cells():
    rng = np.random.default_rng(2)
    s = np.append(rng.normal(size=100_000), 1e6)
    pool = pool_from_scores(s, [], [])
    assert pool.values.size > 5_000
    assert pool.max_error < 1e-3


def test_scores_that_take_few_values_are_kept_exactly():
    rng = np.random.default_rng(3)
    s = np.round(rng.random(20_000), 3)
    pool = pool_from_scores(s, [0, 1], [1, 0])
    assert pool.max_error == 0.0
    assert pool.n_distinct == np.unique(s).size
    assert set(pool.values) == set(np.unique(s))


def test_chunks_combine_to_the_same_pool_in_any_grouping():
    rng = np.random.default_rng(4)
    s = rng.gamma(2.0, size=30_000)
    one = pool_from_scores(s, [5, 7], [1, 0], cells=2048)
    many = pool_from_scores(s, [5, 7], [1, 0], cells=2048, chunk=997)
    for field in ("values", "counts", "labeled_index", "labeled_value"):
        assert np.array_equal(getattr(one, field), getattr(many, field))
    assert one.max_error == many.max_error


def test_the_first_bad_score_is_found_across_chunks():
    parts = [np.array([0.1, 0.2]), np.array([0.3, np.nan, np.inf]), np.array([np.nan])]
    stats = tree_combine(ScoreStats.of(p) for p in parts)
    assert stats.bad == 3 and np.isnan(stats.bad_value) and stats.n == 6


def test_a_labeled_score_that_is_not_a_score_is_an_input_error():
    s = np.linspace(0, 1, 100)
    layout = CellLayout.of(ScoreStats.of(s), 64)
    from spe.pool import ScorePool

    with pytest.raises(SpeInputError, match="not among the scores"):
        ScorePool.from_cells(CellSummary.of(s, layout), [0.12345], [1])
