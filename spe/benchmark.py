"""How many labels are enough? Estimation error against the number of labels on fully labeled data.

The paper's experiment (Welinder, Welling & Perona 2013, §4.3, Fig. 2A): on a
data set whose labels are all known, draw n items at random as the labeled
ones, estimate the precision-recall curve from all the scores and those n
labels, and measure the area between the estimate and the true curve; repeat
over seeds and label counts, and compare with the labeled-only ("naive")
estimate, the PR curve of the n labeled items alone. A team with one fully
labeled set from a similar deployment can run it to decide how many labels to
pay for on the next one. ``benchmarks/accuracy.py`` runs it over the real
benchmark cases; :func:`spe.plot.plot_error_vs_labels` draws either table.
"""

from __future__ import annotations

import time
import warnings

import numpy as np

from .api import evaluate
from .baselines import labeled_only_pr_curve, pr_curve_from_labels
from .exceptions import plain
from .metrics.curves import RECALL_GRID

__all__ = ["pr_curve_error", "error_vs_labels"]


def pr_curve_error(estimate, truth, grid=RECALL_GRID) -> float:
    """Area between an estimated and the true precision-recall curve, ∫ |p̂(r) − p(r)| dr.

    Parameters
    ----------
    estimate, truth : arrays, shape (G,)
        Precision at each recall of ``grid`` (probabilities). A NaN in
        ``estimate`` (no estimate there, e.g. the labeled-only curve when no
        labeled item is positive) counts as precision 0.
    grid : array, shape (G,)
        Ascending recalls in [0, 1].

    Returns
    -------
    float
        In [0, 1] (trapezoid rule on ``grid``); 0 for a perfect estimate.

    Raises
    ------
    ValueError
        Shapes differ, or ``truth`` has NaN.
    """
    estimate = np.nan_to_num(np.asarray(estimate, dtype=float), nan=0.0)
    truth = np.asarray(truth, dtype=float)
    grid = np.asarray(grid, dtype=float)
    if not estimate.shape == truth.shape == grid.shape:
        raise ValueError(f"estimate, truth and grid must have the same shape, got {estimate.shape}, "
                         f"{truth.shape}, {grid.shape}")
    if np.isnan(truth).any():
        raise ValueError("the true curve has NaN (no positive item?)")
    return float(np.trapezoid(np.abs(estimate - truth), grid))


def error_vs_labels(scores, labels, label_counts=(10, 20, 50, 100), *, seeds=5, rng=None, **evaluate_kwargs):
    """Error of SPE and of the labeled-only estimate against the number of labels (paper §4.3, Fig. 2A).

    For every seed and every count n: n items are drawn at random without
    replacement as the labeled ones, :func:`spe.evaluate` runs on all scores
    and those labels, and the PR curve's error (:func:`pr_curve_error`) is
    measured against the true curve for the SPE median estimate and for the
    labeled-only curve. Cost: ``len(label_counts) × seeds`` evaluations.

    Parameters
    ----------
    scores : array, shape (N,)
        Score units.
    labels : 0/1 array, shape (N,)
        Every item's true label (at least one positive).
    label_counts : sequence of int
        The values of n, each in [1, N].
    seeds : int
        Trials per count.
    rng : numpy.random.Generator, int or None
        Seed; each trial gets its own stream (``rng.spawn``), so the same
        seed gives the same table.
    **evaluate_kwargs
        Passed to :func:`spe.evaluate` (e.g. ``draws=300``); its own ``rng``
        is the trial's stream.

    Returns
    -------
    pandas.DataFrame
        One row per trial: ``n_labels``, ``seed``, ``n_labeled_positive``,
        ``err_spe``, ``err_labeled_only`` (both in [0, 1]),
        ``labeled_only_missing`` (no labeled positive: the labeled-only curve
        was taken as precision 0), ``coverage`` (fraction of the recall grid
        where SPE's band holds the true curve), ``prevalence_error`` (SPE
        posterior mean minus the true prevalence), ``chosen`` (the score
        model with the largest weight, ``diagnostics["chosen"]``) and
        ``seconds``.

    Raises
    ------
    ValueError
        Shapes differ, labels not 0/1 or without a positive, a count outside
        [1, N], ``seeds`` < 1.
    """
    import pandas as pd

    s = np.asarray(scores, dtype=float)
    y = np.asarray(labels)
    if s.ndim != 1 or y.shape != s.shape:
        raise ValueError(f"scores and labels must be 1-D of the same length, got {s.shape} and {y.shape}")
    if not np.isin(y, (0, 1)).all() or not (y == 1).any():
        raise ValueError("labels must be 0/1 with at least one positive")
    y = y.astype(int)
    counts = [int(n) for n in label_counts]
    if any(n < 1 or n > s.size for n in counts):
        raise ValueError(f"label counts must be in [1, {s.size}], got {counts}")
    if int(seeds) != seeds or seeds < 1:
        raise ValueError(f"seeds must be an integer ≥ 1, got {plain(seeds)!r}")
    truth = pr_curve_from_labels(s, y)
    streams = np.random.default_rng(rng).spawn(len(counts) * int(seeds))
    rows = []
    for k, stream in enumerate(streams):
        seed, n = divmod(k, len(counts))
        n = counts[n]
        pick_rng, fit_rng = stream.spawn(2)
        idx = np.sort(pick_rng.choice(s.size, n, replace=False))
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ev = evaluate(s, (idx, y[idx]), rng=fit_rng, **evaluate_kwargs)
        secs = time.perf_counter() - t0
        pr = ev.pr_curve()
        naive = labeled_only_pr_curve(s, idx, y[idx])
        rows.append({
            "n_labels": n, "seed": seed, "n_labeled_positive": int(y[idx].sum()),
            "err_spe": pr_curve_error(pr.median, truth), "err_labeled_only": pr_curve_error(naive, truth),
            "labeled_only_missing": bool(np.isnan(naive).all()),
            "coverage": float(np.mean((pr.lo <= truth + 1e-9) & (truth <= pr.hi + 1e-9))),
            "prevalence_error": ev.prevalence().mean - y.mean(),
            "chosen": ev.diagnostics.get("chosen", ev.model.name), "seconds": secs,
        })
    return pd.DataFrame(rows)
