"""Multiclass score models (plug-ins), one module each; importing this package registers them in
:data:`~.base.CLASS_MODELS`, in import order (the order of the average and of the models' random streams)."""

from .base import CLASS_MODELS, ClassModel, FittedClassModel, register
from . import stated, temperature, vector, dirichlet, top_label, contaminated  # noqa: F401  (registers)

__all__ = ["CLASS_MODELS", "ClassModel", "FittedClassModel", "register"]
