"""Which items to label next: a simulated labeling loop per strategy on the shared cases (issue 24).

For every case in ``../shared/cases/`` (or --cases-dir), seed and run: start from --start random labels
(the same for every run of a case and seed), then repeatedly fit ``spe.evaluate``, record its accuracy, ask
``Evaluation.suggest`` for a batch of --batch items with the run's strategy and target, and reveal their true
labels — up to --max-labels (random labels up to --random-max, so that the strategies can be read against
more random labels). At every label count:

* error: area between the median PR curve and the true one (``spe.benchmark.pr_curve_error``);
* coverage: the fraction of the recall grid where the band contains the true curve (the bands must stay
  honest under adaptive selection);
* the threshold decision for precision >= 0.9 and recall >= 0.5: the recommended threshold
  (``Evaluation.best_threshold``) is said to meet it when its stated probability is >= 0.5; the decision is
  right when that agrees with whether it truly does on the pool;
* the number of positives among the labels, and seconds per fit.

Runs: ``random``, ``stratified``, ``information:TARGET`` (the expected-information strategy for TARGET:
``pr-band``, ``ap``, ``prevalence``, ``threshold:0.9,0.5``; every fifth label at random), ``greedy:TARGET``
(without the random fifth).

Run:  python benchmarks/active.py --seeds 5 --jobs 2 [--cases hiva_rf magic_gbm] [--plot error.png]
Prints per run the mean error, coverage and decision accuracy against the number of labels, and issue 24's
comparisons (the information strategy at 20 labels against random at 40; at 50 against random at 100);
writes every row to --out (CSV).
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from cases import add_run_arguments, random_labels, read_case, rows_of_run, seeds_of, trial_rng

HERE = Path(__file__).resolve().parent
REQUIREMENT = (0.9, 0.5)
DEFAULT_RUNS = ["random", "stratified", "information:pr-band", "information:threshold:0.9,0.5", "greedy:pr-band"]


def truly_meets(scores, labels, threshold, requirement=REQUIREMENT):
    """Whether predicting the items scored >= threshold positive meets the requirement on the pool."""
    predicted = scores >= threshold
    tp = int((predicted & (labels == 1)).sum())
    precision = tp / predicted.sum() if predicted.any() else np.nan
    recall = tp / max(int(labels.sum()), 1)
    return bool(precision >= requirement[0] and recall >= requirement[1])


def run_loop(args):
    """One case, seed and run: rows per label count (a failed fit ends the loop with an error row)."""
    path, seed, run, start, batch, max_labels, draws = args
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
    import spe
    from spe.baselines import pr_curve_from_labels
    from spe.benchmark import pr_curve_error

    s, y, name = read_case(path)
    truth = pr_curve_from_labels(s, y)
    strategy, _, target = run.partition(":")
    labeled = list(random_labels(trial_rng(seed, start, name), y.size, start)) if start else []
    rows = []
    while True:
        idx = np.array(labeled, dtype=int)
        row = {"case": name, "seed": seed, "run": run, "n_labels": idx.size, "n_pos": int(y[idx].sum())}
        try:
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ev = spe.evaluate(s, (idx, y[idx]), draws=draws, rng=seed, workers=1)
            pr = ev.pr_curve()
            choice = ev.best_threshold(*REQUIREMENT)
            said = choice.probability >= 0.5
            row.update(error=pr_curve_error(pr.median, truth),
                       coverage=float(np.mean((pr.lo <= truth + 1e-9) & (truth <= pr.hi + 1e-9))),
                       decision_right=bool(said == truly_meets(s, y, choice.threshold)),
                       seconds=time.perf_counter() - t0)
            if idx.size + batch > max_labels:
                rows.append(row)
                return rows
            t0 = time.perf_counter()
            next_items = ev.suggest(batch, target=target or "pr-band", strategy=strategy, rng=seed + idx.size).items
            row["seconds_suggest"] = time.perf_counter() - t0
        except Exception as e:  # a failed fit is a row, not a lost run
            row["error_message"] = f"{type(e).__name__}: {e}"
            rows.append(row)
            return rows
        rows.append(row)
        labeled += [int(i) for i in next_items]


def report(df, start):
    """The tables: mean error, coverage and decision accuracy against labels per run; the issue's comparisons."""
    if "error_message" in df and df["error_message"].notna().any():
        bad = df[df["error_message"].notna()]
        print(f"{len(bad)} failed fits:", *(f"  {r.case} seed={r.seed} {r.run} n={r.n_labels}: {r.error_message}"
                                            for r in bad.itertuples()), sep="\n")
        df = df[df["error_message"].isna()]
    with pd.option_context("display.width", 200, "display.max_columns", 40, "display.precision", 3):
        for col in ("error", "coverage", "decision_right", "n_pos"):
            pairs = df.groupby(["case", "seed"]).ngroups
            print(f"\n=== {col}: mean over {pairs} runs of {df.case.nunique()} cases (case x seed), by labels ===")
            print(df.pivot_table(index="n_labels", columns="run", values=col, aggfunc="mean").round(3))
    mean = df.pivot_table(index="n_labels", columns="run", values="error", aggfunc="mean")
    right = df.pivot_table(index="n_labels", columns="run", values="decision_right", aggfunc="mean")
    print("\nissue 24's comparisons (means over every case and seed):")
    for run in [r for r in mean.columns if r != "random" and "random" in mean.columns]:
        for n, against in ((20, 40), (20, 30), (50, 100)):
            if n in mean.index and against in mean.index and not np.isnan(mean.loc[n, run]):
                print(f"  {run} at {n}: error {mean.loc[n, run]:.4f}, decision right {right.loc[n, run]:.3f};"
                      f" random at {against}: error {mean.loc[against, 'random']:.4f}, decision right "
                      f"{right.loc[against, 'random']:.3f}")
    cov = df[df.n_labels > start].groupby("run")["coverage"].mean()
    print("coverage after the first adaptive batch:", cov.round(3).to_dict())
    if "random" in mean.columns:
        report_cases(df)


def report_cases(df):
    """Per case (means over its seeds): how often a strategy at 20 labels is worse than random at 40, and the
    cases whose band coverage at 25-50 labels is under 0.8 for some run."""
    error = df.pivot_table(index="case", columns=["run", "n_labels"], values="error", aggfunc="mean")
    print("\nper case (means over its seeds):")
    if ("random", 40) in error:
        for run in [r for r in df.run.unique() if r != "random" and (r, 20) in error]:
            pair = error[[(run, 20), ("random", 40)]].dropna()
            worse = int((pair.iloc[:, 0] > pair.iloc[:, 1]).sum())
            print(f"  {run} at 20 worse than random at 40 on {worse} of {len(pair)} cases; medians over them "
                  f"{pair.iloc[:, 0].median():.3f} against {pair.iloc[:, 1].median():.3f}")
    cov = df[df.n_labels.between(25, 50)].pivot_table(index="case", columns="run", values="coverage", aggfunc="mean")
    print("  cases with coverage under 0.8 at 25-50 labels:", (cov < 0.8).sum().to_dict())
    with pd.option_context("display.width", 200, "display.max_columns", 40):
        print(cov[(cov < 0.8).any(axis=1)].round(2))


def plot(df, path):
    """Mean error against labels, one curve per run (the paper's Fig. 2A)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4), layout="constrained")
    for run, d in df.groupby("run"):
        m = d.groupby("n_labels")["error"].mean()
        ax.plot(m.index, m.values, marker="o", ms=3, label=run)
    ax.set(xlabel="labels", ylabel="mean PR-curve error", title="error against labels, per strategy")
    ax.legend()
    fig.savefig(path, dpi=150)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_run_arguments(ap, seeds=5, out="active.csv", start=5, draws=300)
    ap.add_argument("--runs", nargs="+", default=DEFAULT_RUNS,
                    help="random, stratified, information:TARGET (default: %(default)s)")
    ap.add_argument("--batch", type=int, default=5, help="labels added per round (default 5)")
    ap.add_argument("--max-labels", type=int, default=50, help="labels at the end of a strategy's loop (default 50)")
    ap.add_argument("--random-max", type=int, default=100, help="labels at the end of the random loop (default 100)")
    ap.add_argument("--plot", type=Path, help="write the figure of error against labels per run")
    args = ap.parse_args(argv)
    df = rows_of_run(args, run_loop, lambda paths: [
        (p, seed, run, args.start, args.batch, args.random_max if run == "random" else args.max_labels, args.draws)
        for p in paths for seed in seeds_of(args) for run in args.runs], "loops")
    report(df, args.start)
    if args.plot:
        plot(df[df.get("error_message", pd.Series(index=df.index, dtype=object)).isna()], args.plot)


if __name__ == "__main__":
    main()
