"""What the package declares (pyproject.toml) and ships: the license, the type marker, the dependencies."""

import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

import spe

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_mit_license_file_is_declared_and_shipped():
    project = PROJECT["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "Copyright (c) 2026 the spe developers" in text
    # a PEP 639 license expression needs setuptools 77 (older ones refuse it; newer refuse License classifiers)
    assert PROJECT["build-system"]["requires"] == ["setuptools>=77"]
    assert not any(c.startswith("License ::") for c in project["classifiers"])


def test_the_type_marker_is_package_data():
    assert (Path(spe.__file__).parent / "py.typed").is_file()
    assert "py.typed" in PROJECT["tool"]["setuptools"]["package-data"]["spe"]
    assert "Typing :: Typed" in PROJECT["project"]["classifiers"]


def _names(requirements):
    return {Requirement(r).name for r in requirements}


def test_arviz_is_an_optional_extra_and_arviz_stats_a_dependency():
    """The full ArviZ (with xarray, h5py, h5netcdf) only for to_inference_data and NUTS; PSIS, on every
    estimate, comes from arviz-stats, which needs only numpy and scipy."""
    project = PROJECT["project"]
    extras = project["optional-dependencies"]
    assert "arviz" not in _names(project["dependencies"]) and "arviz-stats" in _names(project["dependencies"])
    assert all("arviz" in _names(extras[name]) for name in ("arviz", "nuts", "test"))


def test_an_estimate_needs_neither_arviz_nor_xarray():
    """spe.evaluate and spe estimate with ArviZ and xarray unimportable (as without the extra spe[arviz])."""
    code = ("import sys\nfor m in ('arviz', 'xarray', 'pymc'):\n    sys.modules[m] = None\n"
            "import warnings, numpy as np, spe\nfrom spe.cli import main\n"
            "s = np.r_[np.random.default_rng(0).normal(0, 1, 300), np.random.default_rng(1).normal(2, 1, 60)]\n"
            "with warnings.catch_warnings():\n    warnings.simplefilter('ignore')\n"
            "    ev = spe.evaluate(s, {0: 0, 1: 0, 300: 1, 301: 1}, draws=100, rng=0)\n"
            f"code = main(['estimate', r'{ROOT / 'examples' / 'digits_scores.csv'}', '--labels', "
            f"r'{ROOT / 'examples' / 'digits_labels.csv'}', '--draws', '100', '--seed', '0'])\n"
            "print(ev.n_labeled, code, 0 < ev.average_precision().mean < 1)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[-1] == "4 0 True"
