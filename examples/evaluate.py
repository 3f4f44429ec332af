"""Evaluate a classifier on a new data set from all its scores and a few labels.

Reads the scores of every item and the labels of a few, runs SPE
(``spe.evaluate``), prints the summary (prevalence, average precision, ROC AUC
and precision at a few recalls, each with its 90% credible interval), and
saves two figures: the score histogram with the fitted class-conditional
densities, and the precision-recall curve with its band (plus the true curve
when --truth gives every item's label).

Run from the repository root (defaults: the shipped digits example):
    python examples/evaluate.py
    python examples/evaluate.py my_scores.csv my_labels.csv --out my_figures.png
"""

import argparse
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import spe  # noqa: E402
from spe.io import read_labels, read_scores, read_truth  # noqa: E402
from spe.plot import plot_pr_curve, plot_score_histogram  # noqa: E402

HERE = Path(__file__).resolve().parent


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scores", nargs="?", default=HERE / "digits_scores.csv", help="CSV with columns id, score")
    ap.add_argument("labels", nargs="?", default=HERE / "digits_labels.csv", help="CSV with columns id, label")
    ap.add_argument("--truth", help="CSV with every item's label, to draw the true curve (optional)")
    ap.add_argument("--out", default="evaluation.png", help="figure file (default evaluation.png)")
    ap.add_argument("--draws", type=int, default=1000, help="posterior draws (default 1000)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    scores = read_scores(args.scores)                  # validates: names file, row and column on bad input
    labels = read_labels(args.labels, scores)          # (positions, 0/1 labels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                # kept in ev.warnings; the summary prints them
        ev = spe.evaluate(scores.scores, labels, draws=args.draws, rng=args.seed)
    print(ev.summary())

    truth_curve = None
    if args.truth:
        from spe.baselines import pr_curve_from_labels

        truth_curve = pr_curve_from_labels(scores.scores, read_truth(args.truth, scores))
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8), layout="constrained")
    plot_score_histogram(ev, axes[0])
    plot_pr_curve(ev, axes[1], truth=truth_curve)
    fig.savefig(args.out, dpi=150)
    print(f"figure written to {args.out}")
    return ev


if __name__ == "__main__":
    main()
