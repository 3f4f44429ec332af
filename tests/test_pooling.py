"""Partial pooling of several pools' departures from one reference set (spe.models.pooling), checked against
Monte Carlo integration of the same hierarchical model, and through spe.monitor."""

import numpy as np
import pytest
from scipy import special

import spe
from spe.models.deviation import PRIOR, labels_information
from spe.models.pooling import (CONCENTRATION, drift_predictive, pooled_drift_priors, pooled_hypothesis_masses)

SIGMA0 = np.array([PRIOR.a_sd ** 2, PRIOR.logb_sd ** 2])
INFOS = [(np.array([[3.0, 1.0], [1.0, 2.0]]), np.array([-0.5, 0.2])),
         (np.array([[1.0, 0.3], [0.3, 4.0]]), np.array([0.4, -0.1]))]


def test_drift_predictive_matches_monte_carlo():
    rho, m_draws = 0.4, 400_000
    mean, cov, log_ml = drift_predictive(INFOS, rho)
    rng = np.random.default_rng(0)
    mu = rng.normal(0, np.sqrt(rho * SIGMA0), (m_draws, 2))
    log_w = np.zeros(m_draws)
    for lam, eta in INFOS:
        theta = mu + rng.normal(0, np.sqrt((1 - rho) * SIGMA0), (m_draws, 2))
        log_w += theta @ eta - 0.5 * np.einsum("mi,ij,mj->m", theta, lam, theta)
    assert log_ml == pytest.approx(special.logsumexp(log_w) - np.log(m_draws), abs=2e-3)
    w = np.exp(log_w - special.logsumexp(log_w))
    new = mu + rng.normal(0, np.sqrt((1 - rho) * SIGMA0), (m_draws, 2))
    assert mean == pytest.approx(w @ new, abs=2e-3)
    assert np.diag(cov) == pytest.approx(w @ (new - w @ new) ** 2, rel=0.02)


def test_drift_priors_default_without_other_labels_and_move_with_shared_evidence():
    assert pooled_drift_priors([None, None]) == [PRIOR, PRIOR]
    assert pooled_drift_priors([INFOS[0]])[0] == PRIOR  # a pool's own labels are not counted twice
    # many pools whose labels each put the drift near a = -0.25 sharply: the others' prior follows them
    lam = np.diag([400.0, 400.0])
    strong = [(lam, lam @ np.array([-0.25, 0.0]))] * 8
    priors = pooled_drift_priors(strong + [None])
    assert priors[-1].a_mean == pytest.approx(-0.25, abs=0.06)
    assert priors[-1].a_sd < PRIOR.a_sd
    assert priors[0].a_mean < -0.15


def test_labels_information_is_the_log_likelihoods_curvature():
    rng = np.random.default_rng(1)
    z = rng.normal(0, 2, 40)
    y = (rng.random(40) < special.expit(0.3 + z)).astype(int)
    at = np.array([0.2, 0.1])

    def loglik(theta):
        return special.log_expit(np.where(y == 1, 1, -1) * (theta[0] + np.exp(theta[1]) * z)).sum()

    lam, eta = labels_information(z, y, at)
    h = 1e-4
    e = np.eye(2) * h
    grad = np.array([(loglik(at + e[i]) - loglik(at - e[i])) / (2 * h) for i in range(2)])
    hess = np.array([[(loglik(at + e[i] + e[j]) - loglik(at + e[i] - e[j]) - loglik(at - e[i] + e[j])
                       + loglik(at - e[i] - e[j])) / (4 * h * h) for j in range(2)] for i in range(2)])
    assert np.all(np.linalg.eigvalsh(-hess) > 0)  # positive definite here: nothing clipped
    assert lam == pytest.approx(-hess, rel=1e-4)
    assert eta == pytest.approx(lam @ at + grad, rel=1e-5)
    assert labels_information(np.zeros(0), np.zeros(0), at)[0] == pytest.approx(np.zeros((2, 2)))


def test_hypothesis_masses_match_monte_carlo_of_the_dirichlet_model():
    prior = np.array([0.475, 0.475, 0.05])
    posteriors = [[0.1, 0.1, 0.8], [0.6, 0.35, 0.05], None, [0.2, 0.7, 0.1]]
    masses = pooled_hypothesis_masses(prior, posteriors)
    rng = np.random.default_rng(2)
    pi = rng.dirichlet(CONCENTRATION * prior, 1_000_000)
    for k, got in enumerate(masses):
        w = np.ones(len(pi))
        for j, p in enumerate(posteriors):
            if j != k and p is not None:
                w *= pi @ (np.array(p) / prior)
        assert np.array(got) == pytest.approx(w @ pi / w.sum(), abs=3e-3)
    # pools whose labels say nothing (posterior = prior), or no other labeled pool: today's prior
    assert pooled_hypothesis_masses(prior, [prior, prior])[0] == pytest.approx(tuple(prior))
    assert pooled_hypothesis_masses(prior, [[0.1, 0.1, 0.8], None])[0] == pytest.approx(tuple(prior))


def _beta_pool(rng, n, prevalence=0.3):
    y = rng.random(n) < prevalence
    return np.clip(np.where(y, rng.beta(5, 2, n), rng.beta(2, 5, n)), 0, 1), y.astype(int)


@pytest.mark.slow
def test_monitor_pools_a_new_map_across_chunks():
    """Chunks whose labels contradict the reference make a new map more probable in a chunk whose labels agree:
    its prior P(new map) rises above the default 0.05, and its interval widens."""
    rng = np.random.default_rng(3)
    ref = _beta_pool(rng, 3000)
    s, y = _beta_pool(rng, 4000)
    labels = {}
    for c in range(3):  # chunks 0-2: their top-scored labeled items are negatives (a new map)
        top = c * 1000 + np.argsort(s[c * 1000:(c + 1) * 1000])[-6:]
        labels.update({int(i): 0 for i in top})
    for i in 3000 + rng.choice(1000, 6, replace=False):  # chunk 3: labels as the reference's map says
        labels[int(i)] = int(y[i])
    pooled = spe.monitor(s, reference=ref, labels=labels, chunk_number=4, draws=300, rng=4)
    prior = pooled.diagnostics["pooling"]["rows 3000-3999"]["prior_concept_shift"]
    assert prior > 0.3
    alone = spe.monitor(s[3000:], reference=ref, labels={i - 3000: v for i, v in labels.items() if i >= 3000},
                        draws=300, rng=4)
    pooled_ap, alone_ap = (m.chunks[-1].metrics["average_precision"] for m in (pooled, alone))
    assert pooled_ap.hi - pooled_ap.lo > alone_ap.hi - alone_ap.lo
    assert alone.diagnostics["pooling"] == {}
