"""Calibrated probabilities and prevalence on the real cases: every method of ``spe.calibration`` and
``spe.prevalence``, and a verdict on each seed paper's claim (issue 26).

For every shared case, label count n (20, 100, 500; at most half the pool) and seed, n items are drawn at
random (``cases.trial_rng``, as every benchmark) and labeled; the rest are the unlabeled items the scores are
computed on, with their true labels:

* calibration: each method fitted on the n labeled items (semisupervised ``spe`` also sees the unlabeled
  scores), then log-loss (nats per item, sklearn), Brier score and expected calibration error (10 equal-width
  bins) of its probabilities of the unlabeled items;
* prevalence: each method's estimate of the pool's prevalence, its absolute error and whether its interval
  (90%) covers the truth; SPE's from the same estimate as its probabilities;
* SLD's claim (Esuli et al. 2020): SLD against the mean of the posteriors it starts from (probabilistic
  classify-and-count, PCC), with calibrated posteriors (Platt on the labels, Pr_L their fraction) and, for
  probability scores, with the classifier's own (Pr_L its training prevalence from ``manifest.json``), whose
  calibration on the pool is measured by their ECE against every true label.

Run:  python benchmarks/calibration.py --seeds 3 --jobs 2 --out results/calibration.csv
      python benchmarks/calibration.py --from-csv results/calibration.csv     (the tables again)
"""

from __future__ import annotations

import argparse
import json
import warnings

import numpy as np
import pandas as pd

from cases import add_run_arguments, random_labels, read_case, rows_of_run, seeds_of, trial_rng

LABELS = (20, 100, 500)
LEVEL = 0.9


def _calibration_rows(s, y, labeled, unl, draws, seed):
    from spe.calibration import calibration_scores, make

    rows, spe_eval = [], None
    for method in ("platt", "asymlaplace", "asymgauss", "piecewise", "isotonic", "spe"):
        options = {"draws": draws, "rng": seed, "options": {"workers": 1}} if method == "spe" else {}
        cal = make(method, **options).fit(s[labeled], y[labeled], s[unl])
        rows.append({"kind": "calibration", "method": method,
                     **calibration_scores(cal.positive_probability(s[unl]), y[unl])})
        spe_eval = getattr(cal, "evaluation_", spe_eval)
    return rows, spe_eval


def _prevalence_rows(s, y, labeled, seed, spe_eval):
    from spe.prevalence import estimate_prevalence

    labels = {int(i): int(y[i]) for i in labeled}
    truth = y.mean()
    rows = []
    for method in ("labeled", "cc", "acc", "sld"):
        options = {"n_resamples": 100} if method == "sld" else {}
        e = estimate_prevalence(method, s, labels, level=LEVEL, rng=seed, **options)
        rows.append((method, e.estimate, e.lo, e.hi))
    i = spe_eval.prevalence(level=LEVEL)
    rows.append(("spe", i.mean, i.lo, i.hi))
    return [{"kind": "prevalence", "method": m, "estimate": est, "error": abs(est - truth),
             "covered": float(lo <= truth <= hi) if np.isfinite(lo) else np.nan, "width": hi - lo}
            for m, est, lo, hi in rows]


def _sld_claim_rows(s, y, labeled, unl, train_prevalence):
    from spe.calibration import expected_calibration_error, make
    from spe.prevalence import sld

    truth_u = y[unl].mean()
    post = {"calibrated": (make("platt").fit(s[labeled], y[labeled], s[unl]).positive_probability(s[unl]),
                           y[labeled].mean())}
    if s.min() >= 0 and s.max() <= 1 and train_prevalence is not None:
        post["own"] = (s[unl], train_prevalence)
    rows = []
    for name, (p, prior) in post.items():
        prev, _, iterations, converged = sld(p, prior)
        rows.append({"kind": "sld", "method": name, "pcc_error": abs(p.mean() - truth_u),
                     "sld_error": abs(prev - truth_u), "iterations": iterations, "converged": converged,
                     "posterior_ece": expected_calibration_error(p, y[unl])})
    return rows


def run_trial(task):
    """Every row of one (case, n, seed): calibration, prevalence and SLD's claim."""
    path, n, seed, draws, train_prevalence = task
    s, y, name = read_case(path)
    labeled = random_labels(trial_rng(seed, n, name), s.size, n)
    unl = np.setdiff1d(np.arange(s.size), labeled)
    if y[labeled].min() == y[labeled].max():
        return [{"case": name, "n_labels": n, "seed": seed, "kind": "skipped", "method": "one class labeled"}]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cal_rows, spe_eval = _calibration_rows(s, y, labeled, unl, draws, seed)
        rows = cal_rows + _prevalence_rows(s, y, labeled, seed, spe_eval)
        rows += _sld_claim_rows(s, y, labeled, unl, train_prevalence)
    return [{"case": name, "n_labels": n, "seed": seed, **r} for r in rows]


def _train_prevalences(cases_dir):
    try:
        cases = json.loads((cases_dir / "manifest.json").read_text())["cases"]
    except (OSError, KeyError, ValueError):
        return {}
    return {c["file"].removesuffix(".csv"): c.get("train_prevalence") for c in cases.values()}


def tables(df):
    """The printed summary: per method and label count, the means over cases and seeds; the claims' verdicts."""
    out = []
    cal = df[df.kind == "calibration"]
    for metric in ("log_loss", "brier", "ece"):
        t = cal.pivot_table(index="method", columns="n_labels", values=metric, aggfunc="mean")
        out.append(f"calibration: mean {metric} of the unlabeled items\n{t.round(4).to_string()}")
    t = cal.pivot_table(index="method", columns="n_labels", values="log_loss", aggfunc="median")
    out.append(f"calibration: median log_loss\n{t.round(4).to_string()}")
    wins = cal.loc[cal.groupby(["case", "n_labels", "seed"])["log_loss"].idxmin()]
    out.append("calibration: how often each method has the lowest log-loss\n"
               + wins.pivot_table(index="method", columns="n_labels", values="case", aggfunc="count")
               .fillna(0).astype(int).to_string())
    prev = df[df.kind == "prevalence"]
    for value in ("error", "covered", "width"):
        t = prev.pivot_table(index="method", columns="n_labels", values=value, aggfunc="mean")
        out.append(f"prevalence: mean {value}\n{t.round(4).to_string()}")
    out.append(claims(df))
    return "\n\n".join(out)


def claims(df):
    """The seed papers' claims, stated as supported or not on these cases, with the numbers."""
    cal = df[df.kind == "calibration"].pivot_table(index=["case", "n_labels", "seed"], columns="method",
                                                   values="log_loss")
    lines = ["claims:"]
    for a, b, who in (("asymlaplace", "platt", "Bennett: asymmetric Laplace beats Platt (symmetric)"),
                      ("asymgauss", "platt", "Bennett: asymmetric Gaussian beats Platt"),
                      ("piecewise", "asymlaplace", "Zhang & Yang: piecewise LR at least as good as asym. Laplace")):
        for n, g in cal.groupby(level="n_labels"):
            better = (g[a] <= g[b]).mean()
            lines.append(f"  {who}, n={n}: mean log-loss {g[a].mean():.4f} vs {g[b].mean():.4f}, median "
                         f"{g[a].median():.4f} vs {g[b].median():.4f}; {a} ≤ {b} in {better:.0%} of trials")
    sld = df[df.kind == "sld"]
    for name, g in sld.groupby("method"):
        good = g.posterior_ece < 0.05
        for label, part in (("posteriors' ECE < 0.05", g[good]), ("ECE ≥ 0.05", g[~good])):
            if len(part):
                helped = (part.sld_error < part.pcc_error).mean()
                lines.append(f"  Esuli et al.: SLD on {name} posteriors, {label}: {len(part)} trials, SLD error "
                             f"{part.sld_error.mean():.4f} vs PCC {part.pcc_error.mean():.4f}; SLD better in "
                             f"{helped:.0%}; converged {part.converged.mean():.0%}")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_run_arguments(ap, seeds=3, out="results/calibration.csv", start=0, draws=500)
    ap.add_argument("--labels", type=int, nargs="+", default=list(LABELS))
    args = ap.parse_args()
    train = _train_prevalences(args.cases_dir)

    def tasks_of(paths):
        out = []
        for path in paths:
            n_items = sum(1 for _ in open(path)) - 1
            out += [(path, min(n, n_items // 2), seed, args.draws, train.get(path.stem))
                    for n in args.labels for seed in seeds_of(args)]
        return out

    df = rows_of_run(args, run_trial, tasks_of, "trials")
    print(tables(df))


if __name__ == "__main__":
    main()
