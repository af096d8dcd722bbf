"""The events between the processes that serve one table: telling the others of a change made
here, and hearing theirs.

A change made here is announced (:meth:`Listener.announce`): heard here at once, then published
through the backend for the other processes. A change announced is stored already (or needs no
storing), so a store that refuses the publish (Redis out of reach between the append and the
publish, or refusing PUBLISH alone) never makes it look unsaved nor keeps it from this
process's sockets: the event is published again in the background, in order, with pauses that
grow, for :data:`TELL_SECONDS` (the other processes read the table every
:data:`PRESENCE_REFRESH` seconds anyway), and the log says so once an outage.

While a process has connections to a table, its listener task follows the backend's events
for it: an action or a lobby change is read from the store (``web.sync``), never from the
message; anything else (a computer thinking, a summary closed, presence, a notice) is taken as
it comes. Every :data:`PRESENCE_REFRESH` seconds, however quiet the table, it also looks at the
store. The listener is a part of a live table (``web.live``), which it reaches through
``web.tasks.Host``.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

from callbreak.web.backend import OWNER
from callbreak.web.http import LOG
from callbreak.web.hub import ROOM_VIEW, VIEW
from callbreak.web.tasks import Host, TableTask, spawn, until_store_answers, within

__all__ = ["PRESENCE_REFRESH", "TELL_PAUSES", "TELL_SECONDS", "Listener"]

PRESENCE_REFRESH = 4.0
"""Seconds between two looks of the listener at the store, however quiet the table: it says
again which seats this process holds, and reads the table (pub/sub may drop a message)."""
TELL_PAUSES = (0.1, 0.2, 0.4, 0.8, 1.6)
"""Pauses between the tries of an event the store refused to publish (the last one repeated)."""
TELL_SECONDS = 10.0
"""How long an event the store refused is tried again: by then every other process has read
the table on its own (:data:`PRESENCE_REFRESH`), and what else an event says (a computer
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


class Listener(TableTask):
    """The task that hears the other processes' changes to one table while anyone is connected
    here, and the one way a change reaches the others and this process's connections."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self.state, self.hub, self.backend = host.state, host.hub, host.backend
        self.untold: deque[tuple[float, dict[str, Any]]] = deque()
        """Events the store refused to publish, with when they were made: told in order."""
        self.teller: asyncio.Task[None] | None = None
        """The task that tells them, while there are any."""

    async def run(self) -> None:
        """Follow the events, waiting out a store out of reach as the listening starts."""
        while True:
            try:
                await self._follow()
            except self.backend.failures:  # the store out of reach as the listening started
                LOG.warning("table %s could not listen: the store does not answer", self.state.id)
                await until_store_answers(self.host)

    async def _follow(self) -> None:
        """Hear the other processes' events, and look at the store every few seconds."""
        host, table_id = self.host, self.state.id
        loop = asyncio.get_running_loop()
        refreshed = loop.time()
        async with self.backend.events(table_id) as events:
            while True:
                event = await within(events.get(), PRESENCE_REFRESH)
                if loop.time() - refreshed >= PRESENCE_REFRESH:
                    # However busy the table, this process says again which seats it holds,
                    # and reads the table again: pub/sub may have dropped a message.
                    refreshed = loop.time()
                    try:
                        await host.presence.refresh()
                        await host.sync.catch_up()
                    except Exception:  # the shared store out of reach: tried again next time
                        LOG.exception("table %s could not refresh", table_id)
                    # A driver stopped by a failure (the shared store out of reach for a
                    # moment) starts again rather than leaving the table stuck.
                    host.driver.start()
                if event is None or event.get("origin") == OWNER:
                    continue
                try:
                    if event.get("type") in ("action", "lobby"):
                        await host.sync.catch_up()  # read from the store, not from the message
                    else:
                        await self.hear(event)
                except self.backend.failures:  # read again at the next refresh
                    LOG.warning("table %s could not catch up: the store does not answer", table_id)

    async def announce(self, event: dict[str, Any]) -> None:
        """Show a change here, and tell the other processes of it. Never raises for the store
        refusing the publish: the change is stored (or needs no storing), and the telling is
        tried again in the background."""
        try:
            await self.hear(event)
        finally:
            await self._tell(event | {"origin": OWNER})

    def telling(self) -> bool:
        """Whether events the store refused are still being told."""
        return self.teller is not None and not self.teller.done()

    async def _tell(self, event: dict[str, Any]) -> None:
        """Publish ``event`` now, unless others wait before it (kept in order) or the store
        refuses it: then the teller publishes it."""
        if not self.untold:
            try:
                await self.backend.publish(self.state.id, event)
                _OUTAGE.told()
                return
            except self.backend.failures as error:
                _OUTAGE.refused(self.state.id, error)
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
                await self.backend.publish(self.state.id, event)
            except self.backend.failures as error:
                _OUTAGE.refused(self.state.id, error)
                await asyncio.sleep(TELL_PAUSES[min(tries, len(TELL_PAUSES) - 1)])
                tries += 1
                continue
            _OUTAGE.told()
            self.untold.popleft()
            tries = 0

    async def hear(self, event: dict[str, Any]) -> None:
        """Take a change (made here, or heard from another process) into the state, wake the
        driver, and show it to this process's sockets."""
        state, kind = self.state, event.get("type")
        if kind == "thinking":
            state.thinking = event.get("seat")
            state.stood_in = bool(event.get("preparing"))
        if kind == "seen":
            seat, deals = event.get("seat"), event.get("deals")
            if isinstance(seat, int) and isinstance(deals, int):
                state.seen[seat] = max(state.seen.get(seat, deals), deals)
        if kind in ("presence", "lobby"):
            try:
                if kind == "lobby" and state.is_room:
                    await self.host.presence.recount()
                state.present = await self.backend.presence(state.id)
            except self.backend.failures:
                # Who is connected is read again at the next refresh; the change itself is
                # stored, and is shown now.
                LOG.warning("table %s could not read who is connected", state.id)
        self.host.driver.changed.set()
        if kind == "notice":
            # The words in English, and what happened as data for a page in another language.
            extra = {key: event[key] for key in ("cover", "fault") if key in event}
            await self.hub.send({"type": "notice", "message": str(event.get("message"))} | extra)
            return
        if kind in ("lobby", "presence"):
            await self.hub.send(ROOM_VIEW)
        if kind in ("action", "thinking", "lobby", "presence"):
            await self.hub.send(VIEW)
