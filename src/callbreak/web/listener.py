"""The events between the processes that serve one table: telling the others of a change made
here, and hearing theirs.

A change made here is announced (:meth:`Listener.announce`): published through the backend for
the other processes, and heard here at once. While a process has connections to a table, its
listener task follows the backend's events for it: an action or a lobby change is read from
the store (``web.sync``), never from the message; anything else (a computer thinking, a
summary closed, presence, a notice) is taken as it comes. Every :data:`PRESENCE_REFRESH`
seconds, however quiet the table, it also looks at the store. The listener is a part of a live
table (``web.live``), which it reaches through ``web.tasks.Host``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from callbreak.web.backend import OWNER
from callbreak.web.http import LOG
from callbreak.web.hub import ROOM_VIEW, VIEW
from callbreak.web.tasks import Host, TableTask, until_store_answers, within

__all__ = ["PRESENCE_REFRESH", "Listener"]

PRESENCE_REFRESH = 4.0
"""Seconds between two looks of the listener at the store, however quiet the table: it says
again which seats this process holds, and reads the table (pub/sub may drop a message)."""


class Listener(TableTask):
    """The task that hears the other processes' changes to one table while anyone is connected
    here, and the one way a change reaches the others and this process's connections."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self.state, self.hub, self.backend = host.state, host.hub, host.backend

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
        """Tell the other processes of a change, and show it here."""
        await self.backend.publish(self.state.id, event | {"origin": OWNER})
        await self.hear(event)

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
        if kind == "lobby" and state.is_room:
            await self.host.presence.recount()
        if kind in ("presence", "lobby"):
            state.present = await self.backend.presence(state.id)
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
