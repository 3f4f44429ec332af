"""A reference set's labels as evidence for every model: compression, weighted fits, the carry under label or
covariate shift, and the two hypotheses' prior (spe.models.shift, spe.models.anchor, spe.models.deviation)."""

import warnings

import numpy as np
import pytest
from scipy import special

import spe
from spe.models.anchor import DRIFT_PRIOR, NEW_MAP_PRIOR, hypothesis_prior
from spe.models.base import FittedScoreModel
from spe.models.features import log_odds_feature
from spe.models.recalibration import fit_recalibration
from spe.models.label_shift_check import label_shift_check, pool_score_evidence
from spe.models.cells import compressed
from spe.models.shift import carry_to_pool


def pool(n, prevalence, rng):
    """Scores as probabilities from two Gaussian classes in log-odds (the map σ(a + b z) is exact)."""
    y = (rng.random(n) < prevalence).astype(int)
    z = np.where(y == 1, rng.normal(1.0, 1.0, n), rng.normal(-1.0, 1.0, n))
    return special.expit(z), y


def test_compression_keeps_every_item_and_positive_and_is_exact_on_few_distinct_scores():
    rng = np.random.default_rng(0)
    s = np.round(rng.random(5000), 2)  # ≤ 101 distinct values
    y = (rng.random(5000) < s).astype(int)
    c = compressed(s, y, cells=1024)
    np.testing.assert_array_equal(c.scores, np.unique(s))
    np.testing.assert_array_equal(c.counts, [np.sum(s == v) for v in c.scores])
    np.testing.assert_array_equal(c.positives, [np.sum(y[s == v]) for v in c.scores])
    coarse = compressed(rng.random(5000), cells=64)
    assert coarse.scores.size <= 64 and coarse.n_items == 5000
    assert np.all(np.diff(coarse.scores) > 0)
    assert np.ptp(coarse.counts) <= 1  # equal-count cells of distinct scores


def test_a_weighted_fit_on_distinct_scores_is_the_fit_on_the_items():
    rng = np.random.default_rng(1)
    s = np.round(rng.random(400), 1).clip(0.05, 0.95)
    y = (rng.random(400) < s).astype(int)
    feature = log_odds_feature(s, "probability")
    items = fit_recalibration("calibrated", feature, s, np.arange(400), y, draws=200, rng=0)
    c = compressed(s, y)
    neg, pos = c.counts - c.positives, c.positives
    k = np.flatnonzero(neg > 0), np.flatnonzero(pos > 0)
    weighted = fit_recalibration("calibrated", feature, c.scores, np.r_[k[0], k[1]],
                                 np.r_[np.zeros(k[0].size, int), np.ones(k[1].size, int)], draws=200, rng=0,
                                 weights=np.r_[neg[k[0]], pos[k[1]]])
    assert weighted.log_evidence == pytest.approx(items.log_evidence, abs=1e-6)
    assert weighted.loo is None


def _calibrated_on(ref_s, ref_y):
    c = compressed(ref_s, ref_y)
    neg, pos = c.counts - c.positives, c.positives
    k0, k1 = np.flatnonzero(neg > 0), np.flatnonzero(pos > 0)
    model = fit_recalibration("calibrated", log_odds_feature(c.scores, "probability"), c.scores, np.r_[k0, k1],
                              np.r_[np.zeros(k0.size, int), np.ones(k1.size, int)], draws=1000, rng=0,
                              weights=np.r_[neg[k0], pos[k1]])
    return model, c


def test_label_shift_recovers_the_pools_prevalence_from_its_scores_and_covariate_shift_keeps_the_map():
    rng = np.random.default_rng(2)
    ref_s, ref_y = pool(6000, 0.1, rng)
    s, y = pool(6000, 0.35, rng)
    fitted, ref = _calibrated_on(ref_s, ref_y)
    none = np.zeros(0, int)
    label = carry_to_pool(fitted, ref, compressed(s), none, none, name="x", draws=2000, rng=3)
    pi_pool = label.constrained_draws[:, 2]
    lo, hi = np.quantile(pi_pool, [0.01, 0.99], method="inverted_cdf", weights=label.weights)
    assert lo < y.mean() < hi and hi - lo < 0.06
    assert label.log_evidence == fitted.log_evidence == label.reference_log_evidence  # no pool labels
    covariate = carry_to_pool(fitted, ref, compressed(s), none, none, name="y", draws=500, rng=3,
                              assumption="covariate")
    np.testing.assert_array_equal(covariate.draws[:, 1], 0.0)
    grid = np.linspace(0.05, 0.95, 7)
    same = fitted.draws[covariate.draws[:, 0].astype(int)]  # each draw: the reference's map itself
    np.testing.assert_allclose(covariate.probability(covariate.draws, grid), fitted.probability(same, grid),
                               rtol=1e-9)


def test_the_pools_labels_decide_between_label_and_covariate_shift():
    rng = np.random.default_rng(4)
    ref_s, ref_y = pool(6000, 0.1, rng)
    s, y = pool(6000, 0.5, rng)
    fitted, ref = _calibrated_on(ref_s, ref_y)
    idx = rng.choice(6000, 60, replace=False)
    evidence = {a: carry_to_pool(fitted, ref, compressed(s), s[idx], y[idx], name=a, draws=1000, rng=5,
                                 assumption=a).log_evidence for a in ("label", "covariate")}
    assert evidence["label"] > evidence["covariate"] + 3  # a pure prior shift: the labels say so


def _model(log_evidence, reference_log_evidence=None, assumption=None):
    m = FittedScoreModel(name="m", draws=np.zeros((1, 1)), weights=np.ones(1), probability=None,
                         diagnostics={"assumption": assumption})
    m.log_evidence, m.reference_log_evidence = log_evidence, reference_log_evidence
    return m


def _four():
    return [_model(-10.0, -8.0, "label"), _model(-12.0, -11.0, "covariate"), _model(-3.0), _model(-4.0)]


def test_the_concept_shift_models_get_the_reference_labels_evidence_averaged_over_the_anchored_maps():
    models = _four()
    exact = (1 - NEW_MAP_PRIOR) * (1 - DRIFT_PRIOR) / 2  # each shift without drift (the spike)
    slab = (1 - NEW_MAP_PRIOR) * DRIFT_PRIOR / 2  # each shift's drift
    prior = hypothesis_prior(models, [True, True, False, False])  # no drift model: a new map against no drift
    np.testing.assert_allclose(prior, np.array([exact, exact, NEW_MAP_PRIOR / 2, NEW_MAP_PRIOR / 2])
                               / (2 * exact + NEW_MAP_PRIOR))
    drift = _four()
    drift[2].name, drift[2].diagnostics["assumption"] = "reference-deviation-covariate", "covariate"
    np.testing.assert_allclose(hypothesis_prior(drift, [True, True, False, False]),
                               np.array([exact, exact, slab, NEW_MAP_PRIOR]) / (2 * exact + slab + NEW_MAP_PRIOR))
    expected = np.log(np.mean(np.exp([-8.0, -11.0])))
    assert models[2].log_evidence == pytest.approx(-3.0 + expected)
    assert models[3].reference_log_evidence == pytest.approx(expected)
    assert models[0].log_evidence == -10.0  # the anchored ones keep theirs
    alone = _four()
    assert hypothesis_prior(alone[:1] + alone[2:], [True, False, False]) == pytest.approx(
        np.array([exact, NEW_MAP_PRIOR / 2, NEW_MAP_PRIOR / 2]) / (exact + NEW_MAP_PRIOR))  # one shift fitted
    np.testing.assert_allclose(hypothesis_prior(_four()[:2], [True, True]), [0.5, 0.5])


def test_a_drift_gets_the_reference_labels_evidence_of_its_own_assumptions_maps():
    """A drift stands for the drift of any of its assumption's maps: its reference evidence is their average, not
    one borrowed from the other assumption's (a label-shift map that fits the reference far better must not lift
    the covariate drift over the covariate maps it deviates), so without pool labels it keeps its prior share."""
    models = [_model(-5.0, -5.0, "label"), _model(-60.0, -60.0, "covariate"), _model(-61.0, -61.0, "covariate"),
              _model(0.0, None, "covariate")]
    models[3].name = "reference-deviation-covariate"
    prior = hypothesis_prior(models, [True, True, True, False])
    expected = np.log(np.mean(np.exp([-60.0, -61.0])))
    assert models[3].reference_log_evidence == pytest.approx(expected)
    assert models[3].log_evidence == pytest.approx(expected)
    evidence = np.array([m.log_evidence for m in models])
    posterior = prior * np.exp(evidence - evidence.max())
    covariate = posterior[1:] / posterior[1:].sum()
    assert covariate[2] == pytest.approx(DRIFT_PRIOR)  # the drift's prior share of its assumption, no labels


def test_the_pools_score_histogram_evidence_goes_to_each_models_assumption():
    """Label shift: its evidence; covariate shift and a drift under it: the covariate's; a new map: the two
    averaged (a changed map says nothing of the scores' distribution)."""
    models, plain = _four(), _four()
    for m in (models, plain):
        m[3].name, m[3].diagnostics["assumption"] = "reference-deviation-covariate", "covariate"
    hypothesis_prior(models, [True, True, False, False], {"label": -1.0, "covariate": -5.0})
    hypothesis_prior(plain, [True, True, False, False])
    new_map = np.log((np.exp(-1.0) + np.exp(-5.0)) / 2)
    assert [m.log_evidence - p.log_evidence for m, p in zip(models, plain)] == pytest.approx(
        [-1.0, -5.0, new_map, -5.0])


def test_with_a_reference_and_no_pool_labels_the_estimate_rests_on_the_reference_and_says_so():
    rng = np.random.default_rng(6)
    ref_s, ref_y = pool(3000, 0.2, rng)
    s, y = pool(3000, 0.3, rng)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ev = spe.evaluate(s, None, reference=(ref_s, ref_y), rng=0, draws=400, workers=1)
    assert not [w for w in caught if "nothing checks" in str(w.message)]
    names = [m["model"] for m in ev.diagnostics["score_models"]]
    assert names and all(n.startswith("reference") for n in names)
    assert "reference-calibrated-covariate" in names
    ref = ev.diagnostics["reference"]
    assert ref["weight"] > 0.75 and ref["weight"] + ref["concept_shift_weight"] == pytest.approx(1.0)
    assert "no pool item is labeled" in ref["check"] and ref["label_shift_weight"] > 0.7  # a pure prior shift
    assert ref["label_shift_check_p"] > 0.01  # a pure prior shift
    assert "assumed:" in ev.summary()
    interval = ev.prevalence(level=0.9)
    assert interval.lo < y.mean() < interval.hi


@pytest.mark.slow
def test_pool_labels_that_contradict_the_reference_move_the_weight_to_concept_shift():
    rng = np.random.default_rng(7)
    ref_s, ref_y = pool(3000, 0.3, rng)
    z = rng.normal(0.0, 1.5, 3000)  # a pool whose map is much flatter than the reference's: σ(0.3 z)
    s, y = special.expit(z), (rng.random(3000) < special.expit(0.3 * z)).astype(int)
    idx = rng.choice(3000, 80, replace=False)
    ev = spe.evaluate(s, (idx, y[idx]), reference=(ref_s, ref_y), rng=0, draws=500, workers=1)
    ref = ev.diagnostics["reference"]
    assert ref["concept_shift_weight"] > 0.9
    interval = ev.prevalence(level=0.9)
    assert interval.lo < y.mean() < interval.hi


def test_a_few_surprising_labels_weigh_the_reference_maps_down_but_never_leave_them_out():
    """Three negatives among the pool's top scores and a positive near the bottom: the label check puts the
    reference's maps near or below p = 0.01, yet they stay in the average (weighed against a new map by the
    evidence and the hypotheses' prior), so P(new map) stays below 1 and the new-map weight grows smoothly with
    its prior."""
    from spe.models.pooling import PoolPriors
    from spe.shared_reference import SharedReference

    rng = np.random.default_rng(8)
    ref_s, ref_y = pool(3000, 0.3, rng)
    s, _ = pool(3000, 0.3, rng)
    order = np.argsort(s)
    idx = np.r_[order[-3:], order[5], order[1500]]
    labels = (idx, np.array([0, 0, 0, 1, 0]))
    ref = SharedReference(ref_s, ref_y)
    concept = []
    for masses in [None, (0.5, 0.45, 0.05), (0.3, 0.2, 0.5)]:
        with_priors = ref if masses is None else ref.with_priors(PoolPriors({}, masses))
        ev = spe.evaluate(s, labels, reference=with_priors, rng=0, draws=300, workers=1)
        entries = ev.diagnostics["score_models"]
        assert min(e["label_check_p"] for e in entries if e["model"].startswith("reference")) < 0.02
        assert not any(e["excluded"] for e in entries if e["model"].startswith("reference"))
        concept.append(ev.diagnostics["reference"]["concept_shift_weight"])
    assert concept[0] == pytest.approx(concept[1], abs=0.02)  # the default masses, given explicitly
    assert 0.05 < concept[1] < concept[2] < 1.0


def test_the_pools_score_histogram_favours_label_shift_for_a_remix_and_covariate_shift_otherwise():
    rng = np.random.default_rng(8)
    ref_s, ref_y = pool(8000, 0.3, rng)
    remix, _ = pool(8000, 0.6, rng)  # the reference's classes, another prevalence
    y = (rng.random(8000) < 0.3).astype(int)  # the negatives' scores moved: no prevalence reproduces them
    moved = special.expit(np.where(y == 1, rng.normal(1.0, 1.0, 8000), rng.normal(-0.3, 0.6, 8000)))
    reference = compressed(ref_s, ref_y)
    said = pool_score_evidence(reference, compressed(remix))
    assert said["label"] > said["covariate"] + 10
    assert label_shift_check(reference, compressed(remix), np.random.default_rng(0)) > 0.01
    said = pool_score_evidence(reference, compressed(moved))
    assert said["covariate"] > said["label"] + 10
    assert label_shift_check(reference, compressed(moved), np.random.default_rng(0)) < 0.01


def test_a_covariate_shift_pool_is_estimated_with_the_reference_map_unchanged():
    rng = np.random.default_rng(9)
    z_ref, z_pool = rng.normal(0.0, 1.5, 6000), rng.normal(-1.0, 1.0, 6000)  # p(s) moves, p(y | s) = σ(z) stays
    ref_y = (rng.random(6000) < special.expit(z_ref)).astype(int)
    y = (rng.random(6000) < special.expit(z_pool)).astype(int)
    ev = spe.evaluate(special.expit(z_pool), None, reference=(special.expit(z_ref), ref_y), rng=0, draws=400,
                      workers=1)
    weights = {m["model"]: m["weight"] for m in ev.diagnostics["score_models"]}
    assert sum(w for n, w in weights.items() if n.endswith("-covariate")) > 0.7
    interval = ev.prevalence(level=0.9)
    assert interval.lo < y.mean() < interval.hi


def test_the_label_shift_check_takes_a_reference_whose_lowest_score_is_a_pile():
    """Half of the reference at one lowest score (a naive Bayes at 0): the first cut falls on it and leaves the bin
    below it empty; the pool has items there. The check gives a p-value (it raised on NaN probabilities)."""
    rng = np.random.default_rng(0)
    ref_s, ref_y = pool(2000, 0.3, rng)
    ref_s[ref_s < 0.4] = 0.01
    pool_s, _ = pool(2000, 0.3, rng)
    pool_s[pool_s < 0.4] = 0.005  # below the reference's lowest score
    p = label_shift_check(compressed(ref_s, ref_y), compressed(pool_s), np.random.default_rng(0))
    assert 0.0 <= p <= 1.0
