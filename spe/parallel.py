"""Using several cores: the family screening in processes, the label draws in threads.

Choosing the class-conditional families (paper §4.2) fits some twenty
family pairs by MAP, each independent of the others and each a
deterministic function of the same (coarse) data; it is the largest part of
``spe.evaluate``'s time that does not grow with N. :class:`TaskPool` maps
such fits over worker processes with the standard library's
``concurrent.futures``. The label draws and curves of blocks of posterior
draws (:func:`spe.performance.sample_performance`) spend their time in numpy
calls that release the GIL, so :func:`thread_map` runs them in threads,
on every platform.

Workers are *forked* from the calling process (Linux only): they inherit
the scores and the coarse data instead of receiving pickled copies, and
they start in milliseconds because ``spe``, numpy and scipy are already
imported. Elsewhere (macOS, Windows, where forking a process that holds
threads is unsafe or impossible), inside a daemonic process (which may not
have children), with one usable core or with ``workers=1``, the tasks run
one after the other in this process. Either way the results are the same,
in the same order: each task is a pure function of its arguments.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
import warnings
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from .exceptions import SpeInputError, plain
from .progress import NO_PROGRESS

__all__ = ["TaskPool", "thread_map", "resolve_workers", "usable_cpus", "can_fork", "MAX_AUTO_WORKERS"]

#: ``workers=None`` uses the usable cores, at most this many (the screening has about twenty tasks).
MAX_AUTO_WORKERS = 8


def usable_cpus():
    """Number of CPU cores this process may run on (its affinity mask where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def can_fork():
    """True where :class:`TaskPool` forks workers: Linux, and not inside a daemonic process."""
    return (sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()
            and not multiprocessing.current_process().daemon)


def resolve_workers(workers):
    """The number of workers (processes or threads) for ``workers``.

    Parameters
    ----------
    workers : int or None
        None: the usable cores (:func:`usable_cpus`), at most
        :data:`MAX_AUTO_WORKERS`; k ≥ 1: k, at most the usable cores
        (more would only share them: 1,000 forked workers took 51 s for
        what 2 do in 3 s); 1: no parallelism.

    Returns
    -------
    int
        ≥ 1.

    Raises
    ------
    SpeInputError
        If ``workers`` is not None or a positive integer.
    """
    if workers is None:
        return min(usable_cpus(), MAX_AUTO_WORKERS)
    try:
        n = int(workers)
        ok = not isinstance(workers, bool) and n == workers and n >= 1
    except (TypeError, ValueError, OverflowError):
        ok = False
    if not ok:
        raise SpeInputError(f"must be None (all usable cores) or a positive integer, got {plain(workers)!r}",
                            argument="workers")
    return min(n, usable_cpus())


@contextlib.contextmanager
def one_blas_thread():
    """BLAS (and OpenMP) limited to one thread inside the block, as before it after (``threadpoolctl``).

    spe's matrix products are small (draws × bins); a BLAS thread pool only
    adds its threads' spinning to spe's own workers and threads, or to
    whatever else runs on the machine. Measured on 2 cores (an
    ``spe.evaluate`` of 20,000 items): 3.1 s against 3.5 s idle, 6.2 s
    against 7.2 s with two other busy processes; the same numbers either way.
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        yield


@contextlib.contextmanager
def _forking():
    """The block forks worker processes: without the warning Python ≥ 3.12 gives on fork() while threads exist
    (numpy's BLAS pool always does; the workers only run numpy/scipy on the data they inherit, and a pool that
    fails falls back to this process), and with a Ctrl-C (SIGINT) during the block held and raised when it
    ends, by the handler that was in place.

    ``os.fork`` runs Python callbacks in the parent right after the fork (``logging`` releases its lock
    there), and CPython prints and discards an exception raised inside them: a KeyboardInterrupt that
    landed in that window was lost, and the run went on to its end (seen at the start of the family
    screening). The interrupt is held only in the main thread, and only when Ctrl-C is handled by Python code
    (not ignored).
    """
    previous = signal.getsignal(signal.SIGINT)
    hold = callable(previous) and threading.current_thread() is threading.main_thread()
    held = []
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*fork\(\) may lead to deadlocks", category=DeprecationWarning)
        if hold:
            signal.signal(signal.SIGINT, lambda signum, frame: held.append(frame))
        try:
            yield
        finally:
            if hold:
                signal.signal(signal.SIGINT, previous)
    if held:
        previous(signal.SIGINT, held[0])


def thread_map(fn, items, workers):
    """``[fn(item) for item in items]``, over ``workers`` threads when more than one.

    For tasks that spend their time in numpy and scipy calls that release
    the GIL on large arrays (ufuncs, ``Generator.binomial``): the threads
    then use the cores in parallel. ``fn`` must be safe to call
    concurrently; the results come back in the order of ``items``.
    """
    items = list(items)
    if workers <= 1 or len(items) <= 1:
        return [fn(item) for item in items]
    pool = ThreadPoolExecutor(min(workers, len(items)))
    try:
        return list(pool.map(fn, items))
    finally:  # on an interrupt, the tasks not yet started are dropped instead of run to the end
        pool.shutdown(wait=True, cancel_futures=True)


#: In a worker process only: the ``shared`` object of the :class:`TaskPool` that forked it (set by its
#: initializer; the parent process never sets it).
_WORKER_SHARED = None


def _call_with_shared(fn, *args):
    """A worker's task of :meth:`TaskPool.map_shared`: ``fn(shared, *args)``."""
    return fn(_WORKER_SHARED, *args)


def _init_worker(shared=None):
    """Worker initializer: the pool's ``shared`` object, one BLAS thread per worker, and Ctrl-C left to the parent.

    The tasks are many small array operations; a forked worker's own BLAS
    thread pool (OpenBLAS spins its threads between calls) competed with
    the other workers for the cores and made each task 3–4× slower. A
    Ctrl-C at the terminal reaches every process of the group: the workers
    ignore it (each would print its own traceback) and the parent, which
    stops them (:meth:`TaskPool.close`), reports it once.
    """
    global _WORKER_SHARED
    _WORKER_SHARED = shared
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)


class TaskPool:
    """Map independent tasks over forked worker processes, or run them here.

    A context manager; the processes are started at the first
    :meth:`map` that has more than one task, from the state of the process
    at that moment, and stopped on exit; data many tasks read travel once,
    as ``shared`` (:meth:`map_shared`). If the pool cannot start or a worker dies
    (``OSError``, ``BrokenProcessPool``), the tasks are run in this process
    instead, with the same results; an exception raised by a task itself is
    raised again here, as it would be without workers.

    Parameters
    ----------
    workers : int or None
        As :func:`resolve_workers`.
    shared : object, optional
        Data every task of :meth:`map_shared` reads (e.g. the scores and the
        coarse data of the family screening): the forked workers receive it
        once, through the pool's initializer, instead of a pickled copy per
        task.

    Examples
    --------
    >>> from spe.parallel import TaskPool
    >>> with TaskPool(workers=2) as pool:
    ...     pool.map(abs, [-1, 2, -3])
    [1, 2, 3]
    """

    def __init__(self, workers=None, shared=None):
        self.shared = shared
        n = resolve_workers(workers)
        self.workers = n if n > 1 and can_fork() else 1
        self._executor = None
        self._before = set()  # the children that existed before the executor started (not ours to end)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, *exc):
        self.close(terminate=exc_type is not None)
        return False

    def close(self, terminate=False):
        """Stop the worker processes: wait for running tasks, or with ``terminate`` (on an error or an
        interrupt) end them at once."""
        if self._executor is None:
            return
        executor, self._executor = self._executor, None
        # every child started since the executor was (it starts workers on demand), so that an interrupt at any
        # moment leaves none behind
        processes = set(multiprocessing.active_children()) - self._before
        executor.shutdown(wait=not terminate, cancel_futures=True)
        if terminate:
            for p in processes:
                p.terminate()
            for p in processes:
                p.join(5)

    def map(self, fn, *iterables):
        """``[fn(*args) for args in zip(*iterables)]``, over the workers when there are any.

        ``fn`` must be a module-level function and the arguments and
        results picklable (they travel between processes).
        """
        tasks = list(zip(*iterables))
        results = self._in_workers(fn, tasks)
        return results if results is not None else [fn(*args) for args in tasks]

    def map_shared(self, fn, *iterables, progress=NO_PROGRESS):
        """``[fn(shared, *args) for args in zip(*iterables)]``, over the workers when there are any: each task
        reads the pool's ``shared`` object, which the workers received once when they started. ``progress``
        (a :class:`spe.progress.Stage`) advances by one as each result arrives."""
        tasks = list(zip(*iterables))
        results = self._in_workers(_call_with_shared, [(fn, *args) for args in tasks], progress)
        return results if results is not None else list(progress.counted(fn(self.shared, *args) for args in tasks))

    def _in_workers(self, fn, tasks, progress=NO_PROGRESS):
        """The results of ``fn`` on each task (a tuple of arguments) from the workers, or None when they cannot
        run them (one worker, one task, no fork, or a pool that broke: then never again in this pool)."""
        if self.workers <= 1 or len(tasks) <= 1:
            return None
        try:
            if self._executor is None:
                self._before = set(multiprocessing.active_children())
                self._executor = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("fork"),
                                                     initializer=_init_worker, initargs=(self.shared,))
            with _forking():
                results = self._executor.map(fn, *zip(*tasks))  # submits every task: the workers start
            return list(progress.counted(results))
        except (OSError, BrokenProcessPool):
            self.close()
            self.workers = 1
            return None
