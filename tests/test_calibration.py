"""spe.calibration: each method against its paper's closed forms or scikit-learn, the shared interface, the
comparison's scores."""

import numpy as np
import pytest
from scipy import optimize, stats

from spe import SpeInputError
from spe.calibration import (REGISTRY, AsymmetricGaussian, AsymmetricLaplace, Isotonic, Platt, PiecewiseLogistic,
                             SemisupervisedSPE, calibration_scores, compare_methods, expected_calibration_error, make)
from spe.calibration.bennett import (candidate_modes, gaussian_logpdf, gaussian_spreads, laplace_logpdf,
                                     laplace_spreads, sweep)
from spe.calibration.piecewise import PERCENTILES, hat_basis, slope_penalty


def gaussian_classes(n, prevalence=0.3, seed=0, pos=(1.5, 1.0), neg=(-1.0, 1.5)):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < prevalence).astype(int)
    return np.where(y == 1, rng.normal(*pos, n), rng.normal(*neg, n)), y


def test_platt_equals_sklearn_sigmoid_calibration():
    from sklearn.base import BaseEstimator, ClassifierMixin
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.frozen import FrozenEstimator

    class Identity(ClassifierMixin, BaseEstimator):  # a classifier whose decision function is the score
        def fit(self, X, y):
            self.classes_ = np.array([0, 1])
            return self

        def decision_function(self, X):
            return np.asarray(X)[:, 0]

        def predict(self, X):
            return (np.asarray(X)[:, 0] > 0).astype(int)

    s, y = gaussian_classes(300, pos=(3, 2), neg=(-1, 2))
    ref = CalibratedClassifierCV(FrozenEstimator(Identity().fit(s[:, None], y)), method="sigmoid")
    ref.fit(s[:, None], y)
    grid = np.linspace(-6, 6, 25)
    ours = Platt(score_type="decision").fit(s, y).predict_proba(grid)
    np.testing.assert_allclose(ours, ref.predict_proba(grid[:, None]), atol=2e-5)


@pytest.mark.parametrize("offset", [1e3, 1e6])
def test_platt_does_not_depend_on_where_the_decision_values_sit(offset):
    # unstandardised, L-BFGS stopped at a flat line (slope -0.001) for decision values near 1,000 with a spread of 1
    s, y = gaussian_classes(60, pos=(2, 1), neg=(0, 1))
    grid = np.linspace(-2, 4, 13)
    near_zero = Platt(score_type="decision").fit(s, y)
    shifted = Platt(score_type="decision").fit(s + offset, y)
    np.testing.assert_allclose(shifted.slope_, near_zero.slope_, rtol=1e-6)
    np.testing.assert_allclose(shifted.positive_probability(grid + offset), near_zero.positive_probability(grid),
                               rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("theta", [-0.7, 0.0, 0.4])
def test_laplace_spreads_are_the_maximum_likelihood_at_a_fixed_mode(theta):
    x = stats.laplace_asymmetric.rvs(2.0, loc=0.1, scale=0.8, size=400, random_state=1)
    beta, gamma = laplace_spreads(x, np.array([theta]))

    def nll(log_rates):
        return -laplace_logpdf(x, theta, *np.exp(log_rates)).sum()

    best = optimize.minimize(nll, [0.0, 0.0], method="Nelder-Mead", options={"xatol": 1e-9, "fatol": 1e-10})
    np.testing.assert_allclose([beta[0], gamma[0]], np.exp(best.x), rtol=1e-4)


@pytest.mark.parametrize("theta", [-0.5, 0.2, 1.0])
def test_gaussian_spreads_are_the_maximum_likelihood_at_a_fixed_mode(theta):
    rng = np.random.default_rng(2)
    x = np.concatenate([0.2 - np.abs(rng.normal(0, 0.5, 300)), 0.2 + np.abs(rng.normal(0, 2.0, 300))])
    sl, sr = gaussian_spreads(x, np.array([theta]))

    def nll(log_sd):
        return -gaussian_logpdf(x, theta, *np.exp(log_sd)).sum()

    best = optimize.minimize(nll, [0.0, 0.0], method="Nelder-Mead", options={"xatol": 1e-9, "fatol": 1e-10})
    np.testing.assert_allclose([sl[0], sr[0]], np.exp(best.x), rtol=1e-4)


@pytest.mark.parametrize("kind,logpdf", [("laplace", laplace_logpdf), ("gaussian", gaussian_logpdf)])
def test_the_sweep_finds_the_best_candidate_mode_and_its_likelihood_from_running_sums(kind, logpdf):
    x = stats.skewnorm.rvs(4, size=60, random_state=3)
    theta, a, b = sweep(x, kind)
    spreads = laplace_spreads if kind == "laplace" else gaussian_spreads
    cands = candidate_modes(x)[1:-1]  # at the end modes one side is empty: an unbounded rate
    brute = [logpdf(x, t, *(v[0] for v in spreads(x, np.array([t])))).sum() for t in cands]
    assert theta == pytest.approx(cands[int(np.argmax(brute))])
    assert logpdf(x, theta, a, b).sum() == pytest.approx(max(brute))
    # the continuous optimum over θ is no better than the sweep's by more than the grid's resolution
    cont = optimize.minimize_scalar(lambda t: -logpdf(x, t, *(v[0] for v in spreads(x, np.array([t])))).sum(),
                                    bounds=(cands[0], cands[-1]), method="bounded")
    assert max(brute) >= -cont.fun - 0.05


def test_asymmetric_laplace_recovers_its_own_class_conditionals():
    rng = np.random.default_rng(4)
    neg = stats.laplace_asymmetric.rvs(0.5, loc=-2, scale=1.0, size=4000, random_state=rng)
    pos = stats.laplace_asymmetric.rvs(2.0, loc=2, scale=1.0, size=1000, random_state=rng)
    s, y = np.concatenate([neg, pos]), np.r_[np.zeros(4000, int), np.ones(1000, int)]
    cal = AsymmetricLaplace(score_type="decision").fit(s, y)
    # scipy's laplace_asymmetric(κ, loc, scale): rate left of the mode 1/(scale κ)... right κ/scale
    assert cal.negative_[0] == pytest.approx(-2, abs=0.1)
    assert cal.negative_[1:] == pytest.approx((2.0, 0.5), rel=0.1)
    assert cal.positive_[1:] == pytest.approx((0.5, 2.0), rel=0.1)
    grid = np.linspace(-4, 4, 9)
    truth = 0.2 * stats.laplace_asymmetric.pdf(grid, 2.0, loc=2)
    truth = truth / (truth + 0.8 * stats.laplace_asymmetric.pdf(grid, 0.5, loc=-2))
    np.testing.assert_allclose(cal.positive_probability(grid), truth, atol=0.05)


def test_hat_basis_interpolates_and_extends_the_end_pieces():
    knots, values = np.array([0.0, 1.0, 3.0, 4.0]), np.array([-2.0, 0.0, 1.0, 3.0])
    x = np.linspace(0, 4, 17)
    np.testing.assert_allclose(hat_basis(x, knots) @ values, np.interp(x, knots, values))
    np.testing.assert_allclose(hat_basis([-1.0, 5.0], knots) @ values, [-4.0, 5.0])


def test_slope_penalty_is_the_squared_change_of_slope():
    knots, w = np.array([0.0, 1.0, 3.0, 4.0]), np.array([-2.0, 0.0, 1.0, 3.0])
    slopes = np.diff(w) / np.diff(knots)
    assert w @ slope_penalty(knots) @ w == pytest.approx(np.sum(np.diff(slopes) ** 2))


def test_piecewise_knots_are_class_percentiles_and_a_large_penalty_gives_platt():
    s, y = gaussian_classes(400, seed=5)
    cal = PiecewiseLogistic(score_type="decision").fit(s, y)
    assert cal.knots_[0] == s.min()
    assert cal.knots_[1] in np.percentile(s[y == 0], PERCENTILES)
    assert cal.knots_[2] in np.percentile(s[y == 1], PERCENTILES)
    stiff = PiecewiseLogistic(score_type="decision", smoothness=1e8).fit(s, y)
    grid = np.linspace(-3, 3, 13)
    np.testing.assert_allclose(stiff.positive_probability(grid),
                               Platt(score_type="decision").fit(s, y).positive_probability(grid), atol=2e-3)


def test_isotonic_is_sklearns():
    from sklearn.isotonic import IsotonicRegression

    s, y = gaussian_classes(200, seed=6)
    grid = np.linspace(-5, 5, 41)
    ref = IsotonicRegression(y_min=0, y_max=1, out_of_bounds="clip").fit(s, y).predict(grid)
    np.testing.assert_allclose(Isotonic().fit(s, y).positive_probability(grid), ref)


def test_spe_probabilities_are_close_to_the_true_posterior_on_its_own_model():
    s, y = gaussian_classes(3000, prevalence=0.2, seed=7, pos=(2, 1), neg=(0, 1))
    cal = SemisupervisedSPE(draws=300, options={"families": "truncnorm,truncnorm", "score_model": "mixture"})
    cal.fit(s[:40], y[:40], unlabeled_scores=s[40:])
    grid = np.linspace(-1, 3, 9)
    truth = 0.2 * stats.norm.pdf(grid, 2) / (0.2 * stats.norm.pdf(grid, 2) + 0.8 * stats.norm.pdf(grid, 0))
    np.testing.assert_allclose(cal.positive_probability(grid), truth, atol=0.1)


@pytest.mark.parametrize("name", [n for n in REGISTRY if n != "spe"])
def test_every_method_fits_predicts_and_refuses_bad_input(name):
    s, y = gaussian_classes(120, seed=8)
    p = make(name).fit(s, y).predict_proba(s)
    assert p.shape == (120, 2)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert ((p >= 0) & (p <= 1)).all()
    if name != "asymgauss":  # its log-odds are quadratic on each side: not monotone far out (bennett.py)
        ends = make(name).fit(s, y).positive_probability([-6.0, 6.0])
        assert ends[0] < ends[1]
    with pytest.raises(SpeInputError, match="both classes"):
        make(name).fit(s[y == 0], y[y == 0])
    with pytest.raises(SpeInputError, match="0 or 1"):
        make(name).fit(s, np.where(y == 1, 2, 0))
    with pytest.raises(SpeInputError, match="labels"):
        make(name).fit(s, y[:-1])
    with pytest.raises(SpeInputError, match="not finite"):
        make(name).fit(np.r_[s[:-1], np.nan], y)


def test_an_unknown_method_is_an_input_error():
    with pytest.raises(SpeInputError, match="unknown calibration method"):
        make("beta")


def test_the_scores_match_sklearn_and_a_hand_computed_ece():
    from sklearn.metrics import brier_score_loss, log_loss

    p = np.array([0.05, 0.15, 0.45, 0.55, 0.95, 1.0])
    y = np.array([0, 0, 1, 0, 1, 1])
    got = calibration_scores(p, y)
    assert got["log_loss"] == pytest.approx(log_loss(y, p))
    assert got["brier"] == pytest.approx(brier_score_loss(y, p))
    # bins [0, .1) [.1, .2) [.4, .5) [.5, .6) [.9, 1]: |0-.05| + |0-.15| + |1-.45| + |0-.55| + 2|1-.975|
    assert expected_calibration_error(p, y) == pytest.approx((0.05 + 0.15 + 0.55 + 0.55 + 2 * 0.025) / 6)


def test_the_comparison_cross_validates_every_method_on_the_labeled_items():
    s, y = gaussian_classes(600, seed=9)
    cmp = compare_methods(s[:150], y[:150], s[150:], methods=["platt", "asymlaplace", "isotonic"], rng=0)
    assert set(cmp.table.index) == {"platt", "asymlaplace", "isotonic"} and cmp.folds == 5
    assert list(cmp.table["log_loss"]) == sorted(cmp.table["log_loss"])
    assert cmp.probabilities["platt"].shape == (150,)
    # a calibrated method's out-of-fold log-loss is near the true posterior's on the same items
    assert cmp.table.loc["platt", "log_loss"] < 0.5
    assert cmp.to_dict()["methods"]["platt"]["brier"] == pytest.approx(cmp.table.loc["platt", "brier"])


def test_too_few_labels_of_a_class_for_cross_validation_is_an_input_error():
    s, y = gaussian_classes(50, seed=10)
    y = np.zeros(50, int)
    y[:1] = 1
    with pytest.raises(SpeInputError, match="at least 2"):
        compare_methods(s, y, methods=["platt"])


def test_piecewise_with_one_positive_at_the_top_still_separates():
    s = np.r_[np.linspace(-2, 1, 9), 2.0]
    y = np.r_[np.zeros(9, int), 1]
    cal = PiecewiseLogistic(score_type="decision").fit(s, y)
    p = cal.positive_probability([-2.0, 2.0])
    assert p[0] < 0.2 and p[1] > 0.3  # a ~1e-9-wide top piece once pinned it at 0.5 everywhere
    assert np.all(np.diff(cal.knots_) >= 1e-3 * np.ptp(s) * (1 - 1e-9))
