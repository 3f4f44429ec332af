"""What every registry of ``spe`` shares (families, score models, metrics, commands, ``spe suggest``'s targets and
strategies): an entry joins under its name once."""

from __future__ import annotations

__all__ = ["add_unique"]


def add_unique(registry, name, entry, kind):
    """Add ``entry`` to the dict ``registry`` under ``name``; returns ``entry``.

    Raises
    ------
    ValueError
        ``name`` is in ``registry`` already (a programming error: two modules registering one name), saying
        which ``kind`` of entry it is.
    """
    if name in registry:
        raise ValueError(f"a {kind} named {name!r} is already registered (a name registered already is never "
                         "replaced)")
    registry[name] = entry
    return entry
