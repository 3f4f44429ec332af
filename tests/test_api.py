"""spe.evaluate on simulated data with known truth, on real data, and on degenerate input."""

import warnings

import numpy as np
import pytest
from scipy import special

import spe
from spe.multiclass import is_multiclass
from spe.baselines import pr_curve_from_labels
from spe.exceptions import SpeInputError, SpeWarning
from spe.models.mixture.fit import fit_mixture
from spe.models.features import mixture_log_odds_feature
from spe.models.registry import REGISTRY, ScoreModel, score_model_names

from .conftest import EXAMPLES, case_slice, simulate


def _labels(y, n, seed):
    idx = np.sort(np.random.default_rng(seed).choice(y.size, n, replace=False))
    return idx, y[idx]


def _quiet(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return spe.evaluate(*args, **kwargs)


@pytest.mark.slow
def test_band_and_prevalence_cover_the_truth_on_a_known_mixture():
    """Scores from a two-Normal mixture (the model's own family): over 10 seeds the 90% bands
    cover the true sample PR curve over most of the recall grid and the prevalence interval
    covers the true sample prevalence at about the nominal rate."""
    covered_prev, grid_cover, errors = 0, [], []
    for seed in range(10):
        s, y = simulate(1200, 0.3, seed, neg=(0.0, 1.0), pos=(2.5, 1.0))
        ev = _quiet(s, _labels(y, 20, seed), families="truncnorm,truncnorm", draws=600, rng=seed)
        truth = pr_curve_from_labels(s, y)
        pr = ev.pr_curve()
        grid_cover.append(np.mean((pr.lo <= truth + 1e-9) & (truth <= pr.hi + 1e-9)))
        prev = ev.prevalence()
        covered_prev += prev.lo <= y.mean() <= prev.hi
        errors.append(np.trapezoid(np.abs(pr.median - truth), pr.x))
    assert covered_prev >= 8, covered_prev
    assert min(grid_cover) >= 0.6 and np.mean(grid_cover) >= 0.8, grid_cover
    assert np.mean(errors) < 0.03


def test_same_seed_same_result_and_inputs_untouched():
    s, y = simulate(800, 0.2, 1)
    s_copy = s.copy()
    labels = {int(i): int(y[i]) for i in range(0, 800, 40)}
    a = _quiet(s, labels, families="truncnorm,gamma", draws=200, rng=7)
    b = _quiet(s, dict(labels), families="truncnorm,gamma", draws=200, rng=7)
    assert a.to_dict() == b.to_dict()
    np.testing.assert_array_equal(s, s_copy)
    c = _quiet(s, labels, families="truncnorm,gamma", draws=200, rng=8)
    assert c.to_dict() != a.to_dict()


def test_labels_in_every_accepted_form_agree():
    s, y = simulate(500, 0.3, 2)
    idx = np.array([3, 50, 90, 200])
    as_array = np.full(500, np.nan)
    as_array[idx] = y[idx]
    forms = [dict(zip(idx.tolist(), y[idx].tolist())), (idx, y[idx]), as_array]
    results = [_quiet(s, f, families="truncnorm,truncnorm", draws=150, rng=0).to_dict() for f in forms]
    assert results[0] == results[1] == results[2]


def test_labels_as_users_hold_them_read_as_the_same_items():
    """scikit-learn's conventions for binary labels (0/1, -1/1, bools, two strings with pos_label) with NaN,
    None or pandas' NA for the unlabeled, lists, pandas Series by position, and labels keyed by the items' ids
    when the scores carry them (a Series' index) all give the same (positions, labels)."""
    import pandas as pd

    from spe.inputs import item_ids, normalize_labels

    n, idx, val = 8, np.array([1, 4, 6]), np.array([1, 0, 1])
    expected = (idx, val)
    with_nan = np.full(n, np.nan)
    with_nan[idx] = val
    pm_one = np.where(with_nan == 0, -1, with_nan)
    as_text = np.array([None] * n, dtype=object)
    as_text[idx] = np.where(val == 1, "spam", "ham")
    as_bool = np.array([None] * n, dtype=object)
    as_bool[idx] = val.astype(bool)
    ids = np.array([f"item{k}" for k in range(n)])
    scores = pd.Series(np.linspace(0, 1, n), index=ids)
    forms = [(with_nan, None, None), (with_nan.tolist(), None, None), (pm_one, None, None),
             (pm_one.tolist(), None, None), (as_bool, None, None), (as_text, None, "spam"),
             (pd.Series(with_nan).astype("Int64"), None, None), (pd.Series(val, index=idx), None, None),
             (dict(zip(idx.tolist(), (2 * val - 1).tolist())), None, None), ({1: True, 4: False, 6: True}, None, None),
             ({1: "1", 4: "0.0", 6: "true"}, None, None), ({1: "yes", 4: "no", 6: "yes", 7: None}, None, "yes"),
             (pd.Series(pm_one, index=ids), item_ids(scores), None), (dict(zip(ids[idx], val)), item_ids(scores), None),
             ((ids[idx], val), item_ids(scores), None), (pd.Series(val, index=ids[idx])[::-1], item_ids(scores), None)]
    forms += [(pd.DataFrame({"id": ids[idx], "label": val}), item_ids(scores), None),
              (pd.DataFrame({"label": val}, index=idx), None, None), (pd.DataFrame({"y": val}, index=idx), None, None)]
    for labels, item, pos_label in forms:
        got = normalize_labels(labels, n, item, pos_label)
        np.testing.assert_array_equal(got[0], expected[0])
        np.testing.assert_array_equal(got[1], expected[1])
    assert item_ids(pd.Series(np.zeros(n))) is None and item_ids(np.zeros(n)) is None


def test_the_csv_files_read_by_pandas_are_the_same_inputs_as_a_series_by_id():
    """``pd.read_csv`` of SCORES.csv (id, score) and of LABELS.csv (id, label) can be passed as they are: the same
    estimate, with the same ids, as the Series indexed by id; a DataFrame without the column says which it has."""
    import pandas as pd

    from spe.inputs import scores_of_frame

    scores = pd.read_csv(EXAMPLES / "digits_scores.csv")
    labels = pd.read_csv(EXAMPLES / "digits_labels.csv")
    as_frames = _quiet(scores, labels, families="truncnorm,truncnorm", draws=150, rng=0)
    as_series = _quiet(scores.set_index("id")["score"], labels.set_index("id")["label"],
                       families="truncnorm,truncnorm", draws=150, rng=0)
    assert as_frames.to_dict() == as_series.to_dict()
    np.testing.assert_array_equal(as_frames.ids, scores["id"])
    assert scores_of_frame(scores[["score"]]).equals(scores["score"])
    with pytest.raises(SpeInputError, match=r"scores: a DataFrame needs a 'score' column .*it has: id, a, b"):
        spe.evaluate(scores.rename(columns={"score": "a"}).assign(b="x"), labels)
    # two numeric columns besides id and no 'score': a multiclass classifier's scores (DESIGN.md, "Multiclass")
    assert is_multiclass(scores.rename(columns={"score": "a"}).assign(b=1.0))
    with pytest.raises(SpeInputError, match=r"labels: a DataFrame needs a 'label' column .*it has: id, y, z"):
        spe.evaluate(scores, labels.rename(columns={"label": "y"}).assign(z=1))


@pytest.mark.parametrize("labels,pos_label,match", [
    ({0: -1, 1: 0, 2: 1}, None, r"mix two conventions.*never with -1; item 0 has label -1$"),
    (np.array([-1, 1, 0, -1, -1, -1, -1, -1]), None, "mix two conventions"),
    ({0: "spam", 1: "ham"}, None, r"text labels \('spam', 'ham'\) need pos_label"),
    ({0: "a", 1: "b", 2: "c"}, "a", "3 distinct values"),
    ({0: "a", 1: "b"}, "c", "pos_label 'c' is neither"),
    ({0: 2, 1: 0}, None, r"label 2 is not 0 or 1.*item 0 has label 2$"),
])
def test_labels_no_convention_reads_are_refused_with_the_item_and_how_to_pass_them(labels, pos_label, match):
    from spe.inputs import normalize_labels

    with pytest.raises(SpeInputError, match=match):
        normalize_labels(labels, 8, pos_label=pos_label)


def test_plus_minus_one_labels_with_nan_give_the_answer_of_zero_one_labels():
    """Labels as scikit-learn's -1/1 with NaN for the unlabeled were once read with -1 as unlabeled, every
    negative dropped (prevalence 0.58 for a truth of 0.10): the same estimate as 0/1 now."""
    s, y = simulate(800, 0.1, 5)
    rng = np.random.default_rng(1)
    zero_one = np.full(800, np.nan)
    pick = rng.choice(800, 40, replace=False)
    zero_one[pick] = y[pick]
    plus_minus = np.where(zero_one == 0, -1.0, zero_one)
    a = _quiet(s, zero_one, families="truncnorm,truncnorm", draws=150, rng=0)
    b = _quiet(s, plus_minus, families="truncnorm,truncnorm", draws=150, rng=0)
    assert a.to_dict() == b.to_dict()
    assert abs(b.prevalence().mean - y.mean()) < 0.1


def test_labels_by_id_fit_as_labels_by_position_and_positions_beside_ids_warn():
    import pandas as pd

    s, y = simulate(500, 0.3, 2)
    idx = np.array([3, 50, 90, 200])
    ids = np.array([f"row-{k}" for k in range(500)])
    by_position = _quiet(s, dict(zip(idx.tolist(), y[idx].tolist())), families="truncnorm,truncnorm", draws=150,
                         rng=0).to_dict()
    by_id = _quiet(pd.Series(s, index=ids), pd.Series(y[idx], index=ids[idx]), families="truncnorm,truncnorm",
                   draws=150, rng=0).to_dict()
    assert by_id == by_position
    with pytest.warns(SpeWarning, match="index is not used"):
        spe.evaluate(pd.Series(s, index=ids), dict(zip(idx.tolist(), y[idx].tolist())), draws=150, rng=0)


@pytest.mark.parametrize(
    "labels,match",
    [
        ({0: 2}, "0 or 1"),
        ({900: 1}, "outside"),
        ((np.array([1, 1]), np.array([0, 1])), "labeled twice"),
        (np.zeros(3), "one entry per score"),
    ],
)
def test_bad_labels_raise(labels, match):
    s, _ = simulate(500, 0.3, 0)
    with pytest.raises(SpeInputError, match=match):
        spe.evaluate(s, labels)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_scores_raise(bad):
    s, _ = simulate(100, 0.3, 0)
    s[17] = bad
    with pytest.raises(SpeInputError, match=r"scores\[17\]"):
        spe.evaluate(s)


def test_bad_options_raise():
    s, _ = simulate(100, 0.3, 0)
    with pytest.raises(ValueError, match="level"):
        spe.evaluate(s, level=1.5)
    with pytest.raises(ValueError, match="known families"):
        spe.evaluate(s, families="gamma,nope")
    with pytest.raises(ValueError, match="draws"):
        spe.evaluate(s, draws=5)


def test_no_labels_warns_and_answers():
    s, y = simulate(1000, 0.3, 3, pos=(3.0, 1.0))
    with pytest.warns(SpeWarning, match="no labeled items"):
        ev = spe.evaluate(s, None, families="truncnorm,truncnorm", draws=300, rng=0)
    assert ev.n_labeled == 0
    assert any("no labeled items" in w for w in ev.warnings)
    # without labels no model can be preferred: equal weights, and a wide interval that holds the truth
    weights = [m["weight"] for m in ev.diagnostics["score_models"]]
    without_reference = [m for m in score_model_names() if not REGISTRY[m].needs_reference]  # no reference given
    assert len(weights) == len(without_reference) and np.allclose(weights, 1 / len(weights))
    prev = ev.prevalence()
    assert prev.lo <= y.mean() <= prev.hi and prev.hi - prev.lo > 0.3
    # the paper's mixture alone, on scores it fits, finds the prevalence from the scores
    with pytest.warns(SpeWarning):
        mix = spe.evaluate(s, None, families="truncnorm,truncnorm", draws=300, rng=0, score_model="mixture")
    assert abs(mix.prevalence().mean - y.mean()) < 0.05


def test_one_class_only_warns_and_answers():
    s, y = simulate(1000, 0.3, 4)
    neg = np.flatnonzero(y == 0)[:15]
    with pytest.warns(SpeWarning, match="no labeled positive"):
        ev = spe.evaluate(s, (neg, np.zeros(15, dtype=int)), families="truncnorm,truncnorm", draws=300, rng=0)
    assert np.isfinite(ev.average_precision().mean)


def test_heavily_tied_scores_warn_and_answer():
    """A random-forest-like score: few distinct values."""
    df = case_slice("pen_rf4", 2500)
    s, y = df["score"].to_numpy(), df["label"].to_numpy()
    with warnings.catch_warnings(record=True) as caught:  # this slice also warns of perfectly separated labels
        warnings.simplefilter("always")
        ev = spe.evaluate(s, _labels(y, 20, 0), draws=300, rng=0)
    assert any(issubclass(w.category, SpeWarning) and "heavily tied" in str(w.message) for w in caught)
    assert 0 <= ev.prevalence().lo <= ev.prevalence().hi <= 1
    assert ev.pr_curve().median.shape == (101,)


def test_near_perfect_separation_warns_and_answers():
    s, y = simulate(1000, 0.2, 5, pos=(12.0, 1.0))
    idx, val = _labels(y, 20, 1)
    with pytest.warns(SpeWarning, match="perfectly separated"):
        ev = spe.evaluate(s, (idx, val), draws=300, rng=0)
    assert ev.average_precision().lo > 0.95
    assert abs(ev.prevalence().mean - y.mean()) < 0.03


def test_item_probabilities_keep_labels_and_are_calibrated_in_aggregate():
    s, y = simulate(2000, 0.25, 6, pos=(2.0, 1.0))
    idx, val = _labels(y, 30, 2)
    ev = _quiet(s, (idx, val), families="truncnorm,truncnorm", draws=400, rng=0)
    p = ev.item_probabilities()
    assert p.shape == (2000,)
    np.testing.assert_array_equal(p[idx], val)
    assert np.all((p >= 0) & (p <= 1))
    assert abs(p.mean() - ev.prevalence().mean) < 0.01  # the mean item probability is the prevalence
    assert np.all(np.diff(p[np.argsort(s)][~np.isin(np.argsort(s), idx)]) >= -1e-9)  # monotone in the score


def test_to_dict_follows_the_contract(digits):
    scores, truth = digits
    y = truth["label"].to_numpy()
    ev = _quiet(scores["score"].to_numpy(), _labels(y, 20, 0), draws=300, rng=0)
    d = ev.to_dict()
    for key in ("n_items", "n_labeled", "level", "families", "prevalence", "average_precision", "roc_auc",
                "pr_curve", "roc_curve", "diagnostics"):
        assert key in d
    rec = np.array(d["pr_curve"]["recall"])
    assert rec.size >= 101 and rec[0] == 0 and rec[-1] == 1 and np.all(np.diff(rec) > 0)
    lo, med, hi = (np.array(d["pr_curve"][k], dtype=float) for k in ("precision_lo", "precision", "precision_hi"))
    assert np.all(lo <= med + 1e-12) and np.all(med <= hi + 1e-12)
    for k in ("mean", "lo", "hi"):
        assert 0 <= d["prevalence"][k] <= 1
    assert d["diagnostics"]["inference"] == "importance"
    assert d["diagnostics"]["ess"] > 0 and "pareto_k" in d["diagnostics"]
    assert set(d["families"]) == {"negative", "positive"}
    # a different level gives a narrower band
    narrow = ev.pr_curve(level=0.5)
    assert np.all(narrow.hi - narrow.lo <= hi - lo + 1e-12)


def test_score_type_resolution():
    from spe.api import resolve_score_type

    assert resolve_score_type(np.array([0.0, 0.3, 1.0])) == "probability"
    assert resolve_score_type(np.array([-2.0, 0.3, 4.0])) == "log-odds"
    assert resolve_score_type(np.array([0.1, 0.3]), "decision") == "decision"
    with pytest.raises(ValueError, match=r"needs scores in \[0, 1\]"):
        resolve_score_type(np.array([-1.0, 0.5]), "probability")
    with pytest.raises(ValueError, match="score_type: must be"):
        resolve_score_type(np.array([0.5]), "margin")


def test_decision_scores_leave_the_calibrated_model_out():
    s, y = simulate(600, 0.3, 4)
    lab = _labels(y, 20, 1)
    ev = _quiet(s, lab, families="truncnorm,truncnorm", draws=200, rng=0, score_type="decision")
    models = [m["model"] for m in ev.diagnostics["score_models"]]
    assert "calibrated" not in models and "platt" in models and "hybrid" in models
    assert ev.diagnostics["score_type"] == "decision"
    assert abs(sum(m["weight"] for m in ev.diagnostics["score_models"]) - 1) < 1e-9
    auto = _quiet(s, lab, families="truncnorm,truncnorm", draws=200, rng=0)
    assert "calibrated" in [m["model"] for m in auto.diagnostics["score_models"]]
    assert auto.diagnostics["score_type"] == "log-odds"
    with pytest.raises(ValueError, match="score_model: 'calibrated' reads the scores as probabilities or log-odds"):
        spe.evaluate(s, lab, score_model="calibrated", score_type="decision")


def test_log_odds_scores_read_as_probabilities_agree():
    """The calibrated model sees the same feature whether given p or logit(p)."""
    from scipy import special

    rng = np.random.default_rng(2)
    y = (rng.random(800) < 0.3).astype(int)
    p = special.expit(np.where(y == 1, rng.normal(1.5, 1, 800), rng.normal(-1.5, 1, 800)))
    lab = _labels(y, 25, 3)
    a = _quiet(p, lab, families="truncnorm,truncnorm", draws=300, rng=0, score_model="calibrated")
    b = _quiet(special.logit(p), lab, families="truncnorm,truncnorm", draws=300, rng=0, score_model="calibrated",
               score_type="log-odds")
    np.testing.assert_allclose(a.item_probabilities(), b.item_probabilities(), atol=1e-6)


def test_labels_contradicting_the_scores_fail_the_label_check():
    """Every model says higher score = more positive; labels saying the opposite are flagged."""
    s, y = simulate(800, 0.3, 6, pos=(3.0, 1.0))
    idx, val = _labels(y, 30, 2)
    with pytest.warns(SpeWarning) as caught:
        ev = spe.evaluate(s, (idx, 1 - val), families="truncnorm,truncnorm", draws=300, rng=0)
    said = [str(w.message) for w in caught]
    assert any("no score model predicts the labeled items well" in m for m in said)
    assert any("the labeled items say the classifier ranks backwards" in m for m in said)
    assert ev.diagnostics["label_check"]["passed"] is False
    good = _quiet(s, (idx, val), families="truncnorm,truncnorm", draws=300, rng=0)
    assert good.diagnostics["label_check"]["passed"] is True
    assert all(0 <= m["label_check_p"] <= 1 for m in good.diagnostics["score_models"])
    assert "label check" in good.summary() and "histogram check" in good.summary()
    assert good.diagnostics["histogram_check"]["bins"] >= 10


def _simulate_for(model, seed, n=1000):
    """Scores and labels drawn from the assumptions of one score model (truth known)."""
    from scipy import special

    rng = np.random.default_rng(seed)
    if model in ("mixture", "hybrid"):  # the mixture's own generative story (hybrid: its log-odds is exact)
        return simulate(n, 0.3, seed, neg=(0.0, 1.0), pos=(2.5, 1.0))
    if model == "calibrated":  # probabilities, calibrated up to a prior shift and a slope near 1
        p = special.expit(rng.normal(-1.0, 2.0, n))
        y = (rng.random(n) < special.expit(0.7 + 1.2 * special.logit(p))).astype(int)
        return p, y
    if model == "piecewise":  # a deep network's shape: under-confident in the middle, over-confident at the top
        from spe.models.piecewise import knots_at_quantiles, piece_lengths

        z = rng.normal(-2.0, 3.0, n)
        eta = 0.5 + piece_lengths(z, knots_at_quantiles(z)) @ np.array([1.0, 1.6, 1.6, 0.5])
        y = (rng.random(n) < special.expit(eta)).astype(int)
        return special.expit(z), y
    s = rng.normal(5.0, 3.0, n)  # platt: decision values on their own scale, logistic in the score
    y = (rng.random(n) < special.expit(-4.0 + 0.6 * s)).astype(int)
    return s, y


@pytest.mark.slow
@pytest.mark.parametrize("model", ["mixture", "hybrid", "calibrated", "platt", "piecewise"])
def test_each_score_model_covers_the_truth_on_its_own_data(model):
    """Data simulated from each model's assumptions, 30 labels: over 10 seeds the 90% band holds the
    true sample PR curve on most of the recall grid and the prevalence interval covers the true
    sample prevalence at about the nominal rate (≥ 7 of 10; 9 expected)."""
    covered, grid = 0, []
    for seed in range(10):
        s, y = _simulate_for(model, seed)
        ev = _quiet(s, _labels(y, 30, seed + 100), families="truncnorm,truncnorm", draws=400, rng=seed,
                    score_model=model)
        truth = pr_curve_from_labels(s, y)
        pr = ev.pr_curve()
        grid.append(np.mean((pr.lo <= truth + 1e-9) & (truth <= pr.hi + 1e-9)))
        prev = ev.prevalence()
        covered += prev.lo <= y.mean() <= prev.hi
    assert covered >= 7, (model, covered)
    assert np.mean(grid) >= 0.8, (model, grid)


def test_hybrid_input_is_the_monotone_envelope_of_the_mixture_log_odds():
    """A wide negative class under a narrow positive one: the fitted log-odds falls at the top scores;
    the hybrid's input holds the top at the highest log-odds reached above the median and keeps it elsewhere."""
    s, y = simulate(1500, 0.2, 3, neg=(0.0, 2.0), pos=(3.0, 0.5))
    labeled = np.arange(0, 1500, 75)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mixture, _ = fit_mixture(s, labeled, y[labeled], families=("truncnorm", "truncnorm"), draws=200, rng=0)
    d = mixture.mixture_fit
    grid = np.unique(s)
    raw = np.clip(special.logit(d.mixture.class_probability(d.u_map_untempered[None, :], d.space.to_model(grid))[0]),
                  -50, 50)
    assert raw[-1] < raw.max() - 1.0  # the fitted log-odds does fall at the top
    feature = mixture_log_odds_feature(mixture, s)
    env = feature(grid)
    assert np.all(np.diff(env) >= 0)
    k = np.searchsorted(grid, np.median(s))  # above the median: running maximum from it; below: running minimum
    np.testing.assert_allclose(env[k:], np.maximum.accumulate(raw[k:]), atol=1e-6)
    np.testing.assert_allclose(env[:k], np.minimum.accumulate(raw[k::-1])[::-1][:k], atol=1e-6)
    rising = raw >= np.maximum.accumulate(raw) - 1e-12
    assert np.allclose(env[rising], raw[rising], atol=1e-6) and rising[: np.argmax(raw)].mean() > 0.9
    # between and beyond pool scores: linear interpolation, constant outside
    assert feature(np.array([grid[0] - 10, grid[-1] + 10])) == pytest.approx([env[0], env[-1]])
    mid = 0.5 * (grid[100] + grid[101])
    assert feature(np.array([mid]))[0] == pytest.approx(0.5 * (env[100] + env[101]))


def test_a_mixture_that_fails_the_histogram_check_is_left_out_of_the_average():
    """Bimodal negatives that one truncated normal cannot fit: the histogram check fails, so the mixture
    gets weight 0 in the average (and says why); on data from its own model it keeps its weight."""
    rng = np.random.default_rng(5)
    s = np.concatenate([rng.normal(-2.0, 0.3, 700), rng.normal(0.5, 0.3, 700), rng.normal(2.5, 0.5, 300)])
    y = np.r_[np.zeros(1400, int), np.ones(300, int)]
    idx, val = _labels(y, 20, 1)
    bad = _quiet(s, (idx, val), families="truncnorm,truncnorm", draws=300, rng=0)
    assert bad.diagnostics["histogram_check"]["passed"] is False
    entry = next(m for m in bad.diagnostics["score_models"] if m["model"].startswith("mixture"))
    assert entry["excluded"] and entry["left_out_by"] == "histogram" and entry["weight"] == 0.0
    # it misses the histogram by far more than noise already at its MAP: left out without drawing its posterior
    assert bad.diagnostics["histogram_check"]["at_map"] and bad.diagnostics["inference"] == "map"
    assert "histogram check failed: left out" in bad.summary() and "left out at its MAP" in bad.summary()
    assert entry["label_check_p"] is None and "FAILED at the MAP" in bad.summary()
    # left out, it is neither tempered nor its evidence computed; asked for alone, tempering is tried
    assert bad.diagnostics["histogram_check"]["left_out"] and bad.diagnostics["histogram_check"]["tempering"] == 1
    assert not np.isfinite(entry["log_evidence"])
    alone = _quiet(s, (idx, val), families="truncnorm,truncnorm", draws=300, rng=0, score_model="mixture")
    hc = alone.diagnostics["histogram_check"]
    assert not hc["left_out"] and (hc["tempering"] < 1 or hc["tempering_failed"])
    assert np.isfinite(alone.model.log_evidence)
    assert "these draws are not used" not in alone.summary()
    s2, y2 = simulate(1500, 0.3, 4, pos=(2.5, 1.0))
    good = _quiet(s2, _labels(y2, 20, 1), families="truncnorm,truncnorm", draws=300, rng=0)
    assert good.diagnostics["histogram_check"]["passed"] is True
    entry = next(m for m in good.diagnostics["score_models"] if m["model"].startswith("mixture"))
    assert entry["left_out_by"] is None


def test_a_classifier_that_carries_no_information_gets_an_auc_interval_reaching_one_half():
    """Scores drawn independently of the labels (a collapsed training run): the null model 'the scores say
    nothing' takes weight, the ROC AUC interval reaches the true 0.5, and the summary says so. Without the
    null model every score model has a slope b > 0 and the interval stopped short of 0.5."""
    rng = np.random.default_rng(3)
    n = 4000
    y = (rng.random(n) < 0.15).astype(int)
    s = special.expit(rng.normal(-4.0, 3.0, n))  # deep-network-like probabilities, unrelated to y
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ev = spe.evaluate(s, _labels(y, 60, 4), draws=400, rng=0, families="truncnorm,truncnorm")
    weights = {m["model"]: m["weight"] for m in ev.diagnostics["score_models"]}
    assert weights["prevalence only"] >= 0.2
    auc = ev.roc_auc()
    assert auc.lo <= 0.5 + 3 * np.sqrt((n + 1) / (12 * y.sum() * (n - y.sum())))
    assert any("carried no information" in str(w.message) for w in caught)


def test_an_informative_classifier_leaves_the_null_model_no_weight():
    rng = np.random.default_rng(5)
    n = 3000
    y = (rng.random(n) < 0.3).astype(int)
    s = special.expit(np.where(y == 1, rng.normal(2.0, 1.5, n), rng.normal(-2.0, 1.5, n)))
    ev = _quiet(s, _labels(y, 40, 6), draws=300, rng=0, families="truncnorm,truncnorm")
    weights = {m["model"]: m["weight"] for m in ev.diagnostics["score_models"]}
    assert weights["prevalence only"] < 0.01
    assert ev.roc_auc().lo > 0.8


def test_a_score_model_that_does_not_use_the_mixture_skips_its_fit(monkeypatch):
    """``score_model="platt"`` (or any model but the mixture and the hybrid) never fits the SPE mixture, the
    slow part of an estimate, and the summary says why it is absent."""
    import spe.models.pipeline

    def refuse(*args, **kwargs):
        raise AssertionError("the SPE mixture was fitted")

    monkeypatch.setattr(spe.models.pipeline, "fit_mixture", refuse)
    s, y = simulate(800, 0.3, 0)
    ev = _quiet(s, _labels(y, 30, 1), draws=300, rng=0, score_model="platt")
    assert ev.families == {"negative": None, "positive": None}
    assert "SPE mixture: not fitted (the score model 'platt' does not use it)" in ev.summary()
    with pytest.raises(AssertionError, match="the SPE mixture was fitted"):
        _quiet(s, _labels(y, 30, 1), draws=300, rng=0, score_model="hybrid")


def test_a_registered_score_model_is_one_the_api_fits_and_averages(monkeypatch):
    """A score model is a ``ScoreModel`` in the registry: ``evaluate`` accepts its name, fits it on the shared
    ``LabeledScores`` with its own random stream, and ``"average"`` weighs it with the others."""
    from spe.models.constant import fit_constant

    seen = []

    def fit(data, rng):
        seen.append((data.scores.size, data.labeled_index.size, data.score_type, data.draws))
        return fit_constant(data.labeled_value, draws=data.draws, rng=rng)

    monkeypatch.setitem(REGISTRY, "toy", ScoreModel(name="toy", fit=fit, about="the prevalence, again"))
    s, y = simulate(600, 0.3, 2)
    alone = _quiet(s, _labels(y, 20, 2), draws=200, rng=0, score_model="toy")
    assert seen == [(600, 20, "log-odds", 200)]
    assert [m["model"] for m in alone.diagnostics["score_models"]] == ["prevalence only"]
    both = _quiet(s, _labels(y, 20, 2), draws=200, rng=0, families="truncnorm,truncnorm")
    assert len(both.diagnostics["score_models"]) == len(  # all but the models of a reference set
        [m for m in score_model_names() if not REGISTRY[m].needs_reference])
    with pytest.raises(ValueError, match="already registered"):
        spe.models.registry.register(ScoreModel(name="toy", fit=fit, about=""))


def test_a_score_models_warning_is_kept_on_the_result_with_its_category_and_emitted_once(monkeypatch):
    """Structured warnings: what a score model warns is a Notice on ``ev.warnings`` (and in the JSON), with its
    category and source, emitted once by ``evaluate`` as that category."""
    from spe.exceptions import ImportanceSamplingWarning, Notice
    from spe.models.constant import fit_constant

    def fit(data, rng):
        warnings.warn("weights degenerate", ImportanceSamplingWarning)
        return fit_constant(data.labeled_value, draws=data.draws, rng=rng)

    monkeypatch.setitem(REGISTRY, "toy", ScoreModel(name="toy", fit=fit, about="warns"))
    s, y = simulate(500, 0.3, 4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ev = spe.evaluate(s, _labels(y, 20, 4), draws=200, rng=0, score_model="toy")
    mine = [w for w in caught if "weights degenerate" in str(w.message)]
    assert len(mine) == 1 and mine[0].category is ImportanceSamplingWarning
    (notice,) = [w for w in ev.warnings if "weights degenerate" in w]
    assert isinstance(notice, Notice) and notice.category is ImportanceSamplingWarning
    assert notice == "score model 'prevalence only': weights degenerate" and notice.source == "prevalence only"
    assert "score model 'prevalence only': weights degenerate" in ev.to_dict()["warnings"]
    import pickle

    again = pickle.loads(pickle.dumps(notice))
    assert again == notice and again.category is ImportanceSamplingWarning and again.source == notice.source
