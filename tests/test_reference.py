"""A labeled reference set: its calibration map (Bayesian binning) carried to the pool under prior shift."""

import warnings

import numpy as np
import pytest
from scipy import integrate, special, stats

import spe
from spe.cli import main
from spe.exceptions import SpeInputError
from spe.inputs import normalize_reference
from spe.models import reference
from spe.models.reference import SHIFT_PRIOR_SD, candidate_binnings, class_quantile_binning, fit_reference


def pool(n_items, prevalence, rng, separation=1.5):
    """Probability scores of a classifier whose class-conditional score densities do not depend on the pool."""
    y = (rng.random(n_items) < prevalence).astype(int)
    z = np.where(y == 1, rng.normal(separation, 1.0, n_items), rng.normal(-separation, 1.0, n_items))
    return special.expit(z), y


def test_the_evidence_of_a_binning_is_the_product_of_beta_binomial_marginals():
    rng = np.random.default_rng(0)
    s, y = pool(60, 0.3, rng)
    b = class_quantile_binning(s, y, 4, prevalence=y.mean())
    assert b.items.sum() == 60 and b.positives.sum() == y.sum()
    expected = 0.0
    for k, n in zip(b.positives, b.items):  # ∫ p^k (1 − p)^(n − k) Beta(p; α, β) dp, numerically
        expected += np.log(integrate.quad(lambda p: p ** k * (1 - p) ** (n - k) * stats.beta.pdf(p, b.alpha, b.beta),
                                          0, 1, limit=200, points=[1e-6, 1e-3])[0])
    assert b.log_evidence == pytest.approx(expected, abs=1e-5)
    assert b.alpha + b.beta == pytest.approx(2.0 / b.n_bins)  # BDeu: the same total prior weight for every B


def test_the_map_interpolates_between_bin_centres_and_is_flat_beyond_them():
    s = np.arange(100.0)
    y = (s >= 70).astype(int)
    b = class_quantile_binning(s, y, 4, prevalence=0.3)
    left, t = b.interpolation(np.array([-5.0, b.centres[0] - 0.5, 1e9]))
    assert (left[0], t[0]) == (0, 0.0) and t[1] == 0.0 and t[2] == 1.0 and left[2] == b.n_bins - 2
    mid = 0.5 * (b.centres[0] + b.centres[1]) - 0.5  # mid-rank of score k is k + 0.5
    left, t = b.interpolation(np.array([mid]))
    assert left[0] == 0 and t[0] == pytest.approx(0.5)


def test_bins_follow_each_class_and_tied_scores_never_split():
    s = np.repeat(np.arange(20.0), 5)
    y = (s >= 15).astype(int)
    for b in candidate_binnings(s, y):
        for edge in b.edges:
            assert edge in s  # edges are observed scores: a tie group sits wholly in one bin
        assert np.all(np.diff(b.edges) > 0)
        assert b.items.sum() == s.size


def test_prior_shift_is_recovered_from_the_pool_scores_alone():
    rng = np.random.default_rng(1)
    ref_s, ref_y = pool(4000, 0.1, rng)
    s, y = pool(6000, 0.35, rng)
    model = fit_reference(s, np.zeros(0, int), np.zeros(0, int), ref_s, ref_y, draws=2000, rng=2)
    shift, pi_ref, pi_pool = (model.constrained_draws[:, j] for j in range(3))
    w = model.weights
    lo, hi = np.quantile(pi_pool, [0.01, 0.99], method="inverted_cdf", weights=w)
    assert lo < y.mean() < hi and hi - lo < 0.05
    assert w @ shift == pytest.approx(special.logit(0.35) - special.logit(0.1), abs=0.15)
    assert w @ pi_ref == pytest.approx(ref_y.mean(), abs=0.01)
    assert model.log_evidence == model.reference_log_evidence  # no pool labels: the reference labels alone


def test_the_proposal_follows_a_large_prior_shift_and_says_when_it_cannot(monkeypatch):
    rng = np.random.default_rng(7)
    ref_s, ref_y = pool(20000, 0.05, rng)
    s, y = pool(60000, 0.3, rng)
    model = fit_reference(s, np.zeros(0, int), np.zeros(0, int), ref_s, ref_y, draws=1000, rng=1)
    assert model.diagnostics["ess"] > 300 and model.diagnostics["pareto_k"] < 0.7
    assert model.weights @ model.constrained_draws[:, 2] == pytest.approx(y.mean(), abs=0.01)
    # the rates drawn from their posterior given the reference alone (no tilt, no pilot): the weights collapse
    monkeypatch.setattr(reference, "TILT_ROUNDS", 0)
    monkeypatch.setattr(reference, "DEFENSIVE", 1.0)
    with pytest.warns(spe.ImportanceSamplingWarning, match="reference set's importance sampling is unreliable"):
        crude = fit_reference(s, np.zeros(0, int), np.zeros(0, int), ref_s, ref_y, draws=1000, rng=1)
    assert crude.diagnostics["ess"] < 50


def _brute_force_evidence(b, pool_counts, power, y, labeled_scores, n_draws, rng):
    """p(Y_L | S, reference) for one binning: Monte Carlo over the Beta posteriors, quadrature over δ; the pool's
    log-odds interpolated linearly between the bins' centres (in mid-rank among the reference scores)."""
    left, t = b.interpolation(labeled_scores)
    p = rng.beta(b.alpha + b.positives, b.beta + b.items - b.positives, size=(n_draws, b.n_bins))
    pi_ref = (p @ b.items / b.items.sum())[:, None]
    grid = np.linspace(-8 * SHIFT_PRIOR_SD, 8 * SHIFT_PRIOR_SD, 4001)
    num = den = 0.0
    for chunk in np.array_split(np.arange(n_draws), 20):
        pp, pr = p[chunk][:, None, :], pi_ref[chunk][:, None, :]
        pi = special.expit(special.logit(pr) + grid[None, :, None])
        score = power * (np.log(pi / pr * pp + (1 - pi) / (1 - pr) * (1 - pp)) @ pool_counts)
        prior = stats.norm.logpdf(grid, 0, SHIFT_PRIOR_SD)[None, :]
        lo = special.logit(pp)
        eta = (1 - t) * lo[:, :, left] + t * lo[:, :, np.minimum(left + 1, b.n_bins - 1)] + grid[None, :, None]
        labels = special.log_expit(np.where(y == 1, 1.0, -1.0) * eta).sum(axis=2)
        num += np.exp(special.logsumexp(score + prior + labels, axis=1)).sum()
        den += np.exp(special.logsumexp(score + prior, axis=1)).sum()
    return np.log(num / den)


@pytest.mark.slow
def test_the_evidence_on_the_pool_labels_agrees_with_brute_force_integration():
    rng = np.random.default_rng(3)
    ref_s, ref_y = pool(30, 0.3, rng)  # R = 30: only the two-bin binning is considered
    s, y = pool(60, 0.5, rng)
    idx = rng.choice(60, 8, replace=False)
    (b,) = candidate_binnings(ref_s, ref_y)
    model = fit_reference(s, idx, y[idx], ref_s, ref_y, draws=20000, rng=4)
    counts = np.bincount(b.bin_of(s), minlength=b.n_bins).astype(float)
    expected = _brute_force_evidence(b, counts, 0.5, y[idx], s[idx], 4000, np.random.default_rng(5))
    assert model.log_evidence - model.reference_log_evidence == pytest.approx(expected, abs=0.05)
    assert model.reference_log_evidence == pytest.approx(b.log_evidence)  # one binning: BBQ's exact marginal


@pytest.mark.slow
def test_a_reference_from_the_same_population_dominates_and_one_that_disagrees_is_dropped_with_a_warning():
    rng = np.random.default_rng(6)
    s, y = pool(4000, 0.3, rng)
    ref_s, ref_y = pool(4000, 0.3, rng)
    idx = rng.choice(4000, 20, replace=False)
    ev = spe.evaluate(s, (idx, y[idx]), rng=0, reference=(ref_s, ref_y), workers=1)
    assert ev.diagnostics["reference"]["weight"] > 0.5
    assert "reference set: 4000 items" in ev.summary()
    with pytest.warns(spe.SpeWarning, match="the pool's labels disagree with the reference set"):
        bad = spe.evaluate(s, (idx, y[idx]), rng=0, reference=(ref_s, 1 - ref_y), workers=1)
    assert bad.diagnostics["reference"]["weight"] < 0.01


def test_the_same_seed_gives_the_same_draws():
    rng = np.random.default_rng(7)
    ref_s, ref_y = pool(500, 0.2, rng)
    s, y = pool(800, 0.2, rng)
    a = fit_reference(s, [1, 2, 3], y[[1, 2, 3]], ref_s, ref_y, draws=300, rng=11)
    b = fit_reference(s, [1, 2, 3], y[[1, 2, 3]], ref_s, ref_y, draws=300, rng=11)
    np.testing.assert_array_equal(a.draws, b.draws)
    np.testing.assert_array_equal(a.weights, b.weights)


def test_a_pool_of_distinct_scores_with_counts_gives_the_fit_of_its_items():
    """The pool's scores enter only as counts per bin: the distinct scores, each with its number of items, give
    the same draws, weights and evidence as the items themselves (same seed)."""
    rng = np.random.default_rng(12)
    ref_s, ref_y = pool(500, 0.2, rng)
    s, y = pool(3000, 0.35, rng)
    s = np.round(s, 2)  # many ties: about 100 distinct scores
    labeled = np.array([4, 17, 256, 1000, 2999])
    values, position, counts = np.unique(s, return_inverse=True, return_counts=True)
    a = fit_reference(s, labeled, y[labeled], ref_s, ref_y, draws=300, rng=5)
    b = fit_reference(values, position[labeled], y[labeled], ref_s, ref_y, draws=300, rng=5, counts=counts)
    assert values.size < 110
    np.testing.assert_allclose(b.draws, a.draws, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(b.weights, a.weights, rtol=1e-9, atol=1e-15)
    assert b.log_evidence == pytest.approx(a.log_evidence, rel=1e-9)
    assert b.diagnostics["reference"]["pool_score_weight"] == a.diagnostics["reference"]["pool_score_weight"]


def test_a_reference_set_with_a_pooled_engine_agrees_with_the_exact_path():
    rng = np.random.default_rng(13)
    ref_s, ref_y = pool(1000, 0.2, rng)
    s, y = pool(20_000, 0.3, rng)
    known = {int(i): int(y[i]) for i in rng.choice(s.size, 30, replace=False)}
    kw = dict(rng=2, draws=300, workers=1, reference=(ref_s, ref_y), score_model="reference")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exact, binned = spe.evaluate(s, known, engine="memory", **kw), spe.evaluate(s, known, engine="binned", **kw)
    assert binned.diagnostics["pool"]["max_error"] < 1e-4
    a, b = exact.diagnostics["reference"], binned.diagnostics["reference"]
    assert b["pool_prevalence"] == pytest.approx(a["pool_prevalence"], abs=0.002)
    assert binned.prevalence().mean == pytest.approx(exact.prevalence().mean, abs=0.005)
    assert binned.prevalence().mean == pytest.approx(y.mean(), abs=0.03)


@pytest.mark.parametrize("reference, message", [
    ((np.array([0.1, 0.2]), np.array([0, 0])), "both classes"),
    ((np.array([0.1, 0.2]), np.array([0, np.nan])), "label 1 is missing"),
    ((np.array([0.1, np.inf]), np.array([0, 1])), "finite"),
    ((np.array([0.1, 0.2, 0.3]), np.array([0, 1])), "equal length"),
    ({"score": [0.1, 0.2]}, "'score' and 'label'"),
    ("ref.csv", "pair"),
])
def test_a_bad_reference_is_refused_by_name(reference, message):
    with pytest.raises(SpeInputError, match=message) as e:
        normalize_reference(reference)
    assert e.value.argument == "reference"


def test_the_reference_model_alone_needs_a_reference():
    with pytest.raises(SpeInputError, match="needs a reference set"):
        spe.evaluate(np.linspace(0, 1, 50), {0: 0, 49: 1}, score_model="reference")


def test_the_reference_and_the_pool_are_never_modified():
    rng = np.random.default_rng(8)
    ref_s, ref_y = pool(300, 0.3, rng)
    s, y = pool(300, 0.3, rng)
    keep = ref_s.copy(), ref_y.copy(), s.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spe.evaluate(s, {0: int(y[0]), 1: int(y[1])}, rng=0, reference=(ref_s, ref_y), score_model="reference")
    for before, after in zip(keep, (ref_s, ref_y, s)):
        np.testing.assert_array_equal(before, after)


def _write(path, header, rows):
    path.write_text(header + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows))
    return str(path)


def test_the_cli_reads_a_reference_file_and_names_a_bad_row(tmp_path, capsys):
    rng = np.random.default_rng(9)
    s, y = pool(400, 0.3, rng)
    ref_s, ref_y = pool(400, 0.3, rng)
    scores = _write(tmp_path / "s.csv", "id,score", [(f"i{k}", v) for k, v in enumerate(s)])
    labels = _write(tmp_path / "l.csv", "id,label", [(f"i{k}", y[k]) for k in range(10)])
    ref = _write(tmp_path / "ref.csv", "score,label", zip(ref_s, ref_y))
    assert main(["estimate", scores, "--labels", labels, "--reference", ref, "--seed", "1", "--draws", "200",
                 "--workers", "1"]) == 0
    assert "reference set: 400 items" in capsys.readouterr().out
    bad = _write(tmp_path / "bad.csv", "score,label", [(0.1, 0), (0.9, 1), (0.5, "yes")])
    assert main(["estimate", scores, "--labels", labels, "--reference", bad]) == 2
    err = capsys.readouterr().err
    assert "bad.csv" in err and "row 3" in err and "label" in err
    one_class = _write(tmp_path / "neg.csv", "score,label", [(0.1, 0), (0.2, 0)])
    assert main(["estimate", scores, "--reference", one_class]) == 2
    assert "both classes" in capsys.readouterr().err


def test_the_reference_map_draws_the_bbq_posterior_exactly():
    """reference_map: binnings drawn by their posterior given the reference labels, each bin's rate from its Beta
    posterior (exact draws, equal weights)."""
    rng = np.random.default_rng(3)
    ref_s, ref_y = pool(3000, 0.3, rng)
    binnings = candidate_binnings(ref_s, ref_y)
    fitted = reference.reference_map(ref_s, ref_y, draws=20000, rng=4, binnings=binnings)
    log_ev = np.array([b.log_evidence for b in binnings])
    posterior = np.exp(log_ev - special.logsumexp(log_ev))
    k = fitted.draws[:, 0].astype(int)
    frequency = np.bincount(k, minlength=len(binnings)) / k.size
    np.testing.assert_allclose(frequency, posterior, atol=4 * np.sqrt(0.25 / k.size))
    j = int(np.argmax(posterior))
    a, b = binnings[j].posterior
    rows = fitted.draws[k == j, 2:2 + binnings[j].n_bins]
    sd = np.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)) / rows.shape[0])
    assert np.all(np.abs(rows.mean(axis=0) - a / (a + b)) < 5 * sd)
    assert np.all(fitted.draws[:, 1] == 0) and np.all(fitted.weights == fitted.weights[0])
    assert fitted.log_evidence == pytest.approx(special.logsumexp(log_ev) - np.log(len(binnings)))


def test_under_covariate_shift_the_reference_map_carried_unchanged_finds_the_pools_prevalence():
    """The pool's scores moved (toward the middle) while p(y | s) stayed the reference's: the BBQ map carried
    unchanged (``reference-covariate``) estimates the pool's prevalence; read as a label shift (``reference``) it
    does not."""
    rng = np.random.default_rng(8)
    truth = lambda s: special.expit(6 * (s - 0.5))  # noqa: E731 - the map both sets share
    ref_s = rng.random(4000)
    ref_y = (rng.random(4000) < truth(ref_s)).astype(int)
    s = rng.beta(4, 4, 5000)
    expected = truth(s).mean()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        covariate = spe.evaluate(s, None, reference=(ref_s, ref_y), score_model="reference-covariate", draws=500,
                                 rng=1)
        label = spe.evaluate(s, None, reference=(ref_s, ref_y), score_model="reference", draws=500, rng=1)
    p = covariate.prevalence()
    assert p.lo <= expected <= p.hi and abs(p.mean - expected) < 0.02
    assert abs(label.prevalence().mean - expected) > 2 * abs(p.mean - expected)
