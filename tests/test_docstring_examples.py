"""The examples in the public docstrings run and print what they say (doctest; each of three fits a model:
slow)."""

import doctest
import importlib
import importlib.util
import pkgutil

import pytest

MODULES = ["spe.api", "spe.comparison", "spe.evaluation", "spe.parallel"]


@pytest.mark.slow
@pytest.mark.parametrize("name", MODULES)
def test_the_docstring_examples_hold(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0, result


def test_every_module_with_examples_is_listed():
    import spe

    found = {m.name for m in pkgutil.walk_packages(spe.__path__, "spe.")
             if ">>>" in (importlib.util.find_spec(m.name).loader.get_source(m.name) or "")}
    assert found == set(MODULES)
