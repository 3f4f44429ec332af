"""The README's Python examples run as written (from the repository root)."""

import re
import warnings

from .conftest import ROOT


def test_readme_python_blocks_run(monkeypatch, capsys):
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert blocks, "the README has Python examples"
    monkeypatch.chdir(ROOT)
    scope = {"__name__": "__main__"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for block in blocks:
            exec(compile(block, "README.md", "exec"), scope)
    assert "prevalence" in capsys.readouterr().out
