"""Are the threshold probabilities honest? Stated against met, on every shared case.

For every case, label count and seed: draw n labels at random, run ``spe.evaluate`` once, and for every
requirement (precision ≥ 0.8/0.9/0.95 with recall ≥ 0.3/0.5):

* **stated** — ``Evaluation.best_threshold``: the recommended threshold and the probability printed by
  ``spe threshold``; **met** — whether that threshold truly meets the requirement on the pool (all labels known,
  sample performance: the N items themselves);
* **model** — the score model's own probability (the weighted fraction of posterior draws, what ``spe`` stated
  before the labels-only hypothesis was weighed in), the threshold it would recommend and whether it meets;
* **oracle of the selection** — for both: the threshold chosen on one half of the posterior draws and its
  probability stated on the other half (independent draws of the same posterior): if stated falls to met,
  the gap was the optimizer's curse (choosing the largest of many noisy probabilities), not the model;
* **every threshold, unselected** — the stated probabilities at all T thresholds against their true C(τ): Brier
  score and how often those stated ≥ 0.9 hold (the model's calibration with no selection at all);
* **labeled only** — the bootstrap choice of the labeled items alone (``spe.labeled_only``).

Run:  python benchmarks/thresholds.py --labels 10 20 50 --seeds 10 --jobs 2 --out thresholds.csv
Prints the reliability table (stated in deciles against met, with binomial 90% intervals) per case group
(deep network, scores piled on few values, classical) and label count, the share met where ≥ 0.9 was stated,
the Brier scores and the share of recommended thresholds that meet the requirement; ``--from-csv`` prints the
tables of an earlier run.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from cases import add_run_arguments, case_group, random_labels, read_case, rows_of_run, seeds_of, trial_rng

REQUIREMENTS = [(p, r) for p in (0.8, 0.9, 0.95) for r in (0.3, 0.5)]
#: A case's scores are "piled on few values" when one score value holds at least this share of its items (naive
#: Bayes at 0 or 1, a forest's or k-NN's steps).
PILED = 0.05


def true_counts(s, y, thresholds):
    """Items with score ≥ τ and positives among them at each threshold (T,): two arrays."""
    order = np.argsort(s)
    ss, pos_above = s[order], np.concatenate([np.cumsum(y[order][::-1])[::-1], [0]])
    below = np.searchsorted(ss, thresholds, side="left")
    return s.size - below, pos_above[below]


def true_meets(s, y, thresholds, p_min, r_min):
    """C(τ) on the pool itself at each threshold (T,) bool."""
    n_pred, tp = true_counts(s, y, thresholds)
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(n_pred > 0, tp / np.maximum(n_pred, 1), np.nan)
    recall = tp / max(y.sum(), 1)
    return (np.nan_to_num(precision, nan=-1) >= p_min - 1e-12) & (recall >= r_min - 1e-12)


def chosen(probability, f1):
    """The index of the largest probability, ties (10⁻⁹) broken by the largest F1 (as best_threshold does)."""
    top = probability >= probability.max() - 1e-9
    return int(np.flatnonzero(top)[np.argmax(f1[top])])


def split_choice(meets, weights, f1, rng):
    """The selection oracle: the threshold chosen on a random half of the draws, its probability on the other."""
    half = rng.permutation(weights.size) < weights.size // 2
    wa, wb = weights * half, weights * ~half
    best = chosen(wa @ meets / wa.sum(), f1)
    return best, float(wb @ meets[:, best] / wb.sum())


def requirement_row(ev, naive, s, y, p_min, r_min, rng):
    """One requirement's columns (see the module docstring)."""
    check = ev.requirement_check(p_min, r_min)
    truth = true_meets(s, y, check.thresholds, p_min, r_min)
    w = ev.weights / ev.weights.sum()
    f1 = np.nan_to_num(ev.threshold_curve("f1").median, nan=0.0)
    choice = ev.best_threshold(p_min, r_min)
    best = int(np.searchsorted(check.thresholds, choice.threshold))
    model_best = chosen(check.model_probability, f1)
    split_new, split_new_p = split_choice(check.meets, w, f1, rng)
    split_model, split_model_p = split_choice(check.model_meets.astype(float), w, f1, rng)
    n_pred, tp = true_counts(s, y, np.array([choice.threshold]))
    naive_choice = naive.best_threshold(p_min, r_min)
    stated_all = choice.curve.probability
    return {
        "min_precision": p_min, "min_recall": r_min, "feasible": bool(truth.any()),
        "threshold": choice.threshold, "stated": choice.probability, "met": bool(truth[best]),
        "true_precision": float(tp[0] / n_pred[0]) if n_pred[0] else np.nan, "true_recall": float(tp[0] / y.sum()),
        "labeled_above": int(check.labeled_above[best]), "positives_above": int(check.positives_above[best]),
        "labels_only_weight": float(check.labels_only_weight[best]),
        "model_stated": float(check.model_probability[model_best]), "model_met": bool(truth[model_best]),
        "model_labeled_above": int(check.labeled_above[model_best]),
        "split_stated": split_new_p, "split_met": bool(truth[split_new]),
        "model_split_stated": split_model_p, "model_split_met": bool(truth[split_model]),
        "all_brier": float(np.mean((stated_all - truth) ** 2)),
        "model_all_brier": float(np.mean((check.model_probability - truth) ** 2)),
        "all_hi": int(np.sum(stated_all >= 0.9)), "all_hi_met": int(np.sum((stated_all >= 0.9) & truth)),
        "model_all_hi": int(np.sum(check.model_probability >= 0.9)),
        "model_all_hi_met": int(np.sum((check.model_probability >= 0.9) & truth)),
        "naive_stated": naive_choice.probability,
        "naive_met": bool(true_meets(s, y, np.array([naive_choice.threshold]), p_min, r_min)[0]),
    }


def run_trial(task):
    """Every requirement's row for one case, label count and seed (a failure is a row with its error)."""
    case_path, n_labels, seed = task
    head = {"case": Path(case_path).stem, "n_labels": n_labels, "seed": seed}
    try:
        return [dict(head, **row) for row in _trial_rows(case_path, n_labels, seed)]
    except Exception as e:  # a crash is a result to report, not a reason to lose the run
        return [dict(head, error=f"{type(e).__name__}: {e}")]


def _trial_rows(case_path, n_labels, seed):
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)  # one BLAS thread per worker: the jobs already use the cores
    import spe

    s, y, name = read_case(case_path)
    rng = trial_rng(seed, n_labels, name)
    idx = random_labels(rng, s.size, n_labels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = spe.evaluate(s, (idx, y[idx]), rng=seed, workers=1)
    naive = spe.labeled_only(s, idx, y[idx], rng=seed)
    group = case_group(case_path)
    piled = np.unique(s, return_counts=True)[1].max() >= PILED * s.size
    info = {"group": "piled scores" if piled and group == "classical" else group, "n_items": s.size,
            "n_labeled_pos": int(y[idx].sum())}
    return [dict(info, **requirement_row(ev, naive, s, y, p, r, rng)) for p, r in REQUIREMENTS]


def binomial_interval(met, n, level=0.9):
    """The Jeffreys interval of a share met of n (lo, hi)."""
    a = (1 - level) / 2
    return stats.beta.ppf(a, met + 0.5, n - met + 0.5), stats.beta.ppf(1 - a, met + 0.5, n - met + 0.5)


def reliability(df, stated, met):
    """Stated in deciles against met: runs, mean stated, met, its 90% interval, and whether stated is within 0.1
    of met or inside the interval."""
    bins = pd.cut(df[stated], np.linspace(0, 1, 11), include_lowest=True)
    out = df.groupby(bins, observed=True).agg(runs=(met, "size"), stated=(stated, "mean"), met=(met, "mean"))
    lo, hi = binomial_interval(out["met"] * out["runs"], out["runs"])
    out["met_lo"], out["met_hi"] = lo, hi
    out["ok"] = (abs(out["stated"] - out["met"]) <= 0.1) | ((out["stated"] >= lo) & (out["stated"] <= hi))
    return out.round(3)


def summary(df, prefix=""):
    """The headline figures of one statement (prefix "" for spe's, "model_" for the model's own, "naive_")."""
    stated, met = df[f"{prefix}stated"], df[f"{prefix}met"].astype(float)
    hi = stated >= 0.9
    return {"runs": len(df), "mean stated": stated.mean(), "met": met.mean(), "brier": ((stated - met) ** 2).mean(),
            "stated ≥ 0.9": int(hi.sum()), "met there": met[hi].mean() if hi.any() else np.nan}


def report(df):
    if "error" in df and df["error"].notna().any():
        bad = df[df["error"].notna()]
        print(f"{len(bad)} failed trials:\n{bad[['case', 'n_labels', 'seed', 'error']].to_string(index=False)}")
        df = df[df["error"].isna()]
    for col in ("met", "model_met", "split_met", "model_split_met", "naive_met", "feasible"):
        df[col] = df[col].astype(bool)
    rows = []
    for (group, n), part in [(("all", "all"), df)] + list(df.groupby(["group", "n_labels"])):
        for who, prefix in (("spe", ""), ("model only (before)", "model_"), ("spe, selection oracle", "split_"),
                            ("model, selection oracle", "model_split_"), ("labeled only", "naive_")):
            rows.append({"group": group, "labels": n, "statement": who, **summary(part, prefix)})
    print("=== stated probability of the recommended threshold against how often it met the requirement ===")
    print(pd.DataFrame(rows).round(3).to_string(index=False))
    print("\n=== every threshold, unselected: Brier and share met where ≥ 0.9 was stated ===")
    agg = df.groupby("group")[["all_brier", "model_all_brier", "all_hi", "all_hi_met", "model_all_hi",
                               "model_all_hi_met"]].sum()
    n = df.groupby("group").size()
    print(pd.DataFrame({"brier": agg["all_brier"] / n, "model brier": agg["model_all_brier"] / n,
                        "met where ≥0.9": agg["all_hi_met"] / agg["all_hi"],
                        "model: met where ≥0.9": agg["model_all_hi_met"] / agg["model_all_hi"]}).round(3).to_string())
    for who, prefix in (("spe", ""), ("model only (before)", "model_")):
        print(f"\n=== reliability, {who}: stated in deciles against met (all cases, labels, requirements) ===")
        print(reliability(df, f"{prefix}stated", f"{prefix}met").to_string())
        for group, part in df.groupby("group"):
            print(f"-- {group}")
            print(reliability(part, f"{prefix}stated", f"{prefix}met").to_string())
    worst = df[(df["stated"] >= 0.9) & ~df["met"]]
    print(f"\n=== stated ≥ 0.9 and not met ({len(worst)} runs) ===")
    cols = ["case", "n_labels", "seed", "min_precision", "min_recall", "stated", "model_stated", "true_precision",
            "true_recall", "labeled_above", "positives_above", "labels_only_weight"]
    print(worst[cols].round(3).to_string(index=False))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_run_arguments(ap, seeds=10, out="thresholds.csv", start=20, draws=1000)
    ap.add_argument("--labels", type=int, nargs="+", default=[10, 20, 50])
    args = ap.parse_args(argv)
    df = rows_of_run(args, run_trial, lambda paths: [(str(p), n, seed) for p in paths for n in args.labels
                                                      for seed in seeds_of(args)], "trials")
    report(df)


if __name__ == "__main__":
    sys.exit(main())
