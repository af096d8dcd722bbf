"""A table's tasks: what they need of their table, how they start, wait and end.

A table (``web.table.Table``) runs two tasks while a process has connections to it: the
listener, which hears the other processes' changes, and the driver (``web.driver``). Both are
started with :func:`spawn`, wait with :func:`within` (never ``asyncio.wait_for``), and wait for
the store with :func:`until_store_answers` when it is out of reach.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine
from typing import Any, Protocol, TypeVar

from callbreak.web.actions import TableAction
from callbreak.web.backend import Backend
from callbreak.web.http import LOG
from callbreak.web.hub import Hub
from callbreak.web.metrics import Metrics
from callbreak.web.state import TableState

__all__ = ["LEASE_SECONDS", "Host", "pace", "spawn", "until_store_answers", "within"]

T = TypeVar("T")
LEASE_SECONDS = 9.0
"""How long a driver's lease lasts unless renewed (renewed every third of it); what a table's
task waits at most when nothing calls for it."""


class Host(Protocol):
    """What a driver needs of its table (``web.table.Table``)."""

    state: TableState
    hub: Hub
    backend: Backend
    metrics: Metrics

    async def act(
        self, seat: int, action: TableAction, version: object, faults: list[dict[str, Any]]
    ) -> None: ...
    async def announce(self, event: dict[str, Any]) -> None: ...
    async def catch_up(self) -> None: ...


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


def spawn(work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
    """A table's task, whose failure goes to the log."""
    task = asyncio.get_running_loop().create_task(work)
    task.add_done_callback(_report_failure)
    return task


def _report_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        LOG.error("a table's task failed", exc_info=task.exception())
