"""Inference: MAP search and importance sampling (PyMC/NUTS arrives separately)."""

from .map import MapResult, find_map, hessian
from .importance import PROPOSALS, PosteriorDraws, importance_sample, psis, psis_log_predictive, psis_loo

#: The samplers of the SPE mixture's posterior: importance sampling around the MAP (the paper's) or NUTS (PyMC).
INFERENCE_METHODS = ("importance", "nuts")

__all__ = ["MapResult", "find_map", "hessian", "PosteriorDraws", "importance_sample", "psis", "psis_loo",
           "psis_log_predictive", "INFERENCE_METHODS", "PROPOSALS"]
