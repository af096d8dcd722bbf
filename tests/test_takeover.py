"""A person who joins a pool later takes a computer's seat at a table of that pool, from the
start of its next deal (``web.pools``, ``model.take_over``, ``Seat.since``): the seat's score
so far stays the seat's, the record marks who played which deals, the person is sent nothing
of the seat's hand before their first deal and nothing of another seat's ever; they may give
the seat back before it begins; the live table rates the match at its end (``web.live``).
Tables here are not driven (``halted``): the test plays every seat's turn."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from callbreak.game import Call, Play
from callbreak.record import check, from_data
from callbreak.web.backend import LocalBackend
from callbreak.web.export import record_of
from callbreak.web.hub import ROOM_VIEW, VIEW
from callbreak.web.model import COMPUTER, FINISHED, PERSON, TableData, new_room, start
from callbreak.web.pools import _seize, first_free_deal
from callbreak.web.standings import outcome_of, rated_for
from callbreak.web.state import replay
from callbreak.web.store import Store
from callbreak.web.tables import LiveTable
from callbreak.web.view import lobby_json
from tests.fairness import hidden_cards_seen
from tests.helpers import RecordingSocket, swap_hidden

pytestmark = pytest.mark.anyio

RULES = "strict(deals=3)"


def _public_table() -> TableData:
    """A pool's table as the pools start it for one person: Asha in seat 0, three computers."""
    data = new_room(RULES, "Asha", ["random", "random", "random"], seed="11")
    start(data)
    data.settings["public"] = {"pool": "strict", "profiles": ["asha", None, None, None]}
    return data


async def _table(data: TableData) -> tuple[LiveTable, LocalBackend]:
    backend = LocalBackend(Store(":memory:"))
    await backend.create(data)
    copy = await backend.load(data.id)
    assert copy is not None
    table = LiveTable(copy, backend)
    table.halted = True  # not driven: every turn is the test's
    return table, backend


async def _take_over(table: LiveTable, seat: int, name: str) -> Any:
    """``name`` (profile ``name.lower()``) takes the computer's seat ``seat``: its token and
    the index of the person's first deal."""
    person = {"id": name.lower(), "name": name, "avatar": "sun"}
    return await table.change(lambda data: _seize(data, "strict", seat, person))


async def _step(table: LiveTable) -> None:
    """One action for whoever's turn it is: the lowest call, or the lowest legal card."""
    deal = table.state.match.deal
    seat = deal.turn
    assert seat is not None
    action = Call(deal.rules.min_call) if deal.legal_calls() else Play(min(deal.legal_cards()))
    await table.act(seat, action, table.state.version)


async def _play_until(table: LiveTable, done: Any) -> None:
    while not done(table.state.match):
        await _step(table)


async def _sent(table: LiveTable, socket: Any) -> list[str]:
    """Everything a connection is sent when it asks for the table again (``sync``), with
    every view worked out anew, and the lobby and record anyone may ask for."""
    socket.sent.clear()
    table.hub._private.clear()
    await table.hub.send(ROOM_VIEW, socket)
    await table.hub.send(VIEW, socket)
    await table.hub.flush(socket)
    lobby = json.dumps(lobby_json(table.state), sort_keys=True)
    return [*socket.sent, lobby, json.dumps(record_of(table.state), sort_keys=True)]


async def test_a_taken_over_seat_sends_its_hand_only_from_the_persons_first_deal() -> None:
    table, _ = await _table(_public_table())
    # Into the first deal: two tricks played, so that the seat is taken from the next deal.
    await _play_until(table, lambda match: len(match.deal.tricks) >= 2)
    assert first_free_deal(table.state.data, table.state.match) == 1
    token, since = await _take_over(table, 2, "Bina")
    assert since == 1
    seat = table.state.data.seats[2]
    assert (seat.kind, seat.name, seat.since, seat.before, seat.level) == (
        PERSON,
        "Bina",
        1,
        "Chandra",
        "random",
    )
    assert table.state.data.public["profiles"] == ["asha", None, "bina", None]  # type: ignore[index]
    # Until then the seat is the computer's: it plays it, and the lobby says who is coming.
    assert table.state.seats[2].kind == COMPUTER
    assert lobby_json(table.state)["seats"][2]["arriving"] == {"name": "Bina", "deal": 2}
    bina: Any = RecordingSocket()
    assert await table.join(bina, token) is None  # watching
    await table.hub.flush(bina)
    welcome = json.loads(bina.sent[0])
    assert welcome == {"type": "welcome", "seat": None, "arriving": {"seat": 2, "deal": 2}}
    log = list(bina.sent)

    # Before the person's first deal, no hand at all reaches them, the seat's own included:
    # moving any hidden card between any two seats changes nothing they are sent.
    before = await _sent(table, bina)
    assert json.loads(before[1])["state"]["hand"] == []
    for other in range(4):
        swap_hidden(table.state.match.deal, other)
        assert await _sent(table, bina) == before, f"a swap of the seats other than {other}"
    table.state.rebuild(table.state.data)  # the true hands again

    bina.sent.clear()
    await _play_until(table, lambda match: len(match.deals) == 2)
    await table.hub.flush(bina)
    log += bina.sent
    assert {"type": "welcome", "seat": 2} in [json.loads(text) for text in bina.sent]
    assert table.state.seats[2].kind == PERSON and table.state.seating.occupant(2) is None
    await _play_until(table, lambda match: len(match.deal.tricks) >= 1)
    await table.hub.flush(bina)
    log += bina.sent

    # From then on the seat's hand is theirs, and nothing of another seat's reaches them.
    now = await _sent(table, bina)
    state = json.loads(now[1])["state"]
    assert state["seat"] == 2
    assert sorted(state["hand"]) == sorted(str(c) for c in table.state.match.deal.held(2))
    hands = [table.state.match.deal.held(s) for s in range(4)]
    swap_hidden(table.state.match.deal, 2)
    assert [table.state.match.deal.held(s) for s in range(4)] != hands
    assert await _sent(table, bina) == now
    table.state.rebuild(table.state.data)

    data = table.state.data
    leaks = hidden_cards_seen(log, 2, data.rules, data.seed, data.actions, since=1)
    assert leaks == []


async def test_the_record_marks_who_played_which_deals_and_the_seat_keeps_its_score(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table, _ = await _table(_public_table())
    await _play_until(table, lambda match: len(match.deal.tricks) >= 5)
    await _take_over(table, 1, "Bina")
    # While the first deal is played, the record has no deal of Bina's: nothing of her yet.
    assert "takeovers" not in record_of(table.state)
    await _play_until(table, lambda match: len(match.deals) == 2)
    first = table.state.match.totals()
    await _play_until(table, lambda match: match.is_over)
    assert table.state.data.status == FINISHED
    record = record_of(table.state)
    assert record["players"] == ["Asha", "Bikash", "Chandra", "Dipa"]  # who began each seat
    assert record["takeovers"] == [{"seat": 1, "deal": 2, "player": "Bina"}]
    read = from_data(record)
    assert read.players_in(1)[1] == "Bikash" and read.players_in(2)[1] == "Bina"
    checked = check(read)
    assert checked.valid
    # `callbreak check` takes it as any record, and says the same scores.
    from callbreak.cli import main

    path = tmp_path / "record.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    capsys.readouterr()
    assert main(["check", "--json", str(path)]) == 0
    said = json.loads(capsys.readouterr().out)
    assert said["valid"] and len(said["totals"]) == 4
    # The replay takes it too, the takeovers in its record for the page to name each deal's.
    from callbreak.web.export import replay_data

    replayed = replay_data(record, table.state.data.name_keys_in(0))
    assert replayed["record"]["takeovers"] == record["takeovers"]
    assert replayed["name_keys"][1] == "computer.0"  # Bikash, worded by each page
    # The seat's total counts the computer's deal and Bina's, as one seat's score.
    deal_one = table.state.match.deals[0].scores()
    assert first == deal_one and checked.totals == table.state.match.totals()


@pytest.mark.parametrize(
    ("takeover", "broken"),
    [
        ({"seat": 4, "deal": 2, "player": "B"}, '"seat" must be a seat 0-3'),
        ({"seat": 1, "deal": 1, "player": "B"}, '"deal" must be a deal of the record from 2'),
        ({"seat": 1, "deal": 9, "player": "B"}, '"deal" must be a deal of the record from 2'),
        ({"seat": 1, "deal": 2, "player": 7}, '"player" must be a name'),
        ({"seat": 1, "deal": 2}, 'has no "player"'),
        ({"seat": 1, "deal": 2, "player": "B", "x": 1}, "unknown key 'x'"),
    ],
)
async def test_a_record_with_a_bad_takeover_is_refused(takeover: Any, broken: str) -> None:
    from callbreak.errors import RecordError

    table, _ = await _table(_public_table())
    await _play_until(table, lambda match: match.is_over)
    record = record_of(table.state)
    record["takeovers"] = [takeover]
    with pytest.raises(RecordError, match=broken):
        from_data(record)


async def test_a_person_may_give_the_seat_back_before_their_first_deal() -> None:
    from callbreak.web.rooms import _left

    table, _ = await _table(_public_table())
    await _play_until(table, lambda match: len(match.deal.tricks) >= 1)
    token, _ = await _take_over(table, 3, "Bina")
    assert await table.change(lambda data: _left(data, token)) == 3
    seat = table.state.data.seats[3]
    assert (seat.kind, seat.name, seat.level, seat.token) == (COMPUTER, "Dipa", "random", None)
    assert table.state.data.public["profiles"][3] is None  # type: ignore[index]
    assert table.state.data.seat_of(token) is None


async def test_no_seat_is_taken_in_a_last_deal_begun_nor_twice_by_one_person() -> None:
    from callbreak.refusals import Refusal

    table, _ = await _table(_public_table())
    # A deal not yet begun is taken at once (its hand is the person's from now).
    token, since = await _take_over(table, 1, "Bina")
    assert since == 0 and table.state.seat_of(token) == 1
    with pytest.raises(Refusal):  # Bina sits here already
        await _take_over(table, 2, "Bina")
    with pytest.raises(Refusal):  # a person's seat, not a computer's
        await _take_over(table, 1, "Cy")
    await _play_until(table, lambda match: len(match.deals) == 3 and match.deal.actions)
    assert first_free_deal(table.state.data, table.state.match) is None
    with pytest.raises(Refusal):
        await _take_over(table, 2, "Cy")


async def test_the_live_table_rates_its_match_once_at_its_end() -> None:
    table, backend = await _table(_public_table())
    await _play_until(table, lambda match: len(match.deal.tricks) >= 1)
    await _take_over(table, 2, "Bina")
    assert await backend.rating("strict", "asha") is None
    await _play_until(table, lambda match: match.is_over)
    asha = await backend.rating("strict", "asha")
    bina = await backend.rating("strict", "bina")  # played 2 of the 3 deals: rated
    assert asha is not None and asha.matches == 1
    assert bina is not None and bina.matches == 1
    # Asked again (another process seeing the end, the pools' status poll): rated once.
    from callbreak.web.standings import rate_finished

    assert await rate_finished(backend, table.state.data) is False
    assert (await backend.rating("strict", "asha")).matches == 1  # type: ignore[union-attr]
    # Her profile's page counts her own deals only (from the one she took the seat at), the
    # seat's total and place being the seat's.
    match = table.state.match
    since = table.state.data.seats[2].since
    assert since == 1
    theirs = [deal for index, deal in enumerate(match.deals) if index >= since]
    [play] = await backend.plays("bina", 5)
    assert play["deals"] == len(theirs) == 2
    assert play["made"] == sum(1 for deal in theirs if deal.won[2] >= (deal.calls[2] or 0))
    assert (play["total"], play["place"]) == (match.totals()[2], match.places()[2])
    [whole] = await backend.plays("asha", 5)
    assert whole["deals"] == 3


def test_a_person_who_took_over_is_rated_only_for_half_the_deals_or_more() -> None:
    from callbreak.ratings import Computer, Person
    from callbreak.web.model import Seat

    assert rated_for(Seat(PERSON, "A"), [0, 1, 2])
    assert rated_for(Seat(PERSON, "A", "random", since=1), [0, 1, 2])  # 2 of 3
    assert not rated_for(Seat(PERSON, "A", "random", since=2), [0, 1, 2])  # 1 of 3
    assert rated_for(Seat(PERSON, "A", "random", since=2), [0, 2, 3])  # a deal thrown in
    data = _public_table()
    data.seats[1] = Seat(PERSON, "Bina", "random", since=2, before="Bikash")
    data.seats[2] = Seat(PERSON, "Cy", "random", since=1, before="Chandra")
    data.settings["public"]["profiles"] = ["asha", "bina", "cy", None]
    from callbreak.game import Match
    from callbreak.seating import play_match
    from callbreak.web.actions import encode

    match = Match(data.rules, seed=data.seed)
    play_match(match, ["random"] * 4)
    data.actions = [encode(a) for deal in match.deals for a in deal.actions]
    data.status = FINISHED
    outcome = outcome_of(data)
    assert outcome is not None
    assert outcome.seats == (Person("asha"), Computer("random"), Person("cy"), Computer("random"))
    assert tuple(outcome.places) == tuple(replay(data).places())


async def test_seat_zero_has_no_creators_powers_over_the_socket_at_a_public_table() -> None:
    """The speed and the end of a match are nobody's to change at a table of strangers: seat 0's
    ``settings`` and ``stop`` are refused with ``public_table``, and nothing changes."""
    from callbreak.web.messages import handle
    from callbreak.web.model import claim
    from callbreak.web.tables import Tables
    from tests.helpers import FAST

    data = _public_table()
    token = claim(data, 0)
    table, backend = await _table(data)
    tables = Tables(backend, FAST)
    socket: Any = RecordingSocket()
    socket.scope = {"type": "websocket", "client": ("10.0.0.1", 1)}
    assert await table.join(socket, token) == 0
    for message in ({"type": "settings", "speed": "instant"}, {"type": "stop", "version": 0}):
        await handle(table, socket, json.dumps(message), tables)
        await table.hub.flush(socket)
        errors = [m for m in map(json.loads, socket.sent) if m["type"] == "error"]
        assert errors[-1]["code"] == "public_table"
    stored = await backend.load(data.id)
    assert stored is not None and stored.settings["speed"] == "normal" and stored.rev == data.rev


async def test_a_computers_decision_made_before_the_takeover_is_not_the_persons() -> None:
    """The computer's decision for its seat, made on the version the takeover is stored on and
    arriving after it (its search was under way while the lobby change was stored), is not
    taken: from the person's first deal the seat's calls and cards are theirs alone."""
    from callbreak.web.driver import COMPUTER_TURN, Decided

    table, _ = await _table(_public_table())
    await _play_until(table, lambda match: len(match.deals) == 3)
    seat = table.state.match.deal.turn
    assert seat is not None and seat != 0  # a computer's call opens the deal
    version = table.state.version
    decided = Decided(seat, version, Call(table.state.match.rules.min_call), [], by=COMPUTER_TURN)
    token, since = await _take_over(table, seat, "Bina")
    assert since == 2 and table.state.seat_of(token) == seat
    assert table.state.version == version  # a lobby change: the version the decision was on
    await table.ask(lambda: table._take(decided))
    assert table.state.version == version
    assert table.state.match.deal.actions == []
