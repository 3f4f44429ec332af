"""Does the plan for several multiclass classifiers foresee what more labels do? Its forecast against refits.

On pools of ``--pool`` MultiNLI items scored by two of SSME's classifiers (``--multinli DIR``, as in
``benchmarks/multiclass.py``), from ``--start`` random labels, ``MulticlassComparison.plan_labels`` (random
strategy, a width goal no future meets, so every future is read to the end) forecasts the 90% interval width of
the accuracy difference after n more labels: the median over its futures. The forecast is set beside the width
that ``compare_multiclass`` refitted with the first n of the same random order gives. A checkpoint where more
than half of the futures were censored (their reweighted draws' ESS fell below a tenth) is NaN: the plan says
to label some, refit and plan again.

    python benchmarks/multiclass_plan.py --multinli DIR --seeds 5 --further 20,40,80
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np

from spe.multiclass.comparison import compare_multiclass


def trial(scores, y, names, seed, pool, start, further, draws):
    rng = np.random.default_rng(seed)
    keep = rng.choice(y.size, pool, replace=False)
    pool_scores, pool_y = {n: scores[n][keep] for n in names}, y[keep]
    order = rng.permutation(pool)

    def compared(n):
        return compare_multiclass(pool_scores, {int(i): int(pool_y[i]) for i in order[:start + n]}, draws=draws,
                                  rng=seed)

    plan = compared(0).plan_labels(width=1e-9, strategy="random", max_labels=max(further), rng=seed)
    rows = []
    for n in further:
        at = int(np.argmin(np.abs(plan.checkpoints - n)))
        refit = compared(n).difference(*names, performance="population")
        rows.append((n, plan.progress[at, 1], refit.hi - refit.lo))
    return plan.now, rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--multinli", metavar="DIR", required=True)
    parser.add_argument("--classifiers", default="ReSample,SqrtReWeight")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--pool", type=int, default=2000)
    parser.add_argument("--start", type=int, default=20)
    parser.add_argument("--further", default="20,40,80")
    parser.add_argument("--draws", type=int, default=1000)
    args = parser.parse_args(argv)
    names = args.classifiers.split(",")
    y = np.load(Path(args.multinli) / "labels.npy")
    scores = {n: np.load(Path(args.multinli) / f"{n}.npy").astype(float) for n in names}
    further = [int(v) for v in args.further.split(",")]
    table = {n: ([], []) for n in further}
    for seed in range(args.seeds):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            now, rows = trial(scores, y, names, seed, args.pool, args.start, further, args.draws)
        print(f"seed {seed}: width now {now:.3f}; " + "; ".join(f"+{n}: plan {p:.3f}, refit {r:.3f}"
                                                               for n, p, r in rows), flush=True)
        for n, p, r in rows:
            table[n][0].append(p)
            table[n][1].append(r)
    for n, (p, r) in table.items():
        p = np.array(p)
        print(f"+{n} labels: plan's median width {np.nanmean(p):.3f} (forecast in {np.mean(np.isfinite(p)):.0%} "
              f"of seeds), refit {np.mean(r):.3f}")


if __name__ == "__main__":
    main()
