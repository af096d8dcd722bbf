"""The events between the processes that serve one table: telling the others of a change made
here (:class:`Teller`), and hearing theirs (:func:`follow`).

A change made here is shown here first (by the table's owner, ``web.live``), then published
through the backend for the other processes. A change announced is stored already (or needs no
storing), so a store that refuses the publish (Redis out of reach between the append and the
publish, or refusing PUBLISH alone) never makes it look unsaved nor keeps it from this
process's sockets: the event is published again in the background, in order, with pauses that
grow, for :data:`TELL_SECONDS` (each other process looks at the store every few seconds anyway,
``web.looks``), and the log says so once an outage.

While a process has connections to a table, :func:`follow` hears the backend's events for it
and hands each to the table's inbox. An event lost (pub/sub may drop one) is a gap that the
next event fills (the table is read from the store, never from the message), or the process's
next look at every table it serves (``web.looks``), which finds the stored version ahead.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable

from callbreak.web.backend import OWNER, Backend, Event
from callbreak.web.http import LOG
from callbreak.web.hub import Hub
from callbreak.web.tasks import spawn, until_store_answers

__all__ = ["TELL_PAUSES", "TELL_SECONDS", "Teller", "follow"]

TELL_PAUSES = (0.1, 0.2, 0.4, 0.8, 1.6)
"""Pauses between the tries of an event the store refused to publish (the last one repeated)."""
TELL_SECONDS = 10.0
"""How long an event the store refused is tried again: by then every other process has read
the table on its own (its looks, ``web.looks``), and what else an event says (a computer
thinking, a notice) is out of date."""
UNTOLD = 100
"""Events of one table waiting to be published, at most (past it the oldest go: the others
read the table on their own)."""


class _Outage:
    """Whether this process's events are being refused by the store: the log says so once an
    outage, not once a table, an event or a try (a driver used to say "waits for the store"
    hundreds of times a second while Redis refused PUBLISH alone)."""

    def __init__(self) -> None:
        self.failing = False

    def refused(self, table_id: str, error: Exception) -> None:
        """A publish failed."""
        if not self.failing:
            self.failing = True
            LOG.warning(
                "table %s could not tell the other processes of a change (%r): shown here, and "
                "told them once the store takes it (said once until then)",
                table_id,
                error,
            )

    def told(self) -> None:
        """A publish went through."""
        if self.failing:
            self.failing = False
            LOG.warning("the other processes are told of changes again")


_OUTAGE = _Outage()


class Teller:
    """Publishes one table's events for the other processes, in order, those the store refused
    tried again in the background."""

    def __init__(self, table_id: str, backend: Backend) -> None:
        self.table_id, self.backend = table_id, backend
        self.untold: deque[tuple[float, Event]] = deque()
        """Events the store refused to publish, with when they were made: told in order."""
        self.teller: asyncio.Task[None] | None = None
        """The task that tells them, while there are any."""

    def telling(self) -> bool:
        """Whether events the store refused are still being told."""
        return self.teller is not None and not self.teller.done()

    async def tell(self, event: Event) -> None:
        """Publish ``event`` now, unless others wait before it (kept in order) or the store
        refuses it: then the teller publishes it. Never raises for the store."""
        event = event | {"origin": OWNER}
        if not self.untold:
            try:
                await self.backend.publish(self.table_id, event)
                _OUTAGE.told()
                return
            except self.backend.failures as error:
                _OUTAGE.refused(self.table_id, error)
        if len(self.untold) >= UNTOLD:
            self.untold.popleft()
        self.untold.append((asyncio.get_running_loop().time(), event))
        if not self.telling():
            self.teller = spawn(self._teller())

    async def _teller(self) -> None:
        """Publish the untold events in order, each tried again with pauses that grow, until
        the store takes it or it is :data:`TELL_SECONDS` old."""
        loop = asyncio.get_running_loop()
        tries = 0
        while self.untold:
            made, event = self.untold[0]
            if loop.time() - made > TELL_SECONDS:
                self.untold.popleft()
                continue
            try:
                await self.backend.publish(self.table_id, event)
            except self.backend.failures as error:
                _OUTAGE.refused(self.table_id, error)
                await asyncio.sleep(TELL_PAUSES[min(tries, len(TELL_PAUSES) - 1)])
                tries += 1
                continue
            _OUTAGE.told()
            self.untold.popleft()
            tries = 0


async def follow(table_id: str, hub: Hub, backend: Backend, heard: Callable[[Event], None]) -> None:
    """Hand the other processes' events for the table to ``heard`` while anyone is connected
    here; a store out of reach as the listening starts is waited out."""
    while hub.connections:
        try:
            async with backend.events(table_id) as events:
                while True:
                    event = await events.get()
                    if event.get("origin") != OWNER:
                        heard(event)
        except backend.failures:  # the store out of reach as the listening started
            LOG.warning("table %s could not listen: the store does not answer", table_id)
            await until_store_answers(hub, backend)
