"""spe.monitor's Dask engine: every chunk's and slice's pool counted shard by shard (spe.chunk_pools)."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import spe
from spe import chunk_pools
from spe.chunk_pools import Keying, count_units
from spe.chunks import chunk_starts, chunks_by_period, chunks_by_size, chunks_by_value, slices_by
from spe.cli import main
from spe.exceptions import SpeInputError
from spe.pool import CellLayout, CellSummary, ScoreStats, SparseCells, pool_from_scores

dd = pytest.importorskip("dask.dataframe")


@pytest.fixture(scope="module")
def pool_frame():
    """6,000 items: probability scores, ids, a week, a month's day, a sex, the classifier's decisions; labels."""
    rng = np.random.default_rng(3)
    n = 6000
    y = (rng.random(n) < 0.3).astype(int)
    s = np.where(y == 1, rng.beta(5, 2, n), rng.beta(2, 5, n))
    days = pd.Timestamp("2024-01-01") + pd.to_timedelta(np.sort(rng.integers(0, 90, n)), unit="D")
    frame = pd.DataFrame({"id": [f"i{k}" for k in range(n)], "score": s, "week": np.repeat([3, 1, 2], n // 3),
                          "time": days.strftime("%Y-%m-%d"), "sex": rng.choice(["F", "M"], n),
                          "prediction": (s >= 0.5).astype(int)})
    labeled = np.sort(rng.choice(n, 60, replace=False))
    return frame, y, labeled


@pytest.fixture(scope="module")
def shards(pool_frame, tmp_path_factory):
    """The pool as 4 Parquet shards of unequal sizes."""
    frame = pool_frame[0]
    out = tmp_path_factory.mktemp("shards")
    for k, (a, b) in enumerate([(0, 1000), (1000, 2500), (2500, 5800), (5800, 6000)]):
        frame.iloc[a:b].to_parquet(out / f"part-{k}.parquet", index=False)
    return out


def _reference(seed=4, n=2000):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(int)
    return np.where(y == 1, rng.beta(5, 2, n), rng.beta(2, 5, n)), y


def _labels_by_id(frame, y, labeled):
    return {frame.id[k]: int(y[k]) for k in labeled}


def test_sparse_cells_are_the_cell_summary_of_any_split_of_the_scores():
    s = np.random.default_rng(0).beta(2, 5, 5000)
    layout = CellLayout.of(ScoreStats.of(s), 512)
    whole = CellSummary.of(s, layout)
    parts = [SparseCells.of(p, layout) for p in np.array_split(s, [700, 701, 3000])]
    for combined in (parts[0].combine(parts[1]).combine(parts[2].combine(parts[3])),
                     parts[3].combine(parts[0]).combine(parts[2]).combine(parts[1])):
        dense = combined.dense()
        assert np.array_equal(dense.count, whole.count)
        assert np.array_equal(dense.lo, whole.lo) and np.array_equal(dense.hi, whole.hi)
    assert SparseCells.of(s[:0], layout).dense().count.sum() == 0


@pytest.mark.parametrize("n", [1, 7, 100, 1001])
def test_chunk_starts_are_array_splits(n):
    for number in {1, min(3, n), n}:
        sizes = [part.size for part in np.array_split(np.arange(n), number)]
        assert chunk_starts(n, number=number) == list(np.cumsum([0, *sizes[:-1]]))
    assert chunk_starts(n, size=3) == list(range(0, n, 3))


def _same_pool(a, b):
    assert np.array_equal(a.values, b.values) and np.array_equal(a.counts, b.counts)
    assert np.array_equal(a.labeled_index, b.labeled_index) and np.array_equal(a.labeled_value, b.labeled_value)


@pytest.mark.parametrize("keying,in_memory", [
    (Keying(starts=tuple(chunk_starts(6000, size=1700))), lambda f: chunks_by_size(6000, 1700)),
    (Keying(column="week"), lambda f: chunks_by_value(f.week.to_numpy())),
    (Keying(period="M", timestamp="time"), lambda f: chunks_by_period(f.time.to_numpy(), "M")),
    (Keying(by=("sex", "week")), lambda f: slices_by({"sex": f.sex.to_numpy(), "week": f.week.to_numpy()})),
])
def test_each_chunks_pool_is_the_binned_pool_of_its_items_alone(pool_frame, shards, keying, in_memory):
    frame, y, labeled = pool_frame
    counted = count_units(shards, _labels_by_id(frame, y, labeled), keying, workers=2, cells=4096)
    units = counted.chunks or counted.slices
    expected = in_memory(frame)
    assert [u.key for u in units] == [c.key for c in expected]
    assert [(u.start, u.end) for u in units] == [(c.start, c.end) for c in expected]
    s = frame.score.to_numpy()
    for u, c in zip(units, expected):
        mine = np.isin(labeled, c.index)
        _same_pool(u.pool, pool_from_scores(s[c.index], np.searchsorted(c.index, labeled[mine]), y[labeled[mine]],
                                            cells=4096))
    assert counted.n_items == 6000 and counted.n_labeled == 60
    assert (counted.lo, counted.hi) == (s.min(), s.max())
    assert counted.decisions == (s[s >= 0.5].min(), s[s < 0.5].max())


def test_the_second_pass_in_many_batches_counts_the_same(pool_frame, shards, monkeypatch):
    frame, y, labeled = pool_frame
    keying = Keying(starts=tuple(chunk_starts(6000, number=5)), by=("sex",))
    one = count_units(shards, _labels_by_id(frame, y, labeled), keying, cells=1024)
    monkeypatch.setattr(chunk_pools, "CELL_BUDGET", 1500)
    many = count_units(shards, _labels_by_id(frame, y, labeled), keying, cells=1024)
    for a, b in zip(one.chunks + one.slices, many.chunks + many.slices):
        _same_pool(a.pool, b.pool)


def _quiet_monitor(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return spe.monitor(*args, **kwargs)


def test_one_chunk_by_dask_is_spe_evaluate_with_the_dask_engine(pool_frame, shards):
    from spe.dask_engine import LabelKeys, ScoreSource

    frame, y, labeled = pool_frame
    labels = _labels_by_id(frame, y, labeled)
    ref = _reference()
    m = _quiet_monitor(str(shards), reference=ref, labels=labels, draws=200, rng=5, engine="dask")
    stream = np.random.default_rng(5).spawn(2)[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = spe.evaluate(ScoreSource.from_parquet(shards), LabelKeys.of(labels, True), reference=ref, draws=200,
                          rng=stream, engine="dask")
    (chunk,) = m.chunks
    assert (chunk.key, chunk.n_items, chunk.n_labeled) == ("all", 6000, 60)
    assert chunk.metrics["average_precision"].mean == ev.metric("average_precision").mean
    assert chunk.metrics["prevalence"].to_dict() == ev.prevalence().to_dict()


def test_a_dask_dataframe_is_monitored_as_the_same_pandas_frame_in_memory(pool_frame):
    frame, y, labeled = pool_frame
    ref = _reference()
    labels = _labels_by_id(frame, y, labeled)
    kw = dict(reference=ref, labels=labels, chunk_column="week", by="sex", draws=200, rng=2, pooling=False)
    lazy = _quiet_monitor(dd.from_pandas(frame, npartitions=3), **kw)
    eager = _quiet_monitor(frame, **kw)
    assert lazy.threshold == eager.threshold == frame.score[frame.prediction == 1].min()
    assert (lazy.diagnostics["engine"], eager.diagnostics["engine"]) == ("dask", "memory")
    assert lazy.diagnostics["pool"]["cells"] == 2 ** 18 and 0 <= lazy.diagnostics["pool"]["max_error"] < 1e-3
    for a, b in zip(lazy.chunks + lazy.slices, eager.chunks + eager.slices):
        assert (a.key, a.n_items, a.n_labeled) == (b.key, b.n_items, b.n_labeled)
        for name in ("average_precision", "roc_auc", "prevalence"):
            assert abs(a.metrics[name].mean - b.metrics[name].mean) < 0.01  # binned (2^18 cells) vs exact
    assert [(g["a"], g["b"]) for g in lazy.gaps] == [(g["a"], g["b"]) for g in eager.gaps]


def test_spe_monitor_engine_dask_writes_the_same_contract(pool_frame, shards, tmp_path):
    frame, y, labeled = pool_frame
    ref = _reference()
    pd.DataFrame({"score": ref[0], "label": ref[1]}).to_csv(tmp_path / "ref.csv", index=False)
    pd.DataFrame({"id": frame.id[labeled], "label": y[labeled]}).to_csv(tmp_path / "labels.csv", index=False)
    common = [str(shards), "--reference", str(tmp_path / "ref.csv"), "--labels", str(tmp_path / "labels.csv"),
              "--chunk-period", "M", "--timestamp-column", "time", "--draws", "200", "--seed", "1", "-q",
              "--no-pooling"]
    assert main(["monitor", *common, "--engine", "dask", "--json", str(tmp_path / "d.json")]) == 0
    assert main(["monitor", *common, "--engine", "memory", "--json", str(tmp_path / "m.json")]) == 0
    d, m = (json.loads((tmp_path / f).read_text()) for f in ("d.json", "m.json"))
    assert d.keys() == m.keys()
    assert [(c["key"], c["n_items"], c["n_labeled"]) for c in d["chunks"]] == [
        (c["key"], c["n_items"], c["n_labeled"]) for c in m["chunks"]]
    assert [c["key"] for c in d["chunks"]] == ["2024-01", "2024-02", "2024-03"]
    assert d["threshold"] == m["threshold"]
    for a, b in zip(d["chunks"], m["chunks"]):
        assert abs(a["average_precision"]["mean"] - b["average_precision"]["mean"]) < 0.01


def test_bad_shards_are_named_by_file_and_row(pool_frame, tmp_path):
    frame = pool_frame[0].iloc[:100].copy()
    frame.to_parquet(tmp_path / "a.parquet", index=False)
    bad = frame.copy()
    bad.loc[bad.index[7], "time"] = "soon"
    bad.to_parquet(tmp_path / "b.parquet", index=False)
    ref = _reference()
    with pytest.raises(SpeInputError, match=r"b\.parquet \(its items counted from 0\): item 7 has the timestamp"):
        _quiet_monitor(str(tmp_path), reference=ref, chunk_period="W", timestamp_column="time", draws=100)
    with pytest.raises(SpeInputError, match="no column 'region'"):
        _quiet_monitor(str(tmp_path), reference=ref, by="region", draws=100)
    with pytest.raises(SpeInputError, match="the labeled id 'nobody'"):
        _quiet_monitor(str(tmp_path), reference=ref, labels={"nobody": 1}, chunk_column="week", draws=100)
    undecided = frame.assign(prediction=np.where(np.arange(100) == 5, 7, frame.prediction))
    undecided.to_parquet(tmp_path / "b.parquet", index=False)
    with pytest.raises(SpeInputError, match=r"b\.parquet: the 'prediction' column"):
        _quiet_monitor(str(tmp_path), reference=ref, chunk_column="week", draws=100)


def test_the_dask_engine_is_asked_for_with_parquet_and_refused_elsewhere(tmp_path, capsys):
    frame = pd.DataFrame({"score": np.linspace(0.01, 0.99, 50)})
    frame.to_csv(tmp_path / "s.csv", index=False)
    pd.DataFrame({"score": [0.2, 0.8, 0.3, 0.9], "label": [0, 1, 0, 1]}).to_csv(tmp_path / "r.csv", index=False)
    assert main(["monitor", str(tmp_path / "s.csv"), "--reference", str(tmp_path / "r.csv"), "--engine", "dask"]) == 2
    assert "--engine dask reads Parquet" in capsys.readouterr().err
    assert main(["monitor", str(tmp_path / "s.csv"), "--reference", str(tmp_path / "r.csv"),
                 "--scheduler", "tcp://x:1"]) == 2
    assert "--scheduler is for --engine dask" in capsys.readouterr().err
    with pytest.raises(SpeInputError, match="engine: Parquet shards and Dask DataFrames are read by engine='dask'"):
        spe.monitor(dd.from_pandas(frame, npartitions=2), reference=(frame.score[:4], [0, 1, 0, 1]),
                    engine="memory")
