"""Score models: each yields weighted posterior draws of p(y = 1 | s) for every item."""

from .mixture import Mixture, MixtureData, ScoreSpace

__all__ = ["Mixture", "MixtureData", "ScoreSpace"]
