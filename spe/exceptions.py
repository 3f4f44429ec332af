"""The errors and warnings of ``spe``.

One input-error type (a ``ValueError`` subclass) that names the argument, or
the file, row and column, of the offending value, and warning classes for
degenerate but legal input and for weak inference.
"""

from __future__ import annotations

import contextlib
import warnings


def plain(value):
    """``value`` as a message should show it: a numpy scalar as the Python number or string it holds (its repr
    is ``-1``, not ``np.int64(-1)``; ``'a'``, not ``np.str_('a')``); anything else as it is. Messages format
    a user's value with ``{plain(value)!r}`` wherever a numpy scalar may arrive."""
    if type(value).__module__ == "numpy" and getattr(value, "ndim", None) == 0 and hasattr(value, "item"):
        return value.item()
    return value


class SpeInputError(ValueError):
    """Bad input: names the argument, or the file, the row and the column.

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
    argument : str, optional
        The Python argument the bad value was passed as (e.g. ``"draws"``);
        the command line names the matching option (``--draws``).

    Attributes
    ----------
    message : str
        The message without the location.
    """

    def __init__(self, message, *, path=None, row=None, column=None, argument=None):
        self.message = message
        self.path = path
        self.row = row
        self.column = column
        self.argument = argument
        super().__init__(self.located(argument))

    def located(self, argument_name=None):
        """The message prefixed by where the bad value is: ``argument_name`` (for an argument) or the file,
        row and column."""
        where = []
        if self.path is not None:
            where.append(str(self.path))
        if self.row is not None:
            where.append(f"row {self.row}")
        if self.column is not None:
            where.append(f"column '{self.column}'")
        if self.argument is not None and argument_name:
            where.insert(0, argument_name)
        return f"{', '.join(where)}: {self.message}" if where else self.message


class NotSavedError(SpeInputError):
    """A query that a result read back from its JSON (:func:`spe.load`) cannot answer, because what it needs is
    not in the file: the posterior draws (never saved: another credible level, a metric at a threshold, the
    threshold choice, the items to label next, ArviZ) or the items (saved only by ``save(path, items=True)``).

    A ``SpeInputError`` (so a ``ValueError``) whose message names the query, what it needs and how to keep it:
    keep the live :class:`~spe.evaluation.Evaluation` or :class:`~spe.comparison.Comparison` (``pickle``
    keeps the draws), or save the answer itself when the result is made.

    Attributes
    ----------
    query : str
        The query refused, e.g. ``"best_threshold"``.
    """

    def __init__(self, query, message, *, path=None, argument=None):
        self.query = query
        super().__init__(message, path=path, argument=argument)


class MixtureFitError(RuntimeError):
    """The SPE mixture could not be fitted to these scores (no family pair reached an identified optimum).

    Not bad input: :func:`spe.evaluate` leaves the mixture out, with a
    warning, and the other score models carry the estimate.
    """


class SpeWarning(UserWarning):
    """Degenerate but legal input, or a fit to read with care."""


class ImportanceSamplingWarning(SpeWarning):
    """The importance weights are degenerate (high Pareto k̂ or low ESS)."""


class Notice(str):
    """A warning for the user, kept on the result and emitted once: its text (a ``str``, as the JSON's
    ``"warnings"`` holds it), the warning class it is emitted as, and the part of ``spe`` it comes from.

    Attributes
    ----------
    category : type
        A :class:`SpeWarning` subclass (e.g. :class:`ImportanceSamplingWarning`).
    source : str
        Where it comes from: ``"input"``, ``"mixture"``, a score model's name, …
    """

    def __new__(cls, message, category=SpeWarning, source="spe"):
        notice = super().__new__(cls, message)
        notice.category, notice.source = category, source
        return notice

    def __reduce__(self):
        return Notice, (str(self), self.category, self.source)

    def emit(self, stacklevel=2):
        """``warnings.warn`` it once, as its category."""
        warnings.warn(str(self), self.category, stacklevel=stacklevel + 1)


@contextlib.contextmanager
def collected_notices(source):
    """Within the block, ``spe``'s warnings (:class:`SpeWarning`) are kept as :class:`Notice` objects (their
    ``source`` given) in the list the block receives, instead of being shown; other warnings are shown as usual."""
    into = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield into
    for w in caught:
        if issubclass(w.category, SpeWarning):
            into.append(Notice(str(w.message), w.category, source))
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)
