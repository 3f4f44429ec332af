"""Is the label-budget plan (``spe plan``, ``Evaluation.plan_labels``) honest? Its prediction against the loop.

For every case in ``../shared/cases/`` (or --cases-dir) and seed: start from --start random labels, fit
``spe.evaluate`` and ask for a plan: about how many more labels until the 90% interval of the average precision
is narrower than --shrink times its width now (a goal relative to each case, so that every case has one within
reach). Then run the loop the plan describes: reveal the true labels of the next items in batches of --batch,
refit, and stop when the interval is that narrow (or at --max-labels further labels):

* ``random``: the items the plan's random order holds (``suggest(strategy="random")`` with the same seed gives
  the same order), so plan and loop see the same items;
* ``information``: each batch suggested by the refitted estimate (the plan fixed the order at the start, so it
  should be on the cautious side).

Reports per strategy the labels the loop needed against the plan's median and 10–90% range: how often the
truth fell in that range (an honest 80% range holds it about 80% of the time), below or above it, and the
median ratio of needed to planned. The loop checks the goal every --batch labels, so it is compared with the
plan's quantiles rounded up to the batch.

Run:  python benchmarks/plan.py --seeds 2 --jobs 2 [--cases hiva_rf magic_gbm] [--out plan.csv]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd

from cases import add_run_arguments, random_labels, read_case, rows_of_run, seeds_of, trial_rng


def ap_width(ev):
    """The width of the average precision's credible interval."""
    i = ev.average_precision()
    return i.hi - i.lo


def run_loop(args):
    """One case, seed and strategy: the plan at the start and what the loop needed (one row)."""
    path, seed, strategy, start, batch, max_labels, shrink, draws, futures = args
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
    import spe

    s, y, name = read_case(path)
    labeled = list(random_labels(trial_rng(seed, start, name), y.size, start))

    def fit():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            idx = np.array(labeled, dtype=int)
            return spe.evaluate(s, (idx, y[idx]), draws=draws, rng=seed, workers=1)

    row = {"case": name, "seed": seed, "strategy": strategy}
    try:
        t0 = time.perf_counter()
        ev = fit()
        goal = shrink * ap_width(ev)
        plan = ev.plan_labels(width=goal, target="ap", strategy=strategy, max_labels=max_labels, futures=futures,
                              rng=seed)
        q10, q50, q90 = plan.labels_needed()
        row.update(width_now=ap_width(ev), goal=goal, plan_q10=q10, plan_median=q50, plan_q90=q90,
                   plan_censored=float(np.mean(plan.censored)), plan_seconds=time.perf_counter() - t0)
        order = ev.suggest(max_labels, strategy="random", rng=seed).items if strategy == "random" else None
        added = 0
        while added < max_labels:
            if strategy == "random":
                labeled += [int(i) for i in order[added:added + batch]]
            else:
                labeled += [int(i) for i in ev.suggest(batch, target="ap", strategy=strategy, rng=seed + added).items]
            added += batch
            ev = fit()
            if ap_width(ev) < goal:
                break
        row.update(needed=added if ap_width(ev) < goal else np.inf, width_end=ap_width(ev),
                   seconds=time.perf_counter() - t0)
    except Exception as e:  # a failed fit is a row, not a lost run
        row["error_message"] = f"{type(e).__name__}: {e}"
    return row


def up_to_batch(value, batch):
    return np.ceil(value / batch) * batch


def report(df, batch):
    """How often the loop's labels fell in the plan's 10–90% range, per strategy."""
    if "error_message" in df and df["error_message"].notna().any():
        bad = df[df["error_message"].notna()]
        print(f"{len(bad)} failed runs:", *(f"  {r.case} seed={r.seed} {r.strategy}: {r.error_message}"
                                           for r in bad.itertuples()), sep="\n")
        df = df[df["error_message"].isna()]
    df = df.assign(lo=up_to_batch(df.plan_q10, batch), hi=up_to_batch(df.plan_q90, batch))
    df = df.assign(inside=(df.needed >= df.lo) & (df.needed <= df.hi), below=df.needed < df.lo,
                   above=df.needed > df.hi, ratio=df.needed / up_to_batch(df.plan_median, batch))
    with pd.option_context("display.width", 200, "display.max_columns", 40, "display.precision", 3):
        print(df[["case", "seed", "strategy", "width_now", "goal", "plan_q10", "plan_median", "plan_q90",
                  "plan_censored", "needed"]].to_string(index=False))
        table = df.groupby("strategy").agg(runs=("case", "size"), inside=("inside", "mean"), below=("below", "mean"),
                                           above=("above", "mean"),
                                           median_ratio=("ratio", lambda r: np.median(r[np.isfinite(r)])),
                                           plan_seconds=("plan_seconds", "median"))
        print("\nthe loop's labels against the plan's 10-90% range (an honest range holds them ~80% of the time):")
        print(table.round(3).to_string())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_run_arguments(ap, seeds=2, out="plan.csv", start=10, draws=500)
    ap.add_argument("--strategies", nargs="+", default=["random", "information"])
    ap.add_argument("--batch", type=int, default=5, help="labels added per round (default 5)")
    ap.add_argument("--max-labels", type=int, default=100, help="further labels at most (default 100)")
    ap.add_argument("--shrink", type=float, default=0.5,
                    help="the goal: the AP interval this fraction of its width at the start (default 0.5)")
    ap.add_argument("--futures", type=int, default=200, help="the plan's simulated futures (default 200)")
    args = ap.parse_args(argv)
    df = rows_of_run(args, run_loop, lambda paths: [
        (p, seed, strategy, args.start, args.batch, args.max_labels, args.shrink, args.draws, args.futures)
        for p in paths for seed in seeds_of(args) for strategy in args.strategies], "loops")
    report(df, args.batch)


if __name__ == "__main__":
    main()
