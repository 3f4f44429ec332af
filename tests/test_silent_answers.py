"""Inputs that once gave a wrong answer with exit status 0: each now gives the clean input's answer, or a
warning that says what is wrong, or a refusal naming what to change."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import spe
from spe.cli import main
from spe.exceptions import SpeInputError, SpeWarning
from spe.models.mixture import PROBABILITY_TOLERANCE, clipped_probabilities, resolve_score_type
from spe.prevalence import estimate_prevalence

from .conftest import EXAMPLES, simulate

SCORES, LABELS, TRUTH = (str(EXAMPLES / f"digits_{k}.csv") for k in ("scores", "labels", "truth"))


def _probabilities(tmp_path, noise_at_top=0):
    """The digits example's scores as probabilities (their logistic), the top ``noise_at_top`` at 1.00001 (a
    softmax summed in float32): the path of the file."""
    d = pd.read_csv(SCORES)
    p = 1 / (1 + np.exp(-d["score"].to_numpy()))
    if noise_at_top:
        p[np.argsort(-p)[:noise_at_top]] = 1.00001
    path = tmp_path / f"p{noise_at_top}.csv"
    pd.DataFrame({"id": d["id"], "score": p}).to_csv(path, index=False)
    return path


def test_probabilities_with_float_noise_are_probabilities_clipped_with_a_note():
    s = np.array([0.0, 0.2, 0.7, 1.0 + PROBABILITY_TOLERANCE / 2, -PROBABILITY_TOLERANCE / 3])
    assert resolve_score_type(s) == "probability"
    assert resolve_score_type(s, "probability") == "probability"
    clipped, note = clipped_probabilities(s)
    np.testing.assert_array_equal(clipped, np.clip(s, 0, 1))
    assert "2 score(s)" in note and s[3] > 1  # the input is left as it was
    assert resolve_score_type(np.array([0.1, 1.0 + 2 * PROBABILITY_TOLERANCE])) == "log-odds"
    clean = np.array([0.0, 0.5, 1.0])
    assert clipped_probabilities(clean) == (clean, None)
    assert clipped_probabilities(s, "log-odds")[1] is None


def test_float_noise_above_one_gives_the_clipped_files_answer_and_says_so(tmp_path):
    """Six scores at 1.00001 once made --score-type auto read every score as log-odds (AP 0.47 for 0.74)."""
    answers = {}
    for noisy, path in ((0, None), (6, None)):
        path = _probabilities(tmp_path, noisy)
        if noisy == 0:  # the same six scores at exactly 1: what the noisy file means
            d = pd.read_csv(path)
            d.loc[np.argsort(-d["score"].to_numpy())[:6], "score"] = 1.0
            d.to_csv(path, index=False)
        out = tmp_path / f"{noisy}.json"
        assert main(["estimate", str(path), "--labels", LABELS, "--json", str(out), "--seed", "0", "--draws", "200",
                     "--families", "beta,beta"]) == 0
        answers[noisy] = json.loads(out.read_text())
    clean, noisy = answers[0], answers[6]
    assert noisy["diagnostics"]["score_type"] == clean["diagnostics"]["score_type"] == "probability"
    assert noisy["average_precision"] == clean["average_precision"]
    assert any("clipped to [0, 1]" in n for n in noisy["diagnostics"]["notes"])


@pytest.mark.parametrize("command", [["estimate", "--draws", "200"], ["calibrate", "--method", "platt"],
                                     ["prevalence", "--method", "cc"]])
def test_every_command_prints_how_it_read_the_scores(tmp_path, capsys, command):
    path = _probabilities(tmp_path, 3)
    assert main([command[0], str(path), "--labels", LABELS, "--seed", "0", *command[1:]]) == 0
    out, err = capsys.readouterr()
    assert "scores read as probabilities of the positive class (score type: probability)" in out
    assert "clipped to [0, 1]" in out + err


def test_classify_and_count_reads_noisy_probabilities_at_one_half(tmp_path):
    d = pd.read_csv(_probabilities(tmp_path, 6))
    truth = pd.read_csv(TRUTH)["label"].mean()
    with pytest.warns(SpeWarning, match="clipped"):
        est = estimate_prevalence("cc", d["score"].to_numpy(), rng=0)
    assert est.details["threshold"] == 0.5 and abs(est.estimate - truth) < 0.05  # was 0.98 (threshold 0)


@pytest.mark.slow
def test_compare_refuses_the_same_file_twice_and_names_files_of_one_stem_by_path(tmp_path, capsys):
    assert main(["compare", SCORES, SCORES, "--labels", LABELS]) == 2
    assert "same file" in capsys.readouterr().err
    for sub in ("a", "b"):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "model.csv").write_bytes((EXAMPLES / "digits_scores.csv").read_bytes())
    out = tmp_path / "cmp.json"
    a, b = str(tmp_path / "a" / "model.csv"), str(tmp_path / "b" / "model.csv")
    assert main(["compare", a, b, "--labels", LABELS, "--draws", "150", "--seed", "0", "--json", str(out)]) == 0
    assert "2 classifiers" in capsys.readouterr().out
    assert set(json.loads(out.read_text())["classifiers"]) == {a, b}


def test_compare_refuses_names_given_twice(tmp_path, capsys):
    other = tmp_path / "other.csv"
    other.write_bytes((EXAMPLES / "digits_scores.csv").read_bytes())
    assert main(["compare", SCORES, str(other), "--names", "x,x", "--labels", LABELS]) == 2
    assert "named twice" in capsys.readouterr().err


@pytest.mark.slow
def test_compare_matches_id_indexed_series_by_id_whatever_their_order():
    s, y = simulate(600, 0.3, 1)
    weak = s + np.random.default_rng(2).normal(0, 1, s.size)
    ids = np.array([f"u{k}" for k in range(s.size)])
    known = {ids[i]: int(y[i]) for i in range(0, 600, 30)}
    shuffled = np.random.default_rng(3).permutation(s.size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        aligned = spe.compare({"a": pd.Series(s, ids), "b": pd.Series(weak, ids)}, known, draws=150, rng=0)
        mixed = spe.compare({"a": pd.Series(s, ids), "b": pd.Series(weak, ids).iloc[shuffled]}, known, draws=150, rng=0)
    assert mixed.to_dict() == aligned.to_dict()
    with pytest.raises(SpeInputError, match="did not score the same items"):
        spe.compare({"a": pd.Series(s, ids), "b": pd.Series(weak, np.char.add(ids, "x"))}, known)
    with pytest.raises(SpeInputError, match="has no ids"):
        spe.compare({"a": pd.Series(s, ids), "b": weak}, known)


def test_compare_of_an_array_with_one_row_per_classifier_says_to_transpose():
    s, _ = simulate(100, 0.3, 1)
    with pytest.raises(SpeInputError, match=r"shape \(2, 100\).*transpose"):
        spe.compare(np.vstack([s, s + 1]))


def test_a_reference_of_another_score_type_or_with_flipped_labels_warns():
    s, y = simulate(2000, 0.1, 4)
    ref_s, ref_y = simulate(500, 0.2, 5)
    with pytest.warns(SpeWarning, match="read as probability but the pool's as log-odds"):
        estimate_prevalence("sld", s, reference=(1 / (1 + np.exp(-ref_s)), ref_y), rng=0)
    with pytest.warns(SpeWarning, match="ranks backwards"):
        estimate_prevalence("sld", s, reference=(ref_s, 1 - ref_y), rng=0)


def test_acc_where_the_rates_are_equal_says_nothing_rather_than_a_zero_width_interval():
    s = np.linspace(-1, 1, 200)
    ref = (np.r_[np.full(10, -0.5), np.full(10, 0.5)], np.r_[np.zeros(5), np.ones(5), np.zeros(5), np.ones(5)])
    est = estimate_prevalence("acc", s, reference=ref, rng=0)
    assert (est.lo, est.hi) == (0.0, 1.0) and not est.details["defined"]
    flipped = estimate_prevalence("acc", s, {0: 1, 1: 1, 198: 0, 199: 0, 2: 1, 197: 0}, rng=0)
    assert flipped.details["tpr"] < flipped.details["fpr"]  # the calls, reversed, still inform: 1 − cc here
    assert flipped.estimate == pytest.approx((3 + 194 * (1 - np.mean(s[3:197] >= 0))) / 200)


def test_items_named_parquet_are_a_parquet_file(tmp_path):
    out = tmp_path / "items.parquet"
    assert main(["estimate", SCORES, "--labels", LABELS, "--items", str(out), "--draws", "150", "--seed", "0"]) == 0
    items = pd.read_parquet(out)
    assert list(items.columns) == ["id", "score", "probability"] and len(items) == 899
    csv = tmp_path / "items.csv"
    assert main(["estimate", SCORES, "--labels", LABELS, "--items", str(csv), "--draws", "150", "--seed", "0"]) == 0
    np.testing.assert_allclose(items["probability"], pd.read_csv(csv)["probability"], rtol=1e-5)


def test_truth_that_contradicts_the_labels_warns(tmp_path, capsys):
    truth = pd.read_csv(TRUTH)
    first = pd.read_csv(LABELS)["id"].iloc[0]
    truth.loc[truth["id"] == first, "label"] = 1 - truth.loc[truth["id"] == first, "label"]
    path = tmp_path / "truth.csv"
    truth.to_csv(path, index=False)
    assert main(["estimate", SCORES, "--labels", LABELS, "--truth", str(path), "--draws", "150", "--seed", "0"]) == 0
    assert f"--truth contradicts --labels at 1 of the 20 labeled items (first: item '{first}'" in \
        capsys.readouterr().err


@pytest.mark.slow
def test_labels_files_in_every_convention_give_the_same_estimate(tmp_path):
    labels = pd.read_csv(LABELS)
    forms = {"zero_one": (labels, []), "plus_minus": (labels.assign(label=2 * labels["label"] - 1), []),
             "bool": (labels.assign(label=labels["label"].map({1: "true", 0: "False"})), []),
             "text": (labels.assign(label=labels["label"].map({1: "eight", 0: "other"})), ["--pos-label", "eight"])}
    results = {}
    for name, (frame, extra) in forms.items():
        path, out = tmp_path / f"{name}.csv", tmp_path / f"{name}.json"
        frame.to_csv(path, index=False)
        assert main(["estimate", SCORES, "--labels", str(path), "--json", str(out), "--draws", "150", "--seed", "0",
                     *extra]) == 0
        results[name] = json.loads(out.read_text())["prevalence"]
    assert all(r == results["zero_one"] for r in results.values())


def test_text_labels_without_pos_label_are_refused_with_how_to_pass_them(tmp_path, capsys):
    labels = pd.read_csv(LABELS)
    path = tmp_path / "text.csv"
    labels.assign(label=labels["label"].map({1: "eight", 0: "other"})).to_csv(path, index=False)
    assert main(["estimate", SCORES, "--labels", str(path)]) == 2
    assert "need pos_label" in capsys.readouterr().err
