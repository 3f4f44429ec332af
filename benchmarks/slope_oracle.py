"""How much of SPE's remaining error is the unknown calibration slope?

The `calibrated` score model reads the score as log-odds f(s) and fits
P(y = 1 | s) = σ(a + b·f(s)) to the labeled items, with the prior
"calibrated up to a prior shift" (b near 1; see
``spe.models.recalibration``). On the real cases its trials that are worse
than labeled-only are classifiers whose slope b is far from 1 (overfit
boosting, naive Bayes, SVM margins read as log-odds) with too few labeled
positives to show it.

This script measures that directly. For every case, label count and seed
(the same labeled items as ``benchmarks/accuracy.py``), it fits the
`calibrated` model twice on the labeled items:

* ``default``: the shipped prior (log b ~ t₃(0, 0.5), a ~ N(0, 1.5²));
* ``oracle slope``: log b pinned (Normal, sd 0.05) at the slope b* of the
  best logistic recalibration fitted on *all* N labels (sklearn,
  unpenalised) — information no user has; the intercept a is still learnt
  from the n labels;
* ``rescaled scores``: the shipped prior on the feature b*·f(s), i.e. scores
  whose calibration slope is right and whose intercept is not (what a user
  gets by Platt-scaling the classifier on held-out data from its own
  training distribution and passing the calibrated probabilities: a prior
  shift moves only the intercept, Saerens et al. 2002).

and prints, for each, the mean error relative to labeled-only, the share
of trials worse than labeled-only by more than 0.02, the band coverage of
the true PR curve, and the per-case slopes (all labels vs the posterior
mean from the n labels). If pinning the slope removes most of the losses,
the information SPE lacks is that one number.

Run:  python benchmarks/slope_oracle.py --labels 20 --seeds 10 --jobs 2
"""

from __future__ import annotations

import argparse
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

from cases import DEFAULT_CASES, case_paths, random_labels, read_case, trial_rng


def best_slope(f, y):
    """Slope b of the unpenalised logistic regression of y on f (all N labels)."""
    from sklearn.linear_model import LogisticRegression

    return float(LogisticRegression(C=np.inf).fit(f[:, None], y).coef_[0, 0])


def run_case(args):
    case_path, label_counts, seeds, draws, level = args
    from spe.models.features import log_odds_feature  # the score read as log-odds, as `calibrated` reads it
    from spe.baselines import labeled_only_pr_curve, pr_curve_from_labels
    from spe.metrics.curves import RECALL_GRID
    from spe.performance import sample_performance
    from spe.quantiles import weighted_quantile
    from spe.models.recalibration import PRIORS, RecalibrationPrior, fit_recalibration

    s, y, name = read_case(case_path)
    feature = log_odds_feature(s, "auto")
    b_all = best_slope(feature(s), y)
    truth = pr_curve_from_labels(s, y)
    variants = {"default": (feature, PRIORS["calibrated"]),
                "oracle slope": (feature, RecalibrationPrior(0.0, PRIORS["calibrated"].a_sd, np.log(b_all), 0.05)),
                "rescaled scores": (lambda v: b_all * feature(v), PRIORS["calibrated"])}
    rows = []
    for n_labels in label_counts:
        for seed in seeds:
            idx = random_labels(trial_rng(seed, n_labels, name), s.size, n_labels)
            naive = np.nan_to_num(labeled_only_pr_curve(s, idx, y[idx]), nan=0.0)
            for variant, (f, prior) in variants.items():
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model = fit_recalibration("calibrated", f, s, idx, y[idx], prior=prior, draws=draws,
                                              rng=seed)
                    perf = sample_performance(model, s, idx, y[idx], rng=seed)
                lo, med, hi = weighted_quantile(np.nan_to_num(perf.precision_at_recall, nan=0.0), model.weights,
                                                [(1 - level) / 2, 0.5, (1 + level) / 2])
                rows.append({
                    "case": name, "n_labels": n_labels, "seed": seed, "variant": variant,
                    "n_labeled_pos": int(y[idx].sum()), "slope_all_labels": b_all,
                    "slope_posterior_mean": model.diagnostics["posterior_mean"]["b"],
                    "err": float(np.trapezoid(np.abs(med - truth), RECALL_GRID)),
                    "err_naive": float(np.trapezoid(np.abs(naive - truth), RECALL_GRID)),
                    "coverage": float(np.mean((lo <= truth + 1e-9) & (truth <= hi + 1e-9))),
                })
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases-dir", type=Path, default=DEFAULT_CASES)
    ap.add_argument("--labels", type=int, nargs="+", default=[20])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--draws", type=int, default=1000)
    ap.add_argument("--level", type=float, default=0.9)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", type=Path, help="write every trial to this CSV")
    a = ap.parse_args(argv)
    cases = case_paths(a.cases_dir)
    if not cases:
        ap.error(f"no case CSVs in {a.cases_dir}")
    jobs = [(str(c), a.labels, range(a.seeds), a.draws, a.level) for c in cases]
    rows = []
    with ProcessPoolExecutor(a.jobs) as ex:
        for r in ex.map(run_case, jobs):
            rows += r
    df = pd.DataFrame(rows)
    df["worse"] = df["err"] - df["err_naive"] > 0.02
    g = df.groupby(["n_labels", "variant"])
    print(pd.DataFrame({
        "trials": g.size(),
        "ratio": g["err"].mean() / g["err_naive"].mean(),
        "median_err": g["err"].median(),
        "worse_by_0.02": g["worse"].mean(),
        "coverage": g["coverage"].mean(),
    }).round(3).to_string())
    d = df[df.variant == "default"]
    slopes = d.groupby(["case", "n_labels"]).agg(slope_all=("slope_all_labels", "first"),
                                                 slope_from_n_median=("slope_posterior_mean", "median"))
    print("\ncalibration slope: all labels vs posterior mean from the n labels (median over seeds)")
    print(slopes.unstack("n_labels").round(2).to_string())
    print("\ntrials worse than labeled-only by > 0.02, per case")
    print(df[df.worse].groupby(["case", "variant"]).size().unstack("variant").fillna(0).astype(int).to_string())
    if a.out:
        tmp = a.out.with_name(a.out.name + ".tmp")
        df.to_csv(tmp, index=False)
        tmp.replace(a.out)


if __name__ == "__main__":
    main()
