"""The mixture posterior (paper eqs. 2–4), the MAP search and importance sampling."""

import warnings

import numpy as np
import pytest
from scipy import special, stats

from spe.inference import find_map, hessian, importance_sample, psis
from spe.exceptions import ImportanceSamplingWarning
from spe.models import Mixture, MixtureData, ScoreSpace


def test_log_likelihood_matches_plain_loop():
    """Eqs. 2–3 against a per-item loop with scipy.stats on a tiny input."""
    x = np.array([0.1, 0.15, 0.15, 0.3, 0.55, 0.7, 0.8, 0.9])
    lab_idx, lab_val = np.array([1, 6]), np.array([0, 1])
    data = MixtureData.build(x, lab_idx, lab_val)
    mix = Mixture("gamma", "truncnorm")
    pi, th0, th1 = 0.3, np.array([2.0, 0.1]), np.array([0.75, 0.1])
    u = mix.pack(pi, th0, th1)
    p0 = stats.gamma(2.0, scale=0.1)
    p1 = stats.truncnorm(-0.75 / 0.1, 0.25 / 0.1, loc=0.75, scale=0.1)
    ref = 0.0
    for i, xi in enumerate(x):
        if i in lab_idx:
            y = lab_val[list(lab_idx).index(i)]
            ref += np.log(pi) + p1.logpdf(xi) if y == 1 else np.log(1 - pi) + p0.logpdf(xi)
        else:
            ref += np.log((1 - pi) * p0.pdf(xi) + pi * p1.pdf(xi))
    assert mix.log_likelihood(u, data)[0] == pytest.approx(ref, rel=1e-10)
    # the posterior adds the priors and the log-Jacobian of the unconstrained map
    prior = stats.beta(1, 1).logpdf(pi) + mix.negative.log_prior(th0)[0] + mix.positive.log_prior(th1)[0]
    jac = np.log(pi * (1 - pi)) + np.log(th0).sum() + np.log(th1[1])
    assert mix.log_posterior(u, data)[0] == pytest.approx(ref + prior + jac, rel=1e-10)


def test_class_probability_is_bayes_rule():
    mix = Mixture("truncnorm", "truncnorm")
    u = mix.pack(0.2, np.array([0.3, 0.1]), np.array([0.7, 0.1]))
    x = np.array([0.2, 0.5, 0.8])
    p0 = stats.truncnorm(-3, 7, loc=0.3, scale=0.1).pdf(x)
    p1 = stats.truncnorm(-7, 3, loc=0.7, scale=0.1).pdf(x)
    np.testing.assert_allclose(mix.class_probability(u, x)[0], 0.2 * p1 / (0.2 * p1 + 0.8 * p0), rtol=1e-10)


def test_identification_rejects_switched_components():
    x = np.linspace(0.05, 0.95, 50)
    data = MixtureData.build(x, np.array([], dtype=int), np.array([], dtype=int))
    mix = Mixture("truncnorm", "truncnorm")
    good = mix.pack(0.3, np.array([0.3, 0.1]), np.array([0.7, 0.1]))
    switched = mix.pack(0.7, np.array([0.7, 0.1]), np.array([0.3, 0.1]))
    assert np.isfinite(mix.log_posterior(good, data)[0])
    assert mix.log_posterior(switched, data)[0] == -np.inf
    assert np.isfinite(mix.log_posterior(switched, data, identify=False)[0])


def test_identification_at_the_top_score():
    """With ``top``, a negative family whose upper tail is heavier than the positive one's (the
    log-likelihood ratio falls by more than TOP_DROP nats from its peak above the positive mean to the
    top score) is not identified; the same value passes the paper's identification (means only)."""
    from spe.models.mixture.model import TOP_DROP

    mix_means = Mixture("truncnorm", "truncnorm")
    mix_top = Mixture("truncnorm", "truncnorm", top=0.99)
    th1 = np.array([0.8, 0.05])
    wide = mix_top.pack(0.1, np.array([0.45, 0.2]), th1)     # negative wider than positive
    narrow = mix_top.pack(0.1, np.array([0.45, 0.04]), th1)  # positive wider: ratio rises to the top
    for u, expected in [(wide, False), (narrow, True)]:
        _, th0_, th1_, _ = mix_top.unpack(u)
        assert mix_means.identified(th0_, th1_)[0]
        assert bool(mix_top.identified(th0_, th1_)[0]) is expected
    # the drop in the "wide" case, exactly: log N(x|0.8,0.05)/N(x|0.45,0.2) (truncation constants cancel in
    # the difference) peaks above the positive mean and falls to the top by more than TOP_DROP
    grid = np.linspace(0.8, 0.99, 2001)
    llr = stats.norm(0.8, 0.05).logpdf(grid) - stats.norm(0.45, 0.2).logpdf(grid)
    assert llr.max() - llr[-1] > TOP_DROP
    # a top below the peak: the ratio has not yet fallen there, so the same value is identified
    _, th0_, th1_, _ = mix_top.unpack(wide)
    assert Mixture("truncnorm", "truncnorm", top=0.82).identified(th0_, th1_)[0]


def _fit_two_normal_classes(**kwargs):
    """Two normal classes (500 negatives N(0, 1), 150 positives N(2.5, 1)), every 30th item labeled:
    the scores (650,) and the fitted mixture (300 draws)."""
    from spe.models.mixture.fit import fit_mixture

    rng = np.random.default_rng(0)
    s = np.r_[rng.normal(0, 1, 500), rng.normal(2.5, 1, 150)]
    y = np.r_[np.zeros(500, int), np.ones(150, int)]
    idx = np.arange(0, 650, 30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m, _ = fit_mixture(s, idx, y[idx], draws=300, rng=1, **kwargs)
    return s, m


def test_identification_at_the_bottom_score():
    """With ``bottom``, a negative family whose density vanishes at the lowest scores faster than the
    positive one's (gamma with shape 20 under a normal with sd 0.2: the log-likelihood ratio rises by more
    than TOP_DROP nats from its trough below the negative mean to the bottom score) is not identified; a
    gamma with shape 3 (same mean) under the same normal is; neither check applies without ``bottom``."""
    from spe.models.mixture.model import TOP_DROP

    th1 = np.array([0.7, 0.2])
    steep, gentle = np.array([20.0, 0.02]), np.array([3.0, 0.4 / 3])  # both: mean 0.4
    bottom, top = 0.05, 0.99
    ends = Mixture("gamma", "truncnorm", top=top, bottom=bottom)
    top_only = Mixture("gamma", "truncnorm", top=top)
    for th0, expected in [(steep, False), (gentle, True)]:
        _, th0_, th1_, _ = ends.unpack(ends.pack(0.2, th0, th1))
        assert top_only.identified(th0_, th1_)[0]
        assert bool(ends.identified(th0_, th1_)[0]) is expected
    # the rise in the "steep" case, exactly (scipy; the truncation constant only shifts the ratio)
    grid = np.linspace(bottom, 0.4, 2001)
    positive = stats.truncnorm(-0.7 / 0.2, 0.3 / 0.2, loc=0.7, scale=0.2)
    llr = positive.logpdf(grid) - stats.gamma(20.0, scale=0.02).logpdf(grid)
    assert llr[0] - llr.min() > TOP_DROP
    llr = positive.logpdf(grid) - stats.gamma(3.0, scale=0.4 / 3).logpdf(grid)
    assert llr[0] - llr.min() <= TOP_DROP
    # the two-normal flaw: a gamma negative and a normal positive fitted to two normal classes put the
    # bottom items in the positive class; with both ends identified the fit keeps a sensible prevalence
    _, m = _fit_two_normal_classes()
    assert m.diagnostics["identified_at_top"]
    w = m.weights / m.weights.sum()
    assert abs(w @ m.constrained_draws[:, 0] - 150 / 650) < 0.08


def test_fit_falls_back_to_the_paper_identification_when_no_pair_passes_at_the_top():
    """Negatives whose upper tail covers the positives: the only truncnorm/truncnorm optimum fails the
    top-score identification, so the fit keeps the means-only one and says so in the diagnostics."""
    from spe.models.mixture.fit import fit_mixture

    rng = np.random.default_rng(3)
    s = np.concatenate([rng.normal(0.4, 0.2, 1800), rng.normal(0.75, 0.03, 200)])
    y = np.r_[np.zeros(1800, int), np.ones(200, int)]
    idx = rng.choice(s.size, 20, replace=False)
    m, _ = fit_mixture(s, idx, y[idx], families="truncnorm,truncnorm", draws=200, rng=0)
    assert m.diagnostics["identified_at_top"] is False
    m2, _ = fit_mixture(s, idx, y[idx], families="truncnorm,truncnorm", draws=200, rng=0, identify_top=False)
    np.testing.assert_allclose(m.mixture_fit.u_map, m2.mixture_fit.u_map)


def test_binned_likelihood_is_close_to_exact():
    rng = np.random.default_rng(0)
    x = np.clip(np.concatenate([rng.normal(0.3, 0.08, 3000), rng.normal(0.7, 0.1, 700)]), 0.01, 0.99)
    exact = MixtureData.build(x, np.array([0, 5]), np.array([0, 0]))
    binned = MixtureData.build(x, np.array([0, 5]), np.array([0, 0]), resolution=1 / 4096)
    assert binned.x_unlabeled.size < exact.x_unlabeled.size
    assert binned.count_unlabeled.sum() == exact.count_unlabeled.sum() == x.size - 2
    mix = Mixture("truncnorm", "truncnorm")
    u = mix.pack([0.2, 0.25], np.array([[0.3, 0.08], [0.32, 0.1]]), np.array([[0.7, 0.1], [0.68, 0.12]]))
    np.testing.assert_allclose(mix.log_likelihood(u, binned), mix.log_likelihood(u, exact), atol=0.05)


def test_score_space_round_trip_and_interior():
    s = np.array([-3.0, 0.0, 2.5, 7.0])
    sp = ScoreSpace.fit(s)
    x = sp.to_model(s)
    assert np.all((x > 0) & (x < 1))
    np.testing.assert_allclose(sp.to_scores(x), s)
    assert np.all(np.diff(x) > 0)


@pytest.mark.parametrize("seed", range(3))
def test_map_recovers_simulated_mixture(seed):
    rng = np.random.default_rng(seed)
    n = 4000
    y = rng.random(n) < 0.25
    x = np.where(y, rng.normal(0.7, 0.08, n), rng.normal(0.35, 0.1, n))
    x = x[(x > 0) & (x < 1)]
    data = MixtureData.build(x, np.array([], dtype=int), np.array([], dtype=int))
    mix = Mixture("truncnorm", "truncnorm")
    res = find_map(lambda u: mix.log_posterior(u, data, identify=False), mix.initial_points(x, data), scale=x.size)
    c = mix.constrained(res.u[None])[0]
    pi, th0, th1 = c[0], c[1:3], c[3:]
    assert pi == pytest.approx(0.25, abs=0.03)
    np.testing.assert_allclose(th0, [0.35, 0.1], atol=0.02)
    np.testing.assert_allclose(th1, [0.7, 0.08], atol=0.02)
    assert res.n_agree >= 2


def test_a_map_search_continued_from_its_first_starts_equals_the_whole_search():
    """find_map(searched=...) skips the starts an earlier search covered and takes their optima from it: the
    same optimum, log posterior, optima and agreement as searching every start (what the family screening's
    second round relies on when it adds a second start to a pair's first)."""
    rng = np.random.default_rng(4)
    x = np.where(rng.random(2000) < 0.3, rng.normal(0.7, 0.1, 2000), rng.normal(0.35, 0.12, 2000))
    x = x[(x > 0) & (x < 1)]
    data = MixtureData.build(x, np.array([], dtype=int), np.array([], dtype=int))
    mix = Mixture("truncnorm", "gamma")
    starts = mix.initial_points(x, data)
    calls = []

    def objective(u):
        calls.append(len(u))
        return mix.log_posterior(u, data, identify=False)

    whole = find_map(objective, starts, scale=x.size)
    n_whole = len(calls)
    first = find_map(objective, starts[:1], scale=x.size)
    n_first = len(calls) - n_whole
    continued = find_map(objective, starts, scale=x.size, searched=first)
    assert len(calls) - n_whole - n_first == n_whole - n_first  # the first start is not searched again
    np.testing.assert_array_equal(continued.u, whole.u)
    np.testing.assert_array_equal(continued.optima, whole.optima)
    assert (continued.log_posterior, continued.n_starts, continued.n_agree) == (
        whole.log_posterior, whole.n_starts, whole.n_agree)


def test_hessian_of_a_quadratic_is_exact():
    a = np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.3], [0.0, 0.3, 3.0]])
    logp = lambda u: -0.5 * np.einsum("mi,ij,mj->m", u, a, u)  # noqa: E731
    np.testing.assert_allclose(hessian(logp, np.array([0.2, -0.1, 0.4])), -a, atol=1e-5)
    np.testing.assert_allclose(hessian(logp, np.zeros(3), diagonal_only=True), -np.diag(np.diag(a)), atol=1e-5)


def test_importance_sampling_recovers_a_known_posterior():
    """A skewed 2-D target with known moments: weighted draws reproduce them."""
    # target: u0 ~ Normal(1, 0.5), u1 = log of a Gamma(3, 1) variable (log-density with Jacobian)
    def logp(u):
        return stats.norm(1, 0.5).logpdf(u[:, 0]) + stats.gamma(3).logpdf(np.exp(u[:, 1])) + u[:, 1]

    u_map = np.array([1.0, np.log(3.0)])
    post = importance_sample(logp, u_map, draws=4000, rng=0)
    assert post.pareto_k < 0.7
    assert post.ess > 1000
    mean = post.weights @ post.u
    assert mean[0] == pytest.approx(1.0, abs=0.03)
    assert mean[1] == pytest.approx(special.digamma(3.0), abs=0.03)  # E[log X] for X ~ Gamma(3)
    assert post.weights.sum() == pytest.approx(1.0)


def test_a_skewed_scale_in_many_dimensions_is_sampled_with_a_t_on_it_and_a_normal_given_it():
    """u0 the log of a Gamma(2, 1) variable (skewed), and 60 coordinates Normal given it (mean 0.5·u0, sd 0.3):
    a Normal on every coordinate leaves heavy weights; a t on u0 and the conditional Normal on the rest gives
    near-even weights and the known moments."""
    from spe.inference.importance import _ConditionalProposal

    p = 61

    def logp(u):
        return (stats.gamma(2.0).logpdf(np.exp(u[:, 0])) + u[:, 0]
                + stats.norm(0.5 * u[:, :1], 0.3).logpdf(u[:, 1:]).sum(axis=1))

    u_map = np.r_[np.log(2.0), np.full(p - 1, 0.5 * np.log(2.0))]
    h = np.zeros((p, p))  # the exact Hessian at the MAP: -2 on u0 (from e^u0 = 2), the conditional's terms
    h[0, 0] = -2.0 - (p - 1) * 0.25 / 0.09
    h[0, 1:] = h[1:, 0] = 0.5 / 0.09
    h[np.arange(1, p), np.arange(1, p)] = -1 / 0.09
    plain = importance_sample(logp, u_map, draws=2000, rng=0, hessian_at_map=h, max_rounds=1)
    split = importance_sample(logp, u_map, draws=2000, rng=0, hessian_at_map=h, heavy_axes=(0,))
    assert split.proposal.startswith("t(df=4) on coordinates [0], normal given them")
    assert split.pareto_k < 0.5 < plain.pareto_k and split.ess > 1000
    mean = split.weights @ split.u
    assert mean[0] == pytest.approx(special.digamma(2.0), abs=0.05)
    np.testing.assert_allclose(mean[1:].mean(), 0.5 * special.digamma(2.0), atol=0.05)
    q = _ConditionalProposal(u_map, np.linalg.inv(-h), (0,))  # its density is that of its draws: even weights
    u = q.rvs(500, np.random.default_rng(1))
    slope = np.linalg.inv(-h)[1:, 0] / np.linalg.inv(-h)[0, 0]
    conditional = np.linalg.inv(-h[1:, 1:])
    expected = (stats.t(4, u_map[0], np.sqrt(np.linalg.inv(-h)[0, 0])).logpdf(u[:, 0])
                + stats.multivariate_normal(np.zeros(p - 1), conditional).logpdf(
                    u[:, 1:] - u_map[1:] - np.outer(u[:, 0] - u_map[0], slope)))
    np.testing.assert_allclose(q.logpdf(u), expected, rtol=1e-9)
    last = _ConditionalProposal(u_map, np.linalg.inv(-h), (-1,))  # a negative index is that coordinate, once
    np.testing.assert_allclose(last.logpdf(u), _ConditionalProposal(u_map, np.linalg.inv(-h), (p - 1,)).logpdf(u))
    for bad in ((), (p,)):
        with pytest.raises(ValueError, match="heavy_axes"):
            importance_sample(logp, u_map, draws=100, rng=0, hessian_at_map=h, heavy_axes=bad)


def test_importance_sampling_warns_when_hopeless():
    """A target with far heavier tails than any proposal tried (Student t, ν = 0.3): the result says so.

    (PSIS cannot see a mode the proposal never visits; heavy tails it can.)
    """
    def logp(u):
        return stats.t(0.3).logpdf(u[:, 0])

    with pytest.warns(ImportanceSamplingWarning, match="Pareto"):
        post = importance_sample(logp, np.array([0.0]), draws=2000, rng=1, max_rounds=2)
    assert post.pareto_k > 0.7
    assert len(post.rounds) == 2


def test_psis_handles_minus_inf_and_normalises():
    lw = np.random.default_rng(0).normal(0, 0.3, 200)
    lw[1::4] = -np.inf
    w, k = psis(lw)
    assert w.sum() == pytest.approx(1.0)
    assert np.all(w[1::4] == 0)
    assert np.isfinite(k)


def test_psis_keeps_raw_weights_when_arviz_cannot_smooth(monkeypatch):
    """arviz.psislw returned NaN weights (with k̂ = 0.33) for log weights spanning 8000 nats on a real
    case; psis must then give the raw normalised weights and k̂ = inf, never NaN weights."""
    from arviz_stats.base import array_stats

    monkeypatch.setattr(array_stats, "psislw", lambda ary: (np.full_like(ary, np.nan), np.float64(0.33)))
    lw = np.array([0.0, -1.0, -np.inf, -3.0])
    w, k = psis(lw)
    raw = np.exp([0.0, -1.0, -3.0])
    assert np.allclose(w[[0, 1, 3]], raw / raw.sum()) and w[2] == 0
    assert k == np.inf


def test_psis_agrees_with_arviz_psislw():
    """The arviz-stats PSIS used here against the reference arviz.psislw (same method, ArviZ's two
    packages): the same k̂ and smoothed weights, on weights with a light and with a heavy tail."""
    import warnings

    import arviz

    rng = np.random.default_rng(3)
    for lw in (rng.normal(0.0, 1.0, 4000), 2.0 * rng.standard_t(5, 4000)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref_lw, ref_k = arviz.psislw(lw - lw.max())
        ref = np.exp(ref_lw - ref_lw.max())
        w, k = psis(lw)
        assert abs(k - ref_k) < 0.05
        assert np.abs(w - ref / ref.sum()).sum() < 0.02


def test_psis_with_too_few_draws_for_a_tail_returns_raw_weights():
    """arviz-stats raises on fewer than 5 tail draws; psis must answer (raw weights, k̂ = inf), as
    arviz.psislw did, and psis_loo must smooth the rows it can."""
    from spe.inference import psis_loo

    lw = np.array([0.0, -0.5, -2.0])
    w, k = psis(lw)
    assert np.allclose(w, np.exp(lw) / np.exp(lw).sum()) and k == np.inf
    loo, kk = psis_loo(np.log(np.full((3, 2), 0.5)), np.full(3, 1 / 3))
    assert np.allclose(loo, np.log(0.5)) and np.all(kk == np.inf)


def test_same_seed_same_draws():
    logp = lambda u: -0.5 * np.sum(u**2, axis=1)  # noqa: E731
    a = importance_sample(logp, np.zeros(2), draws=200, rng=5)
    b = importance_sample(logp, np.zeros(2), draws=200, rng=5)
    np.testing.assert_array_equal(a.u, b.u)
    np.testing.assert_array_equal(a.weights, b.weights)


def test_auto_families_depend_on_the_score_type():
    from spe.models.mixture.select import DEFAULT_CANDIDATES, parse_families

    prob = parse_families("auto", "probability")
    assert len(prob) == len(DEFAULT_CANDIDATES) ** 2 and ("beta", "beta") in prob
    assert not any("truncnorm2" in pair for pair in prob)
    for kind in ("log-odds", "decision"):  # beta's support ends would be the data's range: left out
        pairs = parse_families("auto", kind)
        assert pairs and not any("beta" in pair for pair in pairs)
        single = [pair for pair in pairs if "truncnorm2" not in pair]
        assert set(single) < set(prob)
        # two truncated normals for the negatives (a union of classes), never for the positives
        assert {pos for neg, pos in pairs if neg == "truncnorm2"} == set(DEFAULT_CANDIDATES) - {"beta"}
        assert not any(pos == "truncnorm2" for _, pos in pairs)
    assert parse_families("beta,beta", "decision") == [("beta", "beta")]  # asked for by name: kept
    assert parse_families("truncnorm2,truncnorm") == [("truncnorm2", "truncnorm")]


def test_truncnorm_tails_are_stable_where_scipy_recurses():
    """scipy's truncnorm.logcdf/logsf call each other without end for some far-tail parameters
    (it crashed a benchmark trial); ours are stable log-Φ differences, checked against scipy where scipy
    works and against the defining ratio in the far tail."""
    from spe.families import get_family

    fam = get_family("truncnorm")
    theta = np.array([[3.0, 0.01], [-5.0, 0.02], [0.5, 0.1], [40.0, 0.05]])
    x = np.array([0.0, 0.2, 0.5, 0.9, 1.0])
    lc, ls = fam.logcdf(theta, x), fam.logsf(theta, x)
    assert np.all(lc <= 0) and np.all(ls <= 0)
    np.testing.assert_allclose(np.exp(lc) + np.exp(ls), 1.0, atol=1e-12)
    assert np.all(lc[:, 0] == -np.inf) and np.all(ls[:, -1] == -np.inf)
    # middle row against scipy, where scipy is fine
    ref = stats.truncnorm(-5.0, 5.0, loc=0.5, scale=0.1)
    np.testing.assert_allclose(lc[2, 1:], ref.logcdf(x[1:]), rtol=1e-10)
    # far tail, μ = 3, σ = 0.01: P(X ≤ x) = (Φ(z) − Φ(α)) / (Φ(β) − Φ(α)), and Φ(α) = Φ(−300) is negligible
    z, b = (0.9 - 3.0) / 0.01, (1.0 - 3.0) / 0.01
    assert lc[0, 3] == pytest.approx(special.log_ndtr(z) - special.log_ndtr(b), rel=1e-6)


def test_monotone_class_probability_is_the_outward_envelope_of_the_log_odds():
    """Wide negatives, narrow positives: the Bayes rule's p(y | x) falls at the top; the monotone one holds
    the highest log-odds reached between the pivot (the grid's median) and x, and equals the Bayes rule where
    it rises."""
    from spe.families import get_family
    from spe.models import Mixture

    mix = Mixture(get_family("truncnorm"), get_family("truncnorm"))
    u = mix.pack(0.2, [[0.3, 0.2]], [[0.7, 0.05]])
    grid = np.linspace(0, 1, 201)
    x = np.array([0.0, 0.33, 0.5, 0.7, 0.71, 0.9, 1.0])
    bayes = mix.class_probability(u, x)[0]
    mono = mix.monotone_class_probability(u, x, grid)[0]
    assert bayes[-1] < bayes[4]  # the plain rule falls at the top
    lg = special.logit(mix.class_probability(u, grid)[0])
    for xi, b, m in zip(x, bayes, mono):
        if xi >= 0.5:
            expected = max(special.logit(b), lg[(grid >= 0.5) & (grid <= xi)].max())
        else:
            expected = min(special.logit(b), lg[(grid >= xi) & (grid <= 0.5)].min())
        assert special.logit(m) == pytest.approx(expected, rel=1e-9, abs=1e-9)
    assert np.all(np.diff(mix.monotone_class_probability(u, np.sort(np.r_[x, grid]), grid)[0]) >= 0)
    rising = x <= 0.7
    np.testing.assert_allclose(mono[rising], bayes[rising], rtol=1e-9)


def test_outward_envelope_exact_small_case():
    """Running maximum from the pivot up, running minimum from the pivot down (pivot included)."""
    from spe.models.mixture import outward_envelope

    v = np.array([3.0, 1.0, 2.0, 0.0, 5.0, 4.0, 6.0])
    np.testing.assert_array_equal(outward_envelope(v, 3), [0, 0, 0, 0, 5, 5, 6])
    np.testing.assert_array_equal(outward_envelope(v, 0), [3, 3, 3, 3, 5, 5, 6])
    np.testing.assert_array_equal(outward_envelope(v, 7), [0, 0, 0, 0, 4, 4, 6])
    np.testing.assert_array_equal(outward_envelope(np.vstack([v, -v]), 3)[1], [-3, -2, -2, 0, 0, 0, 0])
    with pytest.raises(ValueError, match="pivot_index"):
        outward_envelope(v, 8)


def test_monotone_probability_does_not_carry_a_rise_at_the_bottom_upward():
    """A gamma negative (shape > 1: its density vanishes at the lowest score) under a normal positive makes
    the Bayes rule's p(y | x) rise to 1 at the bottom. A running maximum from the bottom carried that to
    every score (prevalence ≈ 0.97 on two normals with 23% positives); the envelope from the median holds
    the bottom at the lowest value reached above it."""
    s, m = _fit_two_normal_classes(families="gamma,truncnorm")
    d = m.mixture_fit
    mix, space, u = d.mixture, d.space, d.u_map[None, :]
    lo, mid = np.min(s), np.median(s)
    bayes = mix.class_probability(u, space.to_model(np.array([lo, mid])))[0]
    assert bayes[0] > 0.9 > bayes[1]  # the fitted Bayes rule does rise at the bottom
    p = m.probability(m.draws, np.sort(s))
    assert np.all(np.diff(p, axis=1) >= -1e-12)
    w = m.weights / m.weights.sum()
    assert w @ p[:, 0] <= w @ p[:, s.size // 2] + 1e-12
    assert w @ p.mean(axis=1) < 0.5


def test_histogram_likelihood_is_the_exact_likelihood_of_the_bin_counts():
    """With ``edges``, the unlabeled scores enter as bin counts c_k and the log-likelihood is
    Σ c_k log((1 − π) ΔF₀_k + π ΔF₁_k) plus the labeled densities: checked against scipy.stats."""
    rng = np.random.default_rng(8)
    x = np.clip(np.concatenate([rng.normal(0.3, 0.08, 3000), rng.gamma(30.0, 0.02, 400)]), 0.001, 0.999)
    lab_idx, lab_y = np.array([0, 1, 3000, 3001]), np.array([0, 0, 1, 1])
    edges = np.linspace(0.0, 1.0, 41)
    data = MixtureData.build(x, lab_idx, lab_y, edges=edges)
    same = MixtureData.build(x, lab_idx, lab_y, edges=edges, x_sorted=np.sort(x))
    np.testing.assert_array_equal(data.count_unlabeled, same.count_unlabeled)
    hist = np.histogram(np.delete(x, lab_idx), edges)[0]
    np.testing.assert_array_equal(data.count_unlabeled, hist[hist > 0])
    mix = Mixture("truncnorm", "gamma")
    pi, th0, th1 = 0.12, np.array([0.3, 0.1]), np.array([25.0, 0.025])
    u = mix.pack(pi, th0, th1)
    f0 = stats.truncnorm(-3.0, 7.0, loc=0.3, scale=0.1)
    f1 = stats.gamma(25.0, scale=0.025)
    a, b = data.bin_edges[data.bin_lower], data.bin_edges[data.bin_upper]
    ref = (data.count_unlabeled @ np.log((1 - pi) * (f0.cdf(b) - f0.cdf(a)) + pi * (f1.cdf(b) - f1.cdf(a)))
           + np.sum(np.log(1 - pi) + f0.logpdf(x[[0, 1]])) + np.sum(np.log(pi) + f1.logpdf(x[[3000, 3001]])))
    assert mix.log_likelihood(u, data)[0] == pytest.approx(ref, rel=1e-9)
    with pytest.raises(ValueError, match="span"):
        MixtureData.build(x, lab_idx, lab_y, edges=[0.1, 0.5])


def test_histogram_likelihood_fit_agrees_with_the_density_fit():
    import spe

    rng = np.random.default_rng(2)
    y = rng.random(30000) < 0.15
    s = np.where(y, rng.normal(2.0, 1.0, y.size), rng.normal(0.0, 1.0, y.size))
    idx = rng.choice(y.size, 20, replace=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dens = spe.evaluate(s, (idx, y[idx]), families="truncnorm,truncnorm", draws=300, rng=1, likelihood_bins=None)
        hist = spe.evaluate(s, (idx, y[idx]), families="truncnorm,truncnorm", draws=300, rng=1, likelihood_bins=256)
    assert dens.diagnostics["likelihood"] == "density" and hist.diagnostics["likelihood"] == "histogram"
    assert hist.diagnostics["likelihood_bins"] <= 257
    assert hist.prevalence().mean == pytest.approx(dens.prevalence().mean, abs=0.005)
    assert hist.prevalence().mean == pytest.approx(y.mean(), abs=0.02)
    with pytest.raises(ValueError, match="likelihood_bins"):
        spe.evaluate(s[:100], None, likelihood_bins="many")
