"""Results saved as JSON and read back (spe.load, Evaluation.save, Comparison.save), and the items as a
DataFrame."""

import json

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

import spe
from spe.cli import main
from spe.plot import plot_pr_curve, plot_roc_curve

from .conftest import EXAMPLES


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
