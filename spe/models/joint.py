"""Score models of several classifiers that scored the same items: p(y_i = 1 | s_i¹, …, s_iᴷ).

The pieces that :func:`spe.compare` averages by their evidence on the labeled
items, next to each classifier's own score models (:func:`spe.fit_scores` on
its scores, read through :func:`view_model` — the fallbacks when the joint
pieces rank the items worse than one classifier alone):

* the *joint log-odds* z (:func:`joint_log_odds`): one number per item
  saying what all the classifiers say together about its class (a Gaussian
  mixture over their normal scores, fitted without the labels), on which
  SPE's single-score models are fitted like on any score
  (:func:`spe.fit_scores`); :func:`view_model` makes that fit read its column
  of the item features (N, 1 + 2K: z, the K log-odds, the K scores);
* :class:`JointLink`: a Bayesian logistic recalibration of z plus every
  classifier's own log-odds, so that the labels can say a classifier knows
  more (or less) than z gives it credit for.

Every classifier's curves are then counted from the label draws of that one
model (:mod:`spe.performance.joint`), so the weak classifiers' unknown
labels are drawn from what the strong ones say about them — the gain of
evaluating several classifiers jointly (Shanmugam et al. 2025, "Evaluating
multiple models using labeled and unlabeled data").
"""

from __future__ import annotations

from functools import partial

import numpy as np
from scipy import special, stats

from .base import FittedScoreModel
from .link import LinkModel, fit_link
from .recalibration import PRIORS

__all__ = ["view_model", "joint_log_odds", "normal_scores", "JointLink", "fit_joint_link",
           "EXACT_VIEW_POINTS", "VIEW_GRID_POINTS", "CLASSIFIER_SLOPE_SD"]

#: A view with at most this many distinct values is evaluated at each of them (exact); with more, at
#: :data:`VIEW_GRID_POINTS` quantiles and interpolated linearly between them.
EXACT_VIEW_POINTS = 50_000
VIEW_GRID_POINTS = 10_001


def _view_grid(values):
    """Where a view's p(y = 1 | x) is evaluated: every distinct value, or quantiles with the ends (ascending)."""
    at = np.unique(values)
    if at.size <= EXACT_VIEW_POINTS:
        return at
    return np.unique(np.quantile(at, np.linspace(0.0, 1.0, VIEW_GRID_POINTS)))


def _interpolator(grid, x):
    """Columns and weights that interpolate values on ``grid`` (G,) linearly at ``x`` (B,), exact on the grid."""
    if grid.size == 1:
        zeros = np.zeros(x.size, dtype=int)
        return zeros, zeros, np.zeros(x.size)
    hi = np.clip(np.searchsorted(grid, x, side="left"), 1, grid.size - 1)
    lo = hi - 1
    w = np.clip((x - grid[lo]) / (grid[hi] - grid[lo]), 0.0, 1.0)
    return lo, hi, w


def view_model(model, column, values, name):
    """A fitted score model of one feature, reading column ``column`` of an item-feature matrix.

    Parameters
    ----------
    model : FittedScoreModel
        Fitted on the feature's values (its own units): ``probability(draws, x (B,))``.
    column : int
        Which column of the features (B, V) it reads.
    values : array, shape (N,)
        The feature's values on the pool: p(y = 1 | x) is evaluated at each distinct value (at most
        :data:`EXACT_VIEW_POINTS`; else at :data:`VIEW_GRID_POINTS` quantiles, interpolated), so a block of
        draws costs O(M_block · distinct values) model evaluations whatever N is.
    name : str
        The view's name (the classifier's, or ``"joint"``).

    Returns
    -------
    FittedScoreModel
        Same draws, weights, evidence and LOO; ``probability(draws (M', P), features (B, V)) → (M', B)``.
    """
    grid = _view_grid(np.asarray(values, dtype=float))

    return FittedScoreModel(name=f"{name}: {model.name}", draws=model.draws, weights=model.weights,
                            probability=partial(_view_probability, model, grid, column),
                            diagnostics=model.diagnostics, param_names=model.param_names,
                            constrained_draws=model.constrained_draws, log_evidence=model.log_evidence,
                            loo=model.loo)


def normal_scores(scores):
    """Φ⁻¹ of each item's mid-rank among the N scores, (N,) → (N,): the scores' ranks on a standard normal
    scale (ties share a value), whatever their units."""
    s = np.asarray(scores, dtype=float)
    return special.ndtri(stats.rankdata(s) / (s.size + 1))


#: Expectation-maximisation steps and tolerance (mean log-likelihood per item) of :func:`joint_log_odds`.
EM_STEPS = 200
EM_TOLERANCE = 1e-6


def joint_log_odds(classifier_scores, *, tolerance=EM_TOLERANCE, max_steps=EM_STEPS):
    """The log-odds of the positive class of a two-component Gaussian mixture over all classifiers' scores.

    Each classifier's scores become normal scores (:func:`normal_scores`), and a mixture of two K-variate
    normals with full covariances is fitted to the N items by expectation-maximisation
    (``sklearn.mixture.GaussianMixture``), with no labels (the labels are kept for weighing the views, so that
    they are not used twice). The component whose mean normal score, summed over the classifiers, is higher is
    the positive one. The result is one score per item that says what all the classifiers say together about
    its class, taking their correlation into account; the score models then calibrate it on the labeled items
    like any other score. Start: the items above and below the median of the summed normal scores
    (deterministic: same scores, same result).

    Parameters
    ----------
    classifier_scores : array, shape (N, K)
        Score units, K ≥ 1.
    tolerance : float
        Stop when the mean log-likelihood per item improves by less.
    max_steps : int

    Returns
    -------
    array, shape (N,)
        log p(positive component | s_i) − log p(negative component | s_i), log-odds units, finite.
    """
    from sklearn.mixture import GaussianMixture

    x = np.column_stack([normal_scores(c) for c in np.asarray(classifier_scores, dtype=float).T])
    total = x.sum(axis=1)
    upper = total > np.median(total)
    if upper.all() or not upper.any():  # every item tied: nothing to split
        return np.zeros(x.shape[0])
    means = np.vstack([x[~upper].mean(axis=0), x[upper].mean(axis=0)])
    gmm = GaussianMixture(2, covariance_type="full", tol=tolerance, max_iter=max_steps, means_init=means,
                          reg_covar=1e-6, random_state=0).fit(x)
    log_joint = [np.log(w) + stats.multivariate_normal(m, c, allow_singular=True).logpdf(x)
                 for w, m, c in zip(gmm.weights_, gmm.means_, gmm.covariances_)]
    positive = int(np.argmax(gmm.means_.sum(axis=1)))
    lr = log_joint[positive] - log_joint[1 - positive]
    return np.clip(np.nan_to_num(lr, nan=0.0), -700.0, 700.0)


#: Prior standard deviation of each classifier's own slope c_k in :class:`JointLink` (log-odds per standard
#: deviation of its log-odds): what one classifier may add to, or take from, the joint log-odds.
CLASSIFIER_SLOPE_SD = 0.5


class JointLink(LinkModel):
    r"""p(y = 1 | z, x) = σ(a + b z + Σ_k c_k x_k): the joint log-odds z, recalibrated, plus each classifier.

    Features (B, ≥ 1 + K): the joint log-odds z (:func:`joint_log_odds`) and each classifier's log-odds x_k
    standardised over the pool; further columns are not read. u = (a, log b, c_1, …, c_K); priors a ~ N(0, 1),
    log b ~ t₃(0, 0.5) (the ``hybrid`` model's: z is already a log-odds), c_k ~ N(0, :data:`CLASSIFIER_SLOPE_SD`²).
    The c_k let the labels say that a classifier knows more (or less) than the joint log-odds gives it credit
    for: without them every classifier's unknown labels would be drawn as if z held all it knows, and a
    classifier z underweighs would look worse than it is, with a band too narrow to show it. Raina et al.
    (2004)'s hybrid, with the discriminative part over every classifier (the Bayesian logistic recalibration of
    the K log-odds with a shrinkage prior that issue 23 asks for, shrunk toward the joint log-odds rather than
    toward 0).
    """

    def __init__(self, n_classifiers):
        self.k = int(n_classifiers)
        self.param_names = ["a", "log_b", *(f"c_{j + 1}" for j in range(self.k))]
        hybrid = PRIORS["hybrid"]  # the hybrid recalibration's prior on (a, log b), here not truncated
        self._a = stats.norm(hybrid.a_mean, hybrid.a_sd)
        self._logb = stats.t(hybrid.logb_df, hybrid.logb_mean, hybrid.logb_sd)

    def _eta(self, u, z):
        z = np.atleast_2d(np.asarray(z, dtype=float))
        return u[:, :1] + np.exp(np.clip(u[:, 1:2], -50.0, 50.0)) * z[None, :, 0] + u[:, 2:] @ z[:, 1:1 + self.k].T

    def log_prior(self, u):
        return (self._a.logpdf(u[:, 0]) + self._logb.logpdf(u[:, 1])
                + stats.norm.logpdf(u[:, 2:], scale=CLASSIFIER_SLOPE_SD).sum(axis=1))

    def probability(self, u, z):
        return special.expit(self._eta(u, z))

    def log_likelihood_terms(self, u, z, y):
        eta = self._eta(u, z)
        return np.where(np.asarray(y)[None, :] == 1, special.log_expit(eta), special.log_expit(-eta))

    def starts(self):
        return np.array([[0.0, d, *([0.0] * self.k)] for d in (0.0, 1.0, -1.0)])

    def constrained(self, u):
        return np.column_stack([u[:, 0], np.exp(u[:, 1]), u[:, 2:]]), ["a", "b", *self.param_names[2:]]

    def summary(self, u, weights):
        c, names = self.constrained(u)
        return {n: float(v) for n, v in zip(names, weights @ c)}


def fit_joint_link(features, labeled_index, labeled_value, *, draws=1000, rng=None):
    """Weighted posterior draws of :class:`JointLink` from the labeled items.

    Parameters
    ----------
    features : array, shape (N, 1 + K)
        The joint log-odds, then the K classifiers' log-odds (standardised here over the N items).
    labeled_index : int array, shape (n,)
    labeled_value : 0/1 array, shape (n,)
    draws : int
        M.
    rng : numpy.random.Generator, int or None

    Returns
    -------
    FittedScoreModel
        ``probability(draws, features (B, ≥ 1 + K))`` in the units given (the standardisation is inside; columns
        after the first 1 + K are not read, so it takes the rows of a wider feature matrix); evidence, LOO, ESS
        and Pareto k̂ as :func:`spe.models.link.fit_link`.
    """
    features = np.asarray(features, dtype=float)
    k = features.shape[1] - 1
    centre = np.median(features[:, 1:], axis=0)
    scale = np.std(features[:, 1:], axis=0)
    scale = np.where(scale > 0, scale, 1.0)

    link = JointLink(features.shape[1] - 1)
    return fit_link(link, partial(_standardised_columns, k, centre, scale), features[labeled_index],
                    labeled_value, name="joint logistic", draws=draws, rng=rng)


def _standardised_columns(k, centre, scale, f):
    """The joint log-odds (first column) as it is, the K classifiers' standardised."""
    f = np.atleast_2d(np.asarray(f, dtype=float))
    return np.column_stack([f[:, 0], (f[:, 1:1 + k] - centre) / scale])


def _view_probability(model, grid, column, d, features):
    """``model``'s p(y = 1 | ·) on one view (``column`` of the features), interpolated on its grid."""
    lo, hi, w = _interpolator(grid, np.asarray(features, dtype=float)[:, column])
    p = model.probability(d, grid)
    return p[:, lo] * (1.0 - w) + p[:, hi] * w
