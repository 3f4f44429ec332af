"""spe — Bayesian semisupervised performance evaluation of classifiers.

From all of a classifier's scores on a data set and a few labels, estimate
its performance on that data set with credible bands (Welinder, Welling &
Perona 2013). Start with :func:`spe.evaluate`.

The names below are imported on first use (PEP 562), so that ``import spe``
and ``spe --help`` stay fast and an interrupt while the command starts is
caught by the command itself.
"""

from importlib import import_module

#: The version, written only here: the package metadata reads it (pyproject.toml, [tool.setuptools.dynamic]).
__version__ = "0.1.0"

#: public name → the module that defines it
_LAZY = {
    "evaluate": "api",
    "fit_scores": "api",
    "compare": "comparison",
    "monitor": "monitoring",
    "Monitoring": "monitoring",
    "Comparison": "comparison",
    "Evaluation": "evaluation",
    "MulticlassEvaluation": "multiclass",
    "evaluate_multiclass": "multiclass",
    "MulticlassComparison": "multiclass",
    "compare_multiclass": "multiclass",
    "Interval": "evaluation",
    "CurveBand": "evaluation",
    "load": "saved",
    "SavedEvaluation": "saved",
    "SavedComparison": "saved",
    "labeled_only": "baselines",
    "LabeledOnly": "baselines",
    "SpeInputError": "exceptions",
    "NotSavedError": "exceptions",
    "SpeWarning": "exceptions",
    "ImportanceSamplingWarning": "exceptions",
    "MixtureFitError": "exceptions",
}

__all__ = [*_LAZY, "__version__"]


def __getattr__(name):
    if name in _LAZY:
        value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
