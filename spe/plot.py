"""Figures from an :class:`~spe.Evaluation` (matplotlib, imported lazily).

Functions take an ``Evaluation`` and ``ax=None`` and return the Axes; they
draw what the evaluation computed and compute nothing new. No global style
changes, no ``show``/``savefig`` (the CLI saves).
"""

from __future__ import annotations

import numpy as np

__all__ = ["plot_pr_curve"]


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(5.5, 4.5), layout="constrained")
    return ax


def plot_pr_curve(evaluation, ax=None, *, level=None, truth=None, labeled_only=None, show_labeled=True):
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
        positives as green triangles, negatives as red crosses.

    Returns
    -------
    matplotlib Axes
    """
    ax = _axes(ax)
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
