"""Comparing multiclass classifiers: ``spe.compare`` on K-class scores against the labeled items alone.

Groups of classifiers that scored the same items (the cases of :mod:`multiclass`):

* the four MultiNLI classifiers whose 3-class probabilities SSME publishes (``--multinli DIR``, see
  ``benchmarks/multiclass.py``); each trial draws a pool of ``--pool`` items, then n labeled items in it;
* scikit-learn's digits: a logistic regression, an SVM and a small network (1,078 items, 10 classes).

Per trial and pair of classifiers (a, b): the true accuracy difference, spe's posterior mean and whether its
interval at ``--level`` holds the truth, the labeled items' own difference (the same n items scored by both),
and P(a more accurate than b) against whether a is (its Brier score, and how often a verdict of P ≥ 0.9 or
≤ 0.1 is right). Per classifier: the accuracy error of the joint estimate, of the labeled items alone and
(``--alone``) of ``spe.evaluate`` on that classifier alone.

    python benchmarks/multiclass_compare.py --multinli DIR --labels 10,20,50 --seeds 10 --out results/mc_compare.csv
"""

from __future__ import annotations

import argparse
import itertools
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from spe.multiclass import evaluate_multiclass
from spe.multiclass.comparison import compare_multiclass

from multiclass import MULTINLI, digits_cases  # noqa: E402  (run from benchmarks/)


def groups(multinli):
    out = {}
    if multinli:
        d = Path(multinli)
        out["multinli"] = ({n: np.load(d / f"{n}.npy").astype(float) for n in MULTINLI}, np.load(d / "labels.npy"))
    cases = digits_cases()
    out["digits"] = ({k: v[0] for k, v in cases.items()}, next(iter(cases.values()))[1])
    return out


def trial(scores, y, n_labels, seed, pool, level, draws, alone):
    rng = np.random.default_rng(seed)
    keep = rng.permutation(len(y))[:pool] if pool and pool < len(y) else np.arange(len(y))
    scores = {k: v[keep] for k, v in scores.items()}
    y = y[keep]
    labeled = rng.choice(len(y), n_labels, replace=False)
    known = {int(i): int(y[i]) for i in labeled}
    truth = {k: float(np.mean(v.argmax(1) == y)) for k, v in scores.items()}
    own = {k: float(np.mean(v[labeled].argmax(1) == y[labeled])) for k, v in scores.items()}
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cmp = compare_multiclass(scores, known, draws=draws, level=level, rng=seed)
        single = {k: evaluate_multiclass(v, known, draws=draws, level=level, rng=seed).accuracy().mean
                  for k, v in scores.items()} if alone else {}
    seconds = time.perf_counter() - started
    rows = []
    for k in scores:
        acc = cmp[k].accuracy()
        rows.append({"kind": "classifier", "name": k, "error": abs(acc.mean - truth[k]),
                     "labeled_error": abs(own[k] - truth[k]), "hit": acc.lo <= truth[k] <= acc.hi,
                     "alone_error": abs(single[k] - truth[k]) if alone else np.nan, "seconds": seconds})
    for a, b in itertools.combinations(scores, 2):
        true_d = truth[a] - truth[b]
        d = cmp.difference(a, b, "accuracy")
        p = cmp.probability_better(a, b, "accuracy")
        rows.append({"kind": "pair", "name": f"{a} - {b}", "error": abs(d.mean - true_d),
                     "labeled_error": abs(own[a] - own[b] - true_d), "hit": d.lo <= true_d <= d.hi,
                     "p_a_better": p, "a_better": float(true_d > 0), "brier": (p - float(true_d > 0)) ** 2,
                     "decided": p >= 0.9 or p <= 0.1, "right": (p >= 0.9) == (true_d > 0), "seconds": seconds})
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--multinli", metavar="DIR", help="the MultiNLI predictions (see benchmarks/multiclass.py)")
    parser.add_argument("--labels", default="20", help="comma-separated numbers of labels (default 20)")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--pool", type=int, default=10_000)
    parser.add_argument("--level", type=float, default=0.9)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--alone", action="store_true", help="also each classifier alone (spe.evaluate)")
    parser.add_argument("--out", help="CSV of every trial")
    args = parser.parse_args(argv)
    rows = []
    for group, (scores, y) in groups(args.multinli).items():
        for n in [int(v) for v in args.labels.split(",")]:
            for seed in range(args.seeds):
                rows += [{"group": group, "labels": n, "seed": seed, **r}
                         for r in trial(scores, y, n, seed, args.pool, args.level, args.draws, args.alone)]
            _print(pd.DataFrame([r for r in rows if r["group"] == group and r["labels"] == n]), group, n)
    if args.out:
        pd.DataFrame(rows).to_csv(args.out, index=False)


def _print(frame, group, n):
    c, p = frame[frame.kind == "classifier"], frame[frame.kind == "pair"]
    decided = p[p.decided.astype(bool)]
    alone = f", alone {c.alone_error.mean():.4f}" if c.alone_error.notna().any() else ""
    right = decided.right.mean() if len(decided) else float("nan")
    print(f"{group:9s} {n:3d} labels: accuracy error joint {c.error.mean():.4f} "
          f"(x{c.error.mean() / c.labeled_error.mean():.2f} labeled-only {c.labeled_error.mean():.4f}{alone}), "
          f"hits {c.hit.mean():.2f} | difference error {p.error.mean():.4f} "
          f"(x{p.error.mean() / p.labeled_error.mean():.2f} labeled-only), hits {p.hit.mean():.2f}, "
          f"Brier {p.brier.mean():.3f}, decided {len(decided)}/{len(p)} right {right:.2f}"
          f" | {frame.seconds.mean():.1f} s/trial", flush=True)


if __name__ == "__main__":
    main()
