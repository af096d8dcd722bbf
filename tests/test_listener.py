"""The events between the processes of one table (``web.listener``): a change is shown where it
was made before it is published, and a publish the store refuses is told later, in order,
without the change looking unsaved (issue 39, defect 2; on a real Redis with PUBLISH refused:
``tests/test_store_outages.py``)."""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
from typing import Any

import pytest

from callbreak.game import Call
from callbreak.web.backend import OWNER, Event, LocalBackend
from callbreak.web.hub import Connection
from callbreak.web.model import new_match
from callbreak.web.store import Store
from callbreak.web.tables import LiveTable
from tests.helpers import RecordingSocket

pytestmark = pytest.mark.anyio


class _Refusing(LocalBackend):
    """One process's store whose first ``refusals`` publishes fail, as a Redis that stores
    everything but refuses PUBLISH does."""

    def __init__(self, refusals: int) -> None:
        super().__init__(Store(":memory:"))
        self.refusals = refusals

    async def publish(self, table_id: str, event: Event) -> None:
        if self.refusals:
            self.refusals -= 1
            raise sqlite3.OperationalError("refused")
        await super().publish(table_id, event)


async def test_a_refused_publish_is_shown_here_and_told_later_in_order(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Two actions while the store refuses five publishes: each is taken (no error), this
    process's socket is shown each at once, before any other process could have heard of it;
    the other processes are then told of both, in order; the log says so once, not per try."""
    backend = _Refusing(refusals=5)
    data = new_match("strict", "Asha", ["random"] * 3, "7", {})
    await backend.create(data)
    table = LiveTable(data, backend)
    socket: Any = RecordingSocket()
    table.hub.connections[socket] = Connection(socket, 0, None)
    caplog.set_level(logging.WARNING, logger="callbreak.web")
    async with backend.events(data.id) as heard:  # what the other processes hear
        for version in (0, 1):
            turn = table.state.match.deal.turn
            assert turn is not None
            await table.act(turn, Call(table.state.match.rules.min_call), version)
            await asyncio.sleep(0)  # the socket's writer sends what was queued
            shown = [json.loads(text) for text in socket.sent]
            assert shown[-1]["type"] == "state" and shown[-1]["state"]["version"] == version + 1
            assert heard.empty()  # shown here first: nobody else heard of it yet
        told = [await asyncio.wait_for(heard.get(), 30) for _ in range(2)]
    assert told == [{"type": "action", "version": v, "origin": OWNER} for v in (1, 2)]
    assert backend.refusals == 0 and not table.teller.telling()
    stored = await backend.load(data.id)
    # At least both (the computers, driven while a connection is here, may have played since).
    assert stored is not None and stored.version >= 2
    said = [r.getMessage() for r in caplog.records if "could not tell" in r.getMessage()]
    assert len(said) == 1, said
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
