"""Make a many-class text case for the multiclass benchmarks: Banking77 intents (77 classes).

Banking77 (Casanueva et al. 2020, github.com/PolyAI-LDN/task-specific-datasets, ``banking_data/train.csv`` and
``test.csv``: 13,083 customer-service questions, each labeled with one of 77 intents). Every item is scored by
classifiers that never saw it (5-fold stratified cross-fitting over train and test together), so the case has
13,083 items with out-of-sample probabilities:

* ``mlp``: a small network (one hidden layer of 256 units) on TF-IDF word and character n-grams (300 latent dimensions), trained to
  convergence: over-confident, as deep networks are;
* ``logres``: a logistic regression on the same features (under-confident at its regularisation).

Writes ``mlp.npy`` and ``logres.npy`` ((N, 77) probabilities), ``labels.npy`` ((N,) class positions) and
``classes.txt`` to ``--out``.

    python benchmarks/make_banking77.py --data DIR_WITH_CSVS --out DIR
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.neural_network import MLPClassifier
from sklearn.preprocessing import StandardScaler


def features(train_text, test_text, seed=0):
    """TF-IDF word and character n-grams, reduced to 300 dimensions (latent semantic analysis)."""
    words = TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True)
    chars = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4), min_df=3, sublinear_tf=True)
    train = sparse.hstack([v.fit_transform(train_text) for v in (words, chars)]).tocsr()
    test = sparse.hstack([v.transform(test_text) for v in (words, chars)]).tocsr()
    svd = TruncatedSVD(300, random_state=seed).fit(train)
    scale = StandardScaler().fit(svd.transform(train))
    return scale.transform(svd.transform(train)), scale.transform(svd.transform(test))


def models(seed):
    return {"mlp": MLPClassifier(hidden_layer_sizes=(256,), max_iter=60, random_state=seed),
            "logres": LogisticRegression(C=0.05, max_iter=2000)}


def cross_fitted(text, y, k, seed=0, folds=5):
    out = {name: np.zeros((len(y), k)) for name in models(seed)}
    for fold, (train, test) in enumerate(StratifiedKFold(folds, shuffle=True, random_state=seed).split(text, y)):
        x_train, x_test = features(text[train], text[test], seed)
        for name, model in models(seed).items():
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out[name][test] = model.fit(x_train, y[train]).predict_proba(x_test)
            print(f"fold {fold} {name}: accuracy {np.mean(out[name][test].argmax(1) == y[test]):.3f} "
                  f"({time.perf_counter() - start:.0f} s)", flush=True)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="directory with Banking77's train.csv, test.csv")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    frame = pd.concat([pd.read_csv(args.data / f"{part}.csv") for part in ("train", "test")], ignore_index=True)
    classes = np.array(sorted(frame["category"].unique()))
    y = np.searchsorted(classes, frame["category"].to_numpy())
    probs = cross_fitted(frame["text"].to_numpy(), y, len(classes), seed=args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, p in probs.items():
        np.save(args.out / f"{name}.npy", p.astype(np.float32))
        confidence = p.max(1).mean()
        print(f"{name}: accuracy {np.mean(p.argmax(1) == y):.3f}, mean confidence {confidence:.3f}")
    np.save(args.out / "labels.npy", y)
    (args.out / "classes.txt").write_text("\n".join(classes) + "\n")


if __name__ == "__main__":
    main()
