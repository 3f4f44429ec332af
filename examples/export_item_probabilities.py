"""Export recalibrated per-item probabilities p(y = 1 | all scores, the labels) as CSV.

The classifier's raw scores are not probabilities on a new data set (or are
calibrated for another one). SPE turns them into probabilities for *this*
data set from all the scores and a few labels (Welinder et al. 2013, §4.4):
each item's posterior probability of being positive, averaged over the
posterior draws. Labeled items keep their label. The CSV has the columns id,
score, probability, labeled, in the order of the scores file; the script
also prints how many items are expected positive above a few probability
cut-offs.

Run from the repository root (defaults: the shipped digits example):
    python examples/export_item_probabilities.py --out items.csv
"""

import argparse
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import spe
from spe.io import read_labels, read_scores

HERE = Path(__file__).resolve().parent


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scores", nargs="?", default=HERE / "digits_scores.csv")
    ap.add_argument("labels", nargs="?", default=HERE / "digits_labels.csv")
    ap.add_argument("--out", default="items.csv", help="output CSV (default items.csv)")
    ap.add_argument("--draws", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    scores = read_scores(args.scores)
    labels = read_labels(args.labels, scores)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = spe.evaluate(scores.scores, labels, draws=args.draws, rng=args.seed)
    p = ev.item_probabilities()
    labeled = np.zeros(p.size, dtype=bool)
    labeled[ev.labeled_index] = True
    ids = scores.ids if scores.ids is not None else np.arange(p.size)
    table = pd.DataFrame({"id": ids, "score": scores.scores, "probability": p, "labeled": labeled})
    table.to_csv(args.out, index=False, float_format="%.6g")
    print(f"{p.size} items written to {args.out}; expected number of positives {p.sum():.1f} "
          f"(prevalence {ev.prevalence()})")
    for cut in (0.5, 0.9, 0.99):
        sel = p >= cut
        print(f"  p >= {cut}: {sel.sum():4d} items, of which {p[sel].sum():.1f} expected positive")
    return table


if __name__ == "__main__":
    main()
