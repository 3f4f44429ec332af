"""The engines: the Dask engine and the in-memory binned path give the same estimate; bad input is named."""

import warnings

import numpy as np
import pandas as pd
import pytest

import spe
from spe.cli import main
from spe.exceptions import SpeInputError
from spe.output import json_bytes

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")


@pytest.fixture(scope="module")
def simulated():
    rng = np.random.default_rng(0)
    n = 10_000
    y = rng.random(n) < 0.2
    s = np.where(y, rng.normal(2, 1, n), rng.normal(0, 1, n))
    labeled = rng.choice(n, 60, replace=False)
    return s, y, {int(i): int(y[i]) for i in labeled}


def _quiet_evaluate(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return spe.evaluate(*args, draws=200, rng=3, workers=1, families="truncnorm,truncnorm", **kwargs)


@pytest.fixture(scope="module")
def binned(simulated):
    """The in-memory binned estimate of the simulated scores, which the Dask paths must reproduce, and its JSON
    (taken at once): (Evaluation, bytes). One fit for the tests that compare with it (read only)."""
    s, _, labels = simulated
    ev = _quiet_evaluate(s, labels, engine="binned")
    return ev, json_bytes(ev.to_dict())


def test_dask_and_binned_engines_give_the_same_json(simulated, binned):
    s, _, labels = simulated
    lazy = _quiet_evaluate(da.from_array(s, chunks=2917), labels)  # uneven chunks; "auto" picks Dask
    assert lazy.diagnostics["pool"] == binned[0].diagnostics["pool"]
    assert json_bytes(lazy.to_dict()) == binned[1]


def test_a_dask_series_is_read_by_position(simulated, binned):
    s, _, labels = simulated
    series = dd.from_pandas(pd.Series(s), npartitions=3)
    assert json_bytes(_quiet_evaluate(series, labels).to_dict()) == binned[1]


def test_the_binned_estimate_is_the_exact_one_within_its_error(simulated, binned):
    s, y, labels = simulated
    exact = _quiet_evaluate(s, labels, engine="memory")
    binned, _ = binned
    assert binned.n_items == exact.n_items == s.size
    assert binned.diagnostics["pool"]["max_error"] < 1e-3
    for name in ("prevalence", "average_precision", "roc_auc"):
        a, b = exact.metric(name), binned.metric(name)
        assert abs(a.mean - b.mean) < 0.02 * (a.hi - a.lo) + 0.002
    # p̂ at every item's own score agrees with the exact path's item probabilities
    p_exact = exact.item_probabilities()
    p_binned = binned.probability_at(s)
    unlabeled = np.setdiff1d(np.arange(s.size), list(labels))
    assert np.max(np.abs(p_exact[unlabeled] - p_binned[unlabeled])) < 0.02


def test_a_pooled_evaluation_answers_per_value_and_refuses_to_name_items(simulated, binned):
    s, _, labels = simulated
    ev, _ = binned
    frame = ev.items_frame()
    assert frame["count"].sum() == s.size and len(frame) == ev.diagnostics["pool"]["values"]
    assert frame["label"].notna().sum() == len(labels)
    with pytest.raises(SpeInputError, match="needs every item's own score"):
        ev.suggest(3)


def test_a_non_finite_score_is_named_by_block_and_item():
    s = np.linspace(0, 1, 1000)
    s[523] = np.nan
    with pytest.raises(SpeInputError, match=r"row 24 of block 1 \(item 523\)"):
        _quiet_evaluate(da.from_array(s, chunks=500), {0: 1})


def test_a_dask_dataframe_with_ids_is_read_by_id(simulated, binned):
    s, _, labels = simulated
    ids = np.array([f"item{i}" for i in range(s.size)])
    frame = dd.from_pandas(pd.DataFrame({"id": ids, "score": s, "other": 1.0}), npartitions=4)
    by_id = _quiet_evaluate(frame, {f"item{i}": v for i, v in labels.items()})
    assert json_bytes(by_id.to_dict()) == binned[1]
    with pytest.raises(SpeInputError, match="labeled id 'item99999' .labels. is not among the scores"):
        _quiet_evaluate(frame, {"item99999": 1})


def test_a_dask_dataframe_without_a_score_column_is_named():
    frame = dd.from_pandas(pd.DataFrame({"s": np.linspace(0, 1, 100), "x": 1.0}), npartitions=2)
    with pytest.raises(SpeInputError, match="no column 'score' .columns: s, x."):
        _quiet_evaluate(frame, {0: 1})


def test_a_label_beyond_the_items_is_named():
    with pytest.raises(SpeInputError, match="labeled position 5000 .labels. is not among the 1,000 items"):
        _quiet_evaluate(da.from_array(np.linspace(0, 1, 1000), chunks=300), {5000: 1})


def test_memory_engine_refuses_a_dask_collection():
    with pytest.raises(SpeInputError, match="engine='dask'"):
        _quiet_evaluate(da.from_array(np.linspace(0, 1, 100), chunks=30), {0: 1}, engine="memory")


def test_a_scheduler_address_runs_on_that_cluster(simulated, binned):
    distributed = pytest.importorskip("distributed")
    s, _, labels = simulated
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as c:
        remote = _quiet_evaluate(da.from_array(s, chunks=3_000), labels, scheduler=c.scheduler_address)
    assert json_bytes(remote.to_dict()) == binned[1]


@pytest.mark.parametrize("kind", ["series", "frame"])
def test_with_a_scheduler_address_every_pass_runs_there(simulated, binned, kind):
    """The partition lengths of a Series or DataFrame too: with Dask's default scheduler refusing any work, the
    estimate on the cluster is still the binned one."""
    import dask

    distributed = pytest.importorskip("distributed")
    s, _, labels = simulated
    scores = pd.Series(s) if kind == "series" else pd.DataFrame({"score": s})
    lazy = dd.from_pandas(scores, npartitions=3)

    def refuse(*args, **kwargs):
        raise AssertionError("a computation ran on Dask's default scheduler, not the cluster")

    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as c:
        with dask.config.set(scheduler=refuse):
            remote = _quiet_evaluate(lazy, labels, scheduler=c.scheduler_address)
    assert json_bytes(remote.to_dict()) == binned[1]


def test_no_scheduler_answering_is_an_input_error(monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setattr("spe.dask_engine.SCHEDULER_TIMEOUT", 1)
    with pytest.raises(SpeInputError, match="no Dask scheduler answers"):
        _quiet_evaluate(da.from_array(np.linspace(0, 1, 100), chunks=30), {0: 1},
                        scheduler="tcp://127.0.0.1:9")


# ---- the command line ------------------------------------------------------------------------------------


@pytest.fixture()
def shards(tmp_path, simulated):
    s, y, labels = simulated
    ids = np.array([f"item{i}" for i in range(s.size)])
    (tmp_path / "shards").mkdir()
    for k, part in enumerate(np.array_split(np.arange(s.size), 3)):
        pd.DataFrame({"id": ids[part], "score": s[part]}).to_parquet(tmp_path / "shards" / f"part{k}.parquet")
    pd.DataFrame({"id": ids, "score": s}).to_csv(tmp_path / "scores.csv", index=False)
    pd.DataFrame({"id": ids[list(labels)], "label": list(labels.values())}).to_csv(tmp_path / "labels.csv",
                                                                                   index=False)
    return tmp_path


def _cli(*args):
    return main([*map(str, args), "--draws", "200", "--seed", "1", "--workers", "1", "--families",
                 "truncnorm,truncnorm"])


@pytest.mark.slow
def test_cli_dask_on_shards_writes_the_json_of_the_binned_csv(shards, capsys):
    d = shards
    assert _cli("estimate", d / "shards", "--labels", d / "labels.csv", "--engine", "dask", "--json",
                d / "dask.json", "--items", d / "items") == 0
    assert _cli("estimate", d / "scores.csv", "--labels", d / "labels.csv", "--engine", "binned", "--json",
                d / "binned.json", "--items", d / "binned.csv") == 0
    assert (d / "dask.json").read_bytes() == (d / "binned.json").read_bytes()
    items = pd.read_parquet(d / "items")
    csv = pd.read_csv(d / "binned.csv")
    assert sorted(p.name for p in (d / "items").iterdir()) == [f"part-0000{k}.parquet" for k in range(3)]
    assert list(items["id"]) == list(csv["id"])
    np.testing.assert_allclose(items["probability"], csv["probability"], rtol=1e-5, atol=1e-6)
    labels = pd.read_csv(d / "labels.csv")
    assert list(items.set_index("id").loc[labels["id"], "probability"]) == list(labels["label"].astype(float))


def test_cli_dask_with_a_reference_set_writes_the_json_of_the_binned_csv(shards, simulated, capsys):
    """A reference set (the same classifier's scores with every label) with a pooled engine: its model reads the
    pool's counts, so shards and CSV give the same JSON."""
    d = shards
    rng = np.random.default_rng(4)
    y = rng.random(2000) < 0.3
    pd.DataFrame({"score": np.where(y, rng.normal(2, 1, 2000), rng.normal(0, 1, 2000)),
                  "label": y.astype(int)}).to_csv(d / "ref.csv", index=False)
    ref = ["--reference", d / "ref.csv", "--score-model", "reference"]
    assert _cli("estimate", d / "shards", "--labels", d / "labels.csv", "--engine", "dask", "--json",
                d / "dask.json", *ref) == 0
    assert _cli("estimate", d / "scores.csv", "--labels", d / "labels.csv", "--engine", "binned", "--json",
                d / "binned.json", *ref) == 0
    assert (d / "dask.json").read_bytes() == (d / "binned.json").read_bytes()
    assert '"reference"' in (d / "dask.json").read_text()


def test_cli_dask_refuses_what_needs_every_score_in_memory(shards, capsys):
    d = shards
    assert _cli("estimate", d / "shards", "--engine", "dask", "--report", d / "r.html") == 2
    assert "--report needs every item's own score" in capsys.readouterr().err
    assert _cli("estimate", d / "shards", "--engine", "dask", "--items", d / "nowhere" / "items") == 2
    assert "no directory" in capsys.readouterr().err
    (d / "items").mkdir()
    assert _cli("estimate", d / "shards", "--engine", "dask", "--items", d / "items") == 2
    assert "exists" in capsys.readouterr().err
    assert _cli("estimate", "-", "--engine", "dask") == 2
    assert "the Dask engine reads a file (CSV or Parquet), not standard input" in capsys.readouterr().err
    assert _cli("estimate", d / "scores.csv", "--scheduler", "tcp://127.0.0.1:9") == 2
    assert "--scheduler is for --engine dask" in capsys.readouterr().err


def test_cli_dask_leaves_nothing_when_the_items_cannot_be_written(shards, capsys, monkeypatch):
    d = shards

    def fail(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr("spe.dask_engine._write_chunk", fail)
    assert _cli("estimate", d / "shards", "--engine", "dask", "--json", d / "o.json", "--items", d / "items") == 1
    assert not (d / "o.json").exists() and not (d / "items").exists()
    assert not [p for p in d.iterdir() if p.name.startswith(".spe-items-")]


def test_labels_the_dask_engine_cannot_place_are_named(simulated):
    s, _, _ = simulated
    with pytest.raises(SpeInputError, match="0-based position"):
        _quiet_evaluate(da.from_array(s, chunks=3000), {1.7: 1, 2.2: 0})
    with pytest.raises(SpeInputError, match="compute_chunk_sizes"):
        x = da.from_array(s, chunks=3000)
        _quiet_evaluate(x[x > 0], {0: 1})
    frame = dd.from_pandas(pd.DataFrame({"id": ["a", "a", "b", "c"] * 10, "score": np.linspace(0, 1, 40)}),
                           npartitions=1)
    with pytest.raises(SpeInputError, match="labeled id 'a' occurs 20 times"):
        _quiet_evaluate(frame, {"a": 1, "b": 0})


def test_labels_of_an_in_memory_series_are_matched_by_its_ids_on_dask(simulated, binned):
    s, _, labels = simulated
    ids = [f"item{i}" for i in range(s.size)]
    by_id = {f"item{i}": v for i, v in labels.items()}
    lazy = _quiet_evaluate(pd.Series(s, index=ids), by_id, engine="dask")
    assert json_bytes(lazy.to_dict()) == binned[1]


def test_cli_dask_names_a_label_id_not_in_the_shards(shards, capsys):
    d = shards
    (d / "bad.csv").write_text("id,label\nitem3,1\nnobody,0\n")
    assert _cli("estimate", d / "shards", "--labels", d / "bad.csv", "--engine", "dask") == 2
    assert "'nobody'" in capsys.readouterr().err


@pytest.mark.slow
def test_cli_dask_on_a_csv_in_blocks_writes_the_json_of_the_binned_csv(shards, capsys, monkeypatch):
    """A CSV file read by Dask in blocks of whole rows (five here) gives the in-memory binned JSON byte for byte,
    and --items one Parquet shard per block."""
    from spe.csv_blocks import csv_blocks

    d = shards
    block_bytes = (d / "scores.csv").stat().st_size // 4
    monkeypatch.setattr("spe.csv_blocks.BLOCK_BYTES", block_bytes)
    assert _cli("estimate", d / "scores.csv", "--labels", d / "labels.csv", "--engine", "dask", "--json",
                d / "dask.json", "--items", d / "items") == 0
    assert _cli("estimate", d / "scores.csv", "--labels", d / "labels.csv", "--engine", "binned", "--json",
                d / "binned.json") == 0
    assert (d / "dask.json").read_bytes() == (d / "binned.json").read_bytes()
    assert len(list((d / "items").iterdir())) == len(csv_blocks(d / "scores.csv", block_bytes=block_bytes).blocks) == 5
    items = pd.read_parquet(d / "items")
    assert list(items["id"]) == list(pd.read_csv(d / "scores.csv")["id"])


def test_cli_auto_reads_a_large_csv_with_dask(shards, capsys, monkeypatch):
    """Above spe.engines.POOL_ABOVE rows (estimated from the file's size) and with Dask installed, a CSV is read
    in blocks by Dask; --items naming a CSV keeps it in memory."""
    d = shards
    read = []
    original = spe.dask_engine.ScoreSource.from_csv.__func__

    def recording(cls, *args, **kwargs):
        read.append(args[0])
        return original(cls, *args, **kwargs)

    monkeypatch.setattr("spe.dask_engine.ScoreSource.from_csv", classmethod(recording))
    monkeypatch.setattr("spe.engines.POOL_ABOVE", 5_000)
    assert _cli("estimate", d / "scores.csv", "--labels", d / "labels.csv", "--json", d / "auto.json") == 0
    assert read == [str(d / "scores.csv")]
    assert _cli("estimate", d / "scores.csv", "--labels", d / "labels.csv", "--items", d / "items.csv") == 0
    assert len(read) == 1
    monkeypatch.setattr("spe.engines.POOL_ABOVE", 20_000)
    assert _cli("estimate", d / "scores.csv", "--labels", d / "labels.csv", "--json", d / "memory.json") == 0
    assert len(read) == 1


def test_cli_dask_names_a_bad_row_of_a_csv_block_by_its_row_in_the_file(shards, capsys, monkeypatch):
    d = shards
    lines = (d / "scores.csv").read_text().splitlines(keepends=True)
    lines[7001] = "item7000,oops\n"
    (d / "bad.csv").write_text("".join(lines))
    monkeypatch.setattr("spe.csv_blocks.BLOCK_BYTES", 20_000)
    assert _cli("estimate", d / "bad.csv", "--labels", d / "labels.csv", "--engine", "dask") == 2
    assert f"{d / 'bad.csv'}, row 7001, column 'score': 'oops' is not a finite number" in capsys.readouterr().err
