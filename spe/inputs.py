"""What :func:`spe.evaluate` checks before any work, and its one policy for degenerate data.

Bad input (a value no estimate can be made from: non-finite scores, labels
other than 0/1, an option out of its range, more posterior draws than the
memory holds) raises :class:`~spe.exceptions.SpeInputError` naming the
argument, before any fitting. Degenerate but legal input gets an answer and
a warning that says what is degenerate and what the numbers then mean
(:func:`input_warnings`); it never fails:

* all scores equal — the classifier ranks nothing; the prevalence comes
  from the labels alone (:mod:`spe.models.constant`), the curves are flat;
* two distinct scores — one operating point; the curves join it to the ends;
* no labels, labels of one class only, every item labeled;
* labels that say the classifier ranks backwards (worse than random);
* scores outside what the stated score type allows (read as decision values).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np
from scipy import stats

from .exceptions import SpeInputError, SpeWarning, plain
from .shared_reference import SharedReference

__all__ = ["check_choice", "check_count", "check_level", "as_scores", "item_ids", "normalize_labels", "binary_labels",
           "is_missing", "encoded_labels", "LabelValueError", "LABEL_CONVENTIONS",
           "normalize_reference", "reference_warnings", "seed_of", "check_draws", "estimated_memory", "input_warnings",
           "labeled_auc", "scores_of_frame", "MIN_DRAWS", "BACKWARDS_P_VALUE", "MAX_ABS_SCORE"]

#: Fewest posterior draws: fewer make the 5% and 95% band edges rest on a handful of draws.
MIN_DRAWS = 100

#: One-sided Mann–Whitney p-value below which the labeled items are said to rank backwards.
BACKWARDS_P_VALUE = 0.01

#: Largest |score| accepted: beyond it, differences and squares of scores overflow double precision. Only
#: the scores' order and spacing matter to every model that reads scores this large (the log-odds reading
#: stops at ±745), so dividing them by a constant changes no estimate.
MAX_ABS_SCORE = 1e150


def as_scores(scores, *, argument="scores", min_items=4):
    """The scores as a read-only float array (N,), checked.

    ``argument`` names the argument in errors (``"reference"`` for a
    reference set's scores); ``min_items`` is the fewest scores accepted.

    Raises
    ------
    SpeInputError
        Not one-dimensional, not numbers, non-finite values, values beyond
        ±:data:`MAX_ABS_SCORE`, fewer than ``min_items`` scores.
    """
    try:
        s = np.array(scores, dtype=float, copy=True)
    except (TypeError, ValueError) as e:
        raise SpeInputError(f"must be numbers ({e})", argument=argument) from None
    if s.ndim != 1:
        raise SpeInputError(f"must be one-dimensional, got shape {s.shape}", argument=argument)
    bad = np.flatnonzero(~np.isfinite(s))
    if bad.size:
        raise SpeInputError(
            f"must be finite; scores[{bad[0]}] = {s[bad[0]]} ({bad.size} non-finite value(s) in all)",
            argument=argument)
    if s.size < min_items:
        raise SpeInputError(f"need at least {min_items} scores, got {s.size}", argument=argument)
    big = np.flatnonzero(np.abs(s) > MAX_ABS_SCORE)
    if big.size:
        raise SpeInputError(
            f"scores[{big[0]}] = {s[big[0]]:g}: scores beyond ±{MAX_ABS_SCORE:g} overflow the arithmetic on them; "
            "divide all scores by a constant (which changes no estimate)", argument=argument)
    s.flags.writeable = False
    return s


def item_ids(scores):
    """The items' ids when the scores carry them (a pandas Series or DataFrame whose index is not 0..N-1), else
    None: labels keyed by those ids are then matched to the items by id (:func:`normalize_labels`)."""
    if not _is_pandas(scores):
        return None
    ids = np.asarray(scores.index)
    return None if np.array_equal(ids, np.arange(ids.size)) else ids


def normalize_labels(labels, n_items, ids=None, pos_label=None, encode=None):
    """Normalise the ``labels`` argument to (index (n,), value (n,)) arrays.

    Parameters
    ----------
    labels : None, mapping, pandas Series, array or list of length N, or (index, value) pair
        * ``None`` or empty: no labels;
        * mapping ``{item: label}`` or a pandas Series indexed by item;
        * a pandas DataFrame with a ``label`` column (or one column besides ``id``), indexed by its ``id`` column
          if it has one (``pd.read_csv`` of LABELS.csv);
        * array or list of length N, one entry per score;
        * a pair ``(items (n,), values (n,))``.

        An item is its position 0..N-1, or, when the scores carry ids (``ids``), its id. A label is read by
        scikit-learn's conventions for binary labels (:func:`binary_labels`): 0/1, −1/1, True/False, or two
        values with ``pos_label``. NaN, None and pandas' NA mark an unlabeled item in every form (and so does
        leaving the item out); −1 never does.
    n_items : int
        N.
    ids : array, shape (N,), optional
        The items' ids (:func:`item_ids`). Keys that are all ids are read as ids; otherwise as positions, with
        a :class:`~spe.exceptions.SpeWarning` that the scores' index was not used.
    pos_label : scalar or None
        The label value of the positive class (needed for text labels such as ``"spam"``/``"ham"``).

    Returns
    -------
    index : int array, shape (n,), sorted
        Positions 0..N-1.
    value : int array, shape (n,)
        0 or 1.

    Raises
    ------
    SpeInputError
        Labels no convention reads (naming the item and the value: a third value, text without ``pos_label``,
        −1 beside 0), positions outside [0, N), duplicates, an array whose length is not N.
    """
    if labels is None:
        return np.zeros(0, dtype=int), np.zeros(0, dtype=int)
    labels = _column_of_frame(labels, "label", "labels")
    if _is_pandas(labels) and np.ndim(labels) == 1:  # a Series
        items, values = np.asarray(labels.index), labels.to_numpy()
    elif isinstance(labels, Mapping) or (isinstance(labels, tuple) and len(labels) == 2):
        keys, values = ((list(labels.keys()), list(labels.values())) if isinstance(labels, Mapping) else labels)
        items, values = np.asarray(keys), _as_values(values)
        if items.shape != values.shape or items.ndim != 1:
            raise SpeInputError("index and value must be one-dimensional and of equal length", argument="labels")
    else:
        values = _as_values(labels)
        if values.ndim != 1 or values.size != n_items:
            raise SpeInputError(
                f"labels given as an array must have one entry per score (N = {n_items}) with NaN or None for "
                f"unlabeled items; got shape {values.shape}. Use a dict {{item: label}} for a few labels.",
                argument="labels")
        items = np.arange(n_items)
    keep = ~is_missing(values)
    items, values = items[keep], values[keep]
    idx = _positions(items, ids)
    return _checked_labels(idx, encoded_labels(values, idx, pos_label, encode), n_items)


def _as_values(values):
    """Label values as an array: numbers stay numbers, anything else is kept as objects (text, None, bools
    beside numbers)."""
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError):
        arr = np.asarray(list(values), dtype=object)
    return arr.astype(object) if arr.dtype.kind in "USV" else arr


def encoded_labels(values, items, pos_label=None, encode=None):
    """:func:`binary_labels` (or ``encode``) of ``values`` (n,), its error naming the item (``items`` (n,):
    positions or ids) and the value as given: 0/1 int array (n,) (``encode``'s codes).

    Raises
    ------
    SpeInputError
        (argument ``labels``) As :func:`binary_labels`."""
    try:
        return binary_labels(values, pos_label) if encode is None else encode(values)
    except LabelValueError as e:
        k = e.position
        item, value = plain(items[k]), plain(values[k])
        raise SpeInputError(f"{e.message}; item {item!r} has label {value!r}", argument="labels") from None


def scores_of_frame(scores):
    """A pandas DataFrame of scores as the Series of its ``score`` column (or its one column), indexed by its
    ``id`` column when it has one (the layout of ``spe estimate``'s SCORES.csv: ``pd.read_csv`` of it can be
    passed as it is); anything else unchanged.

    Raises
    ------
    SpeInputError
        A DataFrame with neither a ``score`` column nor exactly one column besides ``id``.
    """
    return _column_of_frame(scores, "score", "scores")


def _column_of_frame(obj, column, argument):
    """``obj[column]`` of a DataFrame (or its one column besides ``id``), indexed by its ``id`` column if any; any
    other ``obj`` as it is."""
    if not (_is_pandas(obj) and np.ndim(obj) == 2):
        return obj
    columns = [str(c) for c in obj.columns]
    header = ", ".join(columns) or "no columns"
    if "id" in columns:
        obj = obj.set_index(obj.columns[columns.index("id")])
        columns.remove("id")
    if column in columns:
        return obj[obj.columns[columns.index(column)]]
    if len(columns) == 1:
        return obj[obj.columns[0]]
    raise SpeInputError(f"a DataFrame needs a {column!r} column (and optionally 'id'); it has: {header}",
                        argument=argument)


def _is_pandas(obj):
    """Whether ``obj`` is a pandas Series or DataFrame (it has an index and ``to_numpy``), without importing pandas."""
    return hasattr(obj, "index") and hasattr(obj, "to_numpy")


class LabelValueError(SpeInputError):
    """A label value :func:`binary_labels` cannot read as 0/1; ``position`` is the offending entry's (0-based),
    for a reader to name its row."""

    def __init__(self, message, position):
        super().__init__(message, argument="labels")
        self.position = position


#: The label conventions accepted, in the words of the messages.
LABEL_CONVENTIONS = "0/1, -1/1, True/False, or any two values with pos_label"


def is_missing(values):
    """Which entries of ``values`` (n,) mark an unlabeled item: NaN, None or pandas' NA/NaT → bool (n,)."""
    arr = np.asarray(values)
    if arr.dtype.kind in "fc":
        return np.isnan(arr)
    if arr.dtype.kind != "O":
        return np.zeros(arr.shape, dtype=bool)
    return np.array([_missing(v) for v in arr.tolist()], dtype=bool)


def _missing(v):
    if v is None:
        return True
    try:
        return bool(v != v)  # NaN, and pandas' NA/NaT (whose comparison raises or is NA)
    except (TypeError, ValueError):
        return True


def binary_labels(values, pos_label=None):
    """Labels as users hold them → 0/1 ints, by scikit-learn's conventions for binary labels.

    Parameters
    ----------
    values : array-like, shape (n,)
        The labels of labeled items (no missing entries: see :func:`is_missing`). Without ``pos_label``: 0/1
        (numbers or their text, ``"1.0"`` included), −1/1 (scikit-learn's ``{-1, 1}``: −1 is the negative
        class), or booleans (``True``/``False``, also as text in any case). With ``pos_label``: at most two
        distinct values, the items equal to ``pos_label`` positive (strings such as ``"spam"``/``"ham"``).
    pos_label : scalar or None
        The value of the positive class (``pos_label`` of :func:`sklearn.metrics.precision_recall_curve`).

    Returns
    -------
    int array, shape (n,)
        1 for the positive class, 0 for the negative.

    Raises
    ------
    LabelValueError
        A value no convention reads (a third value, 2, text without ``pos_label``), −1 beside 0 (−1/1 and
        0/1 mixed: −1 once marked unlabeled items; NaN does now), a ``pos_label`` that is neither of two
        values; ``position`` is the first offending entry's.
    """
    raw = np.asarray(values, dtype=object).ravel() if not _plain_numbers(values) else np.asarray(values).ravel()
    if raw.size == 0:
        return np.zeros(0, dtype=int)
    keys, codes = _factorized(raw)
    if pos_label is not None:
        return _by_pos_label(keys, codes, pos_label)
    return _by_convention(keys, codes)


def _plain_numbers(values):
    return isinstance(values, np.ndarray) and values.dtype.kind in "biuf"


def _factorized(raw):
    """Distinct canonical values of ``raw`` (n,) and each entry's index among them: numbers (bools and numeric
    text included) as floats, other text as stripped str."""
    if raw.dtype.kind in "biuf":
        keys, codes = np.unique(raw.astype(float), return_inverse=True)
        return [float(k) for k in keys], codes.ravel()
    canon, codes = {}, np.empty(raw.size, dtype=np.int64)
    for i, v in enumerate(raw.tolist()):
        codes[i] = canon.setdefault(_canonical(v), len(canon))
    return list(canon), codes


def _canonical(v):
    if isinstance(v, (bool, np.bool_)):
        return float(v)
    if isinstance(v, (int, float, np.integer, np.floating)):
        return float(v)
    text = str(v).strip()
    if text.lower() in ("true", "false"):
        return float(text.lower() == "true")
    try:
        return float(text)
    except ValueError:
        return text


def _by_convention(keys, codes):
    """0/1 or −1/1 (booleans are 0/1 already): ``keys`` the distinct values, ``codes`` (n,) each entry's."""
    known = set(keys)
    if known <= {0.0, 1.0}:
        return np.asarray(keys, dtype=int)[codes]
    if known <= {-1.0, 1.0}:
        return (np.asarray(keys) == 1.0).astype(int)[codes]
    if known <= {-1.0, 0.0, 1.0}:
        raise LabelValueError(
            "the values -1, 0 and 1 mix two conventions (-1/1 and 0/1); mark an unlabeled item with NaN or None "
            "(or leave it out), never with -1", _first(codes, keys.index(-1.0)))
    bad = next(k for k in keys if k not in (-1.0, 0.0, 1.0))
    if isinstance(bad, str):
        shown = ", ".join(repr(k) for k in keys[:3]) + (", ..." if len(keys) > 3 else "")
        raise LabelValueError(f"text labels ({shown}) need pos_label, the value of the positive class "
                              f"(--pos-label in the shell)", _first(codes, keys.index(bad)))
    raise LabelValueError(f"label {_shown(bad)} is not 0 or 1 (labels are {LABEL_CONVENTIONS})",
                          _first(codes, keys.index(bad)))


def _by_pos_label(keys, codes, pos_label):
    """At most two distinct values, those equal to ``pos_label`` positive."""
    positive = _canonical(pos_label)
    if len(keys) > 2:
        third = next(k for k in keys[2:])
        raise LabelValueError(f"{len(keys)} distinct values ({', '.join(_shown(k) for k in keys[:4])}"
                              f"{', ...' if len(keys) > 4 else ''}); a binary label takes two",
                              _first(codes, keys.index(third)))
    if len(keys) == 2 and positive not in keys:
        raise LabelValueError(f"pos_label {_shown(positive)} is neither of the labels' two values "
                              f"({_shown(keys[0])}, {_shown(keys[1])})", 0)
    return (np.array([k == positive for k in keys], dtype=int))[codes]


def _first(codes, k):
    return int(np.flatnonzero(codes == k)[0])


def _shown(key):
    """A label value as a user wrote it: 1 not 1.0, text quoted."""
    if isinstance(key, float) and key.is_integer():
        return str(int(key))
    return repr(key) if isinstance(key, str) else f"{key:g}"


def _positions(keys, ids):
    """Label keys as positions: through the items' ids when the scores carry ids and every key is one."""
    if ids is None or keys.size == 0:
        return keys
    where = {k: i for i, k in enumerate(ids.tolist())}
    found = [where.get(k) for k in keys.tolist()]
    if all(i is not None for i in found):
        return np.array(found, dtype=np.int64)
    missing = next(k for k, i in zip(keys.tolist(), found) if i is None)
    warnings.warn(SpeWarning(f"the scores' index is not used: label key {plain(missing)!r} is not one of its ids, so the "
                             "keys are read as positions 0..N-1"), stacklevel=4)
    return keys


def _checked_labels(idx, val, n_items):
    """(positions, 0/1 labels) checked and sorted: integer positions in [0, N), no item twice."""
    idx, val = np.asarray(idx), np.asarray(val)
    if idx.size == 0 and val.size == 0:
        return np.zeros(0, dtype=int), np.zeros(0, dtype=int)
    if idx.shape != val.shape or idx.ndim != 1:
        raise SpeInputError("index and value must be one-dimensional and of equal length", argument="labels")
    try:
        idx_float = idx.astype(float)
        idx_int = idx.astype(np.int64)
    except (TypeError, ValueError, OverflowError):
        raise SpeInputError(f"item positions must be integers, got {idx[:3]!r}...", argument="labels") from None
    if not np.array_equal(idx_int, idx_float):
        raise SpeInputError("item positions must be integers", argument="labels")
    out = (idx_int < 0) | (idx_int >= n_items)
    if out.any():
        raise SpeInputError(f"item position {idx_int[out][0]} is outside 0..{n_items - 1}", argument="labels")
    val_f = np.asarray(val, dtype=int)
    order = np.argsort(idx_int, kind="stable")
    idx_int, val_i = idx_int[order], val_f[order].astype(int)
    dup = np.flatnonzero(np.diff(idx_int) == 0)
    if dup.size:
        raise SpeInputError(f"item {idx_int[dup[0]]} is labeled twice", argument="labels")
    return idx_int, val_i


def normalize_reference(reference, pos_label=None):
    """Normalise the ``reference`` argument (a labeled reference set) to (scores (R,), labels (R,)) arrays.

    Parameters
    ----------
    reference : None, (scores, labels) pair, mapping or DataFrame
        * ``None``: no reference set;
        * a pair ``(scores (R,), labels (R,))``;
        * a mapping or DataFrame with ``"score"`` and ``"label"`` entries
          (columns). Scores in the classifier's score units, labels 0/1,
          every item labeled, read as :func:`binary_labels` reads them (``pos_label``);
        * a :class:`~spe.shared_reference.SharedReference` (already normalised), returned as it is.

    Returns
    -------
    None, or (scores, labels) : float array (R,) (read-only copy), int array (R,)

    Raises
    ------
    SpeInputError
        (argument ``reference``) Not one of those forms, scores that
        :func:`as_scores` refuses (fewer than 2), scores and labels of
        different lengths, labels other than 0/1 (NaN
        included: a reference labels every item), fewer than one item of
        either class (a reference without both classes says nothing about
        the calibration map).
    """
    if reference is None or isinstance(reference, SharedReference):
        return reference  # a SharedReference was normalised when it was made
    if isinstance(reference, tuple) and len(reference) == 2:
        scores, labels = reference
    elif hasattr(reference, "__getitem__") and not isinstance(reference, (str, bytes, np.ndarray, list, tuple)):
        try:
            scores, labels = reference["score"], reference["label"]
        except (KeyError, IndexError, TypeError, ValueError):
            raise SpeInputError("a mapping or DataFrame needs 'score' and 'label' entries", argument="reference") \
                from None
    else:
        raise SpeInputError(f"must be a pair (scores, labels), or a mapping or DataFrame with 'score' and 'label', "
                            f"got {type(reference).__name__}", argument="reference")
    s = as_scores(scores, argument="reference", min_items=2)  # the pool's checks: the same classifier's scores
    raw = _as_values(labels)
    if s.shape != raw.shape:
        raise SpeInputError(f"scores and labels must be one-dimensional and of equal length, got shapes {s.shape} "
                            f"and {raw.shape}", argument="reference")
    missing = np.flatnonzero(is_missing(raw))
    if missing.size:
        raise SpeInputError(f"every reference item is labeled; label {missing[0]} is missing", argument="reference")
    try:
        y = binary_labels(raw, pos_label)
    except LabelValueError as e:
        raise SpeInputError(f"{e.message}; label {e.position} is {plain(raw[e.position])!r}",
                            argument="reference") from None
    if not (np.any(y == 1) and np.any(y == 0)):
        raise SpeInputError(f"needs items of both classes to inform the calibration map; its {y.size} labels are "
                            f"all {int(y[0])}", argument="reference")
    return s, y


def seed_of(rng):
    """The seed a run uses, so that ``rng=seed`` repeats it exactly: a non-negative int.

    ``None`` draws a seed below 2³² from the operating system's entropy
    (numpy's ``SeedSequence``; short enough to type, exact in JSON
    readers that hold numbers as doubles); an int is itself; a
    ``numpy.random.Generator`` gives an int below 2³² drawn from it (so the
    same generator state gives the same seed).

    Raises
    ------
    SpeInputError
        A negative int, or anything else.
    """
    if rng is None:
        return int(np.random.SeedSequence().generate_state(1, np.uint32)[0])
    if isinstance(rng, np.random.Generator):
        return int(rng.integers(2**32))
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool) and rng >= 0:
        return int(rng)
    raise SpeInputError(f"must be None, a non-negative integer seed or a numpy Generator, got {plain(rng)!r}",
                        argument="rng")


def estimated_memory(n_items, n_distinct, draws):
    """Peak memory of :func:`spe.evaluate` and its JSON, in bytes, for N items and M draws.

    Measured on this project's speed benchmark (peak RSS, N = 900 to 10⁷,
    M = 1,000 to 16,000): about 250 MB of imports and fixed work, about
    200 bytes per item, and per draw about 16 doubles per threshold (the
    per-draw confusion counts and rates at T ≤ 1,000 thresholds) plus the
    grids; within 10% of the measured peaks.
    """
    from .performance.groups import MAX_THRESHOLDS

    thresholds = min(int(n_distinct), MAX_THRESHOLDS)
    return 250e6 + 200 * int(n_items) + 8 * int(draws) * (16 * thresholds + 400)


def available_memory():
    """Bytes of memory available to this process without swapping (psutil), or None if unknown."""
    try:
        import psutil

        return int(psutil.virtual_memory().available)
    except Exception:  # noqa: BLE001 - no psutil or no reading: the check is skipped
        return None


def check_draws(draws, n_items, n_distinct):
    """``draws`` as an int, checked against :data:`MIN_DRAWS` and the available memory.

    Raises
    ------
    SpeInputError
        Not an integer, fewer than :data:`MIN_DRAWS`, or more than the
        memory available holds (with the estimate and the largest M that
        fits).
    """
    try:
        ok = not isinstance(draws, bool) and int(draws) == draws
    except (TypeError, ValueError, OverflowError):
        ok = False
    if not ok or draws < MIN_DRAWS:
        raise SpeInputError(f"must be an integer ≥ {MIN_DRAWS}, got {plain(draws)!r}", argument="draws")
    draws = int(draws)
    need, have = estimated_memory(n_items, n_distinct, draws), available_memory()
    if have is not None and need > have:
        per_draw = estimated_memory(n_items, n_distinct, 1) - estimated_memory(n_items, n_distinct, 0)
        fits = int((have - estimated_memory(n_items, n_distinct, 0)) // per_draw)
        hint = (f"use at most about {fits:,} draws" if fits >= MIN_DRAWS else
                f"even {MIN_DRAWS} draws would not fit: free some memory")
        raise SpeInputError(
            f"{draws:,} posterior draws of {n_items:,} items would need about {_gigabytes(need)} of memory and "
            f"{_gigabytes(have)} is available; {hint}", argument="draws")
    return draws


def _gigabytes(n):
    return f"{n / 1e9:,.1f} GB" if n < 1e15 else f"{n:.1e} bytes"


def input_warnings(scores, index, value, n_distinct, counts=None, reference=False):
    """The warnings of the degenerate-data policy for these scores and labels (see the module docstring).

    Parameters
    ----------
    scores : array, shape (N,)
    index, value : int arrays, shape (n,)
        The labeled items and their labels.
    n_distinct : int
        Distinct scores among the N (with ``counts``, an upper bound).
    counts : int array, shape (N,), optional
        ``scores`` are a :class:`spe.pool.ScorePool`'s values, each standing for this many items.
    reference : bool
        A labeled reference set is given: no pool labels, or labels of one class, are then normal (the reference
        locates the classes; :mod:`spe.models.anchor`), and nothing is said of them.

    Returns
    -------
    list of str
        Each says what is degenerate and what the numbers then mean.
    """
    out = []
    n_pos, n_neg = int(np.sum(value == 1)), int(np.sum(value == 0))
    n_items = scores.size if counts is None else int(np.sum(counts))
    out += _label_warnings(n_items, index.size, n_pos, n_neg, reference)
    out += _tie_warnings(scores, n_distinct, n_items)
    if n_pos and n_neg and n_distinct > 1:
        pos_s, neg_s = scores[index[value == 1]], scores[index[value == 0]]
        out += _ranking_warnings(pos_s, neg_s)
    return out


def _label_warnings(n_items, n_labeled, n_pos, n_neg, reference=False):
    if reference and n_labeled < n_items:
        return []
    if n_labeled == 0:
        return ["no labeled items: nothing checks the score models, so the estimate rests on their assumptions "
                "alone (the mixture's families, which component is positive decided by the larger mean score; the "
                "recalibrations' priors) and all get equal weight; label a few items at random to check them"]
    out = []
    if n_pos == 0 or n_neg == 0:
        which = "positive" if n_pos == 0 else "negative"
        out.append(f"no labeled {which} items among {n_labeled}: the {which} class is located by the mixture "
                   "model alone; the bands may be too narrow if the model is wrong")
    if n_labeled == n_items:
        out.append(f"every one of the {n_items:,} items is labeled: the numbers are the known performance on "
                   "these items, not an estimate (the intervals have no width)")
    return out


def _tie_warnings(scores, n_distinct, n_items):
    if n_distinct == 1:
        return [f"all {n_items:,} scores are equal ({scores[0]:g}): the classifier ranks nothing, so no score "
                "model can be fitted; the prevalence is estimated from the labeled items alone (a Beta posterior), "
                "the only threshold predicts every item positive (precision = prevalence, recall 1), and ROC AUC "
                "is 0.5 by construction"]
    if n_distinct == 2:
        return [f"the scores take only two values ({np.min(scores):g} and {np.max(scores):g}; a hard 0/1 "
                "classifier?): it has a single operating point, so the PR and ROC curves join that point to the "
                "ends and average precision and ROC AUC describe that one point; the class-conditional densities "
                "of the SPE mixture cannot be told from spikes there"]
    if n_distinct < 0.5 * n_items:
        return [f"scores are heavily tied ({n_distinct} distinct values among {n_items} items, e.g. a random "
                "forest or k-NN): continuous class-conditional densities fit such scores poorly; read the bands "
                "with care"]
    return []


def labeled_auc(positive_scores, negative_scores):
    """ROC AUC of the labeled items alone (ties count one half): the Mann–Whitney U over n₊·n₋, in [0, 1]."""
    pos, neg = np.asarray(positive_scores, dtype=float), np.asarray(negative_scores, dtype=float)
    return float(stats.mannwhitneyu(pos, neg).statistic / (pos.size * neg.size))


def _ranking_warnings(pos_s, neg_s):
    out = []
    if pos_s.min() > neg_s.max():
        out.append("the labeled items are perfectly separated by the score: the curve near the boundary between "
                   "the classes rests on the score models (and on the reference set, if one is given), not on "
                   "these labels; more labels near the boundary would test it")
    test = stats.mannwhitneyu(pos_s, neg_s, alternative="less")
    if test.pvalue < BACKWARDS_P_VALUE:
        auc = labeled_auc(pos_s, neg_s)
        out.append(
            f"the labeled items say the classifier ranks backwards: its labeled positives score lower than its "
            f"labeled negatives (ROC AUC of the labeled items {auc:.2f}; one-sided Mann-Whitney p = "
            f"{test.pvalue:.2g}); every score model here assumes a higher score means more likely positive, so the "
            f"estimates describe the classifier as if it ranked sensibly and are wrong if it does not: if the score "
            f"is for the negative class (or a distance), negate it")
    return out


def reference_warnings(pool_type, reference_type, reference):
    """What makes a labeled reference set suspect for this pool: list of str.

    Parameters
    ----------
    pool_type, reference_type : str
        How the pool's and the reference's scores read ("probability", "log-odds", "decision";
        :func:`spe.models.mixture.resolve_score_type`): a reference must be the same classifier's scores in the
        same units.
    reference : (scores (R,), labels (R,))
        As :func:`normalize_reference` returns it.

    Returns
    -------
    list of str
        A score type that differs from the pool's; reference labels that say the classifier ranks backwards
        (one-sided Mann–Whitney p < :data:`BACKWARDS_P_VALUE`: labels flipped, or a score for the other class).
    """
    out = []
    if pool_type != reference_type:
        out.append(f"the reference set's scores read as {reference_type} but the pool's as {pool_type}: a reference "
                   "must be the same classifier's scores in the same units (probabilities beside probabilities), "
                   "else its calibration map means nothing here")
    s, y = reference
    pos_s, neg_s = s[y == 1], s[y == 0]
    if pos_s.size and neg_s.size and stats.mannwhitneyu(pos_s, neg_s, alternative="less").pvalue < BACKWARDS_P_VALUE:
        out.append(f"the reference set's labels say the classifier ranks backwards (their ROC AUC "
                   f"{labeled_auc(pos_s, neg_s):.2f}): are its labels flipped, or its scores for the other class?")
    return out


def check_level(level):
    """The credible level, a float in (0, 1) (e.g. 0.9 for a 90% band).

    Raises
    ------
    SpeInputError
        If it is not a number in (0, 1) (argument ``level``).
    """
    try:
        ok = 0 < level < 1
    except TypeError:
        ok = False
    if not ok:
        raise SpeInputError(f"must be in (0, 1), got {plain(level)!r}", argument="level")
    return float(level)


def check_choice(name, value, choices):
    """``value`` if it is one of ``choices`` (strings).

    Raises
    ------
    SpeInputError
        Naming the argument ``name`` and the choices, if it is not.
    """
    if not isinstance(value, str) or value not in choices:
        raise SpeInputError(f"must be one of {', '.join(map(repr, choices))}, got {plain(value)!r}", argument=name)
    return value


def check_count(name, value, most, least=1, of="unlabeled items"):
    """``value`` as an int if it is an integer (not a bool) in [least, most] (``most`` may be ``inf``).

    Raises
    ------
    SpeInputError
        Naming the argument ``name``: "must be an integer from LEAST to the MOST <of>" (or "LEAST or more").
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not least <= value <= most:
        bound = f" to the {most} {of}" if np.isfinite(most) else " or more"
        raise SpeInputError(f"must be an integer from {least}{bound}, got {plain(value)!r}", argument=name)
    return int(value)
