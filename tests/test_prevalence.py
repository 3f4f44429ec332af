"""spe.prevalence: SLD's fixed point (Esuli et al. 2020, Alg. 1) against the maximum-likelihood prior, its
recovery of a simulated prior shift, and the counting methods and intervals against direct computation."""

import numpy as np
import pytest
from scipy import optimize, stats

from spe import SpeInputError
from spe.prevalence import REGISTRY, compare_prevalence, estimate_prevalence, sld


def shifted(n, prevalence, rng):
    y = (rng.random(n) < prevalence).astype(int)
    return np.where(y == 1, rng.normal(1.5, 1, n), rng.normal(-0.5, 1, n)), y


def true_posterior(s, prior):
    f1, f0 = stats.norm.pdf(s, 1.5), stats.norm.pdf(s, -0.5)
    return prior * f1 / (prior * f1 + (1 - prior) * f0)


def test_sld_converges_to_the_maximum_likelihood_prior_and_satisfies_eq_5():
    rng = np.random.default_rng(0)
    s, y = shifted(5000, 0.15, rng)
    post = true_posterior(s, 0.5)  # calibrated on a training set of prior 0.5
    prior, adjusted, iterations, converged = sld(post, 0.5)
    assert converged and iterations < 1000
    assert prior == pytest.approx(adjusted.mean(), abs=1e-5)  # eq. 5: the priors and posteriors agree
    # the ML prior: Σ_i (r_i − 1) / (π r_i + 1 − π) = 0, r_i the likelihood ratio f1/f0 = odds(post) · (1−.5)/.5
    r = post / (1 - post)
    mle = optimize.brentq(lambda p: np.sum((r - 1) / (p * r + 1 - p)), 1e-6, 1 - 1e-6)
    assert prior == pytest.approx(mle, abs=1e-4)
    np.testing.assert_allclose(adjusted, true_posterior(s, prior), atol=1e-4)


def test_sld_stops_at_its_iteration_cap():
    rng = np.random.default_rng(1)
    s, _ = shifted(2000, 0.3, rng)
    prior, _, iterations, converged = sld(true_posterior(s, 0.5), 0.5, max_iterations=3)
    assert iterations == 3 and not converged


def test_sld_recovers_a_simulated_prior_shift_within_its_interval():
    rng = np.random.default_rng(2)
    pool, y = shifted(20000, 0.12, rng)
    ref = shifted(3000, 0.5, rng)
    est = estimate_prevalence("sld", pool, None, reference=ref, rng=0, n_resamples=100)
    assert est.lo <= y.mean() <= est.hi
    assert abs(est.estimate - y.mean()) < 0.015
    assert est.details["converged"] and est.details["training_prior"] == pytest.approx(ref[1].mean())
    # classify and count is far off under the shift, and its interval does not cover its bias
    cc = estimate_prevalence("cc", pool, None, rng=0)
    assert cc.hi < y.mean() - 0.1 or cc.lo > y.mean() + 0.1


def test_cc_and_acc_equal_their_formulas():
    rng = np.random.default_rng(3)
    s, y = shifted(4000, 0.25, rng)
    labeled = rng.choice(4000, 200, replace=False)
    labels = {int(i): int(y[i]) for i in labeled}
    unl = np.setdiff1d(np.arange(4000), labeled)
    cc = estimate_prevalence("cc", s, labels, rng=0, threshold=0.3)
    assert cc.estimate == pytest.approx((y[labeled].sum() + np.sum(s[unl] >= 0.3)) / 4000)
    acc = estimate_prevalence("acc", s, labels, rng=0, threshold=0.3)
    tpr, fpr = np.mean(s[labeled][y[labeled] == 1] >= 0.3), np.mean(s[labeled][y[labeled] == 0] >= 0.3)
    adjusted = (np.mean(s[unl] >= 0.3) - fpr) / (tpr - fpr)
    assert acc.estimate == pytest.approx((y[labeled].sum() + unl.size * adjusted) / 4000)
    assert acc.details["tpr"] == pytest.approx(tpr) and acc.lo <= acc.estimate <= acc.hi


def test_labeled_is_the_jeffreys_interval():
    s = np.linspace(-2, 2, 100)
    est = estimate_prevalence("labeled", s, {i: int(i % 4 == 0) for i in range(40)}, level=0.8)
    assert est.estimate == pytest.approx(10 / 40)
    assert (est.lo, est.hi) == pytest.approx(stats.beta.ppf([0.1, 0.9], 10.5, 30.5))


def test_the_natural_threshold_of_probability_scores_is_one_half():
    rng = np.random.default_rng(4)
    p = rng.random(1000)
    est = estimate_prevalence("cc", p, None, rng=0)
    assert est.details["threshold"] == 0.5 and est.estimate == pytest.approx(np.mean(p >= 0.5))


def test_every_method_on_one_pool_and_the_same_seed_twice():
    rng = np.random.default_rng(5)
    s, y = shifted(3000, 0.2, rng)
    labels = {i: int(y[i]) for i in range(80)}
    options = {"sld": {"n_resamples": 50}, "spe": {"draws": 200, "families": "truncnorm,truncnorm"}}
    table = compare_prevalence(s, labels, rng=1, options=options)
    assert list(table.index) == list(REGISTRY)
    assert ((table["lo"] <= table["estimate"]) & (table["estimate"] <= table["hi"])).all()
    again = compare_prevalence(s, labels, rng=1, options=options, methods=["acc", "sld"])
    assert again.loc["sld", "lo"] == table.loc["sld", "lo"] and again.loc["acc", "hi"] == table.loc["acc", "hi"]


def test_bad_input_is_named():
    s = np.linspace(0, 1, 50)
    with pytest.raises(SpeInputError, match="unknown prevalence method"):
        estimate_prevalence("hdy", s, None)
    with pytest.raises(SpeInputError, match="both classes"):
        estimate_prevalence("acc", s, {0: 1, 1: 1})
    with pytest.raises(SpeInputError):
        estimate_prevalence("cc", s, None, level=1.5)


def test_one_labeled_item_of_a_class_gives_no_bootstrap_interval_rather_than_a_false_one():
    s = np.linspace(-2, 2, 200)
    for method in ("acc", "sld"):
        est = estimate_prevalence(method, s, {0: 0, 1: 0, 199: 1}, rng=0)
        assert np.isnan(est.lo) and np.isnan(est.hi) and "fewer than 2" in est.interval
        assert 0 <= est.estimate <= 1


def test_methods_that_need_labels_say_so_and_compare_keeps_the_others():
    rng = np.random.default_rng(6)
    s, y = shifted(500, 0.3, rng)
    for method in ("acc", "sld"):
        with pytest.raises(SpeInputError, match="both classes"):
            estimate_prevalence(method, s, None)
    table = compare_prevalence(s, {0: 0, 1: 0}, methods=["labeled", "cc", "acc", "sld"], rng=0)
    assert np.isnan(table.loc["acc", "estimate"]) and "both classes" in table.loc["sld", "interval"]
    assert table.loc["cc", "estimate"] == pytest.approx(np.mean(s[2:] >= 0) * 498 / 500)


def test_sld_with_every_item_labeled_is_their_fraction():
    rng = np.random.default_rng(7)
    s, y = shifted(60, 0.3, rng)
    est = estimate_prevalence("sld", s, {i: int(y[i]) for i in range(60)}, rng=0)
    assert est.estimate == est.lo == est.hi == pytest.approx(y.mean())


def test_a_bad_reference_set_is_an_input_error():
    s = np.linspace(-1, 1, 100)
    with pytest.raises(SpeInputError, match="0 or 1"):
        estimate_prevalence("sld", s, None, reference=(s[:10], np.r_[np.zeros(5), np.full(5, 2)]))
    with pytest.raises(SpeInputError, match="equal length"):
        estimate_prevalence("acc", s, None, reference=(s[:10], np.zeros(9)))
