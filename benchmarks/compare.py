"""Several classifiers on one pool: ``spe.compare`` against each classifier alone, labeled-only and SSME.

The shared pools where several classifiers scored the same items in the same order (``../shared/cases/``
README): civil_distilbert (3 DistilBERT runs), hiva (3), lending (2), magic (2). For every pool, label count
and seed, n items are drawn at random as the labeled ones (the same for every classifier of the pool), and:

* ``spe.compare`` on all the pool's classifiers: each classifier's PR-curve error (area between the median
  curve and the true one), band coverage (fraction of the recall grid inside the band), AP error and whether
  the AP interval covers the truth; for every pair, the stated P(A better than B in AP) and whether A truly is;
* ``spe.evaluate`` on each classifier alone (same labels, same seed): its PR-curve error and AP error;
* labeled-only: the PR curve of the labeled items alone, and their own average precision;
* an SSME-style baseline (Shanmugam et al. 2025): a kernel density per class over the stacked log-odds of all
  the pool's classifiers, fitted by semi-supervised EM (labeled items' classes fixed), each item's posterior
  probability then used as a soft label; its AP error (expected AP with soft labels) — implemented here, on a
  binned KDE (a 48-point grid per axis, Gaussian kernel by ``scipy.ndimage``, Scott's bandwidth).

Run:  python benchmarks/compare.py --labels 10 20 50 --seeds 10 --jobs 2 [--pools civil hiva]
Prints per pool and classifier: the mean errors and their ratios, coverage, and the calibration of
P(A better than B) in bins; writes every row to --out (CSV).
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

from cases import DEFAULT_CASES, random_labels, read_case, trial_rng

HERE = Path(__file__).resolve().parent

#: The pools of the shared cases where several classifiers scored the same items in the same order.
POOLS = {
    "civil": ["civil_distilbert_erm1", "civil_distilbert_irm1", "civil_distilbert_coral1"],
    "hiva": ["hiva_bnb", "hiva_logres", "hiva_rf"],
    "lending": ["lending_gbm", "lending_logres"],
    "magic": ["magic_gbm", "magic_gnb"],
}


def read_pool(cases_dir, names):
    """The pool's scores (N, K), its labels (N,) (checked identical in every file)."""
    cols, labels = [], None
    for name in names:
        s, y, _ = read_case(Path(cases_dir) / f"{name}.csv")
        if labels is not None and not np.array_equal(labels, y):
            raise SystemExit(f"{name}: its labels differ from the pool's first file; not one pool")
        cols.append(s)
        labels = y
    return np.column_stack(cols), labels


def binned_kde(points, weights, edges, bandwidth_cells):
    """A kernel density estimate on a grid: weighted counts per cell, smoothed by a Gaussian filter, normalised."""
    from scipy import ndimage

    hist, _ = np.histogramdd(points, bins=edges, weights=weights)
    smooth = ndimage.gaussian_filter(hist, sigma=bandwidth_cells, mode="constant")
    return smooth / max(smooth.sum(), 1e-300)


def ssme_probabilities(logits, index, value, *, bins=48, steps=30):
    """SSME-style p(y = 1 | all classifiers' log-odds) per item: a KDE per class, semi-supervised EM."""
    lo, hi = np.percentile(logits, 0.1, axis=0), np.percentile(logits, 99.9, axis=0)
    x = np.clip(logits, lo, hi)
    edges = [np.linspace(a, b + 1e-9, bins + 1) for a, b in zip(lo, hi)]
    cell = tuple(np.clip(np.searchsorted(e, x[:, d], side="right") - 1, 0, bins - 1) for d, e in enumerate(edges))
    n, k = x.shape
    scott = n ** (-1.0 / (k + 4)) * x.std(axis=0) / ((hi - lo) / bins)
    resp = 1 / (1 + np.exp(-(x.mean(axis=1) - np.median(x.mean(axis=1)))))
    resp[index] = value
    for _ in range(steps):
        prior = resp.mean()
        dens1 = binned_kde(x, resp, edges, scott)[cell]
        dens0 = binned_kde(x, 1 - resp, edges, scott)[cell]
        num = prior * dens1
        resp = num / np.maximum(num + (1 - prior) * dens0, 1e-300)
        resp[index] = value
    return resp


def soft_average_precision(scores, p):
    """Expected-label average precision: every item counted as positive with weight p and negative with 1 − p."""
    from sklearn.metrics import average_precision_score

    y = np.concatenate([np.ones(scores.size), np.zeros(scores.size)])
    return float(average_precision_score(y, np.concatenate([scores, scores]), sample_weight=np.concatenate([p, 1 - p])))


def run_trial(args):
    try:
        return _run_trial(args)
    except Exception as e:  # a failed trial is a row, not a lost run
        import traceback
        return [{"pool": args[1], "n_labels": args[3], "seed": args[4], "error": f"{type(e).__name__}: {e}",
                 "traceback": traceback.format_exc()}]


def _run_trial(args):
    cases_dir, pool, names, n_labels, seed, draws, single = args
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
    import spe
    from spe.baselines import labeled_only_pr_curve, pr_curve_from_labels, true_performance
    from spe.benchmark import pr_curve_error
    from spe.models.features import log_odds_feature

    matrix, y = read_pool(cases_dir, names)
    rng = trial_rng(seed, n_labels, pool)
    idx = random_labels(rng, y.size, n_labels)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cmp = spe.compare({n: matrix[:, k] for k, n in enumerate(names)}, (idx, y[idx]), draws=draws, rng=seed,
                          workers=1)
    seconds = time.perf_counter() - t0
    logits = np.column_stack([log_odds_feature(c)(c) for c in matrix.T])
    ssme = ssme_probabilities(logits, idx, y[idx])
    rows = []
    truth_ap = {}
    for k, name in enumerate(names):
        s = matrix[:, k]
        truth = pr_curve_from_labels(s, y)
        true = true_performance(s, y)
        truth_ap[name] = true["average_precision"]
        ev = cmp[name]
        pr, ap = ev.pr_curve(), ev.average_precision()
        naive = labeled_only_pr_curve(s, idx, y[idx])
        row = {"pool": pool, "classifier": name, "n_items": y.size, "n_labels": n_labels, "seed": seed,
               "n_labeled_pos": int(y[idx].sum()), "ap_true": true["average_precision"],
               "err_joint": pr_curve_error(pr.median, truth), "err_naive": pr_curve_error(naive, truth),
               "coverage": float(np.mean((pr.lo <= truth + 1e-9) & (truth <= pr.hi + 1e-9))),
               "ap_err_joint": abs(ap.median - true["average_precision"]),
               "ap_covered": bool(ap.lo <= true["average_precision"] <= ap.hi),
               # the labeled items' own average precision (0 when none is positive, as the naive curve)
               "ap_err_naive": abs(float(np.nan_to_num(true_performance(s[idx], y[idx])["average_precision"]))
                                   - true["average_precision"]),
               "ap_err_ssme": abs(soft_average_precision(s, ssme) - true["average_precision"]),
               "seconds_compare": seconds}
        if single:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                alone = spe.evaluate(s, (idx, y[idx]), draws=draws, rng=seed, workers=1)
            row["err_single"] = pr_curve_error(alone.pr_curve().median, truth)
            row["ap_err_single"] = abs(alone.average_precision().median - true["average_precision"])
            row["coverage_single"] = float(np.mean((alone.pr_curve().lo <= truth + 1e-9)
                                                   & (truth <= alone.pr_curve().hi + 1e-9)))
        rows.append(row)
    pairs = [{"pool": pool, "n_labels": n_labels, "seed": seed, "classifier": f"{a} > {b}", "pair": True,
              "p_a_better": cmp.probability_better(a, b), "a_better": bool(truth_ap[a] > truth_ap[b])}
             for i, a in enumerate(names) for b in names[i + 1:]]
    return rows + pairs


def report(df):
    if "error" in df.columns and df["error"].notna().any():
        bad = df[df["error"].notna()]
        print(f"{len(bad)} failed trials:")
        for r in bad.itertuples():
            print(f"  {r.pool} n={r.n_labels} seed={r.seed}: {r.error}")
        df = df[df["error"].isna()]
    pairs = df[df.get("pair", False) == True]  # noqa: E712
    items = df[df.get("pair", False) != True]  # noqa: E712
    cols = ["err_joint", "err_single", "err_naive", "coverage", "coverage_single", "ap_err_joint", "ap_err_single",
            "ap_err_naive", "ap_err_ssme", "ap_covered", "seconds_compare"]
    cols = [c for c in cols if c in items.columns]
    with pd.option_context("display.width", 200, "display.max_columns", 30, "display.precision", 3):
        for n, d in items.groupby("n_labels"):
            t = d.groupby(["pool", "classifier"])[cols].mean(numeric_only=True)
            if "err_single" in t:
                t["joint/single"] = t["err_joint"] / t["err_single"]
            t["joint/naive"] = t["err_joint"] / t["err_naive"]
            print(f"\n=== {n} labels: mean over {d.seed.nunique()} seeds ===")
            print(t)
            print("all classifiers:", t.mean(numeric_only=True).round(3).to_dict())
        if len(pairs):
            p, a = pairs["p_a_better"].to_numpy(float), pairs["a_better"].to_numpy(bool)
            print(f"\nP(A better than B in AP): Brier {np.mean((p - a) ** 2):.3f} over {p.size} pairs")
            for lo, hi in [(0, 0.1), (0.1, 0.3), (0.3, 0.7), (0.7, 0.9), (0.9, 1.01)]:
                sel = (p >= lo) & (p < hi)
                if sel.any():
                    print(f"  stated [{lo:.1f}, {min(hi, 1):.1f}): {sel.sum():4d} pairs, mean stated "
                          f"{p[sel].mean():.3f}, A truly better {a[sel].mean():.3f}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases-dir", type=Path, default=DEFAULT_CASES)
    ap.add_argument("--pools", nargs="*", choices=sorted(POOLS), help="pools (default: all)")
    ap.add_argument("--labels", type=int, nargs="+", default=[10, 20, 50])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--seed-start", type=int, default=0)
    ap.add_argument("--draws", type=int, default=1000)
    ap.add_argument("--no-single", action="store_true", help="skip each classifier's single-classifier estimate")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", type=Path, default=HERE / "results" / "compare.csv")
    ap.add_argument("--from-csv", type=Path, nargs="+", help="only summarise rows saved by earlier runs")
    args = ap.parse_args(argv)
    if args.from_csv:
        report(pd.concat([pd.read_csv(p) for p in args.from_csv], ignore_index=True))
        return
    pools = args.pools or sorted(POOLS)
    missing = [n for pool in pools for n in POOLS[pool] if not (Path(args.cases_dir) / f"{n}.csv").is_file()]
    if missing:
        raise SystemExit(f"{args.cases_dir}: no {missing[0]}.csv ({len(missing)} case files missing); give the "
                         "shared cases' directory with --cases-dir")
    tasks = [(str(args.cases_dir), pool, POOLS[pool], n, seed, args.draws, not args.no_single)
             for pool in pools for n in args.labels for seed in range(args.seed_start, args.seed_start + args.seeds)]
    print(f"{len(tasks)} trials", file=sys.stderr)
    t0, rows = time.time(), []
    with ProcessPoolExecutor(max_workers=args.jobs) as ex:
        for k, part in enumerate(ex.map(run_trial, tasks, chunksize=1)):
            rows += part
            if (k + 1) % 10 == 0:
                print(f"  {k + 1}/{len(tasks)} done, {time.time() - t0:.0f}s", file=sys.stderr)
    df = pd.DataFrame(rows)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out, index=False)
    report(df)
    print(f"\nrows written to {args.out}; wall time {time.time() - t0:.0f}s", file=sys.stderr)


if __name__ == "__main__":
    main()
