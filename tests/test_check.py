"""The posterior-predictive histogram check and the coarsened (tempered) mixture."""

import warnings

import numpy as np
import pytest

from spe.models.mixture.check import (DECISIVE_EXCESS_Z, HistogramCheck, histogram_check, histogram_edges,
                                      map_histogram_check)
from spe.exceptions import SpeWarning
from spe.models.mixture.fit import fit_mixture
from spe.models.mixture import Mixture

from .conftest import simulate


def test_edges_never_split_ties_and_bins_hold_everything():
    x = np.r_[np.zeros(400), np.linspace(0.1, 0.9, 200), np.ones(400)]
    edges = histogram_edges(x, bins=20)
    assert np.all(np.diff(edges) > 0) and edges.max() < 1
    counts = np.bincount(np.searchsorted(edges, x, side="left"), minlength=edges.size + 1)
    assert counts.sum() == x.size
    # the point masses at 0 and 1 each sit whole in one bin
    assert counts[0] >= 400 and counts[-1] >= 400


def _draws_at(mix, pi, th0, th1, m=200):
    u = mix.pack(np.full(m, pi), np.tile(th0, (m, 1)), np.tile(th1, (m, 1)))
    return u, np.full(m, 1.0 / m)


def _from_the_model(seed, pi):
    """4,000 scores from the truncated-normal mixture (0.35, 0.1) / (0.65, 0.1) with prevalence ``pi``, those in
    (0, 1): (the generator, after drawing them; the scores)."""
    rng = np.random.default_rng(seed)
    y = rng.random(4000) < pi
    x = np.where(y, rng.normal(0.65, 0.1, 4000), rng.normal(0.35, 0.1, 4000))
    return rng, x[(x > 0) & (x < 1)]


def _bimodal_unit(rng, n=3000):
    """Unit-interval scores whose negative class is itself bimodal (0.15 and 0.45), 25% positive at 0.75."""
    y = rng.random(n) < 0.25
    neg = np.where(rng.random(n) < 0.5, rng.normal(0.15, 0.04, n), rng.normal(0.45, 0.04, n))
    return np.clip(np.where(y, rng.normal(0.75, 0.08, n), neg), 0.001, 0.999)


def test_check_passes_data_from_the_model_and_matches_theory():
    """Data drawn from the mixture itself: p-value not small, expected KL ≈ (K − 1) / 2N."""
    mix = Mixture("truncnorm", "truncnorm")
    th0, th1, pi = np.array([0.35, 0.1]), np.array([0.65, 0.1]), 0.3
    u, w = _draws_at(mix, pi, th0, th1)
    p_values = []
    for seed in range(20):
        rng, x = _from_the_model(seed, pi)
        res = histogram_check(mix, u, w, x, rng=rng, bins=40)
        assert res.expected_discrepancy == pytest.approx((res.bins - 1) / (2 * x.size), rel=0.25)
        p_values.append(res.p_value)
    # under the model the p-value is uniform: about 1 in 100 below 0.01
    assert np.mean(np.array(p_values) < 0.01) <= 0.1
    assert np.mean(p_values) == pytest.approx(0.5, abs=0.2)


def test_check_fails_a_misfit_and_tempers():
    """A negative class that is itself bimodal cannot be one truncated normal."""
    rng = np.random.default_rng(3)
    n = 3000
    x = _bimodal_unit(rng, n)
    mix = Mixture("truncnorm", "truncnorm")
    u, w = _draws_at(mix, 0.25, np.array([0.3, 0.16]), np.array([0.75, 0.08]))
    res = histogram_check(mix, u, w, x, rng=rng)
    assert not res.passed and res.p_value < 0.01
    assert res.excess > 0.05
    assert 0 < res.tempering < 0.1
    assert res.effective_items == pytest.approx(1 / res.excess)
    assert res.tempering == pytest.approx(res.effective_items / (res.effective_items + n))


def test_tempering_formula_and_dict():
    good = HistogramCheck(p_value=0.3, discrepancy=0.01, expected_discrepancy=0.01, excess=0.0, bins=20, n_items=1000)
    assert good.passed and good.tempering == 1.0 and good.to_dict()["effective_unlabeled_items"] is None
    bad = HistogramCheck(p_value=0.0, discrepancy=0.06, expected_discrepancy=0.01, excess=0.05, bins=20, n_items=980)
    assert bad.tempering == pytest.approx(20 / 1000)
    assert bad.to_dict()["effective_unlabeled_items"] == pytest.approx(20)


def _bimodal_negatives(n=2000):
    """Scores whose negative class is itself bimodal (no single truncated normal fits it), 30 labels."""
    rng = np.random.default_rng(5)
    y = (rng.random(n) < 0.2).astype(int)
    neg = np.where(rng.random(n) < 0.5, rng.normal(-2.0, 0.4, n), rng.normal(0.5, 0.4, n))
    s = np.where(y == 1, rng.normal(2.5, 0.6, n), neg)
    return s, y, np.sort(rng.choice(n, 30, replace=False))


def test_misfit_mixture_is_tempered_and_its_bands_widen():
    """Bimodal negatives under truncnorm,truncnorm: the fit warns, tempers, and the prevalence interval widens."""
    s, y, idx = _bimodal_negatives()

    def prevalence_width(check):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model, _ = fit_mixture(s, idx, y[idx], families="truncnorm,truncnorm", draws=1000, rng=1, check=check)
        pi = model.constrained_draws[:, 0]
        order = np.argsort(pi)
        cdf = np.cumsum(model.weights[order])
        lo, hi = pi[order][np.searchsorted(cdf, 0.05)], pi[order][np.searchsorted(cdf, 0.95)]
        return hi - lo, model, [str(c.message) for c in caught if issubclass(c.category, SpeWarning)]

    plain, _, _ = prevalence_width(False)
    tempered, model, messages = prevalence_width(True)
    hc = model.diagnostics["histogram_check"]
    assert hc["passed"] is False and hc["tempering"] < 0.2
    assert any("do not reproduce the histogram" in m for m in messages)
    assert tempered > 1.5 * plain


def test_check_keeps_a_fitting_mixture_untouched():
    s, y = simulate(1500, 0.3, seed=11)
    idx = np.arange(0, 1500, 75)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model, _ = fit_mixture(s, idx, y[idx], families="truncnorm,truncnorm", draws=500, rng=2)
    hc = model.diagnostics["histogram_check"]
    assert hc["passed"] and hc["tempering"] == 1.0



def _logistic_model(a, b, m=400, spread=0.05, seed=0):
    from scipy import special

    from spe.models.base import FittedScoreModel

    rng = np.random.default_rng(seed)
    draws = np.column_stack([rng.normal(a, spread, m), rng.normal(b, spread, m)])
    return FittedScoreModel(name="logistic", draws=draws, weights=np.full(m, 1.0 / m),
                            probability=lambda d, s: special.expit(d[:, :1] + d[:, 1:2] * np.asarray(s)[None, :]),
                            diagnostics={}, param_names=["a", "b"])


def test_label_check_is_uniform_under_the_model_and_small_under_a_misfit():
    from scipy import special

    from spe.models.criticism import label_check

    model = _logistic_model(-1.0, 2.0)
    p_true, p_flipped = [], []
    for seed in range(200):
        rng = np.random.default_rng(seed)
        s = rng.normal(0, 1.5, 40)
        y = (rng.random(40) < special.expit(-1 + 2 * s)).astype(int)
        p_true.append(label_check(model, s, y, rng=rng))
        p_flipped.append(label_check(model, s, 1 - y, rng=rng))
    p_true, p_flipped = np.array(p_true), np.array(p_flipped)
    assert abs(np.mean(p_true < 0.1) - 0.1) < 0.06  # about uniform: 10% below 0.1
    assert np.mean(p_flipped < 0.01) > 0.95
    assert np.isnan(label_check(model, np.zeros(0), np.zeros(0), rng=np.random.default_rng(0)))


def _fit_bimodal_as_unchecked(**options):
    """The truncated-normal mixture on :func:`_bimodal_negatives` with ``options``, checked to draw exactly what
    it draws with no histogram check; (the fit, the warnings it gave)."""
    s, y, idx = _bimodal_negatives()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit, _ = fit_mixture(s, idx, y[idx], families="truncnorm,truncnorm", draws=300, rng=1, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain, _ = fit_mixture(s, idx, y[idx], families="truncnorm,truncnorm", draws=300, rng=1, check=False)
    np.testing.assert_array_equal(fit.draws, plain.draws)
    return fit, caught


def test_tempering_can_be_switched_off_and_then_changes_nothing():
    off, caught = _fit_bimodal_as_unchecked(temper=False)
    hc = off.diagnostics["histogram_check"]
    assert hc["passed"] is False and hc["tempering"] == 1.0 and hc["tempering_off"] is True
    assert any("tempering is off" in str(c.message) for c in caught)


def test_a_misfit_the_caller_leaves_out_is_not_tempered_and_has_no_evidence():
    """Left out at its MAP (the misfit is decisive there): not sampled, tempered nor its evidence computed; its one
    draw is the MAP the unchecked fit samples around (what the hybrid reads)."""
    s, y, idx = _bimodal_negatives()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out, _ = fit_mixture(s, idx, y[idx], families="truncnorm,truncnorm", draws=300, rng=1, leave_out_misfit=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain, _ = fit_mixture(s, idx, y[idx], families="truncnorm,truncnorm", draws=300, rng=1, check=False)
    hc = out.diagnostics["histogram_check"]
    assert hc["passed"] is False and hc["left_out"] is True and hc["tempering"] == 1.0
    assert hc["at_map"] is True and hc["excess_z"] >= DECISIVE_EXCESS_Z
    assert out.diagnostics["inference"] == "map" and out.diagnostics["ess"] is None
    np.testing.assert_array_equal(out.draws, plain.mixture_fit.u_map[None, :])
    assert out.log_evidence is None and out.loo is None
    assert any("the mixture is left out" in str(c.message) and "at the MAP" in str(c.message) for c in caught)


def test_the_check_at_the_map_agrees_with_theory_and_is_decisive_only_on_a_gross_misfit():
    """:func:`map_histogram_check` (a parametric bootstrap at θ̂): on data from the model its excess is within
    sampling noise (z of order 1, expected KL ≈ (K − 1)/2N), never decisive; bimodal negatives under one
    truncated normal miss the histogram by far more than the threshold."""
    mix = Mixture("truncnorm", "truncnorm")
    th0, th1, pi = np.array([0.35, 0.1]), np.array([0.65, 0.1]), 0.3
    u_map = mix.pack(pi, th0, th1)[0]
    zs = []
    for seed in range(20):
        rng, x = _from_the_model(seed, pi)
        res = map_histogram_check(mix, u_map, x, rng=rng, bins=40)
        assert res.expected_discrepancy == pytest.approx((res.bins - 1) / (2 * x.size), rel=0.25)
        assert not res.decisive
        zs.append(res.excess_z)
    assert max(zs) < 5 and abs(np.mean(zs)) < 1
    rng = np.random.default_rng(3)
    x = _bimodal_unit(rng)
    bad = map_histogram_check(mix, mix.pack(0.25, np.array([0.3, 0.16]), np.array([0.75, 0.08]))[0], x, rng=rng)
    assert bad.decisive and bad.p_value == 0.0 and not bad.passed
    assert bad.to_dict()["at_map"] is True and bad.to_dict()["excess_z"] == bad.excess_z


def test_a_two_component_negative_family_fits_bimodal_negatives():
    """Model expansion (Welinder et al. §4.2, Fig. 3C): where one truncated normal per class fails the
    histogram check, truncnorm2 for the negatives passes it, and the family ranking (BIC) prefers it."""
    s, y, idx = _bimodal_negatives()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one, _ = fit_mixture(s, idx, y[idx], families="truncnorm,truncnorm", draws=300, rng=1)
        two, _ = fit_mixture(s, idx, y[idx], families="truncnorm2,truncnorm", draws=300, rng=1)
        pairs = [("truncnorm", "truncnorm"), ("gamma", "truncnorm"), ("truncnorm2", "truncnorm")]
        auto, ranking = fit_mixture(s, idx, y[idx], families=pairs, draws=300, rng=1)
    assert one.diagnostics["histogram_check"]["passed"] is False
    assert two.diagnostics["histogram_check"]["passed"] is True
    assert two.diagnostics["histogram_check"]["tempering"] == 1.0
    mix = two.mixture_fit.mixture
    pi = mix.constrained(two.draws)[:, 0]
    lo, hi = np.quantile(pi, [0.05, 0.95])
    assert lo <= y.mean() <= hi
    assert auto.mixture_fit.mixture.negative.name == "truncnorm2"
    assert ranking[0].mixture.negative.name == "truncnorm2"
