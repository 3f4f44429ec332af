"""Results saved as JSON and read back (spe.load, Evaluation.save, Comparison.save), and the items as a
DataFrame."""

import json
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

import spe
from spe.cli import main
from spe.plot import plot_pr_curve, plot_roc_curve

from .conftest import EXAMPLES, simulate


def test_an_evaluation_saved_and_loaded_answers_as_before(twenty_labels_of_3000, tmp_path):
    ev, _, _ = twenty_labels_of_3000
    back = spe.load(ev.save(tmp_path / "ev.json"))
    assert isinstance(back, spe.SavedEvaluation) and back.n_items == 3000 and back.n_labeled == 20
    for name in ("prevalence", "average_precision", "roc_auc", "equal_error_rate", "max_f1"):
        assert back.metric(name) == ev.metric(name)
    for curve in ("pr_curve", "roc_curve", "precision_curve", "recall_curve"):
        a, b = getattr(ev, curve)(), getattr(back, curve)()
        for field in ("x", "median", "lo", "hi"):
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    pd.testing.assert_frame_equal(back.to_frame(), ev.to_frame())
    pd.testing.assert_frame_equal(back.score_model_table(), ev.score_model_table())
    assert back.to_dict() == json.loads((tmp_path / "ev.json").read_text())
    assert back.warnings == ev.warnings and back.families == ev.families
    assert repr(back).startswith("<spe.SavedEvaluation from ") and "<table" in back._repr_html_()


def test_a_saved_result_refuses_what_needs_the_draws(twenty_labels_of_3000, tmp_path):
    ev, _, _ = twenty_labels_of_3000
    back = spe.load(ev.save(tmp_path / "ev.json"))
    with pytest.raises(spe.SpeInputError, match="saved at level 0.9"):
        back.pr_curve(level=0.5)
    with pytest.raises(spe.SpeInputError, match="posterior draws"):
        back.metric("precision", threshold=0.5)
    with pytest.raises(spe.SpeInputError, match="population"):
        back.prevalence(performance="population")


def test_the_cli_json_loads_into_python(tmp_path, capsys):
    out = tmp_path / "est.json"
    assert main(["estimate", str(EXAMPLES / "digits_scores.csv"), "--labels", str(EXAMPLES / "digits_labels.csv"),
                 "--families", "truncnorm,truncnorm", "--draws", "200", "--seed", "0", "--json", str(out)]) == 0
    d = json.loads(out.read_text())
    back = spe.load(out)
    assert back.prevalence().mean == d["prevalence"]["mean"] and back.level == d["level"]
    np.testing.assert_array_equal(back.pr_curve().lo, d["pr_curve"]["precision_lo"])
    assert "spe.SavedEvaluation" in back.summary() and "average precision" in back.summary()


def test_a_comparison_saved_and_loaded(good_and_weak, tmp_path):
    cmp = good_and_weak
    back = spe.load(cmp.save(tmp_path / "cmp.json"))
    assert isinstance(back, spe.SavedComparison) and back.names == cmp.names
    pd.testing.assert_frame_equal(back.to_frame(), cmp.to_frame())
    pd.testing.assert_frame_equal(back.differences_frame(), cmp.differences_frame())
    assert back["weak"].average_precision() == cmp["weak"].average_precision()
    assert back.ranking() == json.loads(json.dumps(cmp.ranking()))
    with pytest.raises(spe.SpeInputError, match="no classifier 'nope'"):
        back["nope"]


def test_differences_frame_matches_the_comparisons(good_and_weak):
    cmp = good_and_weak
    frame = cmp.differences_frame(["average_precision"], level=0.8)
    (c,) = cmp.comparisons(["average_precision"], level=0.8)
    assert len(frame) == 1 and frame.loc[0, "p_a_better"] == c["p_a_better"]
    assert frame.loc[0, "lo"] == c["difference"]["lo"] and frame.loc[0, "level"] == 0.8


def test_loaded_and_live_results_overlay_on_one_axes(twenty_labels_of_3000, tmp_path):
    ev, _, _ = twenty_labels_of_3000
    back = spe.load(ev.save(tmp_path / "ev.json"))
    ax = plot_pr_curve(ev, label="live")
    plot_pr_curve(back, ax=ax, label="saved")
    plot_roc_curve(back)
    lines = [line for line in ax.get_lines() if line.get_gid() == "spe-estimate"]
    assert [line.get_label() for line in lines] == ["live", "saved"]
    assert lines[0].get_color() != lines[1].get_color()
    np.testing.assert_array_equal(lines[0].get_ydata(), lines[1].get_ydata())
    plt.close("all")


@pytest.mark.parametrize("text, match", [
    ("{not json", "not JSON: .* line 1, column 2"),
    ('{"n_items": 3}', "no 'n_labeled'"),
    ("[1, 2]", "not a JSON object"),
    ('{"classifiers": {}, "level": 0.9}', "no 'comparisons'"),
])
def test_load_names_the_file_and_what_is_wrong(tmp_path, text, match):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(spe.SpeInputError, match=match) as e:
        spe.load(path)
    assert str(path) in str(e.value)
    with pytest.raises(spe.SpeInputError, match="cannot read it"):
        spe.load(tmp_path / "missing.json")


def test_save_writes_whole_or_not_at_all(twenty_labels_of_3000, tmp_path):
    ev, _, _ = twenty_labels_of_3000
    with pytest.raises(spe.SpeInputError):
        ev.save(tmp_path / "no such dir" / "ev.json")
    assert list(tmp_path.iterdir()) == []


def test_items_frame(twenty_labels_of_3000, good_and_weak):
    ev, s, y = twenty_labels_of_3000
    frame = ev.items_frame()
    assert list(frame.columns) == ["score", "label", "probability"] and len(frame) == 3000
    np.testing.assert_array_equal(frame["score"], s)
    np.testing.assert_array_equal(frame["probability"], ev.item_probabilities())
    assert frame["label"].notna().sum() == 20 and (frame["label"].dropna() == y[:20]).all()
    ids = [f"item{i}" for i in range(3000)]
    assert ev.items_frame(ids).index[5] == "item5"
    with pytest.raises(spe.SpeInputError, match="ids has 2 entries for 3000 items"):
        ev.items_frame(ids[:2])
    both = good_and_weak.items_frame()
    assert list(both.columns) == ["good", "weak", "label", "probability"]
    np.testing.assert_array_equal(both["weak"], good_and_weak["weak"].scores)


def _public(cls):
    """A class's public names: its methods and properties, and a dataclass's fields."""
    fields = getattr(cls, "__dataclass_fields__", {})
    return sorted({n for n in dir(cls) if not n.startswith("_")} | {n for n in fields if not n.startswith("_")})


@pytest.mark.parametrize("original, saved", [(spe.Evaluation, spe.SavedEvaluation),
                                             (spe.Comparison, spe.SavedComparison)])
def test_a_saved_result_has_every_query_of_the_original(original, saved):
    missing = [n for n in _public(original) if not hasattr(saved, n)]
    assert missing == []


#: Arguments for every query of an Evaluation that a saved one refuses (it needs the posterior draws or the items).
REFUSED = {
    "metrics_at": (0.5,), "metric_draws": ("precision", 0.5), "metric_draws_at": (0.5,), "threshold_probability": (0.8, 0.5), "requirement_draws": (0.8, 0.5),
    "requirement_check": (0.8, 0.5), "best_threshold": (0.8, 0.5), "suggest": (5,), "plan_labels": (0.1,), "performance_of": ("sample",),
    "labeled_points": (), "probability_at": ([0.0, 1.0],), "probability_grid": (), "mixture_model": (),
    "class_densities": (), "to_inference_data": (), "item_probabilities": (), "items_frame": (), "items_dict": (),
}


def test_what_a_saved_evaluation_cannot_answer_says_what_it_needs(twenty_labels_of_3000, tmp_path):
    ev, _, _ = twenty_labels_of_3000
    back = spe.load(ev.save(tmp_path / "ev.json"))
    for name, args in REFUSED.items():
        with pytest.raises(spe.NotSavedError) as e:
            getattr(back, name)(*args)
        assert e.value.query == name and str(tmp_path / "ev.json") in str(e.value)
        assert ("pickle" in str(e.value)) != (name.startswith("item")), name  # the items: save(items=True)
    for name in ("weights", "model", "scores", "labeled_index", "labeled_value"):
        with pytest.raises(spe.NotSavedError, match=f"{name} needs"):
            getattr(back, name)
    with pytest.raises(spe.NotSavedError, match=r"save\(path, items=True\)"):
        back.item_probabilities()
    with pytest.raises(spe.NotSavedError, match=r"best_threshold needs the posterior draws.*spe threshold --json"):
        back.best_threshold(min_precision=0.9)
    with pytest.raises(spe.NotSavedError, match=r"threshold_curve\('f1'\) needs the posterior draws"):
        back.threshold_curve("f1")
    with pytest.raises(spe.SpeInputError, match="must be one of"):  # as the original: an unknown metric
        back.threshold_curve("nope")
    with pytest.raises(spe.NotSavedError, match=r"metric\('precision', threshold=0.5\)"):
        back.metric("precision", threshold=0.5)
    assert back.counts is None and ev.counts is None  # not a pool


def test_a_saved_evaluation_answers_as_the_original(twenty_labels_of_3000, tmp_path):
    ev, _, _ = twenty_labels_of_3000
    back = spe.load(ev.save(tmp_path / "ev.json", items=True))
    for name in ("prevalence", "average_precision", "roc_auc", "equal_error_rate"):
        assert getattr(back, name)() == getattr(ev, name)()
    for metric in ("precision", "recall"):
        a, b = ev.threshold_curve(metric), back.threshold_curve(metric, level=ev.level)
        for field in ("x", "median", "lo", "hi"):
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    assert 0 < back.mixture_weight() == ev.mixture_weight() < 1
    np.testing.assert_array_equal(back.item_probabilities(), ev.item_probabilities())
    np.testing.assert_array_equal(back.scores, ev.scores)
    np.testing.assert_array_equal(back.labeled_index, np.sort(ev.labeled_index))
    np.testing.assert_array_equal(back.labeled_value, ev.labeled_value[np.argsort(ev.labeled_index)])
    ids = [f"item{i}" for i in range(3000)]
    pd.testing.assert_frame_equal(back.items_frame(ids), ev.items_frame(ids))
    assert back.items_dict() == json.loads(json.dumps(ev.items_dict()))
    assert back.to_dict() == json.loads(json.dumps(ev.to_dict()))  # without the items unless asked
    assert back.to_dict(items=True)["items"] == back.items_dict()
    again = spe.load(back.save(tmp_path / "again.json", items=True))
    assert again.to_dict(items=True) == back.to_dict(items=True)
    assert back.summary(warnings=False).count("warning:") == 0


def test_the_mixture_weight_of_a_model_without_the_mixture(tmp_path):
    from .conftest import simulate

    s, y = simulate(800, 0.3, seed=7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for score_model in ("platt", "mixture"):
            ev = spe.evaluate(s, {i: int(y[i]) for i in range(30)}, score_model=score_model, draws=200, rng=0)
            assert spe.load(ev.save(tmp_path / "ev.json")).mixture_weight() == ev.mixture_weight()


def test_a_saved_comparison_answers_as_the_original(good_and_weak, tmp_path):
    cmp = good_and_weak
    back = spe.load(cmp.save(tmp_path / "cmp.json", items=True))
    for metric in ("average_precision", "roc_auc", "equal_error_rate", "precision_at_recall"):
        assert back.difference("good", "weak", metric) == cmp.difference("good", "weak", metric)
        assert back.probability_better("good", "weak", metric) == cmp.probability_better("good", "weak", metric)
        assert back.probability_better("weak", "good", metric) == pytest.approx(
            cmp.probability_better("weak", "good", metric), abs=1e-12)
    assert back.ranking() == json.loads(json.dumps(cmp.ranking()))
    assert back.comparisons(["roc_auc"]) == json.loads(json.dumps(cmp.comparisons(["roc_auc"])))
    pd.testing.assert_frame_equal(back.differences_frame(["roc_auc"]), cmp.differences_frame(["roc_auc"]))
    np.testing.assert_array_equal(back.item_probabilities(), cmp.item_probabilities())
    pd.testing.assert_frame_equal(back.items_frame(), cmp.items_frame())
    np.testing.assert_array_equal(back["weak"].item_probabilities(), cmp["weak"].item_probabilities())
    np.testing.assert_array_equal(back["weak"].scores, cmp["weak"].scores)
    assert sorted(back.evaluations) == ["good", "weak"] and back.diagnostics["seed"] == cmp.diagnostics["seed"]
    text = back.summary()
    assert "good − weak" in text and "probability of being the best" in text
    with pytest.raises(spe.NotSavedError, match=r"the JSON holds good − weak .* difference\('good', 'weak'"):
        back.difference("weak", "good")
    with pytest.raises(spe.NotSavedError, match=r"ranking\('roc_auc'\) needs the posterior draws"):
        back.ranking("roc_auc")
    with pytest.raises(spe.NotSavedError, match="precision_at_recall:0.3"):
        back.difference("good", "weak", "precision_at_recall:0.3")
    for name, args in (("metric_draws", ("good",)), ("suggest", (5,)), ("plan_labels", ())):
        with pytest.raises(spe.NotSavedError, match=f"{name} needs the posterior draws.*pickle"):
            getattr(back, name)(*args)
    with pytest.raises(spe.SpeInputError, match="no classifier 'nope'"):
        back.difference("good", "nope")
    plain = spe.load(cmp.save(tmp_path / "plain.json"))
    with pytest.raises(spe.NotSavedError, match=r"item_probabilities needs the items.*items=True"):
        plain.item_probabilities()


def _drop(data, *keys):
    *path, last = keys
    for k in path:
        data = data[k]
    del data[last]


def _set(value):
    def change(data, *keys):
        *path, last = keys
        for k in path:
            data = data[k]
        data[last] = value(data[last])
    return change


@pytest.mark.parametrize("change, keys, field", [
    (_drop, ("pr_curve", "precision_lo"), "pr_curve.precision_lo' is missing"),
    (_drop, ("roc_curve", "tpr_hi"), "roc_curve.tpr_hi' is missing"),
    (_drop, ("threshold_curve", "recall_lo"), "threshold_curve.recall_lo' is missing"),
    (_drop, ("prevalence", "lo"), "prevalence.lo' is missing"),
    (_set(lambda v: v[:-1]), ("pr_curve", "precision_hi"), "pr_curve.precision_hi' has 100 values, not 101"),
    (_set(lambda v: [*v[:3], "x", *v[4:]]), ("roc_curve", "tpr"), r"roc_curve.tpr\[3\]' is not a number"),
    (_set(lambda v: "0.5"), ("average_precision", "mean"), "average_precision.mean' is not a number"),
    (_set(lambda v: 90), ("level",), "'level' is not a credible level"),
    (_set(lambda v: {}), ("pr_curve",), "pr_curve.recall' is missing"),
])
def test_load_checks_every_field_it_reads(twenty_labels_of_3000, tmp_path, change, keys, field):
    ev, _, _ = twenty_labels_of_3000
    data = ev.to_dict()
    assert len(data["pr_curve"]["recall"]) == 101
    _load_refuses(data, change, keys, field, tmp_path)


@pytest.mark.parametrize("change, keys, field", [
    (_drop, ("classifiers", "weak", "pr_curve", "recall"), "classifiers.weak.pr_curve.recall' is missing"),
    (_drop, ("comparisons", 0, "p_a_better"), r"comparisons\[0\].p_a_better' is missing"),
    (_set(lambda v: {"mean": 0.1}), ("comparisons", 1, "difference"), r"comparisons\[1\].difference' is not an"),
    (_set(lambda v: v[:-1]), ("items", "probability"), "items.score.good' has 1500 values, not 1499"),
    (_set(lambda v: [2] + v[1:]), ("items", "label"), "items.label' holds a label other than 0, 1 or null"),
])
def test_load_checks_every_field_of_a_comparison(good_and_weak, tmp_path, change, keys, field):
    _load_refuses(good_and_weak.to_dict(items=True), change, keys, field, tmp_path)


def _load_refuses(data, change, keys, field, tmp_path):
    """``data`` with ``change`` at ``keys``, written and loaded: an error naming ``field`` and the file."""
    change(data, *keys)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(spe.SpeInputError, match=field) as e:
        spe.load(path)
    assert str(path) in str(e.value)


def test_a_pool_saved_with_its_items_gives_its_counts_back(tmp_path):
    from .conftest import simulate

    s, y = simulate(2000, 0.2, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = spe.evaluate(s, {i: int(y[i]) for i in range(30)}, draws=100, rng=0, engine="binned",
                          score_model="mixture", families="truncnorm,truncnorm")
    assert ev.counts is not None
    back = spe.load(ev.save(tmp_path / "pool.json", items=True))
    np.testing.assert_array_equal(back.counts, ev.counts)
    pd.testing.assert_frame_equal(back.items_frame(), ev.items_frame())
    with pytest.raises(spe.NotSavedError, match="counts needs the items"):
        spe.load(ev.save(tmp_path / "plain.json")).counts


def test_the_scores_ids_index_the_items_and_come_back_from_a_save_with_items(tmp_path):
    s, y = simulate(300, 0.3, 8)
    ids = [f"doc-{k}" for k in range(300)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = spe.evaluate(pd.Series(s, index=ids), {"doc-3": int(y[3]), "doc-7": int(y[7]), "doc-250": int(y[250])},
                          families="truncnorm,truncnorm", draws=150, rng=0)
    assert list(ev.ids) == ids and list(ev.items_frame().index) == ids
    saved = spe.load(ev.save(tmp_path / "ev.json", items=True))
    assert list(saved.ids) == ids
    pd.testing.assert_frame_equal(saved.items_frame(), ev.items_frame(), check_index_type=False)
