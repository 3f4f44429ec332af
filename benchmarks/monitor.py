"""spe.monitor against NannyML's CBPE on NannyML's US census employment data, side by side in one run.

The reference is the data's 68,785 labeled reference rows; the analysis rows (208,892, every label known here,
never shown to either method unless ``--labels``) are monitored in chunks of ``--chunk-size`` consecutive rows
(21 of 10,000, the last short, as CBPE's ``chunk_size`` makes them), by year, and in slices by sex and by race
(RAC1P). CBPE is fitted once on the reference and run on every chunk (its own chunking) and on each year and
slice as one chunk of its own. Truth: scikit-learn's metrics on every label of the unit. spe's estimate is the
posterior median with its 90% interval; CBPE's its value with ±1.645 sampling errors (hit) and its own ±3
band (hit_cb). Printed per unit kind and metric: mean absolute error, hit rate and mean width of each, and the
seconds each took (spe.monitor end to end; CBPE fit and estimate).

``--labels N`` gives spe N random labeled items per chunk (or slice) of the analysis rows (CBPE never reads them);
``--no-pooling`` estimates each unit on its own labels (``spe.monitor(pooling=False)``).

Needs nannyml (benchmarks/requirements-reference.txt; never a dependency of spe) beside spe (run it with the
checkout on PYTHONPATH from a virtual environment that has nannyml).

Run:  python benchmarks/monitor.py [--chunk-size 10000] [--labels 0] [--draws 1000] [--seed 0] [--no-pooling]
      [--units chunks year sex race] [--out results/monitor.txt]
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from reference import Z90, cbpe_estimates, census_frames, scores_labels, true_metrics

os.environ.setdefault("NML_DISABLE_USAGE_LOGGING", "1")  # nannyml would report its use over the network

METRICS = ("roc_auc", "average_precision", "precision", "recall")
UNITS = {"chunks": {}, "year": {"chunk_column": "year"}, "sex": {"by": "SEX"}, "race": {"by": "RAC1P"}}


def spe_units(frame, ref, y, kind, chunk_size, n_labels, draws, seed, pooling=True):
    """spe.monitor of the analysis frame for one kind of unit: ([(key, rows, {metric: Interval})], seconds)."""
    import spe
    from spe.chunks import chunks_by_size, chunks_by_value, slices_by

    options = {"chunk_size": chunk_size} if kind == "chunks" else UNITS[kind]
    col = options.get("chunk_column") or options.get("by")
    units = (chunks_by_size(len(frame), chunk_size) if kind == "chunks" else
             chunks_by_value(frame[col].to_numpy()) if "chunk_column" in options else
             slices_by({col: frame[col].to_numpy()}))
    rng = np.random.default_rng(seed)
    labels = {int(i): int(y[i]) for u in units for i in rng.choice(u.index, min(n_labels, u.n_items), replace=False)}
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = spe.monitor(frame, reference=ref, labels=labels or None, draws=draws, rng=seed, level=0.9, pooling=pooling,
                        **({"chunk_column": col} if "chunk_column" in options else
                           {"by": col} if "by" in options else options))
    seconds = time.perf_counter() - t0
    estimates = m.chunks or m.slices
    return [(u.key, u.index, e.metrics) for u, e in zip(units, estimates)], seconds, m.threshold


def cbpe_units(ref_s, ref_y, s, units, kind, chunk_size, threshold):
    """CBPE's estimates for the same units: {key: {metric: {est, lo, hi, lo_cb, hi_cb}}}, seconds."""
    t0 = time.perf_counter()
    if kind == "chunks":
        rows = cbpe_estimates(ref_s, ref_y, s, threshold, chunk_size=chunk_size)
        out = {key: est for (key, _, _), (_, est) in zip(units, rows)}
    else:
        out = {key: cbpe_estimates(ref_s, ref_y, s[index], threshold)[0][1] for key, index, _ in units}
    return out, time.perf_counter() - t0


def rows_of(kind, units, cbpe, s, y, threshold):
    """One row per unit and metric: truth, spe's and CBPE's estimates and intervals."""
    rows = []
    for key, index, spe_metrics in units:
        truth = true_metrics(s[index], y[index], threshold)
        for m in METRICS:
            i, c = spe_metrics[m], cbpe[key][m]
            rows.append({"kind": kind, "unit": key, "metric": m, "truth": truth[m], "spe": i.median,
                         "spe_lo": i.lo, "spe_hi": i.hi, "cbpe": c["est"], "cbpe_lo": c["lo"], "cbpe_hi": c["hi"],
                         "cbpe_lo_cb": c["lo_cb"], "cbpe_hi_cb": c["hi_cb"]})
    return rows


def table(rows):
    """Per kind and metric: mean absolute errors, hit rates and mean widths of spe and CBPE."""
    df = pd.DataFrame(rows)
    df["spe_err"] = (df.spe - df.truth).abs()
    df["cbpe_err"] = (df.cbpe - df.truth).abs()
    df["spe_hit"] = (df.spe_lo <= df.truth) & (df.truth <= df.spe_hi)
    df["cbpe_hit"] = (df.cbpe_lo <= df.truth) & (df.truth <= df.cbpe_hi)
    df["cbpe_hit_cb"] = (df.cbpe_lo_cb <= df.truth) & (df.truth <= df.cbpe_hi_cb)
    df["spe_width"] = df.spe_hi - df.spe_lo
    df["cbpe_width"] = df.cbpe_hi - df.cbpe_lo
    cols = ["spe_err", "cbpe_err", "spe_hit", "cbpe_hit", "cbpe_hit_cb", "spe_width", "cbpe_width"]
    out = df.groupby(["kind", "metric"], sort=False)[cols].mean()
    out.insert(0, "units", df.groupby(["kind", "metric"], sort=False).size())
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chunk-size", type=int, default=10000)
    ap.add_argument("--labels", type=int, default=0, help="random labeled items per unit for spe (default 0)")
    ap.add_argument("--draws", type=int, default=1000)
    ap.add_argument("--no-pooling", action="store_true", help="spe.monitor's pooling=False: each unit on its own labels")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--units", nargs="*", default=list(UNITS), choices=list(UNITS))
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    ref_df, ana = census_frames()
    ref_s, ref_y = scores_labels(ref_df)
    s, y = scores_labels(ana)
    frame = pd.DataFrame({"score": s, "year": ana["year"].astype(str).to_numpy(),
                          "SEX": ana["SEX"].astype(str).to_numpy(), "RAC1P": ana["RAC1P"].astype(str).to_numpy()})
    rows, lines = [], [f"# benchmarks/monitor.py --chunk-size {args.chunk_size} --labels {args.labels} --draws "
                       f"{args.draws} --seed {args.seed}{' --no-pooling' * args.no_pooling}; 90% intervals (CBPE: ±{Z90:.3f} sampling errors; hit_cb: its "
                       f"±3 band)"]
    for kind in args.units:
        units, spe_seconds, threshold = spe_units(frame, (ref_s, ref_y), y, kind, args.chunk_size, args.labels,
                                                  args.draws, args.seed, not args.no_pooling)
        cbpe, cbpe_seconds = cbpe_units(ref_s, ref_y, s, units, kind, args.chunk_size, threshold)
        rows += rows_of(kind, units, cbpe, s, y, threshold)
        lines.append(f"{kind}: {len(units)} units; spe.monitor {spe_seconds:.1f} s, CBPE {cbpe_seconds:.1f} s")
        print(lines[-1], flush=True)
    with pd.option_context("display.width", 200, "display.precision", 4):
        lines.append(table(rows).to_string())
    print(lines[-1])
    if args.out:
        args.out.write_text("\n".join(lines) + "\n")
        pd.DataFrame(rows).to_csv(args.out.with_suffix(".csv"), index=False)


if __name__ == "__main__":
    main()
