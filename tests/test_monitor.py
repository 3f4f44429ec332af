"""spe.monitor: chunks and slices of a pool, each estimated beside a labeled reference set, and the alerts."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import spe
from spe.chunks import chunks_by_number, chunks_by_period, chunks_by_size, chunks_by_value, slices_by
from spe.exceptions import SpeInputError


def _pool(n, seed, separation=(5, 2), prevalence=0.3):
    """Probability scores of n items (beta classes) and their labels."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < prevalence).astype(int)
    a, b = separation
    return np.where(y == 1, rng.beta(a, b, n), rng.beta(b, a, n)), y


def _quiet(*args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return spe.monitor(*args, **kw)


def test_row_chunks_cover_every_item_once_in_order():
    sized = chunks_by_size(10, 4)
    assert [(c.start, c.end, c.key) for c in sized] == [(0, 4, "rows 0-3"), (4, 8, "rows 4-7"), (8, 10, "rows 8-9")]
    numbered = chunks_by_number(10, 3)
    assert [c.n_items for c in numbered] == [4, 3, 3]
    assert np.array_equal(np.concatenate([c.index for c in numbered]), np.arange(10))
    with pytest.raises(SpeInputError, match="chunk_number: must be between 1 and the 10 items"):
        chunks_by_number(10, 11)
    with pytest.raises(SpeInputError, match="chunk_size: must be at least 1"):
        chunks_by_size(10, 0)


def test_value_period_and_slice_chunks():
    weeks = chunks_by_value(np.array(["w2", "w1", "w2", "w3", 1.0], dtype=object))
    assert [(c.key, c.index.tolist()) for c in weeks] == [("w2", [0, 2]), ("w1", [1]), ("w3", [3]), ("1", [4])]
    stamps = ["2024-03-05", "2024-01-31", "2024-03-01", "2024-02-10"]
    months = chunks_by_period(stamps, "M")
    assert [(c.key, c.index.tolist()) for c in months] == [("2024-01", [1]), ("2024-02", [3]),
                                                           ("2024-03", [0, 2])]
    assert [c.key for c in chunks_by_period(stamps, "Q")] == ["2024Q1"]
    cut = slices_by({"sex": np.array(["M", "F", "F"]), "region": np.array(["n", "n", "s"])})
    assert [(c.key, c.index.tolist()) for c in cut] == [("sex=F, region=n", [1]), ("sex=F, region=s", [2]),
                                                        ("sex=M, region=n", [0])]
    with pytest.raises(SpeInputError, match="by: item 1 has no value"):
        slices_by({"sex": np.array(["M", None], dtype=object)})
    with pytest.raises(SpeInputError, match="timestamp_column: item 1 has the timestamp 'soon'"):
        chunks_by_period(["2024-01-01", "soon"], "W")
    with pytest.raises(SpeInputError, match="chunk_period: must be one of D, W, M, Q, Y"):
        chunks_by_period(stamps, "H")


def test_one_chunk_is_spe_evaluate_with_the_same_reference_and_labels():
    """With no chunking the one estimate is spe.evaluate's on the whole pool, from the first stream of the seed;
    the reference's values are scikit-learn's on its labels."""
    from sklearn.metrics import average_precision_score, roc_auc_score

    s, y = _pool(1500, 1)
    ref_s, ref_y = _pool(1000, 2)
    labels = {i: int(y[i]) for i in range(0, 1500, 100)}
    m = _quiet(s, reference=(ref_s, ref_y), labels=labels, draws=200, rng=7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = spe.evaluate(s, labels, reference=(ref_s, ref_y), draws=200, rng=np.random.default_rng(7).spawn(1)[0])
    (chunk,) = m.chunks
    assert chunk.key == "all" and chunk.n_labeled == 15 and m.threshold == 0.5
    assert chunk.metrics["average_precision"] == ev.metric("average_precision")
    assert chunk.metrics["f1"] == ev.metric("f1", threshold=0.5)
    assert m.reference["roc_auc"] == pytest.approx(roc_auc_score(ref_y, ref_s))
    assert m.reference["average_precision"] == pytest.approx(average_precision_score(ref_y, ref_s))


def _uncertain(n, seed):
    """n items drawn from a large pool like the reference's, the uncertain ones (scores near 0.5) far more often:
    covariate drift, p(y | s) unchanged, seen in the scores alone; the true AP drops."""
    s, y = _pool(40 * n, seed)
    w = np.exp(-(((s - 0.5) / 0.12) ** 2)) + 0.02
    pick = np.random.default_rng(seed).choice(s.size, n, replace=False, p=w / w.sum())
    return s[pick], y[pick]


@pytest.mark.slow
def test_a_chunk_whose_items_moved_to_the_uncertain_scores_is_alerted_and_the_others_are_not():
    """Two chunks like the reference and one resampled toward the scores where the classifier is unsure (its true
    AP about 0.2 lower, p(y | s) unchanged): only that one is alerted, with P(drop) ≥ 0.9, at 0 labels, and its
    interval holds its true AP; a floor alerts it too."""
    from sklearn.metrics import average_precision_score

    ref_s, ref_y = _pool(3000, 3)
    parts = [_pool(2000, 4), _pool(2000, 5), _uncertain(2000, 6)]
    s = np.concatenate([p[0] for p in parts])
    m = _quiet(s, reference=(ref_s, ref_y), chunk_size=2000, draws=300, rng=0)
    raised = {key for kind, key, metric, p in m.alerts if metric == "average_precision"}
    assert raised == {"rows 4000-5999"}
    worse = m.chunks[2]
    true_ap = average_precision_score(parts[2][1], parts[2][0])
    assert worse.metrics["average_precision"].lo <= true_ap <= worse.metrics["average_precision"].hi
    assert m.reference["average_precision"] - true_ap > 0.1
    floor = _quiet(s, reference=(ref_s, ref_y), chunk_size=2000, alert_below=m.reference["average_precision"] - 0.05,
                   draws=300, rng=0)
    assert {key for _, key, metric, _ in floor.alerts if metric == "average_precision"} == {"rows 4000-5999"}


def test_a_dataframe_with_ids_chunk_and_slice_columns_and_labels_by_id(tmp_path):
    """Labels keyed by id land in their chunk; slices come with their pairwise gaps; the JSON follows the
    contract (every metric mean/median/lo/hi) and the frame has a row per chunk or slice and metric."""
    s, y = _pool(1200, 8)
    ref_s, ref_y = _pool(800, 9)
    df = pd.DataFrame({"id": [f"i{k}" for k in range(1200)], "score": s, "week": np.repeat(["w1", "w2", "w3"], 400),
                       "group": np.tile(["a", "b"], 600)})
    labels = pd.DataFrame({"id": ["i5", "i450", "i451", "i1100"], "label": y[[5, 450, 451, 1100]]})
    m = _quiet(df, reference=pd.DataFrame({"score": ref_s, "label": ref_y}), labels=labels, chunk_column="week",
               by="group", draws=150, rng=2)
    assert [(c.key, c.n_labeled, c.start) for c in m.chunks] == [("w1", 1, None), ("w2", 2, None), ("w3", 1, None)]
    assert [(e.key, e.n_items) for e in m.slices] == [("group=a", 600), ("group=b", 600)]
    out = json.loads(json.dumps(m.to_dict()))
    assert set(out) >= {"n_items", "n_labeled", "level", "reference", "chunks", "slices", "gaps", "diagnostics",
                        "warnings"}
    chunk = out["chunks"][0]
    assert set(chunk["roc_auc"]) == {"mean", "median", "lo", "hi"} and {a["metric"] for a in chunk["alerts"]} == {
        "roc_auc", "average_precision", "precision", "recall", "f1"}
    assert {(g["a"], g["b"]) for g in out["gaps"]} == {("group=a", "group=b")} and len(out["gaps"]) == 6
    assert len(m.to_frame()) == 5 * 6
    assert "w2" in m.summary() and "group=b" in m.summary()
    import matplotlib.pyplot as plt

    ax = m.plot(metric="roc_auc")  # the chunks, their band and the reference's value
    assert [t.get_text() for t in ax.get_xticklabels()] == ["w1\nn=1", "w2\nn=2", "w3\nn=1"]
    assert any(line.get_linestyle() == "--" for line in ax.get_lines())
    plt.close("all")
    with pytest.raises(SpeInputError, match="unknown metric 'accuracy'"):
        m.plot(metric="accuracy")


@pytest.mark.parametrize("kwargs,match", [
    ({"chunk_size": 100, "chunk_number": 3}, "chunk_number: give one way of chunking"),
    ({"chunk_period": "W"}, "chunk_period: a calendar period needs the column of the items. times"),
    ({"chunk_column": "week"}, "scores: the columns 'week' need the scores as a DataFrame"),
    ({"reference": None}, "reference: give a labeled reference set, or labels"),
    ({"chunk_size": 2}, "chunks: chunk 'rows 0-1' has 2 items"),
    ({"alert_drop": None}, "alert_drop: must be a finite number >= 0, got None"),
    ({"alert_drop": -0.1}, "alert_drop: must be a finite number >= 0"),
    ({"alert_below": float("nan")}, "alert_below: must be a finite number, got nan"),
])
def test_bad_monitoring_requests_are_refused_before_any_fit(kwargs, match):
    s, _ = _pool(300, 10)
    ref = _pool(200, 11)
    with pytest.raises(SpeInputError, match=match):
        spe.monitor(s, **{"reference": ref, **kwargs}, draws=100)
    with pytest.raises(SpeInputError, match=r"scores: no column 'region' \(the DataFrame has: score\)"):
        spe.monitor(pd.DataFrame({"score": s}), reference=ref, by="region")


def test_spe_monitor_reads_the_columns_it_is_told_and_writes_the_contract(tmp_path, capsys):
    """``spe monitor`` on CSV files: chunks of a column's values, slices, labels by id, the JSON; a column the file
    lacks and a period without its timestamp column are bad input (exit 2, the file and its header named)."""
    from spe.cli import main

    s, y = _pool(900, 12)
    ref_s, ref_y = _pool(600, 13)
    pd.DataFrame({"id": [f"i{k}" for k in range(900)], "score": s, "batch": np.repeat(["b1", "b2", "b3"], 300),
                  "when": np.repeat(["2024-01-03", "2024-02-10", "2024-02-20"], 300),
                  "region": np.tile(["n", "s", "e"], 300)}).to_csv(tmp_path / "s.csv", index=False)
    pd.DataFrame({"score": ref_s, "label": ref_y}).to_csv(tmp_path / "ref.csv", index=False)
    pd.DataFrame({"id": ["i1", "i350", "i700"], "label": y[[1, 350, 700]]}).to_csv(tmp_path / "lab.csv", index=False)
    out = tmp_path / "m.json"
    base = ["monitor", str(tmp_path / "s.csv"), "--reference", str(tmp_path / "ref.csv"), "--draws", "100",
            "--seed", "1", "--workers", "1"]
    assert main([*base, "--labels", str(tmp_path / "lab.csv"), "--chunk-column", "batch", "--by", "region",
                 "--json", str(out), "--plot", str(tmp_path / "m.png")]) == 0
    assert (tmp_path / "m.png").read_bytes()[:4] == b"\x89PNG"
    text = capsys.readouterr().out
    assert "b2" in text and "region=s" in text and f"wrote {out}" in text
    result = json.loads(out.read_text())
    assert [(c["key"], c["n_labeled"]) for c in result["chunks"]] == [("b1", 1), ("b2", 1), ("b3", 1)]
    assert [e["key"] for e in result["slices"]] == ["region=e", "region=n", "region=s"] and len(result["gaps"]) == 18
    assert set(result["diagnostics"]["pooling"]) == {"b1", "b2", "b3", "region=e", "region=n", "region=s"}
    assert main([*base, "--labels", str(tmp_path / "lab.csv"), "--chunk-column", "batch", "--no-pooling",
                 "--json", str(out)]) == 0
    assert json.loads(out.read_text())["diagnostics"]["pooling"] == {}
    assert main([*base, "--chunk-period", "M", "--timestamp-column", "when", "--json", str(out),
                 "--report", str(tmp_path / "m.html")]) == 0
    assert [c["key"] for c in json.loads(out.read_text())["chunks"]] == ["2024-01", "2024-02"]
    page = (tmp_path / "m.html").read_text(encoding="utf-8")
    assert "<h2>Alerts</h2>" in page and "<td>2024-02</td>" in page and 'src="data:image/png;base64,' in page
    capsys.readouterr()
    assert main([*base, "--by", "sex"]) == 2
    assert "s.csv, row 0: no column 'sex'" in capsys.readouterr().err
    assert main([*base, "--chunk-period", "W"]) == 2
    assert "--chunk-period: a calendar period needs the column of the items' times" in capsys.readouterr().err


def test_the_threshold_the_classifiers_own_decisions_imply_and_parquet_columns(tmp_path):
    """A 'prediction' column sets the default threshold (the lowest score predicted 1) and one that is not a
    threshold on the score is refused; Parquet shards give the same columns as CSV."""
    from spe.io import read_scores_and_columns
    from spe.chunk_pools import decision_bounds as _decision_bounds
    from spe.monitoring import _operating_threshold, _predictions

    s = np.array([0.1, 0.7, 0.4, 0.9])
    decided = _decision_bounds(s, _predictions(pd.DataFrame({"prediction": [0, 1, 0, 1]})))
    assert _operating_threshold(None, decided, 0.5) == 0.7
    assert _operating_threshold(0.3, decided, 0.5) == 0.3
    assert _operating_threshold(None, _decision_bounds(s, np.zeros(4, dtype=int)), 0.5) == 0.5
    with pytest.raises(SpeInputError, match="not a threshold on the score: an item predicted 0 scores 0.9"):
        _operating_threshold(None, _decision_bounds(s, np.array([0, 1, 0, 0])), 0.5)
    df = pd.DataFrame({"score": s, "week": ["a", "a", "b", "b"], "prediction": [0, 1, 0, 1]})
    (tmp_path / "shards").mkdir()
    df.iloc[:2].to_parquet(tmp_path / "shards" / "0.parquet")
    df.iloc[2:].to_parquet(tmp_path / "shards" / "1.parquet")
    df.to_csv(tmp_path / "s.csv", index=False)
    for path in (tmp_path / "shards", tmp_path / "s.csv"):
        scores, columns = read_scores_and_columns(path, ["week"], optional=["prediction", "absent"])
        assert np.array_equal(scores.scores, s) and list(columns) == ["week", "prediction"]
        assert columns["week"].tolist() == ["a", "a", "b", "b"] and columns["prediction"].tolist() == ["0", "1", "0", "1"]
    with pytest.raises(SpeInputError, match="no column 'region'"):
        read_scores_and_columns(tmp_path / "shards", ["region"])


def test_the_chunks_share_one_fit_of_the_reference_map_and_workers_do_not_change_the_result():
    """Every chunk reads the same posterior of the reference's map (fitted once, by the first chunk), and the
    chunks estimated in two worker processes give the very numbers of one process."""
    from spe.inputs import normalize_reference
    from spe.models.shift import ReferenceFits
    from spe.shared_reference import SharedReference

    s, _ = _pool(3000, 11)
    ref = _pool(1500, 12)
    fitted = []
    original = ReferenceFits.fit

    def spy(self, spec, assumption, rng):
        out = original(self, spec, assumption, rng)
        fitted.append((spec.name, id(self._fitted[spec.name])))
        return out

    ReferenceFits.fit = spy
    try:
        one = _quiet(s, reference=ref, chunk_number=3, draws=200, rng=5, workers=1)
    finally:
        ReferenceFits.fit = original
    per_model = {}
    for name, fit_id in fitted:
        per_model.setdefault(name, set()).add(fit_id)
    assert per_model and all(len(ids) == 1 for ids in per_model.values())  # one fit per model, for all 3 chunks
    assert len(fitted) == 3 * 2 * len(per_model)  # each chunk carries each model under both assumptions
    two = _quiet(s, reference=ref, chunk_number=3, draws=200, rng=5, workers=2)
    assert json.dumps(one.to_dict()) == json.dumps(two.to_dict())

    shared = SharedReference(*normalize_reference(ref))
    assert normalize_reference(shared) is shared
    assert shared.kept("x", lambda: [1]) is shared.kept("x", lambda: [2])
    import pickle

    copy = pickle.loads(pickle.dumps(shared))  # a copy in another process keeps nothing
    assert isinstance(copy, SharedReference) and np.array_equal(copy[0], shared[0])
    assert copy.kept("x", lambda: [2]) == [2]


@pytest.mark.slow
def test_pooled_chunks_give_the_same_numbers_with_one_worker_or_two():
    """With labels in two of three chunks, every chunk is estimated with the priors the others give it (a first
    pass over the labeled ones); the result does not depend on the workers; pooling=False gives none."""
    s, y = _pool(1500, 13)
    ref = _pool(1000, 14)
    rng = np.random.default_rng(15)
    labels = {int(i): int(y[i]) for i in np.r_[rng.choice(500, 8, replace=False), 500 + rng.choice(500, 8,
                                                                                                  replace=False)]}
    one = _quiet(s, reference=ref, labels=labels, chunk_number=3, draws=100, rng=5, workers=1)
    two = _quiet(s, reference=ref, labels=labels, chunk_number=3, draws=100, rng=5, workers=2)
    assert json.dumps(one.to_dict()) == json.dumps(two.to_dict())
    pooling = one.diagnostics["pooling"]
    assert set(pooling) == {c.key for c in one.chunks}
    assert all(0 < p["prior_concept_shift"] < 1 and set(p["drift_prior"]) == {"label", "covariate"}
               for p in pooling.values())
    alone = _quiet(s, reference=ref, labels=labels, chunk_number=3, draws=100, rng=5, workers=1, pooling=False)
    assert alone.diagnostics["pooling"] == {}
    assert alone.chunks[0].metrics["average_precision"] != one.chunks[0].metrics["average_precision"]


def test_slices_alone_show_their_gaps_in_the_summary_and_the_figure():
    """Two slices and no chunks: the summary gives the AP and ROC AUC gap with its interval and P(|gap| > δ), the
    figure a third panel with each gap's interval (as in the JSON) and ±δ; without slices there is no gap to plot."""
    import matplotlib.pyplot as plt

    from spe.plot import monitoring_figure, plot_slice_gaps

    s, _ = _pool(1600, 13)
    df = pd.DataFrame({"score": s, "group": np.tile(["a", "b"], 800)})
    m = _quiet(df, reference=_pool(800, 14), by="group", draws=150, rng=3)
    gap = next(g for g in m.gaps if g["metric"] == "average_precision")
    d = gap["difference"]
    assert f"group=a - group=b: AP {d['median']:+.3f} [{d['lo']:+.3f}, {d['hi']:+.3f}]" in m.summary()
    fig = monitoring_figure(m)
    assert len(fig.axes) == 3
    (line,) = [c for c in fig.axes[2].containers]  # the errorbar: one gap, drawn at its median and interval
    x = line.lines[0].get_xdata()
    assert x[0] == pytest.approx(d["median"])
    vertical = [v.get_xdata()[0] for v in fig.axes[2].get_lines() if list(v.get_ydata()) == [0, 1]]
    assert sorted(vertical) == pytest.approx([-0.02, 0, 0.02])
    plt.close("all")
    chunked = _quiet(s, reference=_pool(800, 14), chunk_number=2, draws=150, rng=3)
    with pytest.raises(SpeInputError, match="the gaps need at least two slices"):
        plot_slice_gaps(chunked)


@pytest.mark.slow
def test_a_chunk_whose_labels_disagree_with_the_reference_is_flagged_and_its_interval_widens():
    """Two chunks with the reference's scores; in the second, two thirds of the top-scored third's positives are
    negatives (concept drift: its scores cannot show it). With 30 random labels each, the second chunk's labels
    make a new map probable (flagged in the summary) and its AP interval reaches down to its true AP; the first's
    labels agree with the reference."""
    from sklearn.metrics import average_precision_score

    ref = _pool(3000, 21)
    s = np.concatenate([_pool(2000, 22)[0], _pool(2000, 23)[0]])
    y = np.concatenate([_pool(2000, 22)[1], _pool(2000, 23)[1]])
    rng = np.random.default_rng(24)
    top = np.flatnonzero((np.arange(4000) >= 2000) & (s >= np.quantile(s[2000:], 2 / 3)) & (y == 1))
    y[rng.choice(top, 2 * top.size // 3, replace=False)] = 0
    rows = np.r_[rng.choice(2000, 30, replace=False), 2000 + rng.choice(2000, 30, replace=False)]
    m = _quiet(s, reference=ref, labels={int(i): int(y[i]) for i in rows}, chunk_size=2000, draws=300, rng=4)
    agree, drifted = m.chunks
    assert agree.p_concept_shift < 0.5 <= drifted.p_concept_shift
    assert "LABELS DISAGREE" in m.summary().splitlines()[4] and "LABELS DISAGREE" not in m.summary().splitlines()[3]
    true_ap = average_precision_score(y[2000:], s[2000:])
    assert drifted.metrics["average_precision"].lo <= true_ap < m.reference["average_precision"] - 0.1
    assert json.loads(json.dumps(m.to_dict()))["chunks"][1]["p_concept_shift"] == drifted.p_concept_shift
    assert drifted.labels_disagree and not agree.labels_disagree
    import matplotlib.pyplot as plt

    crosses = [line for line in m.plot().get_lines() if line.get_marker() == "x"]  # the figure marks it
    assert len(crosses) == 1 and list(crosses[0].get_xdata()) == [1]
    plt.close("all")


def test_the_log_names_each_chunk_once_instead_of_its_stages(caplog):
    """``spe monitor -v``: one INFO line per chunk (its name, items, labels and seconds) and the total, not every
    chunk's unnamed stages."""
    import logging

    s, _ = _pool(800, 15)
    with caplog.at_level(logging.INFO, logger="spe"):
        _quiet(s, reference=_pool(400, 16), chunk_number=2, draws=100, rng=1, workers=1)
    lines = [r.getMessage() for r in caplog.records if r.name == "spe"]
    assert [line.split(":")[0] for line in lines] == ["chunk 'rows 0-399' (400 items, 0 labeled)",
                                                     "chunk 'rows 400-799' (400 items, 0 labeled)",
                                                     "estimating 2 chunks and slices"]
    assert logging.getLogger("spe").level == logging.NOTSET  # the stages' level is restored
