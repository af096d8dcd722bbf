"""Runners: every task once, results as they finish, keys that never overlap, errors raised."""

from __future__ import annotations

import os

import pytest

from callbreak.errors import CallbreakError
from callbreak.workers import DEAD_PROXY, WorkerError, _Schedule, check_address, open_runner
from tests.helpers import free_port
from tests.ray_processes import descendants, environment


class Refused(CallbreakError):
    """A task's own error, which must come back as itself."""


def square(number: int) -> int:
    """A task (module level: worker processes import it by name)."""
    if number < 0:
        raise Refused(f"no square of {number}")
    return number * number


def test_in_process_and_local_processes_run_every_task_once() -> None:
    with open_runner(workers=1) as runner:
        assert sorted(runner.run(square, [3, 1, 2])) == [(1, 1), (2, 4), (3, 9)]
    with open_runner(workers=2) as runner:
        assert sorted(runner.run(square, list(range(6)))) == [(n, n * n) for n in range(6)]


def test_no_more_worker_processes_start_than_there_are_tasks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # `callbreak selfplay --workers 100000` for one shard started a pool of 100,000 processes.
    import multiprocessing

    sizes: list[int] = []
    spawn = multiprocessing.get_context("spawn")

    class Context:
        def __init__(self, _method: str) -> None:
            pass

        def Pool(self, processes: int, *args: object, **kwargs: object) -> object:
            sizes.append(processes)
            return spawn.Pool(processes, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(multiprocessing, "get_context", Context)  # the module workers uses
    with open_runner(workers=64) as runner:
        assert sorted(runner.run(square, [1, 2])) == [(1, 1), (2, 4)]
    assert sizes == [2]


def numba_threads(_task: int) -> int:
    """The number of threads numba gives the process that runs the task."""
    import numba

    return int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]


def test_one_worker_in_a_process_of_its_own_takes_numbas_threads_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # An arena under a clock sets NUMBA_NUM_THREADS=1 for its workers; this process's numba
    # may have started its threads already, so even one worker runs in a process of its own.
    import numba

    numba.get_num_threads()  # this process's threads are running
    monkeypatch.setenv("NUMBA_NUM_THREADS", "1")
    with open_runner(workers=1, processes=True) as runner:
        assert list(runner.run(numba_threads, [0])) == [(0, 1)]


def test_a_task_error_stops_the_run_and_is_raised_as_itself() -> None:
    with open_runner(workers=2) as runner, pytest.raises(Refused, match="no square of -1"):
        list(runner.run(square, [1, -1, 2]))


def test_keys_keep_two_tasks_apart() -> None:
    keys = {"a1": {"bot"}, "a2": {"bot"}, "b": set(), "a3": {"bot"}}
    schedule: _Schedule[str, int] = _Schedule(list(keys), keys.__getitem__)
    first = schedule.next_task()
    assert first == "a1"
    schedule.started(1, first)
    second = schedule.next_task()
    assert second == "b"  # a2 waits for the bot
    schedule.started(2, second)
    assert schedule.next_task() is None
    assert schedule.finished(1) == "a1"
    assert schedule.next_task() == "a2"


def test_bad_settings() -> None:
    assert check_address(" auto ") == "auto"
    assert check_address("ray://head:10001") == "ray://head:10001"
    with pytest.raises(WorkerError, match="not a Ray address: 'expert'"):
        open_runner(ray="expert")
    with pytest.raises(WorkerError, match="workers must be 1 or more"):
        open_runner(workers=0)
    port = free_port()
    with pytest.raises(WorkerError, match=f"cannot reach the Ray head at 127.0.0.1:{port}: "):
        open_runner(ray=f"127.0.0.1:{port}")


def test_ray_tasks_and_their_errors(local_ray: str) -> None:
    with open_runner(ray="local") as runner:
        assert runner.slots == 2
        assert sorted(runner.run(square, [2, 3])) == [(2, 4), (3, 9)]
        with pytest.raises(Refused, match=r"^no square of -2$"):
            list(runner.run(square, [-2]))


def proxy(_task: int) -> str | None:
    """The HTTP proxy a Ray task sees."""
    return os.environ.get("http_proxy")


def test_the_local_rays_api_server_cannot_reach_out(local_ray: str) -> None:
    servers = [
        pid
        for pid, line in descendants().items()
        if any(part.endswith("dashboard/dashboard.py") for part in line)
    ]
    assert servers, "no API server process found"
    # Its usage module asks cloud metadata addresses whatever the settings: through a dead
    # loopback proxy, and nowhere else.
    assert all(environment(pid).get("http_proxy") == DEAD_PROXY for pid in servers)
    with open_runner(ray="local") as runner:
        assert list(runner.run(proxy, [0])) == [(0, os.environ.get("http_proxy"))]
