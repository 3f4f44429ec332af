"""The site's API reference shows the docstrings' Sphinx roles as code and links, none as written
(docs/griffe_roles.py, the Griffe extension that mkdocs.yml gives mkdocstrings)."""

import re

import pytest

from .conftest import ROOT

griffe = pytest.importorskip("griffe")  # a docs dependency

ANY_ROLE = re.compile(r":[a-z]+(?::[a-z]+)?:`")


def _objects(obj):
    yield obj
    for member in obj.members.values():
        if not member.is_alias:
            yield from _objects(member)


def test_no_docstring_keeps_a_sphinx_role():
    extension = griffe.load_extensions(str(ROOT / "docs" / "griffe_roles.py"))
    package = griffe.load("spe", extensions=extension, search_paths=[str(ROOT)], docstring_parser="numpy")
    left = [obj.path for obj in _objects(package) if obj.docstring and ANY_ROLE.search(obj.docstring.value)]
    assert not left, f"roles the extension does not read, in {left}"
    evaluation = package["evaluation.Evaluation"].docstring.value
    # resolved from the docstring's scope, through the package's names imported on first use
    assert '<autoref identifier="spe.api.evaluate" optional>`spe.evaluate`</autoref>' in evaluation
