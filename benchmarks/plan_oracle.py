"""Why is the label-budget plan pessimistic? An oracle that takes its two approximations apart.

The plan (:func:`spe.active.plan`) predicts the AP interval's width after n more labels by (a) simulating the
labels from a "true" posterior draw and (b) reweighting today's posterior draws by them, without a refit.
``benchmarks/plan.py`` found the loop needed fewer labels than the plan said more often than an honest range
allows. For every case and seed, from --start random labels and the plan's random order of the next items, this
reads the width after n more labels three ways:

* ``plan``: the plan's median (and 10–90% range) over its simulated futures;
* ``reweighted``: today's draws reweighted by the *real* labels of those n items (the plan's step (b) with the
  true labels: the oracle for step (a));
* ``refit``: ``spe.evaluate`` refitted with those n labels (what the user sees).

``reweighted`` ≈ ``plan`` > ``refit`` puts the pessimism on the reweighting (a refit moves the draws and the
score models' weights; reweighting only moves weight among today's draws); ``plan`` > ``reweighted`` ≈
``refit`` puts it on the simulated labels (the real labels say more than the model's own predictive).

Run:  python benchmarks/plan_oracle.py --seeds 2 --jobs 2 [--cases hiva_rf magic_gbm] [--out plan_oracle.csv]
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np

from cases import add_run_arguments, random_labels, read_case, rows_of_run, seeds_of, trial_rng

FURTHER = (5, 10, 20, 40, 70, 100)


def interval_width(draws, weights, level):
    """The central credible interval's width from weighted draws (as the estimate's intervals)."""
    from spe.quantiles import weighted_quantile

    lo, hi = weighted_quantile(draws, weights, [(1 - level) / 2, (1 + level) / 2])
    return float(hi - lo)


def run_case(args):
    """One case and seed: rows of (n further labels, the plan's width quantiles, reweighted, refit)."""
    path, seed, start, draws, futures = args
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
    import spe

    s, y, name = read_case(path)
    known = np.array(random_labels(trial_rng(seed, start, name), y.size, start), dtype=int)

    def fit(items):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return spe.evaluate(s, (items, y[items]), draws=draws, rng=seed, workers=1)

    ev = fit(known)
    horizon = max(FURTHER)
    plan = ev.plan_labels(width=1e-9, target="ap", strategy="random", max_labels=horizon, futures=futures, rng=seed)
    order = ev.suggest(horizon, strategy="random", rng=seed).items
    ap = np.asarray(ev.performance.ranking_metrics["average_precision"], dtype=float)
    p = ev.performance.replay.item_probability_draws(ev.scores, order)          # (M, horizon)
    loglik = np.cumsum(np.where(y[order] == 1, np.log(np.clip(p, 1e-300, 1)), np.log(np.clip(1 - p, 1e-300, 1))),
                       axis=1)
    base = np.log(np.maximum(ev.weights, 1e-300))
    rows = [{"case": name, "seed": seed, "further": 0, "plan_median": plan.now, "reweighted": plan.now,
             "refit": ev.average_precision().hi - ev.average_precision().lo, "ess_reweighted": 1 / np.sum(
                 (ev.weights / ev.weights.sum()) ** 2)}]
    for n in FURTHER:
        log_w = base + loglik[:, n - 1]
        w = np.exp(log_w - log_w.max())
        c = int(np.argmin(np.abs(plan.checkpoints - n)))
        after = fit(np.r_[known, order[:n]])
        rows.append({"case": name, "seed": seed, "further": n, "plan_q10": plan.progress[c, 0],
                     "plan_median": plan.progress[c, 1], "plan_q90": plan.progress[c, 2],
                     "reweighted": interval_width(ap, w, ev.level), "ess_reweighted": w.sum() ** 2 / np.sum(w ** 2),
                     "refit": after.average_precision().hi - after.average_precision().lo})
    return rows


def report(df):
    """Per number of further labels: the median ratios of the three widths, and how often the refit's width falls
    in the plan's 10–90% range."""
    df = df[df.further > 0].assign(
        reweighted_to_plan=lambda d: d.reweighted / d.plan_median, refit_to_plan=lambda d: d.refit / d.plan_median,
        refit_to_reweighted=lambda d: d.refit / d.reweighted,
        refit_in_range=lambda d: (d.refit >= d.plan_q10) & (d.refit <= d.plan_q90),
        refit_below=lambda d: d.refit < d.plan_q10)
    table = df.groupby("further").agg(runs=("case", "size"), reweighted_to_plan=("reweighted_to_plan", "median"),
                                      refit_to_plan=("refit_to_plan", "median"),
                                      refit_to_reweighted=("refit_to_reweighted", "median"),
                                      refit_in_range=("refit_in_range", "mean"), refit_below=("refit_below", "mean"),
                                      ess_reweighted=("ess_reweighted", "median"))
    print("the AP interval's width after n further random labels: median ratios over cases and seeds")
    print(table.round(3).to_string())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_run_arguments(ap, seeds=2, out="plan_oracle.csv", start=10, draws=500)
    ap.add_argument("--futures", type=int, default=200, help="the plan's simulated futures (default 200)")
    args = ap.parse_args(argv)
    report(rows_of_run(args, run_case, lambda paths: [(p, seed, args.start, args.draws, args.futures)
                                                      for p in paths for seed in seeds_of(args)], "cases"))


if __name__ == "__main__":
    main()
