"""The SPE mixture (Welinder, Welling & Perona 2013): the model, its fit, the choice of its families, its checks.

:mod:`~spe.models.mixture.model` is the generative model (eqs. 2–4) and its
score space; :mod:`~spe.models.mixture.fit` fits it end to end (MAP,
importance sampling or NUTS, the histogram check and tempering, evidence);
:mod:`~spe.models.mixture.select` chooses the family pair (paper §4.2),
:mod:`~spe.models.mixture.ranking` ranks the families for ``spe families``
(Table 1), and :mod:`~spe.models.mixture.check` checks the score histogram.
Importing the package registers the mixture as the score model "mixture".
"""

from .model import (BLOCK_ELEMENTS, LOG_ODDS_LIMIT, PROBABILITY_TOLERANCE, SCORE_SPACES, SCORE_TYPES, START_SAMPLE,
                    TOP_DROP, Mixture, MixtureData, MixtureFit, ScoreSpace, clipped_probabilities, logit_clip,
                    natural_threshold, outward_envelope, pivot_index, resolve_score_reading, resolve_score_type)

__all__ = ["BLOCK_ELEMENTS", "LOG_ODDS_LIMIT", "PROBABILITY_TOLERANCE", "SCORE_SPACES", "SCORE_TYPES", "START_SAMPLE",
           "TOP_DROP", "Mixture", "MixtureData", "MixtureFit", "ScoreSpace", "clipped_probabilities", "logit_clip",
           "natural_threshold", "outward_envelope", "pivot_index", "resolve_score_reading", "resolve_score_type"]
