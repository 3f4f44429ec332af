"""A large CSV file of scores as blocks of whole rows: how the Dask engine reads a CSV.

The Dask engine (:mod:`spe.dask_engine`) never holds all N scores in one
process. A CSV file is cut here into blocks of about :data:`BLOCK_BYTES`
bytes, each made of whole rows, by one pass over its bytes
(:func:`csv_blocks`: vectorised, one block in memory at a time). Each Dask
task then reads one block, with the header row put back in front of it,
through :func:`spe.io.read_score_bytes` — the reader of every CSV — so the
scores are parsed exactly as the in-memory path parses them (the pools, and
so the estimates, are the same bit for bit), and a bad value is named by the
file's own row: the block's row plus the rows before the block.

A row ends at a line feed (``\\n``, or ``\\r\\n``) outside double quotes;
a quoted value may hold a comma or a line break. Refused here, with a
message saying what to do, although the in-memory reader takes them:
line ends of a carriage return alone, an odd number of double quotes or a
double quote inside an unquoted value (``a"b``), a line of quoted empty
values, standard input. A blank line is skipped when the items have ids and
refused without (it would renumber the items after it), as in memory. Ids
repeated in two different blocks are not found (as in two Parquet shards:
that would need every id in one place).
"""

from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass

import numpy as np

from .exceptions import SpeInputError
from .progress import stage

__all__ = ["BLOCK_BYTES", "STANDARD_INPUT", "CsvBlock", "CsvLayout", "csv_blocks", "read_csv_block",
           "estimated_rows"]

#: Bytes per block (about 400,000 rows of an id and a score): what one Dask task reads and parses at once. A task
#: holds about 10 times its block while it reads the ids (Python strings); on 10⁷ rows with ids, 8 MiB blocks
#: peaked at 0.43 GB in 5.7 s, 64 MiB blocks at 1.37 GB in 8.5 s (2 threads).
BLOCK_BYTES = 8 << 20
_LF, _CR, _QUOTE = 10, 13, 34
_BLANK_BYTES = b" \t\r,\n"  # what a line whose fields are all empty is made of
_FILLED = np.ones(256, dtype=np.int32)
_FILLED[list(_BLANK_BYTES)] = 0
_MIB = 1 << 20
#: Why standard input ('-') cannot be read in blocks (the tasks read the file again, each its own block).
STANDARD_INPUT = ("the Dask engine reads a file (CSV or Parquet), not standard input: save the scores to a file, or "
                  "use --engine binned")


@dataclass(frozen=True)
class CsvBlock:
    """Whole rows of a CSV file.

    Attributes
    ----------
    start, end : int
        Byte offsets of the block's first row and just after its last.
    first_row : int
        The file's data row of the block's first line (1-based; the header is row 0; blank lines are numbered).
    rows : int
        Items in the block: its lines less its blank ones.
    """

    start: int
    end: int
    first_row: int
    rows: int


@dataclass(frozen=True)
class CsvLayout:
    """A CSV file cut into blocks (:func:`csv_blocks`).

    Attributes
    ----------
    path : str
    header : bytes
        The header row with its line end, put in front of each block when it is read.
    blocks : list of CsvBlock
        In file order, together every data row once.
    has_ids : bool
        Whether the header has the id column.
    """

    path: str
    header: bytes
    blocks: list
    has_ids: bool

    @property
    def rows(self) -> np.ndarray:
        """Data rows per block, int64 (C,)."""
        return np.array([b.rows for b in self.blocks], dtype=np.int64)


def csv_blocks(path, score_columns=("score",), id_column="id", block_bytes=BLOCK_BYTES) -> CsvLayout:
    """Cut a CSV file of scores into blocks of whole rows, about ``block_bytes`` bytes each.

    One pass over the file, a block at a time; the header and the first rows (64 KiB) are read as
    :func:`spe.io.read_scores` reads them, so that a missing column or a bad first row is refused before any
    block is handed out.

    Parameters
    ----------
    path : str or Path
        A regular CSV file (not standard input: the blocks are read again by the tasks).
    score_columns : sequence of str
    id_column : str
    block_bytes : int
        Bytes per block (a block grows past it when one row is longer).

    Returns
    -------
    CsvLayout

    Raises
    ------
    SpeInputError
        Standard input or a missing file; an empty file, a header without data rows, a missing score column
        or a bad first row (as the in-memory reader says); an odd number of double quotes, or line ends of a
        carriage return alone — naming the file.
    """
    from .io import read_score_bytes

    text = str(path)
    if text == "-":
        raise SpeInputError(STANDARD_INPUT)
    if not os.path.isfile(text):
        raise SpeInputError("file not found" if not os.path.exists(text) else "is not a regular file", path=text)
    with open(text, "rb") as fh:
        size = _end_of_rows(fh, os.path.getsize(text))  # the blank lines at the end are not rows
        header_end, first_end = _first_rows(fh, size)
        fh.seek(0)
        head = fh.read(first_end)
        _check_block(head, first_end >= size, text)
        # the header and the first rows as every reader reads them: their errors, the ids
        has_ids = read_score_bytes(head, text, list(score_columns), id_column)[0].ids is not None
        with stage(f"cutting {text} into blocks", total=-(-size // _MIB), unit="MiB") as progress:
            blocks = _cut(fh, size, header_end, block_bytes, text, has_ids, progress)
    return CsvLayout(text, head[:header_end], blocks, has_ids)


def _end_of_rows(fh, size, step=1 << 16):
    """The offset just after the file's last byte that is not white space (``\t``, ``\n``, ``\r``, space)."""
    end = size
    while end > 0:
        start = max(end - step, 0)
        fh.seek(start)
        kept = len(fh.read(end - start).rstrip(b" \t\r\n"))
        if kept:
            return start + kept
        end = start
    return 0


def _first_rows(fh, size):
    """Byte offsets just after the header row and after the last whole row of the first 64 KiB or more (at least
    one data row; ``size``, the end of the rows, when they are all there)."""
    want = 1 << 16
    while True:
        fh.seek(0)
        buf = fh.read(min(want, size))
        ends = _row_ends(buf)
        if ends.size >= 2 or len(buf) >= size:
            break
        want *= 4
    if ends.size == 0:  # a header alone, or nothing: the reader says which
        return len(buf), len(buf)
    return int(ends[0]) + 1, len(buf) if len(buf) >= size else int(ends[-1]) + 1


def _cut(fh, size, start, block_bytes, path, has_ids, progress):
    """The blocks of whole rows from byte ``start`` to the end of the file; a blank line is counted in the
    file's row numbers but is no item (without ids it is refused, as the in-memory reader refuses it)."""
    from .io import renumbering_blank_lines

    blocks, row, pos = [], 1, start
    inner = _InnerBlanks()
    progress.advance(start // _MIB)
    while pos < size:
        buf, ends = _window(fh, pos, size, block_bytes)
        at_end = pos + len(buf) >= size
        cut = len(buf) if at_end else int(ends[-1]) + 1
        block = buf[:cut]
        _check_block(block, at_end, path)
        blank = _blank_lines(block, ends)
        inner.add(blank, row)
        if blank.size > blank.sum():
            blocks.append(CsvBlock(pos, pos + cut, row, int(blank.size - blank.sum())))
        progress.advance((pos + cut) // _MIB - pos // _MIB)
        row, pos = row + blank.size, pos + cut
    if inner.count and not has_ids:
        raise renumbering_blank_lines(path, inner.first, inner.count)
    return blocks


class _InnerBlanks:
    """The blank lines that have a filled line after them (those at the end renumber nothing, as in memory):
    how many, and the first one's row."""

    def __init__(self):
        self.count, self.first = 0, None
        self._pending, self._first_pending = 0, None

    def add(self, blank, row):
        """The next lines, blank or not (bool (lines,)), the first of which is the file's row ``row``."""
        filled = np.flatnonzero(~blank)
        if filled.size == 0:
            self._pending += blank.size
            self._first_pending = row if self._first_pending is None else self._first_pending
            return
        before = np.flatnonzero(blank[:filled[-1]])
        if self._pending or before.size:
            self.first = self.first or (self._first_pending if self._pending else row + int(before[0]))
            self.count += self._pending + before.size
        after = np.flatnonzero(blank[filled[-1] + 1:])
        self._pending = after.size
        self._first_pending = row + int(filled[-1]) + 1 + int(after[0]) if after.size else None


def _window(fh, pos, size, block_bytes):
    """The bytes from ``pos`` (up to ``size``): ``block_bytes`` of them, more if they hold no row end, and their
    row ends."""
    want = max(int(block_bytes), 1)
    while True:
        fh.seek(pos)
        buf = fh.read(min(want, size - pos))
        ends = _row_ends(buf)
        if ends.size or pos + len(buf) >= size:
            return buf, ends
        want *= 2


def _row_ends(buf):
    """Offsets of the line feeds of ``buf`` that end a row, int (r,): those outside double quotes (``buf`` starts
    outside them, as the file and every block do)."""
    octets = np.frombuffer(buf, dtype=np.uint8)
    feeds = np.flatnonzero(octets == _LF)
    quotes = np.flatnonzero(octets == _QUOTE)
    if quotes.size == 0:
        return feeds
    return feeds[np.searchsorted(quotes, feeds) % 2 == 0]


def _check_block(block, at_end, path):
    octets = np.frombuffer(block, dtype=np.uint8)
    if at_end and np.count_nonzero(octets == _QUOTE) % 2:
        raise SpeInputError("an odd number of double quotes: a quoted value is not closed (the Dask engine reads a "
                            "CSV in blocks of whole rows; fix the quotes, or use --engine binned to have the row "
                            "named)", path=path)
    returns = np.count_nonzero(octets == _CR)
    if returns and returns != block.count(b"\r\n"):
        raise SpeInputError("line ends of a carriage return alone: the Dask engine reads a CSV whose rows end in "
                            "\\n or \\r\\n (convert the line ends, or use --engine binned)", path=path)


def _blank_lines(block, ends):
    """Whether each line of ``block`` is blank (only spaces, tabs, commas: every field empty), bool (lines,);
    ``ends``: its row ends (a last line without one, at the end of the rows, is a line too).

    Only the lines that begin with such a byte can be blank; they are looked at whole (about 5 ms per 8 MiB
    when none does, against 60 ms for a look at every byte)."""
    octets = np.frombuffer(block, dtype=np.uint8)
    ends = ends[ends < octets.size]
    stops = ends if (ends.size and ends[-1] == octets.size - 1) else np.append(ends, octets.size)
    starts = np.concatenate([[0], stops[:-1] + 1])
    blank = np.zeros(stops.size, dtype=bool)
    maybe = np.flatnonzero(_FILLED[octets[np.minimum(starts, octets.size - 1)]] == 0)
    if maybe.size > 1000:  # many lines begin with an empty field: count the filled bytes of every line
        filled = np.empty(octets.size + 1, dtype=np.int32)  # filled[i]: bytes before i that are not blank
        filled[0] = 0
        np.cumsum(_FILLED[octets], dtype=np.int32, out=filled[1:])
        return filled[stops] == filled[starts]
    for k in maybe.tolist():
        blank[k] = not block[starts[k]:stops[k]].translate(None, _BLANK_BYTES)
    return blank


def read_csv_block(path, header, block, score_columns=("score",), id_column="id", *, ids=True):
    """One block's score columns and ids, read as :func:`spe.io.read_score_bytes` reads a file.

    Parameters
    ----------
    path : str
    header : bytes
        :attr:`CsvLayout.header`.
    block : CsvBlock
    score_columns : sequence of str, length K
    id_column : str
    ids : bool
        False: the scores alone (ids None), for a block read before with its ids (the Dask engine's second pass).

    Returns
    -------
    (list of K arrays (rows,) float64 in score units, ids (rows,) str object array or None)

    Raises
    ------
    SpeInputError
        As the in-memory reader, naming the file's row; a block whose rows its bytes and its reader count
        differently (a line of quoted empty values, a double quote inside an unquoted value); a file that changed
        since it was cut.
    """
    from .io import read_score_bytes

    with open(path, "rb") as fh:
        fh.seek(block.start)
        data = fh.read(block.end - block.start)
    if len(data) != block.end - block.start:
        raise SpeInputError("the file changed while spe read it (it is shorter)", path=path)
    try:
        files = read_score_bytes(header + data, path, list(score_columns), id_column, ids=ids)
    except SpeInputError as e:
        raise _in_file(e, block) from None
    if files[0].scores.size != block.rows:  # the bytes and the reader count the rows differently
        raise SpeInputError("the rows of this block could not be counted from its bytes: the Dask engine reads a "
                            "CSV in blocks of whole rows, and a line of quoted empty values ('\"\",\"\"') or a "
                            "double quote inside an unquoted value (a\"b) hides where rows end; remove them, or "
                            "use --engine binned", path=path, row=block.first_row + _first_blank(data))
    return [f.scores for f in files], files[0].ids


def _in_file(error, block):
    """The reader's error about a block, with the row the file gives it."""
    if not error.row:
        return error
    return SpeInputError(error.message, path=error.path, row=error.row + block.first_row - 1, column=error.column,
                         argument=error.argument)


def _first_blank(data):
    """The 0-based row within ``data`` of its first row whose every field is empty or white space."""
    text = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace", newline="")
    for k, fields in enumerate(csv.reader(text)):
        if all(f.strip() == "" for f in fields):
            return k
    return 0


def estimated_rows(path, sample_bytes=1 << 20) -> int:
    """About how many data rows a CSV file has (for choosing an engine): its size in bytes over the mean length
    of the lines in its first ``sample_bytes`` bytes; its size when they hold no line feed, 0 when it cannot be
    read (nothing is raised)."""
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as fh:
            head = fh.read(sample_bytes)
    except OSError:
        return 0
    rows = head.count(b"\n")
    return size if rows == 0 else int(size * rows / max(len(head), 1))
