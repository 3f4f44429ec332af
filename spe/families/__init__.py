"""Class-conditional families (plug-ins). Importing this package registers them.

A new family is one new module here (subclass :class:`Family` with a
``name``) plus its name in the import list below; nothing else changes.
"""

from .base import REGISTRY, Family, Param, family_names, get_family
from . import truncnorm, gamma, asymlaplace, beta, truncnorm2  # noqa: F401  (registers)
from . import trunct, lognormal, gumbel, gompertz, frechet, asymgauss  # noqa: F401  (registers)

__all__ = ["Family", "Param", "REGISTRY", "get_family", "family_names"]
