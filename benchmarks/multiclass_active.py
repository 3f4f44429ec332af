"""Do the items ``spe suggest`` names for a multiclass accuracy estimate beat random ones?

Per trial: a pool (``--pool`` items of a case of ``benchmarks/multiclass.py``), ``--start`` labels at random,
then ``--more`` labels either at random or the items ``MulticlassEvaluation.suggest(target="accuracy")`` names;
the accuracy error (posterior mean against the pool's truth) and whether the interval holds it, for each.

    python benchmarks/multiclass_active.py --multinli DIR --cases multinli_ReSample,digits_mlp --seeds 10
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd

from multiclass import digits_cases, multinli_cases
from spe.multiclass import evaluate_multiclass


def trial(probs, y, seed, pool, start, more, draws):
    rng = np.random.default_rng(seed)
    keep = rng.permutation(len(y))[:pool]
    probs, y = probs[keep], y[keep]
    truth = np.mean(probs.argmax(1) == y)
    first = rng.choice(len(y), start, replace=False)
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = evaluate_multiclass(probs, {int(i): int(y[i]) for i in first}, draws=draws, rng=seed)
        free = np.setdiff1d(np.arange(len(y)), first)
        chosen = {"random": rng.choice(free, more, replace=False),
                  "suggested": ev.suggest(more, "accuracy", rng=seed).items}
        for name, extra in chosen.items():
            labeled = np.r_[first, extra]
            acc = evaluate_multiclass(probs, {int(i): int(y[i]) for i in labeled}, draws=draws, rng=seed).accuracy()
            out[f"{name}_error"] = abs(acc.mean - truth)
            out[f"{name}_hit"] = acc.lo <= truth <= acc.hi
            out[f"{name}_width"] = acc.hi - acc.lo
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--multinli", metavar="DIR")
    parser.add_argument("--cases", default="multinli_ReSample,digits_mlp")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--pool", type=int, default=10_000)
    parser.add_argument("--start", type=int, default=10)
    parser.add_argument("--more", type=int, default=10)
    parser.add_argument("--draws", type=int, default=1000)
    args = parser.parse_args(argv)
    cases = digits_cases()
    if args.multinli:
        cases.update(multinli_cases(args.multinli))
    rows = []
    for name in args.cases.split(","):
        probs, y = cases[name]
        for seed in range(args.seeds):
            rows.append({"case": name, **trial(probs, y, seed, args.pool, args.start, args.more, args.draws)})
    frame = pd.DataFrame(rows)
    print(frame.groupby("case").mean(numeric_only=True).round(4).to_string())


if __name__ == "__main__":
    main()
