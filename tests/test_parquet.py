"""Scores from Parquet (issue 27, item 1): one file, a directory of shards or a glob give the same items as the
CSV; bad values are named by shard, row and column."""

import numpy as np
import pandas as pd
import pytest

from spe import SpeInputError
from spe.cli import main
from spe.io import read_labels, read_scores

from .conftest import EXAMPLES

SCORES = EXAMPLES / "digits_scores.csv"
LABELS = str(EXAMPLES / "digits_labels.csv")


def shards(tmp_path, frame, k=3, name="part"):
    folder = tmp_path / "shards"
    folder.mkdir()
    for i, part in enumerate(np.array_split(np.arange(len(frame)), k)):
        frame.iloc[part].to_parquet(folder / f"{name}-{i:03d}.parquet", index=False)
    return folder


@pytest.mark.parametrize("form", ["file", "directory", "glob"])
def test_parquet_gives_the_csvs_scores_and_ids(tmp_path, form):
    frame = pd.read_csv(SCORES)
    if form == "file":
        frame.to_parquet(tmp_path / "s.parquet", index=False)
        path = tmp_path / "s.parquet"
    else:
        folder = shards(tmp_path, frame)
        path = folder if form == "directory" else f"{folder}/part-*.parquet"
    got, csv = read_scores(path), read_scores(SCORES)
    np.testing.assert_array_equal(got.scores, csv.scores)
    assert list(got.ids) == list(csv.ids)
    for a, b in zip(read_labels(LABELS, got), read_labels(LABELS, csv)):
        np.testing.assert_array_equal(a, b)


def test_without_ids_the_items_are_the_rows_of_the_sorted_shards(tmp_path):
    frame = pd.DataFrame({"score": np.arange(10.0)})
    folder = tmp_path / "d"
    folder.mkdir()
    frame.iloc[5:].to_parquet(folder / "b.parquet", index=False)
    frame.iloc[:5].to_parquet(folder / "a.parquet", index=False)
    got = read_scores(folder)
    np.testing.assert_array_equal(got.scores, np.arange(10.0))
    assert got.ids is None


def test_the_cli_estimates_from_parquet_shards_as_from_the_csv(tmp_path):
    folder = shards(tmp_path, pd.read_csv(SCORES))
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    common = ["--labels", LABELS, "--seed", "0", "--draws", "200", "--families", "truncnorm,truncnorm", "-q"]
    assert main(["prevalence", str(folder), *common[:2], "--method", "acc", "--json", str(a)]) == 0
    assert main(["prevalence", str(SCORES), *common[:2], "--method", "acc", "--json", str(b)]) == 0
    assert a.read_text() == b.read_text()


def test_a_nan_or_infinite_score_is_named(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "nan.parquet"
    pq.write_table(pa.table({"score": pa.array([0.1, 0.2, float("inf"), float("nan")])}), path)
    with pytest.raises(SpeInputError, match=r"row 3, column 'score': score not a finite number \(inf\)"):
        read_scores(path)


@pytest.mark.parametrize("frame,message,row", [
    (pd.DataFrame({"score": [0.1, None, 0.3]}, dtype="Float64"), "score missing", 2),
    (pd.DataFrame({"score": ["a", "b"]}), "must be numbers", None),
    (pd.DataFrame({"value": [0.1, 0.2]}), "no column 'score'", None),
    (pd.DataFrame({"id": ["x", "y", "x"], "score": [0.1, 0.2, 0.3]}), "duplicate id 'x'", 3),
])
def test_bad_parquet_is_named_by_file_row_and_column(tmp_path, frame, message, row):
    path = tmp_path / "bad.parquet"
    frame.to_parquet(path, index=False)
    with pytest.raises(SpeInputError, match=message) as err:
        read_scores(path)
    assert str(path) in str(err.value)
    if row is not None:
        assert f"row {row}" in str(err.value)


def test_an_empty_glob_or_directory_and_a_csv_named_parquet_are_input_errors(tmp_path):
    with pytest.raises(SpeInputError, match="no Parquet file found"):
        read_scores(f"{tmp_path}/none-*.parquet")
    (tmp_path / "empty").mkdir()
    with pytest.raises(SpeInputError, match="is a directory with no Parquet file"):
        read_scores(tmp_path / "empty")
    fake = tmp_path / "fake.parquet"
    fake.write_text("score\n0.1\n")
    with pytest.raises(SpeInputError, match="cannot be read as Parquet"):
        read_scores(fake)


def test_an_existing_csv_whose_name_looks_like_a_glob_is_read_as_csv(tmp_path):
    path = tmp_path / "scores[1].csv"
    path.write_text("score\n0.1\n0.2\n0.3\n0.4\n")
    np.testing.assert_array_equal(read_scores(path).scores, [0.1, 0.2, 0.3, 0.4])


def test_spark_markers_are_not_shards_and_null_or_repeated_ids_are_named_in_order(tmp_path):
    folder = shards(tmp_path, pd.DataFrame({"id": [f"i{k}" for k in range(6)], "score": np.arange(6.0)}), k=2)
    (folder / "_SUCCESS").write_text("")
    assert read_scores(f"{folder}/*").scores.size == 6
    path = tmp_path / "ids.parquet"
    pd.DataFrame({"id": ["b", "a", "b", "a"], "score": [0.1, 0.2, 0.3, 0.4]}).to_parquet(path, index=False)
    with pytest.raises(SpeInputError, match="row 3, column 'id': duplicate id 'b'"):
        read_scores(path)
    pd.DataFrame({"id": ["a", None, "None"], "score": [0.1, 0.2, 0.3]}).to_parquet(path, index=False)
    with pytest.raises(SpeInputError, match="row 2, column 'id': empty id"):
        read_scores(path)
