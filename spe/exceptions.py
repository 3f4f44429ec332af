"""The errors and warnings of ``spe``.

One input-error type (a ``ValueError`` subclass) that names the file, row and
column of the offending value, and warning classes for degenerate but legal
input and for weak inference.
"""

from __future__ import annotations


class SpeInputError(ValueError):
    """Bad input: names the argument or file, the row and the column.

    Parameters
    ----------
    message : str
        What is wrong and, where it helps, what to do instead.
    path : str, optional
        The file the bad value came from.
    row : int, optional
        1-based data row in that file (the header is row 0).
    column : str, optional
        The column name.
    """

    def __init__(self, message, *, path=None, row=None, column=None):
        self.path = path
        self.row = row
        self.column = column
        where = []
        if path is not None:
            where.append(str(path))
        if row is not None:
            where.append(f"row {row}")
        if column is not None:
            where.append(f"column '{column}'")
        text = f"{', '.join(where)}: {message}" if where else message
        super().__init__(text)


class SpeWarning(UserWarning):
    """Degenerate but legal input, or a fit to read with care."""


class ImportanceSamplingWarning(SpeWarning):
    """The importance weights are degenerate (high Pareto k̂ or low ESS)."""
