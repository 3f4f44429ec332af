"""Monitoring a multiclass classifier: ``spe.monitor`` on K-class scores, per chunk and per slice, on MultiNLI.

Each trial, for each of the four MultiNLI classifiers (``--multinli DIR`` as in ``benchmarks/multiclass.py``,
with ``metadata.npy``: the negation-subgroup flag SSME publishes): a labeled reference set of ``--reference``
random items, and a pool of three chunks of ``--chunk`` items: two drawn at random, the third from the items the
classifier is least sure of (its top probability below the median: a covariate shift, its true accuracy lower);
``--labels`` random labels per chunk. Slices: the negation flag. Per chunk and slice: whether the 90% interval
holds the true accuracy, the absolute error of the estimate and of the chunk's labeled items alone; per chunk,
whether an accuracy alert was raised (δ = 0.02 below the reference's accuracy) against whether the true
accuracy is that far below.

    python benchmarks/multiclass_monitor.py --multinli DIR --seeds 5 --out results/multiclass_monitor.csv
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import spe

from multiclass import MULTINLI  # noqa: E402  (run from benchmarks/)

CLASSES = ["entailment", "neutral", "contradiction"]


def trial(p, y, negation, seed, n_reference, chunk, n_labels, draws, drop):
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(y))
    ref, rest = order[:n_reference], order[n_reference:]
    confidence = p[rest].max(1)
    unsure = rest[confidence < np.median(confidence)]
    sure_or_not = rng.permutation(rest)
    items = np.r_[sure_or_not[:2 * chunk], rng.permutation(np.setdiff1d(unsure, sure_or_not[:2 * chunk]))[:chunk]]
    frame = pd.DataFrame(p[items], columns=CLASSES)
    frame["week"] = np.repeat(["w1", "w2", "w3 (unsure)"], chunk)
    frame["negation"] = np.where(negation[items] == 1, "yes", "no")
    labeled = np.concatenate([rng.choice(np.arange(k * chunk, (k + 1) * chunk), n_labels, replace=False)
                              for k in range(3)])
    labels = {int(i): CLASSES[y[items[i]]] for i in labeled}
    reference = pd.DataFrame(p[ref], columns=CLASSES).assign(label=np.array(CLASSES)[y[ref]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = spe.monitor(frame, reference=reference, labels=labels, chunk_column="week", by="negation",
                        draws=draws, rng=seed, alert_drop=drop)
    right = p[items].argmax(1) == y[items]
    ref_accuracy = float(np.mean(p[ref].argmax(1) == y[ref]))
    rows = []
    for kind, estimates, column in (("chunk", m.chunks, "week"), ("slice", m.slices, "negation")):
        for e in estimates:
            inside = (frame[column] == e.key.split("=")[-1]).to_numpy()
            truth = float(np.mean(right[inside]))
            own = [i for i in labeled if inside[i]]
            acc = e.metrics["accuracy"]
            alert = next((a["alert"] for a in e.alerts if a["metric"] == "accuracy"), False)
            rows.append({"kind": kind, "key": e.key, "truth": truth, "error": abs(acc.mean - truth),
                         "labeled_error": abs(np.mean(right[own]) - truth) if own else np.nan,
                         "hit": acc.lo <= truth <= acc.hi, "alert": alert, "dropped": truth < ref_accuracy - drop,
                         "p_new_map": e.p_concept_shift})
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--multinli", metavar="DIR", required=True)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--reference", type=int, default=1000)
    parser.add_argument("--chunk", type=int, default=2000)
    parser.add_argument("--labels", type=int, default=10, help="labels per chunk")
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--drop", type=float, default=0.02)
    parser.add_argument("--out", help="CSV of every chunk and slice of every trial")
    args = parser.parse_args(argv)
    d = Path(args.multinli)
    y, negation = np.load(d / "labels.npy"), np.load(d / "metadata.npy")
    rows = []
    for name in MULTINLI:
        p = np.load(d / f"{name}.npy").astype(float)
        for seed in range(args.seeds):
            rows += [{"classifier": name, "seed": seed, **r}
                     for r in trial(p, y, negation, seed, args.reference, args.chunk, args.labels, args.draws,
                                    args.drop)]
        f = pd.DataFrame([r for r in rows if r["classifier"] == name])
        c = f[f.kind == "chunk"]
        print(f"{name:13s} hits: chunks {c.hit.mean():.2f}, slices {f[f.kind == 'slice'].hit.mean():.2f} | accuracy "
              f"error {f.error.mean():.4f} (labeled-only {f.labeled_error.mean():.4f}) | alerts where dropped "
              f"{c[c.dropped].alert.mean():.2f} of {int(c.dropped.sum())}, where not {c[~c.dropped].alert.mean():.2f} "
              f"of {int((~c.dropped).sum())} | mean P(new map) {c.p_new_map.mean():.2f}", flush=True)
    if args.out:
        pd.DataFrame(rows).to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
