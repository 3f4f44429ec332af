"""The example scripts the README points to run on the shipped example and write what they promise."""

import functools
import importlib.util
import warnings

import numpy as np
import pandas as pd
import pytest

import spe
from spe.io import read_labels, read_scores

from .conftest import EXAMPLES

pytestmark = pytest.mark.slow  # each runs a whole example script end to end


def _script(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.lru_cache(maxsize=None)
def _evaluation(seed):
    """What the scripts must reproduce: spe.evaluate of the shipped example (fitted once per seed; read only)."""
    scores = read_scores(EXAMPLES / "digits_scores.csv")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return spe.evaluate(scores.scores, read_labels(EXAMPLES / "digits_labels.csv", scores), draws=200, rng=seed)


def test_evaluate_script(tmp_path, capsys):
    out = tmp_path / "fig.png"
    ev = _script("evaluate").main(["--draws", "200", "--seed", "2", "--out", str(out),
                                   "--truth", str(EXAMPLES / "digits_truth.csv")])
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    printed = capsys.readouterr().out
    assert ev.summary() in printed and "average precision" in printed
    assert ev.average_precision() == _evaluation(2).average_precision()


def test_choose_threshold_script(tmp_path, capsys):
    out = tmp_path / "thr.png"
    choice = _script("choose_threshold").main(["--draws", "200", "--seed", "2", "--out", str(out),
                                               "--min-precision", "0.8", "--min-recall", "0.4"])
    expected = _evaluation(2).best_threshold(0.8, 0.4)
    assert choice.threshold == expected.threshold and choice.probability == pytest.approx(expected.probability)
    assert f"{expected.threshold:.4g}" in capsys.readouterr().out
    assert out.exists()


def test_export_item_probabilities_script(tmp_path):
    out = tmp_path / "items.csv"
    _script("export_item_probabilities").main(["--draws", "200", "--seed", "2", "--out", str(out)])
    table = pd.read_csv(out)
    ev = _evaluation(2)
    assert list(table.columns) == ["id", "score", "probability", "labeled"] and len(table) == ev.n_items
    np.testing.assert_allclose(table.probability, ev.item_probabilities(), rtol=1e-5, atol=1e-9)
    assert table.labeled.sum() == ev.n_labeled
    assert set(table.probability[table.labeled]) <= {0.0, 1.0}
