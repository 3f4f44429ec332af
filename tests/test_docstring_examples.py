"""The examples in the public docstrings run and print what they say (doctest; they fit models: slow).

The queries' examples start from the ``ev`` of :class:`spe.Evaluation`'s example and the ``cmp`` of
:class:`spe.Comparison`'s, which run first and lend their names to the rest, as a reader of the docs reads
them."""

import doctest
import importlib
import importlib.util
import pkgutil
import warnings

import pytest

MODULES = ["spe.api", "spe.comparison", "spe.display", "spe.evaluation", "spe.monitoring", "spe.shared_reference", "spe.parallel", "spe.saved",
           "spe.calibration.platt", "spe.models.pooling",
           "spe.calibration.bennett", "spe.calibration.piecewise", "spe.calibration.isotonic",
           "spe.calibration.semisupervised", "spe.calibration.compare", "spe.prevalence.base"]
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@pytest.fixture(scope="module")
def setup_names():
    """The names the class examples of Evaluation and Comparison define (ev, cmp, ...)."""
    import spe

    names = {}
    for cls in (spe.Evaluation, spe.Comparison):
        test = doctest.DocTestParser().get_doctest(cls.__doc__, {}, cls.__name__, None, 0)
        runner = doctest.DocTestRunner(optionflags=FLAGS)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = runner.run(test, clear_globs=False)
        assert result.failed == 0, cls.__name__
        names.update(test.globs)
    return names


#: The class examples ``setup_names`` has run and checked (failed == 0): not run a second time with their module.
SETUP_EXAMPLES = {"spe.evaluation.Evaluation", "spe.comparison.Comparison"}


@pytest.mark.slow
@pytest.mark.parametrize("name", MODULES)
def test_the_docstring_examples_hold(name, setup_names):
    """doctest.testmod of the module (the same finder, globals and runner), less the two class examples that
    setup_names has already run and checked (they fit the models: running them twice only doubled the time)."""
    module = importlib.import_module(name)
    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner(verbose=False, optionflags=FLAGS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for test in finder.find(module, module.__name__, extraglobs=setup_names):
            if test.name not in SETUP_EXAMPLES:
                runner.run(test)
    result = doctest.TestResults(runner.failures, runner.tries)
    assert result.attempted > 0 and result.failed == 0, result


def test_every_module_with_examples_is_listed():
    import spe

    found = {m.name for m in pkgutil.walk_packages(spe.__path__, "spe.")
             if ">>>" in (importlib.util.find_spec(m.name).loader.get_source(m.name) or "")}
    assert found == set(MODULES)


def test_every_public_query_has_an_example():
    import spe

    for cls in (spe.Evaluation, spe.Comparison):
        missing = [n for n, f in vars(cls).items()
                   if not n.startswith("_") and callable(f) and ">>>" not in (f.__doc__ or "")]
        assert not missing, (cls.__name__, missing)
