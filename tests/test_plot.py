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


def _evaluation(seed=1):
    s, y = simulate(600, 0.3, seed)
    idx = np.arange(0, 600, 20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return spe.evaluate(s, (idx, y[idx]), families="truncnorm,truncnorm", draws=200, rng=seed)


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
    # zoomed to where the requirement is at all likely (p ≥ 0.01) and the choice, within the thresholds
    t, prob = choice.curve.threshold, choice.curve.probability
    lo, hi = ax.get_xlim()
    assert t.min() <= lo <= min(t[prob >= 0.01].min(), choice.threshold)
    assert max(t[prob >= 0.01].max(), choice.threshold) <= hi <= t.max()
    assert hi - lo < t.max() - t.min()  # the low thresholds, where precision ≥ 0.8 is out of reach, are cut
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


def test_class_densities_are_the_fitted_truncated_normals_per_draw():
    """Fig. 1A's bands: per draw (1 − π)·p₀ and π·p₁ by scipy's truncnorm, weighted quantiles, per score unit."""
    from scipy import stats

    from spe.quantiles import weighted_quantile

    s, y = simulate(500, 0.3, 2)
    idx = np.arange(0, 500, 25)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = spe.evaluate(s, (idx, y[idx]), families="truncnorm,truncnorm", score_model="mixture", draws=200, rng=2)
    dens = ev.class_densities(level=0.8, points=50)
    fit = ev.model
    space = fit.mixture_fit.space
    x = space.to_model(dens.score)
    th = fit.constrained_draws  # prevalence, negative.loc, negative.scale, positive.loc, positive.scale
    per_unit = 1 / (space.hi - space.lo)

    def tn(loc, scale):
        return stats.truncnorm.pdf(x[None, :], (0 - loc[:, None]) / scale[:, None], (1 - loc[:, None]) / scale[:, None],
                                   loc=loc[:, None], scale=scale[:, None]) * per_unit

    neg = (1 - th[:, :1]) * tn(th[:, 1], th[:, 2])
    pos = th[:, :1] * tn(th[:, 3], th[:, 4])
    for band, values in ((dens.negative, neg), (dens.positive, pos), (dens.total, neg + pos)):
        lo, med, hi = weighted_quantile(values, fit.weights, [0.1, 0.5, 0.9])
        np.testing.assert_allclose(band.median, med, rtol=1e-8, atol=1e-12)
        np.testing.assert_allclose(band.lo, lo, rtol=1e-8, atol=1e-12)
        np.testing.assert_allclose(band.hi, hi, rtol=1e-8, atol=1e-12)
    assert dens.axis == "score" and dens.weight == 1.0
    np.testing.assert_allclose(dens.score[[0, -1]], [s.min(), s.max()])
    # densities per score unit: the mixture holds almost all its mass over the scores' range
    assert 0.95 < np.trapezoid(dens.total.median, dens.score) < 1.02
    assert abs(np.trapezoid(dens.positive.median, dens.score) - dens.prevalence.median) < 0.05


def test_score_histogram_draws_the_densities_the_histogram_and_the_labeled_items(digits):
    """Fig. 1A on the shipped real example (digits): the drawn curves are class_densities, the histogram has area 1."""
    from spe.io import read_labels, read_scores
    from spe.plot import plot_score_histogram

    from .conftest import EXAMPLES

    scores = read_scores(EXAMPLES / "digits_scores.csv")
    labels = read_labels(EXAMPLES / "digits_labels.csv", scores)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = spe.evaluate(scores.scores, labels, draws=200, rng=0)
    ax = plot_score_histogram(ev, bins=40)
    dens = ev.class_densities()
    lines = {line.get_label(): line for line in ax.get_lines()}
    neg = next(v for k, v in lines.items() if k.startswith("(1 − π) p₀"))
    pos = next(v for k, v in lines.items() if k.startswith("π p₁"))
    np.testing.assert_allclose(neg.get_xdata(), dens.score)
    np.testing.assert_allclose(neg.get_ydata(), dens.negative.median)
    np.testing.assert_allclose(pos.get_ydata(), dens.positive.median)
    np.testing.assert_allclose(lines["mixture (median)"].get_ydata(), dens.total.median)
    hist = next(p for p in ax.patches if p.get_label().startswith("all "))
    heights, edges = hist.get_data().values, hist.get_data().edges
    assert heights.size == 40 and np.isclose(np.sum(heights * np.diff(edges)), 1.0)
    marks = [c for c in ax.collections if c.get_label().startswith("labeled")]
    assert sum(c.get_offsets().shape[0] for c in marks) == ev.n_labeled
    assert f"{dens.prevalence}" in ax.get_title() and "weight in the estimates" in ax.get_title()
    assert "90%" in neg.get_label()


def test_score_histogram_of_probability_scores_on_a_logit_axis():
    """Probabilities modelled in logit space: logit axis, densities per unit of log-odds, histogram area 1 there."""
    from scipy import special

    from spe.plot import plot_score_histogram

    s, y = simulate(400, 0.3, 3)
    p = special.expit(s - 1)
    idx = np.arange(0, 400, 20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = spe.evaluate(p, (idx, y[idx]), families="truncnorm,truncnorm", score_model="mixture",
                          score_space="logit", draws=200, rng=3)
    dens = ev.class_densities()
    assert dens.axis == "logit(score)"
    np.testing.assert_allclose(dens.z, special.logit(dens.score), rtol=1e-9)
    ax = plot_score_histogram(ev)
    assert ax.get_xscale() == "logit" and "log-odds" in ax.get_xlabel()
    hist = next(q for q in ax.patches if q.get_label().startswith("all ")).get_data()
    heights, edges = hist.values, hist.edges
    assert np.isclose(np.sum(heights * np.diff(special.logit(edges))), 1.0)
    assert 0.9 < np.trapezoid(dens.total.median, dens.z) < 1.02


def test_reliability_interval_at_a_bin_without_positives_starts_at_zero():
    from spe.plot import plot_reliability

    ev = _evaluation()
    truth = np.zeros(ev.n_items, dtype=int)
    p = np.where(np.isin(np.arange(ev.n_items), ev.labeled_index), -1.0, ev.item_probabilities())
    truth[np.argmax(p)] = 1  # one positive, the most probable unlabeled item: the top bin has k = 1, the others 0
    ax = plot_reliability(ev, truth, bins=4)
    segments = ax.collections[-1].get_segments()
    assert [seg[0, 1] for seg in segments[:3]] == [0.0, 0.0, 0.0]
    assert all(seg[1, 1] > 0 for seg in segments)


@pytest.mark.parametrize("plot", ["plot_pr_curve", "plot_roc_curve"])
def test_two_evaluations_overlay_on_one_axes_in_different_colours(plot):
    import matplotlib.colors as mcolors

    import spe.plot

    draw = getattr(spe.plot, plot)
    extra = {"show_labeled": False} if plot == "plot_pr_curve" else {}
    first, second = _evaluation(), _evaluation(seed=2)
    ax = draw(first, label="classifier A", **extra)
    draw(second, ax=ax, label="classifier B", lw=3, ls="--", **extra)
    lines = {line.get_label(): line for line in ax.get_lines()}
    a, b = lines["classifier A"], lines["classifier B"]
    curve = "pr_curve" if plot == "plot_pr_curve" else "roc_curve"
    np.testing.assert_allclose(b.get_ydata(), getattr(second, curve)().median)
    assert mcolors.to_hex(a.get_color()) != mcolors.to_hex(b.get_color())
    assert b.get_linewidth() == 3 and b.get_linestyle() == "--"
    bands = [c for c in ax.collections if "credible band" in str(c.get_label())]
    assert [c.get_label() for c in bands] == ["classifier A 90% credible band", "classifier B 90% credible band"]
    assert mcolors.to_hex(bands[1].get_facecolor()[0]) == mcolors.to_hex(b.get_color())
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "classifier A" in legend and "classifier B" in legend
    assert sum(line.get_label() == "chance" for line in ax.get_lines()) == (plot == "plot_roc_curve")
    given = draw(first, color="tab:olive", label="olive", **extra)
    olive = {line.get_label(): line for line in given.get_lines()}["olive"]
    assert mcolors.to_hex(olive.get_color()) == mcolors.to_hex("tab:olive")



def test_threshold_plots_overlay_with_labels_colours_and_matplotlib_options():
    import matplotlib.pyplot as plt

    from spe.plot import plot_threshold_curves, plot_threshold_probability

    ev = _evaluation()
    ax = plot_threshold_curves(ev, label="a", ls="--")
    plot_threshold_curves(ev, ax=ax, label="b")
    names = [line.get_label() for line in ax.get_lines()]
    assert names == ["a: precision, median", "a: recall, median", "b: precision, median", "b: recall, median"]
    assert ax.get_lines()[0].get_linestyle() == "--" and ax.get_lines()[2].get_linestyle() == "-"
    ax = plot_threshold_probability(ev, min_precision=0.8, min_recall=0.5, label="p, a", color="tab:red", lw=3)
    curve = {line.get_label(): line for line in ax.get_lines()}["p, a"]
    assert curve.get_color() == "tab:red" and curve.get_linewidth() == 3
    plt.close("all")
