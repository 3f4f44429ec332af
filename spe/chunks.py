"""Chunks and slices of a pool: which items each estimate of :func:`spe.monitor` covers.

A **chunk** is a part of the data in time or in file order: consecutive rows (``size`` items each, or ``number``
parts), the items sharing a value of a column (a week, a batch id), or the items whose timestamp falls in one
calendar period (a day, week, month, quarter or year, as pandas' periods). A **slice** is the items sharing the
values of one or more columns (a sex, a region, a device). Chunks follow the data's order (rows) or their keys'
(columns, periods); slices their keys' sorted order. Every item is in exactly one chunk (or slice).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .exceptions import SpeInputError

__all__ = ["Chunk", "chunks_by_size", "chunks_by_number", "chunks_by_value", "chunks_by_period", "slices_by",
           "check_chunking", "chunks_asked",
           "PERIODS", "item_keys", "period_keys", "slice_keys", "chunk_starts", "rows_key", "groups"]

#: Calendar periods of ``chunks_by_period`` (pandas' period aliases): day, week, month, quarter, year.
PERIODS = ("D", "W", "M", "Q", "Y")


@dataclass(frozen=True)
class Chunk:
    """The items of one chunk or slice.

    Attributes
    ----------
    key : str
        Its name: ``"rows 0-9999"``, a column's value, a period (``"2015-03"``), or a slice's values
        (``"sex=F, region=north"``).
    index : int array, shape (n_k,)
        The items' 0-based positions in the pool, ascending.
    start, end : int or None
        For consecutive rows: the first row and one past the last (0-based data rows); else None.
    """

    key: str
    index: np.ndarray
    start: int | None = None
    end: int | None = None

    @property
    def n_items(self) -> int:
        return int(self.index.size)

    def items(self, scores, index, value):
        """This chunk's part of the pool: its scores (n_k,), its labels as (positions in the chunk (h,), 0/1
        (h,)) and h, from the pool's scores (N,) and labels (positions (n,), 0/1 (n,))."""
        inside = np.isin(index, self.index)
        return scores[self.index], (np.searchsorted(self.index, index[inside]), value[inside]), int(inside.sum())


def rows_key(start, end):
    """The name of the chunk of rows ``start`` to ``end`` − 1 (0-based): ``"rows 0-9999"``."""
    return f"rows {start}-{end - 1}"


def _rows(starts, n):
    """Chunks of consecutive rows starting at ``starts`` (ascending, the first 0) of n items."""
    ends = [*starts[1:], n]
    return [Chunk(rows_key(a, b), np.arange(a, b), int(a), int(b)) for a, b in zip(starts, ends)]


def chunk_starts(n, size=None, number=None):
    """The first rows (0-based, ascending, the first 0) of the consecutive chunks of n items: of ``size`` items
    each (the last one shorter when ``size`` does not divide n), or ``number`` chunks whose sizes differ by at
    most one (``numpy.array_split``'s). Without either, one chunk.

    Raises
    ------
    SpeInputError
        ``size`` below 1; ``number`` below 1 or above n.
    """
    if size is not None:
        size = int(size)
        if size < 1:
            raise SpeInputError(f"must be at least 1, got {size}", argument="chunk_size")
        return list(range(0, n, size))
    if number is None:
        return [0]
    number = int(number)
    if not 1 <= number <= n:
        raise SpeInputError(f"must be between 1 and the {n} items, got {number}", argument="chunk_number")
    base, extra = divmod(n, number)  # array_split's sizes: the first `extra` chunks one longer
    return [k * base + min(k, extra) for k in range(number)]


def chunks_by_size(n, size):
    """Consecutive chunks of ``size`` items of n (the last one shorter when ``size`` does not divide n).

    Raises
    ------
    SpeInputError
        ``size`` below 1.
    """
    return _rows(chunk_starts(n, size=size), n)


def chunks_by_number(n, number):
    """``number`` consecutive chunks of n items whose sizes differ by at most one (``numpy.array_split``'s).

    Raises
    ------
    SpeInputError
        ``number`` below 1 or above n.
    """
    return _rows(chunk_starts(n, number=number), n)


def chunks_by_value(values, argument="chunk_column"):
    """One chunk per distinct value of ``values`` (N,), in the order of the values' first appearance (the data's
    order, as time goes).

    Raises
    ------
    SpeInputError
        A missing value (NaN, None): it would belong to no chunk.
    """
    distinct, first, members = groups(item_keys(values, argument))
    return [Chunk(str(distinct[g]), members[g]) for g in np.argsort(first, kind="stable")]


def chunks_by_period(timestamps, period):
    """One chunk per calendar ``period`` (one of :data:`PERIODS`) that holds items, in time order.

    Parameters
    ----------
    timestamps : array-like, shape (N,)
        Dates or times (anything ``pandas.to_datetime`` reads).
    period : {"D", "W", "M", "Q", "Y"}

    Raises
    ------
    SpeInputError
        As :func:`period_keys`.
    """
    distinct, _, members = groups(period_keys(timestamps, period))
    return [Chunk(str(p), m) for p, m in zip(distinct, members)]  # the periods sort in time order


def period_keys(timestamps, period):
    """Each item's calendar period (N,): pandas ``Period`` objects of one frequency, which sort in time order.

    Raises
    ------
    SpeInputError
        An unknown period, or a timestamp pandas cannot read (naming the first by its 0-based item).
    """
    import pandas as pd

    if period not in PERIODS:
        raise SpeInputError(f"must be one of {', '.join(PERIODS)}, got {period!r}", argument="chunk_period")
    values = pd.Series(np.asarray(timestamps, dtype=object))
    when = pd.to_datetime(values, errors="coerce")
    bad = np.flatnonzero(when.isna().to_numpy())
    if bad.size:
        raise SpeInputError(f"item {bad[0]} has the timestamp {values.iloc[bad[0]]!r}, which is not a date "
                            f"({bad.size} such in all)", argument="timestamp_column")
    if when.dt.tz is not None:
        when = when.dt.tz_localize(None)
    return when.dt.to_period(period).to_numpy()


def slices_by(columns):
    """One slice per combination of values of ``columns`` ({name: values (N,)}) that holds items, in the sorted
    order of the combinations; its key is ``"name=value, ..."``.

    Raises
    ------
    SpeInputError
        As :func:`slice_keys`.
    """
    distinct, _, members = groups(slice_keys(columns))
    return [Chunk(str(k), m) for k, m in zip(distinct, members)]


def slice_keys(columns):
    """Each item's slice key (N,), ``"name=value, ..."`` over ``columns`` ({name: values (N,)}).

    Raises
    ------
    SpeInputError
        No column, or a missing value (NaN, None) in one (naming its 0-based item).
    """
    if not columns:
        raise SpeInputError("name at least one column to slice by", argument="by")
    keys = [item_keys(values, "by") for values in columns.values()]
    return np.array([", ".join(f"{name}={k}" for name, k in zip(columns, row)) for row in zip(*keys)])


def groups(keys):
    """The distinct values of ``keys`` (N,), sorted (D,); each one's first position (D,); and each one's positions,
    ascending (D int arrays) — in O(N log N), not one pass over the N items per value."""
    distinct, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    members = np.split(order, np.cumsum(np.bincount(inverse, minlength=distinct.size))[:-1])
    return distinct, first, members


def item_keys(values, argument):
    """The values (N,) as strings (N,) (integers as integers, '3' not '3.0'); a missing one (NaN, None) is refused,
    naming its 0-based item and ``argument``."""
    v = np.asarray(values, dtype=object)
    missing = np.array([x is None or (isinstance(x, float) and np.isnan(x)) for x in v], dtype=bool)
    if missing.any():
        i = int(np.flatnonzero(missing)[0])
        raise SpeInputError(f"item {i} has no value ({int(missing.sum())} such in all): every item needs one",
                            argument=argument)
    return np.array([str(int(x)) if isinstance(x, (float, np.floating)) and float(x).is_integer() else str(x)
                     for x in v])


def check_chunking(size, number, column, period, timestamp):
    """At most one way of chunking, and a calendar period with its timestamps' column.

    Raises
    ------
    SpeInputError
        Two ways at once, or ``period`` without ``timestamp``."""
    asked = [k for k, v in (("chunk_size", size), ("chunk_number", number), ("chunk_column", column),
                            ("chunk_period", period)) if v is not None]
    if len(asked) > 1:
        raise SpeInputError(f"give one way of chunking, got {' and '.join(asked)}", argument=asked[1])
    if period is not None and timestamp is None:
        raise SpeInputError("a calendar period needs the column of the items' times (timestamp_column, "
                            "--timestamp-column)", argument="chunk_period")


def chunks_asked(n, columns, size=None, number=None, column=None, period=None, timestamp=None):
    """The chunks of n items asked for by one of the four ways (``columns``: name → values (N,) of the named
    columns), or [] for none; raises as :func:`check_chunking` and the chunkings do."""
    check_chunking(size, number, column, period, timestamp)
    if size is not None:
        return chunks_by_size(n, size)
    if number is not None:
        return chunks_by_number(n, number)
    if column is not None:
        return chunks_by_value(columns[column])
    if period is not None:
        return chunks_by_period(columns[timestamp], period)
    return []
