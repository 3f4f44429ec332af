r"""What every multiclass score model is, and the one fit they share: a Bayesian softmax calibration map.

A map reads the classifier's log-probabilities ``L`` (N, K) and gives calibrated logits linear in its parameters
θ (P,),

.. math::
    p(y = k \mid s, θ) = \operatorname{softmax}_k\big(z(L, θ)\big),\qquad z_{ik} = \sum_p X_{ikp}(L)\, θ_p,

with a Normal prior on u, where θ = u but for the inverse temperature θ₀ = a = e^{u₀} (a scale: its prior is
log-normal, as wide toward over- as toward under-confidence). The MAP is found by Newton's method with the
exact gradient and a backtracking line search (:func:`newton_map`), and M draws come from importance sampling
around it (:func:`spe.inference.importance.importance_sample`, PSIS-smoothed weights, Pareto k̂), whose raw
ratios also give the evidence p(Y_L | S) = ∫ Π_i p(y_i | s_i, θ) p(θ) dθ that the models are averaged by
(:mod:`spe.multiclass.average`). Each labeled item's leave-one-out predictive (PSIS-LOO) is kept beside it.

A model registers a :class:`ClassModel`; :func:`fit_map` fits any :class:`CalibrationMap`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import special

from ...inference.importance import importance_sample, psis_loo
from ...registries import add_unique

__all__ = ["CalibrationMap", "FittedClassModel", "ClassModel", "CLASS_MODELS", "register", "fit_map", "newton_map",
           "softmax", "map_model", "per_pool", "posterior_diagnostics", "newton_map_blocks",
           "sum_zero_basis", "gaussian_log_prior", "linear",
           "REFERENCE_SHIFT_SD", "CALIBRATION"]

#: name → ClassModel, in registration order (the order of the average and of the models' random streams).
CLASS_MODELS: dict = {}


@dataclass(frozen=True)
class CalibrationMap:
    """A softmax calibration map linear in its P parameters, with a Normal prior.

    Attributes
    ----------
    prior_mean, prior_sd : array, shape (P,)
        The Normal prior of u (the first coordinate is log a; the last K − 1 are the prior shift β, b = Qβ).
    design : callable
        L (n, K) → X (n, K, P), the logits' derivatives (used on the labeled items only).
    logits : callable
        (θ (B, P), L (N, K)) → z (B, N, K), without forming X (used on all N items); offset included.
    offset : callable or None
        L (n, K) → the logits' part that no parameter multiplies, (n, K) (None: zero).
    """

    prior_mean: np.ndarray
    prior_sd: np.ndarray
    design: object
    logits: object
    offset: object = None

    @property
    def n_params(self) -> int:
        return self.prior_mean.size


@dataclass
class FittedClassModel:
    """A multiclass score model's weighted posterior draws, what sits behind the seam.

    Attributes
    ----------
    name : str
    draws : array, shape (M, P)
        Draws of u (the first coordinate log a).
    weights : array, shape (M,), normalised
    logits : callable
        (θ (B, P), L (N, K)) → (B, N, K).
    log_evidence : float
        log p(Y_L | S) in nats.
    loo : array, shape (n,)
        Each labeled item's leave-one-out log predictive density.
    diagnostics : dict
        ``ess``, ``pareto_k``, ``proposal``, ``n_params``.
    """

    name: str
    draws: np.ndarray
    weights: np.ndarray
    logits: object
    log_evidence: float
    loo: np.ndarray
    diagnostics: dict = field(default_factory=dict)

    def probabilities(self, theta, log_probs):
        """p(y = k | s_i, θ_m) as float32 (B, N, K): the label draws' inputs (half the memory traffic)."""
        theta = (linear(theta) if theta.shape[1] else theta).astype(np.float32)
        return softmax(np.asarray(self.logits(theta, np.asarray(log_probs, dtype=np.float32)), dtype=np.float32))


def softmax(z):
    """The softmax over the last axis of float32 logits (..., K) → float32 probabilities, the same shape.

    The maps' logits are mostly a few units from zero (log-probabilities times a positive slope, plus a shift),
    so they are exponentiated as they are, and only the rows whose sum overflows or underflows are shifted by
    their maximum first: on a last axis of K = 10 classes numpy's maximum and sum take about 5× as long as the
    exponential (the sums here are a product with a vector of ones)."""
    with np.errstate(over="ignore"):
        e = np.exp(z)
    total = e @ np.ones(z.shape[-1], dtype=e.dtype)
    bad = ~((total > 1e-30) & np.isfinite(total))  # below, float32's exponentials lose digits (subnormal)
    if bad.any():
        rows = z[bad]
        with np.errstate(invalid="ignore"):
            rows = np.exp(rows - rows.max(axis=-1, keepdims=True))
        e[bad], total[bad] = rows, rows.sum(axis=-1)
    e /= total[..., None]
    return e


#: The hypothesis of a calibration map: how often the classifier errs follows its stated probabilities.
CALIBRATION = "calibration map"


@dataclass(frozen=True)
class ClassModel:
    """A registered multiclass score model: ``fit(log_probs, labeled_index, labeled_class, draws, rng,
    reference)`` → :class:`FittedClassModel` (``reference``: see :func:`fit_map`); ``applies(n_classes)`` says
    whether it is fitted for K classes; ``averaged``, whether ``score_model="average"`` includes it;
    ``hypothesis``, what it says about the classifier's errors (the average's prior model probability is shared
    evenly by the hypotheses first: :func:`spe.multiclass.average.prior_model_probabilities`)."""

    name: str
    fit: object
    about: str
    applies: object = None
    averaged: bool = True
    hypothesis: str = CALIBRATION

    def fits(self, n_classes) -> bool:
        return self.applies is None or bool(self.applies(n_classes))


def register(model: ClassModel):
    """Add a model to :data:`CLASS_MODELS` (a name joins once)."""
    return add_unique(CLASS_MODELS, model.name, model, "multiclass score model")


def map_model(name, make_map, about, applies=None) -> ClassModel:
    """The :class:`ClassModel` of a calibration map: ``make_map(K)`` → :class:`CalibrationMap`, fitted by
    :func:`fit_map` (what every map model registers)."""
    def fit(log_probs, labeled_index, labeled_class, draws, rng, reference=None):
        return fit_map(name, make_map(log_probs.shape[1]), log_probs, labeled_index, labeled_class, draws=draws,
                       rng=rng, reference=reference)

    return ClassModel(name=name, fit=fit, about=about, applies=applies)


def per_pool(compute):
    """``compute(x)`` remembered for the last array ``x`` it was given (by identity): the label draws call a map's
    ``logits`` block by block of draws on one pool's array, and what depends on the array alone (the predicted
    class, a classifier's votes) is then computed once per pool, not once per block. Threads may race to fill it;
    each computes the same value."""
    last = []

    def cached(x):
        if not (last and last[0][0] is x):
            last[:] = [(x, compute(x))]
        return last[0][1]

    return cached


def sum_zero_basis(k):
    """An orthonormal basis of the vectors of length K that sum to zero, (K, K−1): b = Q β with β ~ N(0, σ² I)
    gives every class the same prior (no class is the reference)."""
    q, _ = np.linalg.qr(np.eye(k) - 1.0 / k)
    return q[:, : k - 1]


def gaussian_log_prior(theta, mean, sd):
    """The normalised Normal log density of θ (B, P) → (B,)."""
    z = (theta - mean) / sd
    return -0.5 * np.sum(z * z, axis=-1) - np.sum(np.log(sd)) - 0.5 * mean.size * np.log(2 * np.pi)


def linear(u):
    """The map's linear parameters θ from u (…, P): θ₀ = e^{u₀}, the rest unchanged."""
    theta = np.array(u, dtype=float, copy=True)
    theta[..., 0] = np.exp(theta[..., 0])
    return theta


#: Floats per block of the fit's arrays: the designs (items × K × P) in Newton's method, the logits (draws × items
#: × K) in importance sampling. A reference set of 10⁴ items with 100 classes never has its designs in memory whole.
BLOCK_FLOATS = 2**22


def newton_map(x, y, mean, sd, *, offset=0.0, iterations=100, tol=1e-9):
    """The MAP of the map's posterior over u, by Newton's method (Fisher scoring: its curvature is positive
    definite) with a backtracking line search, and the exact −Hessian there.

    Parameters
    ----------
    x : array, shape (n, K, P)
    y : int array, shape (n,)
    mean, sd : array, shape (P,)
    offset : array, shape (n, K), or 0

    Returns
    -------
    u : array, shape (P,)
    precision : array, shape (P, P)
        The negative Hessian of the log posterior at the MAP.
    """
    offset = np.broadcast_to(offset, x.shape[:2])
    return newton_map_blocks(lambda: iter([(x, np.asarray(y), offset, None)]), mean, sd, iterations=iterations,
                             tol=tol)


def newton_map_blocks(blocks, mean, sd, *, iterations=100, tol=1e-9):
    """:func:`newton_map` over labeled items given in blocks: ``blocks()`` → an iterator of (X (b, K, P₀), y (b,),
    offset (b, K), S), so that no more than one block's designs are in memory at once. The last P − P₀
    parameters enter every item of a block alike, through S (K, P − P₀) (a reference set's own prior shift), or
    not at all (S None): their design columns are never formed. ``mean``, ``sd`` (P,) and the return value (u (P,),
    precision (P, P)) are :func:`newton_map`'s."""
    u = mean.copy()
    value = _log_posterior_value(u, blocks, mean, sd)
    for _ in range(iterations):
        grad, fisher, _ = _derivatives(u, blocks, mean, sd)
        step = np.linalg.solve(fisher, grad)
        t = 1.0
        while t > 1e-10:
            candidate = _log_posterior_value(u + t * step, blocks, mean, sd)
            if candidate >= value - 1e-12:
                break
            t /= 2
        u, value = u + t * step, candidate
        if np.max(np.abs(t * step)) < tol:
            break
    return u, _derivatives(u, blocks, mean, sd)[2]


def _block_logits(theta, x, offset, shift):
    """The logits (b, K) of one block at linear θ (P,): X θ₀ + offset (+ S θ₁, the parameters every item shares)."""
    base = x.shape[2]
    z = (x.reshape(-1, base) @ theta[:base]).reshape(x.shape[:2]) + offset
    return z if shift is None else z + shift @ theta[base:]


def _log_posterior_value(u, blocks, mean, sd):
    theta = linear(u)
    likelihood = 0.0
    for x, y, offset, shift in blocks():
        z = special.log_softmax(_block_logits(theta, x, offset, shift), axis=-1)
        likelihood += float(z[np.arange(y.size), y].sum())
    return likelihood + float(gaussian_log_prior(u[None], mean, sd)[0])


def _derivatives(u, blocks, mean, sd):
    """Gradient of the log posterior in u, its Fisher-scoring curvature and its exact negative Hessian, summed
    over the blocks: the information Σ_i X_iᵀ(diag p_i − p_i p_iᵀ)X_i by matrix products, with the shared
    columns' blocks (X_i = [D_i, S]) summed over the items before S multiplies them."""
    theta = linear(u)
    grad_theta = np.zeros(u.size)
    information = np.zeros((u.size, u.size))
    for x, y, offset, shift in blocks():
        base = x.shape[2]
        flat = x.reshape(-1, base)
        p = special.softmax(_block_logits(theta, x, offset, shift), axis=-1)
        residual = np.eye(x.shape[1])[y] - p
        grad_theta[:base] += flat.T @ residual.ravel()
        weighted = (x * np.sqrt(p)[:, :, None]).reshape(-1, base)
        xp = np.matmul(p[:, None, :], x)[:, 0, :]
        information[:base, :base] += weighted.T @ weighted - xp.T @ xp
        if shift is not None:
            grad_theta[base:] += shift.T @ residual.sum(axis=0)
            cross = (np.einsum("nkp,nk->pk", x, p, optimize=True) - xp.T @ p) @ shift
            information[:base, base:] += cross
            information[base:, :base] += cross.T
            information[base:, base:] += shift.T @ (np.diag(p.sum(axis=0)) - p.T @ p) @ shift
    jac = np.ones_like(u)
    jac[0] = theta[0]  # dθ₀/du₀ = a
    fisher = jac[:, None] * information * jac[None, :] + np.diag(1.0 / sd**2)
    exact = fisher.copy()
    exact[0, 0] -= grad_theta[0] * theta[0]  # d²θ₀/du₀² = a
    return grad_theta * jac - (u - mean) / sd**2, fisher, exact


#: The prior sd of each coordinate of the reference set's own prior shift (its class shares against the pool's).
REFERENCE_SHIFT_SD = 0.5


def fit_map(name, cmap: CalibrationMap, log_probs, labeled_index, labeled_class, *, draws, rng, reference=None):
    """Posterior draws of a :class:`CalibrationMap` given the labeled items (and a labeled reference set), their
    evidence and LOO.

    Parameters
    ----------
    log_probs : array, shape (N, K)
    labeled_index, labeled_class : int arrays, shape (n,)
    draws : int
        M.
    rng : numpy.random.Generator
    reference : (array (R, K), int array (R,)) or None
        A labeled reference set's log-probabilities and classes (the classifier's validation set, an earlier
        period). Its items share the map with the pool but for the prior shift: the reference's is the pool's
        minus Q·β_ref, β_ref ~ N(0, :data:`REFERENCE_SHIFT_SD`²) per axis (its class shares may differ, a label
        shift). Its labels are evidence for the map; the LOO is the pool's labels'.

    Returns
    -------
    FittedClassModel

    Notes
    -----
    Memory is bounded by :data:`BLOCK_FLOATS` per array, whatever n + R: Newton's method builds the designs block
    by block, and importance sampling evaluates the labels' likelihood through the map's ``logits`` (no design),
    block by block of draws.
    """
    pool = _Labeled(np.ascontiguousarray(log_probs[labeled_index]), np.asarray(labeled_class, dtype=int))
    groups = [pool]
    mean, sd = cmap.prior_mean, cmap.prior_sd
    if reference is not None:
        k = log_probs.shape[1]
        groups.append(_Labeled(np.ascontiguousarray(reference[0]), np.asarray(reference[1], dtype=int),
                               -sum_zero_basis(k)))
        mean, sd = np.r_[mean, np.zeros(k - 1)], np.r_[sd, np.full(k - 1, REFERENCE_SHIFT_SD)]
    u_map, precision = newton_map_blocks(lambda: _design_blocks(cmap, groups), mean, sd)

    def log_posterior(u):
        u = np.atleast_2d(u)
        return sum(_labels_log_likelihood(cmap, u, g).sum(axis=1) for g in groups) + gaussian_log_prior(u, mean, sd)

    # log a, a scale's logarithm, is where the posterior is skewed; given it the rest is near Normal
    post = importance_sample(log_posterior, u_map, draws=draws, rng=rng, hessian_at_map=-precision, heavy_axes=(0,))
    loo = psis_loo(_labels_log_likelihood(cmap, post.u, pool), post.weights)[0] if pool.y.size else np.zeros(0)
    u = post.u[:, :cmap.n_params]  # the pool's map: the reference's own shift left out
    return FittedClassModel(name, u, post.weights, cmap.logits, float(post.log_normalizer), loo,
                            posterior_diagnostics(post))


def posterior_diagnostics(post) -> dict:
    """A :class:`FittedClassModel`'s ``diagnostics`` from its importance-sampled posterior
    (:class:`spe.inference.importance.PosteriorDraws`): ``ess``, ``pareto_k``, ``proposal`` and ``n_params``, the
    number of sampled parameters (a reference set's shift included)."""
    return {"ess": float(post.ess), "pareto_k": float(post.pareto_k), "proposal": post.proposal,
            "n_params": int(post.u.shape[1])}


@dataclass(frozen=True)
class _Labeled:
    """Labeled items of one source: log-probabilities (m, K), classes (m,), and for a reference set the design
    columns of its own prior shift, −Q (K, K − 1) (None for the pool's items: the map as it is)."""

    log_probs: np.ndarray
    y: np.ndarray
    shift: np.ndarray = None


def _design_blocks(cmap, groups):
    """(X (b, K, P), y (b,), offset (b, K), S) for every group's items, a block at a time: the map's designs, and
    the reference's shift columns S = −Q (K, K − 1) shared by its items (None for the pool's items)."""
    k = groups[0].log_probs.shape[1]
    step = max(1, BLOCK_FLOATS // (k * cmap.n_params))
    for g in groups:
        for start in range(0, g.y.size, step):
            lp = g.log_probs[start:start + step]
            yield cmap.design(lp), g.y[start:start + step], _offset(cmap, lp), g.shift


def _labels_log_likelihood(cmap, u, group):
    """log p(y_i | u_m) (B, m) of one group's labeled items through the map's logits (no design), in blocks of
    draws."""
    theta = linear(u[:, :cmap.n_params])
    m, k = group.log_probs.shape[:2]
    out = np.empty((u.shape[0], m))
    step = max(1, BLOCK_FLOATS // max(1, m * k))
    rows = np.arange(m)
    for start in range(0, u.shape[0], step):
        z = np.asarray(cmap.logits(theta[start:start + step], group.log_probs), dtype=float)
        if group.shift is not None:
            z = z + (u[start:start + step, cmap.n_params:] @ group.shift.T)[:, None, :]
        out[start:start + step] = z[:, rows, group.y] - special.logsumexp(z, axis=-1)
    return out


def _offset(cmap, log_probs):
    return np.zeros(log_probs.shape[:2]) if cmap.offset is None else cmap.offset(log_probs)
