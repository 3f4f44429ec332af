"""The notebooks run top to bottom in a Jupyter kernel (nbclient), stored without outputs.

Their run time (under two minutes each on the 2-core machine: quickstart ~10 s, choosing_families ~35 s,
reproduce_paper ~60 s, multiclass ~12 s) is a budget, measured, not asserted: the per-cell timeout only guards
against a hang. The test suite runs the quickstart; the docs build runs all of them (they are its tutorials).
"""

import nbformat
import pytest
from nbclient import NotebookClient

from .conftest import ROOT

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_the_tutorial_notebooks_exist():
    assert {p.name for p in NOTEBOOKS} >= {"quickstart.ipynb", "reproduce_paper.ipynb", "choosing_families.ipynb",
                                           "multiclass.ipynb"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebooks_are_stored_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    assert all(not c.get("outputs") and c.get("execution_count") is None
               for c in nb.cells if c.cell_type == "code"), "store notebooks without outputs"


@pytest.mark.slow
def test_the_quickstart_runs():
    """The first tutorial, run here; all three are run by the docs build (``mkdocs build --strict`` executes
    them, and a cell that raises fails it: see .ci/run)."""
    path = ROOT / "notebooks" / "quickstart.ipynb"
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=240, kernel_name=nb.metadata.get("kernelspec", {}).get("name", "python3"),
                   resources={"metadata": {"path": str(path.parent)}}).execute()  # raises on any cell's error
    figures = sum("image/png" in o.get("data", {}) for c in nb.cells for o in c.get("outputs", []))
    assert figures >= 1, "every notebook draws at least one figure"
    # in a notebook the estimate shows its progress under the cell (standard error), unasked
    progress = ["".join(o.get("text", "") for o in c.outputs if o.get("name") == "stderr")
                for c in nb.cells if c.cell_type == "code" and "spe.evaluate(" in c.source]
    assert any("drawing the unknown labels" in err for err in progress)
