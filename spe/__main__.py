"""``python -m spe`` and the installed ``spe`` script.

The command line's modules (and numpy, through them) are imported inside
:func:`run`, so that a Ctrl-C while they load exits 130 with one line, as
one during the work does (:func:`spe.cli.main.console_main`), instead of a
traceback. ``spe --version`` alone is answered before any of them (nor numpy)
is imported.
"""


def run():
    """Import the command line and run it; a Ctrl-C during the import exits 130 with ``spe: interrupted`` once the
    import has finished."""
    import sys

    if sys.argv[1:] == ["--version"]:  # what the parser's --version prints, without importing the parser
        from . import __version__

        print(f"spe {__version__}")
        sys.exit(0)
    import signal

    # while the modules load, a Ctrl-C is only recorded: raised inside an extension's initialisation (numpy's) it
    # would surface as an ImportError with a traceback instead of a KeyboardInterrupt
    interrupted = []
    previous = signal.signal(signal.SIGINT, lambda *_: interrupted.append(True))
    try:
        from .cli import console_main
    except KeyboardInterrupt:
        interrupted.append(True)
    finally:
        signal.signal(signal.SIGINT, previous)
    if interrupted:
        import os

        print("spe: interrupted", file=sys.stderr, flush=True)
        os._exit(130)  # an interrupt inside an import would otherwise end the interpreter with SIGINT (−2)
    console_main()


if __name__ == "__main__":
    run()
