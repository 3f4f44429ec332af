"""Logistic recalibration models (grid posterior, exact evidence) and averaging by evidence."""

import functools
import warnings

import numpy as np
import pytest
from scipy import integrate, special, stats

from spe.models.mixture.fit import fit_mixture
from spe.inference import psis_loo
from spe.models.average import average_models, systematic_resample
from spe.models.base import FittedScoreModel
from spe.models.recalibration import PRIORS, RecalibrationPrior, _log_post, fit_recalibration

from .conftest import simulate


class _RememberedPrior:
    """A prior that gives the log densities of ``prior.logpdf`` (to rounding), remembering its two independent
    factors (the class's contract: a and log b independent) per value: dblquad asks for the same a (all through an
    inner integral) and the same log b nodes again and again, and scipy's logpdf calls were 85% of its time.
    The a factor is the prior's own joint log density at the first (a, log b) asked, less the log b factor."""

    def __init__(self, prior):
        self.prior, self._a, self._logb = prior, {}, {}

    def logpdf(self, a, logb):
        ka, kb = float(a[0, 0]), float(logb[0, 0])
        if kb not in self._logb:
            self._logb[kb] = self.prior.logb_logpdf(logb)
        if ka not in self._a:  # the a factor, from the prior's own joint density at this (a, log b)
            self._a[ka] = self.prior.logpdf(a, logb) - self._logb[kb]
        return self._a[ka] + self._logb[kb]


#: The five labels the integration tests fit (small, so dblquad can integrate the posterior exactly).
Z5, Y5 = np.array([-1.0, 0.5, 2.0, -0.3, 1.1]), np.array([0, 1, 1, 0, 0])


@functools.lru_cache(maxsize=None)
def _integrated_log_evidence(name, keep=(True,) * 5):
    """log ∫∫ p(a, log b) p(Y | a, b) over the prior's range of log b and a ± 12 sd (dblquad), of the labels of
    Z5, Y5 that ``keep`` keeps; the same integral is shared by the evidence and the leave-one-out tests."""
    prior, keep = PRIORS[name], np.array(keep)
    z, y, remembered = Z5[keep], Y5[keep], _RememberedPrior(PRIORS[name])
    f = lambda lb, a: np.exp(_log_post(np.array([[a]]), np.array([[lb]]), z, y, remembered))[0, 0]  # noqa: E731
    b_lo, b_hi = prior.logb_range()
    val, _ = integrate.dblquad(f, prior.a_mean - 12 * prior.a_sd, prior.a_mean + 12 * prior.a_sd, b_lo, b_hi)
    return np.log(val)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["calibrated", "platt", "hybrid"])
def test_evidence_matches_numerical_integration(name):
    m = fit_recalibration(name, lambda s: s, Z5, np.arange(5), Y5, draws=50, rng=0)
    assert m.log_evidence == pytest.approx(_integrated_log_evidence(name), abs=1e-3)


def test_the_slope_prior_is_truncated_to_the_grid_and_hardly_loses_mass():
    for name, prior in PRIORS.items():
        b_lo, b_hi = prior.logb_range()
        mass, _ = integrate.quad(lambda lb: np.exp(prior.logb_logpdf(lb)), b_lo, b_hi, points=[prior.logb_mean])
        assert mass == pytest.approx(1.0, abs=1e-6), name  # truncated and renormalised
        untruncated = prior._logb_dist
        assert untruncated.cdf(b_hi) - untruncated.cdf(b_lo) > 0.997, name  # ... but hardly truncated
        assert np.exp(prior.logb_logpdf(b_hi + 0.01)) == 0.0
    assert PRIORS["hybrid"].logb_range() == pytest.approx((-5.0, 5.0))  # t₃: up to b = e^±5
    assert PRIORS["platt"].logb_range() == pytest.approx((np.log(2) - 5, np.log(2) + 5))  # Normal: ±5 sd


def test_no_labels_gives_the_prior_and_zero_log_evidence():
    m = fit_recalibration("calibrated", lambda s: s, np.zeros(3), np.array([], dtype=int), np.array([], dtype=int),
                          draws=4000, rng=1)
    assert m.log_evidence == pytest.approx(0.0, abs=1e-3)
    assert np.mean(m.draws[:, 0]) == pytest.approx(0.0, abs=0.1)
    # log b follows the Student-t₃(0, 0.5) prior: compare quartiles and the 5–95% range
    q = np.quantile(m.draws[:, 1], [0.05, 0.25, 0.75, 0.95])
    assert q == pytest.approx(stats.t.ppf([0.05, 0.25, 0.75, 0.95], 3, 0.0, 0.5), abs=0.1)


@pytest.mark.slow
@pytest.mark.parametrize("prior", [RecalibrationPrior(0.0, 1.5, 0.0, 0.5), PRIORS["calibrated"]],
                         ids=["normal", "student-t"])
def test_posterior_intervals_cover_the_true_parameters_at_about_the_nominal_rate(prior):
    """Labels simulated from σ(a + b z) with (a, b) drawn from the prior: 90% intervals cover.

    With the Student-t prior some slopes are steep (b up to e^±5), where the
    labels are separable: the grid must still hold the posterior.
    """
    covered = []
    for seed in range(40):
        rng = np.random.default_rng(seed)
        a = rng.normal(prior.a_mean, prior.a_sd)
        while True:  # log b from the prior, within the range the grid covers
            logb = prior.logb_mean + prior.logb_sd * (rng.standard_t(prior.logb_df) if np.isfinite(prior.logb_df)
                                                      else rng.standard_normal())
            if prior.logb_range()[0] <= logb <= prior.logb_range()[1]:
                break
        z = rng.normal(0, 2, 60)
        y = (rng.random(60) < special.expit(a + np.exp(logb) * z)).astype(int)
        m = fit_recalibration("calibrated", lambda s: s, z, np.arange(60), y, prior=prior, draws=2000, rng=seed)
        for j, truth in enumerate((a, logb)):
            lo, hi = np.quantile(m.draws[:, j], [0.05, 0.95])
            covered.append(lo <= truth <= hi)
    # 80 intervals at 90%: expect 72; binomial 1% tail is about 65
    assert 65 <= sum(covered) <= 79, sum(covered)


def test_probability_is_monotone_in_the_score():
    z = np.linspace(-3, 3, 40)
    y = (z > 0.3).astype(int)
    m = fit_recalibration("platt", lambda s: s, z, np.arange(40), y, draws=200, rng=0)
    p = m.positive_probability(np.linspace(-4, 4, 50))
    assert p.shape == (200, 50)
    assert np.all(np.diff(p, axis=1) >= 0)


def _const_model(name, p, log_ev, m=100):
    return FittedScoreModel(name, np.zeros((m, 1)), np.full(m, 1 / m),
                            lambda d, s: np.full((d.shape[0], np.size(s)), p), log_evidence=log_ev)


def test_averaging_weights_follow_the_evidence():
    models = [_const_model("a", 0.1, -10.0), _const_model("b", 0.9, -10.0 + np.log(3)), _const_model("c", 0.5, -50.0)]
    avg = average_models(models, draws=1000, rng=0)
    np.testing.assert_allclose(avg.components.weights, [0.25, 0.75, 0.0], atol=1e-12)
    counts = [d["draws"] for d in avg.diagnostics["models"]]
    assert counts == [250, 750, 0] and avg.n_draws == 1000
    p = avg.positive_probability(np.array([0.0]))[:, 0]
    assert np.mean(p) == pytest.approx(0.25 * 0.1 + 0.75 * 0.9)
    assert avg.diagnostics["chosen"] == "b"


def test_the_average_evidence_is_that_of_the_models_averaged():
    """p(Y_L | S) of the averaged model is the prior-weighted mean evidence of the models it averages: an excluded
    model's evidence does not count, and the prior is renormalised over the others."""
    models = [_const_model("a", 0.1, -10.0), _const_model("b", 0.9, -12.0), _const_model("c", 0.5, -2.0)]
    every = average_models(models, draws=300, rng=0)
    assert every.log_evidence == pytest.approx(np.log(np.mean(np.exp([-10.0, -12.0, -2.0]))))
    two = average_models(models, draws=300, rng=0, exclude=[False, False, True], prior=[0.2, 0.3, 0.5])
    assert two.log_evidence == pytest.approx(np.log(0.4 * np.exp(-10.0) + 0.6 * np.exp(-12.0)))
    np.testing.assert_allclose(two.components.weights, [0.4 * np.exp(-10.0), 0.6 * np.exp(-12.0), 0.0]
                               / (0.4 * np.exp(-10.0) + 0.6 * np.exp(-12.0)))


def test_systematic_resampling_follows_the_weights():
    rng = np.random.default_rng(0)
    w = np.array([0.5, 0.25, 0.125, 0.125])
    idx = systematic_resample(w, 800, rng)
    np.testing.assert_array_equal(np.bincount(idx, minlength=4), [400, 200, 100, 100])


def test_mixture_evidence_agrees_with_a_separate_estimate():
    """log p(Y_L | S) from the labeled draws equals E over the unlabeled-only posterior of p(Y_L | S, θ).

    Well-separated classes, so the unlabeled-only posterior is near-Normal and importance sampling is
    reliable for both estimates (with heavy overlap it is bimodal and either estimate varies by ~1 nat).
    """
    s, y = simulate(1000, 0.3, 0, pos=(3.0, 1.0))
    idx = np.arange(0, 1000, 50)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m, _ = fit_mixture(s, idx, y[idx], families="truncnorm,truncnorm", draws=4000, rng=1, resolution=None)
        unl, _ = fit_mixture(s, np.array([], dtype=int), np.array([], dtype=int), families="truncnorm,truncnorm",
                             draws=4000, rng=2, resolution=None)
    p = unl.positive_probability(s[idx])
    log_l = np.where(y[idx] == 1, np.log(p), np.log1p(-p)).sum(axis=1)
    separate = special.logsumexp(log_l, b=unl.weights)
    assert m.log_evidence == pytest.approx(separate, abs=0.2)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["calibrated", "platt"])
def test_leave_one_out_matches_the_ratio_of_integrated_evidences(name):
    """loo_i = log Z(Y) − log Z(Y without i), each Z a dblquad over the same truncated prior."""
    m = fit_recalibration(name, lambda s: s, Z5, np.arange(5), Y5, draws=50, rng=0)
    full = _integrated_log_evidence(name)
    assert m.loo.shape == (5,)
    for i in (1, 3):  # a positive and a negative
        assert m.loo[i] == pytest.approx(full - _integrated_log_evidence(name, tuple(np.arange(5) != i)), abs=2e-3)


def test_psis_loo_matches_the_exact_beta_bernoulli_answer():
    """With a Beta(1, 1) prior, p(y_i = 1 | rest) = (k₋ᵢ + 1) / (n + 1) exactly; draws from the full posterior."""
    y = np.array([1, 0, 0, 1, 1, 0, 0, 0])
    a, b = 1 + y.sum(), 1 + (1 - y).sum()
    theta = stats.beta(a, b).rvs(20000, random_state=1)
    log_lik = np.where(y == 1, np.log(theta)[:, None], np.log1p(-theta)[:, None])
    loo, k = psis_loo(log_lik, np.full(theta.size, 1 / theta.size))
    exact = np.log(np.where(y == 1, (a - 1) / (a + b - 1), (b - 1) / (a + b - 1)))
    np.testing.assert_allclose(loo, exact, atol=0.01)
    assert np.all(k < 0.5)


def test_the_mixture_reports_leave_one_out_values_and_the_average_lists_them():
    s, y = simulate(600, 0.3, 0, pos=(3.0, 1.0))
    idx = np.arange(0, 600, 30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m, _ = fit_mixture(s, idx, y[idx], families="truncnorm,truncnorm", draws=1000, rng=1)
    # a held-out label is predicted a little worse than by the posterior that saw it (1/E[1/p] ≤ E[p]), and
    # close to it: 20 labels move a mixture fitted on 600 scores only for items in the overlap
    p = m.positive_probability(s[idx]).T @ m.weights
    in_sample = np.log(np.where(y[idx] == 1, p, 1 - p))
    assert m.loo.shape == (20,) and np.all(m.loo <= 0)
    assert np.all(m.loo <= in_sample + 1e-3)
    np.testing.assert_allclose(m.loo, in_sample, atol=0.2)
    cal = fit_recalibration("platt", lambda v: v, s, idx, y[idx], draws=200, rng=0)
    avg = average_models([m, cal], draws=400, rng=0)
    listed = {d["model"]: d["elpd_loo"] for d in avg.diagnostics["models"]}
    assert listed == pytest.approx({m.name: m.loo.sum(), "platt": cal.loo.sum()})
