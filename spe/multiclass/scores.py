"""A multiclass classifier's scores and labels, read once.

The scores are an N × K matrix, one column per class: probabilities (every row in [0, 1] and summing to one,
within what rounding to the 2 to 4 decimals they are written with allows), logits, or per-class decision values.
Every model reads them as log-probabilities ``L`` (N, K), rows whose exponentials sum to one: the log of the
probabilities (floored at :data:`PROBABILITY_FLOOR`; for rounded probabilities the zeros share what the written
values leave of one; then renormalised), or the log-softmax of logits and decision values (which softmax reads as
logits). A matrix whose rows are all probabilities but for one or a few is refused, naming the first of those. The
labels are class indices 0..K−1, given as class names or as 0-based positions.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy import special

from ..exceptions import SpeInputError, plain
from ..inputs import LabelValueError, normalize_labels

__all__ = ["ClassScores", "class_scores", "score_matrix", "class_labels", "class_encoder", "is_multiclass",
           "class_reference", "reference_values", "second_class_score", "score_type_of", "PROBABILITY_FLOOR",
           "ROW_SUM_TOLERANCE", "SCORE_TYPES", "written_decimals", "probability_rows", "stray_row",
           "MAX_ROUNDED_DECIMALS", "STRAY_ROWS_SHARE"]

#: Probabilities below this are read as it before the log (a float32 softmax gives exact zeros).
PROBABILITY_FLOOR = 1e-12
#: Rows summing to one within this are probabilities (six significant digits in a CSV stay well inside it).
ROW_SUM_TOLERANCE = 1e-3
#: Probabilities all written to 2 to this many decimals are read as rounded: a row's sum may then miss one by up to
#: K halves of the last decimal's unit (K = 77 classes at 4 decimals: 0.00385; at 2 decimals 0.385).
MAX_ROUNDED_DECIMALS = 4
#: When the rows that are not probabilities number at most this share of the rows (or one), they are taken for
#: errors in the input.
STRAY_ROWS_SHARE = 0.01
#: How the scores were read: probabilities, or logits (decision values read as logits).
SCORE_TYPES = ("probabilities", "logits")


@dataclass(frozen=True)
class ClassScores:
    """N items' scores for K classes, as log-probabilities.

    Attributes
    ----------
    log_probs : array, shape (N, K)
        log p(class k | item i) as the classifier states it (rows log-sum-exp to 0).
    classes : tuple of str, length K
        The classes' names, in column order.
    score_type : {"probabilities", "logits"}
        How the scores were read.
    ids : array, shape (N,), or None
        The items' ids, when the scores carry them.
    reading_warnings : tuple of str
        What a user should know of how the scores were read (values in [0, 1] read as logits).
    """

    log_probs: np.ndarray
    classes: tuple
    score_type: str
    ids: np.ndarray | None = None
    reading_warnings: tuple = ()

    @property
    def n_items(self) -> int:
        return self.log_probs.shape[0]

    @property
    def n_classes(self) -> int:
        return self.log_probs.shape[1]

    @cached_property
    def predicted(self) -> np.ndarray:
        """The classifier's decision, the argmax class of each item (the first on ties), int (N,)."""
        return np.argmax(self.log_probs, axis=1)


def is_multiclass(scores) -> bool:
    """Whether ``scores`` are a multiclass matrix: a 2-D array with ≥ 2 columns, or a pandas DataFrame with no
    ``score`` column and ≥ 2 numeric columns besides ``id`` (a Dask DataFrame is not read as one)."""
    if hasattr(scores, "columns"):
        if not type(scores).__module__.startswith("pandas") or "score" in scores.columns:
            return False
        cols = [c for c in scores.columns if c != "id"]
        return len(cols) >= 2 and all(scores[c].dtype.kind in "biuf" for c in cols)
    return np.ndim(scores) == 2 and np.shape(scores)[1] >= 2


def class_scores(scores, classes=None, *, argument="scores") -> ClassScores:
    """Read an N × K score matrix.

    Parameters
    ----------
    scores : array-like (N, K) or pandas DataFrame
        One column per class. A DataFrame's columns other than ``id`` are the classes (its ``id`` column, when
        present, gives the items' ids; otherwise its index does, unless it is the default 0..N−1).
    classes : sequence of str, optional
        The classes' names (default: the DataFrame's column names, or ``"0"``…``"K-1"``).

    Returns
    -------
    ClassScores

    Raises
    ------
    SpeInputError
        Fewer than 2 classes or 4 items, a non-finite or non-numeric value (naming its row and class), class names
        that repeat or do not match the columns, a row that is not probabilities among rows that are
        (:func:`stray_row`).
    """
    values, names, ids, decimals = _checked_matrix(scores, classes, argument)
    log_probs, score_type = _log_probabilities(values, decimals)
    return ClassScores(log_probs, tuple(names), score_type, ids, _reading_warnings(values, score_type))


def score_matrix(scores, classes=None, *, argument="scores"):
    """The scores as given, checked: (values (N, K) float, class names (K,), ids (N,) or None), the reading of
    :func:`class_scores` before the log. Raises as it does."""
    return _checked_matrix(scores, classes, argument)[:3]


def _checked_matrix(scores, classes, argument):
    """:func:`score_matrix`'s (values, names, ids) and the decimals the values are written with
    (:func:`written_decimals`), found once."""
    values, names, ids = _matrix_of(scores, argument)
    if classes is not None:
        names = _checked_names(classes, values.shape[1], argument)
    decimals = written_decimals(values)
    stray = stray_row(values, decimals)
    if stray is not None:
        row, column, what = stray
        where = f"row {row}" + ("" if column is None else f", class {names[column]!r}")
        raise SpeInputError(f"{where}: {what}", argument=argument)
    return values, names, ids, decimals


def _matrix_of(scores, argument):
    if hasattr(scores, "columns"):
        frame = scores.set_index("id") if "id" in scores.columns else scores
        ids = None if _default_index(frame.index, len(frame)) else np.asarray(frame.index)
        names = [str(c) for c in frame.columns]
        values = _numeric(frame.to_numpy(), names, argument)
    else:
        try:
            values = np.asarray(scores, dtype=float)
        except (TypeError, ValueError):
            raise SpeInputError("multiclass scores must be numbers", argument=argument) from None
        if values.ndim != 2:
            raise SpeInputError(f"multiclass scores must be an (N, K) matrix; got shape {values.shape}",
                                argument=argument)
        names, ids = [str(k) for k in range(values.shape[1])], None
        _check_finite(values, names, argument)
    n, k = values.shape
    if k < 2 or n < 4:
        raise SpeInputError(f"need at least 2 classes and 4 items; got {n} items × {k} classes", argument=argument)
    if len(set(names)) != k:
        raise SpeInputError(f"class names must differ; got {names}", argument=argument)
    return values, names, ids


def _default_index(index, n):
    return index.dtype.kind in "iu" and np.array_equal(np.asarray(index), np.arange(n))


def _numeric(raw, names, argument):
    try:
        values = np.asarray(raw, dtype=float)
    except (TypeError, ValueError):
        for j, name in enumerate(names):
            try:
                np.asarray(raw[:, j], dtype=float)
            except (TypeError, ValueError):
                row = next(i for i, v in enumerate(raw[:, j]) if not _is_number(v))
                raise SpeInputError(f"row {row}, class {name!r}: {plain(raw[row, j])!r} is not a number",
                                    argument=argument) from None
        raise
    _check_finite(values, names, argument)
    return values


def _is_number(v):
    try:
        float(v)
        return True
    except (TypeError, ValueError):
        return False


def _check_finite(values, names, argument):
    bad = ~np.isfinite(values)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise SpeInputError(f"row {row}, class {names[col]!r}: {values[row, col]} is not a finite number",
                            argument=argument)


def _checked_names(classes, k, argument):
    names = [str(c) for c in classes]
    if len(names) != k:
        raise SpeInputError(f"{len(names)} class names for {k} score columns", argument=argument)
    return names


def score_type_of(values) -> str:
    """How an (N, K) score matrix is read: ``"probabilities"`` when every row is (:func:`probability_rows`), else
    ``"logits"`` (logits or per-class decision values)."""
    return "probabilities" if probability_rows(values).all() else "logits"


def written_decimals(values):
    """The fewest decimals, 2 to :data:`MAX_ROUNDED_DECIMALS`, that every value of ``values`` is written with (within
    1e-6, so float32 copies of them count), or None: more decimals, or none — whole numbers, such as 0/1
    decisions, are exact. The first 1,000 rows are tried before all of them."""
    values = np.asarray(values, dtype=float)
    if _multiples(values[:1000], 0) and _multiples(values, 0):
        return None
    for d in range(2, MAX_ROUNDED_DECIMALS + 1):
        if _multiples(values[:1000], d) and _multiples(values, d):
            return d
    return None


def _multiples(values, d):
    """Whether every value is within 1e-6 of a multiple of 10⁻ᵈ."""
    scaled = values * 10.0 ** d
    return bool(np.all(np.abs(scaled - np.rint(scaled)) <= 1e-6 * 10.0 ** d))


def probability_rows(values, decimals=None):
    """Which rows of an (N, K) matrix are probabilities, (N,) bool: every value in [0, 1] and the row summing to
    one within :data:`ROW_SUM_TOLERANCE`, or, for values written with d ≤ :data:`MAX_ROUNDED_DECIMALS` decimals
    (``decimals``, default :func:`written_decimals`), within what rounding allows (K/2 units of 10⁻ᵈ)."""
    d = written_decimals(values) if decimals is None else decimals
    k = values.shape[1]
    tolerance = ROW_SUM_TOLERANCE if d is None else max(ROW_SUM_TOLERANCE, 0.5 * k * 10.0 ** -d + 1e-9)
    in_unit = (values >= 0).all(axis=1) & (values <= 1).all(axis=1)
    return in_unit & (np.abs(values.sum(axis=1) - 1) <= tolerance)


def stray_row(values, decimals=None):
    """The first row that is not probabilities in a matrix whose other rows are, but for at most a share
    :data:`STRAY_ROWS_SHARE` of the rows (or one row) — an error in the input rather than logits — as (0-based
    row, 0-based column of a value outside [0, 1] or None, what is wrong); else None."""
    ok = probability_rows(values, decimals)
    if ok.all() or (~ok).sum() > max(1.0, STRAY_ROWS_SHARE * ok.size):
        return None
    row = int(np.flatnonzero(~ok)[0])
    outside = np.flatnonzero((values[row] < 0) | (values[row] > 1))
    column = int(outside[0]) if outside.size else None
    what = (f"{plain(values[row, column])} is outside [0, 1]" if column is not None
            else f"the row sums to {values[row].sum():.6g}, not one")
    return row, column, (f"{what}, while {int(ok.sum())} of {ok.size} rows are probabilities: correct it (the "
                         "scores are read as probabilities only when every row is), or give every row as logits")


def _log_probabilities(values, decimals=None):
    """(N, K) log-probabilities and the score type (:func:`score_type_of`): the log of the probabilities, or the
    log-softmax of logits. Probabilities are floored at :data:`PROBABILITY_FLOOR`; rounded ones' zeros share what
    the row's written values leave of one (each below half the last decimal's unit, as rounding says); then each
    row is renormalised."""
    d = written_decimals(values) if decimals is None else decimals
    if probability_rows(values, d).all():
        logp = np.log(np.maximum(values if d is None else _zeros_filled(values, d), PROBABILITY_FLOOR))
        return logp - special.logsumexp(logp, axis=1, keepdims=True), "probabilities"
    return special.log_softmax(values, axis=1), "logits"


def _zeros_filled(values, d):
    """Rounded probabilities (N, K) with each row's zeros set to an even share of what its other values leave of
    one, at most half a unit of the d-th decimal each (a value written as 0 is below it)."""
    zeros = values == 0
    left = np.clip(1.0 - values.sum(axis=1), 0.0, None)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.minimum(left / zeros.sum(axis=1), 0.5 * 10.0 ** -d)
    return np.where(zeros, np.nan_to_num(share)[:, None], values)


def _reading_warnings(values, score_type):
    """A warning when every value is in [0, 1] but the rows were read as logits (their sums are not one)."""
    if score_type != "logits" or values.min() < 0 or values.max() > 1:
        return ()
    sums = values.sum(axis=1)
    return (f"every score is in [0, 1] but the rows do not sum to one (their sums run from {sums.min():.4g} to "
            f"{sums.max():.4g}), so they were read as logits (decision values); if they are each class's "
            "probability (one-vs-rest), divide each row by its sum first",)


def class_encoder(classes):
    """values (n,) → class indices (n,): a value is a class name, or else an integer 0..K−1 (its position).

    Raises :class:`~spe.inputs.LabelValueError` at the first value that is neither."""
    names = {str(c): k for k, c in enumerate(classes)}

    def encode(values):
        out = np.empty(len(values), dtype=np.int64)
        for i, v in enumerate(np.asarray(values, dtype=object).tolist()):
            out[i] = _class_index(v, names, i)
        return out

    return encode


def _class_index(value, names, position):
    text = str(plain(value)).strip()
    if text in names:
        return names[text]
    try:
        number = float(text)
    except ValueError:
        number = None
    if number is not None and number.is_integer() and 0 <= number < len(names):
        return int(number)
    raise LabelValueError(f"a label must be one of the classes {list(names)} or its position 0..{len(names) - 1}",
                          position)


def class_labels(labels, scores: ClassScores):
    """The labeled items' positions (n,) and class indices (n,), sorted by position.

    ``labels`` takes every form :func:`spe.inputs.normalize_labels` reads (dict, Series, a DataFrame with
    ``id,label``, an (N,) array with NaN/None for unlabeled items, an (index, value) pair); a label is a class
    name or a 0-based class position.

    Raises
    ------
    SpeInputError
        A label that is no class (naming the item), positions outside 0..N−1, an item labeled twice.
    """
    return normalize_labels(labels, scores.n_items, scores.ids, encode=class_encoder(scores.classes))


def class_reference(reference, classes):
    """A labeled reference set for K classes → (log-probabilities (R, K), classes (R,)), read as the pool's scores
    are (:func:`class_scores`).

    Raises as :func:`reference_values`."""
    values, codes = reference_values(reference, classes)
    return _log_probabilities(values)[0], codes


def reference_values(reference, classes):
    """A labeled reference set for K classes as given → (scores (R, K), classes (R,)).

    Parameters
    ----------
    reference : pandas DataFrame or (scores, labels) pair
        A DataFrame holds one column per class (named as the pool's) and a ``label`` column (an ``id`` column is
        ignored); a pair holds an (R, K) matrix (columns in the pool's class order) and R labels. Every item is
        labeled: a class name or a 0-based class position.
    classes : sequence of str
        The pool's classes.

    Raises
    ------
    SpeInputError
        (argument ``reference``) Columns that are not the pool's classes, a missing label, a label that is no
        class (naming its row), bad scores (as :func:`class_scores`).
    """
    if hasattr(reference, "columns"):
        if "label" not in reference.columns:
            raise SpeInputError("a reference DataFrame needs a 'label' column", argument="reference")
        missing = [c for c in classes if c not in reference.columns]
        if missing:
            raise SpeInputError(f"no column for the class {missing[0]!r} (the pool's classes are {list(classes)})",
                                argument="reference")
        scores, labels = reference[list(classes)], reference["label"].to_numpy()
    else:
        try:
            scores, labels = reference
        except (TypeError, ValueError):
            raise SpeInputError("must be a DataFrame or a (scores, labels) pair", argument="reference") from None
    values, _, _ = score_matrix(np.asarray(scores, dtype=float) if not hasattr(scores, "columns")
                                else scores.to_numpy(), classes, argument="reference")
    labels = np.asarray(labels, dtype=object)
    if labels.shape != (values.shape[0],):
        raise SpeInputError(f"{labels.size} labels for {values.shape[0]} reference items", argument="reference")
    encode = class_encoder(classes)
    try:
        value = encode(labels)
    except LabelValueError as e:
        raise SpeInputError(f"row {e.position}: {e.message}; got {plain(labels[e.position])!r}",
                            argument="reference") from None
    return values, value


def second_class_score(values, score_type):
    """Two classes' scores (n, 2) as the second class's one score (n,): its probability as given, or the
    difference of the two logits (the log-odds; ``score_type`` "logits") — what a one-column file of that class
    would hold."""
    return values[:, 1] if score_type == "probabilities" else values[:, 1] - values[:, 0]
