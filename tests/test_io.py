"""Reading scores and labels: every bad input names the file, row and column."""

import os
import re

import numpy as np
import pytest

from spe.exceptions import SpeInputError
from spe.io import read_labels, read_scores


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_reads_ids_and_scores(tmp_path):
    p = write(tmp_path, "s.csv", "id,score\na,0.5\nb,-1.25\nc,3\n")
    sf = read_scores(p)
    np.testing.assert_array_equal(sf.scores, [0.5, -1.25, 3.0])
    assert list(sf.ids) == ["a", "b", "c"]
    lp = write(tmp_path, "l.csv", "id,label\nc,1\na,0\n")
    idx, val = read_labels(lp, sf)
    assert list(idx) == [2, 0] and list(val) == [1, 0]


def test_labels_refer_to_rows_without_id_column(tmp_path):
    sf = read_scores(write(tmp_path, "s.csv", "score\n0.1\n0.2\n0.3\n"))
    assert sf.ids is None
    idx, val = read_labels(write(tmp_path, "l.csv", "id,label\n2,1\n0,0\n"), sf)
    assert list(idx) == [2, 0] and list(val) == [1, 0]


def test_other_score_column(tmp_path):
    sf = read_scores(write(tmp_path, "s.csv", "p,q\n1,0.3\n2,0.4\n"), score_column="q")
    np.testing.assert_array_equal(sf.scores, [0.3, 0.4])


@pytest.mark.parametrize(
    "text,row,column,match",
    [
        ("id,score\na,0.5\nb,nan\n", 2, "score", "not a finite number"),
        ("id,score\na,0.5\nb,inf\n", 2, "score", "not a finite number"),
        ("id,score\na,abc\nb,1\n", 1, "score", "'abc'"),
        ("id,score\na,\nb,1\n", 1, "score", "empty value"),
        ("id,score\na,1\na,2\n", 2, "id", "duplicate id 'a'"),
        ("id,value\na,1\n", 0, None, "no column 'score'"),
        ("id,score\n", None, None, "no data rows"),
    ],
)
def test_bad_scores(tmp_path, text, row, column, match):
    p = write(tmp_path, "s.csv", text)
    with pytest.raises(SpeInputError, match=match) as e:
        read_scores(p)
    assert e.value.path == str(p)
    assert e.value.row == row and e.value.column == column
    assert str(p) in str(e.value)


def test_empty_and_missing_files(tmp_path):
    p = write(tmp_path, "s.csv", "")
    with pytest.raises(SpeInputError, match="empty"):
        read_scores(p)
    with pytest.raises(SpeInputError, match="not found"):
        read_scores(tmp_path / "nope.csv")


@pytest.mark.parametrize(
    "scores_text,labels_text,row,column,match",
    [
        ("id,score\na,1\nb,2\n", "id,label\na,2\n", 1, "label", "label 2 is not 0 or 1"),
        ("id,score\na,1\nb,2\n", "id,label\na,yes\n", 1, "label", r"text labels \('yes'\) need pos_label"),
        ("id,score\na,1\nb,2\nc,3\n", "id,label\na,1\nb,-1\nc,0\n", 2, "label", "mix two conventions"),
        ("id,score\na,1\nb,2\n", "id,label\na,1\nz,0\n", 2, "id", "'z' is not in the scores"),
        ("id,score\na,1\nb,2\n", "id,label\na,1\na,0\n", 2, "id", "labeled twice"),
        ("score\n1\n2\n", "id,label\n0,1\n5,0\n", 2, "id", "not a row number 0..1"),
        ("score\n1\n2\n", "id,label\nx,1\n", 1, "id", "not a row number"),
        ("id,score\na,1\nb,2\n", "id,lab\na,1\n", 0, None, "no column 'label'"),
    ],
)
def test_bad_labels(tmp_path, scores_text, labels_text, row, column, match):
    sf = read_scores(write(tmp_path, "s.csv", scores_text))
    lp = write(tmp_path, "l.csv", labels_text)
    with pytest.raises(SpeInputError, match=match) as e:
        read_labels(lp, sf)
    assert e.value.row == row and e.value.column == column
    assert e.value.path == str(lp)


def test_files_are_not_modified(tmp_path):
    text = "id,score\na,0.5\nb,-1.25\n"
    p = write(tmp_path, "s.csv", text)
    read_scores(p)
    assert p.read_text() == text


def test_read_truth_orders_labels_as_the_scores_and_needs_every_item(tmp_path):
    from spe.exceptions import SpeInputError
    from spe.io import read_scores, read_truth

    (tmp_path / "s.csv").write_text("id,score\na,0.1\nb,0.7\nc,0.4\n")
    (tmp_path / "t.csv").write_text("id,label\nc,1\na,0\nb,1\n")
    scores = read_scores(tmp_path / "s.csv")
    np.testing.assert_array_equal(read_truth(tmp_path / "t.csv", scores), [0, 1, 1])
    (tmp_path / "few.csv").write_text("id,label\nc,1\n")
    with pytest.raises(SpeInputError, match="few.csv.*labels 1 of the 3"):
        read_truth(tmp_path / "few.csv", scores)


def test_scores_are_read_as_float_reads_them(tmp_path):
    (tmp_path / "s.csv").write_text("id,score\n a1 , 1.5\nb2,1e-3\nc3, -0.1000000000000000055511151231257827\n007,3\n")
    got = read_scores(tmp_path / "s.csv")
    np.testing.assert_array_equal(got.scores, [1.5, 1e-3, float("-0.1000000000000000055511151231257827"), 3.0])
    assert list(got.ids) == ["a1", "b2", "c3", "007"]
    # shortest round-trip and 6-digit forms over many magnitudes parse exactly as Python's float()
    rng = np.random.default_rng(0)
    values = rng.normal(size=3000) * 10.0 ** rng.integers(-30, 30, 3000)
    text = [repr(float(v)) for v in values] + [f"{v:.6g}" for v in values]
    (tmp_path / "many.csv").write_text("score\n" + "\n".join(text) + "\n")
    np.testing.assert_array_equal(read_scores(tmp_path / "many.csv").scores, [float(t) for t in text])
    (tmp_path / "bad.csv").write_text("id,score\na,1\nb,\n")
    with pytest.raises(SpeInputError, match="row 2, column 'score'"):
        read_scores(tmp_path / "bad.csv")


@pytest.mark.parametrize("pad", ["\t", "\x1c", "\x85", "\xa0", "\u2028", "\u3000", "\u200b"])
def test_ids_are_stripped_exactly_as_str_strip(tmp_path, pad):
    """pyarrow reads the ids; Python's str.strip decides what surrounds them (U+200B is not white space)."""
    text = f"id, score\n{pad}a{pad},1\nb{pad},4.9406564584124654e-324\n{pad}c,1.7976931348623157e308\n"
    (tmp_path / "s.csv").write_text(text, encoding="utf-8")
    got = read_scores(tmp_path / "s.csv")
    assert list(got.ids) == [f"{pad}a{pad}".strip(), f"b{pad}".strip(), f"{pad}c".strip()]
    np.testing.assert_array_equal(got.scores, [1.0, 5e-324, 1.7976931348623157e308])


@pytest.mark.parametrize("name, text, expected", [
    ("blank", "id,score\na,1\n\nb,2\n", ["a", "b"]),
    ("short", "id,score\na\nb,2\n", "row 1, column 'score': an empty value is not a finite number"),
    ("padded_empty", "id,score\n \t,1\n", "row 1, column 'id': empty id"),
    ("twice", "id,score\na,1\n a ,2\n", "row 2, column 'id': duplicate id 'a'"),
    ("repeated", "score,score\n1,2\n", "row 0: the header names the column 'score' 2 times"),
    ("na", "id,score\na,NA\n", "row 1, column 'score': 'NA' is not a finite number"),
    ("inf", "score\ninf\n", "row 1, column 'score': 'inf' is not a finite number"),
    ("header_only", "id,score\n", "has a header but no data rows"),
    ("latin1", "id,score\n\xe9,1\n", "row 1: byte 0xe9 is not UTF-8 text"),
])
def test_irregular_files_are_read_or_refused_naming_the_row(tmp_path, name, text, expected):
    (tmp_path / f"{name}.csv").write_text(text, encoding="latin-1" if name == "latin1" else "utf-8")
    if isinstance(expected, str):
        with pytest.raises(SpeInputError, match=re.escape(expected)):
            read_scores(tmp_path / f"{name}.csv")
    else:
        assert list(read_scores(tmp_path / f"{name}.csv").ids) == expected


class _Colliding(str):
    """A string whose hash collides with every other one's (to exercise the exact check behind the hashes)."""

    def __hash__(self):
        return 7


def test_duplicate_ids_and_positions_are_exact_under_hash_collisions():
    from spe.io import _first_duplicate, _positions

    vals = np.array([_Colliding(v) for v in ["a", "b", "c", "b", "a"]], dtype=object)
    assert _first_duplicate(vals) == (3, "b")
    assert _first_duplicate(vals[:3]) is None
    plain = np.array(["x", "y", "z", "y"], dtype=object)
    assert _first_duplicate(plain) == (3, "y") and _first_duplicate(plain[:3]) is None
    ids = np.array([_Colliding(v) for v in ["p", "q", "r"]], dtype=object)
    wanted = np.array([_Colliding(v) for v in ["r", "p", "s", "q"]], dtype=object)
    assert _positions(ids, wanted).tolist() == [2, 0, -1, 1]
    many = np.array([f"item{i}" for i in range(1000)], dtype=object)
    assert _positions(many, np.array(["item999", "item0", "nope"], dtype=object)).tolist() == [999, 0, -1]


# --- blank lines, odd paths, standard input (issue 20) ---------------------------------------------------------


def test_a_blank_line_in_scores_without_ids_is_refused_naming_its_row(tmp_path):
    """Row-number labels after a blank line would land on the next item (the digits example gave AP 0.458
    instead of 0.761); the line is refused instead of dropped."""
    for text, row in (("score\n0.1\n\n0.2\n0.3\n", 2), ("score\n0.1\n0.2\n   \n0.3\n", 3), ("score\n\n0.1\n", 1)):
        p = write(tmp_path, "s.csv", text)
        with pytest.raises(SpeInputError, match="blank line") as e:
            read_scores(p)
        assert e.value.row == row and e.value.path == str(p)


def test_blank_lines_that_renumber_nothing_are_skipped(tmp_path):
    # after the last row
    sf = read_scores(write(tmp_path, "s.csv", "score\n0.1\n0.2\n\n\n"))
    np.testing.assert_array_equal(sf.scores, [0.1, 0.2])
    # anywhere, when the items carry ids; errors still name the file's own rows
    sf = read_scores(write(tmp_path, "i.csv", "id,score\na,0.1\n\nb,0.2\n  \nc,0.3\n"))
    assert list(sf.ids) == ["a", "b", "c"]
    with pytest.raises(SpeInputError) as e:
        read_scores(write(tmp_path, "j.csv", "id,score\na,0.1\n\nb,x\n"))
    assert e.value.row == 3 and e.value.column == "score"
    # labels name their items: blank lines skipped, rows counted as in the file
    idx, val = read_labels(write(tmp_path, "l.csv", "id,label\n\nc,1\n\na,0\n"), sf)
    assert list(idx) == [2, 0] and list(val) == [1, 0]
    with pytest.raises(SpeInputError) as e:
        read_labels(write(tmp_path, "m.csv", "id,label\n\nc,1\n\nz,0\n"), sf)
    assert e.value.row == 4


def test_a_labels_file_with_a_header_only_means_no_labels(tmp_path):
    sf = read_scores(write(tmp_path, "s.csv", "score\n0.1\n0.2\n"))
    idx, val = read_labels(write(tmp_path, "l.csv", "id,label\n"), sf)
    assert idx.size == 0 and val.size == 0


def test_the_score_column_cannot_be_the_id_column(tmp_path):
    p = write(tmp_path, "s.csv", "id,score\na,0.1\nb,0.2\n")
    with pytest.raises(SpeInputError, match="cannot be the id column 'id'"):
        read_scores(p, score_column="id")


def test_empty_directory_and_unreadable_paths_are_named(tmp_path, monkeypatch):
    with pytest.raises(SpeInputError, match="file name of the scores is empty"):
        read_scores("")
    with pytest.raises(SpeInputError, match="is a directory"):
        read_scores(tmp_path)
    p = write(tmp_path, "s.csv", "score\n0.1\n")
    real_open = open

    def no_permission(path, *a, **k):
        if str(path) == str(p):
            raise PermissionError(13, "Permission denied")
        return real_open(path, *a, **k)

    monkeypatch.setattr("builtins.open", no_permission)
    with pytest.raises(SpeInputError, match=r"cannot be read \(Permission denied\)") as e:
        read_scores(p)
    assert e.value.path == str(p)


def test_scores_from_standard_input(monkeypatch):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"id,score\na,0.5\nb,-1\n")))
    sf = read_scores("-")
    assert sf.path == "<stdin>" and list(sf.ids) == ["a", "b"]
    np.testing.assert_array_equal(sf.scores, [0.5, -1.0])
    with pytest.raises(SpeInputError, match="only the scores can be read from standard input"):
        read_labels("-", sf)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_a_named_pipe_is_read_once(tmp_path):
    """A pipe (or a shell's <(...)) cannot be read twice: checking it by reading a byte lost the writer, and
    the reader then waited for ever."""
    import threading

    fifo = tmp_path / "scores.csv"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text("score\n0.1\n\n0.2\n"))  # a blank line: two reads
    writer.start()
    with pytest.raises(SpeInputError, match="blank line"):
        read_scores(fifo)
    writer.join(5)
    writer = threading.Thread(target=lambda: fifo.write_text("score\n0.1\n0.2\n"))
    writer.start()
    np.testing.assert_array_equal(read_scores(fifo).scores, [0.1, 0.2])
    writer.join(5)


# --- found by an independent sweep: files pandas would read past --------------------------------------------------


def test_a_spaced_id_header_is_still_the_id_column(tmp_path):
    """'id ' (or '"id "') was read as ids by the validating reader but not by the fast one: labels then went to
    rows by number (0.9 got the label of row 0)."""
    for header in ("id ,score", '"id ",score', "id\t,score"):
        sf = read_scores(write(tmp_path, "s.csv", header + "\n5,0.9\n4,0.8\n0,0.1\n"))
        assert list(sf.ids) == ["5", "4", "0"]


@pytest.mark.parametrize("text, row", [
    ("score\n0.1,0.9\n0.2,0.8\n0.3,0.7\n", 1),  # pandas took the first column for an index: scores shifted
    ("score\n0.1\n0.2\n0.3,0.7\n0.4\n", 3),
    ("id,score\nit0,S,0\nit1,T,1\n", 1),
])
def test_a_row_longer_than_the_header_is_refused_naming_it(tmp_path, text, row):
    with pytest.raises(SpeInputError, match="fields where the header has") as e:
        read_scores(write(tmp_path, "s.csv", text))
    assert e.value.row == row


def test_labels_are_checked_as_strictly(tmp_path):
    sf = read_scores(write(tmp_path, "s.csv", "score\n" + "".join(f"{i}\n" for i in range(10))))
    with pytest.raises(SpeInputError, match="3 fields where the header has 2") as e:
        read_labels(write(tmp_path, "l.csv", "id,label\n9,0,1\n8,5,0\n"), sf)
    assert e.value.row == 1
    with pytest.raises(SpeInputError, match=r"row number 5 is labeled twice \(also on row 1\)") as e:
        read_labels(write(tmp_path, "l.csv", "id,label\n5,1\n+5,0\n"), sf)
    assert e.value.row == 2
    with pytest.raises(SpeInputError, match=r"the label is empty \(expected 0 or 1"):
        read_labels(write(tmp_path, "l.csv", "id,label\n5,\n"), sf)


def test_a_repeated_or_misspelled_key_column_is_refused(tmp_path):
    with pytest.raises(SpeInputError, match="names the column 'score' 2 times"):
        read_scores(write(tmp_path, "s.csv", "id,score,score\na,1,2\nb,3,4\n"))
    with pytest.raises(SpeInputError, match="'ID' is not read as the item ids"):
        read_scores(write(tmp_path, "s.csv", "ID,score\n5,0.9\n4,0.8\n"))
    for name in ("item_id", "doc-id", "itemid", "Item ID"):  # ids under another name: labels would go to rows
        with pytest.raises(SpeInputError, match=f"'{name}' is not read as the item ids"):
            read_scores(write(tmp_path, "s.csv", f"{name},score\n5,0.9\n4,0.8\n"))
    for name in ("valid", "grid", "idx"):  # not ids
        assert read_scores(write(tmp_path, "s.csv", f"{name},score\n5,0.9\n4,0.8\n")).ids is None
    sf = read_scores(write(tmp_path, "s.csv", "id,score,score.1\na,1,2\nb,3,4\n"))  # a column so named is fine
    np.testing.assert_array_equal(sf.scores, [1.0, 3.0])
    with pytest.raises(SpeInputError, match="ends with '/' but is not a directory"):
        read_scores(str(tmp_path / "s.csv") + "/")


# found by a differential fuzz of the earlier two readers (each file: what the csv module and float() make of it)
@pytest.mark.parametrize("raw, scores, ids", [
    (b'id, score\n "a", 0.5\n', [0.5], ["a"]),  # a space before a quoted id: pyarrow kept the quotes
    (b'id,score\n "a",1\na,2\n', "duplicate id 'a'", None),  # ... and so missed a repeat
    (b'"id","score"\n "a",1\n"a",2\n', "duplicate id 'a'", None),  # ... also among other quotes
    (b'score,x\n1,"\n2,a\n3,b\n', "not a readable CSV", None),  # a quote left open swallowed rows 2-3
    (b'score,"x\n1,2"\n3,4\n', [3.0], None),  # a header over two lines: pyarrow skipped one
    (b'score,x\n1,\xe9\n', r"row 1: byte 0xe9 is not UTF-8", None),  # latin-1 in a column not read
    (b'score\n+9.548302746945433\n\n', [9.548302746945433], None),  # pandas rounded '+...' 1 ulp off
    (b'score\n-0\n2\n', [-0.0, 2.0], None),  # pandas read an integer column, and -0 as 0
    (b'id,score,id \na,1,b\n', "names the column 'id' 2 times", None),  # was an AttributeError
    (b'score,b ,b\n1,2,3\n', [1.0], None),  # other names equal once stripped: was an AttributeError
    (b'score,id\n1,' + b'x' * 140_000 + b'\n2,b\n', [1.0, 2.0], ["x" * 140_000, "b"]),  # a field over 128 KiB
    (b'score,id\n1,' + b'x' * 140_000 + b'\n2,b,c\n', "3 fields where the header has 2", None),  # was a csv.Error
], ids=["space-quote", "space-quote-repeat", "space-quote-quoted-header", "open-quote", "2-line-header", "latin-1", "plus-sign", "minus-zero",
        "id-twice", "names-twice", "long-field", "long-field-long-row"])
def test_files_found_by_the_fuzz_of_the_two_readers_read_as_then(tmp_path, raw, scores, ids):
    path = tmp_path / "s.csv"
    path.write_bytes(raw)
    if isinstance(scores, str):
        with pytest.raises(SpeInputError, match=scores):
            read_scores(path)
        return
    got = read_scores(path)
    np.testing.assert_array_equal(got.scores, scores)
    assert np.signbit(got.scores).tolist() == np.signbit(scores).tolist()
    assert (None if got.ids is None else list(got.ids)) == ids


# found by a differential fuzz of pyarrow's reading against pandas' and the csv module's (41,000 files): what they
# made of odd files, and which error they met first
@pytest.mark.parametrize("raw, message", [
    (b"\nid,score\na,1\n", "row 0: no column 'score' (the header has: nothing)"),  # an empty first line
    (b"\nid,score\na,1,2\n", "row 1: 2 fields where the header has 0"),  # ... and a row wider than the first
    (b"score\n\xe9\n1,2\n", "row 2: 2 fields where the header has 1"),  # a wider row stops pandas first
    (b"id,score\na,1,2\nb,\xe9\n", "row 2: byte 0xe9 is not UTF-8"),  # a longer first row does not
    (b"score\xe9\n1\n\"\n", "row 0: byte 0xe9 is not UTF-8"),  # the header's bytes come first ...
    (b"score0\xe9\n\"\n", "EOF inside string starting at row 1"),  # ... unless the first row leaves a quote open
    (b'"score\n1\n2\n', "EOF inside string starting at row 0"),
    (b"a,b,score\n1,2\n", "row 1, column 'score': an empty value"),  # a short row: its missing values are empty
    (b"x,,score\n1,2\n", "no column 'id' (the header has: x, Unnamed: 1, score)"),  # (read as labels)
    (b'id, score\n 3 ,"\n-0\nd3, "b"\n', "row 1, column 'score': '-0\\nd3, b\"' is not"),  # spaces kept in quotes
])
def test_odd_files_are_refused_as_pandas_refused_them(tmp_path, raw, message):
    from spe.io import read_label_table

    path = tmp_path / "s.csv"
    path.write_bytes(raw)
    with pytest.raises(SpeInputError, match=re.escape(message)):
        (read_label_table if b"x,," in raw else read_scores)(path)


def test_numbers_are_read_as_float_reads_them_and_only_ascii_decimals(tmp_path):
    from spe.io import _numeric, _read_table

    rng = np.random.default_rng(3)
    values = rng.normal(size=2000) * 10.0 ** rng.integers(-300, 300, 2000)
    text = [f"{v:+.17g}" for v in values] + ["+.5", "5.", "-0", "1E-400"]
    path = write(tmp_path, "s.csv", "score\n" + "\n".join(text) + "\n\n")  # the blank line: validating path
    np.testing.assert_array_equal(read_scores(path).scores, [float(t) for t in text])
    df, rows = _read_table(path, ["score"])
    np.testing.assert_array_equal(_numeric(df, "score", "s.csv", rows), [float(t) for t in text])
    for odd in ("1_000", "١٢", "0x10", "nan", "1e400"):  # float() takes the first two
        with pytest.raises(SpeInputError, match="row 2, column 'score'"):
            read_scores(write(tmp_path, "odd.csv", f"score\n1\n{odd}\n"))


def test_a_quoted_line_break_across_the_fast_readers_blocks_is_kept(tmp_path):
    # pyarrow parses blocks of 1 MiB in parallel, cut at the last line break of each; unless told that values may
    # hold line breaks, it cut inside a quoted id. Here every id holds one, and 2**20 falls just after one.
    n = 70_000
    ids = [f"it\n{i:07d}" for i in range(n)]
    path = tmp_path / "s.csv"
    path.write_text("id,score\n" + "".join(f'"{i}",0.5\n' for i in ids))  # 9 + 17 bytes per row
    assert (2**20 - 9) % 17 == 7  # the block's end falls in row 61,680's digits, after its quoted line break
    got = read_scores(path)
    assert list(got.ids) == ids and got.scores.size == n
