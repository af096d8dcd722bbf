"""Where tasks run: in this process, in local worker processes, or as Ray tasks on a cluster.

The arena and the leagues hand a function and its tasks to a runner (one duplicate set per
task: seconds to minutes of work, never millisecond tasks), which yields every task with its
result as soon as it finishes, in whatever order they finish. The function must be importable
by name (a module-level function of an installed module), because worker processes and Ray
nodes import it themselves; results are the same wherever a task ran, as long as the function
depends only on its task.

Ray (``callbreak[cluster]``) is imported only when a runner asks for it. Without an address a
local Ray is started for the run and stopped after it; with one (``HOST:PORT`` of a head started
by ``ray start --head``, or ``auto``) the run joins that cluster, whose every node needs the same
versions of Python, Ray and callbreak. A worker process that dies takes only its task in flight
with it: Ray plays that task again (up to :data:`RETRIES` times), elsewhere if the node is gone.

>>> with open_runner(workers=1) as runner:
...     sorted(result for _, result in runner.run(abs, [-2, 1, -3]))
[1, 2, 3]
"""

from __future__ import annotations

import collections
import contextlib
import logging
import multiprocessing
import os
import queue
import re
import signal
import socket
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from types import TracebackType
from typing import Any, Generic, TypeVar

from callbreak.errors import CallbreakError

__all__ = ["RETRIES", "Runner", "WorkerError", "check_address", "open_runner"]

T = TypeVar("T")
R = TypeVar("R")

RETRIES = 5
"""How many times Ray plays a task again after the process or node playing it died."""

LOCAL = "local"
"""The address that starts a Ray of this machine's own for the run."""

_ADDRESS = re.compile(
    r"^(auto|local|ray://[\w.\-\[\]:]+|[\w.\-]+:\d{1,5}|\[[0-9a-fA-F:]+\]:\d{1,5})$"
)

Keys = Callable[[Any], Collection[str]]
"""What a task holds while it runs (a remote bot's address): no two tasks holding the same key
run at once."""


class WorkerError(CallbreakError):
    """The workers cannot run: Ray missing or unreachable, or a task lost too many times."""


def check_address(address: str) -> str:
    """The Ray address, checked for its form: ``local``, ``auto``, ``HOST:PORT`` or
    ``ray://HOST:PORT``.

    >>> check_address("10.0.0.5:6379")
    '10.0.0.5:6379'
    >>> check_address("expert")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    callbreak.workers.WorkerError: not a Ray address: 'expert' (give HOST:PORT, auto, ...)
    """
    if not _ADDRESS.match(address.strip()):
        raise WorkerError(
            f"not a Ray address: {address!r} (give HOST:PORT, auto, or nothing for a local Ray)"
        )
    return address.strip()


class Runner:
    """Runs tasks and yields ``(task, result)`` as each finishes (see :func:`open_runner`)."""

    slots = 1
    """How many tasks run at once (for a cluster: its CPUs when it was last asked)."""

    def run(
        self,
        function: Callable[[T], R],
        tasks: Sequence[T],
        *,
        setup: Callable[[], object] | None = None,
        keys: Keys | None = None,
    ) -> Iterator[tuple[T, R]]:
        """Run ``function`` on every task; ``setup`` runs once in every process that plays,
        before its first task (its failure is ignored: the tasks meet the same problem and
        report it). A task's exception stops the run and is raised here; leaving the loop
        early (Ctrl-C included) stops the tasks in flight."""
        _set_up_once(setup)
        for task in tasks:
            yield task, function(task)

    def close(self) -> None:
        """Free what the runner holds (a local Ray it started)."""

    def __enter__(self) -> Runner:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()


def open_runner(
    *, workers: int | None = None, ray: str | None = None, processes: bool = False
) -> Runner:
    """A runner: with ``ray`` (an address, or ``"local"``) Ray tasks, at most ``workers`` at
    once (default: the cluster's CPUs; a local Ray gets ``workers`` CPUs, default all);
    otherwise ``workers`` local processes (default: one per core), or this process for one
    unless ``processes`` asks for a worker process even then (numba takes its number of
    threads from the environment when a process starts using it: a process of its own is the
    only way to give one worker fewer threads than this process).

    Raises WorkerError when Ray is not installed or cannot be reached."""
    if workers is not None and workers < 1:
        raise WorkerError(f"workers must be 1 or more, not {workers}")
    if ray is not None:
        return RayRunner(check_address(ray), workers)
    workers = workers or os.cpu_count() or 1
    return Runner() if workers == 1 and not processes else ProcessRunner(workers)


def threads_per_worker(workers: int) -> int:
    """numba's threads for each of ``workers`` processes sharing this machine's cores, at
    most ``NUMBA_NUM_THREADS`` when the environment sets it (a busy machine may want one)."""
    share = max(1, (os.cpu_count() or 1) // workers)
    given = os.environ.get("NUMBA_NUM_THREADS", "")
    return min(share, int(given)) if given.isdigit() and int(given) >= 1 else share


# --- scheduling, whatever runs the tasks -------------------------------------------------------

Handle = TypeVar("Handle")


class _Schedule(Generic[T, Handle]):
    """The tasks not started yet, in order, and those in flight with the keys they hold."""

    SCAN = 1000  # pending tasks looked at for one free slot: keys rarely block more than that

    def __init__(self, tasks: Sequence[T], keys: Keys | None) -> None:
        self.pending = collections.deque(tasks)
        self.running: dict[Handle, T] = {}
        self.keys = keys
        self.held: set[str] = set()

    def next_task(self) -> T | None:
        """The first pending task whose keys are free, taken off the queue."""
        for position, task in enumerate(self.pending):
            if position >= self.SCAN:
                break
            needs = set(self.keys(task)) if self.keys else set()
            if not needs & self.held:
                del self.pending[position]
                self.held |= needs
                return task
        return None

    def started(self, handle: Handle, task: T) -> None:
        self.running[handle] = task

    def finished(self, handle: Handle) -> T:
        task = self.running.pop(handle)
        if self.keys:
            self.held -= set(self.keys(task))
        return task

    def __bool__(self) -> bool:
        return bool(self.pending or self.running)


def _set_up_once(setup: Callable[[], object] | None) -> None:
    if setup is not None and _name(setup) not in _DONE:
        _set_up(setup)


_DONE: set[str] = set()


def _set_up(setup: Callable[[], object]) -> None:
    _DONE.add(_name(setup))
    with contextlib.suppress(Exception):
        setup()


def _name(function: Callable[..., object]) -> str:
    return f"{function.__module__}.{function.__qualname__}"


# --- local processes ---------------------------------------------------------------------------


class ProcessRunner(Runner):
    """Tasks in ``workers`` spawned processes of this machine."""

    def __init__(self, workers: int) -> None:
        self.slots = workers

    def run(
        self,
        function: Callable[[T], R],
        tasks: Sequence[T],
        *,
        setup: Callable[[], object] | None = None,
        keys: Keys | None = None,
    ) -> Iterator[tuple[T, R]]:
        """See :meth:`Runner.run`."""
        # Each worker gets its share of the cores for numba's threads, decided before it
        # imports numba; "spawn" keeps the workers free of the parent's threads.
        previous = os.environ.get("NUMBA_NUM_THREADS")
        os.environ["NUMBA_NUM_THREADS"] = str(threads_per_worker(self.slots))
        context = multiprocessing.get_context("spawn")
        # No more processes than tasks: a pool starts all of its processes at once, however
        # few tasks come (a run of one shard asked for 100,000 workers started 100,000).
        processes = max(1, min(self.slots, len(tasks)))
        pool = context.Pool(processes, initializer=_start_worker, initargs=(setup,))
        done: queue.SimpleQueue[tuple[int, bool, Any]] = queue.SimpleQueue()
        schedule: _Schedule[T, int] = _Schedule(tasks, keys)
        count = 0
        try:
            while schedule:
                while len(schedule.running) < self.slots:
                    task = schedule.next_task()
                    if task is None:
                        break
                    count += 1
                    schedule.started(count, task)
                    pool.apply_async(
                        function,
                        (task,),
                        callback=_reporter(done, count, True),
                        error_callback=_reporter(done, count, False),
                    )
                try:
                    # A bounded wait: an unbounded one would not notice Ctrl-C.
                    handle, ok, value = done.get(timeout=0.2)
                except queue.Empty:
                    continue
                task = schedule.finished(handle)
                if not ok:
                    raise value
                yield task, value
            pool.close()
        except BaseException:
            pool.terminate()
            raise
        finally:
            pool.join()
            if previous is None:
                os.environ.pop("NUMBA_NUM_THREADS", None)
            else:
                os.environ["NUMBA_NUM_THREADS"] = previous


def _reporter(
    done: queue.SimpleQueue[tuple[int, bool, Any]], handle: int, ok: bool
) -> Callable[[Any], None]:
    def report(value: Any) -> None:
        done.put((handle, ok, value))

    return report


def _start_worker(setup: Callable[[], object] | None) -> None:
    # Ctrl-C goes to the whole process group; only the parent should act on it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if setup is not None:
        # A failing initializer makes the pool start workers forever; the tasks meet the same
        # problem, where it is reported.
        _set_up(setup)


# --- Ray ---------------------------------------------------------------------------------------


class RayRunner(Runner):
    """Tasks as Ray tasks, one CPU each, on a cluster or on a local Ray started for the run."""

    def __init__(self, address: str, workers: int | None) -> None:
        ray = _import_ray()
        self.workers = workers
        self.connected_here = False
        self._asked = 0.0
        if address != LOCAL:
            _check_reachable(address)
        if ray.is_initialized():
            # Someone (a test, a script under Ray) connected this process already: use that.
            self.threads = 1
        elif address == LOCAL:
            cpus = workers or os.cpu_count() or 1
            self.threads = threads_per_worker(cpus)
            _quiet_ray()
            try:
                with _offline_api_server(ray):
                    ray.init(
                        address=LOCAL,
                        num_cpus=cpus,
                        include_dashboard=False,
                        log_to_driver=False,
                        logging_level="warning",
                        # Results are a few kilobytes: Ray's default takes 30% of the memory.
                        object_store_memory=128 * 2**20,
                    )
            except Exception as error:
                raise WorkerError(f"cannot start a local Ray: {error}") from None
            self.connected_here = True
        else:
            # Every task on a cluster takes one CPU, so each uses one thread.
            self.threads = 1
            _quiet_ray()
            try:
                ray.init(address=address, log_to_driver=False, logging_level="warning")
            except Exception as error:
                raise WorkerError(f"cannot join the Ray cluster at {address}: {error}") from None
            self.connected_here = True
        self.slots = self._slots()

    def _slots(self) -> int:
        if self.workers is not None:
            return self.workers
        now = time.monotonic()
        if now - self._asked > 10:
            # A cluster grows and shrinks as nodes join and leave: ask again now and then.
            self._asked = now
            cpus = _import_ray().cluster_resources().get("CPU", 1)
            self.slots = max(1, int(cpus))
        return self.slots

    def run(
        self,
        function: Callable[[T], R],
        tasks: Sequence[T],
        *,
        setup: Callable[[], object] | None = None,
        keys: Keys | None = None,
    ) -> Iterator[tuple[T, R]]:
        """See :meth:`Runner.run`."""
        ray = _import_ray()
        remote = ray.remote(_call).options(
            name=function.__name__,
            num_cpus=1,
            max_retries=RETRIES,
            runtime_env={"env_vars": {"NUMBA_NUM_THREADS": str(self.threads)}},
        )
        schedule: _Schedule[T, Any] = _Schedule(tasks, keys)
        try:
            while schedule:
                while len(schedule.running) < self._slots():
                    task = schedule.next_task()
                    if task is None:
                        break
                    schedule.started(remote.remote(function, setup, task), task)
                ready, _ = ray.wait(list(schedule.running), num_returns=1, timeout=0.2)
                if ready:
                    more, _ = ray.wait(
                        list(schedule.running), num_returns=len(schedule.running), timeout=0
                    )
                    ready = list(dict.fromkeys([*ready, *more]))
                for handle in ready:
                    task = schedule.finished(handle)
                    yield task, _result(ray, handle, task)
        finally:
            for handle in schedule.running:
                with contextlib.suppress(Exception):
                    ray.cancel(handle, force=True)

    def close(self) -> None:
        """Stop the local Ray this runner started, or leave the cluster it joined."""
        if self.connected_here:
            self.connected_here = False
            _import_ray().shutdown()


def _call(function: Callable[[T], R], setup: Callable[[], object] | None, task: T) -> R:
    """A task as Ray runs it: the process's setup once, then the function."""
    _set_up_once(setup)
    return function(task)


def _result(ray: Any, handle: Any, task: object) -> Any:
    try:
        return ray.get(handle)
    except ray.exceptions.RayTaskError as error:
        cause = error.cause
        if isinstance(cause, CallbreakError):
            raise cause from None  # our own errors keep their one-line message
        raise
    except ray.exceptions.RayError as error:
        raise WorkerError(f"a task could not be played ({task}): {error}") from None


def _check_reachable(address: str) -> None:
    """WorkerError unless a head's ``HOST:PORT`` accepts a connection within a few seconds
    (Ray itself retries an absent head for minutes before it gives up)."""
    host, _, port = address.rpartition(":")
    if not host or "://" in address or not port.isdigit():
        return  # auto, or a ray:// client address: Ray finds or reports those itself
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=5).close()
    except OSError as error:
        reason = error.strerror or str(error) or type(error).__name__
        raise WorkerError(f"cannot reach the Ray head at {address}: {reason}") from None


def _quiet_ray() -> None:
    # Nothing of the run is sent anywhere: no usage statistics.
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    # A local Ray turns on token authentication by itself and says so on every start, over
    # the progress bar: it stays on, silently.
    logging.getLogger("ray._private.authentication.authentication_token_setup").setLevel(
        logging.ERROR
    )


DEAD_PROXY = "http://127.0.0.1:9"
"""A proxy address where nothing listens (the discard port of loopback)."""
PROXY_VARIABLES = ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "no_proxy", "NO_PROXY")


@contextlib.contextmanager
def _offline_api_server(ray: Any) -> Iterator[None]:
    """Start a local Ray's API server process with HTTP proxies that lead nowhere.

    Even without its dashboard and with usage statistics off, Ray 2.60 starts an API server
    whose usage module asks the cloud metadata addresses (169.254.169.254,
    metadata.google.internal) which cloud it runs on. Through a dead loopback proxy those
    requests fail at once, on this machine. Only that process gets the proxies: Ray's own
    connections (gRPC, with proxies turned off by Ray) are unaffected, and the workers, which
    call remote bots, keep the environment as it was. If Ray's internals change, Ray starts
    as it would have.
    """
    services = getattr(getattr(ray, "_private", None), "services", None)
    original = getattr(services, "start_api_server", None)
    if services is None or original is None:
        yield
        return

    def start(*args: Any, **kwargs: Any) -> Any:
        saved = {name: os.environ.get(name) for name in PROXY_VARIABLES}
        for name in PROXY_VARIABLES:
            os.environ[name] = "" if name.lower() == "no_proxy" else DEAD_PROXY
        try:
            return original(*args, **kwargs)
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value

    services.start_api_server = start
    try:
        yield
    finally:
        services.start_api_server = original


def _import_ray() -> Any:
    # Typed Any: Ray is an optional extra imported only here, and its remote functions lose
    # their types through .options() anyway; what this module uses of it is small and tested.
    try:
        import ray
    except ImportError:
        raise WorkerError(
            "running on Ray needs the cluster extra: pip install 'callbreak[cluster]'"
        ) from None
    return ray
