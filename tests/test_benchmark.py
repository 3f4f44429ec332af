"""Error against the number of labels (paper §4.3, Fig. 2A): the measure, the experiment and its figure."""

import numpy as np
import pandas as pd
import pytest

from spe.benchmark import error_vs_labels, pr_curve_error

from .conftest import simulate


def test_pr_curve_error_exact_small_cases():
    grid = np.linspace(0, 1, 11)
    assert pr_curve_error(np.full(11, 0.5), np.ones(11), grid) == pytest.approx(0.5)
    # a missing estimate counts as precision 0
    assert pr_curve_error(np.full(11, np.nan), np.full(11, 0.8), grid) == pytest.approx(0.8)
    # |difference| of a triangle: ∫₀¹ r dr = 1/2
    assert pr_curve_error(grid, np.zeros(11), grid) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="same shape"):
        pr_curve_error(np.ones(3), np.ones(11), grid)
    with pytest.raises(ValueError, match="NaN"):
        pr_curve_error(np.ones(11), np.full(11, np.nan), grid)


def test_error_vs_labels_is_exact_when_every_item_is_labeled_and_reproducible():
    s, y = simulate(120, 0.3, 4)
    table = error_vs_labels(s, y, (10, 120), seeds=2, rng=5, draws=100, score_model="platt",
                            families="truncnorm,truncnorm")
    assert len(table) == 4 and sorted(table.n_labels.unique()) == [10, 120]
    full = table[table.n_labels == 120]
    # all labels known: the label draws are the truth, both estimates are the true curve
    np.testing.assert_allclose(full.err_spe, 0.0, atol=1e-12)
    np.testing.assert_allclose(full.err_labeled_only, 0.0, atol=1e-12)
    np.testing.assert_allclose(full.coverage, 1.0)
    np.testing.assert_allclose(full.prevalence_error, 0.0, atol=1e-12)
    assert (full.n_labeled_positive == y.sum()).all()
    few = table[table.n_labels == 10]
    assert ((few.err_spe >= 0) & (few.err_spe <= 1)).all() and (few.n_labeled_positive <= 10).all()
    again = error_vs_labels(s, y, (10, 120), seeds=2, rng=5, draws=100, score_model="platt",
                            families="truncnorm,truncnorm")
    pd.testing.assert_frame_equal(table.drop(columns="seconds"), again.drop(columns="seconds"))
    with pytest.raises(ValueError, match="label counts"):
        error_vs_labels(s, y, (0,))
    with pytest.raises(ValueError, match="positive"):
        error_vs_labels(s, np.zeros_like(y), (10,))


def test_error_plot_draws_medians_and_spread_of_the_trials():
    from spe.plot import plot_error_vs_labels

    rng = np.random.default_rng(0)
    table = pd.DataFrame({"n_labels": np.repeat([10, 20, 50], 8), "err_spe": rng.random(24) * 0.2,
                          "err_naive": rng.random(24) * 0.4})  # the benchmark CSV's column name
    ax = plot_error_vs_labels(table, spread=0.8)
    lines = ax.get_lines()
    np.testing.assert_allclose(lines[0].get_xdata(), [10, 20, 50])
    np.testing.assert_allclose(lines[0].get_ydata(), table.groupby("n_labels").err_spe.median())
    np.testing.assert_allclose(lines[1].get_ydata(), table.groupby("n_labels").err_naive.median())
    band = ax.collections[1].get_paths()[0].vertices[:, 1]
    q = table.groupby("n_labels").err_naive.quantile
    assert np.isclose(band.max(), q(0.9).max()) and np.isclose(band.min(), q(0.1).min())
    assert ax.get_xscale() == "log" and "80% of trials" in lines[0].get_label()
    assert "8 trials per count" in ax.get_title()
    with pytest.raises(ValueError, match="columns"):
        plot_error_vs_labels(table.drop(columns="err_spe"))


def test_error_plot_of_the_saved_real_benchmark_run(tmp_path):
    """Fig. 2A from the trials of a real benchmark run (30 real cases), saved as an image."""
    import matplotlib.image as mpimg

    from spe.plot import plot_error_vs_labels

    from .conftest import ROOT

    trials = pd.read_csv(ROOT / "benchmarks" / "results" / "accuracy_20_50_4105a34.csv")
    ax = plot_error_vs_labels(trials)
    spe_line = ax.get_lines()[0]
    np.testing.assert_allclose(spe_line.get_xdata(), [20, 50])
    np.testing.assert_allclose(spe_line.get_ydata(), trials.groupby("n_labels").err_spe.median())
    assert "300 trials per count" in ax.get_title()
    ax.figure.savefig(tmp_path / "error_vs_labels.png", dpi=100)
    assert mpimg.imread(tmp_path / "error_vs_labels.png").shape[0] > 300
