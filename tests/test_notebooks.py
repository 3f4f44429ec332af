"""The notebooks run top to bottom (code cells executed in order, in the notebook's folder)."""

import json
import os
import warnings

import matplotlib
import pytest

from .conftest import ROOT

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path, monkeypatch):
    matplotlib.use("Agg")
    nb = json.loads(path.read_text())
    assert all(not c.get("outputs") for c in nb["cells"] if c["cell_type"] == "code"), "store notebooks without outputs"
    monkeypatch.chdir(path.parent)
    scope = {"__name__": "__main__"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                exec(compile("".join(cell["source"]), f"{path.name}", "exec"), scope)
    import matplotlib.pyplot as plt

    plt.close("all")
