"""The ``spe`` command line: one module per command, each registering itself (:mod:`spe.cli.registry`).

Importing this package registers the commands in the order of the imports
below (the order of ``spe --help``). A new command is one new module here,
imported last.
"""

from . import (estimate, threshold, families, listing, compare, suggest, plan,  # noqa: F401  (registers, in order)
               calibrate, prevalence, monitor)
from .main import build_parser, console_main, main

__all__ = ["main", "build_parser", "console_main"]
