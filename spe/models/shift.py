r"""A calibration map learned on a labeled reference set, carried to the pool under label shift.

A user with a labeled reference set (the validation set, last quarter) holds
R labels on the classifier's map p_ref(y = 1 | s), often tens of thousands.
Every score model that reads the map as a function of the score (the
recalibrations, the link models) learns it from those labels here: it is
fitted on the reference as on a fully labeled pool, its evidence is
p(Y_ref | S_ref) (so the reference's labels decide between the models),
and its posterior is carried to the pool under *label shift* (prior shift:
the class-conditional score densities are the reference's, the prevalence
may differ; Saerens, Latinne & Decaestecker 2002, eq. 2.4;
``../shared/papers/esuli2020_sld.txt``, eq. 3):

.. math::
    \operatorname{logit} P_{\text{pool}}(y = 1 \mid s) = \operatorname{logit} p_{\text{ref}}(s; \theta) + \delta,
    \qquad \delta = \operatorname{logit}\pi_{\text{pool}} - \operatorname{logit}\pi_{\text{ref}}(\theta),

with π_ref(θ) the mean of p_ref(s; θ) over the reference's scores. δ is
learned from the pool's scores, whose likelihood under label shift is the
one Saerens et al.'s EM maximises (their eq. 2.7),

.. math::
    \log p(S \mid \theta, \delta) = \sum_i \log\Big[\tfrac{\pi_{\text{pool}}}{\pi_{\text{ref}}}\, p_{\text{ref}}(s_i)
      + \tfrac{1 - \pi_{\text{pool}}}{1 - \pi_{\text{ref}}}\,(1 - p_{\text{ref}}(s_i))\Big] + \text{const},

raised to the power min(1, R / N) (the shift can be known no better than the
map it rests on: a coarsened posterior, Miller & Dunson 2019), with the prior
δ ~ N(0, :data:`SHIFT_PRIOR_SD`²); and from the pool's labels, which weigh
every draw by p(Y_L | θ, δ). Draws: θ from the model's posterior given the
reference, δ from a Student-t at the mode and scale of its conditional
given θ and the pool's scores (Newton's method, vectorised over draws),
each draw weighted by the exact ratio of the joint posterior to that
proposal, with Pareto smoothing. The model's evidence is

.. math::
    p(Y_{\text{ref}}, Y_L \mid S_{\text{ref}}, S) = p(Y_{\text{ref}} \mid S_{\text{ref}})\;
      p(Y_L \mid S, Y_{\text{ref}}, S_{\text{ref}}),

the second factor the importance-sampling estimate of the pool's labels'
predictive probability (1 without pool labels).

The reference set is compressed before the fit (:func:`compressed`): its
items grouped by score cell and class (exactly by distinct score when there
are at most :data:`CELLS` of them), so a fit on 10⁵ reference labels costs
what a fit on a few thousand does.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import numpy as np
from scipy import special, stats

from ..inference.importance import psis, psis_loo
from ..shared_reference import kept
from .average import systematic_resample
from .base import FittedScoreModel
from .features import LabeledScores
from .registry import REGISTRY

__all__ = ["PriorShiftLikelihood", "carry_to_pool", "ReferenceFits", "carried_models", "carried_name",
           "SHIFT_PRIOR_SD", "shift_power", "CARRIED_PREFIX", "ASSUMPTIONS"]

#: Prior sd of δ, the pool's log-odds shift from the reference (log-odds units; the ``calibrated`` model's
#: intercept prior).
SHIFT_PRIOR_SD = 1.5
#: Newton steps for the mode of δ.
NEWTON_STEPS = 40
#: Degrees of freedom of the Student-t proposal of δ around its Laplace approximation.
SHIFT_PROPOSAL_DF = 4
#: Probabilities are kept this far from 0 and 1 before taking logits.
EPS = 1e-12
#: A carried model's name is this prefix and the registered model's name (``reference-platt``), and under
#: covariate shift the suffix ``-covariate``.
CARRIED_PREFIX = "reference-"
#: What may differ between the reference set and the pool, by assumption name.
ASSUMPTIONS = {"label": "label shift (the class-conditional score densities are the reference's, the prevalence "
                        "may differ)",
               "covariate": "covariate shift (the map p(y = 1 | s) is the reference's, the scores' distribution "
                            "may differ)"}


class PriorShiftLikelihood:
    """The pool's score log-likelihood under label shift, in δ, vectorised over M draws of the map.

    ``p`` (M, K): the reference map p_ref(y = 1 | s) under each draw at the
    pool's K score cells; ``pi_ref`` (M,): the reference prevalence under each
    draw; ``counts`` (K,): the pool items in each cell; ``power``: the
    likelihood's power (module docstring). Saerens et al. (2002), eq. 2.7.
    """

    def __init__(self, p, pi_ref, counts, power):
        self.p = p
        self.pi_ref = np.asarray(pi_ref, dtype=float).reshape(-1, 1)
        self.a = self.p / self.pi_ref - (1 - self.p) / (1 - self.pi_ref)  # d ratio / d π_pool
        self.counts, self.power = np.asarray(counts, dtype=float), power

    def _parts(self, delta):
        pi = special.expit(special.logit(self.pi_ref) + delta[:, None])
        ratio = pi / self.pi_ref * self.p + (1 - pi) / (1 - self.pi_ref) * (1 - self.p)
        return pi, ratio

    def log_density(self, delta):
        """power · log p(S | p, δ) + log N(δ; 0, σ²): (M,) → (M,)."""
        _, ratio = self._parts(delta)
        return (self.power * (np.log(ratio) @ self.counts)
                + stats.norm.logpdf(delta, 0.0, SHIFT_PRIOR_SD))

    def derivatives(self, delta):
        """First and second derivatives of :meth:`log_density` in δ: two (M,)."""
        pi, ratio = self._parts(delta)
        g = (pi * (1 - pi)).reshape(-1, 1)
        d_ratio = g * self.a
        d2_ratio = g * (1 - 2 * pi) * self.a
        first = self.power * ((d_ratio / ratio) @ self.counts) - delta / SHIFT_PRIOR_SD ** 2
        second = self.power * ((d2_ratio / ratio - (d_ratio / ratio) ** 2) @ self.counts) - 1 / SHIFT_PRIOR_SD ** 2
        return first, second

    def laplace(self):
        """Mode and sd of δ (M,) each, by Newton's method from δ = 0 (the log density is concave near its mode)."""
        delta = np.zeros(self.p.shape[0])
        for _ in range(NEWTON_STEPS):
            first, second = self.derivatives(delta)
            step = np.clip(-first / np.minimum(second, -1e-12), -1.0, 1.0)
            delta = delta + step
            if np.max(np.abs(step)) < 1e-8:
                break
        return delta, 1 / np.sqrt(-np.minimum(self.derivatives(delta)[1], -1e-12))

    def draw(self, rng):
        """δ (M,) from the Student-t proposal, and log(posterior / proposal) of each draw (M,), up to a constant."""
        mode, sd = self.laplace()
        delta = mode + sd * rng.standard_t(SHIFT_PROPOSAL_DF, mode.size)
        return delta, self.log_density(delta) - stats.t.logpdf(delta, SHIFT_PROPOSAL_DF, mode, sd)


def shift_power(n_reference, n_pool):
    """min(1, R / N) for R reference and N pool items: the power of the pool scores' likelihood in δ, a coarsened
    likelihood (Miller & Dunson 2019; module docstring)."""
    return min(1.0, n_reference / max(n_pool, 1.0))


def _logit(p):
    return special.logit(np.clip(p, EPS, 1 - EPS))


def carry_to_pool(fitted, reference, pool, labeled_scores, labeled_value, *, name, draws=1000, rng=None,
                  assumption="label"):
    """A score model fitted on the reference set, carried to the pool under label shift (module docstring), or
    unchanged (covariate shift).

    Parameters
    ----------
    fitted : FittedScoreModel
        The model fitted on the reference set's labels; its ``log_evidence`` is log p(Y_ref | S_ref).
    reference : spe.models.cells.CompressedScores
        The reference set, with ``positives``.
    pool : spe.models.cells.CompressedScores
        The pool's scores.
    labeled_scores : array, shape (n,)
    labeled_value : 0/1 array, shape (n,)
        The pool's labeled items (score units, labels).
    name : str
        The carried model's name in tables.
    draws : int
        M.
    rng : numpy.random.Generator, int or None
    assumption : {"label", "covariate"}
        What may differ between the reference and the pool (:data:`ASSUMPTIONS`): under ``"label"`` the
        prevalence (δ learned from the pool's scores and labels), under ``"covariate"`` only the distribution of
        the scores, the map p(y = 1 | s) itself unchanged (δ = 0: what NannyML's CBPE assumes).

    Returns
    -------
    FittedScoreModel
        ``draws`` (M, 2) = (index of the reference model's draw, δ);
        ``weights`` PSIS-smoothed; ``constrained_draws`` (M, 3) = (δ, π_ref,
        π_pool), π_pool the mean of the carried map over the pool's scores; ``log_evidence`` = log p(Y_ref, Y_L | S_ref, S);
        ``reference_log_evidence`` = log p(Y_ref | S_ref); ``loo`` (n,) by
        PSIS-LOO; ``diagnostics`` with ESS, Pareto k̂ and the posterior means.
    """
    rng = np.random.default_rng(rng)
    index = systematic_resample(np.asarray(fitted.weights, dtype=float), draws, rng)
    theta = fitted.draws[index]
    pi_ref = fitted.probability(theta, reference.scores) @ reference.counts / reference.n_items
    at_pool = fitted.probability(theta, pool.scores)
    if assumption == "label":
        shift = PriorShiftLikelihood(at_pool, pi_ref, pool.counts, shift_power(reference.n_items, pool.n_items))
        delta, log_ratio = shift.draw(rng)
    else:
        delta, log_ratio = np.zeros(draws), np.zeros(draws)
    pi_pool = special.expit(_logit(at_pool) + delta[:, None]) @ pool.counts / pool.n_items
    u = np.column_stack([index, delta])
    y = np.asarray(labeled_value, dtype=int)
    probability = partial(_carried_probability, fitted)
    log_lik = special.log_expit(np.where(y == 1, 1.0, -1.0)[None, :] *
                                _logit(probability(u, np.asarray(labeled_scores, dtype=float))))
    log_posterior = log_ratio + log_lik.sum(axis=1)
    weights, pareto_k = psis(log_posterior)
    label_evidence = float(special.logsumexp(log_posterior) - special.logsumexp(log_ratio)) if y.size else 0.0
    constrained = np.column_stack([delta, pi_ref, pi_pool])
    mean = weights @ constrained
    model = FittedScoreModel(
        name=name, draws=u, weights=weights, probability=probability,
        param_names=["shift", "reference_prevalence", "pool_prevalence"], constrained_draws=constrained,
        diagnostics={"model": name, "assumption": assumption,
                     "fitted_on": f"the reference set, carried to the pool: {ASSUMPTIONS[assumption]}",
                     "posterior_mean": dict(zip(("shift", "reference_prevalence", "pool_prevalence"),
                                                map(float, mean))),
                     "ess": float(1 / np.sum(weights ** 2)), "pareto_k": float(pareto_k)})
    model.log_evidence = float(fitted.log_evidence) + label_evidence
    model.reference_log_evidence = float(fitted.log_evidence)
    model.loo = psis_loo(log_lik, weights)[0] if y.size else np.zeros(0)
    return model


def _carried_probability(fitted, d, s):
    """P_pool(y = 1 | s) under draws (reference draw index, δ): (M', 2) × (B,) → (M', B)."""
    d = np.asarray(d, dtype=float)
    base = fitted.probability(fitted.draws[d[:, 0].astype(np.int64)], np.asarray(s, dtype=float))
    return special.expit(_logit(base) + d[:, 1:2])


class ReferenceFits:
    """The models that learn from a reference set (:attr:`ScoreModel.learns_from_reference`), each fitted on the
    reference's labels and carried to the pool: the reference and the pool are compressed once for all of them.

    Parameters
    ----------
    data : LabeledScores
        The pool's data, with ``data.reference`` set.
    """

    def __init__(self, data):
        self.data = data
        self.reference, self.pool = data.reference_cells, data.pool_cells
        self.reference_data = self._reference_data()
        self._fitted = {}

    def _reference_data(self):
        """The compressed reference as a fully labeled :class:`LabeledScores`: one labeled entry per cell and
        class, weighted by its items (``labeled_weights``)."""
        ref = self.reference
        negatives = ref.counts - ref.positives
        neg, pos = np.flatnonzero(negatives > 0), np.flatnonzero(ref.positives > 0)
        return LabeledScores(ref.scores, ref.scores, np.r_[neg, pos], np.r_[np.zeros(neg.size, int),
                                                                            np.ones(pos.size, int)],
                             self.data.score_type, self.data.draws, counts=ref.counts,
                             labeled_weights=np.r_[negatives[neg], ref.positives[pos]])

    def fit(self, spec, assumption, rng):
        """``spec`` (a :class:`~spe.models.registry.ScoreModel`) fitted on the reference (once for both
        assumptions, and once for every pool of a :class:`~spe.shared_reference.SharedReference`) and carried to the pool (:func:`carry_to_pool`): a FittedScoreModel named
        :func:`carried_name`, or None when the model has nothing to fit."""
        fit_rng, carry_rng = rng.spawn(2)
        if spec.name not in self._fitted:
            key = ("fit", spec.name, self.data.score_type, self.data.draws)
            self._fitted[spec.name] = kept(self.data.reference, key, lambda: spec.fit(self.reference_data, fit_rng))
        fitted = self._fitted[spec.name]
        if fitted is None:
            return None
        data = self.data
        return carry_to_pool(fitted, self.reference, self.pool, data.scores[data.labeled_index], data.labeled_value,
                             name=carried_name(spec.name, assumption), draws=data.draws, rng=carry_rng,
                             assumption=assumption)


def carried_models(data):
    """The score models that learn from ``data.reference`` (:attr:`ScoreModel.learns_from_reference`, those
    ``averaged(data)``), each as a :class:`~spe.models.registry.ScoreModel` named ``reference-<name>`` whose fit
    is :meth:`ReferenceFits.fit` (the reference and the pool compressed once for all): list of ScoreModel."""
    fits = ReferenceFits(data)
    return [replace(spec, name=carried_name(spec.name, assumption), fit=partial(_carry, fits, spec, assumption),
                    needs_reference=True, learns_from_reference=False, report=None)
            for assumption in ASSUMPTIONS
            for spec in REGISTRY.values() if spec.learns_from_reference and spec.averaged(data)]


def carried_name(name, assumption):
    """The name of the model ``name`` carried from the reference under ``assumption``: ``reference-<name>``
    (label shift), ``reference-<name>-covariate`` (covariate shift)."""
    return CARRIED_PREFIX + name + ("" if assumption == "label" else "-" + assumption)


def _carry(fits, spec, assumption, data, rng):
    return fits.fit(spec, assumption, rng)
