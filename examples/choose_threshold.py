"""Choose a decision threshold that meets a precision/recall requirement, and say how sure we are.

For every threshold, SPE computes the posterior probability that precision
and recall on this data set meet the requirement (Welinder et al. 2013,
§4.4); this script prints the threshold most likely to meet it (in the
classifier's score units), that probability, the metrics there with their
90% credible intervals, and the range of thresholds that meet it with
probability at least 0.5, and saves the probability against the threshold
as a figure.

Run from the repository root (defaults: the shipped digits example):
    python examples/choose_threshold.py --min-precision 0.9 --min-recall 0.5
"""

import argparse
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import spe  # noqa: E402
from spe.io import read_labels, read_scores  # noqa: E402
from spe.plot import plot_threshold_probability  # noqa: E402

HERE = Path(__file__).resolve().parent


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scores", nargs="?", default=HERE / "digits_scores.csv")
    ap.add_argument("labels", nargs="?", default=HERE / "digits_labels.csv")
    ap.add_argument("--min-precision", type=float, default=0.9)
    ap.add_argument("--min-recall", type=float, default=0.5)
    ap.add_argument("--out", default="threshold.png", help="figure file (default threshold.png)")
    ap.add_argument("--draws", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    scores = read_scores(args.scores)
    labels = read_labels(args.labels, scores)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # kept in ev.warnings, printed below
        ev = spe.evaluate(scores.scores, labels, draws=args.draws, rng=args.seed)

    choice = ev.best_threshold(args.min_precision, args.min_recall)
    print(f"requirement: precision >= {args.min_precision} and recall >= {args.min_recall}")
    print(f"best threshold {choice.threshold:.4g} (score units): met with probability {choice.probability:.2f}")
    if not choice.likely:
        print("no threshold is likely to meet it: label more items at random, or relax the requirement")
    curve = choice.curve
    likely = curve.threshold[curve.probability >= 0.5]
    if likely.size:
        print(f"thresholds meeting it with probability >= 0.5: {likely.min():.4g} to {likely.max():.4g}")
    print("at the best threshold (posterior mean [90% credible interval]):")
    for name in ("precision", "recall", "f1", "false_positive_rate", "true_positives", "false_positives"):
        print(f"  {name:20s} {choice.metrics[name]}")
    for w in ev.warnings:
        print("warning:", w)
    ax = plot_threshold_probability(ev, min_precision=args.min_precision, min_recall=args.min_recall)
    ax.figure.savefig(args.out, dpi=150)
    print(f"figure written to {args.out}")
    return choice


if __name__ == "__main__":
    main()
