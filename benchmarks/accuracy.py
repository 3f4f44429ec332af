"""Accuracy of SPE against the labeled-only estimate on the real cases.

For every case in ``../shared/cases/`` (or --cases-dir), every label count
and every seed: draw n items at random as the labeled ones, run
``spe.evaluate``, and compare with the truth (all labels known):

* error: area between the true PR curve and the estimated median curve,
  integrated over recall (trapezoid on the 101-point recall grid);
* the same for the labeled-only ("naive") estimate, the PR curve of the
  labeled items alone (paper §4.3; when no labeled item is positive the
  naive curve is taken as precision 0 everywhere, and such trials are
  counted);
* band coverage: the fraction of the recall grid where the band contains
  the true curve;
* prevalence: absolute error of the posterior mean, and whether the
  interval covers the truth;
* seconds per estimate;
* thresholds (paper §4.4): for two precision/recall requirements per case —
  precision ≥ 0.9 with recall ≥ 0.5, and recall ≥ 0.6 with the precision the
  true curve reaches there less 0.05 (attainable, not trivial) — the
  threshold ``Evaluation.best_threshold`` recommends, its stated probability
  of meeting the requirement and whether it truly does on the pool; the
  same for the labeled-only choice (its bootstrap frequency); the summary
  compares stated probabilities with observed frequencies (calibration);
* per-item probabilities: log-loss of ``Evaluation.item_probabilities`` on
  the unlabeled items against labeled-only Platt scaling (a logistic fit of
  the labels on the score's log-odds with Platt's smoothed targets).

Run:  python benchmarks/accuracy.py --labels 10 20 50 100 --seeds 10 --jobs 2 [--plot error.png]
Prints a per-case table, a summary, the worst five cases and how often the
model checks failed; writes every trial to --out (CSV; trials are appended
to OUT.partial as they finish, so a run cut short can still be summarised
with --from-csv).
``--seed-start`` runs further seeds of an earlier run; ``--from-csv A.csv B.csv``
prints the tables for trials saved earlier (e.g. both parts together).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

from cases import DEFAULT_CASES, case_group, case_paths, random_labels, read_case, trial_rng

HERE = Path(__file__).resolve().parent


COLUMNS = ["case", "n_items", "n_labels", "seed", "n_labeled_pos", "score_type", "families", "chosen", "err_spe",
           "err_naive", "naive_missing", "coverage", "prev_err", "prev_covered", "ess", "pareto_k",
           "histogram_passed", "tempering", "label_check_p", "seconds",
           "req1_precision", "req1_recall", "req1_p", "req1_met", "req1_naive_p", "req1_naive_met",
           "req2_precision", "req2_recall", "req2_p", "req2_met", "req2_naive_p", "req2_naive_met",
           "logloss_spe", "logloss_platt", "ap_true", "ap_err", "ap_covered", "auc_true", "auc_lo", "auc_hi",
           "weight_piecewise", "group", "reference", "weight_reference", "ref_prevalence", "ref_ess", "ref_pareto_k",
           "error", "traceback"]

def platt_log_loss(feature, idx, y):
    """Log-loss on the unlabeled items of Platt scaling fitted on the labeled ones alone.

    Platt (1999): P(y = 1 | f) = σ(a + b f), fitted by maximum likelihood to
    the smoothed targets (n₊ + 1)/(n₊ + 2) for positives and 1/(n₋ + 2) for
    negatives, which keeps the fit finite with one class or separable labels.
    """
    from scipy import optimize, special

    lab = np.zeros(feature.size, dtype=bool)
    lab[idx] = True
    f, yl = feature[idx], y[idx]
    n_pos, n_neg = int(yl.sum()), int((1 - yl).sum())
    target = np.where(yl == 1, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))
    centre, spread = np.mean(f), np.std(f) or 1.0

    def nll(ab):
        z = ab[0] + ab[1] * (f - centre) / spread
        return -np.sum(target * special.log_expit(z) + (1 - target) * special.log_expit(-z))

    a, b = optimize.minimize(nll, np.zeros(2), method="BFGS").x
    z = a + b * (feature[~lab] - centre) / spread
    yu = y[~lab]
    return float(-np.mean(np.where(yu == 1, special.log_expit(z), special.log_expit(-z))))


def requirement_rows(ev, naive, s, y, requirements):
    """Per requirement: SPE's recommended threshold, its stated probability and whether it truly meets it."""
    out = {}
    for k, (p_min, r_min) in enumerate(requirements, 1):
        out[f"req{k}_precision"], out[f"req{k}_recall"] = p_min, r_min
        for tag, chooser in (("", ev), ("_naive", naive)):
            if chooser is None:
                out[f"req{k}{tag}_p"], out[f"req{k}{tag}_met"] = np.nan, np.nan
                continue
            choice = chooser.best_threshold(p_min, r_min)
            pred = s >= choice.threshold
            prec = y[pred].mean() if pred.any() else np.nan
            rec = y[pred].sum() / y.sum()
            out[f"req{k}{tag}_p"] = choice.probability
            out[f"req{k}{tag}_met"] = bool(pred.any() and prec >= p_min - 1e-12 and rec >= r_min - 1e-12)
    return out


def run_trial(args):
    try:
        return _run_trial(args)
    except Exception as e:  # a crash is a result to report, not a reason to lose the run
        import traceback

        case_path, n_labels, seed = args[:3]
        return {"case": Path(case_path).stem, "n_labels": n_labels, "seed": seed,
                "error": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()}


def _run_trial(args):
    case_path, n_labels, seed, draws, level, score_model, reference_split, reference_prevalence = args
    from threadpoolctl import threadpool_limits

    # one BLAS thread per worker: the jobs already use the cores, and OpenBLAS threads fighting over them
    # made small optimisations (L-BFGS-B) several times slower
    threadpool_limits(1)
    import spe
    from spe.models.features import log_odds_feature
    from spe.baselines import labeled_only, labeled_only_pr_curve, pr_curve_from_labels, true_performance
    from spe.benchmark import pr_curve_error
    from spe.metrics.curves import RECALL_GRID

    s, y, name = read_case(case_path)
    rng = trial_rng(seed, n_labels, name)
    reference = None
    if reference_split:  # a random half, every label known, is the reference; the other half is the pool
        order = rng.permutation(s.size)
        ref, pool = order[: s.size // 2], np.sort(order[s.size // 2:])
        if reference_prevalence is not None:
            ref = shifted_subsample(ref, y, reference_prevalence, rng)
        reference = (s[ref], y[ref])
        s, y = s[pool], y[pool]
    idx = random_labels(rng, s.size, n_labels)
    truth = pr_curve_from_labels(s, y)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # workers=1: the jobs already use the cores (same result as the default, one process per estimate)
        ev = spe.evaluate(s, (idx, y[idx]), draws=draws, level=level, rng=seed, score_model=score_model,
                          workers=1, reference=reference)
    secs = time.perf_counter() - t0
    pr = ev.pr_curve()
    naive = labeled_only_pr_curve(s, idx, y[idx])
    naive_missing = bool(np.all(np.isnan(naive)))
    covered = (pr.lo <= truth + 1e-9) & (truth <= pr.hi + 1e-9)
    prev = ev.prevalence()
    true_prev = y.mean()
    naive_choice = labeled_only(s, idx, y[idx], rng=seed)
    g06 = int(np.argmin(np.abs(RECALL_GRID - 0.6)))
    requirements = [(0.9, 0.5), (round(float(max(truth[g06] - 0.05, 0.0)), 3), 0.6)]
    lab = np.zeros(s.size, dtype=bool)
    lab[idx] = True
    p_items = np.clip(ev.item_probabilities()[~lab], 1e-12, 1 - 1e-12)
    yu = y[~lab]
    logloss_spe = float(-np.mean(np.where(yu == 1, np.log(p_items), np.log1p(-p_items))))
    feature = log_odds_feature(s, ev.diagnostics.get("score_type", "auto"))(s)
    true = true_performance(s, y)
    ap, auc = ev.average_precision(), ev.roc_auc()
    weights = {m["model"]: m["weight"] for m in ev.diagnostics.get("score_models", [])}
    ref_diagnostics = ev.diagnostics.get("reference", {})
    return {
        "ap_true": true["average_precision"],
        "ap_err": abs(ap.median - true["average_precision"]),
        "ap_covered": bool(ap.lo <= true["average_precision"] <= ap.hi),
        "auc_true": true["roc_auc"],
        "auc_lo": auc.lo,
        "auc_hi": auc.hi,
        "weight_piecewise": weights.get("piecewise", np.nan),
        "reference": reference is not None,
        "weight_reference": weights.get("reference", np.nan),
        "ref_prevalence": float(reference[1].mean()) if reference is not None else np.nan,
        "ref_ess": ref_diagnostics.get("ess", np.nan),
        "ref_pareto_k": ref_diagnostics.get("pareto_k", np.nan),
        "group": case_group(case_path),
        **requirement_rows(ev, naive_choice, s, y, requirements),
        "logloss_spe": logloss_spe,
        "logloss_platt": platt_log_loss(feature, idx, y),
        "case": name,
        "n_items": s.size,
        "n_labels": n_labels,
        "seed": seed,
        "n_labeled_pos": int(y[idx].sum()),
        "score_type": ev.diagnostics.get("score_type"),
        "families": f"{ev.families['negative']},{ev.families['positive']}",
        "chosen": ev.diagnostics.get("chosen", score_model),
        "err_spe": pr_curve_error(pr.median, truth),
        "err_naive": pr_curve_error(naive, truth),
        "naive_missing": naive_missing,
        "coverage": float(np.mean(covered)),
        "prev_err": abs(prev.mean - true_prev),
        "prev_covered": bool(prev.lo <= true_prev <= prev.hi),
        "histogram_passed": (ev.diagnostics.get("histogram_check") or {}).get("passed"),
        "tempering": (ev.diagnostics.get("histogram_check") or {}).get("tempering"),
        "label_check_p": (ev.diagnostics.get("label_check") or {}).get("p_value"),
        "ess": ev.diagnostics.get("ess"),
        "pareto_k": ev.diagnostics.get("pareto_k"),
        "seconds": secs,
    }


def shifted_subsample(index, labels, prevalence, rng):
    """A random part of the items ``index`` (int (K,), positions in ``labels``, 0/1 (N,)) with prevalence
    ``prevalence`` in (0, 1): every item of the class that is scarcer relative to the target, and as many of the
    other as that takes (at least one), so class-conditional score densities are unchanged. Returns positions
    (K',), positives first. A half with no positives gives a one-class reference, which ``spe.evaluate``
    refuses."""
    pos, neg = index[labels[index] == 1], index[labels[index] == 0]
    if pos.size / index.size > prevalence:
        pos = rng.choice(pos, max(1, round(prevalence / (1 - prevalence) * neg.size)), replace=False)
    else:
        neg = rng.choice(neg, max(1, round((1 - prevalence) / prevalence * pos.size)), replace=False)
    return np.concatenate([pos, neg])


def summarise(df):
    g = df.groupby("case")
    per_case = pd.DataFrame({
        "N": g["n_items"].first(),
        "err_spe": g["err_spe"].mean(),
        "err_naive": g["err_naive"].mean(),
        "ratio": g["err_spe"].mean() / g["err_naive"].mean(),
        "win_rate": g.apply(lambda d: np.mean(d.err_spe < d.err_naive), include_groups=False),
        "coverage": g["coverage"].mean(),
        "ap_cov": g["ap_covered"].agg(lambda c: c.astype(float).mean()) if "ap_covered" in df else np.nan,
        "prev_err": g["prev_err"].mean(),
        "w_piecewise": g["weight_piecewise"].mean() if "weight_piecewise" in df else np.nan,
        "w_reference": g["weight_reference"].mean() if "weight_reference" in df else np.nan,
        "ref_k": g["ref_pareto_k"].max() if "ref_pareto_k" in df else np.nan,
        "sec": g["seconds"].mean(),
    })
    return per_case


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases-dir", type=Path, default=DEFAULT_CASES)
    ap.add_argument("--cases", nargs="*", help="case names (default: all)")
    ap.add_argument("--labels", type=int, nargs="+", default=[10, 20, 50])
    ap.add_argument("--seeds", type=int, default=5, help="number of seeds")
    ap.add_argument("--seed-start", type=int, default=0, help="first seed (default 0)")
    ap.add_argument("--from-csv", type=Path, nargs="+", help="only summarise trials saved by earlier runs")
    ap.add_argument("--draws", type=int, default=1000)
    ap.add_argument("--level", type=float, default=0.9)
    ap.add_argument("--score-model", default="average",
                    help="score model passed to spe.evaluate (average, mixture, hybrid, calibrated, platt, piecewise)")
    ap.add_argument("--reference-split", action="store_true",
                    help="split each pool at random: one half, every label known, is the reference set "
                         "(spe.evaluate's reference=), the other half is the pool with n random labels; the truth "
                         "and labeled-only are the pool half's")
    ap.add_argument("--reference-prevalence", type=float, metavar="P",
                    help="with --reference-split: keep a random part of the reference half with prevalence P (all "
                         "of one class, part of the other), a prior shift between the reference and the pool")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", type=Path, default=HERE / "results" / "accuracy.csv")
    ap.add_argument("--plot", type=Path, metavar="OUT.png",
                    help="also draw the error against the number of labels, all cases pooled (paper Fig. 2A)")
    args = ap.parse_args(argv)

    if args.from_csv:
        df = pd.concat([pd.read_csv(p) for p in args.from_csv], ignore_index=True)
        report(df)
        plot(df, args.plot)
        return
    paths = case_paths(args.cases_dir, args.cases)
    if not paths:
        sys.exit(f"no cases found in {args.cases_dir}")
    if args.reference_prevalence is not None and not (args.reference_split and 0 < args.reference_prevalence < 1):
        ap.error("--reference-prevalence needs --reference-split and a value in (0, 1)")
    tasks = [(str(p), n, seed, args.draws, args.level, args.score_model, args.reference_split,
              args.reference_prevalence)
             for p in paths for n in args.labels
             for seed in range(args.seed_start, args.seed_start + args.seeds)]
    print(f"{len(paths)} cases × {len(args.labels)} label counts × {args.seeds} seeds = {len(tasks)} estimates",
          file=sys.stderr)
    rows = []
    t0 = time.time()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    partial = args.out.with_name(args.out.name + ".partial")
    partial.unlink(missing_ok=True)
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for k, row in enumerate(pool.map(run_trial, tasks, chunksize=1)):
            rows.append(row)
            # every finished trial is kept on disk at once, so a run cut short still reports
            pd.DataFrame([row]).reindex(columns=COLUMNS).to_csv(partial, mode="a", header=k == 0, index=False)
            if (k + 1) % 25 == 0:
                print(f"  {k + 1}/{len(tasks)} done, {time.time() - t0:.0f}s", file=sys.stderr)
    df = pd.DataFrame(rows).reindex(columns=COLUMNS)
    df.to_csv(args.out, index=False)
    partial.unlink(missing_ok=True)
    report(df)
    plot(df, args.plot)
    print(f"\ntrials written to {args.out}; wall time {time.time() - t0:.0f}s", file=sys.stderr)


def plot(df, path):
    """Write the error against the number of labels (Fig. 2A) of the successful trials to ``path`` (if given)."""
    if path is None:
        return
    import matplotlib

    matplotlib.use("Agg")
    from spe.plot import plot_error_vs_labels

    ok = df[df["error"].isna()] if "error" in df.columns else df
    ax = plot_error_vs_labels(ok, title=f"PR-curve error against the number of labels\n"
                                        f"{ok.case.nunique()} real cases pooled, {len(ok)} trials")
    ax.figure.savefig(path, dpi=150)
    print(f"figure written to {path}", file=sys.stderr)


def summary_table(df):
    """One row per label count: errors against labeled-only, coverage of the band and of the AP interval."""
    return df.groupby("n_labels").apply(lambda d: pd.Series({
        "trials": len(d),
        "mean_err_spe": d.err_spe.mean(),
        "mean_err_naive": d.err_naive.mean(),
        "ratio_of_means": d.err_spe.mean() / d.err_naive.mean(),
        "median_err_spe": d.err_spe.median(),
        "median_err_naive": d.err_naive.median(),
        "win_rate": np.mean(d.err_spe < d.err_naive),
        "worse_by_0.02": np.mean(d.err_spe > d.err_naive + 0.02),
        "cases_spe_better": int((d.groupby("case").err_spe.mean() < d.groupby("case").err_naive.mean()).sum()),
        "n_cases": d.case.nunique(),
        "band_coverage": d.coverage.mean(),
        "ap_covered": d.ap_covered.astype(float).mean() if "ap_covered" in d else np.nan,
        "prev_abs_err": d.prev_err.mean(),
        "prev_covered": d.prev_covered.mean(),
        "naive_no_pos": d.naive_missing.mean(),
        "sec_per_estimate": d.seconds.mean(),
    }), include_groups=False)


def report(df):
    """Print the per-case tables and the summary of a table of trials."""
    if "error" in df.columns:
        failed = df[df["error"].notna()]
        if len(failed):
            print(f"\n{len(failed)} of {len(df)} estimates FAILED:")
            for _, r in failed.iterrows():
                print(f"  {r.case} n={r.n_labels} seed={r.seed}: {r.error}")
        df = df[df["error"].isna()]
    df = df.assign(naive_missing=df.naive_missing.astype(bool), prev_covered=df.prev_covered.astype(bool))
    pd.set_option("display.width", 200)
    for n in sorted(df.n_labels.unique()):
        sub = df[df.n_labels == n]
        print(f"\n=== {n} labels: per case (means over {sub.seed.nunique()} seeds) ===")
        print(summarise(sub).round(3).to_string())
    print("\n=== summary ===")
    print(summary_table(df).round(3).to_string())
    if "group" in df.columns and df.group.nunique() > 1:
        for group, sub in df.groupby("group"):
            print(f"\n=== summary: {group} cases ===")
            print(summary_table(sub).round(3).to_string())
    print("\n=== worst five cases per label count (largest mean err_spe − err_naive) ===")
    for n in sorted(df.n_labels.unique()):
        sub = df[df.n_labels == n]
        g = sub.groupby("case")
        per_case = summarise(sub)
        table = per_case[["err_spe", "err_naive", "coverage"]].assign(
            excess=per_case.err_spe - per_case.err_naive,
            **{"worse_by_0.02": g.apply(lambda d: np.mean(d.err_spe > d.err_naive + 0.02), include_groups=False)},
            labeled_pos=g.n_labeled_pos.mean(),
            chosen=g.chosen.agg(lambda c: c.value_counts().index[0]),
        ).sort_values("excess", ascending=False).head(5)
        worst = sub[sub.case.isin(table.index)]
        print(f"\n{n} labels: these five together: mean err SPE {worst.err_spe.mean():.3f} vs labeled-only "
              f"{worst.err_naive.mean():.3f}, median {worst.err_spe.median():.3f} vs {worst.err_naive.median():.3f}, "
              f"worse by >0.02 in {np.mean(worst.err_spe > worst.err_naive + 0.02):.0%} of trials, "
              f"band coverage {worst.coverage.mean():.2f}")
        print(table.round(3).to_string())
    if "req1_p" in df.columns and df.req1_p.notna().any():
        report_thresholds(df)
    if "histogram_passed" in df.columns and df.histogram_passed.notna().any():
        print("\n=== checks ===")
        checks = df.groupby("n_labels").apply(lambda d: pd.Series({
            "histogram_check_failed": np.mean(d.histogram_passed.astype(str) == "False"),
            "median_tempering": d.tempering.median(),
            "label_check_failed": np.mean(d.label_check_p < 0.01),
        }), include_groups=False)
        print(checks.round(3).to_string())


def report_thresholds(df):
    """Calibration of the threshold statements and the item probabilities' log-loss."""
    print("\n=== recommended thresholds: stated probability of meeting the requirement vs how often it did ===")
    rows = []
    for n in sorted(df.n_labels.unique()):
        sub = df[df.n_labels == n]
        for k, label in ((1, "precision ≥ 0.9, recall ≥ 0.5"), (2, "recall ≥ 0.6, precision ≥ true − 0.05")):
            for tag, who in (("", "SPE"), ("_naive", "labeled only")):
                p = sub[f"req{k}{tag}_p"].astype(float)
                met = sub[f"req{k}{tag}_met"].astype(float)
                ok = p.notna() & met.notna()
                rows.append({"labels": n, "requirement": label, "method": who, "trials": int(ok.sum()),
                             "mean_stated": p[ok].mean(), "observed": met[ok].mean(),
                             "brier": np.mean((p[ok] - met[ok]) ** 2)})
    print(pd.DataFrame(rows).round(3).to_string(index=False))
    print("\nSPE's stated probabilities in bins (both requirements, all label counts):")
    p = pd.concat([df.req1_p, df.req2_p]).astype(float)
    met = pd.concat([df.req1_met, df.req2_met]).astype(float)
    bins = pd.cut(p, [-0.001, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0])
    print(pd.DataFrame({"stated": p, "met": met}).groupby(bins, observed=True).agg(
        trials=("met", "size"), mean_stated=("stated", "mean"), observed=("met", "mean")).round(3).to_string())
    if "logloss_spe" in df.columns:
        print("\n=== per-item probabilities: log-loss on the unlabeled items (lower is better) ===")
        ll = df.groupby("n_labels").apply(lambda d: pd.Series({
            "spe": d.logloss_spe.mean(), "platt_labeled_only": d.logloss_platt.mean(),
            "spe_better": np.mean(d.logloss_spe < d.logloss_platt)}), include_groups=False)
        print(ll.round(3).to_string())


if __name__ == "__main__":
    main()
