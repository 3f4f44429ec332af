"""Are a multiclass class's threshold probabilities honest? Stated against met, on the multiclass benchmark's cases.

For every case and seed: a pool of ``--pool`` items and n random labels as ``benchmarks/multiclass.py`` draws
them, one ``spe.evaluate``, then for ``--classes`` classes of the pool (its most frequent ones, so that a
requirement on recall means something) and every requirement (precision ≥ 0.8/0.9 with recall ≥ 0.3/0.5):
the threshold ``spe threshold --class`` recommends and the probability it states
(``MulticlassEvaluation.best_threshold``), and whether that threshold truly meets the requirement on the pool;
and over every candidate threshold, unselected, the stated p(C(τ)) against the true C(τ) (the Brier score).

    python benchmarks/multiclass_thresholds.py --multinli DIR --banking77 DIR --labels 20 --seeds 10 --out X.csv

Prints per case group (the networks, the linear models and SVM) the reliability table (stated in bins against met,
with binomial 90% intervals), the share met where ≥ 0.9 was stated and the Brier scores; ``--from-csv`` prints
the tables of an earlier run.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

sys.path.insert(0, str(Path(__file__).parent))
from multiclass import banking77_cases, digits_cases, multinli_cases, pool_and_labels  # noqa: E402

from spe.multiclass import evaluate_multiclass  # noqa: E402
from spe.multiclass.threshold import candidate_thresholds, choose_class_threshold, class_threshold_counts  # noqa: E402

REQUIREMENTS = [(p, r) for p in (0.8, 0.9) for r in (0.3, 0.5)]
#: The cases that are neural networks (the rest are linear models and an SVM).
NETWORKS = ("multinli_IRM", "multinli_ReSample", "multinli_ReWeight", "multinli_SqrtReWeight", "banking77_mlp",
            "digits_mlp")
BINS = [0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0001]


def trial(probs, y, n_labels, seed, pool, n_classes, draws):
    """Rows of one pool: (class, requirement) → stated, met, and the Brier score over every threshold."""
    probs, y, labeled, _ = pool_and_labels(probs, y, seed, pool, n_labels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = evaluate_multiclass(probs, {int(i): int(y[i]) for i in labeled}, draws=draws, rng=seed)
    rows = []
    for k in np.argsort(-np.bincount(y, minlength=probs.shape[1]))[:n_classes]:
        thresholds, flagged = candidate_thresholds(ev.scores.log_probs[:, k])
        tp, positives = class_threshold_counts(ev, int(k), thresholds)
        p = np.exp(ev.scores.log_probs[:, k])
        for p_min, r_min in REQUIREMENTS:
            choice = choose_class_threshold(ev, int(k), thresholds, flagged, tp, positives, p_min, r_min)
            true_met = met_on_pool(p, y == k, thresholds, p_min, r_min)
            at = int(np.flatnonzero(thresholds == choice.threshold)[0])
            rows.append({"class": int(k), "min_precision": p_min, "min_recall": r_min,
                         "stated": choice.probability, "met": bool(true_met[at]), "achievable": bool(true_met.any()),
                         "brier": float(np.mean((choice.curve.probability - true_met) ** 2)),
                         "labeled_above": int(choice.curve.labeled_above[at])})
    return rows


def met_on_pool(p, is_class, thresholds, p_min, r_min):
    """Whether flagging the items with p ≥ τ truly meets precision ≥ p_min and recall ≥ r_min, per τ (T,)."""
    tp = np.array([np.sum((p >= t) & is_class) for t in np.atleast_1d(thresholds)])
    flagged = np.array([np.sum(p >= t) for t in np.atleast_1d(thresholds)])
    return (flagged > 0) & (tp >= p_min * flagged - 1e-9) & (tp >= r_min * np.sum(is_class) - 1e-9)


def reliability(frame):
    """Stated in bins against met, with a binomial 90% interval per bin."""
    out = []
    for span, part in frame.groupby(pd.cut(frame["stated"], BINS, right=False), observed=True):
        n, k = len(part), int(part["met"].sum())
        a, b = stats.beta.ppf([0.05, 0.95], k + 0.5, n - k + 0.5)
        out.append(f"  stated [{span.left:.1f}, {min(span.right, 1):.1f}): n {n:4d}  mean stated "
                   f"{part['stated'].mean():.2f}  met {k} ({k / n:.3f}) [{a:.2f}, {b:.2f}]")
    return out


def report(frame):
    lines = []
    frame = frame.assign(group=np.where(frame["case"].isin(NETWORKS), "networks", "linear models and SVM"))
    for (group, n), part in frame.groupby(["group", "labels"]):
        high = part[part["stated"] >= 0.9]
        lines.append(f"{group}, {n} labels: {len(part)} choices, {part['case'].nunique()} cases; "
                     f"stated >= 0.9 met in {int(high['met'].sum())} of {len(high)}; mean stated "
                     f"{part['stated'].mean():.2f}, met {part['met'].mean():.2f}; Brier over every threshold "
                     f"{part['brier'].mean():.3f}")
        lines += reliability(part)
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--multinli", metavar="DIR", help="the MultiNLI predictions (see benchmarks/multiclass.py)")
    parser.add_argument("--banking77", metavar="DIR", help="the Banking77 predictions (benchmarks/make_banking77.py)")
    parser.add_argument("--labels", default="20", help="comma-separated numbers of labels (default 20)")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--pool", type=int, default=10_000, help="items per pool drawn from a larger case")
    parser.add_argument("--classes", type=int, default=3, help="classes per pool (its most frequent)")
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--out", help="CSV of every choice")
    parser.add_argument("--from-csv", help="print the tables of an earlier run's CSV")
    args = parser.parse_args(argv)
    if args.from_csv:
        print(report(pd.read_csv(args.from_csv)))
        return
    cases = dict(digits_cases())
    if args.multinli:
        cases.update(multinli_cases(args.multinli))
    if args.banking77:
        cases.update(banking77_cases(args.banking77))
    rows = []
    for name, (probs, y) in cases.items():
        started = time.perf_counter()
        for n in (int(v) for v in args.labels.split(",")):
            for seed in range(args.seeds):
                rows += [{"case": name, "labels": n, "seed": seed, **r}
                         for r in trial(probs, y, n, seed, args.pool, args.classes, args.draws)]
        print(f"{name}: {time.perf_counter() - started:.0f} s", file=sys.stderr)
    frame = pd.DataFrame(rows)
    if args.out:
        frame.to_csv(args.out, index=False)
    print(report(frame))


if __name__ == "__main__":
    main()
