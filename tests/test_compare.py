"""`spe.compare` and `spe compare`: several classifiers, one pool, one set of label draws."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score

import spe
from spe.cli import main
from spe.exceptions import SpeInputError
from spe.io import ScoresFile, align_scores
from spe.models.joint import JointLink, joint_log_odds, view_model
from spe.performance.joint import sample_joint_performance


def _pool(n=1500, seed=0, prevalence=0.25):
    """Two classifiers of one pool: a good one and a weak one, independent given the class (Gaussian)."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < prevalence).astype(int)
    good = np.where(y == 1, rng.normal(2.5, 1, n), rng.normal(0, 1, n))
    weak = np.where(y == 1, rng.normal(0.8, 1, n), rng.normal(0, 1, n))
    return y, good, weak


def _compare(scores, labels, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return spe.compare(scores, labels, draws=kw.pop("draws", 200), rng=kw.pop("rng", 1), **kw)


@pytest.mark.slow
def test_every_label_known_gives_each_classifiers_exact_metrics_in_every_draw():
    y, good, weak = _pool(200)  # every item labeled: the recalibrations' exact leave-one-out costs O(n) grids
    cmp = _compare({"good": good, "weak": weak}, (np.arange(y.size), y))
    for name, s in (("good", good), ("weak", weak)):
        m = cmp[name].performance.ranking_metrics
        assert np.allclose(m["average_precision"], average_precision_score(y, s))
        assert np.allclose(m["roc_auc"], roc_auc_score(y, s))
        assert np.allclose(m["prevalence"], y.mean())
    assert cmp.probability_better("good", "weak") == 1.0
    d = cmp.difference("good", "weak", "roc_auc")
    assert d.lo == pytest.approx(roc_auc_score(y, good) - roc_auc_score(y, weak))


@pytest.mark.slow
def test_the_same_classifier_twice_differs_by_nothing_in_every_draw():
    y, good, _ = _pool(800)
    idx = np.arange(0, 800, 40)
    cmp = _compare({"a": good, "b": good.copy()}, (idx, y[idx]))
    for metric in ("average_precision", "roc_auc", "precision_at_recall", "recall_at_precision:0.8"):
        assert np.array_equal(cmp.metric_draws("a", metric), cmp.metric_draws("b", metric))
        assert cmp.probability_better("a", "b", metric) == pytest.approx(0.5)
    assert [r["p_best"] for r in cmp.ranking()] == pytest.approx([0.5, 0.5])


#: What issue 23 leaves open (CHANGELOG): the joint log-odds (a Gaussian mixture over the classifiers' normal
#: scores) ranks items worse than the optimal rule, and the strong classifier's 99% band on AP narrowly misses its
#: truth at 40 labels (0.348-0.897 against 0.912; spe.evaluate alone covers it: 0.321-0.921). These pass when
#: the joint model is fixed (strict: then remove the mark).
JOINT_MODEL_OPEN = pytest.mark.xfail(strict=True, reason="issue 23 open: the joint log-odds is not yet sufficient")


@pytest.fixture(scope="module")
def good_weak_2000():
    """spe.compare of a good and a weak classifier of 2,000 items, 40 random labels, 300 draws: (y, good, weak, cmp).
    One comparison for the two tests that read it (read only)."""
    y, good, weak = _pool(2000, seed=3)
    idx = np.sort(np.random.default_rng(4).choice(y.size, 40, replace=False))
    return y, good, weak, _compare({"good": good, "weak": weak}, (idx, y[idx]), draws=300)


@pytest.mark.slow
@JOINT_MODEL_OPEN
def test_the_better_classifier_is_found_and_each_band_covers_its_truth(good_weak_2000):
    y, good, weak, cmp = good_weak_2000
    for name, s in (("good", good), ("weak", weak)):
        ap = cmp[name].average_precision(level=0.99)
        assert ap.lo <= average_precision_score(y, s) <= ap.hi
    # one set of label draws: every classifier sees the same positives in each draw
    assert np.array_equal(cmp["good"].performance.n_positive, cmp["weak"].performance.n_positive)


@pytest.mark.slow
def test_the_clearly_better_classifier_is_found(good_weak_2000):
    _, _, _, cmp = good_weak_2000
    assert cmp.probability_better("good", "weak") > 0.95
    assert cmp.ranking()[0]["name"] == "good"
    # one set of label draws: every classifier sees the same positives in each draw
    assert np.array_equal(cmp["good"].performance.n_positive, cmp["weak"].performance.n_positive)


@pytest.mark.slow
def test_a_comparison_answers_every_query_of_an_evaluation():
    y, good, weak = _pool(600, seed=5)
    idx = np.arange(0, 600, 30)
    ids = [f"i{k}" for k in range(600)]  # an 'id' column names the items (the labels are keyed by it)
    cmp = _compare(pd.DataFrame({"id": ids, "good": good, "weak": weak}), dict(zip(np.take(ids, idx), y[idx])))
    assert cmp.names == ["good", "weak"] and list(cmp["weak"].ids[:2]) == ["i0", "i1"]
    ev = cmp["weak"]
    p = ev.item_probabilities()
    assert p.shape == (600,) and np.array_equal(p[idx], y[idx])
    assert ((p >= 0) & (p <= 1)).all()
    between = (np.sort(weak)[100] + np.sort(weak)[101]) / 2  # not a kept threshold: the draws are replayed
    m = ev.metrics_at(between)
    assert 0 <= m["precision"].lo <= m["precision"].hi <= 1
    tp = ev.threshold_probability(min_precision=0.5, min_recall=0.5)
    assert np.all((tp.probability >= 0) & (tp.probability <= 1))
    assert ev.prevalence(performance="population").mean == pytest.approx(ev.prevalence().mean, abs=0.05)


def test_the_json_follows_the_contract():
    y, good, weak = _pool(500, seed=6)
    idx = np.arange(0, 500, 25)
    d = _compare({"good": good, "weak": weak}, (idx, y[idx])).to_dict()
    assert {"n_items", "n_labeled", "level", "classifiers", "comparisons", "ranking", "diagnostics",
            "warnings"} <= set(d)
    assert set(d["classifiers"]) == {"good", "weak"}
    assert {"prevalence", "average_precision", "roc_auc", "pr_curve", "roc_curve"} <= set(d["classifiers"]["good"])
    metrics = {c["metric"] for c in d["comparisons"]}
    assert {"average_precision", "roc_auc", "precision_at_recall", "recall_at_precision"} <= metrics
    for c in d["comparisons"]:
        assert {"a", "b", "metric", "difference", "p_a_better"} <= set(c)
        assert {"mean", "lo", "hi"} <= set(c["difference"])
    assert sum(r["p_best"] for r in d["ranking"]) == pytest.approx(1.0)
    # each classifier's own score models are among the candidates, weighed with the joint ones
    assert set(d["diagnostics"]["alone"]) == {"good", "weak"}
    names = [m["model"] for m in d["diagnostics"]["models"]]
    assert any(n.startswith("good: ") for n in names) and any(n.startswith("weak: ") for n in names)
    assert sum(m["weight"] for m in d["diagnostics"]["models"]) == pytest.approx(1.0)
    json.dumps(d)


@pytest.mark.slow
def test_the_same_seed_gives_the_same_comparison():
    y, good, weak = _pool(500, seed=7)
    idx = np.arange(0, 500, 25)
    a = _compare({"good": good, "weak": weak}, (idx, y[idx]), rng=3).to_dict()
    b = _compare({"good": good, "weak": weak}, (idx, y[idx]), rng=3).to_dict()
    assert a == b


@pytest.mark.parametrize("scores, names, message", [
    ({"a": np.arange(10.0), "b": np.arange(11.0)}, None, "different numbers of items"),
    ([np.arange(10.0), np.arange(10.0)], ["x", "x"], "named 'x'"),
    ([np.arange(10.0), np.arange(10.0)], ["x"], "1 names for 2 classifiers"),
    ({}, None, "no classifier"),
    ({"a": np.array([0.1, np.nan, 0.3, 0.4, 0.5])}, None, "scores['a']"),
])
def test_bad_classifier_input_is_named(scores, names, message):
    with pytest.raises(SpeInputError, match=message.replace("[", r"\[").replace("]", r"\]")):
        spe.compare(scores, None, names=names)


def test_a_reference_set_is_refused():
    with pytest.raises(SpeInputError, match="reference"):
        spe.compare({"a": np.arange(10.0), "b": np.arange(10.0)}, None, reference=(np.arange(4.0), [0, 1, 0, 1]))


def test_align_scores_matches_by_id_in_any_order_and_names_a_missing_id():
    a = ScoresFile("a.csv", np.array([1.0, 2.0, 3.0]), np.array(["x", "y", "z"]))
    b = ScoresFile("b.csv", np.array([30.0, 10.0, 20.0]), np.array(["z", "x", "y"]))
    assert np.array_equal(align_scores([a, b]), [[1, 10], [2, 20], [3, 30]])
    c = ScoresFile("c.csv", np.array([1.0, 2.0, 3.0]), np.array(["x", "y", "w"]))
    with pytest.raises(SpeInputError, match="'z'") as e:
        align_scores([a, c])
    assert e.value.path == "c.csv"
    with pytest.raises(SpeInputError, match="'id' column"):
        align_scores([a, ScoresFile("d.csv", np.zeros(3), None)])
    with pytest.raises(SpeInputError, match="2 items"):
        align_scores([ScoresFile("e.csv", np.zeros(3), None), ScoresFile("f.csv", np.zeros(2), None)])


@JOINT_MODEL_OPEN
def test_joint_log_odds_orders_the_items_as_the_optimal_rule_does():
    y, good, weak = _pool(4000, seed=8)
    z = joint_log_odds(np.column_stack([good, weak]))
    optimal = 2.5 * good + 0.8 * weak  # the log-likelihood ratio up to a constant
    assert roc_auc_score(y, z) > roc_auc_score(y, optimal) - 0.02
    assert np.array_equal(z, joint_log_odds(np.column_stack([good, weak])))


def test_the_joint_link_prior_is_scipys_normalised_densities_and_its_probability_is_the_logistic():
    from scipy import special, stats

    from spe.models.joint import CLASSIFIER_SLOPE_SD

    link = JointLink(2)
    u = np.random.default_rng(0).normal(size=(50, 4))
    expected = (stats.norm.logpdf(u[:, 0]) + stats.t(3, 0, 0.5).logpdf(u[:, 1])
                + stats.norm(0, CLASSIFIER_SLOPE_SD).logpdf(u[:, 2:]).sum(axis=1))
    assert np.allclose(link.log_prior(u), expected)
    u = np.array([[0.3, np.log(2.0), -0.5, 0.25]])
    f = np.array([[1.0, 2.0, 1.0], [-1.0, 0.0, -4.0]])
    assert np.allclose(link.probability(u, f), special.expit(0.3 + 2.0 * f[:, 0] - 0.5 * f[:, 1] + 0.25 * f[:, 2]))


def test_a_view_model_is_exact_at_the_pool_values():
    from spe.models.base import FittedScoreModel

    base = FittedScoreModel("toy", np.array([[1.0], [2.0]]), np.array([0.5, 0.5]),
                            probability=lambda d, s: 1 / (1 + np.exp(-d * s[None, :])))
    values = np.array([-1.0, 0.0, 0.5, 2.0])
    wrapped = view_model(base, 1, values, "v")
    features = np.column_stack([np.zeros(4), values])
    assert np.allclose(wrapped.probability(base.draws, features), base.probability(base.draws, values))


@pytest.mark.slow
def test_joint_label_draws_do_not_depend_on_the_workers():
    y, good, weak = _pool(300, seed=9)
    cmp = _compare({"good": good, "weak": weak}, (np.arange(0, 300, 15), y[::15]))
    features = cmp["good"].performance.replay.draws.features
    runs = [sample_joint_performance(cmp.model, features, [good, weak], np.arange(0, 300, 15), y[::15], rng=5,
                                     workers=w) for w in (1, 2)]
    for a, b in zip(*runs):
        assert np.array_equal(a.ranking_metrics["average_precision"], b.ranking_metrics["average_precision"])


@pytest.mark.slow
def test_the_classifiers_fitted_in_parallel_processes_give_the_same_comparison():
    """With workers, the view's fit and each classifier's own run in parallel processes (each on its own stream):
    the same draws, weights and warnings as fitting them one after the other in this process."""
    y, good, weak = _pool(400, seed=11)
    labels = (np.arange(0, 400, 20), y[::20])
    runs = []
    for w in (1, 2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            cmp = spe.compare({"good": good, "weak": weak}, labels, draws=200, rng=3, workers=w)
        runs.append((cmp, sorted(str(c.message) for c in caught)))
    (one, said_one), (two, said_two) = runs
    assert np.array_equal(one.model.draws, two.model.draws) and np.array_equal(one.model.weights, two.model.weights)
    assert one.diagnostics["models"] == two.diagnostics["models"]
    assert said_one == said_two and said_one
    assert one.probability_better("good", "weak") == two.probability_better("good", "weak")


@pytest.mark.slow
def test_cli_compare_writes_the_json_and_the_figure(tmp_path, capsys):
    y, good, weak = _pool(600, seed=10)
    pd.DataFrame({"id": [f"i{k}" for k in range(600)], "score": good}).to_csv(tmp_path / "good.csv", index=False)
    # the second file in another order: matched by id
    order = np.random.default_rng(0).permutation(600)
    pd.DataFrame({"id": [f"i{k}" for k in order], "score": weak[order]}).to_csv(tmp_path / "weak.csv", index=False)
    pd.DataFrame({"id": [f"i{k}" for k in range(0, 600, 20)], "label": y[::20]}).to_csv(tmp_path / "lab.csv",
                                                                                      index=False)
    out, fig, items = tmp_path / "c.json", tmp_path / "c.png", tmp_path / "items.csv"
    code = main(["compare", str(tmp_path / "good.csv"), str(tmp_path / "weak.csv"), "--labels",
                 str(tmp_path / "lab.csv"), "--draws", "200", "--seed", "0", "--workers", "1", "--json", str(out),
                 "--plot", str(fig), "--items", str(items)])
    assert code == 0
    per_item = pd.read_csv(items)
    assert list(per_item.columns) == ["id", "good", "weak", "probability"]
    assert list(per_item["id"]) == [f"i{k}" for k in range(600)]  # the first file's order, the others matched
    assert np.array_equal(per_item["good"], good) and np.array_equal(per_item["weak"], weak)
    assert np.array_equal(per_item["probability"].to_numpy()[::20], y[::20])
    assert per_item["probability"].between(0, 1).all()
    d = json.loads(out.read_text())
    assert list(d["classifiers"]) == ["good", "weak"]
    assert d["n_items"] == 600 and d["n_labeled"] == 30
    assert fig.stat().st_size > 10_000
    text = capsys.readouterr().out
    assert "good − weak" in text and "P = " in text


@pytest.mark.slow
def test_cli_compare_score_columns_and_a_mismatch(tmp_path, capsys):
    y, good, weak = _pool(300, seed=11)
    pd.DataFrame({"old": good, "new": weak}).to_csv(tmp_path / "both.csv", index=False)
    assert main(["compare", str(tmp_path / "both.csv"), "--score-columns", "old,new", "--draws", "100",
                 "--seed", "1", "--workers", "1"]) == 0
    assert "old − new" in capsys.readouterr().out
    pd.DataFrame({"score": good[:299]}).to_csv(tmp_path / "short.csv", index=False)
    pd.DataFrame({"score": good}).to_csv(tmp_path / "full.csv", index=False)
    out = tmp_path / "never.json"
    assert main(["compare", str(tmp_path / "full.csv"), str(tmp_path / "short.csv"), "--json", str(out)]) == 2
    assert "short.csv" in capsys.readouterr().err and not out.exists()
    pd.DataFrame({"score": weak}).to_csv(tmp_path / "other.csv", index=False)
    assert main(["compare", str(tmp_path / "full.csv"), str(tmp_path / "other.csv"), "--names", "a"]) == 2
    assert main(["compare", str(tmp_path / "full.csv"), str(tmp_path / "other.csv"), "--names", "id,b", "--items",
                 str(tmp_path / "items.csv")]) == 2
    assert "--names" in capsys.readouterr().err and not (tmp_path / "items.csv").exists()
