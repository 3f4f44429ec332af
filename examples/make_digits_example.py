"""Regenerate the shipped example: a real classifier's scores on a real data set.

A logistic regression is trained to tell the digit 8 from the other digits
on half of scikit-learn's bundled copy of the UCI optdigits test set
(``sklearn.datasets.load_digits``, 1,797 8×8 images), and scores the other
half (899 images): ``digits_scores.csv`` (id, score = the decision value,
log-odds units). ``digits_labels.csv`` holds 20 of those items' true labels,
drawn at random (the "oracle" labels a user would pay for), and
``digits_truth.csv`` all 899 true labels, to compare an estimate with.

A second classifier, a support vector machine with an RBF kernel trained on
the same half, scores the same 899 images (same ids):
``digits_svm_scores.csv`` (its decision value), for ``spe compare``.

Run:  python examples/make_digits_example.py   (needs scikit-learn)
"""

from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

HERE = Path(__file__).resolve().parent
POSITIVE_DIGIT = 8
N_LABELS = 20


def main(seed=0):
    X, digit = load_digits(return_X_y=True)
    y = (digit == POSITIVE_DIGIT).astype(int)
    X_train, X_pool, y_train, y_pool = train_test_split(X, y, test_size=0.5, random_state=seed, stratify=y)
    clf = make_pipeline(StandardScaler(), LogisticRegression(C=0.05, max_iter=2000))
    clf.fit(X_train, y_train)
    score = clf.decision_function(X_pool)
    ids = [f"img{i:04d}" for i in range(score.size)]
    pd.DataFrame({"id": ids, "score": np.round(score, 6)}).to_csv(HERE / "digits_scores.csv", index=False)
    svm = make_pipeline(StandardScaler(), SVC(kernel="rbf", C=1.0)).fit(X_train, y_train)
    pd.DataFrame({"id": ids, "score": np.round(svm.decision_function(X_pool), 6)}).to_csv(
        HERE / "digits_svm_scores.csv", index=False)
    pd.DataFrame({"id": ids, "label": y_pool}).to_csv(HERE / "digits_truth.csv", index=False)
    pick = np.sort(np.random.default_rng(seed).choice(score.size, N_LABELS, replace=False))
    pd.DataFrame({"id": [ids[i] for i in pick], "label": y_pool[pick]}).to_csv(
        HERE / "digits_labels.csv", index=False)
    print(f"{score.size} scored items, prevalence {y_pool.mean():.3f}; {N_LABELS} labels "
          f"({y_pool[pick].sum()} positive)")


if __name__ == "__main__":
    main()
