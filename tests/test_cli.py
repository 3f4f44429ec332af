"""The `spe` command: the contract in DESIGN.md, run in-process through main(argv)."""

import json
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import spe
from spe.api import MIN_BINS
from spe.cli import main
from spe.cli.common import rounded_down
from spe.io import read_labels, read_scores

from .conftest import EXAMPLES, case_slice

SCORES = str(EXAMPLES / "digits_scores.csv")
LABELS = str(EXAMPLES / "digits_labels.csv")


def test_json_equals_to_dict_and_outputs_written(tmp_path, capsys):
    out, png, items = tmp_path / "o.json", tmp_path / "pr.png", tmp_path / "items.csv"
    rc = main(["estimate", SCORES, "--labels", LABELS, "--json", str(out), "--plot", str(png), "--items", str(items),
               "--seed", "3", "--draws", "300"])
    assert rc == 0
    stdout = capsys.readouterr().out
    assert "prevalence" in stdout and "average precision" in stdout and "Pareto" in stdout
    sf = read_scores(SCORES)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = spe.evaluate(sf.scores, read_labels(LABELS, sf), draws=300, rng=3)
    assert json.loads(out.read_text()) == json.loads(json.dumps(ev.to_dict()))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    df = pd.read_csv(items)
    assert list(df.columns) == ["id", "score", "probability"]
    assert len(df) == ev.n_items and df["id"].iloc[0] == "img0000"
    np.testing.assert_array_equal(df["score"], sf.scores)  # the scores exactly as read
    np.testing.assert_allclose(df["probability"], ev.item_probabilities(), rtol=1e-5, atol=1e-9)


def test_families_and_level_options(tmp_path):
    out = tmp_path / "o.json"
    rc = main(["estimate", SCORES, "--labels", LABELS, "--json", str(out), "--families", "gamma,truncnorm",
               "--level", "0.8", "--draws", "200", "--seed", "0"])
    assert rc == 0
    d = json.loads(out.read_text())
    assert d["families"] == {"negative": "gamma", "positive": "truncnorm"}
    assert d["level"] == 0.8 and d["diagnostics"]["draws"] == 200
    rc = main(["estimate", SCORES, "--labels", LABELS, "--json", str(out), "--families", "gamma,truncnorm",
               "--draws", "200", "--seed", "0", "--likelihood-bins", str(MIN_BINS["likelihood_bins"]),
               "--score-bins", str(MIN_BINS["score_bins"])])
    d = json.loads(out.read_text())
    assert rc == 0 and d["diagnostics"]["likelihood"] == "histogram"
    assert d["diagnostics"]["likelihood_bins"] <= MIN_BINS["likelihood_bins"] + 1
    assert MIN_BINS["score_bins"] / 2 <= d["diagnostics"]["score_bins"] <= MIN_BINS["score_bins"]


@pytest.mark.parametrize(
    "scores_text,labels_text,message",
    [
        ("id,score\na,1\nb,nan\nc,3\nd,4\n", "id,label\na,1\n", "row 2, column 'score'"),
        ("id,score\na,1\nb,2\nc,3\nd,4\n", "id,label\na,3\n", "row 1, column 'label'"),
        ("id,score\na,1\nb,2\nc,3\nd,4\n", "id,label\nq,1\n", "row 1, column 'id'"),
        ("id,score\na,1\na,2\nc,3\nd,4\n", "id,label\na,1\n", "duplicate id"),
        ("", "id,label\na,1\n", "empty"),
        ("id,value\na,1\n", "id,label\na,1\n", "no column 'score'"),
    ],
)
def test_bad_input_exits_2_and_writes_nothing(tmp_path, capsys, scores_text, labels_text, message):
    s, lab = tmp_path / "s.csv", tmp_path / "l.csv"
    s.write_text(scores_text)
    lab.write_text(labels_text)
    out = tmp_path / "o.json"
    rc = main(["estimate", str(s), "--labels", str(lab), "--json", str(out), "--plot", str(tmp_path / "p.png")])
    assert rc == 2
    err = capsys.readouterr().err
    assert message in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["l.csv", "s.csv"]


def test_bad_option_values_exit_2(capsys):
    assert main(["estimate", SCORES, "--families", "gamma,nope"]) == 2
    assert "known families" in capsys.readouterr().err
    assert main(["estimate", SCORES, "--level", "2"]) == 2
    assert main(["estimate", SCORES, "--draws", "abc"]) == 2
    assert main(["estimate", SCORES, "--likelihood-bins", "1"]) == 2
    assert main(["estimate", SCORES, "--score-bins", "some"]) == 2
    assert main(["estimate", SCORES, "--json", "/nonexistent-dir/o.json"]) == 2


def test_help_explains_inputs(capsys):
    assert main(["estimate", "--help"]) == 0
    text = capsys.readouterr().out
    for words in ("SCORES.csv", "LABELS.csv", "0-based", "--families", "--level", "--seed", "--json"):
        assert words in text
    assert main([]) == 2
    from spe.families import family_names  # the help lists every registered family (it is not generated)

    assert all(name in " ".join(text.split()) for name in family_names())


def test_import_and_help_do_not_import_pymc_or_arviz():
    code = ("import sys, spe, spe.cli; spe.cli.build_parser().format_help(); "
            "print(any(m.split('.')[0] in ('pymc', 'pytensor', 'arviz') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_help_lists_the_commands_without_the_scientific_stack():
    """``spe --help`` builds only the list of commands: no command's options, whose choices come from the
    registries (scipy); a command named on the line gets its own options, and only it."""
    code = ("import runpy, sys\nsys.argv = ['spe', '--help']\n"
            "try:\n    runpy.run_module('spe', run_name='__main__')\n"
            "except SystemExit as e:\n"
            "    print(e.code, [m for m in ('scipy', 'scipy.stats', 'pandas', 'matplotlib', 'dask') "
            "if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "estimate" in out and "calibrate" in out and out.splitlines()[-1] == "0 []"
    from spe.cli.main import build_parser

    parser = build_parser(["threshold"])
    assert "--min-precision" in parser.commands["threshold"].format_help()
    assert "--families" not in parser.commands["estimate"].format_help()
    assert "--families" in build_parser().commands["estimate"].format_help()


def test_version_is_written_once_and_answered_without_the_scientific_stack(capsys):
    """``spe --version`` prints spe.__version__, the one place the version is written (the package metadata
    reads it: pyproject.toml), before numpy, scipy or pandas are imported; the parser's --version agrees."""
    import tomllib
    from pathlib import Path

    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "spe.__version__"}
    code = ("import runpy, sys\nsys.argv = ['spe', '--version']\n"
            "try:\n    runpy.run_module('spe', run_name='__main__')\n"
            "except SystemExit as e:\n"
            "    print(e.code, [m for m in ('numpy', 'scipy', 'pandas') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == [f"spe {spe.__version__}", "0 []"]
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"spe {spe.__version__}\n"


@pytest.mark.slow
def test_runs_on_real_cases_without_ids(tmp_path):
    """Real benchmark-case slices of three score kinds (decision values, tied forest probabilities,
    naive-Bayes probabilities piled at 0 and 1), labels by row number."""
    for name in ("sat_svm5", "hi_rf", "spam_gnb"):
        df = case_slice(name, 1500)
        s = tmp_path / f"{name}.csv"
        df[["score"]].to_csv(s, index=False)
        pick = np.sort(np.random.default_rng(0).choice(len(df), 20, replace=False))
        lab = tmp_path / f"{name}_labels.csv"
        pd.DataFrame({"id": pick, "label": df["label"].to_numpy()[pick]}).to_csv(lab, index=False)
        out = tmp_path / f"{name}.json"
        argv = ["estimate", str(s), "--labels", str(lab), "--json", str(out), "--draws", "200", "--seed", "1"]
        assert main(argv) == 0
        d = json.loads(out.read_text())
        assert d["n_items"] == len(df) and d["n_labeled"] == 20


def test_score_type_option(tmp_path, capsys):
    out = tmp_path / "o.json"
    rc = main(["estimate", SCORES, "--labels", LABELS, "--json", str(out), "--families", "truncnorm,truncnorm",
               "--draws", "200", "--seed", "0", "--score-type", "decision"])
    assert rc == 0
    d = json.loads(out.read_text())
    assert d["diagnostics"]["score_type"] == "decision"
    assert "calibrated" not in [m["model"] for m in d["diagnostics"]["score_models"]]
    assert main(["estimate", SCORES, "--score-model", "calibrated", "--score-type", "decision"]) == 2
    assert "--score-model: 'calibrated' reads the scores as probabilities" in capsys.readouterr().err


def test_no_tempering_option(tmp_path):
    out = tmp_path / "o.json"
    rc = main(["estimate", SCORES, "--labels", LABELS, "--json", str(out), "--families", "truncnorm,truncnorm",
               "--draws", "200", "--seed", "0", "--no-tempering"])
    assert rc == 0
    hc = json.loads(out.read_text())["diagnostics"]["histogram_check"]
    assert hc["tempering_off"] is True and hc["tempering"] == 1.0


def test_no_monotone_option_keeps_the_papers_bayes_rule(tmp_path):
    outs = {}
    for flag in ([], ["--no-monotone"]):
        out = tmp_path / f"o{len(flag)}.json"
        rc = main(["estimate", SCORES, "--labels", LABELS, "--json", str(out), "--families", "truncnorm,truncnorm",
                   "--score-model", "mixture", "--draws", "200", "--seed", "0", *flag])
        assert rc == 0
        outs[bool(flag)] = json.loads(out.read_text())["diagnostics"]["monotone"]
    assert outs == {False: True, True: False}


@pytest.mark.slow
def test_threshold_command_reports_the_choice_and_writes_json(tmp_path, capsys):
    out = tmp_path / "t.json"
    png = tmp_path / "t.png"
    rc = main(["threshold", SCORES, "--labels", LABELS, "--min-precision", "0.8", "--min-recall", "0.3",
               "--seed", "1", "--draws", "300", "--json", str(out), "--compare-labeled-only", "--plot", str(png)])
    assert rc == 0
    stdout = capsys.readouterr().out
    d = json.loads(out.read_text())
    sf = read_scores(SCORES)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = spe.evaluate(sf.scores, read_labels(LABELS, sf), draws=300, rng=1)
    choice = ev.best_threshold(0.8, 0.3)
    assert d["threshold"] == pytest.approx(choice.threshold) and d["probability"] == pytest.approx(choice.probability)
    assert d["metrics"]["precision"]["mean"] == pytest.approx(choice.metrics["precision"].mean)
    assert len(d["curve"]["threshold"]) == len(d["curve"]["probability"]) == np.unique(sf.scores).size
    assert "labeled_only" in d and d["labeled_only"]["performance"] == "labeled-only"
    # what the probability rests on: the labeled items above the threshold, the model's own probability
    rests = choice.rests_on()
    assert {k: d[k] for k in rests} == pytest.approx(rests)
    assert len(d["curve"]["model_probability"]) == len(d["curve"]["threshold"])
    assert f"rests on: {rests['labeled_above']} labeled item" in stdout or "rests on: the score model alone" in stdout
    assert rounded_down(choice.threshold) in stdout and "labeled items only would pick" in stdout
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and f"wrote {png}" in stdout
    # an impossible requirement is said plainly
    rc = main(["threshold", SCORES, "--labels", LABELS, "--min-precision", "1", "--min-recall", "1", "--seed", "1",
               "--draws", "200"])
    assert rc == 0 and "no threshold is likely to meet the requirement" in capsys.readouterr().out
    assert main(["threshold", SCORES, "--labels", LABELS, "--min-precision", "1.2"]) == 2
    assert "argument --min-precision: expected a number in [0, 1], got '1.2'" in capsys.readouterr().err


@pytest.mark.slow
def test_estimate_threshold_performance_and_labeled_only_options(tmp_path, capsys):
    out = tmp_path / "o.json"
    rc = main(["estimate", SCORES, "--labels", LABELS, "--json", str(out), "--seed", "2", "--draws", "300",
               "--threshold", "0", "--threshold", "1.5", "--compare-labeled-only", "--performance", "population"])
    assert rc == 0
    stdout = capsys.readouterr().out
    d = json.loads(out.read_text())
    assert d["performance"] == "population" and [a["threshold"] for a in d["at_threshold"]] == [0.0, 1.5]
    sf = read_scores(SCORES)
    labels = read_labels(LABELS, sf)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = spe.evaluate(sf.scores, labels, draws=300, rng=2)
    assert d["prevalence"]["mean"] == pytest.approx(ev.prevalence(performance="population").mean)
    assert d["at_threshold"][0]["metrics"]["recall"]["mean"] == pytest.approx(
        ev.metrics_at(0.0, performance="population")["recall"].mean)
    lab = d["labeled_only"]
    assert lab["prevalence"]["mean"] == pytest.approx(np.mean(labels[1]))
    assert "labeled only" in stdout and "at threshold 1.5" in stdout and "population performance" in stdout
    assert len(d["threshold_curve"]["threshold"]) == len(d["threshold_curve"]["recall_hi"])


TRUTH = str(EXAMPLES / "digits_truth.csv")


@pytest.mark.slow
def test_report_writes_every_figure_the_json_and_an_index(tmp_path, capsys):
    """`spe estimate --report DIR` on the shipped real example: every figure saved, the JSON the same as --json."""
    import matplotlib.image as mpimg

    report, out = tmp_path / "report", tmp_path / "o.json"
    rc = main(["estimate", SCORES, "--labels", LABELS, "--report", str(report), "--json", str(out), "--truth", TRUTH,
               "--requirement", "0.9,0.5", "--compare-labeled-only", "--seed", "1", "--draws", "200"])
    assert rc == 0
    figures = ["scores", "threshold_curves", "pr_curve", "roc_curve", "threshold_probability", "reliability"]
    assert sorted(p.name for p in report.iterdir()) == sorted(
        [f"{f}.png" for f in figures] + ["estimate.json", "items.csv", "summary.txt", "README.md"])
    index = (report / "README.md").read_text()
    for f in figures:
        assert f"![{f}]({f}.png)" in index
        img = mpimg.imread(report / f"{f}.png")
        assert img.shape[0] >= 600 and img.shape[1] >= 800  # 6 × 4.8 in at 150 dpi
    assert (report / "estimate.json").read_bytes() == out.read_bytes()
    assert (report / "summary.txt").read_text() in capsys.readouterr().out
    assert len(pd.read_csv(report / "items.csv")) == 899
    # without truth or requirement: the four figures that need neither
    plain = tmp_path / "plain"
    assert main(["estimate", SCORES, "--labels", LABELS, "--report", str(plain), "--seed", "1", "--draws", "200"]) == 0
    assert sorted(p.stem for p in plain.glob("*.png")) == sorted(["scores", "threshold_curves", "pr_curve",
                                                                  "roc_curve"])


def test_report_bad_truth_or_requirement_exits_2_and_writes_nothing(tmp_path, capsys):
    report = tmp_path / "report"
    rc = main(["estimate", SCORES, "--labels", LABELS, "--report", str(report), "--truth", LABELS, "--draws", "100"])
    assert rc == 2 and "labels 20 of the 899" in capsys.readouterr().err  # before any fitting
    assert not report.exists() and list(tmp_path.iterdir()) == []
    assert main(["estimate", SCORES, "--labels", LABELS, "--requirement", "0.9", "--draws", "100"]) == 2
    assert "MIN_PRECISION,MIN_RECALL" in capsys.readouterr().err
    assert main(["estimate", SCORES, "--requirement", "1.5,0.5"]) == 2
    (tmp_path / "file").write_text("x")
    assert main(["estimate", SCORES, "--report", str(tmp_path / "file"), "--draws", "100"]) == 2
    assert "not a directory" in capsys.readouterr().err


def test_threshold_summary_says_when_the_probability_rests_on_the_model_alone(tmp_path, capsys):
    """Every labeled item scores below the chosen threshold, and the items above it share one score: the summary
    says the model alone speaks there, and that the classifier does not rank those items."""
    rng = np.random.default_rng(0)
    y = rng.random(2000) < 0.3
    s = np.where(y, rng.normal(3, 1, 2000), rng.normal(0, 1, 2000))
    s[s > 3.0] = 4.0  # a pile at the top, 311 items
    scores, labels = tmp_path / "s.csv", tmp_path / "l.csv"
    pd.DataFrame({"id": np.arange(2000), "score": s}).to_csv(scores, index=False)
    low = np.flatnonzero(s < 2.5)[:60]
    pd.DataFrame({"id": low, "label": y[low].astype(int)}).to_csv(labels, index=False)
    rc = main(["threshold", str(scores), "--labels", str(labels), "--min-precision", "0.9", "--min-recall", "0.1",
               "--seed", "0", "--draws", "200", "--score-model", "calibrated"])
    out = capsys.readouterr().out
    assert rc == 0 and "rests on: the score model alone — no labeled item scores >=" in out
    assert "the 311 items scoring >= 4 share 1 distinct score: the classifier does not rank them" in out


def test_printed_thresholds_are_rounded_down_so_a_copied_one_keeps_its_item():
    for value in (0.97626351, 0.976263, 2.5e-7, -1.23456789, -0.5, 0.0, 1234567.89):
        text = rounded_down(value)
        assert float(text) <= value  # a threshold copied from the summary flags the item it was taken from
        assert value - float(text) <= 1e-5 * abs(value)  # six significant digits
    assert rounded_down(0.97626351) == "0.976263" and rounded_down(-1.23456789) == "-1.23457"

