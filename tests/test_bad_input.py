"""Nothing a user types crashes `spe` or silently shifts its answer (issue 20): each case found by trying ~285 bad
or odd inputs, as a test that failed before its fix. Exit status 0 (an answer, with a warning where the data are
degenerate) or 2 (bad input: one message naming the option, or the file, row and column; nothing written)."""

import io
import json
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import spe
from spe.api import MIN_BINS
from spe.cli import main
from spe.exceptions import SpeInputError

from .conftest import EXAMPLES, ROOT, simulate

SCORES = str(EXAMPLES / "digits_scores.csv")
LABELS = str(EXAMPLES / "digits_labels.csv")
FAST = ["--families", "truncnorm,truncnorm", "--draws", "100", "--workers", "1"]


def _run(argv, capsys):
    rc = main(argv)
    out = capsys.readouterr()
    return rc, out.out, out.err


def _no_fit(monkeypatch):
    """Make any fit of a score model fail the test: what is refused "before any work" is refused before it (a
    check of the order of events, not of a time, which a busy machine stretches)."""
    import spe.api

    def fit_started(*args, **kwargs):
        raise AssertionError("the score models were being fitted: the refusal came after work began")

    monkeypatch.setattr(spe.api, "fit_score_models", fit_started)


def _written(directory, *inputs):
    return sorted(p.name for p in directory.iterdir() if p.name not in inputs)


# --- silent wrong answers -----------------------------------------------------------------------------------------


def test_a_blank_line_in_row_numbered_scores_is_exit_2_not_a_shifted_answer(tmp_path, capsys):
    lines = (EXAMPLES / "digits_scores.csv").read_text().splitlines()
    scores = tmp_path / "s.csv"
    scores.write_text("score\n" + "\n".join(l.split(",")[1] for l in lines[1:50]) + "\n\n"
                      + "\n".join(l.split(",")[1] for l in lines[50:]) + "\n")
    labels = tmp_path / "l.csv"
    labels.write_text("id,label\n3,0\n700,1\n")
    rc, out, err = _run(["estimate", str(scores), "--labels", str(labels), "--json", str(tmp_path / "o.json")],
                        capsys)
    assert rc == 2 and f"{scores}, row 50: a blank line" in err and out == ""
    assert _written(tmp_path) == ["l.csv", "s.csv"]


def test_too_few_score_bins_are_refused(capsys):
    rc, _, err = _run(["estimate", SCORES, "--score-bins", "2"], capsys)
    assert rc == 2 and f"an integer ≥ {MIN_BINS['score_bins']}" in err
    with pytest.raises(SpeInputError, match="score_bins: must be"):
        spe.evaluate(np.arange(10.0), score_bins=3)
    with pytest.raises(SpeInputError, match="likelihood_bins: must be"):
        spe.evaluate(np.arange(10.0), likelihood_bins=MIN_BINS["likelihood_bins"] - 1)


def test_a_classifier_that_ranks_backwards_is_said_to(recwarn):
    s, y = simulate(800, 0.3, 1)
    idx = np.random.default_rng(2).choice(800, 30, replace=False)
    ev = spe.evaluate(-s, (idx, y[idx]), families="truncnorm,truncnorm", draws=100, rng=0, workers=1)
    assert any("ranks backwards" in w for w in ev.warnings)
    assert any("ranks backwards" in str(w.message) for w in recwarn)
    # a sensible one is not
    ok = spe.evaluate(s, (idx, y[idx]), families="truncnorm,truncnorm", draws=100, rng=0, workers=1)
    assert not any("ranks backwards" in w for w in ok.warnings)


# --- internal errors on ordinary input ----------------------------------------------------------------------------


@pytest.mark.slow
def test_scores_of_magnitude_1e20_are_decision_values_not_log_odds():
    s, y = simulate(400, 0.3, 3)
    lab = {int(i): int(y[i]) for i in np.random.default_rng(4).choice(400, 20, replace=False)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = spe.evaluate(s * 1e20, lab, draws=100, rng=0, workers=1)
        assert ev.diagnostics["score_type"] == "decision"
        stated = spe.evaluate(s * 1e20, lab, draws=100, rng=0, workers=1, score_type="log-odds")
    assert stated.diagnostics["score_type"] == "decision"
    assert any("cannot be log-odds" in w or "no computer holds" in w for w in stated.warnings)
    assert 0 <= ev.prevalence().mean <= 1


def test_the_recalibration_grid_keeps_its_mode_at_huge_log_posteriors():
    from spe.models.recalibration import fit_recalibration

    s = np.array([1e20, 3e20, -5e20, 2e20, -1e20])
    fm = fit_recalibration("calibrated", lambda v: np.asarray(v), s, np.arange(5), np.array([1, 1, 0, 1, 0]),
                           draws=100, rng=0)
    assert np.all(np.isfinite(fm.draws))


@pytest.mark.parametrize("value", [0.5, 1.5, -3.0])
def test_all_identical_scores_answer_from_the_labels_alone_whatever_the_value(value, capsys, tmp_path):
    labels = tmp_path / "l.csv"
    labels.write_text("id,label\n0,1\n5,0\n7,0\n100,1\n200,0\n")
    scores = tmp_path / "s.csv"
    scores.write_text("score\n" + f"{value}\n" * 899)
    for extra in (["--labels", str(labels)], []):
        out = tmp_path / "o.json"
        rc, stdout, err = _run(["estimate", str(scores), *extra, "--json", str(out), "--seed", "1"], capsys)
        assert rc == 0, err
        d = json.loads(out.read_text())
        assert any("all 899 scores are equal" in w for w in d["warnings"])
        assert d["roc_auc"]["lo"] == d["roc_auc"]["hi"] == 0.5
        assert d["families"] == {"negative": None, "positive": None}
        if extra:  # Beta(1 + 2, 1 + 3) for the prevalence, up to the 894 unlabeled labels drawn from it
            assert d["prevalence"]["mean"] == pytest.approx(stats.beta(3, 4).mean(), abs=0.02)
            assert d["prevalence"]["lo"] == pytest.approx(stats.beta(3, 4).ppf(0.05), abs=0.03)
        assert "SPE mixture: not fitted (all scores are equal)" in stdout
    rc, stdout, _ = _run(["threshold", str(scores), "--labels", str(labels), "--min-precision", "0.3",
                          "--seed", "1"], capsys)
    assert rc == 0 and ("best threshold" in stdout or "no threshold is likely" in stdout)
    rc, out, err = _run(["families", str(scores)], capsys)
    assert rc == 0 and "no ranking" in out and "nothing to rank" in err


@pytest.mark.parametrize("which, warning", [
    (None, "no labeled items"),
    (0, "no labeled positive items"),
    (1, "no labeled negative items"),
])
def test_degenerate_labels_answer_with_a_warning(tmp_path, capsys, which, warning):
    truth = pd.read_csv(EXAMPLES / "digits_truth.csv")
    labels = tmp_path / "l.csv"
    truth[truth["label"] == which].head(0 if which is None else 5).to_csv(labels, index=False)
    out = tmp_path / "o.json"
    rc, _, err = _run(["estimate", SCORES, "--labels", str(labels),
                       "--json", str(out), *FAST], capsys)
    assert rc == 0, err
    assert any(warning in w for w in json.loads(out.read_text())["warnings"])


def test_every_item_labeled_is_the_known_performance_with_a_warning():
    s, y = simulate(120, 0.3, 7)
    with pytest.warns(spe.SpeWarning, match="every one of the 120 items is labeled"):
        ev = spe.evaluate(s, y.astype(float), families="truncnorm,truncnorm", draws=100, rng=0, workers=1)
    assert ev.prevalence().lo == ev.prevalence().hi == pytest.approx(y.mean())
    assert ev.roc_auc().mean == pytest.approx(stats.mannwhitneyu(s[y == 1], s[y == 0]).statistic
                                              / (y.sum() * (120 - y.sum())))


def test_two_distinct_scores_per_class_answer(tmp_path, capsys):
    y = (np.random.default_rng(0).random(500) < 0.3).astype(int)
    scores = tmp_path / "s.csv"
    scores.write_text("score\n" + "".join(f"{v}\n" for v in y))
    labels = tmp_path / "l.csv"
    labels.write_text("id,label\n" + "".join(f"{i},{y[i]}\n" for i in range(0, 500, 25)))
    out = tmp_path / "o.json"
    rc, _, err = _run(["estimate", str(scores), "--labels", str(labels), "--json", str(out), "--draws", "100"],
                      capsys)
    assert rc == 0, err
    assert any("only two values" in w for w in json.loads(out.read_text())["warnings"])


@pytest.mark.parametrize("argv, warning", [
    (["--score-type", "probability"], "said to be probabilities"),
    (["--score-space", "logit"], "takes the logit of probability scores"),
])
def test_scores_outside_what_the_stated_type_allows_answer_with_a_warning(capsys, tmp_path, argv, warning):
    out = tmp_path / "o.json"
    rc, _, err = _run(["estimate", SCORES, "--labels", LABELS, "--json", str(out), *FAST, *argv], capsys)
    assert rc == 0, err
    assert any(warning in w for w in json.loads(out.read_text())["warnings"])


# --- outputs: checked before the work, all or nothing -------------------------------------------------------------


@pytest.mark.parametrize("argv, message", [
    (["--json", ""], "--json: the file name is empty"),
    (["--json", "{tmp}"], "is a directory"),
    (["--json", "{tmp}/missing/o.json"], "does not exist"),
    (["--json", "{tmp}/o.json", "--items", "{tmp}/o.json"], "--json also names"),
    (["--json", SCORES], "is the scores file"),
    (["--items", LABELS], "is the labels file"),
    (["--plot", "-"], "--plot: cannot go to standard output"),
    (["--json", "-", "--items", "-"], "only one output can go to standard output"),
    (["--report", SCORES], "exists and is not a directory"),
    (["--report", str(EXAMPLES.parent)], "already holds README.md"),
    (["--plot", "{tmp}/p.txt"], "--plot: {tmp}/p.txt: the suffix names no image format"),
    (["--items", "{tmp}/" + "x" * 300 + ".csv"], "--items: the file name is longer than the 255 bytes"),
])
def test_bad_outputs_are_refused_before_any_work(tmp_path, capsys, monkeypatch, argv, message):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    message = message.replace("{tmp}", str(tmp_path))
    _no_fit(monkeypatch)
    other = ("--items", "first.csv") if "--items" not in argv else ("--plot", "first.png")  # would have been fine
    rc, out, err = _run(["estimate", SCORES, "--labels", LABELS, other[0], str(tmp_path / other[1]), *argv],
                        capsys)
    assert rc == 2 and message in err and err.count("\n") == 1 and out == ""
    assert list(tmp_path.iterdir()) == []


def test_an_unwritable_directory_is_refused_before_any_work(tmp_path, capsys, monkeypatch):
    import tempfile

    real = tempfile.mkstemp

    def read_only(*a, dir=None, **k):
        if str(dir) == str(tmp_path / "ro"):
            raise PermissionError(13, "Permission denied")
        return real(*a, dir=dir, **k)

    (tmp_path / "ro").mkdir()
    monkeypatch.setattr(tempfile, "mkstemp", read_only)
    rc, _, err = _run(["estimate", SCORES, "--json", str(tmp_path / "o.json"), "--plot",
                       str(tmp_path / "ro" / "p.png")], capsys)
    assert rc == 2 and "--plot: cannot write in" in err and "Permission denied" in err
    assert _written(tmp_path) == ["ro"] and list((tmp_path / "ro").iterdir()) == []


def test_a_failure_while_writing_leaves_no_file(tmp_path, capsys, monkeypatch):
    import spe.output as output

    real = output._stage_file
    calls = []

    def fail_second(dest, data):
        calls.append(dest)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        return real(dest, data)

    monkeypatch.setattr(output, "_stage_file", fail_second)
    rc, _, err = _run(["estimate", SCORES, "--labels", LABELS, "--json", str(tmp_path / "o.json"), "--items",
                       str(tmp_path / "i.csv"), *FAST], capsys)
    expected = f"spe estimate: error: --items: cannot write {tmp_path / 'i.csv'} (No space left on device)\n"
    assert rc == 2 and err == expected
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="Linux's /dev/full")
def test_a_device_that_refuses_the_data_is_named(capsys):
    rc, _, err = _run(["estimate", SCORES, "--labels", LABELS, "--json", "/dev/full", *FAST], capsys)
    assert rc == 2 and err == "spe estimate: error: --json: cannot write /dev/full (No space left on device)\n"


def test_json_to_standard_output_and_the_summary_to_standard_error(capsys):
    rc, out, err = _run(["estimate", SCORES, "--labels", LABELS, "--json", "-", "--seed", "3", *FAST], capsys)
    assert rc == 0
    d = json.loads(out)
    assert d["n_items"] == 899 and "prevalence" in err and d["diagnostics"]["seed"] == 3


def test_writing_to_a_device_writes_in_place(capsys):
    rc, out, _ = _run(["estimate", SCORES, "--labels", LABELS, "--json", os.devnull, "--seed", "3", *FAST], capsys)
    assert rc == 0 and f"wrote {os.devnull}" in out
    assert os.path.exists(os.devnull) and not os.path.isfile(os.devnull)


# --- limits, messages, reproducibility ----------------------------------------------------------------------------


def test_more_draws_than_memory_holds_are_refused_at_once(capsys, monkeypatch):
    _no_fit(monkeypatch)
    for draws in ("1000000000", str(2 ** 63)):
        rc, _, err = _run(["estimate", SCORES, "--draws", draws], capsys)
        assert rc == 2 and "--draws:" in err and "of memory" in err and "use at most about" in err


def test_workers_beyond_the_cores_are_capped_with_a_note(capsys, tmp_path):
    out = tmp_path / "o.json"
    rc, stdout, _ = _run(["estimate", SCORES, "--labels", LABELS, "--json", str(out), "--workers", "1000",
                          "--families", "truncnorm,truncnorm", "--draws", "100", "--seed", "0"], capsys)
    assert rc == 0 and "note: workers=1000 is more than the" in stdout
    capped = json.loads(out.read_text())
    rc, _, _ = _run(["estimate", SCORES, "--labels", LABELS, "--json", str(out), "--workers", "1",
                     "--families", "truncnorm,truncnorm", "--draws", "100", "--seed", "0"], capsys)
    one = json.loads(out.read_text())
    capped["diagnostics"].pop("notes"), one["diagnostics"].pop("notes", None)
    assert capped == one


@pytest.mark.parametrize("argv, message", [
    ([""], "the file name of the scores is empty"),
    ([SCORES, "--score-column", "id"], "cannot be the id column 'id'"),
    ([SCORES, "--score-column", "nope"], "no column 'nope'"),
    ([SCORES, "--seed", "-1"], "argument --seed: expected a non-negative integer"),
    ([SCORES, "--level", "1"], "argument --level: expected a number strictly between 0 and 1"),
    ([SCORES, "--threshold", "nan"], "argument --threshold: expected a finite number"),
    ([SCORES, "--families", "gamma"], "--families: must be 'auto', 'all' or 'NEGATIVE,POSITIVE'"),
    ([SCORES, "--families", "gamma,nope"], "--families: unknown family 'nope'"),
])
def test_unclear_messages_now_name_what_is_wrong(capsys, argv, message):
    rc, out, err = _run(["estimate", *argv], capsys)
    assert rc == 2 and message in err and err.count("\n") == 1 and "Traceback" not in err


def test_the_seed_used_is_printed_and_stored_and_repeats_the_run(capsys, tmp_path):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    rc, out, _ = _run(["estimate", SCORES, "--labels", LABELS, "--json", str(first), *FAST], capsys)
    seed = json.loads(first.read_text())["diagnostics"]["seed"]
    assert rc == 0 and f"seed: {seed} (--seed {seed}" in out
    rc, _, _ = _run(["estimate", SCORES, "--labels", LABELS, "--json", str(second), *FAST, "--seed", str(seed)],
                    capsys)
    assert json.loads(first.read_text()) == json.loads(second.read_text())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g = spe.evaluate(np.arange(50.0), draws=100, families="truncnorm,truncnorm", workers=1,
                         rng=np.random.default_rng(9))
        again = spe.evaluate(np.arange(50.0), draws=100, families="truncnorm,truncnorm", workers=1,
                             rng=g.diagnostics["seed"])
    assert g.to_dict() == again.to_dict()


def test_an_internal_error_is_exit_1_in_one_line(capsys, monkeypatch):
    import spe.api

    def broken(*a, **k):
        raise RuntimeError("something\nunexpected")

    monkeypatch.setattr(spe.api, "evaluate", broken)
    rc, _, err = _run(["estimate", SCORES], capsys)
    assert rc == 1 and err == ("spe: internal error: RuntimeError: something unexpected (please report it; "
                               "SPE_DEBUG=1 shows where)\n")
    monkeypatch.setenv("SPE_DEBUG", "1")
    with pytest.raises(RuntimeError):
        main(["estimate", SCORES])


def test_the_score_histogram_survives_an_infinite_density():
    """A component collapsed onto tied scores: exp(logpdf) overflows (nan_to_num makes it 1.8e308), and the y
    limit 1.12 × that was inf, which matplotlib refused (the choosing_families notebook on a new machine)."""
    import dataclasses

    import matplotlib

    matplotlib.use("Agg")
    from spe.plot import SPIKE_CAP, plot_score_histogram

    s, y = simulate(300, 0.3, 5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = spe.evaluate(s, {0: int(y[0]), 1: int(y[1])}, families="truncnorm,truncnorm", draws=100, rng=0,
                          workers=1)
    dens = ev.class_densities()
    spike = dataclasses.replace(dens.positive, hi=np.where(np.arange(dens.positive.hi.size) == 5,
                                                            np.finfo(float).max, dens.positive.hi))
    huge = dataclasses.replace(dens, positive=spike, total=dataclasses.replace(dens.total, hi=spike.hi))
    ev.class_densities = lambda level=None, points=400: huge
    ax = plot_score_histogram(ev)
    bars = np.histogram(s, np.linspace(s.min(), s.max(), 61), density=True)[0].max()
    assert np.isfinite(ax.get_ylim()[1]) and ax.get_ylim()[1] <= 1.12 * SPIKE_CAP * bars * 1.5
    ax.figure.savefig(io.BytesIO(), format="png")


@pytest.mark.slow
def _wait_until_importing_numpy(pid, timeout=30.0):
    """Return once the process ``pid`` has mapped numpy's core library: it is past the interpreter's own start-up
    (an interrupt there is Python's, before any of spe runs; it took 0.2-0.25 s on a loaded 2-core machine) and
    inside the imports of ``spe.cli``. Without /proc (not Linux): half a second."""
    maps = Path(f"/proc/{pid}/maps")
    if not maps.exists():
        time.sleep(0.5)
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if "_multiarray_umath" in maps.read_text():
                return
        except OSError:  # the process ended
            return
        time.sleep(0.002)
    raise AssertionError(f"the command did not import numpy within {timeout} s")


def _wait_until_the_group_is_gone(pgid, timeout=30.0):
    """Return once no process of the group ``pgid`` is left; fail after ``timeout`` seconds (a loaded machine
    takes longer than an idle one to end forked workers, so this waits rather than looking once)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    raise AssertionError(f"processes of the group {pgid} were still running {timeout} s after the command ended")


@pytest.mark.skipif(sys.platform == "win32", reason="process groups and SIGINT")
def test_ctrl_c_exits_130_in_one_line_with_no_files_and_no_children(tmp_path):
    n = 100_000
    rng = np.random.default_rng(0)
    (tmp_path / "s.csv").write_text("score\n" + "\n".join(map(repr, rng.normal(size=n).tolist())) + "\n")
    out = tmp_path / "out"
    out.mkdir()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for delay in (None, 2.0):
        # exact label draws (O(M · N), several seconds), so that the second interrupt lands mid-work: the default
        # binned run of these 10⁵ items can finish within 2 s on a fast machine
        p = subprocess.Popen([sys.executable, "-m", "spe", "estimate", str(tmp_path / "s.csv"), "--json",
                              str(out / "o.json"), "--items", str(out / "i.csv"), "--score-bins", "exact"],
                             cwd=tmp_path, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        if delay is None:
            _wait_until_importing_numpy(p.pid)  # the first: while the command's modules load
        else:
            time.sleep(delay)
        os.killpg(p.pid, signal.SIGINT)
        _, err = p.communicate(timeout=30)
        assert p.returncode == 130 and err == b"spe: interrupted\n", (delay, err)
        assert list(out.iterdir()) == []
        _wait_until_the_group_is_gone(p.pid)  # no process of its group is left (its workers exit on their own)


def test_an_interrupt_a_library_swallows_is_still_an_interrupt(capsys, monkeypatch):
    """PyMC, interrupted while sampling, catches the KeyboardInterrupt and raises ValueError("Not enough samples
    to build a trace"): that was exit 1, an internal error."""
    import spe.api

    def sampler_that_swallows(*a, **k):
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)
        except KeyboardInterrupt:
            raise ValueError("Not enough samples to build a trace.") from None

    monkeypatch.setattr(spe.api, "evaluate", sampler_that_swallows)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # SIG_IGN when pytest runs in the background
    try:
        rc, _, err = _run(["estimate", SCORES], capsys)
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back
    finally:
        signal.signal(signal.SIGINT, before)
    assert rc == 130 and err == "spe: interrupted\n"


def test_an_interrupt_swallowed_whole_still_ends_the_run_with_nothing_written(tmp_path, capsys, monkeypatch):
    """A Ctrl-C that a library (or a callback whose errors Python discards) swallows entirely: the work goes on to
    its end, and the command still exits 130 without writing its outputs."""
    import spe.api

    real = spe.api.evaluate

    def evaluate_that_swallows(*a, **k):
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)
        except KeyboardInterrupt:
            pass
        return real(*a, **k)

    monkeypatch.setattr(spe.api, "evaluate", evaluate_that_swallows)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # SIG_IGN when pytest runs in the background
    try:
        rc, _, err = _run(["estimate", SCORES, "--json", str(tmp_path / "o.json"), "--draws", "200",
                           "--families", "truncnorm,truncnorm"], capsys)
    finally:
        signal.signal(signal.SIGINT, before)
    assert rc == 130 and err == "spe: interrupted\n"
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    rc, _, err = _run(["estimate", SCORES, "--json", str(tmp_path / "o.json"), "--draws", "200",
                     "--families", "truncnorm,truncnorm"], capsys)
    assert rc == 0 and (tmp_path / "o.json").exists(), err  # the next command in this process is not affected


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT")
def test_a_command_started_ignoring_ctrl_c_keeps_ignoring_it(tmp_path):
    """A shell starts a background job (``spe estimate ... &``), or nohup a command, with Ctrl-C ignored: a
    Ctrl-C to the terminal's foreground job must not stop it."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.Popen([sys.executable, "-m", "spe", "estimate", SCORES, "--draws", "200", "--json",
                          str(tmp_path / "o.json")], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    time.sleep(1.5)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    assert (tmp_path / "o.json").exists()


def test_more_likelihood_bins_than_scores_are_capped():
    from spe.api import resolve_likelihood_bins

    assert resolve_likelihood_bins(10_000_000, 899) == 2 * 899
    assert resolve_likelihood_bins(1000, 30) == MIN_BINS["likelihood_bins"]
    assert resolve_likelihood_bins(200, 899) == 200


# --- found by an independent sweep of ~600 inputs after the first fixes ------------------------------------------


def test_a_note_never_lands_in_json_on_standard_output(capsys):
    rc, out, err = _run(["estimate", SCORES, "--compare-labeled-only", "--json", "-", *FAST], capsys)
    assert rc == 0 and json.loads(out)["n_labeled"] == 0
    assert "note: --compare-labeled-only: there are no labeled items to compare with" in err


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="Linux's /dev/full")
def test_a_refusing_device_leaves_the_other_outputs_unwritten(tmp_path, capsys):
    rc, _, err = _run(["estimate", SCORES, "--labels", LABELS, "--items", str(tmp_path / "i.csv"), "--report",
                       str(tmp_path / "R"), "--json", "/dev/full", *FAST], capsys)
    assert rc == 2 and "--json: cannot write /dev/full" in err
    assert list(tmp_path.iterdir()) == []


def test_an_output_that_reaches_an_input_through_proc_is_refused(tmp_path, capsys, monkeypatch):
    if not os.path.exists("/proc/self/cwd"):
        pytest.skip("no /proc")
    (tmp_path / "s.csv").write_bytes((EXAMPLES / "digits_scores.csv").read_bytes())
    monkeypatch.chdir(tmp_path)
    rc, _, err = _run(["estimate", "s.csv", "--json", "/proc/self/cwd/s.csv"], capsys)
    assert rc == 2 and "is the scores file" in err


def test_an_ascii_console_gets_escapes_not_an_error(tmp_path, monkeypatch):
    buf = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(buf, encoding="ascii"))
    rc = main(["estimate", SCORES, "--labels", LABELS, "--items", str(tmp_path / "i.csv"), *FAST])
    sys.stdout.flush()
    assert rc == 0 and b"Pareto k\\u0302" in buf.getvalue()


def test_families_answer_degenerate_scores_with_a_warning(tmp_path, capsys):
    (tmp_path / "s.csv").write_text("score\n" + "0.5\n" * 5)
    rc, out, err = _run(["families", str(tmp_path / "s.csv"), "--json", str(tmp_path / "f.json"), "--seed", "1"],
                        capsys)
    d = json.loads((tmp_path / "f.json").read_text())
    assert rc == 0 and d["pairs"] == [] and "all scores are equal" in d["warnings"][0]
    assert "warning:" not in out and "spe families: warning: no pair" in err  # warnings on standard error


def test_a_report_directory_with_a_folder_where_a_file_goes_is_refused_first(tmp_path, capsys):
    (tmp_path / "R" / "items.csv").mkdir(parents=True)
    (tmp_path / "R" / "README.md").write_text("# spe estimate: an earlier report\n")
    rc, _, err = _run(["estimate", SCORES, "--report", str(tmp_path / "R")], capsys)
    assert rc == 2 and "items.csv, which is not a file" in err
    assert sorted(p.name for p in (tmp_path / "R").iterdir()) == ["README.md", "items.csv"]


def test_no_command_is_one_line(capsys):
    rc, out, err = _run([], capsys)
    assert rc == 2 and out == "" and err.count("\n") == 1 and "name a command" in err


def test_truth_and_requirement_are_used_or_said_to_be_unused(capsys, tmp_path):
    out = tmp_path / "o.json"
    rc, stdout, _ = _run(["estimate", SCORES, "--labels", LABELS, "--truth", str(EXAMPLES / "digits_truth.csv"),
                          "--requirement", "0.9,0.5", "--json", str(out), *FAST], capsys)
    truth = pd.read_csv(EXAMPLES / "digits_truth.csv")["label"].to_numpy()
    from sklearn.metrics import average_precision_score

    scores = pd.read_csv(SCORES)["score"].to_numpy()
    d = json.loads(out.read_text())
    assert rc == 0 and d["truth"]["average_precision"] == pytest.approx(average_precision_score(truth, scores))
    assert "truth (every label known): prevalence 0.097" in stdout and "note: --requirement is drawn" in stdout


def test_negative_numbers_in_exponent_form_and_repeated_options(capsys, tmp_path):
    rc, stdout, err = _run(["estimate", SCORES, "--labels", LABELS, "--threshold", "-1e-05", *FAST], capsys)
    assert rc == 0 and "at threshold -1e-05" in stdout, err
    rc, _, err = _run(["estimate", SCORES, "--json", str(tmp_path / "a.json"), "--json", str(tmp_path / "b.json")],
                      capsys)
    assert rc == 2 and "argument --json: given twice" in err and list(tmp_path.iterdir()) == []


def test_an_undefined_metric_says_so():
    s, y = simulate(60, 0.3, 8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = spe.evaluate(s, np.zeros(60), families="truncnorm,truncnorm", draws=100, rng=0, workers=1)
    assert str(ev.roc_auc()) == "undefined (no draw defines it)" and "ROC AUC            undefined" in ev.summary()


# --- issue 48: internal errors and confusing refusals on ordinary input -----------------------------------------


@pytest.mark.parametrize("command", ["estimate", "threshold", "compare", "suggest", "plan", "calibrate",
                                     "prevalence", "families", "list"])
def test_an_unknown_option_is_refused_by_the_command_that_got_it(capsys, command):
    argv = {"list": [command], "plan": [command, SCORES, "--width", "0.2"]}.get(command, [command, SCORES])
    rc, out, err = _run([*argv, "--foo"], capsys)
    assert rc == 2 and out == ""
    assert err == f"spe {command}: error: unrecognized arguments: --foo (see spe {command} --help)\n"


def test_a_repeated_score_column_or_name_is_refused_naming_the_option(tmp_path, capsys):
    two = tmp_path / "two.parquet"
    frame = pd.read_csv(SCORES)
    frame.assign(b=frame["score"] * 2).to_parquet(two)
    out = tmp_path / "o.json"
    for argv, message in [(["--score-columns", "score,score"], "--score-columns: 'score' is named twice"),
                          (["--score-columns", "score, b,b"], "--score-columns: 'b' is named twice"),
                          (["--score-columns", "score,b", "--names", "x,x"], "--names: 'x' is named twice")]:
        for command, more in [("compare", ["--json"]), ("suggest", ["--out"]), ("plan", ["--width", "0.2", "--json"])]:
            rc, _, err = _run([command, str(two), *argv, "--labels", LABELS, *more, str(out)], capsys)
            assert rc == 2 and message in err and err.count("\n") == 1, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["two.parquet"]
    from spe.io import read_score_columns

    with pytest.raises(SpeInputError, match="the score column 'b' is asked for twice"):
        read_score_columns(two, ["b", "score", "b"])


def test_an_empty_parquet_scores_file_is_named_not_the_labels(tmp_path, capsys):
    empty = tmp_path / "empty.parquet"
    pd.read_csv(SCORES).iloc[:0].to_parquet(empty)
    for labels in ([], ["--labels", LABELS]):
        rc, _, err = _run(["estimate", str(empty), *labels, *FAST], capsys)
        assert rc == 2 and err == f"spe estimate: error: {empty}: has no rows: no scores to evaluate\n"


@pytest.mark.parametrize("option", ["--labels", "--truth", "--reference"])
def test_a_parquet_file_given_as_labels_is_said_to_be_parquet(tmp_path, capsys, option):
    labels = tmp_path / "labels.parquet"
    pd.read_csv(LABELS).to_parquet(labels)
    extra = ["--labels", LABELS] if option != "--labels" else []
    rc, _, err = _run(["estimate", SCORES, *extra, option, str(labels), *FAST], capsys)
    what = option.strip("-")
    assert rc == 2 and "not UTF-8" not in err
    assert err == f"spe estimate: error: {labels}: looks like a Parquet file, not CSV: the {what} file must be CSV " \
                  "text: save it as CSV\n"


def test_parquet_scores_under_a_csv_name_are_said_to_be_parquet(tmp_path, capsys):
    scores = tmp_path / "scores.csv"
    pd.read_csv(SCORES).to_parquet(scores)
    rc, _, err = _run(["estimate", str(scores), *FAST], capsys)
    assert rc == 2 and "looks like a Parquet file, not CSV: scores in Parquet are read from a file named " \
                       "*.parquet" in err


def test_one_fold_is_refused_naming_folds_and_its_range(capsys, tmp_path):
    rc, _, err = _run(["calibrate", SCORES, "--labels", LABELS, "--compare", "--folds", "1", "--json",
                       str(tmp_path / "o.json")], capsys)
    assert rc == 2 and "argument --folds: expected an integer ≥ 2" in err and "--labels" not in err
    assert list(tmp_path.iterdir()) == []
    from spe.calibration import compare_methods

    s, y = simulate(60, 0.3, 1)
    for folds in (1, np.int64(1), 2.5, True):
        with pytest.raises(SpeInputError, match=r"^folds: must be an integer ≥ 2 .*, got (1|2\.5|True)$"):
            compare_methods(s, y, methods=["platt"], folds=folds)
    assert compare_methods(s, y, methods=["platt"], folds=2.0).folds == 2


def _message(call):
    try:
        call()
    except SpeInputError as e:
        return str(e)
    raise AssertionError("no SpeInputError")


def test_messages_show_numpy_scalars_as_plain_numbers():
    """Issue 48: `got np.int64(-1)` in a message; a value taken from an array prints as the number it is."""
    from spe.active.plan import check_goal
    from spe.baselines import labeled_only
    from spe.calibration import make
    from spe.exceptions import plain

    assert [repr(plain(v)) for v in (np.int64(-1), np.float64(1.5), np.str_("a"), np.array(3), np.bool_(True))] \
        == ["-1", "1.5", "'a'", "3", "True"]
    assert plain([1]) == [1] and plain("a") == "a"
    s, y = simulate(40, 0.3, 2)
    cases = {
        "labels: labels must be 0 or 1, got -1": lambda: make("platt").fit(s, np.r_[y[:-1], -1]),
        "scores: score nan is not finite": lambda: make("platt").fit(np.r_[s[:-1], np.nan], y),
        "width: must be a number > 0, got -1.0": lambda: check_goal("ap", width=np.float64(-1)),
        "probability: must be a number in (0.5, 1), got 2.0":
            lambda: check_goal("threshold:0.9,0.5", probability=np.float64(2)),
        "workers: must be None (all usable cores) or a positive integer, got -1":
            lambda: spe.evaluate(s, None, workers=np.int64(-1)),
        "n_bootstrap: must be an integer ≥ 100, got 5":
            lambda: labeled_only(s, [0, 1], [0, 1], n_bootstrap=np.int64(5)),
    }
    for expected, call in cases.items():
        text = _message(call)
        assert text == expected and "np." not in text, text


# --- odd but valid files give the answer of the clean ones (issue 48) ----------------------------------------------


def _odd_copy(text, odd):
    """``text`` (a CSV file's text, '\\n' line ends) written the odd way: Windows line ends, a UTF-8 byte order
    mark, or both."""
    if odd in ("crlf", "both"):
        text = text.replace("\n", "\r\n")
    return (("\ufeff" if odd in ("bom", "both") else "") + text).encode()


@pytest.fixture(scope="module")
def clean_estimate(tmp_path_factory):
    """300 of the digits' items with their labels, and the JSON of `spe estimate` on them (seed 5)."""
    d = tmp_path_factory.mktemp("clean")
    scores = pd.read_csv(SCORES).iloc[:300]
    labels = pd.read_csv(LABELS)
    labels = labels[labels["id"].isin(scores["id"])]
    scores.to_csv(d / "s.csv", index=False)
    labels.to_csv(d / "l.csv", index=False)
    assert main(["estimate", str(d / "s.csv"), "--labels", str(d / "l.csv"), "--json", str(d / "o.json"),
                 "--seed", "5", *FAST]) == 0
    return d, scores, labels, json.loads((d / "o.json").read_text())


@pytest.mark.parametrize("odd", ["crlf", "bom", "both"])
def test_windows_line_ends_and_a_byte_order_mark_give_the_same_answer(clean_estimate, tmp_path, capsys, odd):
    d, _, _, clean = clean_estimate
    for name in ("s.csv", "l.csv"):
        (tmp_path / name).write_bytes(_odd_copy((d / name).read_text(), odd))
    rc, _, err = _run(["estimate", str(tmp_path / "s.csv"), "--labels", str(tmp_path / "l.csv"), "--json",
                       str(tmp_path / "o.json"), "--seed", "5", *FAST], capsys)
    assert rc == 0, err
    assert json.loads((tmp_path / "o.json").read_text()) == clean  # every number, to the last digit


def test_shuffled_rows_with_ids_match_the_same_items_and_give_the_same_answer(clean_estimate, tmp_path, capsys):
    """Shuffled rows (and labels) with ids: every item keeps its score and label (read back from --items by id),
    and the estimate is the clean file's to the last digit (the fit reads the scores in score order)."""
    d, scores, labels, clean = clean_estimate
    scores.sample(frac=1, random_state=1).to_csv(tmp_path / "s.csv", index=False)
    labels.sample(frac=1, random_state=2).to_csv(tmp_path / "l.csv", index=False)
    rc, _, err = _run(["estimate", str(tmp_path / "s.csv"), "--labels", str(tmp_path / "l.csv"), "--items",
                       str(tmp_path / "items.csv"), "--json", str(tmp_path / "o.json"), "--seed", "5", *FAST], capsys)
    assert rc == 0, err
    items = pd.read_csv(tmp_path / "items.csv").set_index("id")
    assert items["score"].to_dict() == scores.set_index("id")["score"].to_dict()
    assert items.loc[labels["id"], "probability"].tolist() == labels["label"].astype(float).tolist()
    got = json.loads((tmp_path / "o.json").read_text())
    assert {k: got[k] for k in ("prevalence", "average_precision", "pr_curve")} == \
        {k: clean[k] for k in ("prevalence", "average_precision", "pr_curve")}
