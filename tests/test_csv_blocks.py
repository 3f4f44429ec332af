"""A CSV file cut into blocks of whole rows (spe.csv_blocks) reads as the whole file does: the same scores and ids
bit for bit, the same errors at the file's own rows; what the blocks refuse is said."""

import numpy as np
import pytest

from spe.csv_blocks import csv_blocks, estimated_rows, read_csv_block
from spe.exceptions import SpeInputError
from spe.io import read_scores

BLOCK_SIZES = [1, 7, 64, 1000, 1 << 20]


def _write(tmp_path, text, name="scores.csv"):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


def _read_in_blocks(path, block_bytes):
    layout = csv_blocks(path, block_bytes=block_bytes)
    parts = [read_csv_block(layout.path, layout.header, b) for b in layout.blocks]
    scores = np.concatenate([p[0][0] for p in parts])
    ids = np.concatenate([p[1] for p in parts]) if layout.has_ids else None
    return layout, scores, ids


def _same_as_whole(path, block_bytes, blank_lines=False):
    whole = read_scores(path)
    layout, scores, ids = _read_in_blocks(path, block_bytes)
    assert scores.tobytes() == whole.scores.tobytes()  # bit for bit, -0.0 included
    assert layout.has_ids == (whole.ids is not None)
    if whole.ids is not None:
        assert ids.tolist() == whole.ids.tolist()
    starts, rows = [b.first_row for b in layout.blocks], [b.rows for b in layout.blocks]
    if blank_lines:  # numbered, and no items
        assert starts[0] >= 1 and all(b - a >= r for a, b, r in zip(starts, starts[1:], rows))
    else:
        assert starts == list(np.cumsum([1] + rows)[:-1])
    assert int(layout.rows.sum()) == whole.scores.size
    assert all(a.end == b.start or (blank_lines and a.end < b.start)  # a block of blank lines alone is left out
               for a, b in zip(layout.blocks, layout.blocks[1:]))
    alone = [read_csv_block(layout.path, layout.header, b, ids=False) for b in layout.blocks]  # the second pass's
    assert np.concatenate([p[0][0] for p in alone]).tobytes() == scores.tobytes()
    assert all(p[1] is None for p in alone)
    return layout


@pytest.mark.parametrize("block_bytes", BLOCK_SIZES)
@pytest.mark.parametrize("text", [
    "id,score\na,0.5\nb,-1e-3\nc,+9.548302746945433\nd,-0\ne,.5\n",  # numbers float() reads, not pandas
    "id,score\r\na,0.25\r\nb,0.75\r\nc,0.5",  # \r\n line ends, no line end after the last row
    "score\n1\n2\n3\n4\n\n\n",  # no ids; blank lines after the last row are not rows
    '\ufeffid,score\n"x,1",1.5\n"y\nz",2.5\n"w""q",3.5\n',  # a BOM; quoted ids with a comma, a line break, a quote
    "score,id\n0.1, é \n0.2,ñandú\n0.3,日本\n",  # the id column second; UTF-8 ids, one padded
    "other,score,id\nq,1,a\nr,2,b\ns,3,c\n",  # a column not read
    "id,score\n\n \na,1\nb,2\n",  # blank lines first
])
def test_blocks_read_as_the_whole_file(tmp_path, text, block_bytes):
    _same_as_whole(_write(tmp_path, text), block_bytes, blank_lines="\n\n" in text.rstrip())


def test_many_random_files_read_as_the_whole_file(tmp_path):
    rng = np.random.default_rng(0)
    for trial in range(20):
        n = int(rng.integers(1, 300))
        s = rng.normal(0, 10.0 ** rng.integers(-3, 4), n)
        quoted = rng.random() < 0.3
        ids = [f'"i{k},{trial}"' if quoted else f"i{k}" for k in range(n)]
        end = "\r\n" if rng.random() < 0.5 else "\n"
        text = end.join(["id,score"] + [f"{i},{float(v)!r}" for i, v in zip(ids, s)]) + (end if rng.random() < 0.5 else "")
        path = _write(tmp_path, text, f"s{trial}.csv")
        layout = _same_as_whole(path, int(rng.integers(1, 2000)))
        assert len(layout.blocks) >= 1


def test_blocks_are_about_the_size_asked(tmp_path):
    text = "id,score\n" + "".join(f"item{k},{k / 7:.6f}\n" for k in range(20_000))
    layout = _same_as_whole(_write(tmp_path, text), 50_000)
    sizes = [b.end - b.start for b in layout.blocks]
    assert len(sizes) == -(-(len(text) - 9) // 50_000)
    assert max(sizes) <= 50_000 and min(sizes[:-1]) > 50_000 - 30  # each ends at the last row end it holds


def _error(call):
    with pytest.raises(SpeInputError) as info:
        call()
    return info.value


@pytest.mark.parametrize("bad", ["item6000,abc\n", "item6000,nan\n", "item6000,1,2\n", "item6000,\n", ",0.5\n"])
def test_a_bad_row_in_a_later_block_is_named_as_the_whole_file_names_it(tmp_path, bad):
    rows = [f"item{k},{k / 3:.5f}\n" for k in range(10_000)]
    rows[6000] = bad  # past the first 64 KiB, which are read before the cut
    path = _write(tmp_path, "id,score\n" + "".join(rows))
    whole = _error(lambda: read_scores(path))
    layout = csv_blocks(path, block_bytes=5000)
    blocked = _error(lambda: [read_csv_block(layout.path, layout.header, b) for b in layout.blocks])
    assert str(blocked) == str(whole)
    assert blocked.row == whole.row == 6001 and blocked.path == str(path)


def test_the_header_and_first_row_are_checked_before_any_block(tmp_path):
    for text in ["", "id,score\n", "id,value\na,1\n", "ID,score\na,1\n", "id,score\na,x\nb,2\n"]:
        path = _write(tmp_path, text)
        assert str(_error(lambda: csv_blocks(path, block_bytes=4))) == str(_error(lambda: read_scores(path)))


@pytest.mark.parametrize("block_bytes", BLOCK_SIZES)
def test_blank_lines_are_skipped_with_ids_and_refused_without_as_in_memory(tmp_path, block_bytes):
    rows = [f"i{k},{k}\n" for k in range(60)]
    rows[20:20] = ["\n", " , \r\n"]
    rows[45:45] = ["\n"]
    with_ids = _write(tmp_path, "id,score\n" + "".join(rows) + "\n\n", "ids.csv")
    layout = _same_as_whole(with_ids, block_bytes, blank_lines=True)
    assert int(layout.rows.sum()) == 60
    rows = [r.split(",", 1)[1] if r.strip(" ,\r\n") else r.replace(",", "") for r in rows]
    without = _write(tmp_path, "score\n" + "".join(rows), "no_ids.csv")
    assert str(_error(lambda: csv_blocks(without, block_bytes=block_bytes))) == str(_error(lambda: read_scores(without)))
    bad = _write(tmp_path, "id,score\n" + "".join(f"i{k},{k}\n" for k in range(30)) + "i30,x\n\ni31,1\n", "bad.csv")
    assert str(_error(lambda: _read_in_blocks(bad, block_bytes))) == str(_error(lambda: read_scores(bad)))


def test_what_the_blocks_refuse_is_said(tmp_path):
    quoted_blank = _write(tmp_path, "id,score\n" + "".join(f"i{k},{k}\n" for k in range(50)) + '"",""\n'
                          + "".join(f"j{k},{k}\n" for k in range(50)), "blank.csv")
    read_scores(quoted_blank)  # the whole-file reader skips a blank line between rows with ids
    layout = csv_blocks(quoted_blank, block_bytes=100)
    e = _error(lambda: [read_csv_block(layout.path, layout.header, b) for b in layout.blocks])
    assert "a line of quoted empty values" in e.message and e.row == 51
    e = _error(lambda: csv_blocks(_write(tmp_path, "id,score\ra,1\rb,2\r", "cr.csv")))
    assert "carriage return alone" in e.message
    e = _error(lambda: csv_blocks(_write(tmp_path, 'id,score\na,1\n"b,2\nc,3\n', "quote.csv"), block_bytes=4))
    assert "odd number of double quotes" in e.message
    assert "not standard input" in str(_error(lambda: csv_blocks("-")))
    assert "file not found" in str(_error(lambda: csv_blocks(tmp_path / "none.csv")))


def test_a_file_that_shrank_after_it_was_cut_is_named(tmp_path):
    path = _write(tmp_path, "id,score\n" + "".join(f"i{k},{k}\n" for k in range(100)))
    layout = csv_blocks(path, block_bytes=200)
    path.write_text("id,score\ni0,0\n")
    assert "the file changed" in str(_error(lambda: read_csv_block(layout.path, layout.header, layout.blocks[-1])))


def test_estimated_rows_from_the_size(tmp_path):
    text = "id,score\n" + "".join(f"item{k:06d},0.{k:06d}\n" for k in range(100_000))
    path = _write(tmp_path, text)
    assert abs(estimated_rows(path, sample_bytes=10_000) - 100_001) < 200
    assert estimated_rows(tmp_path / "missing.csv") == 0


def test_blank_lines_among_many_rows_that_begin_with_an_empty_field(tmp_path):
    rows = [f",{k},i{k}\n" for k in range(1500)]
    rows[700:700] = [",,\n", "\n"]
    path = _write(tmp_path, "x,score,id\n" + "".join(rows))
    layout = _same_as_whole(path, 1 << 20, blank_lines=True)
    assert int(layout.rows.sum()) == 1500


def test_what_the_fuzz_found(tmp_path):
    """A differential fuzz of the two readers (10,000 files): blank lines after the last row renumber nothing, also
    when they hold commas; a double quote inside an unquoted value hides the row ends, and is refused saying so."""
    for k, text in enumerate([b"score,x\n1,2\n,", b"score,x\n1,2\n,\n , \n", b"score\n1\n\n2\n\n"]):
        path = _write(tmp_path, text, f"trailing{k}.csv")
        if k < 2:
            _same_as_whole(path, 1, blank_lines=True)
    inner = _write(tmp_path, b"score,x\n" + b"1,a\n" * 40_000 + b"\n , \n2,b\n" * 3 + b"\n,\n", "inner.csv")  # past 64 KiB
    whole = _error(lambda: read_scores(inner))
    assert "row 40001: a blank line (6 in all)" in str(whole)
    assert str(_error(lambda: csv_blocks(inner, block_bytes=7))) == str(whole)
    stray = _write(tmp_path, b"score,x\n" + b"1,a\"b\n2,c\"d\n" * 5000, "stray.csv")
    assert read_scores(stray).scores.size == 10_000
    e = _error(lambda: _read_in_blocks(stray, 1000))
    assert "a double quote inside an unquoted value" in e.message
