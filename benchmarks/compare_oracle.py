"""What a joint label model could give each classifier if it were known: the oracle of issue 23's targets.

For every pool of ``benchmarks/compare.py`` and seed, the same n random labeled items; the unknown labels are
drawn (M times) from an oracle p(y = 1 | what it reads of the pool's classifiers' scores) fitted on the pool's
true labels (cross-fitted, 5 folds), the labeled items keep their labels, and each classifier's PR curve is
counted from each draw. The error of the median curve (area between it and the true curve,
:func:`spe.benchmark.pr_curve_error`) is what ``spe.compare``'s label draws would give if its joint model were
that oracle: the floor of the joint approach for that family of models. Oracles (scikit-learn):

* ``logistic``: a logistic regression on the K classifiers' log-odds (the family of ``JointLink``);
* ``boosting``: a histogram gradient-boosting classifier on them (any shape);
* ``joint``: a logistic regression on the joint log-odds z alone (:func:`spe.models.joint.joint_log_odds`, the
  unsupervised Gaussian mixture over the normal scores): the best the candidate fitted on z could give, so
  ``joint`` against ``logistic`` is what z loses;
* ``gaussians``: class-conditional normals with full covariances over the normal scores (quadratic discriminant
  analysis): the model family of z with its components placed on the true classes, so ``gaussians`` against
  ``joint`` is what the unsupervised fit loses by not finding the classes;
* ``own:<classifier>``: a logistic regression on one classifier's log-odds: the best that classifier's own
  score models (a candidate of the average, drawing every classifier's labels) could give.

``--candidates`` also fits, on the same n labels, each classifier's own score models as ``spe.compare`` does
(:func:`spe.fit_scores`: the SPE mixture and the recalibrations, averaged by their evidence) and draws every
classifier's labels from that one candidate: against ``own:<classifier>`` it shows what calibrating that
classifier from n labels costs, and the cross terms show how a classifier fares on another's model.

``--ssme`` also draws the unknown labels from the SSME-style posterior of ``benchmarks/compare.py`` (a kernel
density per class over the stacked log-odds, semi-supervised EM on the same n labels), and prints its mean
prevalence next to the true one: what the baseline's soft labels would give each classifier's curve.

``--likelihood`` also prints, per pool, the mean log-likelihood per item of the two-component mixture over the
normal scores at its maximum-likelihood fit and at the true classes' parameters: when the first is higher, the
mixture is misspecified and no start or constraint makes its components the classes.

Run:  python benchmarks/compare_oracle.py [--pools civil magic] [--labels 20] [--seeds 10] [--draws 200]
      [--oracles logistic boosting joint gaussians own] [--candidates] [--ssme] [--likelihood]
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from cases import DEFAULT_CASES, random_labels, trial_rng
from compare import POOLS, read_pool, ssme_probabilities

from spe.baselines import pr_curve_from_labels
from spe.benchmark import pr_curve_error
from spe.models.features import log_odds_feature

#: The oracles, in the order printed.
ORACLES = ("logistic", "boosting", "joint", "gaussians", "own")


def oracle_inputs(kind, scores, log_odds, names):
    """The oracles of ``kind`` on a pool of scores (N, K) with their log-odds (N, K): (label, what the oracle
    reads (N, ·), its estimator's name) triples."""
    from spe.models.joint import joint_log_odds, normal_scores

    if kind in ("logistic", "boosting"):
        return [(kind, log_odds, kind)]
    if kind == "joint":
        return [(kind, joint_log_odds(scores)[:, None], "logistic")]
    if kind == "gaussians":
        return [(kind, np.column_stack([normal_scores(c) for c in scores.T]), "gaussians")]
    return [(f"own:{n}", log_odds[:, [j]], "logistic") for j, n in enumerate(names)]


def oracle_probability(estimator, features, labels, seed):
    """p(y = 1 | features (N, ·)) of an oracle fitted on the true labels, (N,): each item's from the 4 of 5 folds
    it is not in (cross-fitted, so that the oracle predicts labels rather than recalls them)."""
    from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    model = {"logistic": lambda: LogisticRegression(C=1e4, max_iter=2000),
             "boosting": lambda: HistGradientBoostingClassifier(max_iter=300, random_state=seed),
             "gaussians": lambda: QuadraticDiscriminantAnalysis(reg_param=1e-4)}[estimator]()
    folds = StratifiedKFold(5, shuffle=True, random_state=seed)
    return cross_val_predict(model, features, labels, cv=folds, method="predict_proba")[:, 1]


def candidate_errors(scores, labels, truths, index, draws, seed):
    """Each classifier's PR-curve error (K,) against its true curve (``truths``) for each classifier's own score
    models fitted on the labeled items, drawing every classifier's unknown labels alone: {j: errors}."""
    import warnings

    import spe
    from spe.evaluation import Evaluation
    from spe.models.joint import view_model
    from spe.performance.joint import sample_joint_performance

    value = labels[index]
    out = {}
    for j in range(scores.shape[1]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = spe.fit_scores(scores[:, j], (index, value), draws=draws, rng=seed)
            model = view_model(fit.model, j, scores[:, j], str(j))
            perfs = sample_joint_performance(model, scores, list(scores.T), index, value, rng=seed)
        out[j] = [pr_curve_error(Evaluation(c, index, value, 0.9, model, perf, {}).pr_curve().median, t)
                  for c, perf, t in zip(scores.T, perfs, truths)]
    return out


def mixture_likelihoods(scores, labels):
    """Mean log-likelihood per item of two normals over the normal scores: (at the maximum-likelihood fit that
    :func:`~spe.models.joint.joint_log_odds` finds, at the true classes' proportion, means and covariances)."""
    from scipy import stats
    from sklearn.mixture import GaussianMixture

    from spe.models.joint import normal_scores

    x = np.column_stack([normal_scores(c) for c in scores.T])
    upper = x.sum(axis=1) > np.median(x.sum(axis=1))
    fit = GaussianMixture(2, covariance_type="full", reg_covar=1e-6, random_state=0, tol=1e-6,
                          means_init=np.vstack([x[~upper].mean(axis=0), x[upper].mean(axis=0)])).fit(x)
    parts = [np.log(np.mean(labels == c)) + stats.multivariate_normal(x[labels == c].mean(axis=0),
                                                                      np.cov(x[labels == c].T)).logpdf(x)
             for c in (0, 1)]
    return float(fit.score(x)), float(np.mean(np.logaddexp(*parts)))


def oracle_errors(scores, labels, truths, p, index, draws, rng):
    """Each classifier's PR-curve error (K,) against its true curve (``truths``) when the unlabeled items'
    labels are drawn from p (N,)."""
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
    ap.add_argument("--draws", type=int, default=200,
                    help="label draws per trial, and posterior draws of --candidates (default 200)")
    ap.add_argument("--oracles", nargs="*", choices=ORACLES, default=list(ORACLES))
    ap.add_argument("--candidates", action="store_true",
                    help="also each classifier's own score models fitted on the labeled items, drawing all labels")
    ap.add_argument("--ssme", action="store_true",
                    help="also the SSME-style posterior fitted on the labeled items, drawing all labels")
    ap.add_argument("--likelihood", action="store_true",
                    help="also print the normal-score mixture's log-likelihood at its fit and at the classes")
    args = ap.parse_args(argv)
    rows, likelihoods, prevalences = [], {}, {}
    for pool in args.pools:
        names = POOLS[pool]
        scores, labels = read_pool(args.cases_dir, names)
        log_odds = np.column_stack([log_odds_feature(c)(c) for c in scores.T])
        truths = [pr_curve_from_labels(c, labels) for c in scores.T]
        if args.likelihood:
            likelihoods[pool] = mixture_likelihoods(scores, labels)
        for kind in args.oracles:
            for label, features, estimator in oracle_inputs(kind, scores, log_odds, names):
                p = oracle_probability(estimator, features, labels, 0)
                for seed in range(args.seeds):
                    index = random_labels(trial_rng(seed, args.labels, pool), labels.size, args.labels)
                    errors = oracle_errors(scores, labels, truths, p, index, args.draws, np.random.default_rng(seed))
                    rows += [{"pool": pool, "classifier": n, "oracle": label, "seed": seed, "err": e}
                             for n, e in zip(names, errors)]
        for seed in range(args.seeds) if args.candidates else ():
            index = random_labels(trial_rng(seed, args.labels, pool), labels.size, args.labels)
            for j, errors in candidate_errors(scores, labels, truths, index, args.draws, seed).items():
                rows += [{"pool": pool, "classifier": n, "oracle": f"fitted:{names[j]}", "seed": seed, "err": e}
                         for n, e in zip(names, errors)]
        for seed in range(args.seeds) if args.ssme else ():
            index = random_labels(trial_rng(seed, args.labels, pool), labels.size, args.labels)
            p = ssme_probabilities(log_odds, index, labels[index])
            errors = oracle_errors(scores, labels, truths, p, index, args.draws, np.random.default_rng(seed))
            rows += [{"pool": pool, "classifier": n, "oracle": "ssme", "seed": seed, "err": e}
                     for n, e in zip(names, errors)]
            prevalences.setdefault(pool, []).append((p.mean(), labels.mean()))
    table = pd.DataFrame(rows).groupby(["pool", "classifier", "oracle"], sort=False)["err"].mean()
    print(f"=== {args.labels} labels, {args.seeds} seeds, {args.draws} label draws: PR-curve error of the median "
          "curve with the unknown labels drawn from the oracle ===")
    for pool, part in table.groupby(level="pool", sort=False):
        print(part.droplevel("pool").unstack("oracle").round(3).to_string(na_rep="-"), "\n")
    for pool, pairs in prevalences.items():
        estimated, true = np.mean(pairs, axis=0)
        print(f"{pool}: SSME-style posterior, mean prevalence {estimated:.3f} (true {true:.3f})")
    for pool, (fit, classes) in likelihoods.items():
        verdict = ("misspecified: its maximum is not at the classes" if fit > classes
                   else "its fit is a local maximum below the classes")
        print(f"{pool}: normal-score mixture, mean log-likelihood per item {fit:.4f} at its fit, {classes:.4f} "
              f"at the true classes ({verdict})")


if __name__ == "__main__":
    main()
