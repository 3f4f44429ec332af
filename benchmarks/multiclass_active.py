"""Do the items ``spe suggest`` names for a multiclass accuracy estimate beat random ones?

Per trial: a pool (``--pool`` items of a case of ``benchmarks/multiclass.py``), ``--start`` labels at random,
then ``--more`` labels either at random or the items ``MulticlassEvaluation.suggest(target="accuracy")`` names;
the accuracy error (posterior mean against the pool's truth) and whether the interval holds it, for each.

With ``--threshold P,R`` the target is instead ``threshold:CLASS:P,R`` for the pool's most frequent class: after
the more labels, the probability ``spe threshold --class`` states for its threshold, whether that threshold
meets the requirement on the pool, the Brier score (stated − met)² and the doubt min(stated, 1 − stated).

    python benchmarks/multiclass_active.py --multinli DIR --cases multinli_ReSample,digits_mlp --seeds 10
    python benchmarks/multiclass_active.py --multinli DIR --threshold 0.9,0.5 --seeds 20
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd

from multiclass import banking77_cases, digits_cases, multinli_cases, pool_and_labels
from multiclass_thresholds import met_on_pool
from spe.multiclass import evaluate_multiclass


def refits(probs, y, seed, pool, start, more, draws, target_of):
    """A pool of the case, ``start`` random labels, and the estimates after ``more`` labels either at random or
    suggested for ``target_of(y)``: (probs, y, {"random": evaluation, "suggested": evaluation})."""
    probs, y, first, rng = pool_and_labels(probs, y, seed, pool, start)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = evaluate_multiclass(probs, {int(i): int(y[i]) for i in first}, draws=draws, rng=seed)
        free = np.setdiff1d(np.arange(len(y)), first)
        chosen = {"random": rng.choice(free, more, replace=False),
                  "suggested": ev.suggest(more, target_of(y), rng=seed).items}
        return probs, y, {name: evaluate_multiclass(probs, {int(i): int(y[i]) for i in np.r_[first, extra]},
                                                    draws=draws, rng=seed)
                          for name, extra in chosen.items()}


def trial(probs, y, seed, pool, start, more, draws):
    """The accuracy target: error, hit and width after random or suggested more labels."""
    probs, y, after = refits(probs, y, seed, pool, start, more, draws, lambda y: "accuracy")
    truth = np.mean(probs.argmax(1) == y)
    out = {}
    for name, ev in after.items():
        acc = ev.accuracy()
        out.update({f"{name}_error": abs(acc.mean - truth), f"{name}_hit": acc.lo <= truth <= acc.hi,
                    f"{name}_width": acc.hi - acc.lo})
    return out


def threshold_trial(probs, y, seed, pool, start, more, draws, requirement):
    """One pool's threshold target: stated, met, Brier and doubt after random or suggested more labels."""
    def target_of(y):
        return f"threshold:{int(np.bincount(y).argmax())}:{requirement[0]},{requirement[1]}"

    probs, y, after = refits(probs, y, seed, pool, start, more, draws, target_of)
    k = int(np.bincount(y).argmax())
    out = {}
    for name, ev in after.items():
        choice = ev.best_threshold(str(k), *requirement)
        met = bool(met_on_pool(np.exp(ev.scores.log_probs[:, k]), y == k, choice.threshold, *requirement)[0])
        out.update({f"{name}_stated": choice.probability, f"{name}_met": float(met),
                    f"{name}_brier": (choice.probability - met) ** 2,
                    f"{name}_doubt": min(choice.probability, 1 - choice.probability)})
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
    parser.add_argument("--threshold", metavar="P,R", help="the target threshold:CLASS:P,R (see above)")
    parser.add_argument("--banking77", metavar="DIR")
    args = parser.parse_args(argv)
    cases = digits_cases()
    if args.multinli:
        cases.update(multinli_cases(args.multinli))
    if args.banking77:
        cases.update(banking77_cases(args.banking77))
    requirement = None if args.threshold is None else tuple(float(v) for v in args.threshold.split(","))
    if requirement is not None and (len(requirement) != 2 or not all(0 <= v <= 1 for v in requirement)):
        parser.error("--threshold takes P,R, two numbers in [0, 1]")
    rows = []
    for name in args.cases.split(","):
        probs, y = cases[name]
        for seed in range(args.seeds):
            run = (trial(probs, y, seed, args.pool, args.start, args.more, args.draws) if requirement is None else
                   threshold_trial(probs, y, seed, args.pool, args.start, args.more, args.draws, requirement))
            rows.append({"case": name, **run})
    frame = pd.DataFrame(rows)
    print(frame.groupby("case").mean(numeric_only=True).round(4).to_string())


if __name__ == "__main__":
    main()
