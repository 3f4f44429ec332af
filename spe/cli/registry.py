"""The command registry: each ``spe`` subcommand is one module that declares itself here.

A command module defines its ``--help`` text, a function that adds its
options to its parser and a function that runs it, and ends with
``register(Command(...))``; ``spe/cli/__init__.py`` imports it. The parser
(:func:`spe.cli.main.build_parser`), the dispatch and the list of commands in
the messages come from :data:`COMMANDS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..registries import add_unique

__all__ = ["Command", "COMMANDS", "register"]


@dataclass(frozen=True)
class Command:
    """One ``spe`` subcommand.

    Attributes
    ----------
    name : str
        ``spe NAME``.
    help : str
        One line for ``spe --help``.
    description : str
        Its ``spe NAME --help`` text (examples keep their line breaks).
    add_arguments : callable
        ``argparse.ArgumentParser`` → None: adds the command's options
        (shared ones from :mod:`spe.cli.options`).
    run : callable
        The parsed ``argparse.Namespace`` → exit status. Reads, computes
        through the library and ends with :func:`spe.cli.common.finish`
        (outputs all or none, then the text); raises
        :class:`~spe.SpeInputError` on bad input (exit 2).
    number_options : tuple of str
        Its options whose value may be a negative number such as
        ``-1e-05`` (argparse would take it for an option).
    """

    name: str
    help: str
    description: str
    add_arguments: Callable
    run: Callable
    number_options: tuple = ()


#: Every command by name, in the order of ``spe --help``.
COMMANDS: dict[str, Command] = {}


def register(command):
    """Add a :class:`Command` (its module calls this when imported); returns it.

    Raises
    ------
    ValueError
        A command of that name is registered already.
    """
    return add_unique(COMMANDS, command.name, command, "command")
