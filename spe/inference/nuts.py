"""The reference sampler: NUTS (PyMC) on the same log posterior as importance sampling.

Importance sampling around the MAP (:mod:`spe.inference.importance`) is the
paper's fast path (Welinder et al. 2013, §3.1). This module samples the very
same target with the No-U-Turn Sampler (Hoffman & Gelman 2014) as
implemented by PyMC, to check the fast path where the posterior is not
close to Gaussian.

"The same target" is meant literally: the PyMC model is a flat prior on the
unconstrained parameters u (P,) plus one ``pm.Potential`` whose value is the
score model's own numpy log posterior (prior, log-Jacobian, labeled and
unlabeled likelihood, tempering), so no second implementation of any family
can drift from the first. Its gradient is a central finite difference,
evaluated in the same vectorised call as the value (2P + 1 points). NUTS
stays exact with such a gradient: the leapfrog map with any deterministic
force field is reversible and volume-preserving, and the accept step uses
the exact log density; a rough gradient only costs efficiency.

Hard constraints (the mixture's identification of the positive component)
would put walls in the posterior that HMC cannot cross smoothly, so NUTS
samples the log posterior without them (``log_posterior`` is smooth), chains
start at the MAP, and draws outside the constrained region are dropped
afterwards (``accept``): the kept draws are distributed as the constrained
posterior, exactly as rejection would give. The fraction dropped is
reported.

PyMC and PyTensor are imported only here, and only when this sampler runs.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import os

import numpy as np

from ..exceptions import SpeInputError
from .importance import PosteriorDraws

__all__ = ["nuts_sample", "nuts_warnings", "require_pymc", "INSTALL_NUTS", "GRADIENT_STEP", "R_HAT_GOOD", "ESS_GOOD"]

#: R-hat above which the chains disagree (Vehtari et al. 2021).
R_HAT_GOOD = 1.01
#: Smallest bulk ESS worth reporting bands from.
ESS_GOOD = 100

#: Relative step of the central finite-difference gradient: h_j = GRADIENT_STEP · max(1, |u_j|).
GRADIENT_STEP = 1e-5


#: How to get PyMC and ArviZ (its diagnostics), which only ``inference="nuts"`` needs.
INSTALL_NUTS = "pip install 'spe[nuts]'"


def _installed(module):
    """Whether ``module`` can be imported, without importing it."""
    try:
        return importlib.util.find_spec(module) is not None
    except ValueError:  # already in sys.modules, without a spec: importing it returns that module
        return True


def require_pymc():
    """Raise ``SpeInputError`` (argument ``inference``) saying how to install PyMC and ArviZ when either is not
    installed; ``inference="nuts"`` checks this before any fit."""
    missing = [name for name, module in (("PyMC", "pymc"), ("ArviZ", "arviz")) if not _installed(module)]
    if missing:
        which = "which is" if len(missing) == 1 else "which are"
        raise SpeInputError(f"'nuts' needs {' and '.join(missing)}, {which} not installed: {INSTALL_NUTS} (or use "
                            "the default, 'importance')", argument="inference")


def _value_and_gradient(log_posterior, u):
    """log p(u) and its central finite-difference gradient, from one batched call on 2P + 1 points."""
    u = np.asarray(u, dtype=float)
    p = u.size
    h = GRADIENT_STEP * np.maximum(1.0, np.abs(u))
    step = np.diag(h)
    values = np.asarray(log_posterior(np.vstack([u[None, :], u + step, u - step])), dtype=float)
    value, up, down = values[0], values[1:p + 1], values[p + 1:]
    with np.errstate(invalid="ignore"):
        grad = (up - down) / (2 * h)
        # at the edge of the support one side is -inf: use the one-sided difference from the finite side
        one_up = (up - value) / h
        one_down = (value - down) / h
    grad = np.where(np.isfinite(grad), grad, np.where(np.isfinite(one_up), one_up,
                                                      np.where(np.isfinite(one_down), one_down, 0.0)))
    return value, grad


def _logp_op(log_posterior):
    """A PyTensor Op u (P,) → (log p(u), ∇ log p(u)) whose first output differentiates to the second."""
    import pytensor.tensor as pt
    from pytensor.graph.basic import Apply
    from pytensor.graph.op import Op

    class LogPosterior(Op):
        __props__ = ()

        def make_node(self, u):
            u = pt.as_tensor_variable(u)
            return Apply(self, [u], [pt.dscalar(), pt.dvector()])

        def perform(self, node, inputs, outputs):
            value, grad = _value_and_gradient(log_posterior, inputs[0])
            outputs[0][0] = np.asarray(value, dtype=float)
            outputs[1][0] = grad

        def L_op(self, inputs, outputs, output_grads):
            g = output_grads[0]
            return [g * outputs[1]]

    return LogPosterior()


@contextlib.contextmanager
def _quiet_pymc():
    """PyMC's INFO lines ("Initializing NUTS…", "Multiprocess sampling…") held back while it samples: the
    progress bar (when asked for) says it is working, and the diagnostics say how it went."""
    logger = logging.getLogger("pymc")
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(level)


def nuts_sample(log_posterior, u_start, *, draws=1000, chains=2, tune=None, accept=None, rng=None,
                progressbar=True, cores=None) -> PosteriorDraws:
    """Posterior draws by NUTS (PyMC), from chains started at the MAP.

    Parameters
    ----------
    log_posterior : callable
        u (M, P) → (M,): the unnormalised log posterior density of
        unconstrained parameters, smooth (no hard walls; see ``accept``).
    u_start : array, shape (P,)
        Starting point of every chain (the MAP).
    draws : int
        M, posterior draws in total over all chains (before ``accept``).
    chains : int
        Independent chains (≥ 2 for R-hat).
    tune : int, optional
        Adaptation iterations per chain (default: the draws per chain, at
        least 500).
    accept : callable, optional
        u (M, P) → bool (M,): the constrained region; draws outside are
        dropped.
    rng : numpy.random.Generator, int or None
        Seeds PyMC (same seed, same draws).
    progressbar : bool
        PyMC's progress bar while sampling.
    cores : int, optional
        Chains sampled in parallel, at most ``chains`` (default:
        ``min(chains, CPUs)``; :func:`spe.evaluate` passes its ``workers``).

    Returns
    -------
    PosteriorDraws
        ``u`` (M', P) the kept draws, chain by chain; equal ``weights``;
        ``ess`` the smallest bulk ESS over the parameters (ArviZ) times the
        fraction of draws kept;
        ``pareto_k`` NaN (no importance weights); ``proposal`` "NUTS";
        ``rounds`` one dict with ``r_hat`` (largest over the parameters),
        ``ess_bulk``, ``ess_tail``, ``divergences``, ``dropped`` (fraction
        outside ``accept``), ``chains``, ``draws_per_chain``, ``tune`` and
        ``step_size``. The PyMC ``InferenceData`` (unconstrained ``u``) is
        attached as ``inference_data``.

    Raises
    ------
    ValueError
        ``draws`` < ``chains`` or ``chains`` < 1.
    RuntimeError
        Every draw falls outside ``accept``.
    """
    import arviz as az
    import pymc as pm

    if chains < 1 or draws < chains:
        raise ValueError(f"need chains ≥ 1 and draws ≥ chains, got draws={draws}, chains={chains}")
    per_chain = int(np.ceil(draws / chains))
    tune = max(per_chain, 500) if tune is None else int(tune)
    u_start = np.asarray(u_start, dtype=float)
    seed = int(np.random.default_rng(rng).integers(2**31 - 1))
    cores = min(chains, os.cpu_count() or 1) if cores is None else max(1, min(chains, int(cores)))
    op = _logp_op(log_posterior)
    with _quiet_pymc(), pm.Model():
        u = pm.Flat("u", shape=u_start.size, initval=u_start)
        pm.Potential("log_posterior", op(u)[0])
        idata = pm.sample(draws=per_chain, tune=tune, chains=chains, cores=cores, random_seed=seed,
                          init="adapt_diag", progressbar=progressbar, compute_convergence_checks=False,
                          return_inferencedata=True)
    u_draws = idata.posterior["u"].values  # (chains, per_chain, P)
    flat = u_draws.reshape(-1, u_start.size)
    keep = np.ones(flat.shape[0], dtype=bool) if accept is None else np.asarray(accept(flat), dtype=bool)
    if not keep.any():
        raise RuntimeError("NUTS: every draw fell outside the constrained region (the components are not "
                           "identified there); use inference='importance'")
    summary = az.summary(idata, var_names=["u"], kind="diagnostics")
    stats = {
        "r_hat": float(summary["r_hat"].max()),
        "ess_bulk": float(summary["ess_bulk"].min()),
        "ess_tail": float(summary["ess_tail"].min()),
        "divergences": int(idata.sample_stats["diverging"].values.sum()),
        "dropped": float(1.0 - keep.mean()),
        "chains": int(chains),
        "draws_per_chain": per_chain,
        "tune": tune,
        "step_size": float(np.mean(idata.sample_stats["step_size"].values)),
    }
    kept = flat[keep]
    return PosteriorDraws(u=kept, weights=np.full(kept.shape[0], 1.0 / kept.shape[0]),
                          ess=stats["ess_bulk"] * keep.mean(), pareto_k=float("nan"),
                          proposal=f"NUTS (PyMC), {chains} chains × {per_chain} draws after {tune} tuning",
                          rounds=[stats], inference_data=idata)


def nuts_warnings(stats):
    """Plain-language warnings, with a remedy, for poor NUTS diagnostics (the ``rounds[0]`` dict): list of str."""
    out = []
    if stats["r_hat"] > R_HAT_GOOD:
        out.append(f"NUTS: R-hat = {stats['r_hat']:.3f} > {R_HAT_GOOD}: the chains have not converged to the same "
                   "distribution; run more draws (--draws) or compare with --inference importance")
    if stats["divergences"]:
        out.append(f"NUTS: {stats['divergences']} divergent transitions: the sampler missed part of the posterior; "
                   "the bands may be too narrow; try other families (--families)")
    if stats["ess_bulk"] < ESS_GOOD:
        out.append(f"NUTS: effective sample size {stats['ess_bulk']:.0f} < {ESS_GOOD}: the bands are noisy; run "
                   "more draws (--draws)")
    if stats["dropped"] > 0.9:
        out.append(f"NUTS: {100 * stats['dropped']:.0f}% of the draws fell outside the region where the positive "
                   "component is identified and were dropped; the rest may be few (see the ESS)")
    return out
