"""``spe calibrate`` and ``spe prevalence``: the outputs equal the library's, the comparison lists every method,
bad input exits 2 and writes nothing."""

import json

import numpy as np
import pandas as pd
import pytest

from spe.calibration import REGISTRY as CALIBRATORS
from spe.calibration import Platt
from spe.cli import main
from spe.io import read_labels, read_scores
from spe.prevalence import REGISTRY as PREVALENCE
from spe.prevalence import estimate_prevalence

from .conftest import EXAMPLES

SCORES = str(EXAMPLES / "digits_scores.csv")
LABELS = str(EXAMPLES / "digits_labels.csv")


def labeled_digits():
    scores = read_scores(SCORES)
    index, value = read_labels(LABELS, scores)
    return scores, np.asarray(index), np.asarray(value)


def test_calibrate_writes_every_items_probability_as_the_library_does(tmp_path, capsys):
    out = tmp_path / "probs.csv"
    assert main(["calibrate", SCORES, "--labels", LABELS, "--method", "platt", "--out", str(out)]) == 0
    probs = pd.read_csv(out)
    scores, index, value = labeled_digits()
    rest = np.setdiff1d(np.arange(scores.scores.size), index)
    expected = Platt().fit(scores.scores[index], value, scores.scores[rest]).positive_probability(scores.scores)
    assert list(probs.columns) == ["id", "probability"] and list(probs["id"]) == list(scores.ids)
    np.testing.assert_allclose(probs["probability"], expected, rtol=1e-5)
    text = capsys.readouterr().out
    assert "method platt" in text and "calibration map" in text and f"wrote {out}" in text


def test_calibrate_map_as_json_and_figure(tmp_path):
    js, fig = tmp_path / "map.json", tmp_path / "map.png"
    assert main(["calibrate", SCORES, "--labels", LABELS, "--method", "asymlaplace", "--json", str(js),
                 "--plot", str(fig)]) == 0
    body = json.loads(js.read_text())
    assert body["method"] == "asymlaplace" and body["n_labeled"] == 20
    p = [row["probability"] for row in body["map"]]
    assert len(p) == 9 and all(0 <= v <= 1 for v in p)
    assert fig.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_calibrate_compare_cross_validates_every_method(tmp_path, capsys):
    js, fig = tmp_path / "cmp.json", tmp_path / "rel.png"
    assert main(["calibrate", SCORES, "--labels", LABELS, "--compare", "--folds", "3", "--draws", "200",
                 "--json", str(js), "--plot", str(fig)]) == 0
    body = json.loads(js.read_text())
    assert set(body["methods"]) == set(CALIBRATORS) and body["folds"] == 3 and body["ece_bins"] == 10
    text = capsys.readouterr().out
    assert "3-fold cross-validation" in text and all(f"  {m} " in text for m in CALIBRATORS)
    assert fig.stat().st_size > 10_000


@pytest.mark.parametrize("argv,message", [
    (["--method", "beta"], "unknown calibration method 'beta'"),
    (["--folds", "0"], "--folds"),
])
def test_calibrate_bad_options_exit_2_and_write_nothing(tmp_path, capsys, argv, message):
    out = tmp_path / "probs.csv"
    assert main(["calibrate", SCORES, "--labels", LABELS, "--out", str(out), *argv]) == 2
    assert message in capsys.readouterr().err and not out.exists()


def test_calibrate_without_labels_of_both_classes_exits_2(tmp_path, capsys):
    labels = tmp_path / "labels.csv"
    labels.write_text("id,label\nimg0000,0\nimg0001,0\n")
    assert main(["calibrate", SCORES, "--labels", str(labels), "--method", "platt"]) == 2
    assert "both classes" in capsys.readouterr().err
    assert main(["calibrate", SCORES, "--method", "platt"]) == 2
    assert "needs labeled items" in capsys.readouterr().err


def test_prevalence_json_equals_the_library(tmp_path, capsys):
    js = tmp_path / "prev.json"
    assert main(["prevalence", SCORES, "--labels", LABELS, "--method", "acc", "--seed", "3", "--level", "0.8",
                 "--json", str(js)]) == 0
    scores, index, value = labeled_digits()
    lib = estimate_prevalence("acc", scores.scores, (index, value), level=0.8, rng=3)
    body = json.loads(js.read_text())
    assert body["estimates"]["acc"]["estimate"] == pytest.approx(lib.estimate)
    assert (body["estimates"]["acc"]["lo"], body["estimates"]["acc"]["hi"]) == pytest.approx((lib.lo, lib.hi))
    assert body["n_items"] == 899 and body["n_labeled"] == 20 and body["level"] == 0.8
    assert "acc " in capsys.readouterr().out


def test_prevalence_compare_lists_every_method(capsys):
    assert main(["prevalence", SCORES, "--labels", LABELS, "--compare", "--draws", "200"]) == 0
    text = capsys.readouterr().out
    assert all(f"  {m} " in text for m in PREVALENCE)


def test_prevalence_unknown_method_exits_2(capsys):
    assert main(["prevalence", SCORES, "--labels", LABELS, "--method", "hdy"]) == 2
    assert "unknown prevalence method 'hdy'" in capsys.readouterr().err


def test_prevalence_acc_without_labels_exits_2(capsys):
    assert main(["prevalence", SCORES, "--method", "acc"]) == 2
    assert "both classes" in capsys.readouterr().err


def test_calibrate_with_a_reference_and_no_labels_learns_the_map_from_the_reference(tmp_path, capsys):
    rng = np.random.default_rng(0)
    y = (rng.random(3000) < 0.3).astype(int)
    s = np.where(y == 1, rng.normal(1.0, 1.0, 3000), rng.normal(-1.0, 1.0, 3000))
    ref, pool = tmp_path / "ref.csv", tmp_path / "pool.csv"
    pd.DataFrame({"score": s[:2000], "label": y[:2000]}).to_csv(ref, index=False)
    pd.DataFrame({"id": np.arange(1000), "score": s[2000:]}).to_csv(pool, index=False)
    out = tmp_path / "probs.csv"
    assert main(["calibrate", str(pool), "--reference", str(ref), "--method", "platt", "--out", str(out)]) == 0
    expected = Platt().fit(s[:2000], y[:2000], s[2000:]).positive_probability(s[2000:])
    np.testing.assert_allclose(pd.read_csv(out)["probability"], expected, rtol=1e-5)
    assert main(["calibrate", str(pool), "--reference", str(ref), "--draws", "200", "--out", str(out)]) == 0
    spe_probs = pd.read_csv(out)["probability"].to_numpy()
    assert abs(spe_probs.mean() - y[2000:].mean()) < 0.05  # the reference's map, carried to the pool
    assert main(["calibrate", str(pool), "--reference", str(ref), "--compare"]) == 2
    assert "--compare cross-validates" in capsys.readouterr().err
