"""The share of positives in the pool: classify-and-count, its adjusted form, SLD/EMQ and SPE's posterior, each
with an interval, next to the labeled items' own fraction.

:func:`estimate_prevalence` (one method) and :func:`compare_prevalence` (all of them side by side); the
methods, in the order of ``spe prevalence --compare``: ``labeled``, ``cc``, ``acc``, ``sld``, ``spe``. A new
method is one module ending with ``register(Method(...))``, imported below.
"""

from .base import REGISTRY, Method, PrevalenceEstimate, compare_prevalence, estimate_prevalence, register  # noqa: F401
from . import labeled, counting, emq, semisupervised  # noqa: F401,E402
from .emq import sld  # noqa: F401

__all__ = ["REGISTRY", "Method", "PrevalenceEstimate", "estimate_prevalence", "compare_prevalence", "register", "sld"]
