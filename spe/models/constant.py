r"""The score model of scores that do not rank the items: p(y = 1 | s) = π for every score.

It is the whole answer when every item has the same score, and one of the
candidates :func:`spe.evaluate` averages otherwise (``"uninformative"``): the
null hypothesis that the classifier carries no information about these
items' labels (a collapsed training run: ROC AUC 0.5). Every other score
model assumes the classifier ranks sensibly (slope b > 0), so without it the
ROC AUC interval of a collapsed classifier could not reach 0.5.

When every item has the same score the classifier says nothing about which
items are positive: the SPE mixture has nothing to fit (its two components
cannot be told apart), and every recalibration of the score is a constant.
What is left is the prevalence, known from the labeled items alone:

.. math::
    \pi \sim \mathrm{Beta}(\alpha, \beta),\qquad
    \pi \mid Y_L \sim \mathrm{Beta}(\alpha + k,\ \beta + n - k)

with k positives among the n labeled items and the SPE mixture's uniform
prior α = β = 1 on the prevalence (Welinder et al. 2013, eq. 4). The
unknown labels are then drawn Binomial(N − n, π) per draw of π (eq. 7 with
a constant p(y = 1 | s)). The draws are exact (independent, equal weights);
the evidence is the Beta-Binomial marginal likelihood

.. math::
    p(Y_L) = B(\alpha + k, \beta + n - k) / B(\alpha, \beta),

and the leave-one-out predictive of item i is
(α + k₋ᵢ) / (α + β + n − 1) for a positive (k₋ᵢ the positives among the others).
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .base import FittedScoreModel
from .registry import ScoreModel, register

__all__ = ["fit_constant", "NAME"]

#: The model's name in tables (``score_model="uninformative"`` in :func:`spe.evaluate`).
NAME = "prevalence only"


def fit_constant(labeled_value, *, draws=1000, rng=None, prior=(1.0, 1.0)):
    """Exact posterior draws of the prevalence-only model (see the module docstring).

    Parameters
    ----------
    labeled_value : 0/1 array, shape (n,)
        The labels of the labeled items (n may be 0).
    draws : int
        M.
    rng : numpy.random.Generator, int or None
    prior : (float, float)
        (α, β) of the Beta prior on the prevalence π.

    Returns
    -------
    FittedScoreModel
        Draws of π (M, 1), equal weights; ``probability(d, s)`` is π for
        every score (M', B); ``log_evidence`` = log p(Y_L); ``loo`` (n,).
    """
    rng = np.random.default_rng(rng)
    y = np.asarray(labeled_value, dtype=int)
    n, k = y.size, int(np.sum(y == 1))
    a, b = float(prior[0]), float(prior[1])
    pi = rng.beta(a + k, b + n - k, size=int(draws))[:, None]

    log_evidence = float(special.betaln(a + k, b + n - k) - special.betaln(a, b))
    k_others = k - y
    p_one = (a + k_others) / (a + b + n - 1)
    loo = np.where(y == 1, np.log(p_one), np.log1p(-p_one)) if n else np.zeros(0)
    diagnostics = {"model": NAME, "inference": "exact", "draws": int(draws), "ess": float(draws),
                   "pareto_k": None, "prior": [a, b], "posterior": [a + k, b + n - k]}
    return FittedScoreModel(name=NAME, draws=pi, weights=np.full(int(draws), 1.0 / int(draws)),
                            probability=_constant_probability, diagnostics=diagnostics, param_names=["prevalence"],
                            constrained_draws=pi.copy(), log_evidence=log_evidence, loo=loo)


def _fit_registered(data, rng):
    return fit_constant(data.labeled_value, draws=data.draws, rng=rng)


#: Weight of the uninformative model above which the summary says the scores may not rank the items at all.
WARNING_WEIGHT = 0.2


def _report(fitted, entry, alone):
    """A warning when the labels give real weight to "the scores say nothing about the labels"."""
    if alone or entry["weight"] < WARNING_WEIGHT:
        return {}, []
    return {}, [f"the labeled items are about as probable if the scores carried no information about the labels "
                f"(that model has weight {entry['weight']:.2f}): the classifier may not rank these items at all "
                f"(ROC AUC near 0.5), and the intervals include that; label more items to tell"]


register(ScoreModel(name="uninformative", fit=_fit_registered, report=_report,
                    about="says the scores carry no information (prevalence only)"))


def _constant_probability(d, s):
    """π for every score, (M', 1) × (B,) → (M', B)."""
    return np.repeat(np.asarray(d, dtype=float)[:, :1], np.asarray(s).size, axis=1)
