"""A live table's inbox (``web.live``, issue 40): everything that touches a table is a letter
handled one at a time, in order, so two that race are taken in the order they arrive and the
later is refused with its code when the first made it stale; on every process alike, since
the store's check decides between processes."""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import pytest

from callbreak.cards import CardSet
from callbreak.game import Call, Deal, Play
from callbreak.players.base import TIMEOUT
from callbreak.web.actions import TableAction, decode
from callbreak.web.backend import Backend, LocalBackend
from callbreak.web.driver import COVER, Decided
from callbreak.web.model import (
    StaleAction,
    TableData,
    claim,
    join,
    leave,
    new_room,
    open_seat,
    start,
)
from callbreak.web.redis_backend import RedisBackend
from callbreak.web.state import event_json
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
    cover = Decided(1, version, Call(5), [{"fault": TIMEOUT}], covered=TIMEOUT, by=COVER)
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


# --- what every connection is told ---------------------------------------------------------


def _people() -> tuple[TableData, list[str]]:
    """A started one-deal room of four people; their tokens, by seat."""
    data = new_room("strict(deals=1)", "Asha", [None, None, None], turn_seconds=0)
    tokens = [claim(data, 0)]
    for name in ("Bikash", "Chandra", "Dipa"):
        tokens.append(join(data, name)[1])
    start(data)
    return data, tokens


def _next_action(table: LiveTable) -> tuple[int, TableAction]:
    """The seat to act and a legal action of it (the lowest call, the first legal card)."""
    match = table.state.match
    seat = match.deal.turn
    assert seat is not None
    seen = match.observation(seat)
    if seen.legal_calls:
        return seat, Call(min(seen.legal_calls))
    return seat, Play(min(seen.legal_cards))


def _states(socket: RecordingSocket) -> list[dict[str, Any]]:
    return [m for m in map(json.loads, socket.sent) if m["type"] == "state"]


async def _flushed(table: LiveTable, sockets: list[RecordingSocket]) -> None:
    for socket in sockets:
        await table.hub.flush(socket)  # type: ignore[arg-type]


async def test_every_seat_and_a_spectator_are_told_the_same_events_in_order() -> None:
    """A whole deal of four people and a spectator, all connected: every connection is sent
    one state per version, each with the event that led to it (the action stored at the
    version before, by its seat), the same sequence for all, with no gap."""
    backend = LocalBackend(Store(":memory:"))
    data, tokens = _people()
    await backend.create(data)
    table = await _table(backend, data)
    sockets = [RecordingSocket() for _ in range(5)]
    for socket, token in zip(sockets, [*tokens, None], strict=True):
        await table.join(socket, token)  # type: ignore[arg-type]
    await _flushed(table, sockets)
    for socket in sockets:  # each was sent the table at its join, and at each later one's
        assert _states(socket)[-1]["event"] is None
        socket.sent.clear()
    taken: list[dict[str, Any]] = []
    while not table.state.match.is_over:
        seat, action = _next_action(table)
        version = table.state.version
        await table.act(seat, action, version, by=sockets[seat])  # type: ignore[arg-type]
        taken.append(event_json(version, seat, action))
    await _flushed(table, sockets)
    streams = [[(s["state"]["version"], s["event"]) for s in _states(x)] for x in sockets]
    expected = [(index + 1, event) for index, event in enumerate(taken)]
    assert len(taken) == 4 + 52
    for seat, stream in enumerate(streams):
        assert stream == expected, f"seat {seat if seat < 4 else None}"


def _keep_apart(deal: Deal, kept: set[int]) -> bool:
    """Swap one unplayed card between two seats not in ``kept`` (``tests.helpers.swap_hidden``
    with the seats it may touch chosen); whether there were two such seats holding cards."""
    others = [s for s in range(4) if s not in kept and deal.held(s)]
    if len(others) < 2:
        return False
    hands = list(deal.hands)
    first, second = others[:2]
    pairs = [(a, b) for a in deal.held(first) for b in deal.held(second)]
    pairs.sort(key=lambda pair: pair[0].suit != pair[1].suit)
    give, take_back = pairs[0]
    for s, out, into in ((first, give, take_back), (second, take_back, give)):
        hands[s] = CardSet((set(hands[s]) - {out}) | {into})
        deal._held[s] = (deal._held[s] & ~(1 << out)) | (1 << into)
    deal.hands = tuple(hands)
    return True


async def _told(
    backend: Backend,
    data: TableData,
    tokens: list[str],
    version: int,
    viewer: int | None,
    hide: bool,
) -> list[str]:
    """What ``viewer``'s connection (None: a spectator) is sent as it joins the table before
    ``version`` and the action stored at ``version`` is taken again, the other seats' hidden
    cards swapped first when ``hide``."""
    before = copy.deepcopy(data)
    before.id = f"{data.id}{version}{viewer}{hide}"
    before.actions, before.faults = data.actions[:version], {}
    await backend.create(before)
    table = await _table(backend, before)
    action = decode(data.actions[version])
    actor = table.state.match.deal.turn
    assert actor is not None
    if hide and not _keep_apart(table.state.match.deal, {actor} | {viewer} - {None}):
        return []
    socket = RecordingSocket()
    await table.join(socket, None if viewer is None else tokens[viewer])  # type: ignore[arg-type]
    await table.act(actor, action, version)
    await _flushed(table, [socket])
    return [text.replace(before.id, "ROOM") for text in socket.sent]


async def test_nothing_sent_changes_with_the_other_seats_hidden_cards() -> None:
    """For every seat's and a spectator's connection, at every third version of a played deal:
    what the connection is sent as it joins and after the action (the states and the event) is
    the same whatever the cards of two seats that are neither its own nor the actor's."""
    backend = LocalBackend(Store(":memory:"))
    data, tokens = _people()
    await backend.create(data)
    table = await _table(backend, data)
    while not table.state.match.is_over:
        seat, action = _next_action(table)
        await table.act(seat, action, table.state.version)
    played = table.state.data
    compared = 0
    for version in range(0, played.version, 3):
        for viewer in (0, 1, 2, 3, None):
            hidden = await _told(backend, played, tokens, version, viewer, hide=True)
            if not hidden:
                continue
            assert hidden == await _told(backend, played, tokens, version, viewer, hide=False), (
                f"version {version}, viewer {viewer}"
            )
            assert any('"state"' in text for text in hidden)
            compared += 1
    assert compared > 50


@pytest.mark.redis
@pytest.mark.parametrize("order", ["card", "event", "stored"])
async def test_a_card_and_an_event_from_another_process_are_taken_in_one_order(
    order: str,
) -> None:
    """Bikash's card on process B races his seat being given away on process A. ``card``: the
    card is stored first, and the change after it; ``event``: B hears of the change first and
    refuses the card (``seat_changed``); ``stored``: A stored the change but B takes the card
    before it hears of it, and the store refuses the card (``moved_on``). Both copies end at
    the stored table in every order."""
    with redis_server() as url:
        backend = RedisBackend(url)
        try:
            data, token = _room()
            await backend.create(data)
            a, b = await _table(backend, data), await _table(backend, data)
            on_b = RecordingSocket()
            await a.join(RecordingSocket(), None)  # type: ignore[arg-type]
            await b.join(on_b, token)  # type: ignore[arg-type]
            # Halted, neither copy hears the other: the test hands B the events, in its order.
            assert a.listening is None and b.listening is None
            await _to_seat(b, 1)
            await a.catch_up()
            version = b.state.version
            event = {"type": "lobby"}
            if order == "card":
                code = await _code(b.act(1, Call(3), version, by=on_b))  # type: ignore[arg-type]
                await a.ask(lambda: a._heard({"type": "action"}))
                await a.change(_given_away)
                await b.ask(lambda: b._heard(event))
            elif order == "event":
                await a.change(_given_away)
                b.post(lambda: b._heard(event))
                code = await _code(b.act(1, Call(3), version, by=on_b))  # type: ignore[arg-type]
            else:
                await a.change(_given_away)
                card = asyncio.ensure_future(_code(b.act(1, Call(3), version, by=on_b)))  # type: ignore[arg-type]
                await asyncio.sleep(0)  # the card is in B's inbox before the event
                b.post(lambda: b._heard(event))
                code = await card
                await b.ask(lambda: b._heard(event))
            expected = {"card": None, "event": "seat_changed", "stored": "moved_on"}[order]
            assert code == expected
            stored = await backend.load(data.id)
            assert stored is not None and stored.seats[1].name == "Esha"
            assert stored.version == version + (order == "card")
            for table in (a, b):
                assert table.state.data.actions == stored.actions
                assert table.state.data.rev == stored.rev
            assert b.hub.seat_of(on_b) is None  # Bikash watches now, on B too
        finally:
            await backend.close()


async def test_the_lobby_goes_to_everyone_once_and_to_each_who_joins() -> None:
    """A room's lobby is sent to everyone only when it changed (another process's card does not
    resend it), but a connection that joins gets it even when nothing in it changed (a second
    tab of a seat already here)."""
    backend = LocalBackend(Store(":memory:"))
    data, token = _room()
    await backend.create(data)
    table = await _table(backend, data)
    first, second, third = RecordingSocket(), RecordingSocket(), RecordingSocket()

    def lobbies(socket: RecordingSocket) -> int:
        return sum(1 for message in map(json.loads, socket.sent) if message["type"] == "room")

    await table.join(first, token)  # type: ignore[arg-type]
    await table.join(second, token)  # type: ignore[arg-type]
    await table.join(third, None)  # type: ignore[arg-type]
    await _flushed(table, [first, second, third])
    assert lobbies(second) >= 1 and lobbies(third) >= 1
    before = [lobbies(socket) for socket in (first, second, third)]
    await _to_seat(table, 0)  # cards and calls: the lobby as it was
    await table.catch_up()
    await _flushed(table, [first, second, third])
    assert [lobbies(socket) for socket in (first, second, third)] == before
