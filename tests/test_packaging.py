"""What the package declares (pyproject.toml) and ships: the license, the type marker, the dependencies."""

import tomllib
from pathlib import Path

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
