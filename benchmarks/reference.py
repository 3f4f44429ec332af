"""A labeled reference set and an unlabeled pool: spe.evaluate(reference=...) against NannyML's CBPE.

The setting: a classifier's validation set, every label known (the reference), and a pool the same
classifier scored whose labels are unknown. NannyML's CBPE (confidence-based performance estimation)
calibrates the scores on the reference (isotonic) and reads each metric's expected value off the calibrated
probabilities; ``spe.evaluate(pool, labels, reference=(ref_scores, ref_labels))`` carries the reference's
calibration map to the pool under a prior shift and weighs it, by the pool's labels, against the models fitted
on the pool itself. Metrics: ROC AUC, average precision, prevalence, and precision and recall of the items
scored >= the threshold (0.5 for probabilities, 0 for decision values).

Suites (--suite, repeatable; default all three):

* census: NannyML's US census employment data (``nannyml.load_us_census_ma_employment_data``): the
  reference's 68,785 rows; the analysis set's 208,892 rows in consecutive chunks of 10,000 (21 chunks, the
  last one short, as CBPE's chunk_size=10000 makes them), each chunk one pool; CBPE fitted once on the
  reference and run on the whole analysis set.
* cases: every case in the shared cases directory (``--cases GLOB``): a random half, every label known, is
  the reference; the other half is the pool, its prevalence shifted 0.5x, 1x and 2x by keeping a random part
  of one class (class-conditional score densities unchanged: a pure prior shift). CBPE takes decision values
  too (its isotonic calibration maps them to probabilities), but when it judges calibration needless it reads
  them as probabilities: on such a decision-value case its columns are NaN.
* concept: census subgroups where the classifier's calibration map differs from the reference's beyond a
  prior shift (concept shift: the reference map under any prior shift is wrong there). Every age band and
  every value of every categorical feature with >= 2,000 analysis rows is measured: the analysis rows' labels
  are fitted by a logistic recalibration sigma(a + b z) of z = logit(CBPE's calibrated probability), and by
  the prior shift alone sigma(a0 + z); the map gap is the mean |difference| of the two over the subgroup's
  items (the same on the subgroup's reference rows, to tell a subgroup effect from drift). The --subgroups
  largest map gaps are printed with the table and used; each seed's pool is a random --pool-size of the
  subgroup's analysis rows.

Labels: 0 (labels=None) and n random items of the pool (``benchmarks/cases.py``'s ``random_labels`` from
its ``trial_rng``), --labels (default: 0 20 for census and concept, 0 10 20 for cases). CBPE never reads the
pool's labels: its rows repeat at every label count.

Truth: sklearn.metrics on all the pool's labels. spe's estimate is the posterior median, its interval the
equal-tailed 90% one (``Evaluation.metric(name, level=0.9)``; ``metrics_at(threshold, level=0.9)`` for
precision and recall). CBPE's estimate is its ``value``; its 90% interval value +- 1.645 x its
``sampling_error`` (cbpe_lo, cbpe_hi), and its own band, ``lower/upper_confidence_boundary`` (+-3 sampling
errors, cbpe_lo_cb, cbpe_hi_cb). CBPE estimates no prevalence: its estimate here is the mean of its calibrated
probabilities over the pool, without an interval. CBPE's sampling error counts only the pool's finite size, not
the calibration's uncertainty.

Output: one row per (suite, unit, n_labels, seed, metric) in benchmarks/results/reference_TAG.csv, with spe's
score-model weights (``ev.diagnostics["score_models"]``, JSON) and spe's warnings; printed: per suite x
n_labels x metric the mean absolute error, 90%-interval hit rate and mean width of spe and CBPE, and the worst
three units by spe's mean error.

Needs nannyml (benchmarks/requirements-reference.txt; never a dependency of spe). The census data are cached
in benchmarks/data/ (gitignored) the first time.

Run (the full benchmark; a trial: --suite census --chunks 2 --seeds 1 --draws 300):
    python benchmarks/reference.py --seeds 5 --jobs 2 --tag full
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from accuracy import case_group, shifted_subsample
from cases import DEFAULT_CASES, random_labels, read_case, run_tasks, seeds_of, trial_rng

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
SUITES = ("census", "cases", "concept")
METRICS = ("roc_auc", "average_precision", "prevalence", "precision", "recall")
CBPE_METRICS = ("roc_auc", "average_precision", "precision", "recall")
LEVEL = 0.9
Z90 = 1.6448536269514722  # the standard normal's 95% quantile: a 90% two-sided interval
CHUNK = 10_000
SHIFTS = (0.5, 1.0, 2.0)
MIN_SUBGROUP = 2_000
#: What the output keeps of ``ev.diagnostics["reference"]``: the pool prevalence the reference map implies, the
#: prior shift (log-odds), the reference model's weight and its importance sampling's Pareto k.
REFERENCE_KEYS = ("pool_prevalence", "shift", "weight", "pareto_k")
DEFAULT_LABELS = {"census": [0, 20], "cases": [0, 10, 20], "concept": [0, 20]}


@dataclass(frozen=True)
class Pool:
    """One pool to estimate: its scores and true labels (N,), the reference's (R,), the threshold of precision
    and recall, CBPE's estimates (metric -> dict; None: computed in the worker; {}: CBPE skipped) and what
    describes the pool (``note``, written as JSON)."""

    suite: str
    unit: str
    seed: int
    scores: np.ndarray
    labels: np.ndarray
    ref_scores: np.ndarray
    ref_labels: np.ndarray
    threshold: float = 0.5
    cbpe: dict | None = None
    note: dict = field(default_factory=dict)


# --- the census data ------------------------------------------------------------------------------------


def census_frames():
    """The employment data's reference and analysis frames (the analysis with its ``employed`` labels), from
    benchmarks/data/ or, the first time, from nannyml (then cached there as Parquet)."""
    ref_path, ana_path = DATA / "census_reference.parquet", DATA / "census_analysis.parquet"
    if not (ref_path.exists() and ana_path.exists()):
        import nannyml

        ref, ana, targets = nannyml.load_us_census_ma_employment_data()
        ana = ana.merge(targets, on="id", how="left", validate="one_to_one")
        DATA.mkdir(exist_ok=True)
        ref.to_parquet(ref_path)
        ana.to_parquet(ana_path)
    return pd.read_parquet(ref_path), pd.read_parquet(ana_path)


def scores_labels(df):
    return df["predicted_probability"].to_numpy(float), df["employed"].to_numpy(int)


# --- CBPE -----------------------------------------------------------------------------------------------


def cbpe_frame(scores, threshold, labels=None):
    df = pd.DataFrame({"score": scores, "prediction": (scores >= threshold).astype(int)})
    if labels is not None:
        df["label"] = labels
    return df


def cbpe_estimates(ref_scores, ref_labels, scores, threshold, chunk_size=None, decision=False):
    """CBPE fitted on the reference, run on ``scores`` in chunks of ``chunk_size`` (None: one chunk).
    Returns per chunk its (first, last) row and a dict metric -> {est, lo, hi (90%), lo_cb, hi_cb (its band)};
    none for ``decision`` scores that CBPE chose not to calibrate (it would read them as probabilities)."""
    import nannyml

    chunking = {"chunk_size": chunk_size} if chunk_size else {"chunk_number": 1}
    cbpe = nannyml.CBPE(y_pred_proba="score", y_pred="prediction", y_true="label", metrics=list(CBPE_METRICS),
                        problem_type="classification_binary", **chunking)
    state = np.random.get_state()  # nannyml bootstraps AP's sampling error with numpy's global generator:
    np.random.seed(0)  # seeded here (and restored after) so that CBPE's AP band repeats from run to run
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cbpe.fit(cbpe_frame(ref_scores, threshold, ref_labels))
        table = cbpe.estimate(cbpe_frame(scores, threshold)).filter(period="analysis").to_df()
    np.random.set_state(state)
    if decision and not cbpe.needs_calibration:
        return []
    calibrated = cbpe.calibrator.calibrate(scores) if cbpe.needs_calibration else scores
    return [chunk_estimates(row, calibrated) for _, row in table.iterrows()]


def chunk_estimates(row, calibrated):
    """One chunk's row of CBPE's result table: its (first, last) row, metric -> interval dict; the prevalence
    from the mean of the chunk's calibrated probabilities (no interval)."""
    out = {}
    for m in CBPE_METRICS:
        est, se = row[(m, "value")], row[(m, "sampling_error")]
        out[m] = {"est": est, "lo": max(est - Z90 * se, 0.0), "hi": min(est + Z90 * se, 1.0),
                  "lo_cb": row[(m, "lower_confidence_boundary")], "hi_cb": row[(m, "upper_confidence_boundary")]}
    start, end = int(row[("chunk", "start_index")]), int(row[("chunk", "end_index")])
    out["prevalence"] = {"est": float(np.mean(calibrated[start:end + 1]))}
    return (start, end), out


# --- truth and spe --------------------------------------------------------------------------------------


def true_metrics(scores, labels, threshold):
    """sklearn.metrics on every label of the pool: metric -> value."""
    from sklearn.metrics import average_precision_score, precision_score, recall_score, roc_auc_score

    predicted = scores >= threshold
    two = labels.min() != labels.max()
    return {"roc_auc": roc_auc_score(labels, scores) if two else np.nan,
            "average_precision": average_precision_score(labels, scores) if labels.any() else np.nan,
            "prevalence": float(labels.mean()),
            "precision": precision_score(labels, predicted, zero_division=np.nan),
            "recall": recall_score(labels, predicted, zero_division=np.nan)}


def spe_intervals(ev, threshold):
    """metric -> spe's Interval at LEVEL: the ranking metrics by ``ev.metric``, precision and recall at the
    threshold by ``ev.metrics_at``."""
    out = {m: ev.metric(m, level=LEVEL) for m in ("roc_auc", "average_precision", "prevalence")}
    at = ev.metrics_at(threshold, level=LEVEL)
    return {**out, "precision": at["precision"], "recall": at["recall"]}


def run_spe(pool, n_labels, draws):
    """spe.evaluate on the pool with ``n_labels`` random labels: (intervals, diagnostics, seconds, warnings)."""
    import spe

    labels = None
    if n_labels:
        idx = random_labels(trial_rng(pool.seed, n_labels, pool.unit), pool.scores.size, n_labels)
        labels = {int(i): int(pool.labels[i]) for i in idx}
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ev = spe.evaluate(pool.scores, labels, reference=(pool.ref_scores, pool.ref_labels), rng=pool.seed,
                          draws=draws, workers=1)
    said = sorted({str(w.message)[:160] for w in caught if w.category.__module__.startswith("spe")})
    return spe_intervals(ev, pool.threshold), ev.diagnostics, time.perf_counter() - t0, " | ".join(said)


def pool_rows(task):
    """Every row of one pool: per label count and metric, the truth, spe's and CBPE's estimates."""
    pool, label_counts, draws = task
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)  # the jobs already use the cores
    if pool.cbpe is None:
        chunks = cbpe_estimates(pool.ref_scores, pool.ref_labels, pool.scores, pool.threshold,
                                decision=pool.note.get("decision", False))
        pool = replace(pool, cbpe=chunks[0][1] if chunks else {})
    truth = true_metrics(pool.scores, pool.labels, pool.threshold)
    rows = []
    for n in label_counts:
        head = {"suite": pool.suite, "unit": pool.unit, "n_items": pool.scores.size, "n_labels": n,
                "seed": pool.seed, "threshold": pool.threshold, "note": json.dumps(pool.note)}
        try:
            intervals, diagnostics, seconds, said = run_spe(pool, n, draws)
        except Exception as e:  # a crash is a result to report, not a reason to lose the run
            rows.append({**head, "error": f"{type(e).__name__}: {e}"})
            continue
        weights = json.dumps({m["model"]: round(m["weight"], 4) for m in diagnostics.get("score_models", [])})
        ref = {k: diagnostics.get("reference", {}).get(k) for k in REFERENCE_KEYS}
        for m in METRICS:
            rows.append({**head, **metric_row(m, truth, intervals[m], pool.cbpe.get(m, {})),
                         "score_models": weights, "reference": json.dumps(ref, default=float),
                         "spe_seconds": seconds, "warnings": said})
    return rows


def metric_row(metric, truth, interval, cbpe):
    return {"metric": metric, "truth": truth[metric], "spe_est": interval.median, "spe_mean": interval.mean,
            "spe_lo": interval.lo, "spe_hi": interval.hi,
            **{f"cbpe_{k}": cbpe.get(k, np.nan) for k in ("est", "lo", "hi", "lo_cb", "hi_cb")}}


# --- the suites' pools ----------------------------------------------------------------------------------


def census_pools(args):
    """One pool per analysis chunk of 10,000 consecutive rows (the first --chunks), CBPE's estimates of the
    whole analysis set attached."""
    ref, ana = census_frames()
    (rs, ry), (s, y) = scores_labels(ref), scores_labels(ana)
    chunks = cbpe_estimates(rs, ry, s, 0.5, chunk_size=CHUNK)[: args.chunks]
    return [Pool("census", f"chunk{k:02d}", seed, s[a:b + 1], y[a:b + 1], rs, ry, 0.5, cbpe, {"rows": [a, b]})
            for k, ((a, b), cbpe) in enumerate(chunks) for seed in seeds_of(args)]


def case_threshold(path, scores):
    """0 for a decision-value case (the manifest's score type, else any score outside [0, 1]), else 0.5."""
    try:
        manifest = json.loads(Path(path).with_name("manifest.json").read_text())
        return 0.0 if "decision" in manifest["cases"][Path(path).stem]["score_type"] else 0.5
    except (OSError, KeyError, ValueError):
        return 0.5 if scores.min() >= 0 and scores.max() <= 1 else 0.0


def case_pools(args):
    """Per case, seed and prior shift: a random half as the reference, the rest (shifted) as the pool."""
    paths = sorted(Path(args.cases_dir).glob(args.cases))
    if not paths:
        raise SystemExit(f"no cases match {args.cases} in {args.cases_dir}")
    return [pool for p in paths for seed in seeds_of(args) for pool in split_case(p, seed)]


def split_case(path, seed):
    s, y, name = read_case(path)
    rng = trial_rng(seed, 0, f"{name}/split")
    order = rng.permutation(s.size)
    ref, rest = order[: s.size // 2], order[s.size // 2:]
    threshold = case_threshold(path, s)
    pools = []
    for shift in SHIFTS:
        target = shift * y[rest].mean()
        if not 0 < target < 1:
            continue
        pool = rest if shift == 1 else shifted_subsample(rest, y, target, rng)
        pool = np.sort(pool)
        note = {"case": name, "shift": shift, "group": case_group(path), "decision": threshold == 0}
        pools.append(Pool("cases", f"{name}@{shift:g}x", seed, s[pool], y[pool], s[ref], y[ref], threshold,
                          None, note))
    return pools


# --- the concept-shift subgroups ------------------------------------------------------------------------


def subgroups(df):
    """Candidate subgroups of a census frame: name -> boolean mask (age bands; each categorical value)."""
    age = df["AGEP"].to_numpy()
    out = {"AGEP<25": age < 25, "25<=AGEP<65": (age >= 25) & (age < 65), "AGEP>=65": age >= 65}
    for col in df.columns:
        if isinstance(df[col].dtype, pd.CategoricalDtype):
            for value in df[col].cat.categories:
                out[f"{col}={value}"] = (df[col] == value).to_numpy()
    return out


def logistic_fit(z, y, slope=True):
    """Maximum-likelihood (a, b) of P(y = 1) = sigma(a + b z); with slope=False, b = 1 (a prior shift)."""
    from scipy import optimize, special

    def nll(theta):
        eta = theta[0] + (theta[1] if slope else 1.0) * z
        return -np.sum(y * special.log_expit(eta) + (1 - y) * special.log_expit(-eta))

    theta = optimize.minimize(nll, np.array([0.0, 1.0] if slope else [0.0]), method="BFGS").x
    return float(theta[0]), float(theta[1]) if slope else 1.0


def map_gap(calibrated, y):
    """How far the labels' own logistic map is from the reference map under a prior shift: (mean |gap|, a, b,
    a0) on the logit of the calibrated probabilities."""
    from scipy import special

    z = special.logit(np.clip(calibrated, 1e-4, 1 - 1e-4))
    a, b = logistic_fit(z, y)
    a0, _ = logistic_fit(z, y, slope=False)
    return float(np.mean(np.abs(special.expit(a + b * z) - special.expit(a0 + z)))), a, b, a0


def subgroup_table(ref, ana):
    """Per candidate subgroup with >= MIN_SUBGROUP analysis rows: size, true prevalence, CBPE-style prevalence
    (mean calibrated probability), the analysis map gap and its (a, b, a0), and the reference's own gap."""
    from nannyml.calibration import IsotonicCalibrator

    (rs, ry), (s, y) = scores_labels(ref), scores_labels(ana)
    calibrator = IsotonicCalibrator()
    calibrator.fit(rs, ry)
    cal_ref, cal = calibrator.calibrate(rs), calibrator.calibrate(s)
    ref_masks, rows = subgroups(ref), []
    for name, mask in subgroups(ana).items():
        rmask = ref_masks.get(name, np.zeros(len(ref), bool))
        if mask.sum() < MIN_SUBGROUP or rmask.sum() < 200:
            continue
        gap, a, b, a0 = map_gap(cal[mask], y[mask])
        rows.append({"subgroup": name, "n": int(mask.sum()), "prev": y[mask].mean(), "cbpe_prev": cal[mask].mean(),
                     "gap": gap, "a": a, "b": b, "a0": a0, "ref_gap": map_gap(cal_ref[rmask], ry[rmask])[0]})
    return pd.DataFrame(rows).sort_values("gap", ascending=False).reset_index(drop=True)


def concept_pools(args):
    """Per chosen subgroup and seed: a random --pool-size of its analysis rows; the reference whole."""
    ref, ana = census_frames()
    table = subgroup_table(ref, ana)
    print_subgroups(table, args.subgroups)
    (rs, ry), (s, y) = scores_labels(ref), scores_labels(ana)
    masks, pools = subgroups(ana), []
    for _, row in table.head(args.subgroups).iterrows():
        for seed in seeds_of(args):
            rows = np.flatnonzero(masks[row.subgroup])
            rows = np.sort(trial_rng(seed, 0, row.subgroup).choice(rows, min(args.pool_size, rows.size), False))
            note = {"subgroup": row.subgroup, "map_gap": round(row.gap, 4), "slope": round(row.b, 3)}
            pools.append(Pool("concept", row.subgroup, seed, s[rows], y[rows], rs, ry, 0.5, None, note))
    return pools


def print_subgroups(table, k):
    print("\n=== concept: census subgroups, the analysis labels against the reference map (isotonic, CBPE's) ===")
    print("gap: mean |sigma(a + b z) - sigma(a0 + z)| over the subgroup, z = logit(calibrated score): the labels'")
    print("own logistic map against the reference map under a prior shift; ref_gap: the same on the reference's")
    print("rows of the subgroup (a gap there too: a subgroup effect, not drift)")
    print(table.head(12).round(3).to_string())
    print("the age bands:")
    print(table[table.subgroup.str.contains("AGEP")].round(3).to_string())
    for _, r in table.head(k).iterrows():
        where = "already in the reference" if r.ref_gap > r.gap / 2 else "new in the analysis period"
        print(f"chosen {r.subgroup}: map gap {r.gap:.3f} (slope {r.b:.2f}, {where}); prevalence {r.prev:.3f}, "
              f"CBPE-style {r.cbpe_prev:.3f}")


# --- summary --------------------------------------------------------------------------------------------


def with_errors(df):
    """The rows with absolute errors, interval hits and widths of spe and CBPE (its 90% and its own band)."""
    out = df.copy()
    for who in ("spe", "cbpe"):
        out[f"{who}_err"] = (out[f"{who}_est"] - out.truth).abs()
        out[f"{who}_hit"] = hits(out[f"{who}_lo"], out.truth, out[f"{who}_hi"])
        out[f"{who}_width"] = out[f"{who}_hi"] - out[f"{who}_lo"]
    out["cbpe_hit_cb"] = hits(out.cbpe_lo_cb, out.truth, out.cbpe_hi_cb)
    return out


def hits(lo, truth, hi):
    """1.0 where lo <= truth <= hi, 0.0 where not, NaN where there is no interval."""
    return ((lo <= truth) & (truth <= hi)).astype(float).where(lo.notna() & hi.notna())


def summary(df):
    """Per suite x n_labels x metric: MAE, 90% hit rate and mean width of spe and CBPE."""
    cols = ["spe_err", "cbpe_err", "spe_hit", "cbpe_hit", "cbpe_hit_cb", "spe_width", "cbpe_width"]
    table = df.groupby(["suite", "n_labels", "metric"])[cols].mean()
    table.insert(0, "rows", df.groupby(["suite", "n_labels", "metric"]).size())
    return table.rename(columns=lambda c: c.replace("_err", "_mae"))


def worst(df, k=3):
    """Per suite x n_labels: the k units with the largest spe error (mean over metrics and seeds), with spe's
    and CBPE's mean errors and spe's error per metric."""
    parts = []
    for (suite, n), d in df.groupby(["suite", "n_labels"]):
        per = d.pivot_table(index="unit", columns="metric", values="spe_err", aggfunc="mean")
        per.insert(0, "cbpe_err", d.groupby("unit").cbpe_err.mean())
        per.insert(0, "spe_err", d.groupby("unit").spe_err.mean())
        per = per.nlargest(k, "spe_err")
        parts.append(per.set_index(pd.MultiIndex.from_tuples([(suite, n, u) for u in per.index],
                                                             names=["suite", "n_labels", "unit"])))
    return pd.concat(parts) if parts else pd.DataFrame()


def report(df):
    failed = df[df["error"].notna()] if "error" in df else df.iloc[:0]
    for _, r in failed.iterrows():
        print(f"FAILED {r.suite} {r.unit} n={r.n_labels} seed={r.seed}: {r.error}")
    ok = with_errors(df.drop(failed.index))
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 40)
    print(f"\n=== spe (median, {LEVEL:.0%} interval) vs CBPE (value, +-{Z90:.3f} sampling errors; hit_cb: its "
          f"+-3 band); prevalence: CBPE's mean calibrated probability, no interval; CBPE's columns over the "
          f"rows it has (none on a decision-value case it leaves uncalibrated) ===")
    print(summary(ok).round(3).to_string())
    print("\n=== worst 3 units per suite x n_labels by spe's mean error (then spe's error per metric) ===")
    print(worst(ok).round(3).to_string())


# --- the command ----------------------------------------------------------------------------------------


def git_tag():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "local"


def parse(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", action="append", choices=SUITES, help="census, cases or concept (repeatable; "
                    "default all three)")
    ap.add_argument("--labels", type=int, nargs="+", help="label counts (default: 0 20; cases 0 10 20)")
    ap.add_argument("--seeds", type=int, default=3, help="seeds per pool (default 3)")
    ap.add_argument("--seed-start", type=int, default=0, help="first seed (default 0)")
    ap.add_argument("--draws", type=int, default=1000, help="spe's posterior draws (default 1000)")
    ap.add_argument("--cases-dir", type=Path, default=DEFAULT_CASES, help=f"default {DEFAULT_CASES}")
    ap.add_argument("--cases", default="*.csv", metavar="GLOB", help="cases in --cases-dir (default *.csv)")
    ap.add_argument("--chunks", type=int, help="census: the first K analysis chunks (default all 21)")
    ap.add_argument("--subgroups", type=int, default=3, help="concept: how many subgroups (default 3)")
    ap.add_argument("--pool-size", type=int, default=CHUNK, help=f"concept: items per pool (default {CHUNK})")
    ap.add_argument("--tag", default=None, help="results/reference_TAG.csv (default: the git commit)")
    ap.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    ap.add_argument("--from-csv", type=Path, help="print the tables of an earlier run's CSV instead of running")
    return ap.parse_args(argv)


def main(argv=None):
    args = parse(argv)
    os.environ.setdefault("NML_DISABLE_USAGE_LOGGING", "1")  # nannyml posts usage events to segment.io unless set
    if args.from_csv:
        return report(pd.read_csv(args.from_csv))
    builders = {"census": census_pools, "cases": case_pools, "concept": concept_pools}
    tasks = [(pool, args.labels or DEFAULT_LABELS[suite], args.draws)
             for suite in (args.suite or SUITES) for pool in builders[suite](args)]
    print(f"{len(tasks)} pools", file=sys.stderr)
    results, secs = run_tasks(pool_rows, tasks, args.jobs, "pools")
    df = pd.DataFrame([row for rows in results for row in rows])
    out = HERE / "results" / f"reference_{args.tag or git_tag()}.csv"
    out.parent.mkdir(exist_ok=True)
    df.to_csv(out, index=False)
    print(f"# {' '.join(sys.argv)}; {secs:.0f}s; rows written to {out}")
    report(df)


if __name__ == "__main__":
    main()
