"""The computers' searches of a server process: off the event loop, a bounded number at once, and
taken in turn between the tables that wait.

A search is a computer's decision that searches with the compiled kernel (a player whose
``kernel_functions`` names any for that decision: the expert, IS-MCTS): up to two seconds of
one or two cores (``model.OFFERED``). Each runs on a thread of :class:`Searches` (the kernel
lets go of the interpreter's lock while it searches, so the event loop that serves every table
of the process goes on meanwhile), at most ``most`` at once in the process and at most
``per_client`` for one client: the address that created the table (or, for a table this
process did not create, the first seated socket's here). The others wait in a fair queue: the
next to run is the waiting search of the client served longest ago (one never served, or not
for a long while, first), and within that client, of its table served longest ago. So one
client with six tables of experts takes turns with another client's one table, never ahead of
it, even though that one table asks only after each of its decisions is made; and with
``per_client`` below ``most`` another client's search always finds a free thread. Decisions
that do not search (the casual levels' policy of microseconds, a remote bot's answer) run at
once, on a thread of the event loop's own pool.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import itertools
import threading
from collections import deque
from collections.abc import Callable
from typing import Any, TypeVar

from starlette.concurrency import run_in_threadpool

from callbreak.game import Observation
from callbreak.players import Player
from callbreak.web.limits import DEFAULT

__all__ = ["Searches", "searches"]

T = TypeVar("T")


def searches(player: Player | None, observation: Observation) -> bool:
    """Whether ``player``'s decision in ``observation`` searches (calls the compiled kernel):
    then it waits its turn in :class:`Searches`. A person (None) does not."""
    calling = bool(observation.legal_calls) or observation.may_claim_redeal
    return player is not None and bool(player.kernel_functions(calling))


MAX_REMEMBERED = 10_000
"""Clients and tables whose last turn is remembered: past it the longest ago are forgotten,
which only moves them from "served longest ago" to "never served", the same place."""


@dataclasses.dataclass
class _Job:
    work: Callable[[], Any]
    future: concurrent.futures.Future[Any]


@dataclasses.dataclass
class _Client:
    running: int = 0
    tables: dict[str, deque[_Job]] = dataclasses.field(default_factory=dict)
    """The waiting jobs by table, in the order the tables came."""


class _Turns:
    """When each key (a client, a client's table) was last served: -1 for never."""

    def __init__(self) -> None:
        self._last: dict[object, int] = {}

    def of(self, key: object) -> int:
        return self._last.get(key, -1)

    def served(self, key: object, turn: int) -> None:
        self._last.pop(key, None)
        self._last[key] = turn  # the dict stays in the order of the turns: oldest first
        if len(self._last) > MAX_REMEMBERED:
            del self._last[next(iter(self._last))]


class Searches:
    """The searches of one process: at most ``most`` running, at most ``per_client`` of one
    client, the rest queued fairly between clients and, within a client, between tables."""

    def __init__(
        self, most: int = DEFAULT.searches, per_client: int = DEFAULT.client_searches
    ) -> None:
        if most < 1 or per_client < 1:
            raise ValueError(f"searches at once are 1 or more, not {most} and {per_client}")
        self.most = most
        self.per_client = per_client
        self._clients: dict[str, _Client] = {}
        self._running = 0
        self._closed = False
        self._turn = itertools.count()
        self._clients_turns, self._tables_turns = _Turns(), _Turns()
        # Guards everything above: jobs are queued from the event loop (any loop: a test's
        # clients may run their own) and finish on the pool's threads.
        self._lock = threading.Lock()
        self._pool = concurrent.futures.ThreadPoolExecutor(most, thread_name_prefix="computer")

    @property
    def running(self) -> int:
        """Searches running now."""
        return self._running

    @property
    def waiting(self) -> int:
        """Searches waiting for their turn now (a cancelled one until its turn comes)."""
        with self._lock:
            return sum(
                len(jobs) for client in self._clients.values() for jobs in client.tables.values()
            )

    def submit(
        self, table: str, client: str, work: Callable[[], T]
    ) -> concurrent.futures.Future[T]:
        """Queue ``work()`` for ``table`` of ``client``; its future. A future cancelled while it
        waits is dropped when its turn comes; one that runs is counted until it ends."""
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        with self._lock:
            if self._closed:  # the process is shutting down: nothing more starts
                future.cancel()
                return future
            held = self._clients.setdefault(client, _Client())
            held.tables.setdefault(table, deque()).append(_Job(work, future))
            started = self._start()
        self._launch(started)
        return future

    async def run(self, table: str, client: str, work: Callable[[], T]) -> T:
        """``work()`` in its turn (:meth:`submit`), awaited; a caller cancelled while it waits
        takes it out of the queue."""
        return await asyncio.wrap_future(self.submit(table, client, work))

    async def decide(
        self,
        table: str,
        client: str,
        player: Player | None,
        observation: Observation,
        work: Callable[[], T],
    ) -> T:
        """``work()``, the decision of ``player`` in ``observation``: in its turn when it
        searches (:func:`searches`), otherwise at once on a thread."""
        if searches(player, observation):
            return await self.run(table, client, work)
        return await run_in_threadpool(work)

    def _start(self) -> list[tuple[str, _Job]]:
        """The jobs to start now, taken off the queue in their turn (the lock is held)."""
        started: list[tuple[str, _Job]] = []
        while self._running < self.most and not self._closed:
            ready = [
                name
                for name, client in self._clients.items()
                if client.tables and client.running < self.per_client
            ]
            if not ready:
                break
            name = min(ready, key=self._clients_turns.of)  # the first of equals: who came first
            client = self._clients[name]
            table = min(client.tables, key=lambda key: self._tables_turns.of((name, key)))
            jobs = client.tables[table]
            job = jobs.popleft()
            if not jobs:
                del client.tables[table]
            if not job.future.set_running_or_notify_cancel():
                self._forget(name, client)  # its caller stopped waiting before its turn
                continue
            turn = next(self._turn)
            self._clients_turns.served(name, turn)
            self._tables_turns.served((name, table), turn)
            client.running += 1
            self._running += 1
            started.append((name, job))
        return started

    def _forget(self, name: str, client: _Client) -> None:
        """Drop a client with nothing waiting or running (its last turn is remembered)."""
        if not client.tables and not client.running:
            del self._clients[name]

    def _launch(self, started: list[tuple[str, _Job]]) -> None:
        for name, job in started:
            try:
                self._pool.submit(self._execute, name, job)
            except RuntimeError as error:  # closed meanwhile: the process is shutting down
                job.future.set_exception(error)

    def _execute(self, name: str, job: _Job) -> None:
        try:
            result = job.work()
        except BaseException as error:  # handed to the caller, whatever it is
            job.future.set_exception(error)
        else:
            job.future.set_result(result)
        finally:
            with self._lock:
                client = self._clients[name]
                client.running -= 1
                self._running -= 1
                self._forget(name, client)
                started = self._start()
            self._launch(started)

    def close(self) -> None:
        """Start nothing more: the waiting searches are cancelled, the running ones end on
        their own and their threads then go."""
        with self._lock:
            self._closed = True
            for client in self._clients.values():
                for jobs in client.tables.values():
                    for job in jobs:
                        job.future.cancel()
                client.tables.clear()
        self._pool.shutdown(wait=False)
