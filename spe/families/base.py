"""Class-conditional score families: the protocol, the transforms, the registry.

A family is a parametric density ``p(x | θ_y)`` for the scores of one class,
declared in one small module (see ``truncnorm.py`` for the pattern). The
family states its parameters and their domains, its support, a vectorised
``_logpdf``, a frozen ``scipy.stats`` counterpart, a moment-based initialiser
and a weakly-informative prior; this base class derives the rest:

* the unconstrained transform per domain (``real``: identity, ``positive``:
  log, ``unit``: logit) and its log-Jacobian,
* packing θ of shape (M, P) into named columns and broadcasting
  (M, P) × (N,) → (M, N),
* ``logcdf`` / ``logsf`` (``log_cdf_sf``) from the scipy counterpart unless overridden, and from
  them ``log_bin_mass``, the exact likelihood of binned scores,
* registration under ``name`` when the subclass is defined.

Families work on *model-space* scores ``x``: a fixed, recorded, monotone map
of the classifier's scores (see :class:`spe.models.mixture.ScoreSpace`), so
that all families of one mixture see the same ``x`` and their likelihoods are
comparable. Users never see ``x``: thresholds and curves are reported in the
classifier's own score units.

References
----------
Welinder, Welling & Perona (2013), "A Lazy Man's Approach to Benchmarking:
Semisupervised Classifier Evaluation and Recalibration", §2 and §4.2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from scipy import special

from ..registries import add_unique

__all__ = ["Param", "Family", "REGISTRY", "get_family", "family_names"]

DOMAINS = ("real", "positive", "unit")

REGISTRY: dict[str, "Family"] = {}


@dataclass(frozen=True)
class Param:
    """One parameter of a family.

    Attributes
    ----------
    name : str
        Name as it appears in results (e.g. ``"loc"``).
    domain : {"real", "positive", "unit"}
        Constraint; decides the unconstrained transform.
    """

    name: str
    domain: str

    def __post_init__(self):
        if self.domain not in DOMAINS:
            raise ValueError(f"unknown domain {self.domain!r}; use one of {DOMAINS}")


def _to_unconstrained(value, domain):
    if domain == "real":
        return value
    if domain == "positive":
        return np.log(value)
    return special.logit(value)


def _from_unconstrained(u, domain):
    """Return (constrained value, log |d value / d u|)."""
    if domain == "real":
        return u, np.zeros_like(u)
    if domain == "positive":
        return np.exp(u), u
    return special.expit(u), special.log_expit(u) + special.log_expit(-u)


def log1mexp(d):
    """log(1 − e^d) for d ≤ 0, accurate near 0 and far below (Mächler 2012); −∞ at d = 0, NaN for NaN."""
    d = np.minimum(d, 0.0)
    return np.where(d > -np.log(2.0), np.log(-np.expm1(d)), np.log1p(-np.exp(d)))


def gamma_logpdf(x, shape, rate):
    """Log density of a Gamma(shape, rate) prior, vectorised (helper for priors)."""
    x = np.asarray(x, dtype=float)
    if np.isscalar(shape) and np.isscalar(rate):  # the usual prior constants: no array calls for them
        const = shape * math.log(rate) - math.lgamma(shape)
    else:
        const = shape * np.log(rate) - special.gammaln(shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = const + (shape - 1) * np.log(x) - rate * x
    return np.where(x > 0, out, -np.inf)


def beta_logpdf(x, a, b):
    """Log density of a Beta(a, b) prior, vectorised (helper for priors; ``-inf`` outside (0, 1))."""
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = special.xlogy(a - 1, x) + special.xlog1py(b - 1, -x) - special.betaln(a, b)
    return np.where((x > 0) & (x < 1), out, -np.inf)


def normal_logpdf(x, loc, scale):
    """Log density of a Normal(loc, scale) prior, vectorised (helper for priors)."""
    z = (np.asarray(x, dtype=float) - loc) / scale
    return -0.5 * z * z - np.log(scale) - 0.5 * np.log(2 * np.pi)


class Family:
    """Base class of the class-conditional families (see the module docstring).

    Subclasses set ``name``, ``params``, ``support`` and implement
    ``_logpdf(x, *p)``, ``scipy_dist(*p)``, ``mean(*p)``, ``initialize(x)``
    and ``_log_prior(*p)``. The ``*p`` are the parameter columns, each of
    shape (M, 1), and ``x`` has shape (1, N), so that results broadcast to
    (M, N).
    """

    name: ClassVar[str] = ""
    params: ClassVar[tuple[Param, ...]] = ()
    support: ClassVar[str] = "real"  # "real", "positive" or "unit" (of x)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.name:
            add_unique(REGISTRY, cls.name, cls(), "family")

    # ----- declared by subclasses -------------------------------------------------
    def _logpdf(self, x, *p):  # pragma: no cover - abstract
        raise NotImplementedError

    def scipy_dist(self, *p):  # pragma: no cover - abstract
        """The frozen ``scipy.stats`` distribution with these parameters."""
        raise NotImplementedError

    def mean(self, *p):  # pragma: no cover - abstract
        raise NotImplementedError

    def initialize(self, x):  # pragma: no cover - abstract
        raise NotImplementedError

    def _log_prior(self, *p):  # pragma: no cover - abstract
        raise NotImplementedError

    # ----- derived -----------------------------------------------------------------
    @property
    def n_params(self) -> int:
        """P, the number of parameters."""
        return len(self.params)

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    def _columns(self, theta):
        if not (isinstance(theta, np.ndarray) and theta.ndim == 2 and theta.dtype == np.float64):
            theta = np.atleast_2d(np.asarray(theta, dtype=float))
        if theta.shape[-1] != self.n_params:
            raise ValueError(
                f"{self.name}: θ must have {self.n_params} columns "
                f"({', '.join(self.param_names)}), got shape {theta.shape}"
            )
        return [theta[:, j : j + 1] for j in range(self.n_params)]

    def _in_support(self, x):
        if self.support == "positive":
            return x > 0
        if self.support == "unit":
            return (x > 0) & (x < 1)
        return np.isfinite(x)

    def logpdf(self, theta, x):
        """Log density of model-space scores under each parameter draw.

        Parameters
        ----------
        theta : array, shape (M, P) or (P,)
            Parameters in the constrained space, columns as in ``params``.
        x : array, shape (N,)
            Model-space scores.

        Returns
        -------
        array, shape (M, N)
            ``log p(x_i | θ_m)``; ``-inf`` outside the support.

        Raises
        ------
        ValueError
            If θ does not have P columns.
        """
        x = np.asarray(x, dtype=float)[None, :]
        cols = self._columns(theta)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            out = self._logpdf(x, *cols)
        return np.where(self._in_support(x) & ~np.isnan(out), out, -np.inf)

    def logcdf(self, theta, x):
        """``log P(X ≤ x | θ)``, shape (M, N); see :meth:`logpdf`."""
        return self.log_cdf_sf(theta, x)[0]

    def logsf(self, theta, x):
        """``log P(X > x | θ)``, shape (M, N); see :meth:`logpdf`."""
        return self.log_cdf_sf(theta, x)[1]

    def log_cdf_sf(self, theta, x):
        """``(log P(X ≤ x | θ), log P(X > x | θ))``, each of shape (M, N); see :meth:`logpdf`.

        Families with closed forms override this (one pass for both tails);
        the default asks the frozen ``scipy.stats`` distribution.
        """
        x = np.asarray(x, dtype=float)[None, :]
        dist = self.scipy_dist(*self._columns(theta))
        return np.asarray(dist.logcdf(x), dtype=float), np.asarray(dist.logsf(x), dtype=float)

    def log_bin_mass(self, theta, edges, lower, upper):
        """Log probability of score bins: ``log P(e_lower < X ≤ e_upper | θ)`` per draw and bin.

        The exact likelihood of binned scores (the histogram of the
        unlabeled scores at large N, :meth:`spe.models.mixture.MixtureData.build`
        with ``edges``), from differences of the CDF below the median and of
        the survival function above it, in log space, so that neither tail
        cancels: for a bin whose upper edge has F ≤ ½,
        ``log F(b) + log(1 − F(a)/F(b))``, else
        ``log S(a) + log(1 − S(b)/S(a))``. Where that is not finite (a
        family whose CDF rounds to 0 or 1 across the bin), the midpoint rule
        ``log p(mid) + log(b − a)`` is used instead.

        Parameters
        ----------
        theta : array, shape (M, P)
            Constrained parameters.
        edges : array, shape (E,)
            Sorted bin edges, model space.
        lower, upper : int arrays, shape (K,)
            Indices into ``edges`` of each bin's lower and upper edge
            (``lower < upper``).

        Returns
        -------
        array, shape (M, K)
            Log probabilities (≤ 0); ``-inf`` for a bin with no mass.
        """
        edges = np.asarray(edges, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
            lc, ls = self.log_cdf_sf(theta, edges)
            lcb, lsa = lc[:, upper], ls[:, lower]
            below = lcb <= -np.log(2.0)
            # choose the tail before taking log1mexp, so it runs once per bin, not once per tail
            base = np.where(below, lcb, lsa)
            out = base + log1mexp(np.where(below, lc[:, lower], ls[:, upper]) - base)
            bad = ~np.isfinite(out) | (out > 0)
            if bad.any():
                cols = np.flatnonzero(bad.any(axis=0))
                a, b = edges[lower[cols]], edges[upper[cols]]
                mid = self.logpdf(theta, 0.5 * (a + b)) + np.log(b - a)[None, :]
                out[:, cols] = np.where(bad[:, cols], np.minimum(mid, 0.0), out[:, cols])
        return out

    def log_prior(self, theta):
        """Log prior density of constrained θ, shape (M,); ``-inf`` out of domain."""
        cols = self._columns(theta)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.asarray(self._log_prior(*cols), dtype=float).reshape(-1)
        return np.where(np.isnan(out), -np.inf, out)

    def mean_of(self, theta):
        """Mean of the model-space score under each draw, shape (M,)."""
        cols = self._columns(theta)
        with np.errstate(all="ignore"):
            return np.asarray(self.mean(*cols), dtype=float).reshape(-1)

    def to_unconstrained(self, theta):
        """Map constrained θ (M, P) to unconstrained u (M, P)."""
        cols = self._columns(theta)
        return np.hstack([_to_unconstrained(c, p.domain) for c, p in zip(cols, self.params)])

    def from_unconstrained(self, u):
        """Map unconstrained u (M, P) to (θ (M, P), log-Jacobian (M,))."""
        cols = self._columns(u)
        theta = np.empty((cols[0].shape[0], len(cols))) if cols else np.empty((1, 0))
        jac = np.zeros(theta.shape[0])
        for j, (c, p) in enumerate(zip(cols, self.params)):  # the Jacobian summed column by column, left to right
            value, log_jac = _from_unconstrained(c[:, 0], p.domain)
            theta[:, j] = value
            if p.domain != "real":
                jac += log_jac
        return theta, jac

    def __repr__(self):
        return f"<family {self.name}({', '.join(self.param_names)})>"


def get_family(name) -> Family:
    """The registered family called ``name``.

    Raises
    ------
    ValueError
        If no family has that name; the message lists the known ones.
    """
    if isinstance(name, Family):
        return name
    try:
        return REGISTRY[name]
    except KeyError:
        raise ValueError(
            f"unknown family {name!r}; known families: {', '.join(family_names())}"
        ) from None


def family_names() -> list[str]:
    """Names of all registered families, sorted."""
    return sorted(REGISTRY)
