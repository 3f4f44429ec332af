"""Where the ``spe`` command writes: every output checked before the work starts, all written or none.

Before any reading or fitting, :func:`check_outputs` refuses (as
:class:`~spe.exceptions.SpeInputError` naming the option) an empty name, a
directory where a file is wanted (or a file where a directory is), a
missing or unwritable directory, an output that is one of the input files,
two outputs that name the same file, and ``-`` (standard output) where the
output cannot go there or for more than one output.

After the work, :func:`write_outputs` writes everything in two phases:
each file goes to a temporary file next to its destination, and only when
all of them are written are they moved into place (``os.replace``), so a
failure or an interrupt leaves no partial or stray file. A destination
that is not a regular file (``/dev/null``, a named pipe) or that names an
open file descriptor (``/dev/stderr``, ``/dev/fd/3``) is written into, before
the others are moved into place; ``/dev/stdout`` is standard output, as
``-``; any other symbolic link is followed, so the file it points to is
replaced, not the link.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .exceptions import SpeInputError

__all__ = ["Output", "check_outputs", "write_outputs", "STDOUT", "jsonable", "json_bytes", "save_json", "format_items"]

#: The name that means standard output (and, for the scores, standard input).
STDOUT = "-"

#: Other names of standard output.
STDOUT_NAMES = ("/dev/stdout", "/dev/fd/1", "/proc/self/fd/1")


@dataclass(frozen=True)
class Output:
    """One output of a command.

    Attributes
    ----------
    flag : str
        The option that names it (``"--json"``), for messages.
    path : str
        As given; ``"-"`` is standard output.
    directory : bool
        A directory of files (``--report``) rather than one file.
    stdout : bool
        Whether it may go to standard output.
    names : tuple of str
        For a directory: the names of the files it may receive.
    """

    flag: str
    path: str
    directory: bool = False
    stdout: bool = False
    names: tuple = ()

    @property
    def to_stdout(self) -> bool:
        """``-``, or a name of standard output itself (``/dev/stdout``: the summary then goes to standard
        error, as for ``-``)."""
        return self.path == STDOUT or os.path.abspath(self.path) in STDOUT_NAMES

    @property
    def in_place(self) -> bool:
        """Written straight into, never replaced: a device or a pipe (``/dev/null``), or a name of an open
        file descriptor (``/dev/stderr``, ``/dev/fd/3``: it resolves to the very file a shell redirected the
        stream to, which a replace would clobber)."""
        if _names_a_descriptor(self.path):
            return True
        real = self.real
        return real.exists() and not (real.is_file() or real.is_dir())

    @property
    def real(self) -> Path:
        """The destination with symbolic links resolved (whether it exists or not)."""
        return Path(os.path.realpath(self.path))


_DESCRIPTOR = re.compile(r"^/(proc/(self|\d+)|dev)/fd/\d+$")


def _names_a_descriptor(path):
    """Whether ``path`` is, or links to, ``/dev/fd/N`` or ``/proc/<pid>/fd/N`` (as ``/dev/stderr`` does)."""
    p = os.path.abspath(path)
    for _ in range(40):  # the kernel's own limit on links followed
        if _DESCRIPTOR.match(p):
            return True
        if not os.path.islink(p):
            return False
        p = os.path.normpath(os.path.join(os.path.dirname(p), os.readlink(p)))
    return False


def check_outputs(outputs, inputs):
    """Refuse, before any work, outputs that cannot be written or would destroy something.

    Parameters
    ----------
    outputs : list of Output
        The outputs asked for (those with an empty ``path`` string are
        refused; pass only the options that were given).
    inputs : dict of str → str
        What names each input file (e.g. ``"the scores"``) → its path.

    Raises
    ------
    SpeInputError
        With ``argument`` = the output's flag.
    """
    for out in outputs:
        try:
            _check_one(out)
        except OSError as e:  # a path the system refuses to look at: too long, a loop of links, no access
            raise SpeInputError(f"{out.path}: {e.strerror or e}", argument=out.flag) from None
    to_stdout = [o.flag for o in outputs if o.to_stdout]
    if len(to_stdout) > 1:
        raise SpeInputError(f"only one output can go to standard output ('-'), and {' and '.join(to_stdout)} "
                            "both ask for it", argument=to_stdout[-1])
    for out in outputs:
        if out.in_place and not out.to_stdout:
            _check_not_an_input(out, inputs)
    files = [o for o in outputs if not (o.to_stdout or o.in_place)]
    for i, out in enumerate(files):
        _check_not_an_input(out, inputs)
        for other in files[:i]:
            if _same(out.real, other.real):
                raise SpeInputError(f"{other.flag} also names {out.path}: give each output its own file",
                                    argument=out.flag)
        for other in files:
            if other.directory and other is not out and out.real.parent == other.real and \
                    out.real.name in other.names:
                raise SpeInputError(f"{out.path} is a file {other.flag} {other.path} writes", argument=out.flag)


def _check_one(out):
    if out.path.strip() == "":
        raise SpeInputError("the file name is empty", argument=out.flag)
    if out.to_stdout:
        if not out.stdout:
            raise SpeInputError("cannot go to standard output ('-'): name a file", argument=out.flag)
        return
    if not out.directory and out.path.endswith(("/", os.sep)):
        raise SpeInputError(f"{out.path} ends with '/': name a file", argument=out.flag)
    real = out.real
    _check_name_length(out, real)
    if out.in_place and not out.directory:  # a device: written into as it is (/dev/null, a terminal)
        if not os.path.exists(out.path):
            raise SpeInputError(f"{out.path} does not exist (a device or pipe is written into, not created)",
                                argument=out.flag)
        return
    if out.directory:
        if real.exists() and not real.is_dir():
            raise SpeInputError(f"{out.path} exists and is not a directory", argument=out.flag)
        _check_parent(out, real.parent)
        _check_writable(real if real.is_dir() else real.parent, out.flag)
        return
    if real.is_dir():
        raise SpeInputError(f"{out.path} is a directory: name a file (e.g. {Path(out.path) / 'out'}"
                            f"{_suffix(out.flag)})", argument=out.flag)
    _check_parent(out, real.parent)
    _check_writable(real.parent, out.flag)


def _check_name_length(out, real):
    try:
        longest = os.pathconf(real.parent if real.parent.is_dir() else "/", "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):
        longest = 255
    if len(os.fsencode(real.name)) > longest:
        raise SpeInputError(f"the file name is longer than the {longest} bytes this file system allows",
                            argument=out.flag)


def _suffix(flag):
    return {"--json": ".json", "--items": ".csv", "--plot": ".png"}.get(flag, "")


def _check_parent(out, parent):
    if not parent.is_dir():
        raise SpeInputError(f"directory {parent} does not exist", argument=out.flag)


def _check_writable(directory, flag):
    """Create and remove a file in ``directory``: the only test that sees permissions, read-only mounts and
    full quotas alike."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=".spe-check-", dir=directory)
        os.close(fd)
        os.unlink(tmp)
    except OSError as e:
        raise SpeInputError(f"cannot write in {directory} ({e.strerror or e})", argument=flag) from None


def _same(a, b):
    if a == b:
        return True
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def _check_not_an_input(out, inputs):
    for what, path in inputs.items():
        if path is None or str(path) == STDOUT or str(path).strip() == "":
            continue
        src = Path(os.path.realpath(path))
        if _same(out.real, src):
            raise SpeInputError(f"{out.path} is {what}: writing it would overwrite an input", argument=out.flag)
        if out.directory and src.parent == out.real and src.name in out.names:
            raise SpeInputError(f"{out.path} holds {what} ({src.name}), which it would overwrite", argument=out.flag)


def write_outputs(files, directories=(), stdout=None):
    """Write every output, all or none (see the module docstring).

    Parameters
    ----------
    files : list of (Output, bytes)
    directories : list of (Output, dict of str → bytes)
        Directory outputs and their files by name.
    stdout : binary file, optional
        Where ``-`` goes (default ``sys.stdout.buffer``).

    Returns
    -------
    list of str
        What was written, one line each (``wrote out.json``).

    Raises
    ------
    SpeInputError
        An output that cannot be written after all (a full disk, a device
        that refuses data), naming its option; nothing is left of the
        staged files.
    """
    staged, in_place, shown = [], [], []
    try:
        for out, data in files:
            if out.to_stdout:
                continue
            with _naming(out):
                if out.in_place:
                    in_place.append((out, Path(out.path), data))
                else:
                    staged.append((_stage_file(out.real, data), out.real, out))
            shown.append(f"wrote {out.path}")
        for out, contents in directories:
            with _naming(out):
                staged += [(tmp, dest, out) for tmp, dest in _stage_directory(out.real, contents)]
            shown.append(f"wrote {len(contents)} files to {out.path}/: " + ", ".join(contents))
        # devices before the moves: one that refuses the data (/dev/full) leaves the staged files unmoved
        for out, dest, data in in_place:
            with _naming(out), open(dest, "ab") as fh:  # appended: /dev/stderr may be a redirected file
                fh.write(data)
    except BaseException:
        for tmp, _, _ in staged:
            _remove(tmp)
        raise
    for tmp, dest, out in staged:
        with _naming(out):
            os.replace(tmp, dest)
    for out, data in files:
        if out.to_stdout:
            _to_stdout(data, stdout)
    return shown


@contextlib.contextmanager
def _naming(out):
    """An OSError while writing ``out`` becomes an input error naming its option (a broken pipe stays one)."""
    try:
        yield
    except BrokenPipeError:
        raise
    except OSError as e:
        raise SpeInputError(f"cannot write {out.path} ({e.strerror or e})", argument=out.flag) from None


def _to_stdout(data, stdout=None):
    """Write bytes to standard output (its binary buffer; text where it has none, as in a notebook)."""
    if stdout is None:
        stdout = getattr(sys.stdout, "buffer", None)
    if stdout is None:
        sys.stdout.write(data.decode())
        sys.stdout.flush()
        return
    stdout.write(data)
    stdout.flush()


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _stage_file(dest, data):
    """``data`` in a new temporary file beside ``dest``, with a new file's usual mode: its path."""
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name[:64]}.", dir=dest.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes it private
    except BaseException:
        _remove(tmp)
        raise
    return tmp


def _stage_directory(dest, contents):
    """[(temporary path, destination)] for a directory output: a whole new directory when ``dest`` does not
    exist (moved into place at once), else each file beside its destination inside it."""
    if dest.is_dir():
        staged = []
        try:
            for name, data in contents.items():
                staged.append((_stage_file(dest / name, data), dest / name))
        except BaseException:
            for tmp, _ in staged:
                _remove(tmp)
            raise
        return staged
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name[:64]}.", dir=dest.parent))
    try:
        for name, data in contents.items():
            (tmp / name).write_bytes(data)
        os.chmod(tmp, 0o777 & ~_umask())
    except BaseException:
        _remove(tmp)
        raise
    return [(tmp, dest)]


def _remove(path):
    path = Path(path)
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            path.unlink()
        except FileNotFoundError:
            pass


def json_bytes(result):
    """What a command's ``--json`` and ``save`` write: the dict as indented JSON, one final newline, UTF-8."""
    return (json.dumps(result, indent=1) + "\n").encode()


def save_json(result, path):
    """Write ``result`` (a JSON-ready dict) to ``path`` as :func:`json_bytes`, whole or not at all (staged and
    renamed into place; ``-`` is standard output). Raises :class:`SpeInputError` naming ``path`` when it
    cannot be written (a missing or read-only directory, a directory in its place); returns ``path``."""
    out = Output("path", str(path), stdout=True)
    check_outputs([out], {})
    write_outputs([(out, json_bytes(result))])
    return path


def jsonable(obj):
    """``obj`` with numpy scalars and arrays made Python numbers and lists, dict keys made str, and non-finite
    floats None (JSON has no NaN or infinity): what ``json.dumps`` writes for the JSON contract."""
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return [jsonable(v) for v in obj.tolist()]
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return float(obj) if np.isfinite(obj) else None
    return obj


def format_items(count):
    """An item count for messages: '91', '2,340', '0.19'."""
    return f"{count:,.0f}" if count >= 100 else f"{count:.3g}"
