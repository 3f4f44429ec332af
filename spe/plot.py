"""Figures from an :class:`~spe.Evaluation` (matplotlib, imported lazily).

Functions take an ``Evaluation`` and ``ax=None`` and return the Axes; they
draw what the evaluation computed and compute nothing new. No global style
changes, no ``show``/``savefig`` (the CLI saves).
"""

from __future__ import annotations


__all__ = ["plot_pr_curve", "plot_threshold_curves", "plot_threshold_probability"]


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(5.5, 4.5), layout="constrained")
    return ax


def plot_pr_curve(evaluation, ax=None, *, level=None, truth=None, labeled_only=None, show_labeled=True,
                  requirement=None):
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

    Returns
    -------
    matplotlib Axes
    """
    ax = _axes(ax)
    if requirement is not None:
        from matplotlib.patches import Rectangle

        p_min, r_min = requirement
        ax.add_patch(Rectangle((r_min, p_min), 1 - r_min, 1.02 - p_min, facecolor="tab:green", alpha=0.12,
                               edgecolor="tab:green", lw=1.2,
                               label=f"requirement: precision ≥ {p_min:g}, recall ≥ {r_min:g}"))
    pr = evaluation.pr_curve(level)
    pct = f"{100 * pr.level:g}%"
    ax.fill_between(pr.x, pr.lo, pr.hi, step="post", color="tab:purple", alpha=0.25, lw=0,
                    label=f"SPE {pct} credible band")
    ax.step(pr.x, pr.median, where="post", color="tab:red", lw=1.8, label="SPE median estimate")
    if truth is not None:
        ax.step(pr.x, truth, where="post", color="black", lw=1.2, label="true curve (all labels)")
    if labeled_only is not None:
        ax.step(pr.x, labeled_only, where="post", color="tab:gray", ls="--", lw=1.2, label="labeled items only")
    if show_labeled and evaluation.n_labeled:
        pts = evaluation.labeled_points()
        pos = pts["label"] == 1
        ax.scatter(pts["recall"][pos], pts["precision"][pos], marker="^", s=28, color="tab:green", zorder=3,
                   label=f"labeled positive ({int(pos.sum())})")
        ax.scatter(pts["recall"][~pos], pts["precision"][~pos], marker="x", s=22, color="black", zorder=3,
                   label=f"labeled negative ({int((~pos).sum())})")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("recall")
    ax.set_ylabel("precision")
    ax.set_title(
        f"Precision-recall, {evaluation.n_items} items, {evaluation.n_labeled} labeled\n"
        f"band: {pct} equal-tailed posterior interval", fontsize=10,
    )
    ax.legend(loc="lower left", fontsize=8)
    ax.grid(alpha=0.3)
    return ax


def plot_threshold_curves(evaluation, ax=None, *, level=None, performance="sample"):
    """Precision and recall against the threshold, with their credible bands (paper Fig. 1B).

    Parameters
    ----------
    evaluation : Evaluation
    ax : matplotlib Axes, optional
    level : float, optional
        Credible level of the bands (default: the evaluation's).
    performance : {"sample", "population"}

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
        ax.fill_between(band.x, band.lo, band.hi, color=color, alpha=0.2, lw=0, label=f"{name}, {pct} credible band")
        ax.plot(band.x, band.median, color=color, lw=1.8, label=f"{name}, median")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("threshold (score units; items scored ≥ it are predicted positive)")
    ax.set_ylabel("precision / recall")
    ax.set_title(f"Precision and recall against the threshold ({performance} performance)\n"
                 f"bands: {pct} equal-tailed posterior intervals", fontsize=10)
    ax.legend(loc="best", fontsize=8)
    ax.grid(alpha=0.3)
    return ax


def plot_threshold_probability(evaluation, ax=None, *, min_precision=0.0, min_recall=0.0, performance="sample"):
    """p(C(τ)): the probability that each threshold meets a precision/recall requirement (paper Fig. 4B).

    Parameters
    ----------
    evaluation : Evaluation
    ax : matplotlib Axes, optional
    min_precision, min_recall : float in [0, 1]
        The requirement C = [precision ≥ min_precision ∧ recall ≥ min_recall].
    performance : {"sample", "population"}

    Returns
    -------
    matplotlib Axes
        The curve of :meth:`Evaluation.threshold_probability` against the
        threshold (score units), the threshold :meth:`Evaluation.best_threshold`
        picks as a vertical line, and probability 0.5 dashed.
    """
    ax = _axes(ax)
    choice = evaluation.best_threshold(min_precision, min_recall, performance=performance)
    curve = choice.curve
    ax.plot(curve.threshold, curve.probability, color="tab:green", lw=1.8, label="p(requirement met)")
    ax.axvline(choice.threshold, color="black", lw=1.0,
               label=f"best threshold {choice.threshold:.4g} (p = {choice.probability:.2f})")
    ax.axhline(0.5, color="tab:gray", ls="--", lw=0.8)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("threshold (score units; items scored ≥ it are predicted positive)")
    ax.set_ylabel("posterior probability")
    ax.set_title(f"p(precision ≥ {min_precision:g} and recall ≥ {min_recall:g}) per threshold\n"
                 f"({performance} performance, {evaluation.n_labeled} labeled of {evaluation.n_items})", fontsize=10)
    ax.legend(loc="best", fontsize=8)
    ax.grid(alpha=0.3)
    return ax
