"""MkDocs hooks: pages generated from the code, so that they cannot drift from it.

The tutorials' progress bars are switched off (``TQDM_DISABLE``).
``<!-- spe:cli -->`` becomes the ``--help`` of ``spe`` and of every
registered command (from the parser itself); ``<!-- spe:diagnostics -->``
the table of :data:`spe.report.DIAGNOSTICS` (what the HTML report says of
each diagnostic); ``<!-- spe:changelog -->`` the project's CHANGELOG.md.
"""

import contextlib
import io
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The tutorials are executed at build time in kernels started from this process: their progress bars (tqdm,
# drawn with carriage returns that a static page cannot replay) would be left on the page as many lines.
os.environ.setdefault("TQDM_DISABLE", "1")


def _help(argv):
    from spe.cli import main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        main(argv)
    return buf.getvalue().rstrip()


def _cli():
    from spe.cli.registry import COMMANDS

    os.environ["COLUMNS"] = "100"  # argparse wraps to the terminal; the page does not have one
    parts = ["## spe", "", "```text", _help(["--help"]), "```", ""]
    for name in COMMANDS:
        parts += [f"## spe {name}", "", "```text", _help([name, "--help"]), "```", ""]
    return "\n".join(parts)


def _diagnostics():
    from spe.report import DIAGNOSTICS

    rows = ["| diagnostic | what it measures | when to worry |", "|---|---|---|"]
    rows += [f"| {name} | {meaning} | {worry} |" for name, (meaning, worry) in DIAGNOSTICS.items()]
    return "\n".join(rows)


def _changelog():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    return text.split("\n", 1)[1] if text.startswith("# ") else text


GENERATED = {"<!-- spe:cli -->": _cli, "<!-- spe:diagnostics -->": _diagnostics,
             "<!-- spe:changelog -->": _changelog}


def on_page_markdown(markdown, page, config, files):
    for marker, make in GENERATED.items():
        if marker in markdown:
            markdown = markdown.replace(marker, make())
    return markdown
