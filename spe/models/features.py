"""What the score models read: the scores' features, and :class:`LabeledScores`, built once per estimate.

Each recalibration reads the score through a feature f(s) (log-odds units):
``calibrated`` and the link models the score as log-odds
(:func:`log_odds_feature`), ``platt`` (and the link models on decision
values) its standardised version (:func:`standardized_feature`), ``hybrid``
the SPE mixture's log-odds made monotone (:func:`mixture_log_odds_feature`,
Raina et al.'s hybrid). :class:`LabeledScores` computes each at most once
(a pass or two over the N scores) and shares it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from functools import partial

import numpy as np
from scipy import special

from ..quantiles import sorted_quantile
from ..shared_reference import kept
from .cells import compressed
from .mixture import logit_clip, outward_envelope, pivot_index, resolve_score_type

__all__ = ["LabeledScores", "log_odds_feature", "standardized_feature", "mixture_log_odds_feature"]


@dataclass
class LabeledScores:
    """The data every score model is fitted from (``fit(data, rng)`` in :mod:`spe.models.registry`).

    Attributes
    ----------
    scores : array, shape (N,)
        All the pool's scores, score units, in the caller's order.
    sorted_scores : array, shape (N,)
        The same, ascending.
    labeled_index : int array, shape (n,)
    labeled_value : 0/1 array, shape (n,)
        The labeled items: positions in ``scores`` and their labels.
    score_type : str
        The resolved reading of the scores: ``"probability"``, ``"log-odds"`` or ``"decision"``.
    draws : int
        M, the posterior draws each model returns.
    reference : tuple (scores (R,), labels (R,)) or None
        A labeled reference set (:mod:`spe.models.reference`).
    mixture : FittedScoreModel or None
        The fitted SPE mixture, set once it is fitted (None when no model asked for it, or it could not be fitted).
    counts : int array, shape (K,), or None
        With a :class:`spe.pool.ScorePool`: ``scores`` (and ``sorted_scores``) are its K ascending values and
        each stands for this many items; the features' statistics of all items are taken with these weights.
    labeled_weights : array, shape (n,), or None
        How many labeled items each labeled entry stands for (a compressed reference set,
        :func:`spe.models.cells.compressed`: one entry per score cell and class); None: one each. The models
        that learn from a reference set (:attr:`spe.models.registry.ScoreModel.learns_from_reference`) weigh
        their likelihood terms by it.
    """

    scores: np.ndarray
    sorted_scores: np.ndarray
    labeled_index: np.ndarray
    labeled_value: np.ndarray
    score_type: str
    draws: int
    reference: tuple | None = None
    mixture: object = None
    counts: np.ndarray | None = None
    labeled_weights: np.ndarray | None = None

    @functools.cached_property
    def pool_cells(self):
        """The pool's scores in at most :data:`~spe.models.cells.CELLS` score cells
        (:func:`spe.models.cells.compressed`), built once for every model that reads them."""
        return compressed(self.scores, counts=self.counts)

    @functools.cached_property
    def reference_cells(self):
        """The reference set's scores and labels in score cells, with their positives (None without a
        reference set)."""
        return None if self.reference is None else kept(self.reference, "cells", lambda: compressed(*self.reference))

    @functools.cached_property
    def log_odds(self):
        """The score read as log-odds (:func:`log_odds_feature`): score units (B,) → log-odds (B,)."""
        return log_odds_feature(self.scores, self.score_type)

    @functools.cached_property
    def standardized(self):
        """The standardised log-odds feature (:func:`standardized_feature`), from :attr:`log_odds`."""
        return standardized_feature(self.scores, self.score_type, base=self.log_odds, counts=self.counts)

    @functools.cached_property
    def mixture_log_odds(self):
        """The fitted mixture's monotone log-odds (:func:`mixture_log_odds_feature`), the hybrid's input."""
        return mixture_log_odds_feature(self.mixture, self.sorted_scores, counts=self.counts)

    @property
    def link_base(self):
        """Which recalibration's feature and prior the link models share: ``"platt"`` for decision values (no
        log-odds reading), else ``"calibrated"``."""
        return "platt" if self.score_type == "decision" else "calibrated"

    @property
    def link_feature(self):
        """The feature of :attr:`link_base`."""
        return self.standardized if self.link_base == "platt" else self.log_odds


def log_odds_feature(scores, score_type="auto"):
    """The score read as log-odds: the logit of probability scores (clipped inside (0, 1) by
    :func:`spe.models.mixture.logit_clip`), else the score itself (log-odds or a decision value).

    Parameters
    ----------
    scores : array, shape (N,)
        All scores, score units: they fix the score type and the clip.
    score_type : {"auto", "probability", "log-odds", "decision"}
        As :func:`spe.evaluate`.

    Returns
    -------
    callable
        Scores (B,) in score units → the feature (B,), log-odds (natural log).

    Raises
    ------
    SpeInputError
        An unknown ``score_type``, or "probability" with scores outside [0, 1]
        (:func:`spe.models.mixture.resolve_score_type`).
    """
    s = np.asarray(scores, dtype=float)
    if resolve_score_type(s, score_type) == "probability":
        eps = logit_clip(s)
        return partial(_clipped_logit, eps)
    return _as_float


def standardized_feature(scores, score_type="auto", base=None, counts=None):
    """The log-odds feature centred at its median and scaled by its standard deviation over all N items: the
    input of Bayesian Platt scaling (Platt 1999), which needs no log-odds reading of the score.

    Parameters
    ----------
    scores : array, shape (N,)
        All scores, score units.
    score_type : str
        As :func:`log_odds_feature`.
    base : callable, optional
        The log-odds feature of these scores if already built (:func:`log_odds_feature`).
    counts : int array, shape (N,), optional
        Items each score stands for (a :class:`spe.pool.ScorePool`'s sorted values): weighted median and
        standard deviation.

    Returns
    -------
    callable
        Scores (B,) in score units → (B,), standardised (dimensionless; median 0, standard deviation 1 over
        the N items).

    Raises
    ------
    SpeInputError
        As :func:`log_odds_feature`.
    """
    base = log_odds_feature(scores, score_type) if base is None else base
    z = base(scores)
    if counts is None:
        centre, spread = float(np.median(z)), float(np.std(z))
    else:  # z is non-decreasing in the sorted scores
        w = np.asarray(counts, dtype=float)
        mean = float(np.average(z, weights=w))
        centre = float(sorted_quantile(z, [0.5], counts)[0])
        spread = float(np.sqrt(np.average((z - mean) ** 2, weights=w)))
    spread = spread if spread > 0 else 1.0
    return partial(_standardised, base, centre, spread)


def mixture_log_odds_feature(mixture_model, scores, counts=None):
    """The SPE mixture's log-odds at its MAP, made non-decreasing in the score: the hybrid's input.

    L(s) = log π p₁(s) − log (1 − π) p₀(s) at the MAP of the plain
    (untempered) posterior, clipped to ±50: in Raina et al.'s hybrid the
    generative part is fitted on all the data at full weight, and the
    discriminative offset and slope correct it with the labels.

    The input is the monotone envelope L̃ of L taken outward from the pool's
    median score m (:func:`spe.models.mixture.outward_envelope`): for s ≥ m,
    L̃(s) = max of L(s') over pool scores m ≤ s' ≤ s; for s < m, the min
    over s ≤ s' ≤ m; interpolated linearly between the N pool scores
    (constant beyond them). A classifier ranks items sensibly, but two
    fitted families need not: a negative family with a heavier upper tail
    than the positive one makes L fall at the top scores (the hybrid would
    call the highest-scored items less likely positive than those below
    them), and one whose density vanishes at the lowest scores (a gamma
    with shape > 1) makes L rise there. The envelope keeps L where it
    already rises, holds the top at the highest log-odds reached below it
    and the bottom at the lowest reached above it. (An isotonic regression
    of L pools an interior bump with its neighbours and was worse on the
    benchmark.)

    Parameters
    ----------
    mixture_model : FittedScoreModel
        The fitted SPE mixture (:func:`spe.models.mixture.fit.fit_mixture`).
    scores : array, shape (N,)
        All scores of the pool, score units: where the envelope is taken.
        Sorted ascending saves a sort (:func:`evaluate` passes them so).
    counts : int array, shape (N,), optional
        Items each of the sorted ``scores`` stands for (a :class:`spe.pool.ScorePool`).

    Returns
    -------
    callable
        scores (B,) in score units → L̃ (B,), log-odds (natural log).
    """
    f = mixture_model.mixture_fit
    mix, space = f.mixture, f.space
    u = f.u_map_untempered[None, :]
    pi, th0, th1, _ = mix.unpack(u)

    log_odds = partial(_map_log_odds, mix, space, pi, th0, th1)

    ss = np.asarray(scores, dtype=float)
    if np.any(ss[1:] < ss[:-1]):
        ss = np.sort(ss)
    grid = ss[np.concatenate([[True], ss[1:] != ss[:-1]])]  # the distinct scores
    envelope = outward_envelope(log_odds(grid), pivot_index(grid, sorted_quantile(ss, [0.5], counts)[0]))

    return partial(_interpolated, grid, envelope)


# The features are partials of module-level functions, not closures, so that a fitted model pickles.

def _clipped_logit(eps, v):
    return special.logit(np.clip(np.asarray(v, dtype=float), eps, 1 - eps))


def _as_float(v):
    return np.asarray(v, dtype=float)


def _standardised(base, centre, spread, v):
    return (base(v) - centre) / spread


def _map_log_odds(mix, space, pi, th0, th1, v):
    """The mixture's log-odds at its MAP θ, scores (B,) → (B,), clipped to ±50."""
    x = space.to_model(v)
    with np.errstate(invalid="ignore"):
        lo = ((np.log(pi)[:, None] + mix.positive.logpdf(th1, x))
              - (np.log1p(-pi)[:, None] + mix.negative.logpdf(th0, x)))
    return np.clip(np.nan_to_num(lo[0], nan=0.0), -50, 50)


def _interpolated(grid, values, v):
    return np.interp(np.asarray(v, dtype=float), grid, values)
