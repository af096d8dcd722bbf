"""How a table's tasks start, wait and end: :func:`spawn` starts one whose failure goes to the
log, :func:`until_store_answers` waits for a store out of reach, :func:`pace` keeps a
computer's decision at a pace a person can follow.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

from callbreak.web.backend import Backend
from callbreak.web.http import LOG
from callbreak.web.hub import Hub

__all__ = ["LEASE_SECONDS", "pace", "spawn", "until_store_answers"]

LEASE_SECONDS = 9.0
"""How long a driver's lease lasts unless renewed (renewed every third of it); what a table
waits at most between two looks when nothing calls for it."""


async def until_store_answers(hub: Hub, backend: Backend) -> None:
    """Return as soon as the store answers again (asked a few times a second), or once nobody
    is connected to the table here."""
    pause = 0.1
    while hub.connections:
        try:
            await backend.ping()
            return
        except backend.failures:
            await asyncio.sleep(pause)
            pause = min(2 * pause, 1.0)


async def pace(delay: float, started: float, loop: asyncio.AbstractEventLoop) -> None:
    """Sleep until ``delay`` seconds have passed since ``started`` (the loop's clock)."""
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
