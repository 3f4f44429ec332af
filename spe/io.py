"""Reading and validating the scores and labels files (DESIGN.md, CLI contract).

``SCORES.csv``: a header row, a column ``score`` (or another named one) and
optionally ``id``. ``LABELS.csv``: columns ``id,label``; ``id`` matches the
scores' ``id`` column, or, when the scores have no ``id`` column, is the
0-based row number of the score. ``label`` is 0 or 1.

Every error is a :class:`spe.SpeInputError` naming the file, the 1-based
data row (the header is row 0; blank lines count, so it is the file's line
number minus one) and the column. Files are only read; ``-`` reads the
scores from standard input.

One reader: pyarrow's CSV reader, every value as text (multithreaded),
then vectorised checks that name the first bad value's row. What pandas
and the csv module made of odd files — the spaces before a quote, rows
with too few or too many fields, a quoted value left open, an empty first
line, which error comes first — is kept (:func:`_parse`), so every message
is the one they gave.
"""

from __future__ import annotations

import contextlib
import csv
import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .exceptions import SpeInputError, plain
from .progress import stage

__all__ = ["ScoresFile", "read_scores", "read_scores_and_columns", "read_score_columns", "read_score_bytes",
           "read_labels", "read_label_table", "read_truth", "read_reference", "align_scores", "renumbering_blank_lines"]


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
    rows : int array, shape (N,), or None
        Each item's data row in the file as its messages number them (1-based; blank lines counted), when read
        from a CSV file; None: the items' positions + 1.
    """

    path: str
    scores: np.ndarray
    ids: np.ndarray | None
    rows: np.ndarray | None = None

    def row_of(self, position) -> int:
        """The 1-based data row of the item at 0-based ``position``, as the file's error messages number it."""
        return int(self.rows[position]) if self.rows is not None else int(position) + 1


STDIN = "-"
#: A number as the files may write it: an ASCII decimal with an optional sign and exponent ('+1.5', '.5', '5.',
#: '1e-3'); read by ``float()``. Python's float() also takes '1_000' and non-ASCII digits, which are refused.
DECIMAL_NUMBER = r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"


def _source(path, what="scores"):
    """What the reader reads for ``path``: a regular file's path, or the bytes of anything else — ``-``
    (standard input), a named pipe, a process substitution ``<(...)`` — read at once (a pipe cannot be read
    twice, and checking it by reading a byte would lose that byte).

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


#: Appended to the text before it is parsed: read back as its own record unless a quoted value was left open.
_END = b"\x00spe-end\x00"


def _read_table(path, required, *, optional=(), keyed_by=None, allow_empty=False, what="scores", source=None):
    """Read a CSV file as strings: ({column name: its values (a pyarrow string array, each value stripped as
    ``str.strip`` strips it)} without the blank rows, their data-row numbers (rows,)); the names as messages
    list them (:func:`_pandas_names`).

    Blank lines are kept by the parser so that row numbers are the file's own (1-based data rows, the
    header is row 0); they are dropped, but in a scores file without its id column ``keyed_by`` a blank row
    that has data rows after it is refused, because labels that refer to 0-based row numbers would then land
    on the wrong items (blank rows after the last data row renumber nothing). A header without data rows is
    an error unless ``allow_empty``. ``source``: what :func:`_source` gave for ``path``, if the caller has it.
    The ``required`` columns, and the ``optional`` ones when present, must each be named once.
    """
    source = _source(path, what) if source is None else source
    path = _display_path(path)
    _refuse_parquet(source, path, what)
    names, arrays = _parse(source, path)
    arrays = [_strip(a) for a in arrays]
    table = dict(zip(_pandas_names(names), arrays))
    _check_header([n.strip() for n in names], [*required, *optional], path)
    for col in required:
        if col not in table:
            raise SpeInputError(
                f"no column '{col}' (the header has: {', '.join(table) or 'nothing'})", path=path, row=0
            )
    blank = _blank_rows(arrays)
    if blank.all() and not allow_empty:
        raise SpeInputError("has a header but no data rows", path=path)
    if keyed_by is not None:
        _check_id_spelling(list(table), keyed_by, path)
        filled = np.flatnonzero(~blank)
        inner = np.flatnonzero(blank[: filled[-1] + 1] if filled.size else [])
        if keyed_by not in table and inner.size:
            raise renumbering_blank_lines(path, int(inner[0]) + 1, inner.size)
    rows = np.flatnonzero(~blank) + 1
    if blank.any():
        table = {name: values.filter(~blank) for name, values in table.items()}
    return table, rows


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


def renumbering_blank_lines(path, row, count):
    """The error for blank lines between the data rows of a file without ids (``row``: the first, 1-based data
    row; ``count``: how many): the labels name 0-based rows, which a blank line would shift."""
    return SpeInputError(f"a blank line ({count} in all): labels refer to this file's 0-based data rows (it has no "
                         "'id' column), so every item after a blank line would be renumbered; remove the blank "
                         "lines or add an 'id' column", path=path, row=row)


def _parse(source, path):
    """Every record of ``source`` as pyarrow reads it, all as strings: (the header's fields, one string array per
    column over the data records, blank ones included).

    What pandas (with ``skipinitialspace``) and the csv module made of a file, kept: spaces between a comma and
    an opening quote are skipped; a row with fewer fields than the header is filled with empty values; a file
    that begins with an empty line has a header of no names; the first of these errors that pandas met is
    raised: a row with more fields than the header, a quoted value left open, bytes that are not UTF-8.
    """
    from .parquet import pandas_first

    pandas_first()
    with _buffer(source) as buf:
        text = bytearray(memoryview(buf)[3 if buf[:3] == b"\xef\xbb\xbf" else 0:])
    start = bytes(text[:4]).replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    if not text or start.startswith(b"\n\n") or start == b"\n":
        raise SpeInputError("the file is empty (expected a header row and data rows)", path=path)
    headless = start.startswith(b"\n")
    if headless:
        del text[:2 if text[:2] == b"\r\n" else 1]
    if b' "' in text:
        text = bytearray(_skip_spaces_before_quotes(bytes(text)))
    bad_byte = _first_non_utf8(text)
    # rows pyarrow can show; when every byte is UTF-8, data *is* text (no copy of the file), so the end appended
    # below lands in text too: _first_error reads text only when a byte is bad, when data is a copy
    data = text if bad_byte is None else bytearray(text.decode("utf-8", "replace").encode())
    data += b"\n"[data.endswith((b"\n", b"\r")):] + _END  # a last record, unless a quoted value left open takes it
    k = _fields(data)
    table, odd = _records(data, k, threads=True)
    if table is None:  # a row of another width: pyarrow numbers the rows it sets aside when it reads in one thread
        table, odd = _records(data, k, threads=False)
    if table is None:  # no record ends: the header opens a quote
        open_at = 0
    else:
        last = table.column(0)[-1].as_py() if k == 1 else odd[-1][2] if odd else None  # the sentinel's place
        ended = last == _END.decode()
        odd, table = [o for o in odd if o[2] != _END.decode()], table.slice(0, table.num_rows - (k == 1 and ended))
        open_at = None if ended else table.num_rows - 1 + len(odd)
    _first_error(text, k, odd, open_at, bad_byte, headless, path)
    if headless:
        return [], []
    columns = table.columns
    if odd:
        columns = _with_short_rows(columns, odd)
    return [c[0].as_py() for c in columns], [c.slice(1) for c in columns]


def _first_error(text, k, odd, open_at, bad_byte, headless, path):
    """Raise the error that pandas met first in ``text`` (whose header has ``k`` fields), if any.

    ``odd``: the records of another number of fields, (record number, fields, text); ``open_at``: the record
    (0 the header) where a quoted value is left open, or None; ``bad_byte``: the offset of the first byte that
    is not UTF-8, or None. pandas decodes the header once it has read the first data row; a row wider than the
    first data row, or a quoted value left open, stops its tokenizer (a longer row is then named first); then
    the other bytes that are not UTF-8 are found, then a row longer than the header. After an empty first line
    every row is longer than the header.
    """
    if headless:
        if open_at is not None or any(n > k for _, n, _ in odd):
            raise _longer_row(k, 0, 1, path)
        if bad_byte is not None:
            _refuse_non_utf8(b"\n" + text[:bad_byte + 1], bad_byte + 1, path)
        return
    longer = [(number - 1, n) for number, n, _ in odd if n > k]
    in_header = bad_byte is not None and not re.search(rb"[\r\n]", text[:bad_byte])
    width = max([k] + [n for number, n, _ in odd if number == 2])
    stopped = open_at is not None or any(n > width for number, n, _ in odd if number > 2)
    if bad_byte is not None and (not stopped or in_header and (open_at is None or open_at > 1)):
        _refuse_non_utf8(text, bad_byte, path)
    if longer:
        raise _longer_row(longer[0][1], k, longer[0][0], path)
    if open_at is not None:
        raise SpeInputError("not a readable CSV file (Error tokenizing data. C error: EOF inside string starting at "
                            f"row {open_at})", path=path)


def _skip_spaces_before_quotes(text):
    """``text`` without the spaces between a field's start and its opening quote, which pandas' and the csv
    module's ``skipinitialspace`` skip (pyarrow keeps them, and the quotes as text). The quotes are followed in
    order: one opens a value at a field's start (after a comma or a line end, and spaces), closes it inside one
    unless doubled; elsewhere it is text."""
    quotes = np.flatnonzero(np.frombuffer(text, dtype=np.uint8) == ord('"')).tolist()
    cuts, inside, k = [], False, 0
    while k < len(quotes):
        q = quotes[k]
        if inside:
            doubled = k + 1 < len(quotes) and quotes[k + 1] == q + 1
            inside, k = doubled, k + 2 if doubled else k + 1
            continue
        start = q
        while start and text[start - 1] == ord(" "):
            start -= 1
        if start == 0 or text[start - 1] in b",\r\n":
            inside = True
            if start < q:
                cuts.append((start, q))
        k += 1
    return b"".join(text[a:b] for a, b in zip([0] + [q for _, q in cuts], [s for s, _ in cuts] + [len(text)]))


def _longer_row(fields, header, row, path):
    """The error for a row of ``fields`` fields where the header has ``header``."""
    return SpeInputError(f"{fields} fields where the header has {header}: every row needs one value per column name "
                         "(a stray comma, or a separator inside an unquoted value?)", path=path, row=row)


def _records(text, k, threads):
    """(``text``'s records as K string columns (the header a record), [(record number, fields, text)] of the
    records with another number of fields, which are left out); (None, []) when no record ends, or, when
    ``threads``, at the first such record but the last line, :data:`_END` (the threads call Python in turn, and
    number no row)."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    odd = []

    def invalid(row):
        if threads and row.text != _END.decode():
            return "error"
        odd.append((row.number, row.actual_columns, row.text))
        return "skip"

    try:
        table = pcsv.read_csv(
            pa.py_buffer(text), read_options=pcsv.ReadOptions(autogenerate_column_names=True, use_threads=threads),
            parse_options=pcsv.ParseOptions(ignore_empty_lines=False, newlines_in_values=True,
                                            invalid_row_handler=invalid),
            convert_options=pcsv.ConvertOptions(column_types={f"f{i}": pa.string() for i in range(k)},
                                                 strings_can_be_null=False, quoted_strings_can_be_null=False,
                                                 check_utf8=False))
    except pa.ArrowInvalid:
        return None, []
    return table, odd


def _fields(data, size=1 << 16):
    """The number of fields of the first record of ``data`` (when a quoted value is left open in it, as if it
    closed at the end), read from its first ``size`` bytes, more until they hold that record and the next."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    head, odd = bytes(data[:size]), []
    whole = len(head) == len(data)
    try:
        table = pcsv.read_csv(pa.py_buffer(head + b"\n"), read_options=pcsv.ReadOptions(
            autogenerate_column_names=True, use_threads=False), parse_options=pcsv.ParseOptions(
            newlines_in_values=True, invalid_row_handler=lambda row: odd.append(row) or "skip"))
    except pa.ArrowInvalid:  # the first record does not end
        return _fields(data, 4 * size) if not whole else 1 if data.endswith(b'"') else _fields(bytes(data) + b'"')
    return table.num_columns if whole or table.num_rows + len(odd) > 1 else _fields(data, 4 * size)


def _with_short_rows(columns, short):
    """``columns`` (the records pyarrow read, header first) with the ``short`` rows ((record number, fields,
    text)) put back at their places, their missing fields empty."""
    import pyarrow as pa

    k = len(columns)
    filled = "\n".join(text + "," * (k - n) for _, n, text in short).encode() + b"\n"
    table, _ = _records(filled, k, threads=False)
    at = np.array([number - 1 for number, _, _ in short])
    is_short = np.zeros(len(columns[0]) + len(short), dtype=bool)
    is_short[at] = True
    order = np.empty(is_short.size, dtype=np.int64)  # in the file's order: the records read, then the short ones
    order[~is_short], order[is_short] = np.arange(len(columns[0])), len(columns[0]) + np.arange(len(short))
    return [pa.concat_arrays([*c.chunks, *f.chunks]).take(order) for c, f in zip(columns, table.columns)]


def _pandas_names(names):
    """The header's names as pandas named them (what messages list): leading spaces skipped, an empty name
    'Unnamed: i', the second of two equal names 'name.1'; then stripped."""
    counts, out = {}, []
    for i, name in enumerate(names):
        name = name.lstrip(" ") or f"Unnamed: {i}"
        k = counts.get(name, 0)
        while k:  # pandas' own loop
            counts[name], name = k + 1, f"{name}.{k}"
            k = counts.get(name, 0)
        counts[name] = k + 1
        out.append(name)
    return [n.strip() for n in out]


def _refuse_non_utf8(text, at, path):
    """The error for the byte at ``at``, not UTF-8, named by its row (a line here; the header is row 0)."""
    head = text[:at]
    row = head.count(b"\n") + head.count(b"\r") - head.count(b"\r\n")
    raise SpeInputError(f"byte 0x{text[at]:02x} is not UTF-8 text: save the file as UTF-8", path=path, row=row)


def _check_header(names, required, path):
    """A column the reader needs must be named once (a reader would silently take the first of two)."""
    for col in required:
        if names.count(col) > 1:
            raise SpeInputError(f"the header names the column '{col}' {names.count(col)} times", path=path, row=0)


def _blank_rows(arrays):
    """Rows whose every (stripped) field is empty (a blank line): bool array (rows,)."""
    blank = np.ones(len(arrays[0]) if arrays else 0, dtype=bool)
    for a in arrays:
        blank &= _empty(a)
    return blank


def _empty(values):
    """Whether each string of a pyarrow string array is empty: bool array (rows,)."""
    import pyarrow.compute as pc

    return pc.equal(pc.binary_length(values), 0).to_numpy(zero_copy_only=False)


def _strip(column):
    """A pyarrow string array stripped as ``str.strip`` strips each string."""
    import pyarrow.compute as pc

    return pc.utf8_trim(column, characters=_WHITESPACE)


#: The 29 characters ``str.strip()`` removes (``str.isspace``; the last is U+3000).
_WHITESPACE = "".join(chr(c) for c in range(0x3001) if chr(c).isspace())


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
    """The column ``col`` of :func:`_read_table`'s table as numbers (rows,), each exactly as Python's ``float()`` reads it
    (pyarrow rounds correctly, as ``float()`` does; pandas' own parser rounded '+9.548302746945433' one unit in
    the last place off, and read '-0' as 0); anything but an ASCII decimal number, and NaN or infinite values,
    are refused naming the first such row."""
    import pyarrow as pa
    import pyarrow.compute as pc

    raw = df[col]
    try:  # pyarrow reads what float() reads, and NaN and infinity spelled in more ways (refused below)
        vals = pc.cast(raw, pa.float64()).to_numpy(zero_copy_only=False)
    except pa.ArrowInvalid:
        decimal = pc.match_substring_regex(raw, f"^(?:{DECIMAL_NUMBER})$")
        vals = np.full(len(raw), np.nan)
        vals[decimal.to_numpy(zero_copy_only=False)] = pc.cast(raw.filter(decimal), pa.float64()).to_numpy()
    bad = np.flatnonzero(~np.isfinite(vals))
    if bad.size:
        r = int(bad[0])
        value = raw[r].as_py()
        shown = repr(value) if value != "" else "an empty value"
        raise SpeInputError(
            f"{shown} is not a finite number" + (f" ({bad.size} such rows in all)" if bad.size > 1 else ""),
            path=path, row=int(rows[r]), column=col,
        )
    return vals


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


def _first_non_utf8(buf):
    """The offset of the first byte of ``buf`` (bytes or a memory map) that is not UTF-8 text, or None."""
    if not np.any(np.frombuffer(buf, dtype=np.uint8) >= 0x80):
        return None
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


def read_header(path):
    """The column names of a scores file (CSV: its header row; Parquet: its first shard's schema), or None when it
    is no regular file (standard input, a pipe: read once, with the rest)."""
    from .parquet import is_parquet, parquet_files

    text = str(path)
    if is_parquet(text):
        import pyarrow.parquet as pq

        return [n for n in pq.read_schema(parquet_files(text)[0]).names if not n.startswith("__")]
    if text == STDIN or not Path(text).is_file():
        return None
    with open(text, "rb") as f:
        line = f.readline().decode("utf-8-sig", errors="replace")  # a byte-order mark is no part of a name
    return [c.strip() for c in next(csv.reader([line]), [])]


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
    _check_score_columns(path, score_columns, id_column)
    with stage(f"reading {_display_path(path)}"):
        return _read_score_columns(path, score_columns, id_column)


def _check_score_columns(path, score_columns, id_column):
    for i, column in enumerate(score_columns):
        if column in score_columns[:i]:
            raise SpeInputError(f"the score column {column!r} is asked for twice: name each column once",
                                path=_display_path(path))
        if column == id_column:
            raise SpeInputError(f"the score column cannot be the id column {id_column!r}: name the column that "
                                "holds the scores (--score-column)", path=_display_path(path))


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
        False: the scores alone, for text read before with its ids (the ids are then neither checked nor made
        Python strings, and ``ScoresFile.ids`` is None).

    Returns
    -------
    list of ScoresFile, length K

    Raises
    ------
    SpeInputError
        As :func:`read_scores`, naming ``path`` and the row within ``data`` (1-based data rows, header row 0).
    """
    return _read_score_columns(path, score_columns, id_column, source=bytes(data), ids=ids)


def _read_score_columns(path, score_columns, id_column, source=None, ids=True):
    """:func:`read_score_columns` after its argument checks (``source``: the bytes to read instead of ``path``;
    ``ids`` False: the ids are neither checked nor returned)."""
    from .parquet import is_parquet, read_parquet_columns

    if source is None and is_parquet(path):
        columns, ids = read_parquet_columns(path, list(score_columns), id_column)
        return [ScoresFile(str(path), c, ids) for c in columns]
    df, rows = _read_table(path, list(score_columns), optional=[id_column], keyed_by=id_column, source=source)
    path = _display_path(path)
    columns = [_numeric(df, c, path, rows) for c in score_columns]
    ids = _checked_ids(df, id_column, path, rows, "duplicate id {!r}") if ids and id_column in df else None
    return [ScoresFile(path, c, ids, rows) for c in columns]


def read_scores_and_columns(path, columns, score_column="score", id_column="id", optional=(), score_columns=None):
    """Read a scores file and more of its columns as text, for ``spe monitor``'s chunks and slices (a batch
    column, a timestamp, a region): (ScoresFile, {name: object array (N,) of str}); with ``score_columns`` (a
    K-class classifier's class columns, say), (list of K ScoresFile, {…}) from the same single pass (standard
    input is read once).

    ``path`` is a CSV file or Parquet (a file, a directory of shards, a glob) as for :func:`read_scores`; the
    columns' values are read as written (Parquet values as their text). The ``optional`` columns are read when
    the file has them.

    Raises
    ------
    SpeInputError
        As :func:`read_scores` (:func:`read_score_columns` for ``score_columns``), and a named column the file
        does not have (naming the file and its header), an empty value in one (naming its row).
    """
    from .parquet import is_parquet, parquet_files

    columns = list(dict.fromkeys(columns))
    if score_columns is not None:
        _check_score_columns(path, list(score_columns), id_column)
    numeric = [score_column] if score_columns is None else list(score_columns)
    if is_parquet(path):
        scores = (read_scores(path, score_column, id_column) if score_columns is None
                  else read_score_columns(path, numeric, id_column))
        return scores, _parquet_text_columns(parquet_files(path), columns, optional)
    source = _source(path)
    df, rows = _read_table(path, [*numeric, *columns], optional=[id_column, *optional], keyed_by=id_column,
                           source=source)
    columns += [c for c in optional if c in df and c not in columns]
    shown = _display_path(path)
    ids = _checked_ids(df, id_column, shown, rows, "duplicate id {!r}") if id_column in df else None
    files = [ScoresFile(shown, _numeric(df, c, shown, rows), ids) for c in numeric]
    scores = files[0] if score_columns is None else files
    out = {}
    for c in columns:
        empty = np.flatnonzero(_empty(df[c]))
        if empty.size:
            raise SpeInputError(f"an empty value ({empty.size} in all): every item needs one", path=shown,
                                row=int(rows[empty[0]]), column=c)
        out[c] = np.asarray(df[c].to_numpy(zero_copy_only=False), dtype=object)
    return scores, out


def _parquet_text_columns(files, columns, optional=()):
    """The named columns of Parquet shards (and the ``optional`` ones the first shard has), in the shards' order,
    as text (N,)."""
    import pyarrow.parquet as pq

    from .parquet import read_text_columns

    first = pq.read_schema(files[0]).names
    columns = columns + [c for c in optional if c in first and c not in columns]
    parts = [read_text_columns(f, columns) for f in files]
    return {c: np.concatenate([p[c] for p in parts]) for c in columns}


def read_labels(path, scores: ScoresFile, id_column="id", label_column="label", what="labels", pos_label=None,
                encode=None):
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
    encode : callable, optional
        label texts (n,) → int codes, raising :class:`spe.inputs.LabelValueError` (a multiclass problem's class
        names, :func:`spe.multiclass.scores.class_encoder`); default: 0/1 as above.

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
    ids, lab, rows = read_label_table(path, id_column, label_column, what, pos_label, encode)
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


def read_label_table(path, id_column="id", label_column="label", what="labels", pos_label=None, encode=None):
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
    lab = _zero_one(df, label_column, path, rows, pos_label, encode)
    ids = _checked_ids(df, id_column, path, rows, "id {!r} is labeled twice")
    return ids, lab, np.asarray(rows)


def _checked_ids(df, id_column, path, rows, repeated):
    """The id column stripped, (N,) object; an empty id, or a repeat (``repeated`` formats it), named by row."""
    empty = np.flatnonzero(_empty(df[id_column]))
    if empty.size:
        raise SpeInputError("empty id", path=path, row=int(rows[empty[0]]), column=id_column)
    ids = df[id_column].to_numpy(zero_copy_only=False)
    dup = _first_duplicate(ids)
    if dup is not None:
        raise SpeInputError(repeated.format(dup[1]), path=path, row=int(rows[dup[0]]), column=id_column)
    return ids


def _zero_one(df, label_column, path, rows, pos_label=None, encode=None):
    """The label column as 0/1 ints (rows,) by :func:`spe.inputs.binary_labels` (0/1, -1/1, true/false, or two
    values with ``pos_label``), or as ``encode``'s codes, refusing anything else, naming the row."""
    from .inputs import LabelValueError, binary_labels

    raw_labels = df[label_column].to_numpy(zero_copy_only=False)
    empty = np.flatnonzero(raw_labels == "")
    if empty.size:
        expected = "expected 0 or 1" if encode is None else "expected a class"
        raise SpeInputError(f"the label is empty ({expected}: a labels file lists labeled items only)", path=path,
                            row=int(rows[empty[0]]), column=label_column)
    try:
        return binary_labels(raw_labels, pos_label) if encode is None else encode(raw_labels)
    except LabelValueError as e:
        r = e.position
        raise SpeInputError(e.message, path=path, row=int(rows[r]), column=label_column) from None


def read_labeled_columns(path, score_columns, encode, label_column="label"):
    """A labeled reference set with several score columns (a multiclass classifier's REF.csv), in one pass.

    Parameters
    ----------
    path : str or Path
    score_columns : list of str, length K
    encode : callable
        label texts (R,) → int codes (R,), raising :class:`spe.inputs.LabelValueError`
        (:func:`spe.multiclass.scores.class_encoder`).
    label_column : str

    Returns
    -------
    scores : array, shape (R, K)
    codes : int array, shape (R,)

    Raises
    ------
    SpeInputError
        A missing file or column, a score that is no finite number, an empty label or one ``encode`` refuses,
        naming the file, row and column.
    """
    df, rows = _read_table(path, [*score_columns, label_column], what="reference")
    shown = _display_path(path)
    scores = np.column_stack([_numeric(df, c, shown, rows) for c in score_columns])
    return scores, _zero_one(df, label_column, shown, rows, encode=encode)


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


def read_truth(path, scores: ScoresFile, id_column="id", label_column="label", pos_label=None, encode=None):
    """Read every item's true label (a labels file that labels all N items), in the order of the scores.

    For checking an estimate on a fully labeled set (``spe estimate --truth``).

    Parameters
    ----------
    path : str or Path
        Columns as a labels file (:func:`read_labels`).
    scores : ScoresFile
    encode : callable, optional
        As :func:`read_labels`' (multiclass: class names or positions → class indices).

    Returns
    -------
    int array, shape (N,)
        0/1 label (or class index) of each scored item.

    Raises
    ------
    SpeInputError
        As :func:`read_labels`, and when some scored item has no label (naming the file).
    """
    index, value = read_labels(path, scores, id_column, label_column, what="truth", pos_label=pos_label,
                               encode=encode)
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
