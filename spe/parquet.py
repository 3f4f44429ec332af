"""Scores stored as Parquet: one file, a directory of shards or a glob of shards, read with pyarrow.

Only the score column(s) and the id column (when present) are read. The items are the shards' rows in the
order of the shards' sorted paths, then of their rows; without an id column a label's ``id`` is that 0-based
position across all shards. Every score is checked as a CSV's is (a number, finite), and a bad one is named
by its shard, its row in the shard (1-based, as a data row) and its column.
"""

from __future__ import annotations

import glob
import os
from pathlib import Path

import numpy as np

from .exceptions import SpeInputError

__all__ = ["is_parquet", "parquet_files", "read_parquet_columns", "read_shard", "read_text_columns", "shard_rows"]

_GLOB = set("*?[")
_SUFFIXES = (".parquet", ".pq", ".parq")


def pandas_first():
    """Import pandas before pyarrow converts anything to numpy.

    pyarrow imports pandas lazily, at its first conversion, inside a handler that swallows any exception: a
    Ctrl-C that landed in that import (about a second, at the start of every run) went unnoticed, and the run
    went on to its end. Imported here, the interrupt reaches spe's own handler.
    """
    import pandas  # noqa: F401


def is_parquet(path):
    """Whether ``path`` names Parquet input: a file with a Parquet suffix, a directory, or a glob pattern."""
    text = str(path)
    if text == "-" or text.strip() == "":
        return False
    if Path(text).is_file():  # an existing file by its suffix alone, whatever characters its name holds
        return text.lower().endswith(_SUFFIXES)
    return text.lower().endswith(_SUFFIXES) or Path(text).is_dir() or bool(_GLOB & set(text))


def parquet_files(path):
    """The Parquet files ``path`` names, sorted: itself, the ``*.parquet``/``*.pq``/``*.parq`` files below a
    directory (recursively), or the files a glob matches.

    Raises
    ------
    SpeInputError
        Nothing found, naming the path.
    """
    text = str(path)
    p = Path(text)
    if p.is_dir():
        files = sorted(str(f) for f in p.rglob("*") if f.is_file() and f.name.lower().endswith(_SUFFIXES))
    elif _GLOB & set(text) and not p.exists():
        files = sorted(f for f in glob.glob(text, recursive=True)
                       if os.path.isfile(f) and not os.path.basename(f).startswith(("_", ".")))
    else:
        files = [text] if p.is_file() else []
    if not files and p.is_dir():
        raise SpeInputError("is a directory with no Parquet file below it (*.parquet, *.pq, *.parq), and not a CSV "
                            "file", path=text)
    if not files:
        raise SpeInputError("no Parquet file found" if _GLOB & set(text) else "file not found", path=text)
    return files


def read_parquet_columns(path, score_columns, id_column="id"):
    """Read score columns (and the id column, when there is one) from Parquet shards.

    Parameters
    ----------
    path : str or Path
        A Parquet file, a directory of shards, or a glob.
    score_columns : list of str, length K
    id_column : str

    Returns
    -------
    (list of K arrays (N,) float64 in score units, ids (N,) str array or None)

    Raises
    ------
    SpeInputError
        No file, a file pyarrow cannot read, a missing or non-numeric score column, a null, NaN or infinite
        score, an empty or duplicate id — naming the shard, row and column; no rows in any shard, naming
        ``path``.
    """
    files = parquet_files(path)
    columns, ids = [[] for _ in score_columns], []
    has_ids = None
    for f in files:
        shard_columns, shard_ids = read_shard(f, score_columns, id_column, has_ids=has_ids)
        has_ids = shard_ids is not None
        for out, values in zip(columns, shard_columns):
            out.append(values)
        if has_ids:
            ids.append(shard_ids)
    joined = [np.concatenate(c) for c in columns]
    if joined and joined[0].size == 0:
        raise SpeInputError("has no rows: no scores to evaluate", path=str(path))
    return joined, (_checked_ids(files, ids, id_column) if has_ids else None)


def read_shard(f, score_columns, id_column="id", has_ids=None):
    """One shard's score columns (and ids, when it has the id column), checked: what :func:`read_parquet_columns`
    and the Dask engine (:mod:`spe.dask_engine`, one task per shard) read.

    ``has_ids``: whether the first shard had the id column (None: this is the first); every shard must agree.

    Returns
    -------
    (list of K arrays (N_shard,) float64 in score units, ids (N_shard,) str object array, stripped, or None)

    Raises
    ------
    SpeInputError
        A file pyarrow cannot read, a missing or non-numeric score column, a null, NaN or infinite score, a
        null or empty id, an id column where the first shard had none or none where it had one — naming the
        shard, row and column.
    """
    import pyarrow.parquet as pq

    pandas_first()
    try:
        schema = pq.read_schema(f)
    except Exception as e:  # noqa: BLE001 - pyarrow's errors differ by version
        raise SpeInputError(f"cannot be read as Parquet ({e})", path=f) from None
    _check_schema(schema, score_columns, f)
    shard_ids = id_column in schema.names
    if has_ids is not None and shard_ids != has_ids:
        raise SpeInputError(f"has {'an' if shard_ids else 'no'} {id_column!r} column, unlike the first shard",
                            path=f)
    try:
        table = pq.read_table(f, columns=[*score_columns, *([id_column] if shard_ids else [])])
    except Exception as e:  # noqa: BLE001 - a corrupt page: pyarrow's errors differ by version
        raise SpeInputError(f"cannot be read as Parquet ({e})", path=f) from None
    columns = [_finite_scores(table.column(name), f, name) for name in score_columns]
    return columns, (_shard_ids(table.column(id_column), f, id_column) if shard_ids else None)


def read_text_columns(f, columns):
    """One shard's ``columns`` as text: {name: object array (N_shard,) of str} (each value as ``str`` writes it).

    Raises
    ------
    SpeInputError
        A column the shard does not have (naming the shard and its columns), or an empty value (naming the shard,
        row and column).
    """
    import pyarrow.parquet as pq

    names = pq.read_schema(f).names
    missing = [c for c in columns if c not in names]
    if missing:
        raise SpeInputError(f"no column '{missing[0]}' (the file has: {', '.join(names)})", path=f)
    table = pq.read_table(f, columns=list(columns))
    out = {}
    for c in columns:
        values = table.column(c).to_pylist()
        empty = next((i for i, v in enumerate(values) if v is None or v == ""), None)
        if empty is not None:
            raise SpeInputError("an empty value: every item needs one", path=f, row=empty + 1, column=c)
        out[c] = np.array([str(v) for v in values], dtype=object)
    return out


def shard_rows(f):
    """Rows of one Parquet shard, from its footer (no data read)."""
    import pyarrow.parquet as pq

    try:
        return int(pq.ParquetFile(f).metadata.num_rows)
    except Exception as e:  # noqa: BLE001 - pyarrow's errors differ by version
        raise SpeInputError(f"cannot be read as Parquet ({e})", path=f) from None


def _check_schema(schema, score_columns, f):
    import pyarrow.types as pt

    for name in score_columns:
        if name not in schema.names:
            raise SpeInputError(f"no column {name!r} (columns: {', '.join(schema.names)})", path=f)
        kind = schema.field(name).type
        if not (pt.is_floating(kind) or pt.is_integer(kind) or pt.is_decimal(kind)):
            raise SpeInputError(f"the scores must be numbers; the column is {kind}", path=f, column=name)


def _finite_scores(column, f, name):
    values = column.cast("float64").to_numpy(zero_copy_only=False)  # nulls become NaN
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        what = "missing" if column.null_count and not column.slice(int(bad[0]), 1).is_valid().to_pylist()[0] \
            else f"not a finite number ({float(values[bad[0]])!r})"
        raise SpeInputError(f"score {what}", path=f, row=int(bad[0]) + 1, column=name)
    return values


def _shard_ids(column, f, id_column):
    """One shard's ids as str (N_shard,), without surrounding whitespace; a null or empty id is named by its
    row."""
    import pyarrow.compute as pc

    if column.null_count:
        row = int(np.flatnonzero(pc.is_null(column).to_numpy(zero_copy_only=False))[0]) + 1
        raise SpeInputError("empty id", path=f, row=row, column=id_column)
    ids = np.char.strip(np.asarray(column.cast("string").to_pylist(), dtype=str)).astype(object)
    empty = np.flatnonzero(ids == "")
    if empty.size:
        raise SpeInputError("empty id", path=f, row=int(empty[0]) + 1, column=id_column)
    return ids


def _checked_ids(files, ids, id_column):
    """The ids of every shard (each checked by :func:`_shard_ids`) as one str array; a repeated id named by
    shard and row (the first repeat in the items' order, as for a CSV)."""
    all_ids = np.concatenate(ids).astype(str)
    starts = np.cumsum([0, *[len(i) for i in ids]])

    def where(k):
        shard = int(np.searchsorted(starts, k, side="right") - 1)
        return files[shard], int(k - starts[shard]) + 1

    _, first, inverse = np.unique(all_ids, return_index=True, return_inverse=True)
    repeats = np.flatnonzero(np.arange(all_ids.size) != first[inverse])
    if repeats.size:
        f, row = where(repeats[0])
        raise SpeInputError(f"duplicate id {str(all_ids[repeats[0]])!r}", path=f, row=row, column=id_column)
    return all_ids
