"""A table's connections in one process, and what each is sent.

Each socket is a :class:`Connection` with its seat (None: a spectator) and a queue of its own,
so that a slow phone never holds up anyone else's messages. :meth:`Hub.send` is the one way
anything reaches a socket: a message as it is, or :data:`VIEW` (each connection its own seat's
view of the table, ``web.view``) or :data:`ROOM_VIEW` (a room's lobby). A connection only ever
receives its own seat's view, and none while an action is being stored (``TableState.pending``:
the table is shown once it is stored, or once the store refused it).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, Final, Literal

from starlette.websockets import WebSocket

from callbreak.web import wire
from callbreak.web.model import LOBBY
from callbreak.web.state import TableState
from callbreak.web.view import lobby_json, private_view, public_view

__all__ = ["OUTBOX_LIMIT", "ROOM_VIEW", "VIEW", "Connection", "Hub"]

OUTBOX_LIMIT = 200
"""Messages waiting for one connection before it counts as stuck and is closed (it reconnects
and gets a fresh snapshot)."""
VIEW: Final = "view"
"""Send each connection its own seat's view of the table (``{"type": "state", ...}``)."""
ROOM_VIEW: Final = "room"
"""Send a room's lobby (``{"type": "room", ...}``); nothing for a match."""


class Connection:
    """One socket with its seat (None: a spectator) and the messages on their way to it, sent
    by a task of its own, so that a slow phone never holds up anyone else's messages."""

    def __init__(self, websocket: WebSocket, seat: int | None, token: str | None = None) -> None:
        self.websocket = websocket
        self.seat = seat
        self.token = token
        """The seat token the connection said hello with: its seat follows the token's."""
        self.outbox: asyncio.Queue[str] = asyncio.Queue()
        loop = asyncio.get_running_loop()
        self.writer = loop.create_task(_write(websocket, self.outbox))
        self.last = loop.time()
        """When a message was last queued for it (the loop's clock)."""

    def put(self, text: str) -> None:
        """Queue a message; close a connection that stopped taking them."""
        if self.outbox.qsize() >= OUTBOX_LIMIT:
            self.close()
            return
        self.outbox.put_nowait(text)
        self.last = self.writer.get_loop().time()

    async def flush(self, seconds: float = 2.0) -> None:
        """Wait (a little) for the queued messages to go out, before closing on purpose."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.outbox.join(), seconds)

    def close(self) -> None:
        """Stop sending, and close the socket (the client reconnects and resyncs)."""
        self.writer.cancel()

        async def shut() -> None:
            with contextlib.suppress(Exception):
                await self.websocket.close(code=1013)

        asyncio.get_running_loop().create_task(shut())


def _welcome(seat: int | None, arriving: tuple[int, int] | None) -> dict[str, Any]:
    """Which seat a connection plays (None: it watches); for a person who took over a
    computer's seat, before their first deal, ``arriving``: that seat and the deal's number
    from 1 (the page says so; it is sent nothing of the seat until then)."""
    welcome: dict[str, Any] = {"type": "welcome", "seat": seat}
    if arriving is not None:
        welcome["arriving"] = {"seat": arriving[0], "deal": arriving[1] + 1}
    return welcome


async def _write(websocket: WebSocket, outbox: asyncio.Queue[str]) -> None:
    """A connection's writer: send what is queued, in order, until cancelled or the socket is
    gone. A function of the socket and the queue, not a method: the cancelled task keeps its
    CancelledError, whose frames would otherwise hold the Connection, and the Connection holds
    the task. That cycle kept every closed socket (its compression buffers included, about
    300 kB) until a full garbage collection, which a busy server seldom runs."""
    while True:
        text = await outbox.get()
        try:
            await websocket.send_text(text)
        except Exception:  # gone: the receiving side notices and forgets the connection
            return
        finally:
            outbox.task_done()


class Hub:
    """The connections to one table in this process, and the one verb that sends to them."""

    def __init__(self, state: TableState) -> None:
        self.state = state
        self.connections: dict[WebSocket, Connection] = {}
        self._private: dict[tuple[int, int, int | None], str] = {}
        """Each seat's own part of the view, as JSON text, for the current version."""
        self._shown_lobby: dict[str, Any] | None = None
        """The lobby every connection was sent last (its version aside)."""
        self.owed = False
        """Whether a view was held back while an action was being stored (the table's next
        views make up for it)."""

    def add(self, websocket: WebSocket, token: str | None) -> int | None:
        """Keep a connection with the seat ``token`` holds in the table (None: a spectator),
        and welcome it; its seat. From then on every copy of the room re-seats it."""
        seat = self.state.seat_of(token)
        arriving = self.state.arriving(token)
        # A person who took over a computer's seat keeps their token here: it holds the seat
        # from their first deal (``reseat``), and nothing of it before.
        held = seat is not None or arriving is not None
        connection = Connection(websocket, seat, token if held else None)
        self.connections[websocket] = connection
        self._shown_lobby = None  # not everyone has the lobby now: the next goes to all
        connection.put(wire.dumps(_welcome(seat, arriving)))
        return seat

    def remove(self, websocket: WebSocket) -> Connection | None:
        """Forget a connection that went away (its writer stops); the connection, if known."""
        connection = self.connections.pop(websocket, None)
        if connection is not None:
            connection.writer.cancel()
        return connection

    def reseat(self) -> set[int]:
        """Give each connection the seat its token holds in the table as it is now, telling
        those moved (a person moved, or who left, is no longer sent, nor may act for, the seat
        they said hello to); the seats whose connections changed."""
        moved: set[int] = set()
        for connection in self.connections.values():
            if connection.token is None:
                continue
            seat = self.state.seat_of(connection.token)
            if seat != connection.seat:
                moved.update(s for s in (connection.seat, seat) if s is not None)
                connection.seat = seat
                arriving = self.state.arriving(connection.token)
                connection.put(wire.dumps(_welcome(seat, arriving)))
        return moved

    def seat_of(self, websocket: WebSocket) -> int | None:
        """The seat a connection plays now (None: a spectator, or not connected)."""
        connection = self.connections.get(websocket)
        return None if connection is None else connection.seat

    def token_of(self, websocket: WebSocket) -> str | None:
        """The seat token a connection said hello with (None: a spectator, or not connected)."""
        connection = self.connections.get(websocket)
        return None if connection is None else connection.token

    def quiet(self, websocket: WebSocket) -> float:
        """Seconds since a message was last queued for a connection (infinite for a socket
        not joined)."""
        connection = self.connections.get(websocket)
        if connection is None:
            return float("inf")
        return connection.writer.get_loop().time() - connection.last

    def holds(self, websocket: WebSocket, seat: int) -> bool:
        """Whether the connection's token holds ``seat`` in the table (its seat is kept in
        step by every copy; the token is asked again all the same, as the store decides)."""
        connection = self.connections.get(websocket)
        return (
            connection is not None
            and connection.seat == seat
            and self.state.seat_of(connection.token) == seat
        )

    def held(self, seat: int) -> int:
        """How many connections here play ``seat``."""
        return sum(1 for connection in self.connections.values() if connection.seat == seat)

    def seats(self) -> set[int]:
        """The seats with a connection here."""
        return {c.seat for c in self.connections.values() if c.seat is not None}

    def counts(self) -> dict[int, int]:
        """How many connections here play each seat (the seats with none left out)."""
        counts: dict[int, int] = {}
        for connection in self.connections.values():
            if connection.seat is not None:
                counts[connection.seat] = counts.get(connection.seat, 0) + 1
        return counts

    async def flush(self, websocket: WebSocket) -> None:
        """Let the messages queued for a connection go out."""
        connection = self.connections.get(websocket)
        if connection is not None:
            await connection.flush()

    async def send(
        self, what: dict[str, Any] | Literal["view", "room"], to: WebSocket | None = None
    ) -> None:
        """Send ``what`` to one socket, or to every connection when ``to`` is None: a message,
        :data:`VIEW` (each its own seat's view; nothing in a lobby, nor while an action is
        being stored) or :data:`ROOM_VIEW` (a room's lobby)."""
        if what == VIEW:
            if self.state.pending is not None:
                self.owed = True
            elif self.state.status != LOBBY:
                self._views(to)
            return
        if what == ROOM_VIEW:
            if self.state.is_room:
                await self._lobby(to)
            return
        assert isinstance(what, dict)
        text = wire.dumps(what)
        if to is not None and to not in self.connections:  # not joined yet: say it directly
            with contextlib.suppress(Exception):
                await to.send_text(text)
            return
        targets = [self.connections[to]] if to is not None else list(self.connections.values())
        for connection in targets:
            connection.put(text)

    async def _lobby(self, to: WebSocket | None) -> None:
        """Send the room's lobby to ``to``, or to everyone unless it is what everyone was
        sent last (its ``version`` aside): another process's card, heard and caught up with,
        changes the table, not the lobby."""
        lobby = lobby_json(self.state)
        shown = lobby | {"version": None}
        if to is None:
            if shown == self._shown_lobby:
                return
            self._shown_lobby = shown
        elif shown != self._shown_lobby:
            self._shown_lobby = None  # one connection has a newer lobby: the next goes to all
        await self.send({"type": "room", "room": lobby}, to)

    def _views(self, to: WebSocket | None) -> None:
        """Queue each connection (or ``to``'s) its own seat's view.

        The public part is the same for every seat: it is encoded once, and each seat's own
        part (worked out once per version) is joined to it as text."""
        if to is None:
            self.owed = False
            targets = list(self.connections.values())
        else:
            targets = [self.connections[to]] if to in self.connections else []
        if not targets:
            return
        state = self.state
        # What happened (the action that led to this version), the same for every seat and a
        # spectator: the page animates from it when it is the next of what it has shown, and
        # takes the state as it is otherwise (a gap, a reconnection).
        head = '{"type": "state", "event": ' + wire.dumps(state.event) + ', "state": '
        public = wire.dumps(public_view(state))[:-1]  # without its closing brace
        texts: dict[int | None, str] = {}
        for connection in targets:
            seat = connection.seat
            if seat not in texts:
                # A seat's own part changes only with an action or a lobby change (the start).
                key = (state.version, state.data.rev, seat)
                private = self._private.get(key)
                if private is None:
                    private = wire.dumps(private_view(state, seat))[1:]  # without its "{"
                    self._private = {k: v for k, v in self._private.items() if k[:2] == key[:2]}
                    self._private[key] = private
                texts[seat] = head + public + ", " + private + "}"
            connection.put(texts[seat])
