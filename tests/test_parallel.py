"""Parallel screening and label draws: same results as one by one, clear errors, and a safe fallback."""

import os
import signal

import numpy as np
import pytest

from spe.models.mixture.fit import SCREENING_RESOLUTION
from spe.models.mixture import MixtureData
from spe.exceptions import SpeInputError
from spe.parallel import MAX_AUTO_WORKERS, TaskPool, can_fork, resolve_workers, thread_map, usable_cpus
from spe.models.mixture.select import parse_families, rank_family_pairs

from .conftest import simulate

needs_fork = pytest.mark.skipif(not can_fork(), reason="workers are forked processes only on Linux")


def _exit_in_worker(parent, value):
    """A task that kills the worker process it runs in (but not the test process)."""
    if os.getpid() != parent:
        os._exit(1)
    return value * 2


@pytest.mark.parametrize("value, expected", [(1, 1), (3, 3), (2.0, 2), (1000, 1000)])
def test_resolve_workers_caps_at_the_usable_cores(value, expected):
    assert resolve_workers(value) == min(expected, usable_cpus())
    assert 1 <= resolve_workers(None) <= min(MAX_AUTO_WORKERS, usable_cpus())


@pytest.mark.parametrize("value", [0, -2, 1.5, "2", [2], True])
def test_resolve_workers_rejects_bad_values(value):
    with pytest.raises(SpeInputError, match="workers: must be None"):
        resolve_workers(value)


@needs_fork
def test_task_pool_runs_tasks_in_worker_processes_in_order():
    with TaskPool(2) as pool:
        assert pool.map(pow, [2, 3, 4], [3, 2, 1]) == [8, 9, 4]
        pids = pool.map(_pid, range(6))
    assert os.getpid() not in pids


def _pid(_):
    return os.getpid()


def test_task_pool_with_one_worker_runs_here():
    with TaskPool(1) as pool:
        assert pool.map(_pid, range(3)) == [os.getpid()] * 3


def test_task_exceptions_reach_the_caller():
    with TaskPool(2) as pool, pytest.raises(ValueError, match="invalid literal"):
        pool.map(int, ["1", "x"])


@needs_fork
def test_task_pool_falls_back_to_this_process_when_a_worker_dies():
    parent = os.getpid()
    with TaskPool(2) as pool:
        assert pool.map(_exit_in_worker, [parent] * 3, [1, 2, 3]) == [2, 4, 6]
        assert pool.workers == 1


def _scaled(shared, v):
    return shared["scale"] * v, os.getpid()


def _scaled_or_exit(shared, parent, v):
    if os.getpid() != parent:
        os._exit(1)
    return shared["scale"] * v


@pytest.mark.parametrize("workers", [1, pytest.param(2, marks=needs_fork)])
def test_shared_data_reach_every_task_without_module_state(workers):
    """``map_shared`` hands each task the pool's ``shared`` object: in forked workers (received once through the
    pool's initializer), in this process, and after a worker died and the pool fell back to this process."""
    with TaskPool(workers, shared={"scale": 3}) as pool:
        out = pool.map_shared(_scaled, [1, 2, 3])
    assert [v for v, _ in out] == [3, 6, 9]
    assert (os.getpid() in {pid for _, pid in out}) == (workers == 1)


@needs_fork
def test_shared_data_survive_the_fallback_to_this_process():
    with TaskPool(2, shared={"scale": 5}) as pool:
        assert pool.map_shared(_scaled_or_exit, [os.getpid()] * 3, [1, 2, 3]) == [5, 10, 15]
        assert pool.workers == 1


#: Armed by the test below: the next fork's callback in the parent sends this process a SIGINT (registered once
#: per process; ``os.register_at_fork`` cannot be undone).
_INTERRUPT_NEXT_FORK = []


def _interrupt_in_fork_callback():
    if _INTERRUPT_NEXT_FORK:
        _INTERRUPT_NEXT_FORK.clear()
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(1000):  # Python runs the handler here, inside the callback, where CPython discards its error
            pass


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_parent=_interrupt_in_fork_callback)


@needs_fork
def test_a_ctrl_c_while_the_workers_fork_interrupts_the_pool():
    """A KeyboardInterrupt raised in os.fork's callbacks in the parent is printed and discarded by CPython: a
    Ctrl-C that lands there (at the start of the family screening) used to be lost, and the run went on."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # SIG_IGN when pytest runs in the background
    try:
        with pytest.raises(KeyboardInterrupt):
            with TaskPool(2) as pool:
                _INTERRUPT_NEXT_FORK.append(True)
                pool.map(pow, [2, 3, 4], [3, 2, 1])
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back
        with TaskPool(2) as pool:  # no interrupt: as before
            assert pool.map(pow, [2, 3, 4], [3, 2, 1]) == [8, 9, 4]
    finally:
        _INTERRUPT_NEXT_FORK.clear()
        signal.signal(signal.SIGINT, before)


def test_thread_map_keeps_order():
    assert thread_map(lambda v: v * v, range(10), 3) == [v * v for v in range(10)]
    assert thread_map(lambda v: v + 1, [5], 4) == [6]


@pytest.mark.slow
def test_screening_ranking_does_not_depend_on_workers():
    s, y = simulate(600, 0.3, seed=5)
    index = np.array([0, 1, 2, 3, 4, 5, 6, 7])
    x = (s - s.min()) / (s.max() - s.min()) * 0.98 + 0.01
    data = MixtureData.build(x, index, y[index], resolution=SCREENING_RESOLUTION)
    pairs = parse_families("auto", "decision")
    runs = [rank_family_pairs(x, data, pairs, screen_data=data, top=float(x.max()), bottom=float(x.min()),
                              extend=("trunct", "asymgauss"), workers=w) for w in (1, 2)]
    assert [f.mixture.name for f in runs[0]] == [f.mixture.name for f in runs[1]]
    for a, b in zip(*runs):
        np.testing.assert_array_equal(a.u_map, b.u_map)
        assert a.schwarz == b.schwarz


def test_evaluate_and_cli_reject_bad_workers(tmp_path, capsys):
    import spe
    from spe.cli import main

    with pytest.raises(ValueError, match="workers"):
        spe.evaluate(np.linspace(0, 1, 50), {0: 1, 49: 0}, workers=0)
    path = tmp_path / "s.csv"
    path.write_text("score\n" + "\n".join(map(str, np.linspace(0, 1, 50))) + "\n")
    assert main(["estimate", str(path), "--workers", "0"]) == 2
    assert "--workers" in capsys.readouterr().err


@pytest.mark.slow
def test_evaluate_gives_the_same_answer_for_any_workers():
    import spe

    s, y = simulate(1500, 0.2, seed=8)
    labels = {int(i): int(y[i]) for i in np.random.default_rng(1).choice(s.size, 20, replace=False)}
    a, b = (spe.evaluate(s, labels, draws=200, rng=3, workers=w) for w in (1, 2))
    np.testing.assert_array_equal(a.performance.prevalence, b.performance.prevalence)
    np.testing.assert_array_equal(a.performance.precision_at_recall, b.performance.precision_at_recall)
    assert a.to_dict() == b.to_dict()
