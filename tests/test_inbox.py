"""A live table's inbox (``web.live``, issue 40): everything that touches a table is a letter
handled one at a time, in order, so two that race are taken in the order they arrive and the
later is refused with its code when the first made it stale; on every process alike, since
the store's check decides between processes."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from callbreak.game import Call
from callbreak.players.base import TIMEOUT
from callbreak.web.backend import Backend, LocalBackend
from callbreak.web.driver import Decided
from callbreak.web.model import StaleAction, TableData, join, leave, new_room, open_seat, start
from callbreak.web.redis_backend import RedisBackend
from callbreak.web.store import Store
from callbreak.web.tables import LiveTable
from tests.helpers import RecordingSocket, redis_server

pytestmark = pytest.mark.anyio


def _room() -> tuple[TableData, str]:
    """A started room: Asha (seat 0), Bikash (seat 1), two computers; Bikash's token."""
    data = new_room("strict", "Asha", [None, "random", "random"])
    seat, token = join(data, "Bikash")
    assert seat == 1
    start(data)
    return data, token


async def _to_seat(table: LiveTable, seat: int) -> None:
    """Make the calls before ``seat``'s (for whoever's turn it is) until it is ``seat``'s."""
    while table.state.match.deal.turn != seat:
        turn = table.state.match.deal.turn
        assert turn is not None
        await table.act(turn, Call(table.state.match.rules.min_call), table.state.version)


def _given_away(data: TableData) -> None:
    """Bikash leaves and his seat goes to Esha: his token holds no seat any more."""
    leave(data, 1)
    open_seat(data, 1)
    join(data, "Esha")


async def _table(backend: Backend, data: TableData) -> LiveTable:
    copy = await backend.load(data.id)
    assert copy is not None
    table = LiveTable(copy, backend)
    table.halted = True  # not driven: the computers play only when the test says
    return table


async def _code(work: Any) -> str | None:
    """The refusal code ``work`` ends with (None: taken)."""
    try:
        await work
    except StaleAction as error:
        return error.code
    return None


@pytest.mark.parametrize("card_first", [True, False])
async def test_a_card_and_the_seat_given_away_are_taken_in_the_order_they_came(
    card_first: bool,
) -> None:
    backend = LocalBackend(Store(":memory:"))
    data, token = _room()
    await backend.create(data)
    table = await _table(backend, data)
    socket: Any = RecordingSocket()
    assert await table.join(socket, token) == 1
    await _to_seat(table, 1)
    version = table.state.version
    card = table.act(1, Call(3), version, by=socket)
    away = table.change(_given_away)
    first, second = (card, away) if card_first else (away, card)
    tasks = [asyncio.ensure_future(first), asyncio.ensure_future(second)]
    codes = await asyncio.gather(*(_code(task) for task in tasks))
    stored = await backend.load(data.id)
    assert stored is not None and stored.seats[1].name == "Esha"
    if card_first:
        assert codes == [None, None]  # the card was Bikash's to play when it came
        assert stored.version == version + 1
    else:
        assert codes[1] == "seat_changed" and stored.version == version  # nothing stored
        assert table.hub.seat_of(socket) is None  # and he watches now
    welcomes = [json.loads(text) for text in socket.sent if '"welcome"' in text]
    assert welcomes[-1] == {"type": "welcome", "seat": None}


@pytest.mark.parametrize("card_first", [True, False])
async def test_a_card_and_the_clock_running_out_are_taken_in_the_order_they_came(
    card_first: bool,
) -> None:
    """The cover's decision for a person out of time and the person's own card: whichever
    arrives first is taken; the other is dropped (the cover's, silently: the table moved on)
    or refused with its code (the person's: ``stale``)."""
    backend = LocalBackend(Store(":memory:"))
    data, token = _room()
    await backend.create(data)
    table = await _table(backend, data)
    socket: Any = RecordingSocket()
    await table.join(socket, token)
    await _to_seat(table, 1)
    version = table.state.version
    cover = Decided(1, version, Call(5), [{"fault": TIMEOUT}], covered=TIMEOUT)
    done = asyncio.Event()

    async def covered() -> None:
        await table._take(cover)
        done.set()

    if card_first:
        person = asyncio.ensure_future(_code(table.act(1, Call(2), version, by=socket)))
        await asyncio.sleep(0)  # the person's task hands its card to the inbox
        table.post(covered)
    else:
        table.post(covered)
        person = asyncio.ensure_future(_code(table.act(1, Call(2), version, by=socket)))
    code = await person
    await done.wait()
    stored = await backend.load(data.id)
    assert stored is not None and stored.version == version + 1
    taken = stored.actions[version]
    if card_first:
        assert code is None and taken == "c2" and version not in stored.faults
    else:
        assert code == "stale" and taken == "c5" and stored.faults[version]


@pytest.mark.redis
async def test_two_processes_taking_one_seat_at_once_store_one_card() -> None:
    """Bikash's seat open in two tabs on two processes (two copies on one Redis), each sending
    a different call on the same version at once: one is stored, the other refused with its
    code, and both copies end at the same table."""
    with redis_server() as url:
        backend = RedisBackend(url)
        try:
            data, token = _room()
            await backend.create(data)
            a, b = await _table(backend, data), await _table(backend, data)
            on_a, on_b = RecordingSocket(), RecordingSocket()
            await a.join(on_a, token)  # type: ignore[arg-type]
            await b.join(on_b, token)  # type: ignore[arg-type]
            await _to_seat(a, 1)
            await b.catch_up()
            version = a.state.version
            assert b.state.version == version
            codes = await asyncio.gather(
                _code(a.act(1, Call(3), version, by=on_a)),  # type: ignore[arg-type]
                _code(b.act(1, Call(6), version, by=on_b)),  # type: ignore[arg-type]
            )
            assert sorted(codes, key=str) == ["None", "moved_on"] or codes.count(None) == 1
            assert codes.count(None) == 1 and "moved_on" in codes
            await a.catch_up()
            await b.catch_up()
            stored = await backend.load(data.id)
            assert stored is not None and stored.version == version + 1
            assert a.state.data.actions == b.state.data.actions == stored.actions
        finally:
            await backend.close()


@pytest.mark.redis
async def test_an_event_whose_version_skips_is_caught_up_from_the_store() -> None:
    """B hears of A's second action only (the first event lost): B reads the store, not the
    event, and takes both, in order."""
    with redis_server() as url:
        backend = RedisBackend(url)
        try:
            data, _token = _room()
            await backend.create(data)
            a, b = await _table(backend, data), await _table(backend, data)
            for _ in range(2):
                turn = a.state.match.deal.turn
                assert turn is not None
                await a.act(turn, Call(a.state.match.rules.min_call), a.state.version)
            assert b.state.version == a.state.version - 2
            await b.ask(lambda: b._heard({"type": "action", "version": a.state.version}))
            assert b.state.data.actions == a.state.data.actions
        finally:
            await backend.close()
