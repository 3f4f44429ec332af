"""spe.output: outputs checked before the work, written all or none."""

import io
import os

import pytest

from spe.exceptions import SpeInputError
from spe.output import Output, check_outputs, write_outputs


def test_each_file_is_written_whole_and_reported(tmp_path):
    a, b = Output("--json", str(tmp_path / "a.json")), Output("--items", str(tmp_path / "b.csv"))
    shown = write_outputs([(a, b"{}\n"), (b, b"id\n")])
    assert (tmp_path / "a.json").read_bytes() == b"{}\n" and (tmp_path / "b.csv").read_bytes() == b"id\n"
    assert shown == [f"wrote {a.path}", f"wrote {b.path}"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "b.csv"]  # no temporary file left


def test_a_symbolic_link_is_followed_not_replaced(tmp_path):
    target = tmp_path / "target.json"
    target.write_text("old")
    (tmp_path / "link.json").symlink_to(target)
    write_outputs([(Output("--json", str(tmp_path / "link.json")), b"new")])
    assert (tmp_path / "link.json").is_symlink() and target.read_text() == "new"


def test_standard_output_gets_the_bytes_and_no_file(tmp_path):
    sink = io.BytesIO()
    write_outputs([(Output("--json", "-", stdout=True), b"{}\n")], stdout=sink)
    assert sink.getvalue() == b"{}\n" and list(tmp_path.iterdir()) == []


def test_a_new_directory_appears_whole_and_an_existing_one_keeps_other_files(tmp_path):
    rep = Output("--report", str(tmp_path / "rep"), directory=True, names=("a.txt", "b.txt"))
    write_outputs([], [(rep, {"a.txt": b"1", "b.txt": b"2"})])
    assert sorted(p.name for p in (tmp_path / "rep").iterdir()) == ["a.txt", "b.txt"]
    (tmp_path / "rep" / "mine.txt").write_text("keep")
    write_outputs([], [(rep, {"a.txt": b"3"})])
    assert (tmp_path / "rep" / "a.txt").read_bytes() == b"3" and (tmp_path / "rep" / "mine.txt").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]


def test_an_interrupt_while_staging_leaves_nothing(tmp_path, monkeypatch):
    import spe.output as output

    real = output._stage_file

    def interrupted(dest, data):
        if dest.name == "b.csv":
            raise KeyboardInterrupt
        return real(dest, data)

    monkeypatch.setattr(output, "_stage_file", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_outputs([(Output("--json", str(tmp_path / "a.json")), b"1"),
                       (Output("--items", str(tmp_path / "b.csv")), b"2")])
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("outputs, inputs, message", [
    ([Output("--json", " ")], {}, "--json: the file name is empty"),
    ([Output("--plot", "-")], {}, "--plot: cannot go to standard output"),
    ([Output("--json", "-", stdout=True), Output("--items", "-", stdout=True)], {}, "only one output"),
    ([Output("--json", "{tmp}/x.json"), Output("--items", "{tmp}/./x.json")], {}, "--json also names"),
    ([Output("--json", "{tmp}/s.csv")], {"the scores file": "{tmp}/s.csv"}, "is the scores file"),
    ([Output("--json", "{tmp}/link")], {"the scores file": "{tmp}/s.csv"}, "is the scores file"),
    ([Output("--report", "{tmp}/rep", directory=True, names=("s.csv",))], {"the scores file": "{tmp}/rep/s.csv"},
     "holds the scores file"),
    ([Output("--json", "{tmp}/rep/README.md"), Output("--report", "{tmp}/rep", directory=True,
                                                       names=("README.md",))], {}, "is a file --report"),
    ([Output("--json", "{tmp}/s.csv/x.json")], {}, "does not exist"),
    ([Output("--json", "{tmp}/o.json/")], {}, "ends with '/': name a file"),
    ([Output("--report", "{tmp}/s.csv", directory=True)], {}, "exists and is not a directory"),
])
def test_refusals_name_the_option(tmp_path, outputs, inputs, message):
    (tmp_path / "s.csv").write_text("score\n1\n")
    (tmp_path / "rep").mkdir()
    (tmp_path / "rep" / "s.csv").write_text("score\n1\n")
    (tmp_path / "link").symlink_to(tmp_path / "s.csv")
    fill = lambda s: s.replace("{tmp}", str(tmp_path))  # noqa: E731
    outputs = [Output(o.flag, fill(o.path), o.directory, o.stdout, o.names) for o in outputs]
    with pytest.raises(SpeInputError, match=message):
        check_outputs(outputs, {k: fill(v) for k, v in inputs.items()})


def test_a_device_is_accepted_and_written_in_place():
    check_outputs([Output("--json", os.devnull)], {})
    assert write_outputs([(Output("--json", os.devnull), b"x")]) == [f"wrote {os.devnull}"]


def test_standard_output_by_its_device_name_is_standard_output():
    assert Output("--json", "/dev/stdout").to_stdout and Output("--json", "-").to_stdout
    err = Output("--json", "/dev/stderr")
    assert not err.to_stdout and err.in_place  # never replaced: it may resolve to a redirected log file
    with pytest.raises(SpeInputError, match="cannot write in /proc"):
        check_outputs([Output("--json", "/proc/no-such.json")], {})
    with pytest.raises(SpeInputError, match="does not exist"):
        check_outputs([Output("--json", "/dev/fd/987")], {})


def test_a_device_linked_to_a_file_is_written_into_not_replaced(tmp_path):
    """/dev/stderr resolves (through /proc/self/fd/2) to the file a shell redirected it to: replacing that
    file lost what had been written to it."""
    log = tmp_path / "log.txt"
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        os.write(fd, b"summary\n")
        if not os.path.exists(f"/dev/fd/{fd}"):
            pytest.skip("no /dev/fd")
        write_outputs([(Output("--json", f"/dev/fd/{fd}"), b"{}\n")])
    finally:
        os.close(fd)
    assert log.read_bytes() == b"summary\n{}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.txt"]
