"""Reading and validating the scores and labels files (DESIGN.md, CLI contract).

``SCORES.csv``: a header row, a column ``score`` (or another named one) and
optionally ``id``. ``LABELS.csv``: columns ``id,label``; ``id`` matches the
scores' ``id`` column, or, when the scores have no ``id`` column, is the
0-based row number of the score. ``label`` is 0 or 1.

Every error is a :class:`spe.SpeInputError` naming the file, the 1-based
data row (the header is row 0; blank lines count, so it is the file's line
number minus one) and the column. Files are only read; ``-`` reads the
scores from standard input.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .exceptions import SpeInputError, plain
from .progress import stage

__all__ = ["ScoresFile", "read_scores", "read_score_columns", "read_score_bytes", "read_labels", "read_label_table",
           "read_truth", "read_reference", "align_scores", "renumbering_blank_lines"]


@dataclass
class ScoresFile:
    """Scores read from a file.

    Attributes
    ----------
    path : str
    scores : array, shape (N,)
        Score units.
    ids : array of str, shape (N,), or None
        The ``id`` column, if the file has one.
    """

    path: str
    scores: np.ndarray
    ids: np.ndarray | None


STDIN = "-"
#: A number as the files may write it: an ASCII decimal with an optional sign and exponent ('+1.5', '.5', '5.',
#: '1e-3'); read by ``float()``. Python's float() also takes '1_000' and non-ASCII digits, which are refused.
DECIMAL_NUMBER = r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
#: The csv module's largest field while spe reads (its default, 131,072 characters, would refuse a long id).
CSV_FIELD_LIMIT = 2**31 - 1
#: A quoted field after white space: the csv module and pandas skip the space and honour the quotes, pyarrow
#: keeps both as text, so such files go to the validating reader.
_SPACE_BEFORE_QUOTE = re.compile(rb'(?:^|[,\r\n])[ \t]+"')


def _source(path, what="scores"):
    """What pandas reads for ``path``: a regular file's path, or the bytes of anything else — ``-``
    (standard input), a named pipe, a process substitution ``<(...)`` — read at once, so that the fast
    and the validating reader parse the same bytes (a pipe cannot be read twice).

    Raises
    ------
    SpeInputError
        An empty path, a missing file, a directory, or a file that cannot be opened for reading
        (e.g. no permission), naming the path.
    """
    text = str(path)
    if text == STDIN:
        if what != "scores":
            raise SpeInputError(f"only the scores can be read from standard input ('-'): name the {what} file")
        import sys

        return sys.stdin.buffer.read()
    if text.strip() == "":
        raise SpeInputError(f"the file name of the {what} is empty")
    p = Path(text)
    if text.endswith(("/", os.sep)) and not p.is_dir():
        raise SpeInputError("ends with '/' but is not a directory", path=text)
    try:
        if not p.exists():
            raise SpeInputError("file not found", path=text)
        if p.is_dir():
            raise SpeInputError("is a directory, not a CSV file", path=text)
        with open(p, "rb") as fh:
            if not p.is_file():
                return fh.read()
            fh.read(1)
    except OSError as e:
        raise SpeInputError(f"cannot be read ({e.strerror or e})", path=text) from None
    return p


def _display_path(path):
    return "<stdin>" if str(path) == STDIN else str(path)


def _open(source):
    import io

    return io.BytesIO(source) if isinstance(source, bytes) else source


def _read_table(path, required, *, optional=(), blank_rows="skip", allow_empty=False, what="scores", source=None):
    """Read a CSV file as strings: (DataFrame without its blank rows, their data-row numbers (rows,)).

    Blank lines are kept by the parser so that row numbers are the file's own (1-based data rows, the
    header is row 0). ``blank_rows="skip"`` drops them (the rows carry their own ids);
    ``blank_rows="error"`` refuses a blank row that has data rows after it, because labels that refer to
    0-based row numbers would then land on the wrong items (blank rows after the last data row are
    dropped: they renumber nothing). A header without data rows is an error unless ``allow_empty``.
    ``source``: what :func:`_source` gave for ``path``, if the caller has it. The ``required`` columns, and
    the ``optional`` ones when present, must each be named once.
    """
    import pandas as pd

    source = _source(path, what) if source is None else source
    path = _display_path(path)
    try:
        df = _read_csv(source, path, dtype=str, keep_default_na=False, na_filter=False, skipinitialspace=True,
                       skip_blank_lines=False)
    except pd.errors.EmptyDataError:
        raise SpeInputError("the file is empty (expected a header row and data rows)", path=path) from None
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as e:
        if isinstance(e, SpeInputError):
            raise
        _refuse_parquet(source, path, what)
        if isinstance(e, pd.errors.ParserError) and _longer_row(source)[0] is not None:
            _refuse_longer_row(source, path)
        if isinstance(e, UnicodeDecodeError):
            _refuse_non_utf8(source, path)
        raise SpeInputError(f"not a readable CSV file ({_one_line(e)})", path=path) from None
    df.columns = [str(c).strip() for c in df.columns]
    _check_header(_header_names(source), [*required, *optional], path)
    for col in required:
        if col not in df.columns:
            raise SpeInputError(
                f"no column '{col}' (the header has: {', '.join(df.columns) or 'nothing'})", path=path, row=0
            )
    rows = np.arange(1, len(df) + 1)
    blank = _blank_rows(df)
    if blank.any():
        filled = np.flatnonzero(~blank)
        last = filled[-1] if filled.size else -1
        inner = np.flatnonzero(blank[: last + 1])
        if blank_rows == "error" and inner.size:
            raise renumbering_blank_lines(path, int(inner[0]) + 1, inner.size)
        df, rows = df.loc[~blank].reset_index(drop=True), rows[~blank]
    if len(df) == 0 and not allow_empty:
        raise SpeInputError("has a header but no data rows", path=path)
    return df, rows


def renumbering_blank_lines(path, row, count):
    """The error for blank lines between the data rows of a file without ids (``row``: the first, 1-based data
    row; ``count``: how many): the labels name 0-based rows, which a blank line would shift."""
    return SpeInputError(f"a blank line ({count} in all): labels refer to this file's 0-based data rows (it has no "
                         "'id' column), so every item after a blank line would be renumbered; remove the blank "
                         "lines or add an 'id' column", path=path, row=row)


def _read_csv(source, path, **options):
    """``pandas.read_csv`` that refuses a row with more fields than the header, naming it (pandas would take
    the first field of such rows as an index and shift every column, or drop rows, without a word)."""
    import warnings

    import pandas as pd

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", pd.errors.ParserWarning)
        df = pd.read_csv(_open(source), index_col=False, **options)
    if any(issubclass(w.category, pd.errors.ParserWarning) for w in caught):
        _refuse_longer_row(source, path)
    return df


def _refuse_non_utf8(source, path):
    """Name the row of the first byte that is not UTF-8 (pandas' message gives a position within its own
    buffer); the header is row 0."""
    with _buffer(source) as buf:
        at = _first_non_utf8(buf)
        if at is None:
            return
        head = bytes(buf[:at])
        byte = buf[at]
    row = head.count(b"\n") + head.count(b"\r") - head.count(b"\r\n")
    raise SpeInputError(f"byte 0x{byte:02x} is not UTF-8 text: save the file as UTF-8", path=path, row=row)


#: The first bytes of every Parquet file.
PARQUET_MAGIC = b"PAR1"


def _refuse_parquet(source, path, what):
    """Say that a file read as CSV is Parquet, when it begins with Parquet's magic bytes (rather than naming the
    first byte that is not UTF-8 text, which says nothing useful about such a file)."""
    with _buffer(source) as buf:
        magic = bytes(buf[: len(PARQUET_MAGIC)])
    if magic != PARQUET_MAGIC:
        return
    where = ("scores in Parquet are read from a file named *.parquet (or *.pq, *.parq): rename it" if what == "scores"
             else f"the {what} file must be CSV text: save it as CSV")
    raise SpeInputError(f"looks like a Parquet file, not CSV: {where}", path=path)


def _refuse_longer_row(source, path):
    row, fields, header = _longer_row(source)
    raise SpeInputError(f"{fields} fields where the header has {header}: every row needs one value per column "
                        "name (a stray comma, or a separator inside an unquoted value?)", path=path, row=row)


@contextlib.contextmanager
def _csv_rows(source):
    """A csv reader over ``source`` (a path, or bytes), reading lazily: a caller that needs the header alone
    reads no further; the file is closed on leaving the block."""
    import csv
    import io

    stream = (io.TextIOWrapper(io.BytesIO(source), encoding="utf-8-sig", errors="replace", newline="")
              if isinstance(source, bytes) else open(source, encoding="utf-8-sig", errors="replace", newline=""))
    limit = csv.field_size_limit(CSV_FIELD_LIMIT)  # the module's default, 131,072 characters, is not a CSV rule
    try:
        with stream:
            yield csv.reader(stream, skipinitialspace=True)
    finally:
        csv.field_size_limit(limit)


def _header_names(source):
    """The header's column names as written (stripped), read with the csv module: pandas renames repeats."""
    with _csv_rows(source) as reader:
        return [n.strip() for n in next(reader, [])]


def _longer_row(source):
    """(data row, its number of fields, the header's) of the first row with more fields than the header."""
    with _csv_rows(source) as reader:
        header = len(next(reader, []))
        for row, fields in enumerate(reader, start=1):
            if len(fields) > header:
                return row, len(fields), header
    return None, None, header


def _check_header(names, required, path):
    """A column the reader needs must be named once (pandas would silently read the first of two)."""
    for col in required:
        if names.count(col) > 1:
            raise SpeInputError(f"the header names the column '{col}' {names.count(col)} times", path=path, row=0)


def _blank_rows(df):
    """Rows whose every field is empty or white space (a blank line): bool array (rows,)."""
    blank = np.ones(len(df), dtype=bool)
    for i in range(df.shape[1]):  # by position: two columns may share a name
        blank &= np.array([v.strip() == "" for v in df.iloc[:, i].tolist()], dtype=bool)
    return blank


def _one_line(error):
    return " ".join(str(error).split())


def _names_ids_otherwise(name, id_column):
    """Whether a column name looks like the item ids spelled otherwise: 'ID', 'Id', 'item_id', 'doc-id', 'row id',
    'itemid', 'uuid'."""
    low = str(name).strip().lower()
    key = id_column.lower()
    return (low == key or low in ("item" + key, "uu" + key, "gu" + key)
            or re.fullmatch(r"[a-z0-9]+[_\-\s.]" + re.escape(key), low) is not None)


def _check_id_spelling(columns, id_column, path):
    """Refuse an id column spelled otherwise ('ID', 'item_id'): labels would be matched by row number instead."""
    if id_column in columns:
        return
    near = [c for c in columns if _names_ids_otherwise(c, id_column)]
    if near:
        raise SpeInputError(f"the column {near[0]!r} is not read as the item ids, which must be named "
                            f"{id_column!r}: rename it (or the labels would be matched to rows by number), "
                            f"or drop it to mean rows", path=path, row=0)


def _numeric(df, col, path, rows):
    """The column ``col`` as numbers (rows,), each exactly as Python's ``float()`` reads it (pandas' own parser
    rounded '+9.548302746945433' one unit in the last place off, and read '-0' as 0); anything but an ASCII
    decimal number, and NaN or infinite values, are refused naming the first such row."""
    raw = df[col].str.strip()
    decimal = raw.str.fullmatch(DECIMAL_NUMBER).to_numpy(dtype=bool)
    vals = np.full(len(raw), np.nan)
    with np.errstate(over="ignore"):
        vals[decimal] = np.fromiter(map(float, raw[decimal]), dtype=float, count=int(decimal.sum()))
    bad = np.flatnonzero(~np.isfinite(vals))
    if bad.size:
        r = int(bad[0])
        shown = repr(raw.iloc[r]) if raw.iloc[r] != "" else "an empty value"
        raise SpeInputError(
            f"{shown} is not a finite number" + (f" ({bad.size} such rows in all)" if bad.size > 1 else ""),
            path=path, row=int(rows[r]), column=col,
        )
    return vals


def _stripped(column):
    """The strings of a pandas column without surrounding whitespace, as an object array (N,).

    A list comprehension: pandas' ``.str.strip()`` goes through a Python
    call per element as well, at several times the cost (3.4 s against
    0.4 s on 10⁷ ids).
    """
    return np.array([v.strip() for v in column.tolist()], dtype=object)


def _string_hashes(values):
    """Python's hash of each string (cached on the string object), as int64 (N,)."""
    return np.fromiter(map(hash, values), dtype=np.int64, count=len(values))


def _first_duplicate(values):
    """(row, value) of the first repeat of an earlier value, or None.

    The strings' 64-bit hashes are sorted (numpy) and only the rows whose
    hash repeats are compared as strings, in row order, so the answer is
    exact. pandas' hash tables of Python strings took 10 s on 10⁷ ids
    (``Series.duplicated``), this 1 s.
    """
    h = _string_hashes(values)
    hs = np.sort(h)
    same = hs[1:] == hs[:-1]
    if not same.any():
        return None
    candidates = np.flatnonzero(np.isin(h, hs[1:][same]))
    seen = set()
    for r in candidates:
        v = values[r]
        if v in seen:
            return int(r), v
        seen.add(v)
    return None


def _positions(ids, wanted):
    """Row of each of ``wanted`` (n,) among the unique ``ids`` (N,), −1 where absent: int array (n,).

    The rows whose string hash is one of the wanted ones are found in one
    vectorized pass (``np.isin``, O(N) for a few labels; Python caches a
    string's hash, which :func:`_first_duplicate` computed when the scores
    were read), and only those rows' strings are compared.
    """
    candidates = np.flatnonzero(np.isin(_string_hashes(ids), _string_hashes(wanted)))
    row_of = {}
    for r in candidates.tolist():
        row_of.setdefault(ids[r], r)
    return np.array([row_of.get(v, -1) for v in wanted], dtype=np.int64)


def _read_scores_fast(path, score_column, id_column, source=None):
    """:func:`_read_columns_fast` of one score column: a ScoresFile, or None."""
    found = _read_columns_fast(path, [score_column], id_column, source)
    return None if found is None else found[0]


def _read_columns_fast(path, score_columns, id_column, source=None):
    """The common case, a valid file, read by pyarrow's multithreaded CSV reader with typed columns: a list of
    ScoresFile, one per score column; None when anything is off. ``id_column`` None: the ids are neither read
    nor checked.

    About 40× faster than the validating path on large files (10⁷ rows; 3× faster than pandas' C parser at
    10⁶); any irregularity (a missing or repeated column, no rows, a blank line, a row longer or shorter than
    the header, a value that is not a finite number, an empty or duplicate id, bytes that are not UTF-8 or
    quotes pyarrow would read otherwise than the csv module: :func:`_quoting`) returns None, and the validating
    path then reads the file again to name the file, row and column. pyarrow parses numbers exactly as Python's
    ``float()`` does (correctly rounded; ``tests/test_io.py`` checks it), so both paths give the same scores,
    and the ids are stripped as ``str.strip`` does (:func:`_stripped_arrow`).
    """
    import pyarrow as pa
    import pyarrow.csv as pcsv

    from .parquet import pandas_first

    pandas_first()
    source = _source(path) if source is None else source
    names = _header_names(source)
    if (len(set(names)) < len(names) or any(c not in names for c in score_columns)
            or any("\n" in n or "\r" in n for n in names)):  # pyarrow would skip one line of a 2-line header
        return None
    if (id_column is not None and id_column not in names
            and any(_names_ids_otherwise(n, id_column) for n in names)):  # explained later
        return None
    quoted = _quoting(source)
    if quoted is None:
        return None
    wanted = [*score_columns, *([id_column] if id_column in names else [])]
    types = {c: pa.string() if c == id_column else pa.float64() for c in wanted}
    try:
        table = pcsv.read_csv(
            pa.BufferReader(source) if isinstance(source, bytes) else str(source),
            # the header's names as the csv module read them (stripped), so "id, score" stays on this path
            read_options=pcsv.ReadOptions(column_names=names, skip_rows=1),
            # a blank line: a null score, refused; a quoted line break may cross pyarrow's blocks
            parse_options=pcsv.ParseOptions(ignore_empty_lines=False, newlines_in_values=quoted),
            convert_options=pcsv.ConvertOptions(column_types=types, include_columns=wanted, strings_can_be_null=False),
        )
    except (pa.ArrowException, OSError, ValueError):  # any parse problem: the validating path explains it
        return None
    if table.num_rows == 0 or table.column_names != wanted:
        return None
    columns = [table[c].to_numpy() for c in score_columns]
    if not all(np.all(np.isfinite(c)) for c in columns):  # nulls (blank values) come out as NaN
        return None
    ids = None
    if id_column in names:
        ids = _stripped_arrow(table[id_column])
        if ids is None or _first_duplicate(ids) is not None:
            return None
    return [ScoresFile(_display_path(path), c, ids) for c in columns]


def _quoting(source):
    """Whether the fast reader may parse ``source`` (a path or bytes), and how: None when the validating reader
    must — bytes that are not UTF-8 (anywhere, also in a column not read), an odd number of double quotes (one
    left open swallows the rows after it in pyarrow), a quoted field after white space (:data:`_SPACE_BEFORE_QUOTE`);
    else whether the file has quotes at all (then pyarrow is told that a value may hold a line break, or one
    that crosses its 1 MiB blocks would be cut). One vectorized pass over the bytes (memory-mapped)."""
    with _buffer(source) as buf:
        octets = np.frombuffer(buf, dtype=np.uint8)
        ascii_only = not np.any(octets >= 0x80)
        quotes = int(np.count_nonzero(octets == ord('"')))
        del octets  # the map cannot close while numpy holds it
        if not ascii_only and _first_non_utf8(buf) is not None:
            return None
        if quotes % 2 or (quotes and _space_before_quote(buf)):
            return None
    return quotes > 0


def _space_before_quote(buf):
    """Whether a quoted field follows white space (:data:`_SPACE_BEFORE_QUOTE`) in ``buf`` (bytes or a memory
    map). The pattern is tried only when a space or a tab stands before a quote somewhere (two memchr-fast
    finds): on 8 MiB of rows with a quoted header alone, 0.16 s of regular expression otherwise."""
    if buf.find(b' "') < 0 and buf.find(b'\t"') < 0:
        return False
    return _SPACE_BEFORE_QUOTE.search(buf) is not None


def _first_non_utf8(buf):
    """The offset of the first byte of ``buf`` (bytes or a memory map) that is not UTF-8 text, or None."""
    try:
        str(buf, "utf-8")
    except UnicodeDecodeError as e:
        return e.start
    return None


@contextlib.contextmanager
def _buffer(source):
    """The bytes of ``source``: itself if bytes, else the file memory-mapped (read-only) for the block."""
    import mmap

    if isinstance(source, bytes):
        yield source
        return
    with open(source, "rb") as fh:
        if os.fstat(fh.fileno()).st_size == 0:
            yield b""
            return
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            yield mapped


def _stripped_arrow(column):
    """A pyarrow string column stripped exactly as ``str.strip`` does, as an object array (N,); None if an id is
    empty (before or after stripping).

    Only the ids that begin or end with one of Python's white-space characters are stripped in Python; the
    rest are tested in pyarrow (vectorized), so a file without padded ids costs one conversion.
    """
    import pyarrow.compute as pc

    column = column.combine_chunks()
    if column.null_count or (len(column) and pc.min(pc.binary_length(column)).as_py() == 0):
        return None
    space = _python_whitespace()
    padded = pc.or_(pc.is_in(pc.utf8_slice_codeunits(column, 0, 1), value_set=space),
                    pc.is_in(pc.utf8_slice_codeunits(column, -1, 2 ** 31 - 1), value_set=space))
    ids = column.to_numpy(zero_copy_only=False)
    rows = np.flatnonzero(padded.to_numpy(zero_copy_only=False))
    for r in rows.tolist():
        ids[r] = ids[r].strip()
        if ids[r] == "":
            return None
    return ids


@functools.cache
def _python_whitespace():
    """The 29 characters ``str.strip()`` removes (``str.isspace``; the last is U+3000), as a pyarrow string
    array; built on first use, not at import."""
    import pyarrow as pa

    return pa.array([chr(c) for c in range(0x3001) if chr(c).isspace()], type=pa.string())


def read_scores(path, score_column="score", id_column="id"):
    """Read a scores file.

    Parameters
    ----------
    path : str or Path
        The file, or ``"-"`` for standard input: a CSV file, or Parquet — a ``.parquet`` file, a directory of
        shards or a glob (:mod:`spe.parquet`).
    score_column : str
        Column holding the scores.
    id_column : str
        Column holding item ids, if present.

    Returns
    -------
    ScoresFile

    Raises
    ------
    SpeInputError
        Missing, unreadable or empty file, missing score column, a
        non-numeric, NaN or infinite score, a duplicate or empty id, a blank
        line followed by data rows in a file without ids (labels name rows
        by number, so it would renumber them), the score column named as
        the id column — naming file, row, column.
    """
    return read_score_columns(path, [score_column], id_column)[0]


def read_score_columns(path, score_columns, id_column="id"):
    """Read several score columns of one file (e.g. several classifiers' scores of the same items), in one pass.

    Parameters
    ----------
    path : str or Path
        The file, or ``"-"`` for standard input (read once).
    score_columns : list of str, length K
    id_column : str

    Returns
    -------
    list of ScoresFile, length K
        One per column, in order, sharing the file's ids (or None).

    Raises
    ------
    SpeInputError
        As :func:`read_scores`, for any of the columns; a column named twice.
    """
    for i, column in enumerate(score_columns):
        if column in score_columns[:i]:
            raise SpeInputError(f"the score column {column!r} is asked for twice: name each column once",
                                path=_display_path(path))
        if column == id_column:
            raise SpeInputError(f"the score column cannot be the id column {id_column!r}: name the column that "
                                "holds the scores (--score-column)", path=_display_path(path))
    with stage(f"reading {_display_path(path)}"):
        return _read_score_columns(path, score_columns, id_column)


def read_score_bytes(data, path, score_columns, id_column="id", *, ids=True):
    """Score columns of CSV text already in memory (e.g. a block of a large file with its header row, as the
    Dask engine reads one: :mod:`spe.csv_blocks`), read exactly as :func:`read_score_columns` reads a file.

    Parameters
    ----------
    data : bytes
        The CSV text, header row first.
    path : str
        The file ``data`` came from, named in messages.
    score_columns : list of str, length K
    id_column : str
    ids : bool
        False: the scores alone, for text read before with its ids (the ids are then not checked when the text
        is regular, and ``ScoresFile.ids`` is None); about twice as fast.

    Returns
    -------
    list of ScoresFile, length K

    Raises
    ------
    SpeInputError
        As :func:`read_scores`, naming ``path`` and the row within ``data`` (1-based data rows, header row 0).
    """
    found = _read_score_columns(path, score_columns, id_column, source=bytes(data), ids=ids)
    return found if ids else [ScoresFile(f.path, f.scores, None) for f in found]


def _read_score_columns(path, score_columns, id_column, source=None, ids=True):
    """:func:`read_score_columns` after its argument checks (``source``: the bytes to read instead of ``path``;
    ``ids`` False: the fast reader leaves the ids out)."""
    from .parquet import is_parquet, read_parquet_columns

    if source is None and is_parquet(path):
        columns, ids = read_parquet_columns(path, list(score_columns), id_column)
        return [ScoresFile(str(path), c, ids) for c in columns]
    source = _source(path, "scores") if source is None else source
    fast = _read_columns_fast(path, score_columns, id_column if ids else None, source)
    if fast is not None:
        return fast
    # a blank line renumbers the rows that labels refer to, unless the items carry ids
    header, _ = _read_table(path, list(score_columns), optional=[id_column], blank_rows="skip", source=source)
    has_ids = id_column in header.columns
    _check_id_spelling(header.columns, id_column, _display_path(path))
    df, rows = (header, _) if has_ids else _read_table(path, list(score_columns), blank_rows="error", source=source)
    path = _display_path(path)
    columns = [_numeric(df, c, path, rows) for c in score_columns]
    ids = None
    if has_ids:
        ids = _checked_ids(df, id_column, path, rows, "duplicate id {!r}")
    return [ScoresFile(path, c, ids) for c in columns]


def read_labels(path, scores: ScoresFile, id_column="id", label_column="label", what="labels", pos_label=None):
    """Read a labels file and match it to the scores.

    Parameters
    ----------
    path : str or Path
    scores : ScoresFile
        The scores the ids refer to.
    what : str
        What the file is, for messages ("labels", "truth").
    pos_label : str or None
        The label of the positive class, as written in the file (``--pos-label``); None: labels are 0/1, -1/1 or
        true/false (:func:`spe.inputs.binary_labels`).

    Returns
    -------
    index : int array, shape (n,)
        Positions of the labeled items in the scores.
    value : int array, shape (n,)
        Their labels, 0 or 1.

    Raises
    ------
    SpeInputError
        Missing or empty file or column, a label no convention reads (:func:`spe.inputs.binary_labels`), an empty id,
        an id absent from the scores (or not a row number when the scores
        have no ids), a duplicate id — naming file, row, column. A header
        without rows is no labels (empty arrays); blank lines are skipped
        (each row names its item).
    """
    ids, lab, rows = read_label_table(path, id_column, label_column, what, pos_label)
    path = _display_path(path)
    if scores.ids is not None:
        index = _positions(scores.ids, ids)
        missing = np.flatnonzero(index < 0)
        if missing.size:
            r = int(missing[0])
            raise SpeInputError(f"id {plain(ids[r])!r} is not in the scores file {scores.path}", path=path,
                                row=int(rows[r]), column=id_column)
    else:
        index = _row_numbers(ids, scores, path, rows, id_column)
    return index, lab


def read_label_table(path, id_column="id", label_column="label", what="labels", pos_label=None):
    """A labels file as it is, before it is matched to any scores: what :func:`read_labels` and the Dask engine
    (which matches the ids shard by shard, :mod:`spe.dask_engine`) read.

    Returns
    -------
    ids : str array, shape (n,)
        Stripped.
    labels : int array, shape (n,)
        0 or 1.
    rows : int array, shape (n,)
        Each label's row in the file (for messages).

    Raises
    ------
    SpeInputError
        As :func:`read_labels`, but for the matching: a missing or empty file or column, a label other than
        0/1, an empty or repeated id, naming the file, row and column.
    """
    df, rows = _read_table(path, [id_column, label_column], allow_empty=True, what=what)
    path = _display_path(path)
    lab = _zero_one(df, label_column, path, rows, pos_label)
    ids = _checked_ids(df, id_column, path, rows, "id {!r} is labeled twice")
    return ids, lab, np.asarray(rows)


def _checked_ids(df, id_column, path, rows, repeated):
    """The id column stripped, (N,) object; an empty id, or a repeat (``repeated`` formats it), named by row."""
    ids = _stripped(df[id_column])
    empty = np.flatnonzero(ids == "")
    if empty.size:
        raise SpeInputError("empty id", path=path, row=int(rows[empty[0]]), column=id_column)
    dup = _first_duplicate(ids)
    if dup is not None:
        raise SpeInputError(repeated.format(dup[1]), path=path, row=int(rows[dup[0]]), column=id_column)
    return ids


def _zero_one(df, label_column, path, rows, pos_label=None):
    """The label column as 0/1 ints (rows,) by :func:`spe.inputs.binary_labels` (0/1, -1/1, true/false, or two
    values with ``pos_label``), refusing anything else, naming the row."""
    from .inputs import LabelValueError, binary_labels

    raw_labels = df[label_column].str.strip()
    empty = np.flatnonzero((raw_labels == "").to_numpy())
    if empty.size:
        raise SpeInputError("the label is empty (expected 0 or 1: a labels file lists labeled items only)", path=path,
                            row=int(rows[empty[0]]), column=label_column)
    try:
        return binary_labels(raw_labels.to_numpy(dtype=object), pos_label)
    except LabelValueError as e:
        r = e.position
        raise SpeInputError(e.message, path=path, row=int(rows[r]), column=label_column) from None


def read_reference(path, score_column="score", label_column="label", pos_label=None):
    """Read a reference set: the same classifier's scores with every label (e.g. its validation data).

    Parameters
    ----------
    path : str or Path
        A CSV file with a score column and a label column (other columns,
        ids included, are ignored: the items are not the pool's).
    score_column, label_column : str
    pos_label : str or None
        As :func:`read_labels`'s.

    Returns
    -------
    scores : float array, shape (R,)
        Score units.
    labels : int array, shape (R,)
        0 or 1.

    Raises
    ------
    SpeInputError
        Missing, unreadable or empty file, a missing column, a non-numeric
        or non-finite score, a label no convention reads, labels of one class
        only — naming file, row and column.
    """
    df, rows = _read_table(path, [score_column, label_column], what="reference")
    shown = _display_path(path)
    scores = _numeric(df, score_column, shown, rows)
    labels = _zero_one(df, label_column, shown, rows, pos_label)
    if labels.min() == labels.max():
        raise SpeInputError(f"every label is {labels[0]}: a reference set needs items of both classes to inform "
                            "the calibration map", path=shown, column=label_column)
    return scores, labels


def _row_numbers(ids, scores, path, rows, id_column):
    """The 0-based data rows the labels' ids name, when the scores have no ids: int array (n,)."""
    n = scores.scores.size
    index = np.empty(len(ids), dtype=np.int64)
    for r, v in enumerate(ids):
        try:
            j = int(v)
        except ValueError:
            j = -1
        if not 0 <= j < n or str(j) != v.lstrip("+"):
            raise SpeInputError(
                f"id {plain(v)!r} is not a row number 0..{n - 1} of the scores file {scores.path} (which has no "
                "'id' column, so labels refer to its 0-based data rows)", path=path, row=int(rows[r]),
                column=id_column,
            )
        index[r] = j
    seen = {}
    for r, j in enumerate(index.tolist()):
        if j in seen:  # '5' and '+5'
            raise SpeInputError(f"row number {j} is labeled twice (also on row {int(rows[seen[j]])})", path=path,
                                row=int(rows[r]), column=id_column)
        seen[j] = r
    return index


def read_truth(path, scores: ScoresFile, id_column="id", label_column="label", pos_label=None):
    """Read every item's true label (a labels file that labels all N items), in the order of the scores.

    For checking an estimate on a fully labeled set (``spe estimate --truth``).

    Parameters
    ----------
    path : str or Path
        Columns as a labels file (:func:`read_labels`).
    scores : ScoresFile

    Returns
    -------
    int array, shape (N,)
        0/1 label of each scored item.

    Raises
    ------
    SpeInputError
        As :func:`read_labels`, and when some scored item has no label (naming the file).
    """
    index, value = read_labels(path, scores, id_column, label_column, what="truth", pos_label=pos_label)
    n = scores.scores.size
    if index.size != n:
        raise SpeInputError(f"a truth file must label every item: it labels {index.size} of the {n} scored items",
                            path=_display_path(path))
    truth = np.empty(n, dtype=int)
    truth[index] = value
    return truth


def align_scores(files):
    """Several classifiers' scores of the same items, in the first file's order: (N, K) score units.

    Parameters
    ----------
    files : list of ScoresFile, length K
        Matched by their ``id`` columns when every file has one (any row order), else by row (no file may have
        ids then, and every file must have N rows).

    Returns
    -------
    array, shape (N, K)

    Raises
    ------
    SpeInputError
        Some files with ids and some without; different numbers of items; an id of the first file missing
        from another, or an id of another file missing from the first — naming the file (and its row).
    """
    first = files[0]
    with_ids = [f.ids is not None for f in files]
    if any(with_ids) and not all(with_ids):
        odd = files[with_ids.index(not with_ids[0])]
        raise SpeInputError(f"{odd.path} {'has' if odd.ids is not None else 'has no'} 'id' column and "
                            f"{first.path} {'has' if first.ids is not None else 'has no'}: match the items by id in "
                            "every file, or by row in none", path=odd.path)
    columns = [first.scores]
    for f in files[1:]:
        if f.scores.size != first.scores.size:
            raise SpeInputError(f"{f.scores.size} items, but {first.path} has {first.scores.size}: the files must "
                                "score the same items", path=f.path)
        if first.ids is None:
            columns.append(f.scores)
            continue
        pos = _positions(f.ids, first.ids)
        missing = np.flatnonzero(pos < 0)
        if missing.size:
            first_id = plain(first.ids[missing[0]])
            raise SpeInputError(f"id {first_id!r} of {first.path} (data row {int(missing[0]) + 1}) is not in this "
                                "file: the files must score the same items", path=f.path)
        columns.append(f.scores[pos])
    return np.column_stack(columns)
