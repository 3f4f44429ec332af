"""The contaminated logistic recalibration (Copas 1988): a floor and a ceiling on p(y = 1 | s)."""

import numpy as np
import pytest
from scipy import integrate, special, stats

from spe.models.contaminated import CONTAMINATION_PRIOR, ContaminatedLink, fit_contaminated
from spe.models.recalibration import PRIORS, fit_recalibration


def identity(v):
    return np.asarray(v, dtype=float)


def simulated(n_items, floor, ceiling, seed):
    """Log-odds features and labels from p = floor + (ceiling − floor) σ(−1 + z)."""
    rng = np.random.default_rng(seed)
    z = rng.normal(-2.0, 4.0, n_items)
    p = floor + (ceiling - floor) * special.expit(-1.0 + z)
    return z, (rng.random(n_items) < p).astype(int)


def test_the_prior_on_floor_and_ceiling_is_the_stated_beta_and_integrates_to_one():
    link = ContaminatedLink(PRIORS["calibrated"])
    alpha, beta = CONTAMINATION_PRIOR

    def density(t):  # the prior of logit ε₀ alone: remove the other terms by evaluating them at fixed values
        u = np.array([[0.0, 0.0, t, 0.0]])
        rest = np.array([[0.0, 0.0, 0.0, 0.0]])
        return float(np.exp(link.log_prior(u) - link.log_prior(rest))[0]) * _logit_beta_pdf(0.0, alpha, beta)

    assert integrate.quad(density, -40, 40, limit=200)[0] == pytest.approx(1.0, abs=1e-6)
    t = 0.7
    assert density(t) == pytest.approx(_logit_beta_pdf(t, alpha, beta), rel=1e-9)


def _logit_beta_pdf(t, alpha, beta):
    e = special.expit(t)
    return stats.beta.pdf(e, alpha, beta) * e * (1 - e)


def test_probability_and_likelihood_agree_and_stay_finite_at_extreme_scores():
    link = ContaminatedLink(PRIORS["calibrated"])
    u = np.array([[0.5, np.log(2.0), special.logit(0.03), special.logit(0.2)]])
    z = np.array([-800.0, -3.0, 0.0, 3.0, 800.0])
    p = link.probability(u, z)[0]
    assert p[0] == pytest.approx(0.03) and p[-1] == pytest.approx(0.8)
    ll1 = link.log_likelihood_terms(u, z, np.ones(5, dtype=int))[0]
    ll0 = link.log_likelihood_terms(u, z, np.zeros(5, dtype=int))[0]
    assert np.allclose(np.exp(ll1), p) and np.allclose(np.exp(ll0), 1 - p)


def fitted_with_and_without_contamination(floor, ceiling, seed):
    """Posterior means of the contaminated model, and its log evidence minus the plain recalibration's, on 1,500
    labeled items of 3,000 drawn with the given floor and ceiling."""
    z, y = simulated(3000, floor, ceiling, seed=seed)
    idx = np.random.default_rng(seed + 1).choice(z.size, 1500, replace=False)
    model = fit_contaminated(identity, z, idx, y[idx], rng=0)
    plain = fit_recalibration("calibrated", identity, z, idx, y[idx], rng=0)
    return model.diagnostics["posterior_mean"], model.log_evidence - plain.log_evidence


@pytest.mark.slow
def test_many_labels_recover_the_floor_and_ceiling_and_prefer_the_model():
    mean, log_bayes_factor = fitted_with_and_without_contamination(0.05, 0.8, seed=1)
    assert mean["floor"] == pytest.approx(0.05, abs=0.02) and mean["ceiling"] == pytest.approx(0.8, abs=0.04)
    assert log_bayes_factor > 20


@pytest.mark.slow
def test_clean_labels_leave_a_small_floor_and_ceiling_gap():
    mean, log_bayes_factor = fitted_with_and_without_contamination(0.0, 1.0, seed=3)
    assert mean["floor"] < 0.01 and mean["ceiling"] > 0.99
    assert log_bayes_factor < 1  # the extra parameters buy nothing


def test_the_evidence_matches_brute_force_integration_over_the_prior():
    z, y = simulated(4000, 0.05, 0.8, seed=5)
    idx = np.random.default_rng(6).choice(z.size, 15, replace=False)
    model = fit_contaminated(identity, z, idx, y[idx], rng=0, draws=2000)
    rng = np.random.default_rng(7)
    m, prior = 400_000, PRIORS["calibrated"]
    lo, hi = prior.logb_range()
    logb = stats.t(prior.logb_df, prior.logb_mean, prior.logb_sd).rvs(size=4 * m, random_state=rng)
    u = np.column_stack([rng.normal(prior.a_mean, prior.a_sd, m), logb[(logb >= lo) & (logb <= hi)][:m],
                         special.logit(rng.beta(*CONTAMINATION_PRIOR, size=(m, 2)))])
    log_lik = ContaminatedLink(prior).log_likelihood_terms(u, z[idx], y[idx]).sum(axis=1)
    assert model.log_evidence == pytest.approx(special.logsumexp(log_lik) - np.log(m), abs=0.1)
