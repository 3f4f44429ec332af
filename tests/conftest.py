import os
import warnings
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest

import spe

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
CASES = Path(os.environ.get("SPE_CASES_DIR", ROOT.parent / "shared" / "cases"))


@pytest.fixture(scope="session", autouse=True)
def _spe_cache_in_a_temporary_directory(tmp_path_factory):
    """What spe caches (``spe list``'s lists) goes to a directory of this test session, not the user's home; the
    commands the tests run in subprocesses inherit it."""
    before = os.environ.get("SPE_CACHE_DIR")
    os.environ["SPE_CACHE_DIR"] = str(tmp_path_factory.mktemp("spe-cache"))
    yield
    if before is None:
        os.environ.pop("SPE_CACHE_DIR", None)
    else:
        os.environ["SPE_CACHE_DIR"] = before


def simulate(n, prevalence, seed, neg=(0.0, 1.0), pos=(2.0, 1.0)):
    """Scores from a known two-Normal mixture: (scores (n,), labels (n,))."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < prevalence).astype(int)
    s = np.where(y == 1, rng.normal(pos[0], pos[1], n), rng.normal(neg[0], neg[1], n))
    return s, y


@pytest.fixture(scope="session")
def twenty_labels_of_3000():
    """An estimate of 3,000 simulated items (10% positives) with 20 labels, 300 draws: (Evaluation, scores,
    labels). Shared by the tests of spe.active (read only)."""
    import warnings

    import spe

    s, y = simulate(3000, 0.1, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = spe.evaluate(s, {i: int(y[i]) for i in range(20)}, draws=300, rng=0)
    return ev, s, y


@pytest.fixture(scope="session")
def two_classifiers(tmp_path_factory):
    """The digits example's scores and a noisier second classifier, one file with a column each ('id', 'a',
    'b'): its path. Shared by the tests of spe suggest and spe plan on several classifiers (read only)."""
    scores = pd.read_csv(EXAMPLES / "digits_scores.csv")
    noise = np.random.default_rng(0).normal(0, 1.0, len(scores))
    path = tmp_path_factory.mktemp("two") / "ab.csv"
    pd.DataFrame({"id": scores["id"], "a": scores["score"], "b": scores["score"] + noise}).to_csv(path, index=False)
    return path


@pytest.fixture(scope="session")
def good_and_weak():
    """spe.compare of two simulated classifiers of the same 1,500 items ('good', and 'weak' with added noise),
    25 labels, 200 draws: shared by the tests of how a comparison shows and pickles (read only)."""
    s, y = simulate(1500, 0.2, 3)
    weak = s + np.random.default_rng(4).normal(0, 1.5, s.size)
    known = {int(i): int(y[i]) for i in np.random.default_rng(5).choice(s.size, 25, replace=False)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return spe.compare({"good": s, "weak": weak}, known, draws=200, rng=0)


@pytest.fixture(scope="session")
def every_item_labeled():
    """80 simulated items, all labeled: nothing is left to suggest or to plan (read only)."""
    s, y = simulate(80, 0.3, 11)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return spe.evaluate(s, y, draws=100, rng=0, workers=1, families="truncnorm,truncnorm")


@pytest.fixture
def digits():
    """The shipped real example: scores, ids, the 20 shipped labels and all true labels."""
    scores = pd.read_csv(EXAMPLES / "digits_scores.csv")
    truth = pd.read_csv(EXAMPLES / "digits_truth.csv")
    return scores, truth


def case_slice(name, n, seed=0):
    """A random slice of n items of a real benchmark case (skips if the cases are absent)."""
    path = CASES / f"{name}.csv"
    if not path.exists():
        pytest.skip(f"benchmark case {path} not available")
    df = pd.read_csv(path)
    take = np.sort(np.random.default_rng(seed).choice(len(df), min(n, len(df)), replace=False))
    return df.iloc[take].reset_index(drop=True)
