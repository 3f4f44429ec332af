"""The README runs as written (from the repository root): its Python example, and every shell command."""

import json
import re
import shlex
import warnings

import pytest

from spe.cli import main
from spe.output import json_bytes

from .conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
PYTHON_BLOCKS = re.findall(r"```python\n(.*?)```", README, re.S)
SHELL_LINES = [line.strip() for block in re.findall(r"```bash\n(.*?)```", README, re.S)
               for line in block.splitlines() if line.strip() and not line.lstrip().startswith("#")]
SPE_COMMANDS = [line for line in SHELL_LINES if line.startswith("spe ")]
# not run here: installing (and, after it on the same line, the test suite itself)
NOT_RUN = ("pip install ", "python -m pip install ")

# the README's first command: the estimate the Python example repeats
FIRST_ESTIMATE = "spe estimate examples/digits_scores.csv --labels examples/digits_labels.csv"


def test_every_readme_shell_line_is_a_spe_command_or_an_install():
    """So that a new command in the README cannot escape the test below."""
    others = [line for line in SHELL_LINES if line not in SPE_COMMANDS]
    assert SPE_COMMANDS and all(line.startswith(NOT_RUN) for line in others), others


def _run(command, cwd, monkeypatch):
    """Run one README ``spe`` command in ``cwd`` (where examples/ is the repository's): its exit status."""
    (cwd / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(cwd)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return main(shlex.split(command)[1:])


@pytest.mark.slow  # every command end to end: about a minute in all on 2 cores
@pytest.mark.parametrize("command", SPE_COMMANDS, ids=[" ".join(c.split()[:2]) for c in SPE_COMMANDS])
def test_readme_command_runs(command, tmp_path, monkeypatch):
    assert _run(command, tmp_path, monkeypatch) == 0
    words = shlex.split(command)
    for option in ("--json", "--plot", "--report", "--out"):
        if option in words:
            assert (tmp_path / words[words.index(option) + 1]).stat().st_size > 0, option


def test_readme_python_example_gives_the_commands_answer(tmp_path, monkeypatch, capsys):
    """The Python example reads the same files as the first command and, with the same seed, gives its numbers:
    ``ev.to_dict()`` is what ``--json`` wrote."""
    assert PYTHON_BLOCKS, "the README has Python examples"
    (command,) = [c for c in SPE_COMMANDS if c.startswith(FIRST_ESTIMATE) and "--json" in c]
    assert "--seed 0" in command and "rng=0" in PYTHON_BLOCKS[0]
    assert _run(command, tmp_path, monkeypatch) == 0
    words = shlex.split(command)
    written = json.loads((tmp_path / words[words.index("--json") + 1]).read_text())
    monkeypatch.chdir(ROOT)
    scope = {"__name__": "__main__"}
    capsys.readouterr()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for block in PYTHON_BLOCKS:
            exec(compile(block, "README.md", "exec"), scope)
    assert "prevalence" in capsys.readouterr().out
    ev = scope["ev"]
    assert ev.n_labeled == written["n_labeled"] == 20
    assert ev.to_dict()["prevalence"] == written["prevalence"]
    assert json.loads(json_bytes(ev.to_dict())) == written
