"""The piecewise-linear Bayesian recalibration (Zhang & Yang's piecewise logistic regression with priors)."""

import numpy as np
import pytest
from scipy import special, stats

import spe
from spe.models.piecewise import SLOPE_SPREAD, fit_piecewise, knots_at_quantiles, piece_lengths
from spe.models.recalibration import PRIORS, fit_recalibration


def identity(v):
    return np.asarray(v, dtype=float)


def simulated(n_items=4000, seed=0):
    """Log-odds features and labels drawn from a known piecewise-linear link: shallow below 0, steep above."""
    rng = np.random.default_rng(seed)
    z = rng.normal(0.0, 2.0, n_items)
    eta = -1.0 + np.where(z < 0, 0.3 * z, 2.0 * z)
    y = (rng.random(n_items) < special.expit(eta)).astype(int)
    return z, y, eta


def test_knots_are_distinct_interior_quantiles():
    z = np.arange(1000.0)
    assert np.allclose(knots_at_quantiles(z), np.quantile(z, [0.1, 0.5, 0.9], method="inverted_cdf"))
    tied = np.r_[np.zeros(600), np.arange(1.0, 401.0)]  # the 10% and 50% quantiles are both the tied minimum
    assert np.allclose(knots_at_quantiles(tied), [np.quantile(tied, 0.9, method="inverted_cdf")])
    assert knots_at_quantiles(np.r_[np.zeros(50), np.ones(50)]).size == 0


def test_equal_slopes_are_one_line_and_lengths_add_up():
    z = np.linspace(-7, 9, 301)
    knots = np.array([-2.0, 0.5, 3.0])
    h = piece_lengths(z, knots)
    assert np.allclose(h.sum(axis=1), z)
    eta = 0.3 + np.array([0.5, 1.0, 2.0, 4.0]) @ h.T
    assert np.all(np.diff(eta) > 0)  # monotone
    # continuous at the knots, slope b_j inside piece j
    for j, (lo, hi) in enumerate(zip([-7, -2, 0.5, 3], [-2, 0.5, 3, 9])):
        inside = (z > lo + 1e-9) & (z < hi - 1e-9)
        assert np.allclose(np.diff(eta[inside]) / np.diff(z[inside]), [0.5, 1.0, 2.0, 4.0][j])


@pytest.mark.parametrize("n_labels", [5, 20, 80])
def test_with_one_slope_the_evidence_is_the_two_parameter_models_exact_evidence(n_labels):
    """τ → 0 makes every piece share the common slope: the model is the 'calibrated' recalibration, whose
    evidence is exact on a grid. The importance-sampling estimate agrees within 0.1 nats."""
    z, y, _ = simulated(seed=n_labels)
    idx = np.random.default_rng(1).choice(z.size, n_labels, replace=False)
    grid = fit_recalibration("calibrated", identity, z, idx, y[idx], rng=0)
    one_slope = fit_piecewise(identity, z, idx, y[idx], spread=1e-6, rng=0, draws=2000)
    assert one_slope.log_evidence == pytest.approx(grid.log_evidence, abs=0.1)


def test_the_evidence_matches_brute_force_integration_over_the_prior():
    z, y, _ = simulated(seed=3)
    idx = np.random.default_rng(4).choice(z.size, 15, replace=False)
    model = fit_piecewise(identity, z, idx, y[idx], rng=0, draws=2000)
    rng = np.random.default_rng(5)
    m, prior = 400_000, PRIORS["calibrated"]
    a = rng.normal(prior.a_mean, prior.a_sd, m)
    logb = stats.t(prior.logb_df, prior.logb_mean, prior.logb_sd).rvs(size=4 * m, random_state=rng)
    lo, hi = prior.logb_range()
    logb = logb[(logb >= lo) & (logb <= hi)][:m]  # the truncated prior, by rejection
    e = rng.normal(size=(m, 4))
    slopes = np.exp(logb[:, None] + SLOPE_SPREAD * e)
    h = piece_lengths(z[idx], knots_at_quantiles(z))
    eta = a[:, None] + slopes @ h.T
    log_lik = special.log_expit(np.where(y[idx] == 1, 1.0, -1.0) * eta).sum(axis=1)
    brute = special.logsumexp(log_lik) - np.log(m)
    assert model.log_evidence == pytest.approx(brute, abs=0.1)


@pytest.mark.slow
def test_many_labels_recover_a_bent_link_and_its_credible_band_covers_it():
    z, y, eta = simulated(n_items=6000, seed=7)
    idx = np.random.default_rng(8).choice(z.size, 3000, replace=False)
    model = fit_piecewise(identity, z, idx, y[idx], rng=0, knots=np.array([-1.0, 0.0, 1.0]))
    pw = fit_recalibration("calibrated", identity, z, idx, y[idx], rng=0)
    assert model.log_evidence > pw.log_evidence + 20  # the labels prefer the bend decisively
    slopes = model.diagnostics["posterior_mean"]["slopes"]
    assert slopes[0] == pytest.approx(0.3, abs=0.15) and slopes[-1] == pytest.approx(2.0, abs=0.5)
    probe = np.array([-4.0, -1.5, 0.5, 2.5])
    p = model.probability(model.draws, probe)
    lo, hi = [np.quantile(p, q, axis=0, weights=model.weights, method="inverted_cdf") for q in (0.005, 0.995)]
    truth = special.expit(-1.0 + np.where(probe < 0, 0.3 * probe, 2.0 * probe))
    assert np.all((lo <= truth) & (truth <= hi))


def test_a_piece_without_labels_keeps_its_prior_spread():
    """Labels only in the middle pieces: the slope of the top piece stays as uncertain as its prior says."""
    z, y, _ = simulated(seed=11)
    knots = knots_at_quantiles(z)
    middle = np.flatnonzero((z > knots[0]) & (z < knots[-1]))
    idx = np.random.default_rng(12).choice(middle, 60, replace=False)
    model = fit_piecewise(identity, z, idx, y[idx], rng=0, draws=4000)
    e_top = model.draws[:, -1]
    mean = model.weights @ e_top
    sd = np.sqrt(model.weights @ (e_top - mean) ** 2)
    assert sd == pytest.approx(1.0, abs=0.25) and abs(mean) < 0.4


def test_no_labels_is_the_prior_with_evidence_one():
    z, _, _ = simulated(seed=2)
    model = fit_piecewise(identity, z, np.zeros(0, dtype=int), np.zeros(0, dtype=int), rng=0)
    assert model.log_evidence == 0.0 and model.loo.size == 0
    assert model.weights @ model.draws[:, 0] == pytest.approx(PRIORS["calibrated"].a_mean, abs=0.2)


def test_same_seed_same_draws_and_too_few_distinct_scores_give_no_model():
    z, y, _ = simulated(seed=4)
    idx = np.arange(20)
    a = fit_piecewise(identity, z, idx, y[idx], rng=3)
    b = fit_piecewise(identity, z, idx, y[idx], rng=3)
    assert np.array_equal(a.draws, b.draws) and np.array_equal(a.weights, b.weights)
    assert fit_piecewise(identity, np.r_[np.zeros(10), np.ones(10)], idx, y[idx]) is None
    with pytest.raises(ValueError, match="spread"):
        fit_piecewise(identity, z, idx, y[idx], spread=0.0)


def test_evaluate_averages_the_piecewise_model_and_can_use_it_alone():
    rng = np.random.default_rng(0)
    z, y, _ = simulated(n_items=3000, seed=5)
    s = special.expit(z)
    idx = rng.choice(s.size, 40, replace=False)
    ev = spe.evaluate(s, (idx, y[idx]), draws=300, rng=1, families="truncnorm,truncnorm")
    names = [m["model"] for m in ev.diagnostics["score_models"]]
    assert "piecewise" in names
    alone = spe.evaluate(s, (idx, y[idx]), draws=300, rng=1, score_model="piecewise")
    assert [m["model"] for m in alone.diagnostics["score_models"]] == ["piecewise"]
    assert 0.0 < alone.prevalence().mean < 1.0
