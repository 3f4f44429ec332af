"""What a joint label model could give each classifier if it were known: the oracle of issue 23's targets.

For every pool of ``benchmarks/compare.py`` and seed, the same n random labeled items; the unknown labels are
drawn (M times) from an oracle p(y = 1 | all the pool's classifiers' scores) fitted on the pool's true labels
(cross-fitted, 5 folds), the labeled items keep their labels, and each classifier's PR curve is counted from
each draw. The error of the median curve (area between it and the true curve,
:func:`spe.benchmark.pr_curve_error`) is what ``spe.compare``'s label draws would give if its joint model were
that oracle: the floor of the joint approach for that family of models. Oracles (scikit-learn):

* ``logistic``: a logistic regression on the K classifiers' log-odds (the family of ``JointLink``);
* ``boosting``: a histogram gradient-boosting classifier on them (any shape).

Compare with ``spe.compare`` and ``spe.evaluate`` alone on the same labels (``benchmarks/compare.py``): a
classifier whose oracle error is below its error alone can gain from a joint model; the gap between the
oracle and ``spe.compare`` is what estimating the joint model from n labels and the unlabeled scores costs.

Run:  python benchmarks/compare_oracle.py [--pools civil magic] [--labels 20] [--seeds 10] [--draws 200]
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from cases import DEFAULT_CASES, random_labels, trial_rng
from compare import POOLS, read_pool

from spe.baselines import pr_curve_from_labels
from spe.benchmark import pr_curve_error
from spe.models.features import log_odds_feature


def oracle_probability(kind, log_odds, labels, seed):
    """p(y = 1 | the classifiers' log-odds (N, K)) of an oracle fitted on the true labels, (N,): each item's
    from the 4 of 5 folds it is not in (cross-fitted, so that the oracle predicts labels rather than recalls
    them)."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    model = (LogisticRegression(C=1e4, max_iter=2000) if kind == "logistic"
             else HistGradientBoostingClassifier(max_iter=300, random_state=seed))
    folds = StratifiedKFold(5, shuffle=True, random_state=seed)
    return cross_val_predict(model, log_odds, labels, cv=folds, method="predict_proba")[:, 1]


def oracle_errors(scores, labels, p, index, draws, rng):
    """Each classifier's PR-curve error (K,) when the unlabeled items' labels are drawn from p (N,)."""
    truths = [pr_curve_from_labels(c, labels) for c in scores.T]
    curves = [[] for _ in truths]
    for _ in range(draws):
        drawn = (rng.random(labels.size) < p).astype(int)
        drawn[index] = labels[index]
        for j, c in enumerate(scores.T):
            curves[j].append(pr_curve_from_labels(c, drawn))
    return [pr_curve_error(np.median(cv, axis=0), t) for cv, t in zip(curves, truths)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases-dir", default=str(DEFAULT_CASES))
    ap.add_argument("--pools", nargs="*", choices=sorted(POOLS), default=sorted(POOLS))
    ap.add_argument("--labels", type=int, default=20)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--draws", type=int, default=200, help="label draws per trial (default 200)")
    ap.add_argument("--oracles", nargs="*", choices=["logistic", "boosting"], default=["logistic", "boosting"])
    args = ap.parse_args(argv)
    rows = []
    for pool in args.pools:
        names = POOLS[pool]
        scores, labels = read_pool(args.cases_dir, names)
        log_odds = np.column_stack([log_odds_feature(c)(c) for c in scores.T])
        for kind in args.oracles:
            p = oracle_probability(kind, log_odds, labels, 0)
            for seed in range(args.seeds):
                index = random_labels(trial_rng(seed, args.labels, pool), labels.size, args.labels)
                errors = oracle_errors(scores, labels, p, index, args.draws, np.random.default_rng(seed))
                rows += [{"pool": pool, "classifier": n, "oracle": kind, "seed": seed, "err": e}
                         for n, e in zip(names, errors)]
    table = pd.DataFrame(rows).groupby(["pool", "classifier", "oracle"])["err"].mean().unstack("oracle")
    print(f"=== {args.labels} labels, {args.seeds} seeds, {args.draws} label draws: PR-curve error of the median "
          "curve with the unknown labels drawn from the oracle ===")
    print(table.round(3).to_string())


if __name__ == "__main__":
    main()
