"""How long an estimate with a labeled reference set takes: ``spe.evaluate(pool, labels, reference=...)`` at N pool
items and R reference items, warm process, median of --repeats runs, with the stage log.

    python benchmarks/reference_speed.py --sizes 10000 100000 --labels 0 20

The pool and the reference are drawn from a shared case's scores with replacement (so any N and R), the
reference's labels its true labels, the pool a prior shift of it (its negatives thinned to half). The target:
N = 10⁵ with R = 10⁵ in ≤ 10 s on the project's 2-core machine.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import time
import warnings

import numpy as np

from cases import DEFAULT_CASES, read_case


def draw(scores, labels, n, rng, thin_negatives=1.0):
    """n items drawn with replacement from a case, its negatives kept with probability ``thin_negatives``."""
    keep = (labels == 1) | (rng.random(labels.size) < thin_negatives)
    idx = rng.choice(np.flatnonzero(keep), n, replace=True)
    return scores[idx], labels[idx]


def time_one(spe, pool, labels, reference, n_labels, seed):
    """Seconds of one estimate."""
    rng = np.random.default_rng(seed)
    known = None if n_labels == 0 else {int(i): int(labels[i]) for i in rng.choice(pool.size, n_labels,
                                                                                    replace=False)}
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spe.evaluate(pool, known, reference=reference, rng=seed)
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--case", default="civil_distilbert_erm1", help="the shared case the scores are drawn from")
    ap.add_argument("--cases-dir", default=str(DEFAULT_CASES))
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000], help="N = R values")
    ap.add_argument("--labels", type=int, nargs="+", default=[0, 20])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("-v", "--verbose", action="store_true", help="log each stage's wall time")
    args = ap.parse_args()
    if args.verbose:
        logging.basicConfig(level=logging.INFO, format="  %(message)s")
    import spe

    scores, labels, _ = read_case(f"{args.cases_dir}/{args.case}.csv")
    rng = np.random.default_rng(0)
    spe.evaluate(scores[:2000], None, reference=(scores[2000:4000], labels[2000:4000]), rng=0)  # warm imports
    print(f"case {args.case}; median of {args.repeats} estimates, warm process")
    print(f"{'N = R':>8} {'labels':>6} {'seconds':>8}")
    for n in args.sizes:
        reference = draw(scores, labels, n, rng)
        pool, truth = draw(scores, labels, n, rng, thin_negatives=0.5)
        for k in args.labels:
            times = [time_one(spe, pool, truth, reference, k, seed) for seed in range(args.repeats)]
            print(f"{n:>8,} {k:>6} {statistics.median(times):>8.1f}", flush=True)


if __name__ == "__main__":
    main()
