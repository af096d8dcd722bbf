"""A client of the rooms API and socket in Python, for scripts, tests and the load benchmark.

It speaks only what docs/rooms.md documents: HTTP for the lobby, the WebSocket with a ``hello``
first, actions with the version they were made on. Every message it receives is kept (a test
checks afterwards that none held a card its seat may not see; a benchmark times them).
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

__all__ = ["PING_SECONDS", "SILENT_PINGS", "Client", "http"]

PING_SECONDS = 5.0
"""The server's pings' interval until one says otherwise (``web.messages.PING_SECONDS``)."""
SILENT_PINGS = 2.5
"""Intervals of silence after which a server counts as gone (``static/table.js``): one ping
late or lost is not enough."""


def http(method: str, url: str, body: object = None, token: str | None = None) -> tuple[int, Any]:
    """One JSON request: the status and the decoded answer."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


class Client:
    """One connection to a room, as a seat (with its token) or a spectator, or to a match
    against the computer (with its token)."""

    def __init__(self, socket: ClientConnection) -> None:
        self.socket = socket
        self.seat: int | None = None
        self.state: dict[str, Any] | None = None
        self.room: dict[str, Any] | None = None
        self.received: list[str] = []
        self.pings = 0
        """The server's pings heard (``{"type": "ping"}``, docs/web.md)."""
        self.watch = False
        """Whether a silence of :data:`SILENT_PINGS` pings counts as a dead server (as the
        browser's pages count it): :meth:`next` then raises TimeoutError at once."""
        self.every = PING_SECONDS

    @classmethod
    async def open(
        cls,
        base: str,
        code: str,
        token: str | None = None,
        kind: str = "rooms",
        watch: bool = False,
    ) -> Client:
        """Connect to room ``code`` (or, with ``kind`` "matches", the match of that id) at
        ``base`` (http://host:port) and say hello; with ``watch``, a server silent for a few
        pings counts as gone (:attr:`watch`)."""
        address = base.replace("http://", "ws://") + f"/ws/{kind}/{code}"
        client = cls(await connect(address, max_size=2**20))
        client.watch = watch
        hello: dict[str, Any] = {"type": "hello"}
        if token is not None:
            hello["token"] = token
        await client.send(hello)
        welcome = await client.until(lambda m: m["type"] == "welcome")
        client.seat = welcome["seat"]
        return client

    async def send(self, message: dict[str, Any]) -> None:
        """Send a message as it is."""
        await self.socket.send(json.dumps(message))

    async def next(self, timeout: float = 20.0) -> dict[str, Any]:
        """The next message (kept), within ``timeout`` seconds; the server's pings are counted
        (``pings``) and passed over."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            wait = max(0.0, deadline - loop.time())
            if self.watch:
                wait = min(wait, SILENT_PINGS * self.every)
            text = await asyncio.wait_for(self.socket.recv(), wait)
            assert isinstance(text, str)
            self.received.append(text)
            message: dict[str, Any] = json.loads(text)
            if message["type"] != "ping":
                break
            self.pings += 1
            self.every = float(message.get("every") or self.every)
        if message["type"] == "state":
            self.state = message["state"]
        elif message["type"] == "room":
            self.room = message["room"]
        elif message["type"] == "welcome":
            # The seat follows the token (docs/rooms.md): moved, left, or a computer's seat
            # taken over whose first deal has come.
            self.seat = message["seat"]
        return message

    async def until(
        self, wanted: Callable[[dict[str, Any]], bool], timeout: float = 30.0
    ) -> dict[str, Any]:
        """Read messages until one is ``wanted`` (within ``timeout`` seconds in all)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            message = await self.next(max(0.01, deadline - loop.time()))
            if wanted(message):
                return message

    async def my_turn(self, timeout: float = 30.0) -> dict[str, Any] | None:
        """The state once it is this seat's turn (None once the match is over)."""
        state = self.state
        if state is not None and (state["match_over"] or state["turn"] == self.seat):
            return None if state["match_over"] else state
        message = await self.until(
            lambda m: (
                m["type"] == "state"
                and (m["state"]["match_over"] or m["state"]["turn"] == self.seat)
            ),
            timeout,
        )
        return None if message["state"]["match_over"] else message["state"]

    async def play_until(
        self, wanted: Callable[[dict[str, Any]], bool], timeout: float = 60.0
    ) -> dict[str, Any]:
        """Play this seat's turns (first legal call or card) until a ``wanted`` message comes."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            message = await self.next(max(0.01, deadline - loop.time()))
            if wanted(message):
                return message
            state = message.get("state") if message["type"] == "state" else None
            if state and state["turn"] == self.seat and not state["match_over"]:
                await self.act(state)

    async def act(self, state: dict[str, Any]) -> None:
        """Make the first legal call or card of ``state``, on its version."""
        if state["legal_calls"]:
            action: dict[str, Any] = {"type": "call", "value": state["legal_calls"][0]}
        else:
            action = {"type": "play", "card": state["legal"][0]}
        await self.send(action | {"version": state["version"]})
        self.state = None  # wait for the state after it

    async def close(self) -> None:
        """Go away."""
        await self.socket.close()
