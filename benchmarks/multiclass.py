"""Multiclass accuracy benchmark: spe against the labeled items alone, on real classifiers' K-class scores.

Cases:

* the four MultiNLI classifiers whose 3-class probabilities SSME publishes (Shanmugam et al. 2025;
  ``inputs/MultiNLI/alg_*/preds.npy`` and ``labels.npy`` of github.com/divyashan/SSME, 123,712 items). Each trial
  draws a pool of ``--pool`` items at random (the hidden cases hold 7,500–10,000), then n labeled items in it.
  ``--multinli DIR`` is a directory holding ``IRM.npy``, ``ReSample.npy``, ``ReWeight.npy``,
  ``SqrtReWeight.npy`` (the preds) and ``labels.npy``;
* scikit-learn's digits (10 classes): a logistic regression, an SVM (Platt probabilities) and a small
  network trained on 40% of the images, scoring the other 60% (1,078 items);
* Banking77's 77 intents (``--banking77 DIR``, written by :mod:`make_banking77`): a small over-confident
  network and a logistic regression, cross-fitted on 13,083 customer-service questions;
* ``--simulated K``: two simulated over-confident K-class networks whose truth is temperature scaling (no shared
  case has 100 classes): 20,000 items, each with a hidden class; the logits are a margin on that class plus
  Normal noise on every class, the true class is drawn from softmax(logits / T). ``simulatedK_sure``: margin 11,
  noise sd 1.8, T = 1.5 (accuracy about 0.83, stated confidence 0.97 at K = 100); ``simulatedK_unsure``: margin
  6, noise 1.5, T = 2 (accuracy about 0.16).

Per trial: the absolute error of the accuracy and of the macro F1 (spe's posterior mean; the labeled items'
own accuracy and macro F1; with ``--ssme``, SSME's estimator on the same trial, :mod:`ssme_baseline`, which
needs statsmodels: ``pip install -r benchmarks/requirements-reference.txt``), whether spe's interval at
``--level`` holds the truth, and the share of classes whose average-precision interval holds the class's true
AP. With ``--reference R``, every trial also holds R labeled items of the same classifier drawn from outside
its pool (for a case of fewer than pool + R items, the pool is what is left): the reference set of
``spe.evaluate(..., reference=...)``. Prints one row per case and number of labels, and
writes every trial to ``--out`` (CSV).

    python benchmarks/multiclass.py --multinli DIR --labels 20 --seeds 10 --out results/multiclass.csv
    python benchmarks/multiclass.py --no-digits --simulated 100 --seeds 20
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import special
from sklearn import metrics as skm

from spe.multiclass import evaluate_multiclass

MULTINLI = ("IRM", "ReSample", "ReWeight", "SqrtReWeight")


def multinli_cases(directory):
    d = Path(directory)
    labels = np.load(d / "labels.npy")
    return {f"multinli_{name}": (np.load(d / f"{name}.npy").astype(float), labels) for name in MULTINLI}


def banking77_cases(directory):
    d = Path(directory)
    labels = np.load(d / "labels.npy")
    return {f"banking77_{name}": (np.load(d / f"{name}.npy").astype(float), labels) for name in ("mlp", "logres")}


def digits_cases(seed=0):
    from sklearn.datasets import load_digits
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.neural_network import MLPClassifier
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    x, y = load_digits(return_X_y=True)
    x_train, x_pool, y_train, y_pool = train_test_split(x, y, train_size=0.4, random_state=seed, stratify=y)
    scaler = StandardScaler().fit(x_train)
    x_train, x_pool = scaler.transform(x_train), scaler.transform(x_pool)
    models = {"digits_logres": LogisticRegression(C=0.05, max_iter=2000),
              "digits_svm": SVC(C=0.5, probability=True, random_state=seed),
              "digits_mlp": MLPClassifier(hidden_layer_sizes=(32,), max_iter=300, random_state=seed)}
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, model in models.items():
            out[name] = (model.fit(x_train, y_train).predict_proba(x_pool), y_pool)
    return out


#: The simulated networks (``--simulated K``): name suffix → (margin, noise sd, temperature).
SIMULATED = {"sure": (11.0, 1.8, 1.5), "unsure": (6.0, 1.5, 2.0)}


def simulated_cases(k, n=20_000, seed=0):
    """name → (the classifier's probabilities (n, K), true classes (n,)) of the simulated K-class networks."""
    cases = {}
    for i, (suffix, (margin, noise, temperature)) in enumerate(SIMULATED.items()):
        rng = np.random.default_rng([seed, k, i])
        hidden = rng.integers(0, k, n)
        logits = margin * np.eye(k)[hidden] + rng.normal(0, noise, size=(n, k))
        truth = special.softmax(logits / temperature, axis=1)
        y = (truth.cumsum(axis=1) > rng.random(n)[:, None]).argmax(axis=1)
        cases[f"simulated{k}_{suffix}"] = (special.softmax(logits, axis=1), y)
    return cases


def pool_and_labels(probs, y, seed, pool, n_labels):
    """A random pool of ``pool`` items of a case and ``n_labels`` random positions in it: (probs, y, labeled, rng),
    the generator seeded by ``seed`` and left where the draws stopped."""
    rng = np.random.default_rng(seed)
    keep = rng.permutation(len(y))[:pool]
    return probs[keep], y[keep], rng.choice(min(len(y), pool), n_labels, replace=False), rng


def _truth(probs, y):
    predicted = probs.argmax(1)
    k = probs.shape[1]
    ap = np.array([skm.average_precision_score(y == c, probs[:, c]) if np.any(y == c) else np.nan
                   for c in range(k)])
    return skm.accuracy_score(y, predicted), skm.f1_score(y, predicted, average="macro"), ap


def trial(probs, y, n_labels, seed, pool, level, draws, ssme=False, n_reference=0):
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(y))
    reference = None
    if n_reference:
        reference = (probs[order[:n_reference]], y[order[:n_reference]])
        order = order[n_reference:]
    keep = order[:pool] if pool else order
    probs, y = probs[keep], y[keep]
    true_acc, true_f1, true_ap = _truth(probs, y)
    labeled = rng.choice(len(y), n_labels, replace=False)
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = evaluate_multiclass(probs, {int(i): int(y[i]) for i in labeled}, draws=draws, level=level, rng=seed,
                                 reference=reference)
    seconds = time.perf_counter() - started
    acc, f1 = ev.accuracy(), ev.macro_f1()
    predicted = probs[labeled].argmax(1)
    ap = ev.per_class()
    ap_hits = [ap[name]["average_precision"].lo <= t <= ap[name]["average_precision"].hi
               for name, t in zip(ev.classes, true_ap) if np.isfinite(t)]
    unlabeled = [c for c in range(len(ev.classes)) if np.isfinite(true_ap[c]) and not np.any(y[labeled] == c)]
    unlabeled_hits = [ap[ev.classes[c]]["average_precision"].lo <= true_ap[c] <= ap[ev.classes[c]]["average_precision"].hi
                      for c in unlabeled]
    extra = {}
    if ssme:
        from ssme_baseline import ssme_accuracy

        extra["accuracy_ssme_error"] = abs(ssme_accuracy(probs, labeled, y[labeled], rng=seed) - true_acc)
    return {**extra, "accuracy_error": abs(acc.mean - true_acc), "accuracy_bias": acc.mean - true_acc,
            "accuracy_width": acc.hi - acc.lo, "accuracy_labeled": float(np.mean(predicted == y[labeled])),
            "accuracy_labeled_error": abs(np.mean(predicted == y[labeled]) - true_acc),
            "accuracy_hit": acc.lo <= true_acc <= acc.hi,
            "macro_f1_error": abs(f1.mean - true_f1),
            "macro_f1_labeled_error": abs(skm.f1_score(y[labeled], predicted, average="macro") - true_f1),
            "macro_f1_hit": f1.lo <= true_f1 <= f1.hi,
            "ap_hits": float(np.mean(ap_hits)), "ap_unlabeled_hits": sum(unlabeled_hits),
            "ap_unlabeled_classes": len(unlabeled), "label_check": ev.diagnostics["label_check"],
            **_sampling(ev.diagnostics["score_models"]), "seconds": seconds}


def _sampling(models):
    """The models left out of the average as their importance sampling was unreliable (Pareto k̂ > 0.7), the
    average's weight on unreliable models (0 unless every model's was), and the smallest ESS among the models
    weighted ≥ 1%."""
    from spe.inference.importance import PARETO_K_GOOD

    weighted = [m for m in models if m["weight"] >= 0.01]
    return {"left_out": sum(m.get("left_out_by") is not None for m in models),
            "unreliable_weight": sum(m["weight"] for m in models if m["pareto_k"] > PARETO_K_GOOD),
            "min_ess": min((m["ess"] for m in weighted), default=float("nan"))}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--multinli", metavar="DIR", help="the MultiNLI predictions (see above)")
    parser.add_argument("--banking77", metavar="DIR",
                        help="the Banking77 predictions written by benchmarks/make_banking77.py")
    parser.add_argument("--no-digits", action="store_true", help="leave out the digits classifiers")
    parser.add_argument("--simulated", type=int, metavar="K", help="add the two simulated K-class networks")
    parser.add_argument("--cases", help="comma-separated case names to run (default: all)")
    parser.add_argument("--labels", default="20", help="comma-separated numbers of labels (default 20)")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--pool", type=int, default=10_000, help="items per pool drawn from a larger case")
    parser.add_argument("--level", type=float, default=0.9)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--out", help="CSV of every trial")
    parser.add_argument("--ssme", action="store_true", help="also SSME's estimator (benchmarks/ssme_baseline.py)")
    parser.add_argument("--reference", type=int, default=0, metavar="R",
                        help="R labeled reference items per trial, from outside the pool")
    args = parser.parse_args(argv)
    cases = {} if args.no_digits else digits_cases()
    if args.multinli:
        cases.update(multinli_cases(args.multinli))
    if args.banking77:
        cases.update(banking77_cases(args.banking77))
    if args.simulated:
        cases.update(simulated_cases(args.simulated))
    if args.cases:
        cases = {k: v for k, v in cases.items() if k in args.cases.split(",")}
    rows = []
    for name, (probs, y) in cases.items():
        for n in (int(v) for v in args.labels.split(",")):
            for seed in range(args.seeds):
                rows.append({"case": name, "labels": n, "seed": seed,
                             **trial(probs, y, n, seed, args.pool, args.level, args.draws, args.ssme,
                                                     args.reference)})
            _print(pd.DataFrame([r for r in rows if r["case"] == name and r["labels"] == n]), name, n)
    frame = pd.DataFrame(rows)
    if args.out:
        frame.to_csv(args.out, index=False)
    print("\nall cases:")
    for n, part in frame.groupby("labels"):
        _print(part, "mean over cases", n)


def _print(part, name, n):
    m = part.mean(numeric_only=True)
    print(f"{name:<24} n={n:<3} accuracy error {m.accuracy_error:.4f} (labeled-only {m.accuracy_labeled_error:.4f}, "
          f"ratio {m.accuracy_error / m.accuracy_labeled_error:.2f}) hits {m.accuracy_hit:.2f} | macro-F1 error "
          f"{m.macro_f1_error:.4f} (labeled-only {m.macro_f1_labeled_error:.4f}, ratio "
          f"{m.macro_f1_error / m.macro_f1_labeled_error:.2f}) hits {m.macro_f1_hit:.2f} | AP hits {m.ap_hits:.2f} "
          f"(classes with no label: {part.ap_unlabeled_hits.sum() / max(part.ap_unlabeled_classes.sum(), 1):.2f} "
          f"of {part.ap_unlabeled_classes.sum()}) "
          f"| {m.seconds:.1f} s" + (f" | SSME accuracy error {m.accuracy_ssme_error:.4f} "
                                     f"(ratio {m.accuracy_ssme_error / m.accuracy_labeled_error:.2f})"
                                     if "accuracy_ssme_error" in m else ""), flush=True)


if __name__ == "__main__":
    main()
