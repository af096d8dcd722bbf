"""Which seats of a table this process holds: connections joining and parting, and the count
of each seat's connections here that the store keeps for every process.

In a room, people's presence matters (the cover plays for a person who is away while others
wait): each process says in the store how many connections it holds for each seat
(``Backend.set_presence``), again whenever they change and every few seconds
(``web.listener``), and reads back the seats someone holds anywhere (``TableState.present``).
A connection's seat follows its token through every copy of the room (:meth:`Presence.reseat`);
the seats it moved are counted again. The presence is a part of a live table (``web.live``),
which it reaches through ``web.tasks.Host``.
"""

from __future__ import annotations

from starlette.websockets import WebSocket

from callbreak.web.backend import OWNER
from callbreak.web.hub import ROOM_VIEW, VIEW
from callbreak.web.tasks import Host

__all__ = ["Presence"]


class Presence:
    """The connections to one table that this process takes and lets go of, and the seats it
    tells the store it holds."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self.state, self.hub, self.backend = host.state, host.hub, host.backend
        self._moved: set[int] = set()
        """Seats whose connections here changed with a copy of the room, to be counted again."""

    async def join(self, websocket: WebSocket, token: str | None) -> int | None:
        """Take a connection with the seat ``token`` holds in this copy (None: a spectator),
        welcome it, send it the table, count it where people's presence matters (a room), and
        start the table's tasks; the seat it was given."""
        seat = self.hub.add(websocket, token)  # no await before: every new copy re-seats it
        if self.state.is_room and seat is not None:
            await self._count(seat)  # everyone, this connection included, hears of it
        else:
            await self.hub.send(ROOM_VIEW, websocket)
            await self.hub.send(VIEW, websocket)
        self.host.start()
        return seat

    async def part(self, websocket: WebSocket) -> None:
        """Forget a connection that went away."""
        connection = self.hub.remove(websocket)
        if connection is None:
            return
        await self._count(connection.seat)
        if not self.hub.connections:
            self.host.stop()

    async def _count(self, seat: int | None) -> None:
        if seat is None or not self.state.is_room:
            return
        await self.backend.set_presence(self.state.id, seat, OWNER, self.hub.held(seat))
        self.state.present = await self.backend.presence(self.state.id)
        await self.host.listener.announce({"type": "presence"})

    def reseat(self) -> None:
        """Give each connection the seat its token holds in the table as it is now (at once,
        with no await: the caller has just taken a new copy), keeping the seats it moved for
        :meth:`recount`."""
        self._moved |= self.hub.reseat()

    async def recount(self) -> None:
        """Count again the seats whose connections a copy of the room moved."""
        moved, self._moved = self._moved, set()
        for seat in sorted(moved):
            await self._count(seat)

    async def refresh(self) -> None:
        """Say again which seats this process holds (a shared backend forgets after a while)."""
        for seat in self.hub.seats():
            await self.backend.set_presence(self.state.id, seat, OWNER, self.hub.held(seat))
        self.state.present = await self.backend.presence(self.state.id)
