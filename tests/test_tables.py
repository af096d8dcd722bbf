"""Tables leave a process's memory when nobody uses them and come back from the store: an
evicted finished match's record and replay are still served, an evicted room resumes at exactly
its version, and nothing in use (a socket, a driver, a change being stored) is ever let go of.

The server runs in its own thread (``helpers.running``); every look at its tables is made on
its own event loop (:func:`on_server`), and its clock is a number the test moves."""

from __future__ import annotations

import asyncio
import gc
import weakref
from pathlib import Path
from typing import Any

import pytest

from callbreak.record import check, from_data
from callbreak.web.app import create_app
from callbreak.web.client import Client, http
from callbreak.web.driver import COMPUTER_TURN, Move
from callbreak.web.tables import IDLE_FINISHED, IDLE_UNFINISHED, LiveTable
from tests.helpers import FAST, on_server, running

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["sqlite", "redis"])
def backend(request: Any) -> Any:
    if request.param == "sqlite":
        return None
    import redis

    url = request.getfixturevalue("redis_url")
    redis.Redis.from_url(url).flushdb()
    return url


class Clock:
    """The tables' clock, moved by the test."""

    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def served(tmp_path: Path) -> Any:
    """A server on SQLite with a test clock: (app, base address, clock)."""
    app = create_app(tmp_path / "db.sqlite", None, FAST)
    clock = Clock()
    app.state.tables.clock = clock
    with running(app) as base:
        yield app, base, clock


async def settle(app: Any, table_id: str) -> LiveTable:
    """The table once nothing uses it any more (its sockets' tasks wound down)."""
    table: LiveTable = app.state.tables.live[table_id]
    for _ in range(500):
        if not on_server(app, table.in_use):
            return table
        await asyncio.sleep(0.02)
    raise AssertionError(f"table {table_id} is still in use")


async def collected(reference: weakref.ref[Any]) -> bool:
    """Whether the object leaves memory (nothing holds it any more), once the tasks that held
    it (a listener being cancelled) have wound down."""
    for _ in range(100):
        gc.collect()
        if reference() is None:
            return True
        await asyncio.sleep(0.05)
    return False


async def play_match(base: str, deals: int = 1) -> tuple[str, str, Client]:
    status, created = http(
        "POST",
        f"{base}/api/matches",
        {"opponents": ["random"] * 3, "speed": "instant", "rules": f"strict(deals={deals})"},
    )
    assert status == 201, created
    client = await Client.open(base, created["id"], created["token"], kind="matches")
    return created["id"], created["token"], client


async def test_an_evicted_finished_match_is_served_from_the_store(served: Any) -> None:
    app, base, clock = served
    tables = app.state.tables
    match_id, token, client = await play_match(base)
    await client.play_until(lambda m: m["type"] == "state" and m["state"]["match_over"], 120)
    _, record = http("GET", f"{base}/api/matches/{match_id}/record", token=token)
    _, replay = http("GET", f"{base}/api/matches/{match_id}/replay", token=token)
    await client.close()
    table = await settle(app, match_id)
    version, reference = table.state.version, weakref.ref(table)
    del table

    clock.now += IDLE_FINISHED - 1
    assert on_server(app, tables.evict) == []  # not idle long enough yet
    clock.now += 2
    assert on_server(app, tables.evict) == [match_id]
    assert match_id not in tables.live
    assert await collected(reference), "the evicted table is still held somewhere"

    status, again = http("GET", f"{base}/api/matches/{match_id}/record", token=token)
    assert status == 200 and again == record and check(from_data(again)).valid
    status, replayed = http("GET", f"{base}/api/matches/{match_id}/replay", token=token)
    assert status == 200 and replayed == replay
    assert match_id not in tables.live  # read from the store: no live table built to read it
    status, _ = http("GET", f"{base}/api/matches/{match_id}/record", token="wrong")
    assert status == 404  # a match read from the store still asks for its token
    status, listed = http("POST", f"{base}/api/matches/mine", {"matches": [
        {"id": match_id, "token": token}]})  # fmt: skip
    assert status == 200 and [m["id"] for m in listed] == [match_id]
    assert listed[0]["status"] == "finished"
    # The socket's hello loads it again too, and shows the finished match.
    again_client = await Client.open(base, match_id, token, kind="matches")
    state = await again_client.until(lambda m: m["type"] == "state")
    assert state["state"]["match_over"] and state["state"]["version"] == version
    await again_client.close()


async def test_an_evicted_room_resumes_at_its_version(backend: Any, tmp_path: Path) -> None:
    app = create_app(tmp_path / "db.sqlite", backend, FAST)
    clock = Clock()
    tables = app.state.tables
    tables.clock = clock
    with running(app) as base:
        status, room = http("POST", f"{base}/api/rooms", {
            "name": "Asha", "rules": "strict(deals=1)", "seats": [None, "random", "random"],
            "turn_seconds": 0, "speed": "instant"})  # fmt: skip
        assert status == 201
        code, creator = room["room"], room["token"]
        _, joined = http("POST", f"{base}/api/rooms/{code}/join", {"name": "Bikash"})
        http("POST", f"{base}/api/rooms/{code}/start", token=creator)
        asha = await Client.open(base, code, creator)
        bikash = await Client.open(base, code, joined["token"])

        def later(m: dict[str, Any]) -> bool:
            return m["type"] == "state" and m["state"]["version"] >= 10

        await asyncio.gather(asha.play_until(later), bikash.play_until(later))
        await asha.close()
        await bikash.close()
        table = await settle(app, code)
        version = table.state.version
        hand = [str(card) for card in table.state.match.observation(0).hand]
        assert 0 < version < 52 + 4
        reference = weakref.ref(table)
        del table

        clock.now += IDLE_UNFINISHED - 1
        assert on_server(app, tables.evict) == []
        clock.now += 2
        assert on_server(app, tables.evict) == [code]
        assert await collected(reference), "the evicted room is still held somewhere"
        assert not on_server(app, lambda: code in app.state.backend.inner._listeners)

        status, lobby = http("GET", f"{base}/api/rooms/{code}")  # the lobby reloads it
        assert status == 200 and lobby["status"] == "playing"
        assert on_server(app, lambda: tables.live[code].state.version) == version
        on_server(app, tables.evict)  # not idle long: kept
        clock.now += IDLE_UNFINISHED + 1
        assert on_server(app, tables.evict) == [code]

        asha = await Client.open(base, code, creator)  # the hello reloads it
        first = await asha.until(lambda m: m["type"] == "state")
        assert first["state"]["version"] == version
        assert sorted(first["state"]["hand"]) == sorted(hand)
        bikash = await Client.open(base, code, joined["token"])
        over = [lambda m: m["type"] == "state" and m["state"]["match_over"]] * 2
        await asyncio.gather(asha.play_until(over[0], 120), bikash.play_until(over[1], 120))
        status, record = http("GET", f"{base}/api/rooms/{code}/record")
        assert status == 200 and check(from_data(record)).valid
        assert on_server(app, lambda: tables.live[code].state.version) > version
        await asha.close()
        await bikash.close()


async def test_nothing_in_use_is_evicted(served: Any) -> None:
    app, base, clock = served
    tables = app.state.tables
    match_id, _token, client = await play_match(base, deals=2)
    await client.until(lambda m: m["type"] == "state")
    tables.max_idle = 0  # every idle table would go at once
    clock.now += 10**9
    assert on_server(app, tables.evict) == []  # a socket is open
    assert match_id in tables.live
    await client.close()
    table = await settle(app, match_id)

    move = Move(0, COMPUTER_TURN, table.state.version, 0.0)

    async def decide() -> None:  # a computer's decision being made
        table.deciding = (move, asyncio.get_running_loop().create_task(asyncio.sleep(3600)))

    on_server(app, decide())
    assert on_server(app, tables.evict) == []
    on_server(app, table._stop_deciding)
    await settle(app, match_id)
    done: list[asyncio.Event] = []

    async def hold() -> None:  # a letter being handled: an action or a lobby change stored
        done.append(asyncio.Event())
        table.post(done[0].wait)
        await asyncio.sleep(0)

    on_server(app, hold())
    assert on_server(app, tables.evict) == []
    on_server(app, lambda: done[0].set())
    await settle(app, match_id)
    assert on_server(app, tables.evict) == [match_id]


async def test_idle_tables_are_bounded_and_a_held_copy_comes_back(served: Any) -> None:
    app, base, clock = served
    tables = app.state.tables
    tables.max_idle = 2
    codes = []
    for _ in range(4):
        status, room = http("POST", f"{base}/api/rooms", {"name": "Asha"})
        assert status == 201
        codes.append(room["room"])
        clock.now += 1
    # Past the bound, the least recently used went at once, however short their idle time.
    assert list(tables.live) == codes[2:]
    status, _ = http("GET", f"{base}/api/rooms/{codes[0]}")
    assert status == 200 and list(tables.live) == [codes[3], codes[0]]
    # A table let go of while something still holds it comes back as that very copy: a
    # process never has two copies of one table.
    held = tables.live[codes[3]]
    clock.now += IDLE_UNFINISHED + 1
    assert set(on_server(app, tables.evict)) == {codes[0], codes[3]}
    assert on_server(app, tables.get(codes[3])) is held


async def test_a_closed_socket_leaves_memory_without_the_cycle_collector(served: Any) -> None:
    """A connection, its socket and its compression buffers leave memory as soon as the socket
    closes, by reference counting alone: a reference cycle (a cancelled writer task's frames
    holding its Connection, which holds the task) kept each one until a full collection, which
    a busy server runs seldom: benchmarks/rooms.py measured about 55 MB held after 200 rooms."""
    app, base, _ = served
    match_id, _, client = await play_match(base)
    await client.until(lambda m: m["type"] == "state")
    table = app.state.tables.live[match_id]
    (connection,) = on_server(app, lambda: list(table.hub.connections.values()))
    references = [weakref.ref(connection), weakref.ref(connection.websocket)]
    del connection
    gc.collect()
    gc.disable()  # what leaves from here on leaves by reference counting alone
    try:
        await client.close()
        await settle(app, match_id)
        for _ in range(100):
            if all(reference() is None for reference in references):
                break
            await asyncio.sleep(0.05)
        assert [reference() is None for reference in references] == [True, True]
    finally:
        gc.enable()
