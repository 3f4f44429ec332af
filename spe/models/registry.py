"""Score models as plug-ins: each declares itself once, and ``spe.evaluate``, the CLI and the docs read the list here.

A score model gives weighted posterior draws of p(y = 1 | s) for every item
(a :class:`~spe.models.base.FittedScoreModel`, the seam). It is one module
in ``spe/models/`` that ends with::

    register(ScoreModel(name="mine", fit=_fit, about="one line for --help"))

where ``_fit(data, rng)`` takes a :class:`~spe.models.features.LabeledScores`
and a ``numpy.random.Generator`` and returns the fitted model (or None when
the data leave it nothing to fit), and the module is imported in
``spe/models/__init__.py``. The order of those imports is the order of the
models in the average and of their random streams (one per model, spawned
in this order), so a new model goes last.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..registries import add_unique

__all__ = ["ScoreModel", "REGISTRY", "register", "score_model_names"]


def _always(data):
    return True


@dataclass(frozen=True)
class ScoreModel:
    """A score model, as the registry knows it.

    Attributes
    ----------
    name : str
        Its name in ``score_model=``, ``--score-model``, tables and the JSON.
    fit : callable
        ``fit(data: LabeledScores, rng: numpy.random.Generator) -> FittedScoreModel | None``.
    about : str
        What it assumes, in one line (the CLI's ``--help``).
    uses_mixture : bool
        Whether it needs the SPE mixture fitted first (``data.mixture``): the mixture's fit is the slow part of an
        estimate, skipped when no model asked for it uses it.
    averaged : callable
        ``averaged(data) -> bool``: whether ``score_model="average"`` includes it for these data (e.g. not the
        log-odds reading of decision values, not the reference model without a reference set).
    needs_reference : bool
        It cannot be fitted without a reference set: asked for alone without one, ``spe.evaluate`` raises
        ``SpeInputError``.
    learns_from_reference : bool
        Given a labeled reference set, the model is also fitted on the reference's labels and carried to the
        pool under label shift (:mod:`spe.models.shift`; in the average as ``reference-<name>``): it reads the
        map from the score alone, with ``data.labeled_weights``, so it can.
    report : callable or None
        ``report(fitted, entry, alone) -> (diagnostics, messages)``: what the model adds to the estimate's
        diagnostics (a dict merged into them) and to its warnings (a list of str), from its
        ``FittedScoreModel``, its entry of ``diagnostics["score_models"]`` (weight, label check, why it was
        left out) and whether it is the only model fitted.
    """

    name: str
    fit: Callable
    about: str
    uses_mixture: bool = False
    averaged: Callable = _always
    needs_reference: bool = False
    learns_from_reference: bool = False
    report: Callable | None = None


#: Every registered score model by name, in registration order.
REGISTRY: dict[str, ScoreModel] = {}


def register(model):
    """Add a :class:`ScoreModel` to :data:`REGISTRY` (a module calls this once, when imported); returns it.

    Raises
    ------
    ValueError
        If another model already has its name, or it is named "average" (the name of the averaged model).
    """
    if model.name == "average":
        raise ValueError("a score model named 'average' is already registered (the averaged model)")
    return add_unique(REGISTRY, model.name, model, "score model")


def score_model_names():
    """The registered score models' names, in order (tuple of str)."""
    return tuple(REGISTRY)
