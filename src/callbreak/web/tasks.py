"""A table's parts and tasks: what each part needs of the others, how the tasks start, wait and
end.

A live table (``web.live.LiveTable``) is made of parts with one owner each, which reach each
other through it: :class:`Host` names what they need of it, here, below them all, so that no
part imports another's module in a loop. It runs two tasks while a process has connections to
it: the listener (``web.listener``), which hears the other processes' changes, and the driver
(``web.driver``). Both are a :class:`TableTask`, started with :func:`spawn`; they wait with
:func:`within` (never ``asyncio.wait_for``), and for the store with :func:`until_store_answers`
when it is out of reach.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
from collections.abc import Awaitable, Coroutine
from typing import Any, Protocol, TypeVar

from callbreak.web.actions import TableAction
from callbreak.web.backend import OWNER, Backend
from callbreak.web.http import LOG
from callbreak.web.hub import Hub
from callbreak.web.metrics import Metrics
from callbreak.web.searches import Searches
from callbreak.web.state import TableState

__all__ = [
    "LEASE_SECONDS",
    "Counting",
    "Driving",
    "Host",
    "Keeping",
    "TableTask",
    "Telling",
    "leased",
    "pace",
    "spawn",
    "until_store_answers",
    "within",
]

T = TypeVar("T")
LEASE_SECONDS = 9.0
"""How long a driver's lease lasts unless renewed (renewed every third of it); what a table's
task waits at most when nothing calls for it."""


class Keeping(Protocol):
    """What the other parts need of the one that stores (``web.sync.Sync``)."""

    async def act(
        self, seat: int, action: TableAction, version: object, faults: list[dict[str, Any]]
    ) -> None: ...
    async def catch_up(self) -> None: ...


class Telling(Protocol):
    """What the other parts need of the listener (``web.listener.Listener``)."""

    async def announce(self, event: dict[str, Any]) -> None: ...


class Driving(Protocol):
    """What the other parts need of the driver (``web.driver.Driver``)."""

    changed: asyncio.Event

    def start(self) -> None: ...


class Counting(Protocol):
    """What the other parts need of the presence (``web.presence.Presence``)."""

    def reseat(self) -> None: ...
    async def recount(self) -> None: ...
    async def refresh(self) -> None: ...


class Host(Protocol):
    """What a table's parts need of the table they belong to (``web.live.LiveTable``): its
    state and hub, the store, the figures, where its computers search and whom for, the other
    parts, and its tasks started or stopped."""

    state: TableState
    hub: Hub
    backend: Backend
    metrics: Metrics
    searches: Searches
    client: str | None

    @property
    def sync(self) -> Keeping: ...
    @property
    def listener(self) -> Telling: ...
    @property
    def driver(self) -> Driving: ...
    @property
    def presence(self) -> Counting: ...
    def start(self) -> None: ...
    def stop(self) -> None: ...


async def until_store_answers(host: Host) -> None:
    """Return as soon as the store answers again (asked a few times a second), or once nobody
    is connected to the table here."""
    pause = 0.1
    while host.hub.connections:
        try:
            await host.backend.ping()
            return
        except host.backend.failures:
            await asyncio.sleep(pause)
            pause = min(2 * pause, 1.0)


async def leased(host: Host, work: Awaitable[T]) -> T:
    """``work``'s result, the table's lease renewed every third of a lease meanwhile: a
    computer's search that waits its turn (``web.searches``) can take longer than a lease, and
    another process would take the table over from under it. Cancelled, ``work`` is too (a
    search still waiting leaves the queue)."""
    task = asyncio.ensure_future(work)
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=LEASE_SECONDS / 3)
            if done:
                return task.result()
            with contextlib.suppress(*host.backend.failures):  # the driver's next step sees it
                await host.backend.lease(host.state.id, OWNER, LEASE_SECONDS)
    finally:
        task.cancel()


async def within(work: Coroutine[Any, Any, T], seconds: float) -> T | None:
    """``work``'s result, or None when ``seconds`` pass first.

    Not ``asyncio.wait_for``: on Python 3.11 it swallows a cancellation that arrives as its
    work completes (the last socket leaving publishes an event to the listener just before
    stopping it), and the table's task then ran for ever, holding the table in memory and,
    for a driver, running beside the next one."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            return await work
    return None


async def pace(delay: float, started: float, loop: asyncio.AbstractEventLoop) -> None:
    elapsed = loop.time() - started
    if delay > elapsed:
        await asyncio.sleep(delay - elapsed)


class TableTask(abc.ABC):
    """A part of a table that runs one task while a process has connections to the table (the
    listener, the driver): at most one at a time, started again after a failure ended it."""

    task: asyncio.Task[None] | None = None

    @abc.abstractmethod
    async def run(self) -> None:
        """The task's work, until it is stopped."""

    def running(self) -> bool:
        """Whether the task runs."""
        return self.task is not None and not self.task.done()

    def start(self) -> None:
        """Run the task unless it runs (a task stopped by a failure starts again)."""
        if not self.running():
            self.task = spawn(self.run())

    def stop(self) -> None:
        """Stop the task: nobody here is connected any more, or the process drains."""
        if self.task is not None:
            self.task.cancel()
        self.task = None


def spawn(work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
    """A table's task, whose failure goes to the log."""
    task = asyncio.get_running_loop().create_task(work)
    task.add_done_callback(_report_failure)
    return task


def _report_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        LOG.error("a table's task failed", exc_info=task.exception())
