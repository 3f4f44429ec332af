"""Score models: each yields weighted posterior draws of p(y = 1 | s) for every item.

Importing this package registers them (:mod:`spe.models.registry`), in the order of the imports below: the
order of the models in the average and of their random streams. A new score model is one new module here,
imported last.
"""

from .mixture import Mixture, MixtureData, ScoreSpace
from . import recalibration, piecewise, contaminated, constant, reference  # noqa: F401  (registers, in this order)

__all__ = ["Mixture", "MixtureData", "ScoreSpace"]
