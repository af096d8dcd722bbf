"""Each process's look at the tables it serves on Redis (``web.looks``, issue 40): every table
served here in one round trip every few seconds, in place of several round trips of each
table's own. What it must keep of the per-table refresh it replaced: an event pub/sub dropped
is caught up; a process that stopped saying its seats (gone) leaves them away; the leases a
process drives are renewed, and one found free is taken at once; and what it adds: a table
whose copy is in step costs no letter and no call of its own, and a process that does not
drive a table no longer asks for its lease at every letter."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator

import pytest

from callbreak.game import Call
from callbreak.web import live
from callbreak.web.backend import OWNER, Event
from callbreak.web.live import LiveTable
from callbreak.web.looks import look_once
from callbreak.web.model import TableData, claim, join, new_room, start
from callbreak.web.redis_backend import RedisBackend
from callbreak.web.tables import Tables
from callbreak.web.tasks import LEASE_SECONDS
from tests.helpers import RecordingSocket, redis_server

pytestmark = [pytest.mark.anyio, pytest.mark.redis]


class _Counted(RedisBackend):
    """A Redis backend that counts the calls of each method a table makes on its own, and whose
    publishes may be dropped (as pub/sub may drop a message)."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.calls: dict[str, int] = {}
        self.dropping = False

    def _count(self, name: str) -> None:
        self.calls[name] = self.calls.get(name, 0) + 1

    async def load(self, table_id: str, known: TableData | None = None) -> TableData | None:
        self._count("load")
        return await super().load(table_id, known)

    async def presence(self, table_id: str) -> set[int]:
        self._count("presence")
        return await super().presence(table_id)

    async def set_presence(self, table_id: str, seat: int, owner: str, count: int) -> None:
        self._count("set_presence")
        await super().set_presence(table_id, seat, owner, count)

    async def lease(self, table_id: str, owner: str, seconds: float) -> bool:
        self._count("lease")
        return await super().lease(table_id, owner, seconds)

    async def publish(self, table_id: str, event: Event) -> None:
        if not self.dropping:
            await super().publish(table_id, event)


@pytest.fixture
async def backend() -> AsyncIterator[_Counted]:
    with redis_server() as url:
        counted = _Counted(url)
        try:
            yield counted
        finally:
            await counted.close()


def _people() -> tuple[TableData, list[str]]:
    """A started room of four people (no computer for a driver to move); their tokens."""
    data = new_room("strict(deals=1)", "Asha", [None, None, None], turn_seconds=0)
    tokens = [claim(data, 0)]
    tokens += [join(data, name)[1] for name in ("Bikash", "Chandra", "Dipa")]
    start(data)
    return data, tokens


async def _served(backend: RedisBackend, tables: Tables, seats: int = 4) -> LiveTable:
    """A room served by ``tables`` (this process) with ``seats`` of its people connected."""
    data, tokens = _people()
    await backend.create(data)
    table = await tables.get(data.id)
    assert table is not None
    for token in tokens[:seats]:
        await table.join(RecordingSocket(), token)  # type: ignore[arg-type]
    await _settled(table)
    return table


async def _settled(table: LiveTable) -> None:
    """Wait until the table has handled every letter posted so far."""
    await table.ask(_nothing)


async def _nothing() -> None:
    return None


async def test_a_table_in_step_costs_no_letter_and_no_call_of_its_own(
    backend: _Counted, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Twenty rooms in step with the store, every seat connected: a look says their seats and
    reads them back in one round trip for all, and no table then reads the store itself."""
    monkeypatch.setattr(live, "RENEW", 60.0)  # no timer's letter renews a lease meanwhile
    tables = Tables(backend)
    served = [await _served(backend, tables) for _ in range(20)]
    backend.calls.clear()
    assert await look_once(tables) == 20
    for table in served:
        assert not table.inbox
        await _settled(table)
    assert backend.calls == {}, backend.calls
    for table in served:  # and the store has every seat of every room said again
        raw = await backend.client.hgetall(f"cb:{{{table.id}}}:presence")
        assert sorted(raw) == [f"{seat}|{OWNER}" for seat in range(4)]
        assert table.state.present == {0, 1, 2, 3}


async def test_an_event_pubsub_dropped_is_caught_up_at_the_next_look(backend: _Counted) -> None:
    """Another process's action whose event never arrived: this process's copy stays behind
    until its next look finds the stored version ahead, reads the store and shows it."""
    tables = Tables(backend)
    table = await _served(backend, tables, seats=1)
    other = await backend.load(table.id)
    assert other is not None
    elsewhere = LiveTable(other, backend)  # the other process's copy
    elsewhere.halted = True
    backend.dropping = True
    turn = elsewhere.state.match.deal.turn
    assert turn is not None
    await elsewhere.act(turn, Call(elsewhere.state.match.rules.min_call), 0)
    await _settled(table)
    assert table.state.version == 0  # nothing heard
    await look_once(tables)
    await _settled(table)
    assert table.state.data.actions == elsewhere.state.data.actions
    socket = next(iter(table.hub.connections))
    await table.hub.flush(socket)
    states = [json.loads(text) for text in socket.sent if '"state"' in text]  # type: ignore[attr-defined]
    assert states[-1]["state"]["version"] == 1


async def test_a_gone_process_leaves_its_seats_away(backend: _Counted) -> None:
    """Another process held Dipa's seat and stopped saying so (it died): once its field is past
    its time, a look removes it and the room here shows her seat away."""
    tables = Tables(backend)
    table = await _served(backend, tables, seats=3)
    key = f"cb:{{{table.id}}}:presence"
    await backend.client.hset(key, "3|elsewhere", repr(time.time() + 60))
    await look_once(tables)
    await _settled(table)
    assert table.state.present == {0, 1, 2, 3}
    await backend.client.hset(key, "3|elsewhere", repr(time.time() - 1))  # not said in time
    await look_once(tables)
    await _settled(table)
    assert table.state.present == {0, 1, 2}
    assert "3|elsewhere" not in await backend.client.hgetall(key)


async def test_a_connection_gone_during_a_look_is_not_said_again(backend: _Counted) -> None:
    """A look said Chandra's seat held here (its fields sent) while her connection went away:
    the look's field may land after the one her leaving removed, so the seat is counted again
    and nobody holds it in the store."""
    tables = Tables(backend)
    table = await _served(backend, tables, seats=3)
    socket = next(s for s, c in table.hub.connections.items() if c.seat == 2)
    held = table.hub.counts()
    at = asyncio.get_running_loop().time()
    await table.part(socket)
    [seen] = await backend.look([(table.id, held)], OWNER, LEASE_SECONDS)  # landed last
    key = f"cb:{{{table.id}}}:presence"
    assert f"2|{OWNER}" in await backend.client.hgetall(key)
    table.looked(seen, held, at)
    await _settled(table)
    assert f"2|{OWNER}" not in await backend.client.hgetall(key)
    assert table.state.present == {0, 1}


async def test_a_lease_is_renewed_by_its_driver_and_taken_when_found_free(
    backend: _Counted, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The look renews the lease of a table driven here, never one another process holds; a
    process that does not drive a table asks for its lease once, not at every letter; a lease
    its holder gave up (a process draining) is taken at the next look."""
    monkeypatch.setattr(live, "RENEW", 60.0)  # no letter here renews, or asks again, on its own
    tables = Tables(backend)
    driven = await _served(backend, tables, seats=1)
    lease = f"cb:{{{driven.id}}}:lease"
    assert await backend.client.get(lease) == OWNER
    await backend.client.pexpire(lease, 1000)
    await look_once(tables)
    assert await backend.client.pttl(lease) > 5000  # renewed for LEASE_SECONDS

    data, tokens = _people()
    await backend.create(data)
    await backend.client.set(f"cb:{{{data.id}}}:lease", "elsewhere", px=60_000)
    other = await tables.get(data.id)
    assert other is not None
    backend.calls.clear()
    await other.join(RecordingSocket(), tokens[0])  # type: ignore[arg-type]
    for _ in range(20):
        other.post(_nothing)
    await _settled(other)
    assert backend.calls.get("lease") == 1  # asked once, refused, not asked again
    await look_once(tables)
    assert await backend.client.pttl(f"cb:{{{data.id}}}:lease") > 30_000  # not renewed by us

    await backend.client.delete(f"cb:{{{data.id}}}:lease")  # its holder gave it up
    await look_once(tables)
    await _settled(other)
    assert await backend.client.get(f"cb:{{{data.id}}}:lease") == OWNER
