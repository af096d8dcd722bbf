"""uvicorn's socket as the server runs it (``web.transport``): a peer's messages are read
until a few wait for the app, then reading stops until the app has taken them all."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from callbreak.web.transport import QUEUED, BoundedWebSocket

pytestmark = pytest.mark.anyio


class _Transport:
    """What the protocol asks of its transport here: reading stopped and started again."""

    def __init__(self) -> None:
        self.paused = False
        self.calls: list[str] = []

    def pause_reading(self) -> None:
        self.calls.append("pause")
        self.paused = True

    def resume_reading(self) -> None:
        self.calls.append("resume")
        self.paused = False


def _protocol() -> tuple[Any, _Transport]:
    """The protocol as far as a message arriving and the app taking it need (no server)."""
    protocol: Any = object.__new__(BoundedWebSocket)
    transport = _Transport()
    protocol.transport = transport
    protocol.queue = asyncio.Queue()
    protocol.read_paused = False
    protocol.close_sent = False
    protocol.frames = []
    return protocol, transport


def _arrives(protocol: Any, text: str) -> None:
    protocol.curr_msg_data_type = "text"
    protocol.frames = [text.encode()]
    protocol.send_receive_event_to_app()


async def test_reading_stops_only_once_a_few_messages_wait() -> None:
    protocol, transport = _protocol()
    for index in range(QUEUED - 1):
        _arrives(protocol, f"m{index}")
        assert transport.calls == [] and not protocol.read_paused
    _arrives(protocol, "last")  # the QUEUEDth waiting: the socket is no longer read
    assert transport.calls == ["pause"] and protocol.read_paused
    taken = [await protocol.receive() for _ in range(QUEUED)]
    assert [m["text"] for m in taken] == [*(f"m{i}" for i in range(QUEUED - 1)), "last"]
    assert transport.calls == ["pause", "resume"] and not transport.paused


async def test_a_message_taken_at_once_never_stops_the_reading() -> None:
    protocol, transport = _protocol()
    for index in range(3 * QUEUED):
        _arrives(protocol, str(index))
        assert (await protocol.receive())["text"] == str(index)
    assert transport.calls == []
