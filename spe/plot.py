"""Figures from an :class:`~spe.Evaluation` (matplotlib, imported lazily).

Functions take an ``Evaluation`` and ``ax=None`` and return the Axes; they
draw what the evaluation computed and estimate nothing new (the reliability
diagram only bins the item probabilities against known labels). No global style
changes, no ``show``/``savefig`` (the CLI saves).
"""

from __future__ import annotations

import warnings

import numpy as np

from .evaluation import summarise_draws
from .exceptions import NotSavedError, SpeInputError
from .metrics import REGISTRY as METRICS
from .metrics.curves import reliability_bins

__all__ = ["plot_score_histogram", "plot_pr_curve", "plot_roc_curve", "plot_threshold_curves",
           "plot_threshold_probability", "plot_class_threshold_probability", "plot_reliability",
           "plot_error_vs_labels", "report_figures",
           "plot_comparison_pr", "plot_differences", "comparison_figure", "plot_label_plan", "plot_monitoring",
           "monitoring_figure", "plot_slice_gaps", "plot_confusion_matrix", "plot_class_pr_curves",
           "plot_class_reliability", "multiclass_figure", "plot_class_metrics", "class_comparison_figure",
           "plot_accuracy_vs_labels"]


#: The x-axis label of every figure against the threshold.
_THRESHOLD_AXIS = "threshold (score units; items scored ≥ it are predicted positive)"


def _finish(ax, *, xlabel, ylabel, title, legend="best", unit_x=False, legend_size=8):
    """The common ending of every figure: y (and x for rates) in [0, 1], labels, title, legend, grid."""
    if unit_x:
        ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(loc=legend, fontsize=legend_size)
    ax.grid(alpha=0.3)
    return ax


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(5.5, 4.5), layout="constrained")
    return ax


#: The gid of an estimate's median line: a later estimate drawn into the same Axes takes the next colour.
_ESTIMATE = "spe-estimate"


def _earlier_estimates(ax):
    """How many estimates' median lines ``ax`` already holds."""
    return sum(line.get_gid() == _ESTIMATE for line in ax.get_lines())


def _estimate_style(earlier, color, label, pct):
    """Colours and legend entries of an estimate's median line and band, given how many estimates the Axes
    already holds: (line colour, band colour, line label, band label). The first estimate on an Axes is red on a
    purple band unless ``color`` is given; each later one takes the next colour of matplotlib's cycle (C1, C2,
    ...), band and line alike, so overlays differ. ``label`` names the estimate in the legend (default "SPE")."""
    if color is None:
        line, band = ("tab:red", "tab:purple") if earlier == 0 else (f"C{earlier}", f"C{earlier}")
    else:
        line = band = color
    name = "SPE" if label is None else str(label)
    return line, band, f"{name} median estimate" if label is None else name, f"{name} {pct} credible band"


def _mark_labeled(ax, x, y, labels, transform=None):
    """Labeled positives as green triangles, negatives as black crosses, at (x, y) (arrays of shape (n,))."""
    pos = np.asarray(labels) == 1
    extra = {} if transform is None else {"transform": transform}
    ax.scatter(x[pos], y[pos], marker="^", s=28, color="tab:green", zorder=3,
               label=f"labeled positive ({int(pos.sum())})", **extra)
    ax.scatter(x[~pos], y[~pos], marker="x", s=22, color="black", zorder=3,
               label=f"labeled negative ({int((~pos).sum())})", **extra)


def _check_truth(evaluation, truth):
    """Every item's true label as an array of shape (N,), or a ValueError (SpeInputError for an evaluation of
    a pool, which keeps no item's own score)."""
    if evaluation.counts is not None:
        raise SpeInputError("truth is compared item by item: this evaluation counted the scores into a pool "
                            "(engine 'binned' or 'dask'); evaluate with engine='memory'", argument="truth")
    truth = np.asarray(truth)
    if truth.shape != (evaluation.n_items,):
        raise ValueError(f"truth must have one label per item ({evaluation.n_items}), got shape {truth.shape}")
    return truth


#: The score histogram's y axis reaches at most this many times its tallest bar: a fitted density spike (a
#: component collapsed onto tied scores can reach the largest float) runs off the top instead of flattening
#: the histogram to nothing.
SPIKE_CAP = 4.0


def plot_score_histogram(evaluation, ax=None, *, level=None, bins=60, show_labeled=True):
    """Histogram of all N scores with the SPE mixture's class-conditional densities (paper Fig. 1A).

    Draws the histogram of every item's score (area 1), the densities
    (1 − π) p₀ and π p₁ of :meth:`Evaluation.class_densities` (weighted
    medians with credible bands) and their sum, and marks the labeled items
    under the histogram by class. Probability scores modelled in logit space
    are drawn on matplotlib's logit axis, so the ticks stay in score units
    and the densities are per unit of log-odds. The y axis shows the
    histogram and the densities up to :data:`SPIKE_CAP` times its tallest
    bar; a taller spike runs off the top.

    Parameters
    ----------
    evaluation : Evaluation
    ax : matplotlib Axes, optional
    level : float, optional
        Credible level of the bands (default: the evaluation's).
    bins : int
        Equal-width histogram bins (on the density's axis).
    show_labeled : bool
        Mark labeled positives (green triangles) and negatives (black
        crosses) just above the score axis.

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    ValueError
        The evaluation has no SPE mixture.
    """
    from scipy import special

    dens = evaluation.class_densities(level)
    ax = _axes(ax)
    logit = dens.axis == "logit(score)"
    z_of = (lambda s: special.logit(np.clip(s, dens.score[0], dens.score[-1]))) if logit else (lambda s: s)
    to_x = special.expit if logit else (lambda z: z)
    edges = np.linspace(dens.z[0], dens.z[-1], int(bins) + 1)
    counts, _ = np.histogram(z_of(evaluation.scores), edges, weights=evaluation.counts)  # counts: a pool's
    ax.stairs(counts / (counts.sum() * np.diff(edges)), to_x(edges), fill=True, color="0.82",
              label=f"all {evaluation.n_items:,} scores")
    pct = f"{100 * dens.negative.level:g}%"
    top = float(np.max(counts / (counts.sum() * np.diff(edges)), initial=0.0))
    y_top = 1.12 * max(top, min(float(np.nanmax(dens.total.hi, initial=0.0)), SPIKE_CAP * top))

    def shown(values):  # a spike far above the axes is drawn to just past its top (finite for the renderer)
        return np.minimum(values, 2 * y_top)

    for band, color, name in ((dens.negative, "tab:blue", "(1 − π) p₀, negative class"),
                              (dens.positive, "tab:red", "π p₁, positive class")):
        ax.fill_between(band.x, shown(band.lo), shown(band.hi), color=color, alpha=0.25, lw=0)
        ax.plot(band.x, shown(band.median), color=color, lw=1.6, label=f"{name} (median, {pct} band)")
    ax.plot(dens.total.x, shown(dens.total.median), color="black", lw=1.0, ls="--", label="mixture (median)")
    if logit:
        from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

        ax.set_xscale("logit")
        ticks = [v for v in (*10.0 ** np.arange(-15, 0), 0.5, *(1 - 10.0 ** np.arange(-1, -16, -1)))
                 if dens.score[0] <= v <= dens.score[-1]]
        mid = ticks.index(0.5) if 0.5 in ticks else len(ticks) // 2
        step = -(-len(ticks) // 7)  # at most about 7 labels, symmetric about 0.5
        ticks = ticks[mid::-step][::-1] + ticks[mid + step::step]
        ax.xaxis.set_major_locator(FixedLocator(ticks))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}" if v <= 0.5 else f"1−{1 - v:.0e}"
                                                   if v > 0.9999 else f"{v:.4g}"))
        ax.xaxis.set_minor_locator(NullLocator())
    ax.set_ylim(0, y_top)
    if show_labeled and evaluation.n_labeled:
        pts = evaluation.labeled_points()
        at = np.clip(pts["score"], dens.score[0], dens.score[-1])  # exact 0/1 probabilities at the axis ends
        # just above the score axis: x in data units, y in axes fraction (positives above negatives)
        _mark_labeled(ax, at, np.where(pts["label"] == 1, 0.05, 0.025), pts["label"], ax.get_xaxis_transform())
    ax.set_xlabel("score (logit axis; densities per unit of log-odds)" if logit else "score (score units)")
    ax.set_ylabel("density")
    check = dens.histogram_check
    fit_text = ("" if check is None else
                f"histogram check p = {check['p_value']:.2f}" + (", " if check["passed"] else " (misfit), "))
    ax.set_title(f"SPE mixture: {dens.families['negative']} negative, {dens.families['positive']} positive\n"
                 f"π = {dens.prevalence} ({pct} interval)\n"
                 f"{fit_text}weight in the estimates {dens.weight:.2f}", fontsize=10)
    ax.legend(loc="best", fontsize=8)
    ax.grid(alpha=0.3)
    return ax


def plot_pr_curve(evaluation, ax=None, *, level=None, truth=None, labeled_only=None, show_labeled=True,
                  requirement=None, label=None, color=None, **kwargs):
    """Precision-recall curve with its credible band (paper Fig. 1C).

    Parameters
    ----------
    evaluation : Evaluation
    ax : matplotlib Axes, optional
    level : float, optional
        Credible level of the band (default: the evaluation's).
    truth : array, shape (G,), optional
        The true precision on the evaluation's recall grid (all labels
        known), drawn in black.
    labeled_only : array, shape (G,), optional
        The labeled-only estimate on the same grid, drawn dashed.
    show_labeled : bool
        Mark the labeled items at their estimated (recall, precision):
        positives as green triangles, negatives as black crosses.
    requirement : (float, float), optional
        (min_precision, min_recall): drawn as the box of the PR plane that
        meets it (paper Fig. 4A).
    label : str, optional
        The estimate's name in the legend (e.g. the classifier's): the median
        line is called ``label``, the band "``label`` 90% credible band".
    color : matplotlib colour, optional
        Of the median line and its band. Default: red on a purple band for
        the first estimate on ``ax``, the next colour of the cycle for each
        later one (overlays of several evaluations differ).
    **kwargs
        Passed to the median line (``Axes.step``): ``lw``, ``ls``, ``alpha``...

    Returns
    -------
    matplotlib Axes
    """
    ax = _axes(ax)
    if requirement is not None:
        _requirement_box(ax, *requirement)
    pr = evaluation.pr_curve(level)
    pct = f"{100 * pr.level:g}%"
    line, band, line_label, band_label = _estimate_style(_earlier_estimates(ax), color, label, pct)
    ax.fill_between(pr.x, pr.lo, pr.hi, step="post", color=band, alpha=0.25, lw=0, label=band_label)
    ax.step(pr.x, pr.median, where="post", **{"color": line, "lw": 1.8, "label": line_label, **kwargs},
            gid=_ESTIMATE)
    if truth is not None:
        ax.step(pr.x, truth, where="post", color="black", lw=1.2, label="true curve (all labels)")
    if labeled_only is not None:
        ax.step(pr.x, labeled_only, where="post", color="tab:gray", ls="--", lw=1.2, label="labeled items only")
    if show_labeled and evaluation.n_labeled:
        try:
            pts = evaluation.labeled_points()
        except NotSavedError:  # a saved result (spe.load): placing them needs the posterior draws
            pts = None
        if pts is not None:
            _mark_labeled(ax, pts["recall"], pts["precision"], pts["label"])
    return _finish(ax, xlabel="recall", ylabel="precision",
                   title=f"Precision-recall, {evaluation.n_items} items, {evaluation.n_labeled} labeled\n"
                         f"band: {pct} equal-tailed posterior interval",
                   legend="lower left", unit_x=True)


def plot_threshold_curves(evaluation, ax=None, *, level=None, performance="sample", truth=None, label=None,
                          **kwargs):
    """Precision and recall against the threshold, with their credible bands (paper Fig. 1B).

    Parameters
    ----------
    evaluation : Evaluation
    ax : matplotlib Axes, optional
    level : float, optional
        Credible level of the bands (default: the evaluation's).
    performance : {"sample", "population"}
    truth : 0/1 array, shape (N,), optional
        Every item's true label: the true precision and recall are drawn
        as thin dark lines.
    label : str, optional
        Prefixed to the legend entries (``"old: precision, median"``), to
        tell several evaluations apart on one Axes.
    **kwargs
        Passed to both median lines (``Axes.plot``): ``ls``, ``lw``, ``alpha``...

    Returns
    -------
    matplotlib Axes
        x: the threshold in score units (items scored ≥ it are predicted
        positive); y: precision and recall (medians and bands of
        :meth:`Evaluation.precision_curve` / :meth:`Evaluation.recall_curve`).
    """
    ax = _axes(ax)
    prec = evaluation.precision_curve(level, performance)
    rec = evaluation.recall_curve(level, performance)
    pct = f"{100 * prec.level:g}%"
    for band, color, name in ((prec, "tab:blue", "precision"), (rec, "tab:orange", "recall")):
        name = name if label is None else f"{label}: {name}"
        ax.fill_between(band.x, band.lo, band.hi, color=color, alpha=0.2, lw=0, label=f"{name}, {pct} credible band")
        ax.plot(band.x, band.median, **{"color": color, "lw": 1.8, "label": f"{name}, median", **kwargs})
    if truth is not None:
        from .baselines import metrics_from_labels

        true = metrics_from_labels(evaluation.scores, truth, prec.x)
        ax.plot(prec.x, true["precision"], color="navy", lw=0.9, label="true precision (all labels)")
        ax.plot(rec.x, true["recall"], color="saddlebrown", lw=0.9, label="true recall (all labels)")
    return _finish(ax, xlabel=_THRESHOLD_AXIS, ylabel="precision / recall",
                   title=f"Precision and recall against the threshold ({performance} performance)\n"
                         f"bands: {pct} equal-tailed posterior intervals")


#: :func:`plot_threshold_probability` zooms to the thresholds where p(requirement met) is at least this.
ZOOM_PROBABILITY = 0.01


def plot_threshold_probability(evaluation, ax=None, *, min_precision=0.0, min_recall=0.0, performance="sample",
                               label=None, color="tab:green", **kwargs):
    """p(C(τ)): the probability that each threshold meets a precision/recall requirement (paper Fig. 4B).

    Parameters
    ----------
    evaluation : Evaluation
    ax : matplotlib Axes, optional
    min_precision, min_recall : float in [0, 1]
        The requirement C = [precision ≥ min_precision ∧ recall ≥ min_recall].
    performance : {"sample", "population"}
    label : str, optional
        The curve's legend entry (default "p(requirement met)").
    color : matplotlib colour
        Of the curve and the chosen threshold's line.
    **kwargs
        Passed to the curve (``Axes.plot``).

    Returns
    -------
    matplotlib Axes
        The curve of :meth:`Evaluation.threshold_probability` against the
        threshold (score units), the score model's own probability dotted
        (what it would be if the model were right above every threshold),
        the threshold :meth:`Evaluation.best_threshold` picks as a vertical
        line, and probability 0.5 dashed. The x axis
        shows the thresholds where the probability is at least
        :data:`ZOOM_PROBABILITY` and the chosen one, with a margin of a
        tenth of that range (all thresholds when none reaches it): at large
        N the requirement is often met only within a narrow band of scores.
    """
    ax = _axes(ax)
    choice = evaluation.best_threshold(min_precision, min_recall, performance=performance)
    _draw_threshold_probability(ax, choice, color, label, kwargs)
    return _finish(ax, xlabel=_THRESHOLD_AXIS, ylabel="posterior probability",
                   title=f"p(precision ≥ {min_precision:g} and recall ≥ {min_recall:g}) per threshold\n"
                         f"({performance} performance, {evaluation.n_labeled} labeled of {evaluation.n_items})")


def plot_class_threshold_probability(evaluation, cls, ax=None, *, min_precision=0.0, min_recall=0.0,
                                     performance="sample", choice=None, label=None, color="tab:green", **kwargs):
    """A multiclass classifier's p(C(τ)) for one class's one-vs-rest decision "probability of ``cls`` ≥ τ"
    (:meth:`spe.multiclass.MulticlassEvaluation.best_threshold`), as :func:`plot_threshold_probability` draws it;
    the threshold axis is in probability units. ``choice``: that method's result if already computed (its
    requirement and performance are drawn; the others are then not read).

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    ValueError
        ``cls`` is not one of the evaluation's classes (without ``choice``).
    SpeInputError
        A requirement outside [0, 1] (without ``choice``).
    """
    ax = _axes(ax)
    if choice is None:
        choice = evaluation.best_threshold(cls, min_precision, min_recall, performance=performance)
    _draw_threshold_probability(ax, choice, color, label, kwargs)
    c = choice.curve
    return _finish(ax, xlabel=f"threshold on the probability of {cls} (items at or above it are flagged)",
                   ylabel="posterior probability",
                   title=f"{cls}: p(precision ≥ {c.min_precision:g} and recall ≥ {c.min_recall:g}) per threshold\n"
                         f"({c.performance} performance, {evaluation.n_labeled} labeled of {evaluation.n_items})")


def _draw_threshold_probability(ax, choice, color, label, kwargs):
    """p(C(τ)) against τ, the model's own dotted (when it differs), the chosen threshold and 0.5; the x axis
    zoomed to where the probability is at least :data:`ZOOM_PROBABILITY`."""
    curve = choice.curve
    ax.plot(curve.threshold, curve.probability,
            **{"color": color, "lw": 1.8, "label": label or "p(requirement met)", **kwargs})
    if curve.model_probability is not None:
        ax.plot(curve.threshold, curve.model_probability, color=color, lw=1.0, ls=":",
                label="the score model's own (if right above the threshold)")
    ax.axvline(choice.threshold, color=color, lw=1.0,
               label=f"best threshold {choice.threshold:.4g} (p = {choice.probability:.2f})")
    ax.axhline(0.5, color="tab:gray", ls="--", lw=0.8)
    t, prob = np.asarray(curve.threshold, dtype=float), np.asarray(curve.probability, dtype=float)
    likely = t[prob >= ZOOM_PROBABILITY]
    if likely.size and t.max() > t.min():
        lo, hi = min(likely.min(), choice.threshold), max(likely.max(), choice.threshold)
        pad = 0.1 * (hi - lo) if hi > lo else 0.02 * (t.max() - t.min())
        ax.set_xlim(max(t.min(), lo - pad), min(t.max(), hi + pad))


def _requirement_box(ax, p_min, r_min):
    """The requirement precision ≥ p_min and recall ≥ r_min as a box on precision-recall axes."""
    from matplotlib.patches import Rectangle

    ax.add_patch(Rectangle((r_min, p_min), 1 - r_min, 1.02 - p_min, facecolor="tab:green", alpha=0.12,
                           edgecolor="tab:green", lw=1.2,
                           label=f"requirement: precision ≥ {p_min:g}, recall ≥ {r_min:g}"))


def plot_roc_curve(evaluation, ax=None, *, level=None, performance="sample", truth=None, label=None, color=None,
                   **kwargs):
    """ROC curve (true positive rate against false positive rate) with its credible band.

    Parameters
    ----------
    evaluation : Evaluation
    ax : matplotlib Axes, optional
    level : float, optional
        Credible level of the band (default: the evaluation's).
    performance : {"sample", "population"}
    truth : array, shape (G,), optional
        The true TPR on the evaluation's FPR grid (all labels known), drawn
        in black.
    label, color, **kwargs
        As :func:`plot_pr_curve` (the chance diagonal is drawn once).

    Returns
    -------
    matplotlib Axes
        The median and band of :meth:`Evaluation.roc_curve` (linear between
        grid points, as the ROC polyline), and the chance diagonal.
    """
    ax = _axes(ax)
    roc = evaluation.roc_curve(level, performance)
    pct = f"{100 * roc.level:g}%"
    earlier = _earlier_estimates(ax)
    line, band, line_label, band_label = _estimate_style(earlier, color, label, pct)
    ax.fill_between(roc.x, roc.lo, roc.hi, color=band, alpha=0.25, lw=0, label=band_label)
    ax.plot(roc.x, roc.median, **{"color": line, "lw": 1.8, "label": line_label, **kwargs}, gid=_ESTIMATE)
    if truth is not None:
        ax.plot(roc.x, truth, color="black", lw=1.2, label="true curve (all labels)")
    if earlier == 0:
        ax.plot([0, 1], [0, 1], color="tab:gray", ls=":", lw=1.0, label="chance")
    auc = evaluation.roc_auc(level, performance)
    return _finish(ax, xlabel="false positive rate", ylabel="true positive rate (recall)",
                   title=f"ROC, {evaluation.n_items} items, {evaluation.n_labeled} labeled; AUC {auc}\n"
                         f"band: {pct} equal-tailed posterior interval",
                   legend="lower right", unit_x=True)


def plot_reliability(evaluation, truth, ax=None, *, bins=10, level=0.9):
    """Reliability diagram of the recalibrated item probabilities against known labels (paper §4.4).

    The unlabeled items are put in ``bins`` equal-count bins of p̂(y = 1 | S, Y_L)
    (:meth:`Evaluation.item_probabilities`); each bin's mean p̂ is drawn against the
    fraction of its items that are truly positive, with a Jeffreys interval
    (Beta(k + ½, n − k + ½) quantiles at ``level``). Well-calibrated
    probabilities lie on the diagonal.

    Parameters
    ----------
    evaluation : Evaluation
    truth : 0/1 array, shape (N,)
        The true label of every item (e.g. a benchmark case); only the
        unlabeled items' labels are used.
    ax : matplotlib Axes, optional
    bins : int
    level : float
        Level of the per-bin intervals.

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    ValueError
        ``truth`` not of length N, or no unlabeled item.
    """
    from scipy import stats

    truth = _check_truth(evaluation, truth)
    unlabeled = np.ones(evaluation.n_items, dtype=bool)
    unlabeled[evaluation.labeled_index] = False
    if not unlabeled.any():
        raise ValueError("every item is labeled: nothing left to check the probabilities on")
    p = evaluation.item_probabilities()[unlabeled]
    y = truth[unlabeled].astype(int)
    order = np.argsort(p, kind="stable")
    groups = [g for g in np.array_split(order, min(bins, p.size)) if g.size]
    mean_p = np.array([p[g].mean() for g in groups])
    k = np.array([y[g].sum() for g in groups])
    n = np.array([g.size for g in groups])
    frac = k / n
    # Jeffreys interval, with the usual boundary fix (Brown, Cai & DasGupta 2001): 0 when k = 0, 1 when k = n
    lo = np.where(k == 0, 0.0, stats.beta.ppf((1 - level) / 2, k + 0.5, n - k + 0.5))
    hi = np.where(k == n, 1.0, stats.beta.ppf((1 + level) / 2, k + 0.5, n - k + 0.5))
    ax = _axes(ax)
    ax.plot([0, 1], [0, 1], color="tab:gray", ls=":", lw=1.0, label="perfect calibration")
    ax.errorbar(mean_p, frac, yerr=[frac - lo, hi - frac], fmt="o-", color="tab:blue", ms=4, capsize=2,
                label=f"{len(groups)} equal-count bins, {100 * level:g}% Jeffreys intervals")
    return _finish(ax, xlabel="mean predicted probability p̂(y = 1 | scores, labels) in the bin",
                   ylabel="fraction truly positive",
                   title=f"Reliability of the item probabilities ({int(unlabeled.sum())} unlabeled items)",
                   legend="upper left", unit_x=True)


def plot_error_vs_labels(trials, ax=None, *, spread=0.5, title=None):
    """Error of the PR-curve estimate against the number of labels, SPE and labeled-only (paper Fig. 2A).

    Parameters
    ----------
    trials : pandas.DataFrame
        One row per trial with columns ``n_labels``, ``err_spe`` and
        ``err_labeled_only`` (or ``err_naive``): the table of
        :func:`spe.benchmark.error_vs_labels` or the trials CSV of
        ``benchmarks/accuracy.py`` (all its cases pooled; filter rows to show one).
    ax : matplotlib Axes, optional
    spread : float in (0, 1)
        The central fraction of trials drawn as the shaded spread around
        each median (default 0.5: the interquartile range).
    title : str, optional

    Returns
    -------
    matplotlib Axes
        x: number of labeled items (log axis); y: area between the estimated
        and the true PR curve (:func:`spe.benchmark.pr_curve_error`), the
        median over trials with its spread.

    Raises
    ------
    ValueError
        Missing columns, no trials, or ``spread`` outside (0, 1).
    """
    if not 0 < spread < 1:
        raise ValueError(f"spread must be in (0, 1), got {spread!r}")
    naive_col = "err_labeled_only" if "err_labeled_only" in trials.columns else "err_naive"
    missing = {"n_labels", "err_spe", naive_col} - set(trials.columns)
    if missing:
        raise ValueError(f"trials lack the columns {sorted(missing)}")
    trials = trials.dropna(subset=["err_spe", naive_col])
    if trials.empty:
        raise ValueError("no trials to plot")
    q = [(1 - spread) / 2, 0.5, (1 + spread) / 2]
    by = trials.groupby("n_labels")
    n = np.asarray(sorted(by.groups), dtype=float)
    ax = _axes(ax)
    for col, color, marker, name in (("err_spe", "tab:red", "o", "SPE (all scores + labels)"),
                                     (naive_col, "tab:gray", "s", "labeled items only")):
        lo, med, hi = (by[col].quantile(v).reindex(n).to_numpy() for v in q)
        ax.fill_between(n, lo, hi, color=color, alpha=0.2, lw=0)
        ax.plot(n, med, color=color, marker=marker, ms=4, lw=1.6,
                label=f"{name}: median, {100 * spread:g}% of trials shaded")
    ax.set_xscale("log")
    ax.set_xticks(n, [f"{v:g}" for v in n])
    ax.minorticks_off()
    ax.set_ylim(bottom=0)
    ax.set_xlabel("number of labeled items (drawn at random)")
    ax.set_ylabel("error: area between estimated and true PR curve")
    per = by.size()
    trials_text = f"{per.min()}" if per.min() == per.max() else f"{per.min()}–{per.max()}"
    ax.set_title(title or f"PR-curve error against the number of labels\n({trials_text} trials per count)",
                 fontsize=10)
    ax.legend(loc="best", fontsize=8)
    ax.grid(alpha=0.3)
    return ax


def report_figures(evaluation, *, labeled_only=None, truth=None, requirement=None, performance="sample"):
    """Every figure of an evaluation, each on its own new Figure (what ``spe estimate --report`` saves).

    Parameters
    ----------
    evaluation : Evaluation
    labeled_only : LabeledOnly, optional
        The labeled-only estimate (:func:`spe.baselines.labeled_only`),
        drawn dashed on the PR curve.
    truth : 0/1 array, shape (N,), optional
        Every item's true label (checking the method on a labeled set): the
        true PR and ROC curves are drawn, and the reliability diagram is added.
    requirement : (float, float), optional
        (min_precision, min_recall): adds p(requirement met) against the
        threshold (Fig. 4B) and draws the requirement on the PR curve (Fig. 4A).
    performance : {"sample", "population"}

    Returns
    -------
    dict of str → (matplotlib Figure, str)
        File stem → (figure, one-line caption), in reading order:
        ``scores`` (Fig. 1A; only when the evaluation has an SPE mixture),
        ``threshold_curves`` (Fig. 1B), ``pr_curve`` (Fig. 1C, 2B, 4A),
        ``roc_curve``, ``threshold_probability`` (Fig. 4B, with
        ``requirement``), ``reliability`` (with ``truth``). The caller saves
        and closes them.

    Raises
    ------
    ValueError
        ``truth`` not of length N.
    """
    import matplotlib.pyplot as plt

    from .baselines import pr_curve_from_labels, roc_curve_from_labels

    if truth is not None:
        truth = _check_truth(evaluation, truth)
    pct = f"{100 * evaluation.level:g}%"
    out = {}

    def new(name, caption, draw):
        fig, ax = plt.subplots(figsize=(6, 4.8), layout="constrained")
        draw(ax)
        out[name] = (fig, caption)

    if evaluation.mixture_model() is not None:
        new("scores", f"Histogram of all scores with the SPE mixture's class-conditional densities and their {pct} "
            "bands; labeled items marked by class (paper Fig. 1A).", lambda ax: plot_score_histogram(evaluation, ax))
    new("threshold_curves", f"Precision and recall against the threshold (score units) with {pct} credible bands "
        "(paper Fig. 1B)" + (", and the true ones" if truth is not None else "") + ".",
        lambda ax: plot_threshold_curves(evaluation, ax, performance=performance, truth=truth))
    pr_truth = None if truth is None else pr_curve_from_labels(evaluation.scores, truth)
    parts = [f"its {pct} credible band"] + (["the labeled-only estimate"] if labeled_only is not None else []) + \
        (["the true curve"] if truth is not None else []) + \
        (["the requirement as a box"] if requirement is not None else [])
    new("pr_curve", f"Precision-recall curve with {', '.join(parts[:-1]) + ' and ' if len(parts) > 1 else ''}"
        f"{parts[-1]} (paper Fig. 1C, 2B, 4A).",
        lambda ax: plot_pr_curve(evaluation, ax, truth=pr_truth, requirement=requirement,
                                 labeled_only=None if labeled_only is None else labeled_only.pr_curve().median))
    roc_truth = None if truth is None else roc_curve_from_labels(evaluation.scores, truth)
    new("roc_curve", f"ROC curve with its {pct} credible band, its AUC" +
        (" and the true curve" if truth is not None else "") + ".",
        lambda ax: plot_roc_curve(evaluation, ax, performance=performance, truth=roc_truth))
    if requirement is not None:
        p_min, r_min = requirement
        new("threshold_probability", f"Probability that each threshold meets precision ≥ {p_min:g} and recall ≥ "
            f"{r_min:g}, with the best threshold marked (paper Fig. 4B).",
            lambda ax: plot_threshold_probability(evaluation, ax, min_precision=p_min, min_recall=r_min,
                                                  performance=performance))
    if truth is not None:
        new("reliability", "Reliability diagram: the unlabeled items' probabilities against the fraction truly "
            "positive, in equal-count bins.", lambda ax: plot_reliability(evaluation, truth, ax))
    return out


def plot_comparison_pr(comparison, ax=None, *, level=None, performance="sample"):
    """Every classifier's precision-recall curve of a :class:`~spe.comparison.Comparison`, overlaid, each with
    its credible band (one colour per classifier; the curves come from the same label draws).

    Parameters
    ----------
    comparison : Comparison
        From :func:`spe.compare`; K classifiers, each curve on the recall grid (G,).
    ax : matplotlib Axes, optional
    level : float, optional
        Credible level of the bands, in (0, 1) (default: the comparison's).
    performance : {"sample", "population"}

    Returns
    -------
    matplotlib Axes
    """
    ax = _axes(ax)
    pct = f"{100 * (comparison.level if level is None else level):g}%"
    for k, name in enumerate(comparison.names):
        pr = comparison[name].pr_curve(level, performance)
        colour = f"C{k % 10}"
        ap = comparison[name].average_precision(level, performance)
        ax.fill_between(pr.x, pr.lo, pr.hi, step="post", color=colour, alpha=0.18, lw=0)
        ax.step(pr.x, pr.median, where="post", color=colour, lw=1.8, label=f"{name} (AP {ap.mean:.3f})")
    return _finish(ax, xlabel="recall", ylabel="precision", unit_x=True, legend="lower left",
                   title=f"Precision-recall curves with {pct} credible bands\n(one set of label draws for all)")


def plot_differences(comparison, ax=None, *, metric="average_precision", level=None, performance="sample"):
    """The posterior of metric(a) − metric(b) for every pair of classifiers: mean and equal-tailed interval,
    with P(a better than b) written beside each (:meth:`Comparison.comparisons`).

    Parameters
    ----------
    comparison : Comparison
    ax : matplotlib Axes, optional
    metric : str
        A metric :meth:`Comparison.metric_draws` knows (default average precision; the x axis in its units).
    level : float, optional
        Credible level of the intervals, in (0, 1) (default: the comparison's).
    performance : {"sample", "population"}

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    SpeInputError
        An unknown metric.
    """
    ax = _axes(ax)
    level = comparison.level if level is None else level
    rows = comparison.comparisons([metric], level, performance)
    y = np.arange(len(rows))[::-1]
    for yi, c in zip(y, rows):
        d = c["difference"]
        ax.plot([d["lo"], d["hi"]], [yi, yi], color="tab:blue", lw=2.5)
        ax.plot([d["mean"]], [yi], "o", color="tab:blue")
        ax.annotate(f"P(a better) = {c['p_a_better']:.2f}", (d["hi"], yi), xytext=(6, 0),
                    textcoords="offset points", va="center", fontsize=8)
    ax.axvline(0.0, color="black", lw=1)
    ax.set_yticks(y, [f"{c['a']} − {c['b']}" for c in rows], fontsize=8)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.set_xlabel(f"difference in {metric.replace('_', ' ')} (a − b)")
    ax.set_title(f"Differences with {100 * level:g}% credible intervals", fontsize=10)
    ax.grid(alpha=0.3, axis="x")
    return ax


def comparison_figure(comparison, *, level=None, performance="sample"):
    """The figure ``spe compare --plot`` writes: the overlaid PR curves and the differences in average precision,
    side by side. Returns the matplotlib Figure (the caller saves and closes it)."""
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8), layout="constrained")
    plot_comparison_pr(comparison, left, level=level, performance=performance)
    plot_differences(comparison, right, level=level, performance=performance)
    return fig


def plot_label_plan(plan, ax=None):
    """A label-budget plan (:func:`spe.active.plan`): the goal's quantity against further labels.

    Parameters
    ----------
    plan : spe.active.LabelPlan
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
        The median over the simulated futures of the interval width (target units) or decision probability at
        each number of further labels, the 10–90% range of the futures shaded, the goal dashed, and the median
        labels needed as a vertical line when reached. The curve stops where most futures were censored.
    """
    ax = _axes(ax)
    x, (lo, mid, hi) = plan.checkpoints, np.asarray(plan.progress, dtype=float).T
    width_goal = plan.kind == "width"
    ax.fill_between(x, lo, hi, color="tab:blue", alpha=0.25, lw=0, label="10–90% of the simulated futures")
    ax.plot(x, mid, color="tab:blue", lw=1.8, label="median")
    goal = plan.value
    ax.axhline(goal, color="tab:gray", ls="--", lw=0.8, label=f"goal {goal:g}")
    needed = plan.labels_needed(0.5)
    if np.isfinite(needed):
        ax.axvline(needed, color="black", lw=1.0, label=f"about {int(needed)} more labels")
    ax.set_xlim(0, plan.horizon)
    ax = _finish(ax, xlabel=f"further labels ({plan.strategy} strategy; {plan.n_labeled} known)",
                 ylabel="credible interval width" if width_goal else "probability of the decision",
                 title=f"until {plan.goal}")
    if width_goal:
        ax.set_ylim(0, max(np.nanmax(hi) if np.isfinite(hi).any() else goal, goal) * 1.05)
    return ax


def plot_reliability_diagram(probabilities, labels, ax=None, *, bins=10, title=None, **kwargs):
    """Reliability diagram of one or several sets of probabilities against the same 0/1 labels.

    Parameters
    ----------
    probabilities : dict of str → array, shape (n,)
        p(y = 1) of the n items under each method (e.g. ``CalibrationComparison.probabilities``).
    labels : array, shape (n,)
        0/1.
    ax : matplotlib Axes, optional
    bins : int
        Equal-width bins of the probability on [0, 1]; a point per non-empty bin at (mean probability,
        fraction positive), its size the bin's count.
    title : str, optional
    **kwargs
        Passed to each method's line (``ax.plot``).

    Returns
    -------
    matplotlib Axes
    """
    ax = _axes(ax)
    y = np.asarray(labels, dtype=float)
    ax.plot([0, 1], [0, 1], color="tab:gray", ls=":", lw=1.0, label="perfect calibration")
    for name, p in probabilities.items():
        n, positives, total_p = reliability_bins(p, y, bins)
        keep = n > 0
        mean_p = total_p[keep] / n[keep]
        frac = positives[keep] / n[keep]
        line, = ax.plot(mean_p, frac, **{"marker": "o", "ms": 3, "lw": 1.4, "label": name, **kwargs})
        ax.scatter(mean_p, frac, s=8 + 60 * n[keep] / n.max(), color=line.get_color(), alpha=0.35, lw=0)
    _finish(ax, xlabel="predicted probability p(y=1)", ylabel="fraction positive", unit_x=True,
            title=title or f"Reliability diagram ({bins} equal-width bins; marker area ∝ items)")
    return ax


def plot_calibration_map(calibrator, scores, labeled_scores=None, labels=None, ax=None, *, label=None, **kwargs):
    """A fitted calibrator's p(y = 1 | s) over the range of the pool's scores, with the labeled items.

    Parameters
    ----------
    calibrator : fitted calibrator (``spe.calibration``)
        Anything with ``positive_probability(scores)``.
    scores : array, shape (N,)
        The pool's scores (score units): the x range and a rug of their deciles.
    labeled_scores, labels : arrays, shape (n,), optional
        The labeled items, drawn at 0 and 1.
    ax : matplotlib Axes, optional
    label : str, optional
        The map's legend entry.
    **kwargs
        Passed to the map's line.

    Returns
    -------
    matplotlib Axes
    """
    ax = _axes(ax)
    s = np.asarray(scores, dtype=float)
    grid = np.unique(np.concatenate([np.linspace(s.min(), s.max(), 400), np.percentile(s, np.arange(0, 101))]))
    ax.plot(grid, calibrator.positive_probability(grid), **{"lw": 1.8, "label": label or "p(y=1 | score)",
                                                            **kwargs})
    if labeled_scores is not None:
        y = np.asarray(labels)
        ls = np.asarray(labeled_scores, dtype=float)
        ax.scatter(ls, y + np.where(y == 1, -0.02, 0.02), marker="|", s=40, color="black",
                   label=f"labeled items ({int(y.sum())} positive, {int(y.size - y.sum())} negative)")
    for q in np.percentile(s, np.arange(10, 100, 10)):
        ax.axvline(q, color="0.85", lw=0.6, zorder=0)
    _finish(ax, xlabel="score", ylabel="p(y=1 | score)",
            title="Calibration map (grey lines: deciles of the pool's scores)")
    return ax


def plot_monitoring(monitoring, ax=None, *, metric="average_precision"):
    """One metric of a :class:`~spe.Monitoring` in every chunk (against the chunks, in their order) or, without
    chunks, in every slice (a forest plot): the posterior median with its credible band or interval, the
    reference set's value and the alert line (reference − δ, or the floor), alerts in red, and each chunk's
    count of labeled items under it.

    Chunks whose labels disagree with the reference (:attr:`spe.monitoring.Estimate.labels_disagree`) are
    marked with a cross.

    Parameters
    ----------
    monitoring : spe.Monitoring
    ax : matplotlib Axes, optional
    metric : str
        One of :data:`spe.monitoring.MONITOR_METRICS`.

    Returns
    -------
    matplotlib Axes
    """
    ax = _axes(ax)
    estimates = monitoring.chunks or monitoring.slices
    if not estimates:
        raise SpeInputError("the monitoring has no chunk and no slice to draw", argument="monitoring")
    if metric not in estimates[0].metrics:
        raise SpeInputError(f"unknown metric {metric!r}; one of {', '.join(estimates[0].metrics)}", argument="metric")
    pos = np.arange(len(estimates))
    med = np.array([e.metrics[metric].median for e in estimates])
    lo = np.array([e.metrics[metric].lo for e in estimates])
    hi = np.array([e.metrics[metric].hi for e in estimates])
    alerted = np.array([any(a["alert"] for a in e.alerts if a["metric"] == metric) for e in estimates])
    pct = f"{100 * monitoring.level:g}%"
    if monitoring.chunks:
        ax.fill_between(pos, lo, hi, color="C4", alpha=0.25, linewidth=0, label=f"{pct} credible band")
        ax.plot(pos, med, "o-", color="C4", markersize=3, label="estimate (posterior median)")
    else:
        ax.errorbar(pos, med, yerr=[med - lo, hi - med], fmt="o", color="C4", capsize=3,
                    label=f"estimate, {pct} credible interval")
    if alerted.any():
        ax.plot(pos[alerted], med[alerted], "o", color="C3", markersize=7, label="alert", zorder=3)
    disagree = np.array([e.labels_disagree for e in estimates])
    if disagree.any():
        ax.plot(pos[disagree], med[disagree], "x", color="k", markersize=9, zorder=4,
                label="labels disagree with the reference")
    ref = (monitoring.reference or {}).get(metric)
    if ref is not None and np.isfinite(ref):
        ax.axhline(ref, color="k", linestyle="--", linewidth=1, label=f"reference {ref:.3f}")
    bar = (monitoring.alert_below if monitoring.alert_below is not None
           else None if ref is None or metric == "prevalence" else ref - monitoring.alert_drop)
    if bar is not None:
        ax.axhline(bar, color="C3", linestyle=":", linewidth=1, label=f"alert line {bar:.3f}")
    crowded = len(pos) * max(len(e.key) for e in estimates) > 40  # would the keys overlap side by side?
    ax.set_xticks(pos, [f"{e.key}\nn={e.n_labeled}" for e in estimates], rotation=45 if crowded else 0,
                  ha="right" if crowded else "center", fontsize=7)
    ax.set_xlim(-0.5, len(pos) - 0.5)
    name = _metric_label(metric)
    ax.set_ylabel(name)
    ax.set_title(f"{name} per {'chunk' if monitoring.chunks else 'slice'} "
                 "(n = labeled items)", fontsize=10)
    ax.legend(fontsize=7, loc="best")
    ax.grid(alpha=0.3)
    return ax


def _metric_label(metric):
    """A metric's name in figures: the registry's label ("ROC AUC"), else the name with spaces."""
    return METRICS[metric].label if metric in METRICS else metric.replace("_", " ")


def monitoring_figure(monitoring):
    """``spe monitor --plot``: the monitoring's two headline metrics per chunk (or slice) — average precision and
    ROC AUC, or accuracy and macro F1 for multiclass scores — side by side (:func:`plot_monitoring`), and with
    slices and no chunks the slices' gaps in the first (:func:`plot_slice_gaps`); the figure."""
    import matplotlib.pyplot as plt

    gaps = not monitoring.chunks and bool(monitoring.gaps)
    width = min(6 + 0.35 * len(monitoring.chunks or monitoring.slices) + 4 * gaps, 18)
    fig, axes = plt.subplots(1, 2 + gaps, figsize=(width, 4.5), layout="constrained")
    for ax, metric in zip(axes, monitoring.headline[:2]):
        plot_monitoring(monitoring, ax, metric=metric)
    if gaps:
        plot_slice_gaps(monitoring, axes[2], metric=monitoring.headline[0])
    return fig


def plot_slice_gaps(monitoring, ax=None, *, metric="average_precision"):
    """A forest plot of the slices' pairwise gaps in one metric (a − b, :attr:`spe.monitoring.Monitoring.gaps`):
    each difference's posterior median and credible interval, with zero and ±δ (``alert_drop``) marked and
    P(|a − b| > δ) beside each.

    Parameters
    ----------
    monitoring : spe.monitoring.Monitoring
        With at least two slices.
    ax : matplotlib Axes, optional
    metric : str
        One of :data:`spe.monitoring.MONITOR_METRICS`.

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    SpeInputError
        No gaps (fewer than two slices).
    """
    rows = [g for g in monitoring.gaps if g["metric"] == metric]
    if not rows:
        raise SpeInputError("the gaps need at least two slices (by=...)", argument="monitoring")
    ax = _axes(ax)
    pos = np.arange(len(rows))[::-1]
    med = np.array([g["difference"]["median"] for g in rows])
    lo, hi = (np.array([g["difference"][k] for g in rows]) for k in ("lo", "hi"))
    ax.errorbar(med, pos, xerr=[med - lo, hi - med], fmt="o", color="C4", capsize=3,
                label=f"a − b, {monitoring.level:.0%} credible interval")
    ax.axvline(0, color="k", linewidth=1)
    delta = monitoring.alert_drop
    for side in () if delta is None else (-delta, delta):
        ax.axvline(side, color="C3", linestyle=":", linewidth=1, label=f"±δ = {delta:g}" if side > 0 else None)
    ax.set_yticks(pos, [f"{g['a']} − {g['b']}\nP(|gap| > δ) = {g['p_gap']:.2f}" for g in rows], fontsize=7)
    name = _metric_label(metric)
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(5))
    ax.tick_params(axis="x", labelsize=8)
    ax.set_xlabel(f"difference in {name}")
    ax.set_title("gaps between slices", fontsize=10)
    ax.legend(fontsize=7, loc="best")
    ax.grid(alpha=0.3)
    return ax


def plot_confusion_matrix(evaluation, ax=None, *, level=None, performance="sample", most=20):
    """A multiclass classifier's expected confusion matrix: each cell's colour is the expected rate (row = true
    class, each row sums to one), its text the rate and its ``level`` interval's width (``±`` half of it), so
    a cell's certainty shows beside its value (the text up to 12 classes).

    With more than ``most`` classes, the ``most`` classes with the most expected confusions are drawn (items of
    the class predicted as another, and items of other classes predicted as it; expected counts), in their
    order, and the title says how many of how many; the rates are still those of the whole matrix's rows.

    Parameters
    ----------
    evaluation : spe.multiclass.MulticlassEvaluation
    most : int ≥ 1
        The most classes drawn.

    Returns
    -------
    matplotlib Axes
    """
    ax = _axes(ax)
    rates = evaluation.confusion_matrix("true", level=level, performance=performance)
    shown = _most_confused(evaluation, most, level, performance)
    cells = np.ix_(shown, shown)
    k = shown.size
    mean, half = rates["mean"][cells], (rates["hi"] - rates["lo"])[cells] / 2
    from matplotlib.colors import PowerNorm

    # a square-root scale: confusions of a few percent show beside a diagonal near one
    image = ax.imshow(mean, cmap="Blues", norm=PowerNorm(0.5, vmin=0, vmax=1))
    ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="expected rate (row = true class)")
    if k <= 12:
        for i in range(k):
            for j in range(k):
                ax.text(j, i, f"{mean[i, j]:.2f}\n±{half[i, j]:.2f}", ha="center", va="center", fontsize=7,
                        color="white" if mean[i, j] > 0.5 else "black")
    names = [_short_name(evaluation.classes[i]) for i in shown]
    size = 8 if k <= 20 else 6
    ax.set_xticks(range(k), names, rotation=90 if k > 8 else 0, fontsize=size)
    ax.set_yticks(range(k), names, fontsize=size)
    ax.set_xlabel("predicted class")
    ax.set_ylabel("true class")
    pct = f"{100 * (level or evaluation.level):g}%"
    which = "" if k == len(evaluation.classes) else f"the {k} most confused of {len(evaluation.classes)} classes, "
    ax.set_title(f"confusion matrix: {which}expected rates\n± half their {pct} interval", fontsize=10)
    return ax


def _most_confused(evaluation, most, level, performance):
    """The positions of the ``most`` classes with the largest expected off-diagonal counts (their row's and their
    column's), in the classes' order; every class when there are no more than ``most``."""
    k = len(evaluation.classes)
    if k <= _checked_most(most):
        return np.arange(k)
    counts = evaluation.confusion_matrix(None, level=level, performance=performance)["mean"]
    off = np.nan_to_num(counts) * (1 - np.eye(k))
    confused = off.sum(axis=0) + off.sum(axis=1)
    return np.sort(np.argsort(-confused, kind="stable")[:most])


def _checked_most(most):
    """``most`` (the most classes a panel draws), or ValueError below 1."""
    if most < 1:
        raise ValueError(f"most must be at least 1, got {most}")
    return most


def _short_name(name, width=24):
    """A class name for a tick or a legend: at most ``width`` characters, cut with an ellipsis."""
    name = str(name)
    return name if len(name) <= width else name[:width - 1] + "…"


def plot_class_pr_curves(evaluation, ax=None, *, level=None, classes=None, most=8, requirement=None):
    """Each class's one-vs-rest precision-recall curve with its credible band, on one set of axes: ``classes``,
    or every class when there are no more than ``most``, else the ``most`` classes of lowest average precision
    (posterior median: the ones to look at; the title says so); ``requirement`` (min precision, min recall)
    drawn as a box.

    Raises
    ------
    ValueError
        ``most`` < 1.
    spe.exceptions.SpeInputError
        A class in ``classes`` that is not one of the evaluation's.

    Returns
    -------
    matplotlib Axes
    """
    ax = _axes(ax)
    if requirement is not None:
        _requirement_box(ax, *requirement)
    chosen = list(classes) if classes is not None else _lowest_ap(evaluation, most)
    colours = _class_colours(len(chosen))
    for name, colour in zip(chosen, colours):
        band = evaluation.pr_curve(name, level)
        ax.fill_between(band.x, band.lo, band.hi, step="post", color=colour, alpha=0.15, lw=0)
        ax.step(band.x, band.median, where="post", color=colour, lw=1.3, label=_short_name(name))
    pct = f"{100 * (level or evaluation.level):g}%"
    k = len(evaluation.classes)
    if len(chosen) == 1:
        who = f"{_short_name(chosen[0])} against the rest"
    elif classes is None and len(chosen) < k:
        who = f"the {len(chosen)} of {k} classes of lowest AP, each against the rest"
    else:
        who = "each class against the rest"
    return _finish(ax, xlabel="recall", ylabel="precision", unit_x=True, legend="lower left", legend_size=7,
                   title=f"{who}:\nmedian and {pct} band")


def _lowest_ap(evaluation, most):
    """Every class when there are no more than ``most``, else the ``most`` of lowest median average precision (a
    class no draw defines last), in the classes' order."""
    names = list(evaluation.classes)
    if len(names) <= _checked_most(most):
        return names
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a class with no item in any draw: all-NaN
        ap = np.nanmedian(evaluation.class_metric_draws("average_precision"), axis=0)
    lowest = np.sort(np.argsort(np.where(np.isnan(ap), np.inf, ap), kind="stable")[:most])
    return [names[i] for i in lowest]


def _class_colours(n):
    import matplotlib.pyplot as plt

    cmap = plt.get_cmap("tab10" if n <= 10 else "tab20")
    return [cmap(i % cmap.N) for i in range(n)]


def plot_class_reliability(evaluation, ax=None, *, level=None):
    """The top-label reliability diagram of a multiclass classifier on this pool: per bin of its stated
    confidence, the estimated accuracy with its credible interval against the bin's mean confidence, and the
    diagonal a calibrated classifier would follow.

    Returns
    -------
    matplotlib Axes
    """
    ax = _axes(ax)
    rel = evaluation.reliability(level)
    ok = rel["items"] > 0
    x = rel["confidence"][ok]
    ax.plot([0, 1], [0, 1], color="grey", lw=0.8, ls="--", label="calibrated")
    ax.errorbar(x, rel["accuracy"][ok], yerr=[rel["accuracy"][ok] - rel["accuracy_lo"][ok],
                                               rel["accuracy_hi"][ok] - rel["accuracy"][ok]],
                fmt="o", color="tab:red", ms=4, capsize=2, label="estimated accuracy")
    pct = f"{100 * (level or evaluation.level):g}%"
    return _finish(ax, xlabel="stated confidence (the predicted class's probability)", ylabel="accuracy",
                   unit_x=True, legend="upper left", title=f"reliability on this pool, with {pct} intervals")


def multiclass_figure(evaluation, *, level=None, performance="sample"):
    """The figure ``spe estimate --plot`` writes for a multiclass classifier: the confusion matrix, the classes'
    PR curves with bands and the reliability diagram, side by side. Returns the matplotlib Figure (the caller
    saves and closes it)."""
    import matplotlib.pyplot as plt

    fig, (left, middle, right) = plt.subplots(1, 3, figsize=(17, 5.2), layout="constrained")
    plot_confusion_matrix(evaluation, left, level=level, performance=performance)
    plot_class_pr_curves(evaluation, middle, level=level)
    plot_class_reliability(evaluation, right, level=level)
    return fig


def plot_class_metrics(comparison, ax=None, *, metrics=("accuracy", "macro_f1", "macro_average_precision"),
                       level=None, performance="sample"):
    """Several K-class classifiers' headline metrics side by side: per metric a group of points (posterior
    means) with their equal-tailed intervals (those the summary prints), one colour per classifier (a
    :class:`~spe.multiclass.comparison.MulticlassComparison`; every interval from the same label draws).

    Returns
    -------
    matplotlib Axes
    """
    ax = _axes(ax)
    level = comparison.level if level is None else level
    names = comparison.names
    colours = _class_colours(len(names))
    offsets = np.linspace(-0.25, 0.25, len(names)) if len(names) > 1 else np.zeros(1)
    for name, colour, dx in zip(names, colours, offsets):
        for i, metric in enumerate(metrics):
            draws = comparison.metric_draws(name, metric, performance)
            est = summarise_draws(draws, np.full(draws.size, 1.0 / draws.size), level)  # as the summary prints it
            ax.plot([i + dx, i + dx], [est.lo, est.hi], color=colour, lw=2.5)
            ax.plot([i + dx], [est.mean], "o", color=colour, label=name if i == 0 else None)
    ax.set_xticks(range(len(metrics)), [m.replace("_", " ") for m in metrics], fontsize=9)
    ax.set_xlim(-0.6, len(metrics) - 0.4)
    ax.set_ylabel("estimate (posterior mean and interval)")
    ax.set_title(f"Each classifier on this pool, {100 * level:g}% credible intervals", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, axis="y")
    return ax


def class_comparison_figure(comparison, *, level=None, performance="sample"):
    """The figure ``spe compare --plot`` writes for K-class classifiers: each classifier's accuracy, macro F1
    and macro AP with intervals, and every pair's accuracy difference with P(a more accurate than b). Returns
    the matplotlib Figure (the caller saves and closes it)."""
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8), layout="constrained")
    plot_class_metrics(comparison, left, level=level, performance=performance)
    plot_differences(comparison, right, metric="accuracy", level=level, performance=performance)
    return fig


def plot_accuracy_vs_labels(curve, ax=None, *, truth=None, title=None):
    """A multiclass classifier's accuracy with its interval against the number of labels, spe's and the labeled
    items' own (:meth:`spe.multiclass.evaluation.MulticlassEvaluation.accuracy_by_labels`).

    Parameters
    ----------
    curve : pandas.DataFrame or MulticlassEvaluation
        The table of ``accuracy_by_labels`` (columns ``n_labeled``, ``mean``, ``lo``, ``hi``, ``labeled_mean``,
        ``labeled_lo``, ``labeled_hi``), or an evaluation (its default table is computed: one refit per count).
    ax : matplotlib Axes, optional
    truth : float, optional
        The true accuracy, drawn as a dashed line.
    title : str, optional

    Returns
    -------
    matplotlib Axes
        x: labeled items (log axis); y: accuracy.

    Raises
    ------
    ValueError
        A table without those columns.
    """
    if hasattr(curve, "accuracy_by_labels"):
        curve = curve.accuracy_by_labels()
    missing = {"n_labeled", "mean", "lo", "hi", "labeled_mean", "labeled_lo", "labeled_hi"} - set(curve.columns)
    if missing:
        raise ValueError(f"the table lacks the columns {sorted(missing)}")
    ax = _axes(ax)
    n = curve["n_labeled"].to_numpy(dtype=float)
    for prefix, colour, marker, name, dx in (("", "tab:red", "o", "spe (all scores + labels)", 0.97),
                                             ("labeled_", "tab:gray", "s", "labeled items only", 1.03)):
        mid = curve[f"{prefix}mean"].to_numpy()
        lo, hi = curve[f"{prefix}lo"].to_numpy(), curve[f"{prefix}hi"].to_numpy()
        ax.errorbar(n * dx, mid, yerr=np.clip([mid - lo, hi - mid], 0, None), color=colour, marker=marker, ms=4,
                    lw=1.4, capsize=3, label=name)  # a mean may lie outside its equal-tailed interval
    if truth is not None:
        ax.axhline(truth, color="black", ls="--", lw=0.9, label=f"true accuracy {truth:.3f}")
    ax.set_xscale("log")
    ax.set_xticks(n, [f"{v:g}" for v in n])
    ax.minorticks_off()
    ax.set_xlabel("labeled items (the first n, in a random order)")
    ax.set_ylabel("accuracy (mean and credible interval)")
    ax.set_title(title or "Accuracy against the number of labels", fontsize=10)
    ax.legend(loc="best", fontsize=8)
    ax.grid(alpha=0.3)
    return ax
