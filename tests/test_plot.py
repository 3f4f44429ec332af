"""The PR figure draws what the evaluation computed (artists' data, not pixels)."""

import warnings

import numpy as np
import pytest

import spe
from spe.plot import plot_pr_curve

from .conftest import simulate


def test_pr_plot_draws_the_computed_band_and_labeled_items():
    s, y = simulate(600, 0.3, 0)
    idx = np.arange(0, 600, 30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = spe.evaluate(s, (idx, y[idx]), families="truncnorm,truncnorm", draws=200, rng=0)
    truth = np.linspace(1, 0.3, 101)
    ax = plot_pr_curve(ev, truth=truth, level=0.8)
    pr = ev.pr_curve(level=0.8)
    lines = {line.get_label(): line for line in ax.get_lines()}
    np.testing.assert_allclose(lines["SPE median estimate"].get_ydata(), pr.median)
    np.testing.assert_allclose(lines["true curve (all labels)"].get_ydata(), truth)
    band = ax.collections[0]
    verts = band.get_paths()[0].vertices
    assert np.isclose(verts[:, 1].min(), np.nanmin(pr.lo)) and np.isclose(verts[:, 1].max(), np.nanmax(pr.hi))
    assert "80%" in band.get_label()
    pts = ev.labeled_points()
    offsets = np.vstack([c.get_offsets() for c in ax.collections[1:]])
    assert offsets.shape[0] == ev.n_labeled
    np.testing.assert_allclose(np.sort(offsets[:, 0]), np.sort(pts["recall"]))
    assert ax.get_xlabel() == "recall" and ax.get_ylabel() == "precision"
    assert "80%" in ax.get_title()


def _evaluation():
    s, y = simulate(600, 0.3, 1)
    idx = np.arange(0, 600, 20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return spe.evaluate(s, (idx, y[idx]), families="truncnorm,truncnorm", draws=200, rng=1)


def test_threshold_plots_draw_the_computed_curves(tmp_path):
    from spe.plot import plot_threshold_curves, plot_threshold_probability

    ev = _evaluation()
    ax = plot_threshold_curves(ev, level=0.8)
    lines = {line.get_label(): line for line in ax.get_lines()}
    prec, rec = ev.precision_curve(0.8), ev.recall_curve(0.8)
    np.testing.assert_allclose(lines["precision, median"].get_xdata(), prec.x)
    np.testing.assert_allclose(lines["precision, median"].get_ydata(), prec.median)
    np.testing.assert_allclose(lines["recall, median"].get_ydata(), rec.median)
    bands = [c for c in ax.collections if "band" in c.get_label()]
    assert len(bands) == 2 and all("80%" in b.get_label() for b in bands)
    ys = bands[1].get_paths()[0].vertices[:, 1]
    assert np.isclose(ys.min(), np.nanmin(rec.lo)) and np.isclose(ys.max(), np.nanmax(rec.hi))
    assert "score units" in ax.get_xlabel()
    ax.figure.savefig(tmp_path / "threshold_curves.png")

    ax = plot_threshold_probability(ev, min_precision=0.8, min_recall=0.5)
    choice = ev.best_threshold(0.8, 0.5)
    curve = {line.get_label(): line for line in ax.get_lines()}["p(requirement met)"]
    np.testing.assert_allclose(curve.get_xdata(), choice.curve.threshold)
    np.testing.assert_allclose(curve.get_ydata(), choice.curve.probability)
    vline = [line for line in ax.get_lines() if line.get_label().startswith("best threshold")][0]
    assert np.allclose(vline.get_xdata(), choice.threshold)
    ax.figure.savefig(tmp_path / "threshold_probability.png")

    ax = plot_pr_curve(ev, requirement=(0.8, 0.5))
    box = ax.patches[0]
    assert box.get_x() == 0.5 and box.get_y() == 0.8 and "precision ≥ 0.8" in box.get_label()


def test_roc_and_reliability_plots_draw_the_computed_data(tmp_path):
    from scipy import stats

    from spe.plot import plot_reliability, plot_roc_curve

    s, y = simulate(600, 0.3, 1)
    idx = np.arange(0, 600, 20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = spe.evaluate(s, (idx, y[idx]), families="truncnorm,truncnorm", draws=200, rng=1)
    ax = plot_roc_curve(ev, level=0.8)
    roc = ev.roc_curve(0.8)
    line = {ln.get_label(): ln for ln in ax.get_lines()}["SPE median estimate"]
    np.testing.assert_allclose(line.get_xdata(), roc.x)
    np.testing.assert_allclose(line.get_ydata(), roc.median)
    ys = ax.collections[0].get_paths()[0].vertices[:, 1]
    assert np.isclose(ys.min(), np.nanmin(roc.lo)) and np.isclose(ys.max(), np.nanmax(roc.hi))
    ax.figure.savefig(tmp_path / "roc.png")

    ax = plot_reliability(ev, y, bins=5)
    unl = np.setdiff1d(np.arange(600), idx)
    p, yu = ev.item_probabilities()[unl], y[unl]
    groups = np.array_split(np.argsort(p, kind="stable"), 5)
    pts = [ln for ln in ax.get_lines() if ln.get_marker() == "o"][0]
    np.testing.assert_allclose(pts.get_xdata(), [p[g].mean() for g in groups])
    np.testing.assert_allclose(pts.get_ydata(), [yu[g].mean() for g in groups])
    k, n = yu[groups[2]].sum(), groups[2].size
    bars = ax.collections[-1].get_segments()[2][:, 1]
    np.testing.assert_allclose(bars, stats.beta.ppf([0.05, 0.95], k + 0.5, n - k + 0.5))
    ax.figure.savefig(tmp_path / "reliability.png")
    with pytest.raises(ValueError, match="one label per item"):
        plot_reliability(ev, y[:10])
