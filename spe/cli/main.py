"""The ``spe`` command (DESIGN.md, CLI contract): the parser built from the registered commands, the dispatch,
the exit statuses.

Each command (:mod:`spe.cli.registry`) parses, reads and validates the
files, calls the library and prints; it does no statistics of its own. Every
output path is checked before the work starts and outputs are written all or
none (:mod:`spe.output`). Exit status: 0 success, 2 bad input (one message
naming the option, or the file, row and column), 130 interrupted, 1
otherwise; never a traceback unless ``SPE_DEBUG=1``.
"""

from __future__ import annotations

import argparse
import os
import sys

from .options import NUMBER_OPTIONS, join_negative_numbers
from .registry import COMMANDS

__all__ = ["main", "build_parser", "console_main"]


class _Parser(argparse.ArgumentParser):
    """argparse, with a bad option said in one line (and where to read more) instead of the whole usage."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser(commands=None):
    """The argparse parser of the ``spe`` command: one subcommand per registered :class:`~spe.cli.registry.Command`.

    ``commands``: the names of the commands whose options are added (None: every command's, as the
    documentation shows them). :func:`main` adds only the one on the command line (:func:`command_named`); the
    others get their name and help line, all that ``spe --help`` shows. Their options' choices (the families,
    score models, ...) come from the registries, which import scipy: ``spe --help`` and ``spe list`` need none.
    """
    from .. import __version__

    parser = _Parser(
        prog="spe",
        description="spe: Bayesian semisupervised performance evaluation of classifiers.",
    )
    parser.add_argument("--version", action="version", version=f"spe {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for entry in COMMANDS.values():
        sub_parser = sub.add_parser(entry.name, help=entry.help, description=entry.description,
                                    formatter_class=argparse.RawDescriptionHelpFormatter)
        if commands is None or entry.name in commands:
            entry.add_arguments(sub_parser)
            _add_verbosity(sub_parser)
    parser.commands = sub.choices  # each command's parser, by name (its errors name the command)
    return parser


def command_named(argv):
    """The registered command that ``argv`` (the arguments after ``spe``) runs, or None (``spe --help``, a
    misspelt command: the parser says so)."""
    first = next((a for a in argv if not a.startswith("-")), None)
    return first if first in COMMANDS else None


def _add_verbosity(parser):
    """``-q`` and ``-v``, on every command."""
    group = parser.add_argument_group("progress and logging (standard error)").add_mutually_exclusive_group()
    group.add_argument("-q", "--quiet", action="store_true",
                       help="print only warnings and errors: no progress bars (shown by default when standard "
                            "error is a terminal), no summary and no 'wrote' lines; the outputs asked for "
                            "(--json, --out, ...) are still written")
    group.add_argument("-v", "--verbose", action="count", default=0,
                       help="log each stage's wall time (-vv: also when each starts)")


def _configure_logging(verbose):
    """``-v``: the ``spe`` logger's stage timings on standard error, as ``spe: <stage>: <seconds> s``."""
    import logging

    from ..progress import LOGGER

    if verbose:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("spe: %(message)s"))
        handler.previous_level = LOGGER.level  # restored when the command returns
        LOGGER.addHandler(handler)
        LOGGER.setLevel(logging.DEBUG if verbose > 1 else logging.INFO)
        return handler
    return None


def _number_options():
    """Every option, shared or a command's, whose value may be a negative number."""
    return set(NUMBER_OPTIONS).union(*(c.number_options for c in COMMANDS.values()))


#: Python argument names whose command-line option is not ``--`` + the name with dashes.
_OPTION_OF = {"rng": "--seed", "labels": "--labels", "k": "-k", "SCORES.csv": "SCORES.csv"}


def _error_text(error, args):
    """An input error's message, located by the command-line option (or the scores file) when it names a
    Python argument."""
    arg = error.argument
    if arg is None:
        return str(error)
    if arg == "scores":
        files = args.scores if isinstance(args.scores, list) else [args.scores]
        return error.located(", ".join("<stdin>" if f == "-" else f for f in files))
    return error.located(arg if arg.startswith("-") else _OPTION_OF.get(arg, "--" + arg.replace("_", "-")))


def _parse(parser, argv):
    """``parser.parse_args(argv)``, with an unknown argument after a command refused by that command's parser
    (``spe estimate: error: unrecognized arguments: --foo``), as argparse words any other error of a command's
    options; argparse itself would blame ``spe``."""
    args, extras = parser.parse_known_args(argv)
    if extras:
        owner = getattr(parser, "commands", {}).get(getattr(args, "command", None), parser)
        owner.error(f"unrecognized arguments: {' '.join(extras)}")
    return args


def _run(args):
    return COMMANDS[args.command].run(args)


def main(argv=None):
    """Run the ``spe`` command; returns the exit status.

    0: success; 2: bad input or options (one message on standard error,
    naming the option, or the file, row and column; nothing written);
    130: interrupted (Ctrl-C; one line, nothing written); 1: anything else
    (one line; ``SPE_DEBUG=1`` shows the traceback).
    """
    with _InterruptWatch() as watch:
        try:
            return _main(argv, watch)
        except KeyboardInterrupt:
            print("spe: interrupted", file=sys.stderr)
            return 130


#: The interrupt watches of the commands running in this process, innermost last.
_WATCHES = []


def raise_if_interrupted():
    """Raise KeyboardInterrupt if a Ctrl-C reached the running command and was swallowed on its way (by a
    library's handler, or a callback whose errors Python discards): the commands call it before writing any
    output, so that an interrupted run writes nothing even when its work went on to the end."""
    if _WATCHES and _WATCHES[-1].interrupted:
        raise KeyboardInterrupt


class _InterruptWatch:
    """Records a Ctrl-C even when a library catches the KeyboardInterrupt and raises something else in its
    place (PyMC, interrupted while sampling, says "Not enough samples to build a trace"), or nothing at all
    (:func:`raise_if_interrupted`). A process that ignores Ctrl-C (started in the background by a shell, or
    under nohup) keeps ignoring it."""

    def __init__(self):
        self.interrupted = False
        self._previous = None

    def _handler(self, signum, frame):
        self.interrupted = True
        raise KeyboardInterrupt

    def __enter__(self):
        import signal
        import threading

        main = threading.current_thread() is threading.main_thread()
        if main and signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
            self._previous = signal.signal(signal.SIGINT, self._handler)
        _WATCHES.append(self)
        return self

    def __exit__(self, *exc):
        import signal

        _WATCHES.remove(self)
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
        return False


def _main(argv, watch):
    from ..exceptions import SpeInputError

    _tolerant_streams()
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser([command_named(argv)])
    try:
        args = _parse(parser, join_negative_numbers(argv, _number_options()))
    except SystemExit as e:
        return int(e.code or 0)
    if args.command is None:
        print(f"spe: error: name a command: {', '.join(COMMANDS)} (see spe --help)", file=sys.stderr)
        return 2
    from ..progress import LOGGER, shown
    from .common import quiet

    handler = _configure_logging(args.verbose)
    try:
        with shown(False if args.quiet else None), quiet(args.quiet):
            return _run(args)
    except SpeInputError as e:
        print(f"spe {args.command}: error: {_error_text(e, args)}", file=sys.stderr)  # as argparse words its errors
        return 2
    except MemoryError:
        print("spe: failed: out of memory; try fewer --draws, or --score-bins / --likelihood-bins for many "
              "items", file=sys.stderr)
        return 1
    except BrokenPipeError:
        _silence_stdout()
        return 1
    except Exception as e:  # noqa: BLE001
        if watch.interrupted:
            raise KeyboardInterrupt from None
        if os.environ.get("SPE_DEBUG"):
            raise
        print(f"spe: internal error: {type(e).__name__}: {' '.join(str(e).split())} (please report it; "
              "SPE_DEBUG=1 shows where)", file=sys.stderr)
        return 1
    finally:
        if handler is not None:
            LOGGER.removeHandler(handler)
            LOGGER.setLevel(handler.previous_level)


def _tolerant_streams():
    """Text that the console's encoding cannot show (the k̂ of the summary on an ASCII terminal) is escaped,
    not an error after the work is done."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors="backslashreplace")
            except (ValueError, OSError):
                pass


def _silence_stdout():
    """After the reader of standard output went away (``spe ... | head``): no error at exit from flushing it."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def console_main():
    """Entry point of the installed ``spe`` script (and ``python -m spe``).

    Ctrl-C, even while the heavy modules are imported, exits 130 with one
    line: through ``os._exit``, because an interrupt that arrived inside an
    import makes the interpreter kill itself with SIGINT at a normal exit
    (status −2 instead of 130). Once the outcome is decided, Ctrl-C is
    ignored, so that one arriving while the interpreter shuts down does not
    turn a finished run into status −2.
    """
    import signal

    try:
        code = main()
    except KeyboardInterrupt:
        print("spe: interrupted", file=sys.stderr)
        code = 130
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the outcome is decided: a late Ctrl-C must not change it
    if code == 130:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(130)
    sys.exit(code)


if __name__ == "__main__":
    console_main()
