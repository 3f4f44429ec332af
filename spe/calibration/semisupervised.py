"""SPE's own item probabilities as a calibrator: semisupervised, from every score and the labels.

``fit`` runs :func:`spe.evaluate` on the labeled and unlabeled scores together (the pool) with the labels;
``predict_proba`` gives the posterior-mean probability p̂(y = 1 | s) = Σ_m w_m p(y = 1 | s, θ_m) under the
averaged score models' weighted draws (Welinder et al. 2013, §4.4; the models and their averaging as in
``docs/how-it-works.md``). Unlike :meth:`spe.Evaluation.item_probabilities` it does not replace a labeled
item's probability by its label: it is the calibration map, applied to any score.
"""

from __future__ import annotations

import numpy as np

from .base import Calibrator, register

__all__ = ["SemisupervisedSPE"]


class SemisupervisedSPE(Calibrator):
    """SPE's semisupervised calibration map: spe.evaluate on the labeled and unlabeled scores (Welinder et al. §4.4).

    Parameters
    ----------
    score_type : as :func:`spe.evaluate`
    draws : int
        M, posterior draws.
    rng : int, numpy.random.Generator or None
        The seed of the estimate (as ``spe.evaluate(rng=)``).
    options : dict, optional
        Further keyword arguments of :func:`spe.evaluate` (``families``, ``score_model``, ``reference``, …).

    Attributes
    ----------
    evaluation_ : spe.Evaluation
        The estimate behind the map (its diagnostics, warnings and curves).

    Examples
    --------
    >>> import numpy as np
    >>> from spe.calibration import SemisupervisedSPE
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(1000) < 0.2
    >>> s = np.where(y, rng.normal(2, 1, 1000), rng.normal(0, 1, 1000))
    >>> cal = SemisupervisedSPE(draws=200, options={"families": "truncnorm,truncnorm"})
    >>> cal = cal.fit(s[:30], y[:30].astype(int), unlabeled_scores=s[30:])
    >>> p = cal.positive_probability([-1.0, 3.0])
    >>> bool(p[0] < 0.5 < p[1])
    True
    """

    def __init__(self, score_type="auto", draws=1000, rng=0, options=None):
        super().__init__(score_type)
        self.draws = draws
        self.rng = rng
        self.options = options

    def needs_labels(self):
        """False with a reference set in ``options`` (its labels teach the map; the pool's may be none)."""
        return (self.options or {}).get("reference") is None

    def _fit(self, feature, labels, unlabeled_feature, scores, unlabeled_scores):
        from ..api import evaluate

        pool = scores if unlabeled_scores is None else np.concatenate([scores, unlabeled_scores])
        self.evaluation_ = evaluate(pool, (np.arange(labels.size), labels), draws=self.draws,
                                    rng=self.rng, score_type=self.score_type, **(self.options or {}))

    def _positive(self, feature, scores):
        from ..performance import weighted_positive_probability

        at, inverse = np.unique(scores, return_inverse=True)
        ev = self.evaluation_
        return weighted_positive_probability(ev.model, at, ev.weights)[inverse]


register("spe", SemisupervisedSPE)
