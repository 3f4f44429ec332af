"""MAP estimation by multi-start L-BFGS-B (Welinder et al. 2013, §3.1, eq. 9).

The log posterior is any vectorised function ``log_posterior(u) -> (M,)`` of
unconstrained parameters u (M, P). Its gradient is taken by central finite
differences evaluated in one batched call (2P + 1 rows), which costs about
as much as one evaluation of a few parameter draws.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize

__all__ = ["MapResult", "find_map", "hessian"]


@dataclass
class MapResult:
    """The result of :func:`find_map`.

    Attributes
    ----------
    u : array, shape (P,)
        The MAP point in unconstrained space.
    log_posterior : float
        Unnormalised log posterior density there.
    n_starts : int
        Starting points tried.
    n_agree : int
        Starts whose optimum is within 0.5 nats of the best (a check that the
        search found the same mode from several places).
    optima : array, shape (S,)
        Log posterior at each start's optimum (``-inf`` for a failed start).
    """

    u: np.ndarray
    log_posterior: float
    n_starts: int
    n_agree: int
    optima: np.ndarray


def _steps(u):
    return 1e-4 * np.maximum(1.0, np.abs(u))


def _value_and_grad(u, log_posterior, scale):
    p = u.size
    h = _steps(u)
    batch = np.repeat(u[None, :], 2 * p + 1, axis=0)
    idx = np.arange(p)
    batch[1 + idx, idx] += h
    batch[1 + p + idx, idx] -= h
    vals = log_posterior(batch)
    f0 = vals[0]
    if not np.isfinite(f0):
        return 1e20, np.zeros(p)
    up, down = vals[1 : p + 1], vals[p + 1 :]
    grad = np.where(np.isfinite(up) & np.isfinite(down), (up - down) / (2 * h), 0.0)
    return -f0 / scale, -grad / scale


def find_map(log_posterior, starts, *, scale=1.0, maxiter=400, accept=None, searched=None):
    """Maximise a vectorised log posterior from several starting points.

    Parameters
    ----------
    log_posterior : callable
        u (M, P) → (M,), unnormalised, ``-inf`` outside the support.
    starts : array, shape (S, P)
        Starting points (unconstrained).
    scale : float
        The objective is divided by this (e.g. N) to keep L-BFGS-B's
        tolerances meaningful for large data.
    maxiter : int
        Iteration cap per start.
    accept : callable, optional
        u (P,) → bool; an optimum it rejects counts as a failed start (used
        to drop label-switched optima of a mixture).
    searched : MapResult, optional
        The result of an earlier call on the same log posterior from the
        first ``searched.n_starts`` rows of ``starts``: those starts are not
        searched again, their optima are taken from it (the search is
        deterministic, so the result is the same as searching them again).

    Returns
    -------
    MapResult

    Raises
    ------
    RuntimeError
        If no start reaches a finite log posterior.
    """
    starts = np.atleast_2d(np.asarray(starts, dtype=float))
    best_u, best_f = None, -np.inf
    optima = np.full(len(starts), -np.inf)
    done = 0
    if searched is not None:
        done = searched.n_starts
        optima[:done] = searched.optima
        if np.isfinite(searched.log_posterior):
            best_u, best_f = searched.u, searched.log_posterior
    for j, u0 in enumerate(starts[done:], start=done):
        res = optimize.minimize(
            _value_and_grad,
            u0,
            args=(log_posterior, scale),
            jac=True,
            method="L-BFGS-B",
            options={"maxiter": maxiter},
        )
        f = float(log_posterior(res.x[None, :])[0])
        if accept is not None and not accept(res.x):
            f = -np.inf
        optima[j] = f
        if f > best_f:
            best_u, best_f = res.x, f
    if best_u is None:
        raise RuntimeError("MAP search failed: no starting point reached a finite log posterior")
    n_agree = int(np.sum(optima > best_f - 0.5))
    return MapResult(best_u, best_f, len(starts), n_agree, optima)


def hessian(log_posterior, u, *, diagonal_only=False):
    """Finite-difference Hessian of the log posterior at u, one batched call.

    Parameters
    ----------
    log_posterior : callable
        u (M, P) → (M,).
    u : array, shape (P,)
    diagonal_only : bool
        Only the second derivative along each axis (the paper's per-axis
        fit, §3.1), P × P diagonal.

    Returns
    -------
    array, shape (P, P)
    """
    u = np.asarray(u, dtype=float)
    p = u.size
    h = 1e-3 * np.maximum(1.0, np.abs(u))
    rows = [u]
    for i in range(p):
        e = np.zeros(p)
        e[i] = h[i]
        rows += [u + e, u - e]
    pairs = []
    if not diagonal_only:
        for i in range(p):
            for j in range(i + 1, p):
                e = np.zeros(p)
                e[i], e[j] = h[i], h[j]
                f = np.zeros(p)
                f[i], f[j] = h[i], -h[j]
                rows += [u + e, u - e, u + f, u - f]
                pairs.append((i, j))
    vals = log_posterior(np.array(rows))
    f0 = vals[0]
    hess = np.zeros((p, p))
    for i in range(p):
        hess[i, i] = (vals[1 + 2 * i] - 2 * f0 + vals[2 + 2 * i]) / h[i] ** 2
    base = 1 + 2 * p
    for k, (i, j) in enumerate(pairs):
        a, b, c, d = vals[base + 4 * k : base + 4 * k + 4]
        hess[i, j] = hess[j, i] = (a + b - c - d) / (4 * h[i] * h[j])
    return hess
