"""Property-based bad-input suite (Hypothesis): generated score and label files and options through `spe estimate`.

Every generated case is run in-process through ``main(argv)`` and must end with exit status 0 or 2, print no
traceback, say a bad input in one line, write nothing on exit 2, and, on exit 0, attach every label to the item
the user meant and keep every score as written (read back from ``--items``, where a labeled item's probability
is its label). A case built valid must be answered (exit 0); a case with a defect that would shift the answer
if it were read past (a blank line among row-numbered scores, a non-number, a label other than 0/1, an id that
is not there) must be refused (exit 2).

The CI profile runs a fixed set of ``SPE_PROPERTY_EXAMPLES`` cases (default 120; derandomized, so CI does not
flake); ``HYPOTHESIS_PROFILE=explore`` draws new ones each run.
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass, field

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from spe.cli import main

EXAMPLES = int(os.environ.get("SPE_PROPERTY_EXAMPLES", "120"))  # more: SPE_PROPERTY_EXAMPLES=1000
QUICK_EXAMPLES = 25
settings.register_profile("ci", max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                 HealthCheck.function_scoped_fixture])
settings.register_profile("explore", parent=settings.get_profile("ci"), derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@dataclass
class Case:
    """A generated input: the files' bytes, the options, what the user meant, and whether it is valid."""

    scores: bytes
    labels: bytes | None
    options: list
    meant_scores: list  # float per item, in file order
    meant_ids: list  # the id of each item as labels refer to it (the id, or the row number)
    meant_labels: dict  # id → 0/1
    with_ids: bool = False
    defects: list = field(default_factory=list)  # what makes the case bad input ([] = valid)


FINITE = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e12, max_value=1e12, width=64)

SCORE_SETS = {
    "normal": lambda draw, n: draw(st.lists(FINITE, min_size=n, max_size=n)),
    "probability": lambda draw, n: draw(st.lists(st.floats(0, 1), min_size=n, max_size=n)),
    "tied": lambda draw, n: draw(st.lists(st.sampled_from([0.0, 0.25, 1.0, 3.5]), min_size=n, max_size=n)),
    "identical": lambda draw, n: [draw(st.sampled_from([0.0, 0.5, 1.0, 1.5, -7.0]))] * n,
    "binary": lambda draw, n: draw(st.lists(st.sampled_from([0.0, 1.0]), min_size=n, max_size=n)),
    "huge": lambda draw, n: draw(st.lists(st.floats(-1e25, 1e25, allow_nan=False), min_size=n, max_size=n)),
    "tiny": lambda draw, n: draw(st.lists(st.floats(-1e-200, 1e-200), min_size=n, max_size=n)),
    "separated": lambda draw, n: list(np.linspace(-3, 3, n)),
}

FAMILIES = ["truncnorm,truncnorm", "gamma,asymlaplace", "asymlaplace,truncnorm", "truncnorm,gamma"]


def _score_token(draw, v):
    """How a number may be written: repr, 6 significant digits, an integer, padded, exponent form."""
    style = draw(st.sampled_from(["repr", "g", "pad", "e"]))
    text = {"repr": repr(v), "g": f"{v:.6g}", "pad": f"  {v!r} ", "e": f"{v:.17e}"}[style]
    return text, float(text)


@st.composite
def cases(draw, kind=None):
    n = draw(st.integers(4, 40))
    kind = draw(st.sampled_from(sorted(SCORE_SETS))) if kind is None else kind
    event(f"scores: {kind}")
    values = SCORE_SETS[kind](draw, n)
    with_ids = draw(st.booleans())
    ids = draw(st.lists(st.text("abcxyz0123456789_-.", min_size=1, max_size=8), min_size=n, max_size=n,
                        unique=True)) if with_ids else None
    tokens, meant_scores = zip(*(_score_token(draw, float(v)) for v in values))
    rows = [[i, t] for i, t in zip(ids, tokens)] if with_ids else [[t] for t in tokens]
    header = ["id", "score"] if with_ids else ["score"]
    if draw(st.booleans()):  # an extra column the reader ignores
        header.append("note")
        rows = [r + ["x"] for r in rows]
    meant_ids = list(ids) if with_ids else [str(i) for i in range(n)]
    case = Case(b"", None, [], list(meant_scores), meant_ids, {}, with_ids)
    lines = [",".join(header)] + [",".join(r) for r in rows]
    lines = _score_defects(draw, case, lines, with_ids)
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    bom = "\ufeff" if draw(st.booleans()) and draw(st.booleans()) else ""
    case.scores = (bom + newline.join(lines) + newline).encode()
    _labels(draw, case, len(case.meant_ids))
    _options(draw, case)
    return case


def _score_defects(draw, case, lines, with_ids):
    """Maybe one defect in the scores file (recorded), or a harmless blank line."""
    kind = draw(st.sampled_from(["none"] * 20 + ["blank", "trailing-blank", "nan", "text", "empty", "inf",
                                                "duplicate-id", "no-column", "header-only"]))
    n = len(lines) - 1
    at = draw(st.integers(1, n))
    if kind == "trailing-blank":
        return lines + [""]
    if kind == "blank":
        lines = lines[:at] + [draw(st.sampled_from(["", "   "]))] + lines[at:]
        if not with_ids:
            case.defects.append("blank line among row-numbered scores")
        return lines
    if kind in ("nan", "text", "empty", "inf"):
        bad = {"nan": "nan", "text": "abc", "empty": "", "inf": "-inf"}[kind]
        cells = lines[at].split(",")
        cells[1 if with_ids else 0] = bad
        lines[at] = ",".join(cells)
        if lines[at] == "" and at == n:  # the last score left out of a one-column file: a trailing blank line
            del case.meant_scores[-1], case.meant_ids[-1]
            return lines
        case.defects.append(f"score {bad!r}" if lines[at] else "blank line among row-numbered scores")
        return lines
    if kind == "duplicate-id" and with_ids and n > 1:
        cells = lines[at].split(",")
        cells[0] = lines[1 if at != 1 else 2].split(",")[0]
        lines[at] = ",".join(cells)
        case.defects.append("duplicate id")
        return lines
    if kind == "no-column":
        lines[0] = lines[0].replace("score", "value")
        case.defects.append("no score column")
        return lines
    if kind == "header-only":
        case.defects.append("no rows")
        return lines[:1]
    return lines


def _labels(draw, case, n):
    """A labels file (or none) naming some items, maybe with one defect."""
    if draw(st.integers(0, 5)) == 0:
        return
    k = draw(st.integers(0, min(n, 15)))
    chosen = draw(st.lists(st.integers(0, n - 1), min_size=k, max_size=k, unique=True))
    lab = {case.meant_ids[i]: draw(st.integers(0, 1)) for i in chosen}
    rows = [[i, str(v) if draw(st.integers(0, 4)) else f"{v}.0"] for i, v in lab.items()]
    kind = draw(st.sampled_from(["none"] * 20 + ["blank", "unknown-id", "bad-label", "duplicate", "no-column"]))
    if kind == "blank" and rows:
        rows.insert(draw(st.integers(0, len(rows))), [""])
    elif kind == "unknown-id":
        rows.append(["no-such-item" if case.with_ids else str(n + 3), "1"])  # outside the ids' alphabet
        case.defects.append("unknown id")
    elif kind == "bad-label" and rows:
        rows[0][1] = draw(st.sampled_from(["2", "yes", "", "-1", "0.5"]))
        if rows[0][1] == "-1" and all(lab[r[0]] == 1 for r in rows[1:]):
            lab[rows[0][0]] = 0  # labels -1 and 1: scikit-learn's -1/1, -1 the negative class
        else:
            case.defects.append("bad label")
    elif kind == "duplicate" and rows:
        rows.append(list(rows[0]))
        case.defects.append("duplicate label")
    header = "id,label" if kind != "no-column" else "id,lab"
    if kind == "no-column":
        case.defects.append("no label column")
    case.labels = ("\n".join([header] + [",".join(r) for r in rows]) + "\n").encode()
    case.meant_labels = lab


def _options(draw, case):
    """Fast valid options, maybe one more valid one, maybe one bad one (recorded)."""
    opts = ["--families", draw(st.sampled_from(FAMILIES)), "--draws", str(draw(st.integers(100, 150))),
            "--workers", "1", "--seed", str(draw(st.integers(0, 2**32)))]
    extra = draw(st.sampled_from(["none", "score-type", "score-space", "score-model", "level", "bins", "monotone",
                                  "compare", "threshold", "performance"]))
    opts += {"none": [], "score-type": ["--score-type", draw(st.sampled_from(["probability", "log-odds",
                                                                             "decision", "auto"]))],
             "score-space": ["--score-space", draw(st.sampled_from(["logit", "auto", "linear"]))],
             "score-model": ["--score-model", draw(st.sampled_from(["mixture", "platt", "hybrid", "calibrated"]))],
             "level": ["--level", str(draw(st.floats(0.5, 0.99)))], "bins": ["--score-bins", "exact"],
             "monotone": ["--no-monotone", "--no-tempering"], "compare": ["--compare-labeled-only"],
             "threshold": [f"--threshold={draw(FINITE)!r}"],  # '=': argparse takes '-1e-05' for an option
             "performance": ["--performance", "population"]}[extra]
    bad = draw(st.sampled_from(["none"] * 20 + ["draws", "level", "bins", "workers", "seed", "families", "json"]))
    bad_opts = {"draws": ["--draws", draw(st.sampled_from(["0", "99", "-5", "x", str(10**12)]))],
                "level": ["--level", draw(st.sampled_from(["0", "1", "1.5", "nan", "-0.1"]))],
                "bins": ["--score-bins", draw(st.sampled_from(["2", "0", "-1", "many"]))],
                "workers": ["--workers", draw(st.sampled_from(["0", "-2", "two"]))],
                "seed": ["--seed", draw(st.sampled_from(["-1", "1.5", "abc"]))],
                "families": ["--families", draw(st.sampled_from(["gamma", "nope,gamma", ","]))],
                "json": ["--json", draw(st.sampled_from(["", "{dir}", "{scores}", "{items}"]))]}
    if bad != "none":
        opts += bad_opts[bad]
        case.defects.append(f"option {bad}")
    case.options = opts


def _read_items(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.mark.slow
@given(case=cases())
def test_generated_inputs_are_answered_as_meant_or_refused_in_one_line(case, tmp_path_factory, capsys):
    _check(case, tmp_path_factory, capsys)


@settings(max_examples=QUICK_EXAMPLES)
@given(case=cases())
def test_generated_inputs_quick_tier(case, tmp_path_factory, capsys):
    """A few generated cases in the quick tier (``-m "not slow"``), other ones than the full suite's."""
    _check(case, tmp_path_factory, capsys)


@pytest.mark.parametrize("kind", sorted(SCORE_SETS))
@settings(max_examples=3)
@given(data=st.data())
def test_every_kind_of_scores_is_generated_and_answered(kind, data, tmp_path_factory, capsys):
    """Each kind of scores at least a few times: the derandomized draws of the full suite favour the first kinds
    of ``sampled_from`` (120 cases drew no "normal" scores and one "tiny")."""
    _check(data.draw(cases(kind)), tmp_path_factory, capsys)


def _check(case, tmp_path_factory, capsys):
    d = tmp_path_factory.mktemp("case")
    (d / "scores.csv").write_bytes(case.scores)
    argv = ["estimate", str(d / "scores.csv"), "--items", str(d / "items.csv")]
    inputs = {"scores.csv"}
    if case.labels is not None:
        (d / "labels.csv").write_bytes(case.labels)
        argv += ["--labels", str(d / "labels.csv")]
        inputs.add("labels.csv")
    argv += [o.format(dir=d, scores=d / "scores.csv", items=d / "items.csv") for o in case.options]
    rc = main(argv)
    out, err = capsys.readouterr()
    event(f"exit {rc}" + (f" ({case.defects[0]})" if case.defects else ""))
    assert rc in (0, 2), err
    assert "Traceback" not in err and "Traceback" not in out
    if rc == 2:
        assert err.count("\n") == 1 and err.startswith("spe"), err
        assert {p.name for p in d.iterdir()} == inputs, "nothing is written on exit 2"
        assert case.defects, f"a valid case was refused: {err}"
        return
    assert not case.defects, f"a defective case was answered: {case.defects}"
    items = _read_items(d / "items.csv")
    assert [float(r["score"]) for r in items] == case.meant_scores
    assert [r["id"] for r in items] == case.meant_ids
    by_id = {r["id"]: float(r["probability"]) for r in items}
    assert {i: by_id[i] for i in case.meant_labels} == {i: float(v) for i, v in case.meant_labels.items()}
    assert all(0.0 <= p <= 1.0 for p in by_id.values())
    assert "seed: " in out


@pytest.mark.parametrize("text", ["", "\n", "score\n", "\ufeff", "id,score\n\n\n", "score\n\x00\x01\n",
                                  "score,score\n1,2\n3,4\n5,6\n7,8\n", '"score\n1\n2\n', "score\n1\n2\n3\n4\r"])
def test_odd_files_are_answered_or_refused_in_one_line(tmp_path, capsys, text):
    (tmp_path / "s.csv").write_text(text)
    rc = main(["estimate", str(tmp_path / "s.csv"), "--draws", "100", "--families", "truncnorm,truncnorm",
               "--workers", "1", "--json", str(tmp_path / "o.json")])
    out, err = capsys.readouterr()
    assert rc in (0, 2) and "Traceback" not in err
    if rc == 2:
        assert err.count("\n") == 1 and sorted(p.name for p in tmp_path.iterdir()) == ["s.csv"]


# --- every command (issue 48) ---------------------------------------------------------------------------------------

#: Fast options per command that reads a scores file; each writes its one output to ``{out}`` (a JSON file or a
#: CSV), which must exist after exit 0 and must not after exit 2.
FIT = ["--families", "truncnorm,truncnorm", "--draws", "100", "--workers", "1"]
COMMANDS = {
    "estimate": (FIT + ["--json", "{out}"], "o.json"),
    "threshold": (FIT + ["--min-precision", "0.5", "--json", "{out}"], "o.json"),
    "compare": (FIT + ["--names", "a,b", "--json", "{out}"], "o.json"),
    "suggest": (FIT + ["-k", "2", "--out", "{out}"], "next.csv"),
    "plan": (FIT + ["--width", "0.3", "--futures", "10", "--max-labels", "3", "--json", "{out}"], "plan.json"),
    "calibrate": (["--method", "platt", "--out", "{out}"], "p.csv"),
    "prevalence": (["--method", "cc", "--json", "{out}"], "o.json"),
    "families": (["--top", "2", "--workers", "1", "--json", "{out}"], "o.json"),
}
#: Output paths that must be refused before any work: (the option's value, given the case's directory).
BAD_OUTPUTS = ["", "{dir}", "{scores}", "{dir}/no/such/dir/o.json"]


@st.composite
def command_cases(draw, command):
    """A generated scores file and labels (:func:`cases`: odd and bad files alike) for ``command``, its fast
    options, and maybe a bad output path or an odd option."""
    case = draw(cases())
    options, out_name = COMMANDS[command]
    options = list(options)
    if draw(st.integers(0, 5)) == 0:
        options[options.index("{out}")] = draw(st.sampled_from(BAD_OUTPUTS))
        case.defects.append("bad output path")
    if draw(st.integers(0, 5)) == 0:
        options += draw(st.sampled_from([["--seed", "-1"], ["--score-column", "nope"], ["--score-type", "linear"],
                                         ["--labels", "{dir}/missing.csv"], ["--foo"]]))
        case.defects.append("bad option")
    return case, options, out_name


def _check_command(command, generated, tmp_path_factory, capsys):
    """Exit 0 or 2, never a traceback; on exit 2 one line naming the command and nothing written; on exit 0
    the output asked for written."""
    case, options, out_name = generated
    d = tmp_path_factory.mktemp(command)
    (d / "scores.csv").write_bytes(case.scores)
    inputs = {"scores.csv"}
    scores = [str(d / "scores.csv")] * (2 if command == "compare" else 1)
    argv = [command, *scores]
    if case.labels is not None:
        (d / "labels.csv").write_bytes(case.labels)
        argv += ["--labels", str(d / "labels.csv")]
        inputs.add("labels.csv")
    argv += [o.format(dir=d, scores=d / "scores.csv", out=d / out_name) for o in options]
    rc = main(argv)
    out, err = capsys.readouterr()
    event(f"{command}: exit {rc}")
    assert rc in (0, 2), err
    assert "Traceback" not in err and "Traceback" not in out
    if rc == 2:
        assert err.count("\n") == 1 and err.startswith(f"spe {command}: error: "), err
        assert {p.name for p in d.iterdir()} == inputs, "nothing is written on exit 2"
    else:
        assert (d / out_name).is_file(), "exit 0 wrote the output asked for"


@pytest.mark.parametrize("command", sorted(set(COMMANDS) - {"families"}))
@settings(max_examples=2)
@given(data=st.data())
def test_every_command_answers_or_refuses_generated_inputs_quick_tier(command, data, tmp_path_factory, capsys):
    """A couple of generated cases per command in the quick tier."""
    _check_command(command, data.draw(command_cases(command)), tmp_path_factory, capsys)


@settings(max_examples=1)
@given(data=st.data())
def test_spe_families_answers_or_refuses_a_generated_input_quick_tier(data, tmp_path_factory, capsys):
    """One case for ``spe families`` in the quick tier: it fits every family pair (about 10 s an answer)."""
    _check_command("families", data.draw(command_cases("families")), tmp_path_factory, capsys)


@pytest.mark.slow
@pytest.mark.parametrize("command", sorted(set(COMMANDS) - {"families"}))
@settings(max_examples=max(EXAMPLES // 15, 6))
@given(data=st.data())
def test_every_command_answers_or_refuses_generated_inputs(command, data, tmp_path_factory, capsys):
    _check_command(command, data.draw(command_cases(command)), tmp_path_factory, capsys)


@pytest.mark.slow
@settings(max_examples=max(EXAMPLES // 30, 4))
@given(data=st.data())
def test_spe_families_answers_or_refuses_generated_inputs(data, tmp_path_factory, capsys):
    """``spe families`` fits every family pair (about 6 s an answer): fewer cases than the other commands."""
    _check_command("families", data.draw(command_cases("families")), tmp_path_factory, capsys)


@given(what=st.one_of(st.sampled_from(["families", "score-models", "class-score-models", "metrics", "commands",
                                       "calibration", "prevalence"]), st.text(max_size=12)),
       json_out=st.sampled_from([None, "ok", "", "{dir}"]))
@settings(max_examples=12)
def test_spe_list_answers_or_refuses_any_argument(what, json_out, tmp_path_factory, capsys):
    d = tmp_path_factory.mktemp("list")
    argv = ["list", what] + ([] if json_out is None else ["--json", str(d / "o.json") if json_out == "ok"
                                                           else json_out.format(dir=d)])
    rc = main(argv)
    out, err = capsys.readouterr()
    assert rc in (0, 2) and "Traceback" not in err, err
    if rc == 2:
        assert err.count("\n") == 1 and err.startswith("spe"), err
        assert list(d.iterdir()) == []
    elif json_out == "ok":
        assert (d / "o.json").is_file()
