"""How long ``spe.evaluate`` takes on a K-class pool, and its peak memory: N items × K classes, 20 labels.

The scores are simulated logits of an over-confident network (each class a Gaussian cloud around its own
direction; the true classes follow the softmax at temperature 2). Prints the wall time of each stage (the score
models' fits, the label draws and metrics) and the process's peak resident memory.

    python benchmarks/multiclass_speed.py --items 10000 --classes 100
    python benchmarks/multiclass_speed.py --items 10000 --classes 100 --classifiers 3   # spe.compare of three
    python benchmarks/multiclass_speed.py --items 10000 --classes 100 --reference 10000  # with a reference set
"""

from __future__ import annotations

import argparse
import resource
import time
import warnings

import numpy as np
from scipy import special

from spe.multiclass.average import average_class_models, fit_class_models
from spe.multiclass.models import CLASS_MODELS
from spe.multiclass.performance import sample_class_performance
from spe.multiclass.scores import class_scores


def simulated(n, k, seed=0):
    rng = np.random.default_rng(seed)
    hidden = rng.integers(0, k, n)
    logits = 6.0 * np.eye(k)[hidden] + rng.normal(0, 1.5, size=(n, k))
    truth = special.softmax(logits / 2.0, axis=1)
    y = (truth.cumsum(axis=1) > rng.random(n)[:, None]).argmax(axis=1)
    return logits, y


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--classes", type=int, default=100)
    parser.add_argument("--labels", type=int, default=20)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--reference", type=int, default=0, metavar="R",
                        help="R labeled reference items of the same classifier (spe.evaluate(..., reference=))")
    parser.add_argument("--classifiers", type=int, default=1,
                        help="with 2 or more: spe.compare of that many classifiers (each the logits plus noise)")
    args = parser.parse_args(argv)
    logits, y = simulated(args.items + args.reference, args.classes)
    reference = (class_scores(logits[args.items:]).log_probs, y[args.items:]) if args.reference else None
    logits, y = logits[:args.items], y[:args.items]
    if args.classifiers > 1:
        return _compare(logits, y, args)
    rng = np.random.default_rng(1)
    labeled = np.sort(rng.choice(args.items, args.labels, replace=False))
    started = time.perf_counter()
    data = class_scores(logits)
    t_read = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        averaged = tuple(n for n, m in CLASS_MODELS.items() if m.averaged)
        fitted = fit_class_models(data.log_probs, labeled, y[labeled], names=averaged, draws=args.draws,
                                  rng=np.random.default_rng(2), reference=reference)
    model = average_class_models(fitted, draws=args.draws, rng=np.random.default_rng(3))
    t_fit = time.perf_counter()
    sample_class_performance(model, data.log_probs, data.predicted, labeled, y[labeled],
                             rng=np.random.default_rng(4))
    t_draw = time.perf_counter()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{args.items} items x {args.classes} classes, {args.labels} labels"
          + (f", a {args.reference}-item reference set" if args.reference else "") + f", {args.draws} draws: "
          f"total {t_draw - started:.1f} s (reading {t_read - started:.1f} s, score models {t_fit - t_read:.1f} s: "
          + ", ".join(f"{m.name}" for m in fitted)
          + f"; label draws and metrics {t_draw - t_fit:.1f} s); peak memory {peak:.0f} MB")


def _compare(logits, y, args):
    from spe.multiclass.comparison import compare_multiclass

    rng = np.random.default_rng(1)
    labeled = np.sort(rng.choice(args.items, args.labels, replace=False))
    scores = {f"classifier {j + 1}": logits + rng.normal(0, 0.5 * j, size=logits.shape) for j in
              range(args.classifiers)}
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare_multiclass(scores, (labeled, y[labeled]), draws=args.draws, rng=0)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"spe.compare of {args.classifiers} classifiers, {args.items} items x {args.classes} classes, "
          f"{args.labels} labels, {args.draws} draws: {time.perf_counter() - started:.1f} s; peak memory "
          f"{peak:.0f} MB")


if __name__ == "__main__":
    main()
