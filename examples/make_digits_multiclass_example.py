"""Regenerate the shipped multiclass example: a small neural network's 10-class probabilities on real images.

A multilayer perceptron (one hidden layer of 32 units, scikit-learn's ``MLPClassifier``) is trained to read
the digit in half of scikit-learn's bundled copy of the UCI optdigits test set (``load_digits``, 1,797 8×8
images) and gives its softmax probabilities for the other half (899 images): ``digits10_scores.csv`` (id and
one column ``p0`` … ``p9`` per digit). ``digits10_labels.csv`` holds 20 of those images' true digits, drawn at
random, and ``digits10_truth.csv`` all 899, to compare an estimate with. A second classifier of the same images,
a regularised logistic regression (under-confident), is ``digits10_logistic_scores.csv``: ``spe compare`` of the
two says which reads these digits better.

Run:  python examples/make_digits_multiclass_example.py   (needs scikit-learn)
"""

from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

HERE = Path(__file__).resolve().parent


def main():
    x, y = load_digits(return_X_y=True)
    x_train, x_pool, y_train, y_pool = train_test_split(x, y, train_size=0.5, random_state=0, stratify=y)
    net = make_pipeline(StandardScaler(), MLPClassifier(hidden_layer_sizes=(32,), max_iter=400, random_state=0))
    probs = net.fit(x_train, y_train).predict_proba(x_pool)
    ids = [f"img{i:04d}" for i in range(len(y_pool))]
    scores = pd.DataFrame(np.round(probs, 6), columns=[f"p{d}" for d in range(10)])
    scores.insert(0, "id", ids)
    scores.to_csv(HERE / "digits10_scores.csv", index=False)
    logistic = make_pipeline(StandardScaler(), LogisticRegression(C=0.01, max_iter=2000))
    other = pd.DataFrame(np.round(logistic.fit(x_train, y_train).predict_proba(x_pool), 6),
                         columns=[f"p{d}" for d in range(10)])
    other.insert(0, "id", ids)
    other.to_csv(HERE / "digits10_logistic_scores.csv", index=False)
    truth = pd.DataFrame({"id": ids, "label": y_pool})
    truth.to_csv(HERE / "digits10_truth.csv", index=False)
    labeled = np.sort(np.random.default_rng(0).choice(len(ids), 20, replace=False))
    truth.iloc[labeled].to_csv(HERE / "digits10_labels.csv", index=False)


if __name__ == "__main__":
    main()
