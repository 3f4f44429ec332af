"""Did a change move the accuracy? Two runs of ``accuracy.py`` compared trial by trial (same cases, seeds, labels).

A change that should not cost accuracy (a speed-up, a cheaper check) is run through ``accuracy.py`` before and
after, with the same ``--labels`` and ``--seeds``: each trial then has the same labeled items in both runs. For
each measure this prints its mean before and after, the mean of the per-trial differences and that mean's
standard error (the paired one: the trials' own spread cancels), how many trials changed (by more than 10⁻⁹) and
the largest change, over all trials and per group (classical, deep network). "Within one standard error" is
|difference| ≤ SE.

Measures: ``err_spe`` (area between the true and the estimated PR curve), ``worse`` (SPE's error above the
labeled-only estimate's), ``coverage`` (share of the recall grid where the band holds the true curve),
``ap_covered``, ``prev_err``, ``prev_covered`` and ``seconds`` per estimate.

Run:  python benchmarks/paired.py BEFORE.csv AFTER.csv
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import pandas as pd

MEASURES = ("err_spe", "worse", "coverage", "ap_covered", "prev_err", "prev_covered", "seconds")
KEYS = ["case", "n_labels", "seed"]


def paired(before, after):
    """The trials of both runs side by side (suffixes ``_before``, ``_after``), with ``worse`` added."""
    for df in (before, after):
        df["worse"] = (df["err_spe"] > df["err_naive"]).astype(float)
        for col in ("ap_covered", "prev_covered"):
            df[col] = df[col].astype(float)
    cols = KEYS + [m for m in MEASURES if m in before and m in after] + (["group"] if "group" in before else [])
    return before[cols].merge(after[cols].drop(columns=["group"], errors="ignore"), on=KEYS,
                              suffixes=("_before", "_after"))


def table(trials):
    """One row per measure: before, after, mean difference, its paired standard error, within one SE."""
    rows = []
    for m in MEASURES:
        if f"{m}_before" not in trials:
            continue
        d = (trials[f"{m}_after"] - trials[f"{m}_before"]).dropna()
        se = d.std(ddof=1) / np.sqrt(d.size) if d.size > 1 else np.nan
        rows.append({"measure": m, "before": trials[f"{m}_before"].mean(), "after": trials[f"{m}_after"].mean(),
                     "difference": d.mean(), "paired_se": se,
                     "within_1_se": bool(abs(d.mean()) <= se) if np.isfinite(se) and se > 0 else bool(d.mean() == 0),
                     "trials_changed": int(np.sum(np.abs(d) > 1e-9)), "largest_change": float(np.max(np.abs(d)))})
    return pd.DataFrame(rows).set_index("measure")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("before")
    ap.add_argument("after")
    args = ap.parse_args(argv)
    trials = paired(pd.read_csv(args.before), pd.read_csv(args.after))
    print(f"# {' '.join(sys.argv)}: {len(trials)} paired trials")
    pd.set_option("display.width", 160)
    print(table(trials).to_string(float_format=lambda v: f"{v:.4g}"))
    if "group" in trials:
        for group, part in trials.groupby("group"):
            print(f"\n=== {group}: {len(part)} trials ===")
            print(table(part).to_string(float_format=lambda v: f"{v:.4g}"))


if __name__ == "__main__":
    main()
