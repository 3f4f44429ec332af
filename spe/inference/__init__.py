"""Inference: MAP search and importance sampling (PyMC/NUTS arrives separately)."""

from .map import MapResult, find_map, hessian
from .importance import PosteriorDraws, importance_sample, psis, psis_loo

__all__ = ["MapResult", "find_map", "hessian", "PosteriorDraws", "importance_sample", "psis", "psis_loo"]
