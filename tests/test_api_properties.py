"""Property-based bad-input suite of the Python entry points (Hypothesis): ``spe.evaluate``, ``spe.compare``,
``Evaluation.suggest`` and ``spe.load`` given what notebook users type — lists, arrays of any shape, pandas
Series with ids, labels in any convention, NaN, strings, JSON files with a field missing or wrong, multiclass
matrices of any shape with class names, positions or strangers as labels.

Each call either answers (and then the labels it read are the ones meant) or raises the documented
:class:`spe.exceptions.SpeInputError` (a ``ValueError``) with a message; never another exception. The CI
profile of ``tests/test_properties.py`` applies (derandomized).
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import spe
from spe.exceptions import SpeInputError

from . import test_properties  # noqa: F401  (loads the CI profile)

FAST = dict(families="truncnorm,truncnorm", draws=100, workers=1, rng=0)

ODD_NUMBERS = st.sampled_from([np.nan, np.inf, -np.inf, 1e300, -1e-300, 0.0, 1.0, 1.00001, -0.00001, 7])


@st.composite
def score_inputs(draw):
    """Scores as users hold them, maybe odd: (the object, whether it is valid)."""
    n = draw(st.integers(0, 30))
    values = draw(st.lists(st.floats(-5, 5, allow_nan=False), min_size=n, max_size=n))
    form = draw(st.sampled_from(["list", "array", "series", "series-ids", "2d", "text", "odd-value"]))
    valid = n >= 4
    if form == "list":
        return values, valid
    if form == "array":
        return np.array(values), valid
    if form == "series":
        return pd.Series(values, dtype=float), valid
    if form == "series-ids":
        return pd.Series(values, index=[f"id{k}" for k in range(n)], dtype=float), valid
    if form == "2d":
        return np.array(values[: 2 * (n // 2)]).reshape(2, -1) if n >= 2 else np.zeros((0, 0)), False
    if form == "text":
        return [str(v) if k else "x" for k, v in enumerate(values)], False
    if n:
        values[draw(st.integers(0, n - 1))] = draw(ODD_NUMBERS)
    return np.array(values), None  # valid or not depending on the value (noise within [0, 1] is fine)


CONVENTIONS = {"0/1": [0, 1], "-1/1": [-1, 1], "bool": [False, True], "float": [0.0, 1.0], "text": ["ham", "spam"],
               "odd": [0, 1, -1, True, "1", "yes", 2, np.nan, None, "spam", 0.5]}


@st.composite
def label_inputs(draw, n):
    """Labels as users hold them, in any form and convention, sometimes odd: (labels, pos_label)."""
    form = draw(st.sampled_from(["none", "dict", "array", "series", "pair", "short-array"]))
    convention = draw(st.sampled_from(sorted(CONVENTIONS)))
    pool = CONVENTIONS[convention]
    pos_label = "spam" if convention == "text" or (convention == "odd" and draw(st.booleans())) else None
    odd_keys = convention == "odd" and draw(st.booleans())
    keys = (draw(st.lists(st.integers(-2, n + 2), max_size=n)) if odd_keys
            else draw(st.lists(st.integers(0, max(n - 1, 0)), max_size=n, unique=True)) if n else [])
    values = draw(st.lists(st.sampled_from(pool), min_size=len(keys), max_size=len(keys)))
    if form == "none":
        return None, pos_label
    if form == "dict":
        return dict(zip(keys, values)), pos_label
    if form == "pair":
        return (np.array(keys, dtype=int), np.array(values, dtype=object)), pos_label
    if form == "series":
        return pd.Series(values, index=keys, dtype=object), pos_label
    full = [None] * n
    for key, value in zip(keys, values):
        if 0 <= key < n:
            full[key] = value
    return (full[:-1] if form == "short-array" and full else full), pos_label


def _answered_or_refused(call):
    """The call's result, or None when it raised SpeInputError with a message; any other exception fails."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = call()
        except SpeInputError as e:
            assert str(e).strip() and "np.int64" not in str(e) and "np.float64" not in str(e), str(e)
            event("refused")
            return None
    event("answered")
    return result


@settings(max_examples=40)
@given(data=st.data())
def test_evaluate_answers_or_raises_the_documented_error(data):
    scores, valid = data.draw(score_inputs())
    labels, pos_label = data.draw(label_inputs(len(scores)))
    ev = _answered_or_refused(lambda: spe.evaluate(scores, labels, pos_label=pos_label, **FAST))
    if valid is False:
        assert ev is None
    if ev is not None:
        assert 0 <= ev.prevalence().lo <= ev.prevalence().hi <= 1
        assert set(np.unique(ev.labeled_value)) <= {0, 1}


@settings(max_examples=15)
@given(data=st.data())
def test_compare_answers_or_raises_the_documented_error(data):
    a, _ = data.draw(score_inputs())
    odd = data.draw(st.integers(0, 3)) == 0
    b = data.draw(score_inputs())[0] if odd else np.asarray(a, dtype=float)[::-1] if len(a) and \
        not isinstance(np.asarray(a, dtype=object)[0], str) else a
    if isinstance(a, pd.Series) and not odd:
        b = pd.Series(np.asarray(b), index=a.index[::-1])
    form = data.draw(st.sampled_from(["dict", "list", "frame"]))
    if form == "dict":
        scores = {"a": a, "b": b}
    elif form == "list":
        scores = [a, b]
    else:
        one_column_each = len(a) == len(b) and np.ndim(a) == np.ndim(b) == 1  # pandas itself refuses 2-D columns
        scores = _answered_or_refused(lambda: pd.DataFrame({"a": a, "b": b})) if one_column_each else [a, b]
    labels, pos_label = data.draw(label_inputs(len(a)))
    _answered_or_refused(lambda: spe.compare(scores, labels, draws=100, workers=1, rng=0, pos_label=pos_label))


@pytest.fixture(scope="module")
def small_evaluation():
    s = np.r_[np.linspace(-2, 1, 60), np.linspace(0, 3, 20)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return spe.evaluate(s, {0: 0, 1: 0, 70: 1, 75: 1, 30: 0}, **FAST)


@settings(max_examples=15)
@given(k=st.one_of(st.integers(-3, 200), st.sampled_from([2.5, "3", None, np.int64(2), 10 ** 12])),
       strategy=st.sampled_from(["greedy", "random", "stratified", "nope"]))
def test_suggest_answers_or_raises_the_documented_error(small_evaluation, k, strategy):
    got = _answered_or_refused(lambda: small_evaluation.suggest(k, strategy=strategy, rng=0))
    if got is not None:
        frame = got.to_frame()
        assert len(frame) <= small_evaluation.n_items - small_evaluation.n_labeled
        assert not set(frame["position"] if "position" in frame else frame["id"]) & \
            set(small_evaluation.labeled_index.tolist())


def _mutations(d, draw):
    """A copy of the JSON dict ``d`` with one field deleted, emptied or given a wrong type."""
    d = json.loads(json.dumps(d))
    paths = [(k,) for k in d] + [(k, j) for k, v in d.items() if isinstance(v, dict) for j in v]
    path = draw(st.sampled_from(paths))
    holder = d
    for key in path[:-1]:
        holder = holder[key]
    how = draw(st.sampled_from(["delete", "null", "text", "list", "shorter"]))
    value = holder[path[-1]]
    if how == "delete":
        del holder[path[-1]]
    elif how == "null":
        holder[path[-1]] = None
    elif how == "text":
        holder[path[-1]] = "x"
    elif how == "list":
        holder[path[-1]] = [1, 2]
    elif isinstance(value, list) and value:
        holder[path[-1]] = value[:-1]
    return d


@settings(max_examples=30)
@given(data=st.data())
def test_load_of_a_damaged_file_loads_whole_or_names_the_field(small_evaluation, data, tmp_path_factory):
    path = tmp_path_factory.mktemp("load") / "ev.json"
    path.write_text(json.dumps(_mutations(small_evaluation.to_dict(), data.draw)))
    saved = _answered_or_refused(lambda: spe.load(path))
    if saved is not None:  # what loads answers its queries from what it holds
        _answered_or_refused(lambda: (saved.summary(), saved.prevalence(), saved.pr_curve(), saved.to_frame()))


@st.composite
def class_score_inputs(draw):
    """Multiclass scores as users hold them, maybe odd: an (N, K) array, a list of rows or a DataFrame of class
    columns (N 0–12, K 1–4), probabilities or logits, sometimes a NaN, an infinity or text."""
    n, k = draw(st.sampled_from([0, 2, 5, 8, 12, 12, 12])), draw(st.sampled_from([1, 2, 3, 3, 4, 4]))
    rows = draw(st.lists(st.lists(st.floats(-8, 8, allow_nan=False), min_size=k, max_size=k), min_size=n,
                         max_size=n))
    values = np.array(rows, dtype=float).reshape(n, k)
    if draw(st.booleans()) and n and k:
        values = np.exp(values) / np.exp(values).sum(axis=1, keepdims=True)  # probabilities
    odd = draw(st.sampled_from(["none", "none", "none", "nan", "inf", "text"]))
    form = draw(st.sampled_from(["array", "list", "frame"]))
    if odd != "none" and n and k:
        values = values.astype(object) if odd == "text" else values
        values[draw(st.integers(0, n - 1)), draw(st.integers(0, k - 1))] = {"nan": np.nan, "inf": np.inf,
                                                                            "text": "x"}[odd]
    if form == "frame":
        return pd.DataFrame(values, columns=[f"c{j}" for j in range(k)])
    return values.tolist() if form == "list" else values


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_multiclass_evaluate_and_compare_answer_or_raise_the_documented_error(data):
    scores = data.draw(class_score_inputs())
    n = len(scores)
    k = np.shape(scores)[1] if n and np.ndim(scores) == 2 else 1
    names = [f"c{j}" if hasattr(scores, "columns") else str(j) for j in range(k)] + list(range(k))
    valid = data.draw(st.booleans())
    odd_values = st.sampled_from(names if valid else [*names, -1, k, "x", None, np.nan, 1.5, True])
    keys = data.draw(st.lists(st.integers(0, n - 1) if valid and n else st.integers(-1, n + 1), max_size=n,
                              unique=True))
    labels = {key: data.draw(odd_values) for key in keys}
    ev = _answered_or_refused(lambda: spe.evaluate_multiclass(scores, labels, draws=100, rng=0))
    if ev is not None:
        assert 0 <= ev.accuracy().lo <= ev.accuracy().hi <= 1
        assert ev.confusion_matrix(None)["mean"].sum() == pytest.approx(ev.n_items)
    other = data.draw(class_score_inputs()) if data.draw(st.booleans()) else scores
    cmp = _answered_or_refused(lambda: spe.compare({"a": scores, "b": other}, labels, draws=100, rng=0))
    if cmp is not None and hasattr(cmp, "class_comparisons"):
        d = cmp.difference("a", "b")
        assert d.lo <= d.hi
