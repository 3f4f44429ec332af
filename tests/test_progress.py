"""Progress bars on standard error for the long stages, their timings in the log, -q and -v, and warnings on
standard error (spe.progress)."""

import io
import logging
import re
import sys
import warnings

import numpy as np
import pytest

import spe
from spe.cli import main
from spe.progress import LOGGER, Stage, resolve_progressbar, shown, showing, stage

from .conftest import EXAMPLES, simulate

STAGES = ("screening family pairs", "sampling the mixture's posterior", "fitting the score models",
          "drawing the unknown labels")


def _small_estimate(progressbar, families="truncnorm,truncnorm"):
    s, y = simulate(400, 0.2, seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return spe.evaluate(s, {i: int(y[i]) for i in range(15)}, draws=100, rng=0, progressbar=progressbar,
                            workers=1, families=families)


def test_each_long_stage_shows_a_bar_on_standard_error_when_asked(capsys):
    _small_estimate(progressbar=True, families="auto")
    out = capsys.readouterr()
    assert out.out == ""
    for name in STAGES:
        assert name in out.err, name
    assert "0/100 " in out.err  # the label draws counted in draws


def test_no_bar_when_not_asked_nor_on_a_terminal(capsys):
    _small_estimate(progressbar=False)
    assert capsys.readouterr().err == ""
    _small_estimate(progressbar=None)  # pytest's captured standard error is not a terminal
    assert capsys.readouterr().err == ""


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_auto_shows_bars_on_a_terminal_only(monkeypatch):
    monkeypatch.setattr(sys, "stderr", _Terminal())
    assert resolve_progressbar(None) and not resolve_progressbar(False)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert not resolve_progressbar(None) and resolve_progressbar(True)


def test_a_stage_logs_its_time_and_counts_to_its_total(capsys, caplog):
    with caplog.at_level(logging.INFO, logger="spe"), shown(True):
        assert showing()
        with stage("counting", total=3, unit="thing") as s:
            s.advance()
            s.advance(2)
    assert not showing()
    assert "counting:   0%|          | 0/3" in capsys.readouterr().err
    assert any(r.getMessage().startswith("counting: ") and r.getMessage().endswith(" s") for r in caplog.records)


_RENDER = re.compile(r"([^\r\n:]+):\s+(\d+)%\|[^|]*\|\s*(\d+)/(\d+)")


def test_a_bar_never_falls_back_its_total_is_known_when_it_starts(capsys):
    """Issue 48: the screening's bar grew its total mid-run (the per-class pairs, more starts), 100% → 60%."""
    _small_estimate(progressbar=True, families="auto")
    err = capsys.readouterr().err
    seen = {}
    for name, percent, done, total in _RENDER.findall(err):
        name, done, total = name.strip(), int(done), int(total)
        assert done <= total and int(percent) <= 100, (name, done, total)
        seen.setdefault(name, set()).add(total)
    assert "screening family pairs" in seen
    assert all(len(totals) == 1 for totals in seen.values()), seen  # one total per bar, from its start
    for name in seen:
        percents = [int(p) for n, p, _, _ in _RENDER.findall(err) if n.strip() == name]
        assert percents == sorted(percents), (name, percents)  # a bar only moves forward
    assert not hasattr(Stage, "add_total")  # no way left to grow a bar's total


def _cli(argv, monkeypatch, terminal):
    err = _Terminal() if terminal else io.StringIO()
    out = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(sys, "stdout", out)
    rc = main(argv)
    return rc, out.getvalue(), err.getvalue()


ESTIMATE = ["estimate", str(EXAMPLES / "digits_scores.csv"), "--labels", str(EXAMPLES / "digits_labels.csv"),
            "--families", "truncnorm,truncnorm", "--draws", "100", "--seed", "0", "--workers", "1"]


@pytest.mark.parametrize("quiet", [False, True])
def test_cli_bars_on_a_terminal_unless_quiet(monkeypatch, quiet):
    rc, out, err = _cli(ESTIMATE + (["-q"] if quiet else []), monkeypatch, terminal=True)
    assert rc == 0 and ("average precision" in out) != quiet  # -q: no summary either (issue 48)
    assert ("drawing the unknown labels" in err) != quiet
    assert "spe: drawing" not in err  # no timings without -v


def test_cli_quiet_prints_only_warnings_and_still_writes_the_outputs(monkeypatch, tmp_path):
    scores = tmp_path / "s.csv"
    scores.write_text("score\n" + "".join(f"{x}\n" for x in (0.1, 0.2, 0.3, 0.4) * 50))
    labels = tmp_path / "l.csv"
    labels.write_text("id,label\n0,0\n1,0\n2,0\n")  # one class only: an answer with a warning
    out_json = tmp_path / "o.json"
    rc, out, err = _cli(["estimate", str(scores), "--labels", str(labels), "--draws", "100", "--seed", "0", "-q",
                         "--json", str(out_json)], monkeypatch, terminal=True)
    assert rc == 0 and out == "" and out_json.stat().st_size > 0
    assert err and all(line.startswith("spe estimate: warning: ") for line in err.splitlines()), err
    rc, out, err = _cli(["suggest", str(scores), "--labels", str(labels), "--draws", "100", "--seed", "0", "-q",
                         "-k", "2"], monkeypatch, terminal=False)
    assert rc == 0 and out.splitlines()[0] == "id,expected_gain" and len(out.splitlines()) == 3  # the data itself
    assert "items to label next" not in err and "seed:" not in err
    rc, out, err = _cli(["list", "metrics", "-q"], monkeypatch, terminal=False)
    assert rc == 0 and out == "" and err == ""


def test_cli_verbose_logs_each_stage_time(monkeypatch):
    rc, out, err = _cli(ESTIMATE + ["-v"], monkeypatch, terminal=False)
    lines = [line for line in err.splitlines() if line.startswith("spe: ")]
    assert rc == 0 and any(line.startswith("spe: reading ") for line in lines)
    assert any(line.startswith("spe: drawing the unknown labels: ") and line.endswith(" s") for line in lines)
    assert not LOGGER.handlers and LOGGER.level == logging.NOTSET  # the command's handler and level are undone


def test_cli_quiet_and_verbose_exclude_each_other(capsys):
    assert main(ESTIMATE + ["-q", "-v"]) == 2
    assert "not allowed with" in capsys.readouterr().err


def test_cli_warnings_go_to_standard_error(monkeypatch, tmp_path):
    scores = tmp_path / "s.csv"
    scores.write_text("score\n" + "".join(f"{x}\n" for x in (0.1, 0.2, 0.3, 0.4) * 50))
    labels = tmp_path / "l.csv"
    labels.write_text("id,label\n0,0\n1,0\n2,0\n")  # one class only: an answer with a warning
    rc, out, err = _cli(["estimate", str(scores), "--labels", str(labels), "--draws", "100", "--seed", "0"],
                        monkeypatch, terminal=False)
    assert rc == 0 and "prevalence" in out and "warning" not in out
    assert "spe estimate: warning: " in err


def test_an_outer_choice_holds_inside_and_compare_shows_its_label_draws(capsys):
    with shown(False):
        with shown(None):
            assert not showing()
    with shown(True):
        with shown(None):
            assert showing()
    s, y = simulate(300, 0.3, seed=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spe.compare({"a": s, "b": s + 0.5 * np.random.default_rng(1).normal(size=300)},
                    {i: int(y[i]) for i in range(20)}, draws=100, rng=0, progressbar=True, workers=1,
                    families="truncnorm,truncnorm")
    err = capsys.readouterr().err
    assert "fitting the score models" in err and "drawing the unknown labels" in err
