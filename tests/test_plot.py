"""The PR figure draws what the evaluation computed (artists' data, not pixels)."""

import warnings

import numpy as np

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
