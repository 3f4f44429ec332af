"""How results show in a notebook and as DataFrames: short reprs, _repr_html_, to_frame (issue 25, item 1)."""

import numpy as np
import pandas as pd
import pytest

from spe.metrics import ranking_metric_names


@pytest.fixture
def estimate(twenty_labels_of_3000):
    return twenty_labels_of_3000[0]


def test_to_frame_holds_every_whole_ranking_metric_as_its_interval(estimate):
    frame = estimate.to_frame(level=0.8)
    assert list(frame["metric"]) == list(ranking_metric_names())
    for row in frame.itertuples():
        i = estimate.metric(row.metric, level=0.8)
        assert (row.mean, row.median, row.lo, row.hi, row.level) == (i.mean, i.median, i.lo, i.hi, 0.8)


def test_curves_and_the_score_models_are_tidy_frames(estimate):
    pr = estimate.pr_curve(level=0.8)
    frame = pr.to_frame("recall")
    assert list(frame.columns) == ["recall", "median", "lo", "hi", "level"]
    for column, values in [("recall", pr.x), ("median", pr.median), ("lo", pr.lo), ("hi", pr.hi)]:
        np.testing.assert_array_equal(frame[column], values)
    table = estimate.score_model_table()
    models = {m["model"]: m for m in estimate.diagnostics["score_models"]}
    assert set(table["model"]) == set(models) and table["weight"].is_monotonic_decreasing
    assert table["weight"].sum() == pytest.approx(1.0)
    for row in table.itertuples():
        assert row.weight == models[row.model]["weight"] and row.log_evidence == models[row.model]["log_evidence"]


def test_the_repr_is_one_short_line_with_the_counts_and_intervals(estimate):
    text = repr(estimate)
    assert len(text) < 300 and "\n" not in text
    assert f"{estimate.n_items} items" in text and f"{estimate.n_labeled} labeled" in text
    assert str(estimate.prevalence()) in text and str(estimate.average_precision()) in text


def test_the_notebook_view_is_a_table_of_the_metrics(estimate):
    page = estimate._repr_html_()
    for row in estimate.to_frame().itertuples():
        assert f"<th>{row.name}</th>" in page and f"<td>{row.mean:.3f} [{row.lo:.3f}, {row.hi:.3f}]</td>" in page
    assert page.count("<td>") == len(ranking_metric_names())
    assert ("warning" in page) == bool(estimate.warnings)


@pytest.mark.slow
def test_a_comparison_shows_every_classifier(good_and_weak):
    comparison = good_and_weak
    frame = comparison.to_frame()
    assert list(frame["classifier"].unique()) == ["good", "weak"]
    good = comparison["good"].to_frame()
    pd.testing.assert_frame_equal(frame[frame.classifier == "good"].drop(columns="classifier").reset_index(drop=True),
                                  good)
    text = repr(comparison)
    assert len(text) < 400 and "good" in text and "weak" in text
    page = comparison._repr_html_()
    assert "<th>good</th>" in page and "<th>weak</th>" in page
    ap = comparison["weak"].average_precision()
    assert f"{ap.mean:.3f} [{ap.lo:.3f}, {ap.hi:.3f}]" in page
