"""Progress of the long stages: a bar on standard error for each (tqdm), and its time in the log.

An estimate spends seconds to minutes in a few stages (the family
screening, the posterior sampling, the score models, the label draws; NUTS
in PyMC's own bar). :func:`stage` wraps one: while it runs, a bar on
standard error counts its steps (when bars are shown, see :func:`shown`),
and when it ends its wall time is logged at INFO to the ``"spe"`` logger
(``spe -v``, or ``logging.getLogger("spe").setLevel(logging.INFO)`` with a
handler, shows it). Whether bars are shown is set once per call of the
library (:func:`shown`, from ``spe.evaluate(progressbar=...)``): by
default only when standard error is a terminal or the code runs in a
Jupyter kernel, so that pipes, logs and tests stay clean. The bars are
removed when their stage ends (``leave=False``): what is left is the
result.

Steps are counted where the work is split anyway (family pairs, score
models, blocks of posterior draws), through the :class:`Stage` handle that
:func:`stage` yields. A bar's total is known when its stage starts, or the
bar shows no percentage (``total=None``: the stage's name and how long it has
run): work that appears later (the pairs of each class's best families, more
starts for the best pairs) is a stage of its own, never a total that grows.
"""

from __future__ import annotations

import logging
import sys
import time
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["stage", "Stage", "NO_PROGRESS", "shown", "showing", "resolve_progressbar", "LOGGER", "quiet_stages"]

#: The logger of the stages' timings (INFO) and starts (DEBUG).
LOGGER = logging.getLogger("spe")

_SHOW = ContextVar("spe_progress_show", default=None)  # None: no call has set it
_DEPTH = ContextVar("spe_progress_depth", default=0)  # bars open: where the next one is drawn


def _in_notebook() -> bool:
    """Whether this process is a Jupyter kernel (its standard error is shown under the cell, not a terminal)."""
    shell = sys.modules.get("IPython")
    get = getattr(shell, "get_ipython", None)
    return get is not None and type(get()).__name__ == "ZMQInteractiveShell"


def resolve_progressbar(progressbar) -> bool:
    """``progressbar`` True or False as given; None: show bars when standard error is a terminal or in a
    Jupyter notebook."""
    if progressbar is None:
        return bool(getattr(sys.stderr, "isatty", lambda: False)()) or _in_notebook()
    return bool(progressbar)


def showing() -> bool:
    """Whether bars are shown in the current call (PyMC's bar follows it)."""
    return bool(_SHOW.get())


@contextmanager
def shown(progressbar):
    """Within the block, show the stages' bars or not (:func:`resolve_progressbar` of ``progressbar``); None
    inside an outer block keeps the outer choice (``spe.compare`` → ``fit_scores``, ``spe -q``)."""
    outer = _SHOW.get()
    token = _SHOW.set(outer if progressbar is None and outer is not None else resolve_progressbar(progressbar))
    try:
        yield
    finally:
        _SHOW.reset(token)


def _bar(name, total, unit):
    from tqdm import tqdm

    # a stage without a count of steps shows its name and how long it has run
    return tqdm(total=total, desc=name, unit=unit, leave=False, file=sys.stderr, dynamic_ncols=True,
                position=_DEPTH.get(), mininterval=0.2,
                bar_format=None if total is not None else "{desc}: {elapsed}")


class Stage:
    """The handle of an open :func:`stage`: advance its bar. Its total is fixed when the stage starts (a bar
    whose total grew would fall back, 100% → 60%): work found later is a stage of its own."""

    def __init__(self, bar):
        self._bar = bar

    def advance(self, n=1):
        """n more steps done; safe from worker threads (tqdm locks its updates)."""
        if self._bar is not None:
            self._bar.update(n)

    def counted(self, results):
        """The items of ``results`` (an iterable), advancing by one as each arrives."""
        for r in results:
            self.advance()
            yield r


#: A stage that shows nothing: the default where a function may be given one.
NO_PROGRESS = Stage(None)


@contextmanager
def stage(name, total=None, unit="step"):
    """One long stage, as ``with stage(name, total) as s: ... s.advance()``: a bar of ``total`` steps (None: a
    count without an end) while bars are shown, and ``"<name>: <seconds> s"`` logged at INFO to
    :data:`LOGGER` when it ends (also when it fails)."""
    LOGGER.debug("%s ...", name)
    start = time.perf_counter()
    bar = _bar(name, total, unit) if showing() else None
    token = _DEPTH.set(_DEPTH.get() + (bar is not None))
    try:
        yield Stage(bar)
    finally:
        _DEPTH.reset(token)
        if bar is not None:
            bar.close()
        LOGGER.info("%s: %.2f s", name, time.perf_counter() - start)


@contextmanager
def quiet_stages():
    """Within the block, the stages log nothing below WARNING (a caller that runs many estimates logs one line for
    each instead of each one's stages: ``spe monitor -v``, one line per chunk)."""
    level = LOGGER.level
    LOGGER.setLevel(max(level, logging.WARNING))
    try:
        yield
    finally:
        LOGGER.setLevel(level)
