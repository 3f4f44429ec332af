"""Speed of ``spe suggest``: a batch of k suggestions on N items, per target and strategy (issue 24: a batch
of 10 on 10⁵ items under 30 s).

Scores from a known two-normal mixture (prevalence 0.1), 20 random labels; ``spe.evaluate`` once (timed), then
``Evaluation.suggest(k)`` for every target and strategy (timed; the estimate's own draws, nothing refitted).

Run:  python benchmarks/suggest_speed.py [--n 100000 1000000] [-k 10] [--draws 1000]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, nargs="+", default=[100_000])
    ap.add_argument("-k", type=int, default=10)
    ap.add_argument("--draws", type=int, default=1000)
    args = ap.parse_args(argv)
    import spe
    from spe.active import STRATEGIES

    for n in args.n:
        rng = np.random.default_rng(0)
        y = rng.random(n) < 0.1
        s = np.where(y, rng.normal(2, 1, n), rng.normal(0, 1, n))
        known = {int(i): int(y[i]) for i in rng.choice(n, 20, replace=False)}
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ev = spe.evaluate(s, known, draws=args.draws, rng=0)
        print(f"N = {n:,}: spe.evaluate {time.perf_counter() - t0:.1f} s ({args.draws} draws)")
        for target in ("pr-band", "ap", "prevalence", "threshold:0.9,0.5"):
            for strategy in STRATEGIES:
                t0 = time.perf_counter()
                out = ev.suggest(args.k, target=target, strategy=strategy, rng=0)
                print(f"  suggest k={args.k} {target:<18s} {strategy:<12s} {time.perf_counter() - t0:6.2f} s   "
                      f"posterior SD {out.uncertainty:.4f} -> {out.expected_uncertainty:.4f}")


if __name__ == "__main__":
    main()
