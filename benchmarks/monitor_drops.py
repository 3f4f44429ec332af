"""spe.monitor on simulated drops in real cases: false alerts, alerts on true drops, interval hits, slice gaps.

For every shared case with at least ``--min-items`` items and every seed, a random ``--reference-share`` of the
items is the labeled reference set; chunks of ``--chunk-size`` items are drawn from the rest, two of each kind:

* ``none``: drawn at random (the reference's distribution; no drop);
* ``covariate``: drawn with weights toward the scores where the classifier is unsure, p(y | s) unchanged (the
  reference's map, by isotonic regression, near 0.5 weighs exp(−((p − 0.5) / 0.15)²) + 0.05): visible in the
  scores alone; the true AP usually falls;
* ``concept``: drawn at random, then within its top-scored third ``--relabel`` of the positives relabeled
  negative: visible only through labels.

spe.monitor runs once per case, seed and label count (0 and ``--labels`` random labeled items per chunk, from the
chunk's own truth), with the chunks as ``chunk_column`` and the three kinds as slices (``by``: each slice the
union of its two chunks), δ = ``--delta``. Truth: scikit-learn's AP and ROC AUC on every label of the chunk.

Printed per kind and label count: chunks, mean true AP drop (reference's AP − the chunk's), the share of chunks
alerted on AP and on any metric, the AP interval's hit rate and mean absolute error; the covariate chunks whose
true AP drop is ≥ 0.05 apart; and the slices' AP gaps' hit rate (the true gap inside the gap's interval).

Run:  python benchmarks/monitor_drops.py [--seeds 3] [--labels 10] [--chunk-size 2000] [--cases GLOB]
      [--out results/monitor_drops.txt]
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.isotonic import IsotonicRegression
from sklearn.metrics import average_precision_score, roc_auc_score

from cases import DEFAULT_CASES, read_case
from reference import case_threshold

KINDS = ("none", "covariate", "concept")


def drawn_chunks(s, y, rest, ref, size, relabel, rng, kinds=None):
    """Chunks of the ``kinds`` (default: two of each kind) from the items ``rest``: [(kind, scores, labels)]."""
    iso = IsotonicRegression(out_of_bounds="clip").fit(s[ref], y[ref])
    p = iso.predict(s[rest])
    unsure = np.exp(-((p - 0.5) / 0.15) ** 2) + 0.05
    out = []
    for kind in kinds or [k for k in KINDS for _ in range(2)]:
        pick = rest[rng.choice(rest.size, size, replace=False, p=unsure / unsure.sum() if kind == "covariate"
                               else None)]
        cs, cy = s[pick], y[pick].copy()
        if kind == "concept":
            top = np.flatnonzero((cs >= np.quantile(cs, 2 / 3)) & (cy == 1))
            cy[rng.choice(top, int(round(relabel * top.size)), replace=False)] = 0
        out.append((kind, cs, cy))
    return out


def one_trial(path, seed, n_labels, args):
    """spe.monitor of one case's chunks at one seed and label count: (chunk rows, gap rows, seconds)."""
    import spe

    s, y, name = read_case(path)
    rng = np.random.default_rng([seed, sum(map(ord, name))])
    order = rng.permutation(s.size)
    n_ref = int(args.reference_share * s.size)
    ref, rest = order[:n_ref], order[n_ref:]
    size = min(args.chunk_size, rest.size // 3)
    chunks = drawn_chunks(s, y, rest, ref, size, args.relabel, rng, args.kinds)
    frame = pd.DataFrame({"score": np.concatenate([c[1] for c in chunks]),
                          "chunk": np.repeat([f"{k}{j}" for j, (k, _, _) in enumerate(chunks)], size),
                          "kind": np.repeat([k for k, _, _ in chunks], size)})
    truth = np.concatenate([c[2] for c in chunks])
    labels = {int(j * size + i): int(truth[j * size + i]) for j in range(len(chunks))
              for i in rng.choice(size, n_labels, replace=False)} if n_labels else None
    threshold = case_threshold(path, s)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = spe.monitor(frame, reference=(s[ref], y[ref]), labels=labels, chunk_column="chunk", by="kind",
                        threshold=threshold, alert_drop=args.delta, draws=args.draws, rng=seed,
                        pooling=not args.no_pooling)
    seconds = time.perf_counter() - t0
    ref_ap = m.reference["average_precision"]
    rows = []
    for j, ((kind, cs, cy), e) in enumerate(zip(chunks, m.chunks)):
        ap, interval = average_precision_score(cy, cs), e.metrics["average_precision"]
        alerts = {a["metric"] for a in e.alerts if a["alert"]}
        rows.append({"case": name, "seed": seed, "labels": n_labels, "kind": kind, "true_ap": ap,
                     "true_roc_auc": roc_auc_score(cy, cs), "drop": ref_ap - ap, "est": interval.median,
                     "lo": interval.lo, "hi": interval.hi, "alert_ap": "average_precision" in alerts,
                     "alert_any": bool(alerts), "p_drop": next(a["p_drop"] for a in e.alerts
                                                               if a["metric"] == "average_precision")})
    slice_ap = {k: average_precision_score(truth[frame.kind.to_numpy() == k], frame.score[frame.kind == k])
                for k in set(frame.kind)}
    gaps = [{"case": name, "seed": seed, "labels": n_labels, "pair": f"{g['a']}-{g['b']}",
             "true_gap": slice_ap[_kind(g["a"])] - slice_ap[_kind(g["b"])], **g["difference"]}
            for g in m.gaps if g["metric"] == "average_precision"]
    return rows, gaps, seconds


def _kind(slice_key):
    """The kind of a slice's key ("kind=covariate")."""
    return slice_key.split("=", 1)[1]


def summary(rows, gaps):
    """The printed tables (module docstring)."""
    df = pd.DataFrame(rows)
    df["hit"] = (df.lo <= df.true_ap) & (df.true_ap <= df.hi)
    df["err"] = (df.est - df.true_ap).abs()
    cols = {"chunks": ("drop", "size"), "true_drop": ("drop", "mean"), "alert_ap": ("alert_ap", "mean"),
            "alert_any": ("alert_any", "mean"), "hit": ("hit", "mean"), "mae": ("err", "mean")}
    by_kind = df.groupby(["labels", "kind"], sort=False).agg(**cols)
    big = df[(df.kind == "covariate") & (df["drop"] >= 0.05)].groupby("labels").agg(**cols)
    g = pd.DataFrame(gaps)
    g["hit"] = (g.lo <= g.true_gap) & (g.true_gap <= g.hi)
    g["width"] = g.hi - g.lo
    gap_table = g.groupby(["labels", "pair"], sort=False).agg(trials=("hit", "size"), hit=("hit", "mean"),
                                                              width=("width", "mean"))
    with pd.option_context("display.width", 200, "display.precision", 3):
        return (f"per kind of chunk (AP):\n{by_kind.to_string()}\n\ncovariate chunks with a true AP drop >= 0.05:\n"
                f"{big.to_string()}\n\nslice gaps (AP):\n{gap_table.to_string()}\n"
                f"all gaps: hit {g.hit.mean():.3f} of {len(g)}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases-dir", type=Path, default=DEFAULT_CASES)
    ap.add_argument("--cases", default="*.csv", help="glob of case files (default: all)")
    ap.add_argument("--min-items", type=int, default=8000)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--labels", type=int, default=10, help="labeled items per chunk in the labeled runs")
    ap.add_argument("--chunk-size", type=int, default=2000)
    ap.add_argument("--reference-share", type=float, default=0.4)
    ap.add_argument("--relabel", type=float, default=0.3, help="share of the top third's positives relabeled")
    ap.add_argument("--delta", type=float, default=0.02)
    ap.add_argument("--draws", type=int, default=1000)
    ap.add_argument("--kinds", type=lambda v: v.split(","),
                    help="the chunks' kinds in order, comma-separated (default: none,none,covariate,covariate,"
                         "concept,concept; a sustained concept drift: none,none,concept,concept,concept,concept)")
    ap.add_argument("--no-pooling", action="store_true", help="each chunk on its own labels (spe.monitor's pooling=False)")
    ap.add_argument("--labeled-only", action="store_true", help="only the runs with --labels labels per chunk")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    paths = [p for p in sorted(args.cases_dir.glob(args.cases)) if len(read_case(p)[0]) >= args.min_items]
    rows, gaps = [], []
    for path in paths:
        for seed in range(args.seeds):
            for n_labels in ((args.labels,) if args.labeled_only else (0, args.labels)):
                r, g, seconds = one_trial(path, seed, n_labels, args)
                rows += r
                gaps += g
                print(f"{path.stem} seed {seed} labels {n_labels}: {seconds:.1f} s; alerts "
                      f"{[x['kind'] for x in r if x['alert_ap']]}", flush=True)
    text = (f"# benchmarks/monitor_drops.py --seeds {args.seeds} --labels {args.labels} --chunk-size "
            f"{args.chunk_size} --relabel {args.relabel} --delta {args.delta} --kinds "
            f"{','.join(args.kinds or [k for k in KINDS for _ in range(2)])}{' --no-pooling' * args.no_pooling}; "
            f"{len(paths)} cases\n"
            + summary(rows, gaps))
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
        pd.DataFrame(rows).to_csv(args.out.with_suffix(".csv"), index=False)
        pd.DataFrame(gaps).to_csv(args.out.with_name(args.out.stem + "_gaps.csv"), index=False)


if __name__ == "__main__":
    main()
