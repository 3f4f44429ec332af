"""Many-class networks where the truth is known by construction: simulated over-confident K-class classifiers.

No shared case has 100 classes, so this script makes them. Each item has a hidden class; the classifier's logits
are ``margin`` on that class plus Normal noise (sd ``noise``) on every class, and the item's true class is drawn
from softmax(logits / ``temperature``): temperature scaling is the right model, and the classifier states
probabilities ``temperature`` times too sharp (over-confident, as deep networks are). Per seed, a pool of
``--items`` items, ``--labels`` random labels, ``spe.evaluate`` with the average of the score models (or
``--score-model``). Prints each trial and the accuracy error against the labeled items' own, the 90% interval's
hits, and how many trials left a model out of the average (its importance sampling unreliable, Pareto k̂ > 0.7).

Two regimes (the defaults are the first):

    python benchmarks/multiclass_simulated.py --classes 100                       # accuracy about 0.83
    python benchmarks/multiclass_simulated.py --classes 100 --margin 6 --noise 1.5 --temperature 2   # about 0.16
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from scipy import special

from spe.multiclass import evaluate_multiclass


def simulated_pool(n, k, margin, noise, temperature, seed):
    """(logits (N, K), true classes (N,)) of one simulated pool."""
    rng = np.random.default_rng(seed)
    hidden = rng.integers(0, k, n)
    logits = margin * np.eye(k)[hidden] + rng.normal(0, noise, size=(n, k))
    truth = special.softmax(logits / temperature, axis=1)
    return logits, (truth.cumsum(axis=1) > rng.random(n)[:, None]).argmax(axis=1)


def trial(args, seed):
    """One pool's (accuracy error, the labeled items' own error, interval holds the truth, models left out)."""
    logits, y = simulated_pool(args.items, args.classes, args.margin, args.noise, args.temperature, seed)
    truth = np.mean(logits.argmax(axis=1) == y)
    labeled = np.random.default_rng([seed, 1]).choice(args.items, args.labels, replace=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = evaluate_multiclass(logits, {int(i): int(y[i]) for i in labeled}, draws=args.draws, rng=seed,
                                 score_model=args.score_model)
    acc = ev.accuracy()
    own = np.mean(logits[labeled].argmax(axis=1) == y[labeled])
    left = [m["name"] for m in ev.diagnostics["score_models"] if m.get("left_out_by")]
    print(f"seed {seed}: truth {truth:.3f}, spe {acc.mean:.3f} [{acc.lo:.3f}, {acc.hi:.3f}], labeled items "
          f"{own:.3f}" + (f", left out: {', '.join(left)}" if left else ""), flush=True)
    return abs(acc.mean - truth), abs(own - truth), acc.lo <= truth <= acc.hi, len(left)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--classes", type=int, default=100)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--labels", type=int, default=20)
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--margin", type=float, default=11.0, help="the hidden class's logit above the others'")
    parser.add_argument("--noise", type=float, default=1.8, help="sd of every logit's Normal noise")
    parser.add_argument("--temperature", type=float, default=1.5, help="how many times too sharp (> 1)")
    parser.add_argument("--score-model", default="average")
    args = parser.parse_args(argv)
    rows = np.array([trial(args, seed) for seed in range(args.seeds)], dtype=float)
    error, own = rows[:, 0].mean(), rows[:, 1].mean()
    print(f"{args.classes} classes, {args.items} items, {args.labels} labels, {args.seeds} seeds "
          f"({args.score_model}): accuracy error {error:.4f} against the labeled items' {own:.4f} "
          f"({error / own:.2f}x), 90% interval hits {rows[:, 2].mean():.2f}, models left out in "
          f"{int((rows[:, 3] > 0).sum())} trials")


if __name__ == "__main__":
    main()
