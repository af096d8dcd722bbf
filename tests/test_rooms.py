"""Rooms over real HTTP and WebSockets on loopback: the lobby, seats and tokens, spectators,
stale clicks, the turn clock, people going away and coming back, leaving, and a restart.

Every message a seat or spectator receives is checked afterwards: no card of another seat's
hand, ever (see ``fairness.hidden_cards_seen``)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from callbreak.bots.remote import BotAddresses
from callbreak.game import Match
from callbreak.record import check, from_data
from callbreak.web import cover
from callbreak.web.actions import Stop, decode, take
from callbreak.web.app import create_app
from callbreak.web.client import Client, http
from callbreak.web.driver import Move
from callbreak.web.export import record_of
from callbreak.web.limits import DEFAULT
from callbreak.web.state import event_json
from callbreak.web.tasks import LEASE_SECONDS
from callbreak.web.view import lobby_json, seat_view
from tests.fairness import hidden_cards_seen
from tests.helpers import FAST, Listener, http_reply, running, swap_hidden

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["sqlite", "redis"])
def backend(request: Any, tmp_path: Path) -> Any:
    """Where the rooms live: this process's SQLite, or a real Redis (flushed for each test)."""
    if request.param == "sqlite":
        return None
    import redis

    url = request.getfixturevalue("redis_url")
    redis.Redis.from_url(url).flushdb()
    return url


@pytest.fixture
def app(tmp_path: Path, backend: str | None) -> Any:
    return create_app(tmp_path / "db.sqlite", backend, FAST)


@pytest.fixture
def base(app: Any) -> Any:
    with running(app) as address:
        yield address


def new_room(base: str, **body: Any) -> tuple[str, str]:
    status, answer = http("POST", f"{base}/api/rooms", {"name": "Asha", **body})
    assert status == 201, answer
    return answer["room"], answer["token"]


def assert_fair(app: Any, code: str, *clients: Client) -> None:
    data = app.state.tables.live[code].state.data
    for client in clients:
        leaks = hidden_cards_seen(client.received, client.seat, data.rules, data.seed, data.actions)
        assert leaks == [], f"seat {client.seat} saw {leaks[:5]}"


def assert_same_events(app: Any, code: str, *clients: Client) -> None:
    """Every state a seat or a spectator was sent says what led to it (issue 40): the action
    stored at the version before, by the seat that took it, the same for everyone."""
    data = app.state.tables.live[code].state.data
    match, expected = Match(data.rules, seed=data.seed), {0: None}
    for index, stored in enumerate(data.actions):
        action = decode(stored)
        seat = None if isinstance(action, Stop) else match.deal.turn
        take(match, action)
        expected[index + 1] = event_json(index, seat, action)
    for client in clients:
        states = [m for m in map(json.loads, client.received) if m["type"] == "state"]
        assert states and all(s["event"] == expected[s["state"]["version"]] for s in states)


# --- the lobby -------------------------------------------------------------------------------


async def test_the_lobby_seats_people_and_computers(base: str) -> None:
    code, creator = new_room(base, seats=[None, "random", None], turn_seconds=0)
    assert len(code) == 6 and set(code) <= set("23456789ABCDEFGHJKMNPQRSTUVWXYZ")
    assert len(creator) >= 43  # 256 random bits
    status, lobby = http("GET", f"{base}/api/rooms/{code.lower()}")
    assert status == 200 and lobby["status"] == "lobby"
    assert [seat["kind"] for seat in lobby["seats"]] == ["person", "open", "computer", "open"]
    assert creator not in json.dumps(lobby)
    status, joined = http(
        "POST", f"{base}/api/rooms/{code}/join", {"name": "<img src=x onerror=f()>"}
    )
    assert status == 200 and joined["seat"] == 1
    status, lobby = http("GET", f"{base}/api/rooms/{code}")
    assert lobby["seats"][1]["name"] == "<img src=x onerror=f()>"  # kept as text
    status, answer = http("POST", f"{base}/api/rooms/{code}/start", token=creator)
    assert status == 409 and "seat 3 is still open" in answer["error"]
    status, answer = http("POST", f"{base}/api/rooms/{code}/start", token=joined["token"])
    assert status == 403
    status, answer = http("POST", f"{base}/api/rooms/{code}/start", token="forged")
    assert status == 401
    status, answer = http("POST", f"{base}/api/rooms/{code}/move", {"from": 1, "to": 3}, creator)
    assert status == 200 and answer["seats"][3]["kind"] == "person"
    status, answer = http(
        "POST", f"{base}/api/rooms/{code}/seats/1", {"level": "beginner"}, creator
    )
    assert status == 200 and answer["seats"][1]["level"] == "beginner"
    status, answer = http("POST", f"{base}/api/rooms/{code}/seats/2", {"open": True}, creator)
    assert status == 200 and answer["seats"][2]["kind"] == "open"
    status, third = http("POST", f"{base}/api/rooms/{code}/join", {"name": "Chandra"})
    assert status == 200 and third["seat"] == 2
    status, answer = http("POST", f"{base}/api/rooms/{code}/join", {"name": "Dipa"})
    assert status == 409 and "no open seat" in answer["error"]
    status, answer = http("POST", f"{base}/api/rooms/{code}/start", token=creator)
    assert status == 200 and answer["status"] == "playing"
    status, answer = http("POST", f"{base}/api/rooms/{code}/start", token=creator)
    assert status == 409


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "words"),
    [
        ("GET", "/api/rooms/ZZZZZZ", None, 404, "no such room"),
        ("POST", "/api/rooms/ZZZZZZ/join", {"name": "x"}, 404, "no such room"),
        ("POST", "/api/rooms", {"name": ""}, 400, "at least one visible character"),
        ("POST", "/api/rooms", {"name": "x" * 40}, 400, "at most 24"),
        ("POST", "/api/rooms", {"name": "a", "seats": [None]}, 400, "seats 1-3"),
        (
            "POST",
            "/api/rooms",
            {"name": "a", "seats": ["wizard", None, None]},
            400,
            "the levels here are random, beginner, intermediate, advanced, learned, expert",
        ),
        # Levels anyone may seat are bounded: a search of minutes would hold a core.
        (
            "POST",
            "/api/rooms",
            {"name": "a", "seats": ["expert(time=600)", None, None]},
            400,
            "time must be 0.01-2 here, not 600",
        ),
        ("POST", "/api/rooms", {"name": "a", "cover": "expert(time=600)"}, 400, "time must be"),
        ("POST", "/api/rooms", {"name": "a", "cover": "expert(threads=64)"}, 400, "threads"),
        ("POST", "/api/rooms", {"name": "a", "cover": "ismcts"}, 400, "not 'ismcts'"),
        # Found by a probe: a cover that cannot be built stopped the room when first needed.
        ("POST", "/api/rooms", {"name": "a", "cover": "expert(threads=1.5)"}, 400, "whole"),
        ("POST", "/api/rooms", {"name": "a", "cover": "expert(threads=2.0)"}, 400, "whole"),
        # ... and numbers of thousands of digits were a 500 (Python's own limit).
        (
            "POST",
            "/api/rooms",
            {"name": "a", "rules": "strict(deals=" + "9" * 5000 + ")"},
            400,
            "more than 30 characters",
        ),
        (
            "POST",
            "/api/matches",
            {"rules": "strict(deals=" + "9" * 5000 + ")"},
            400,
            "more than 30 characters",
        ),
        # Whoever chose the seed would know every hand.
        ("POST", "/api/rooms", {"name": "a", "seed": 7}, 400, "drawn by the server"),
        ("POST", "/api/rooms", {"name": "a", "seed": None}, 400, "leave out the seed"),
        ("POST", "/api/rooms", {"name": "a", "rules": "bridge"}, 400, "unknown profile"),
        ("POST", "/api/rooms", {"name": "a", "turn_seconds": 2}, 400, "5-600"),
        # A whole number too large for a float: math.isfinite of it raised (a 500).
        ("POST", "/api/rooms", {"name": "a", "turn_seconds": 10**400}, 400, "5-600"),
        ("POST", "/api/rooms", {"name": "a", "speed": "warp"}, 400, "speed must be"),
        ("POST", "/api/rooms", [1, 2], 400, "JSON object"),
    ],
)
async def test_bad_requests_get_one_clear_error(
    base: str, method: str, path: str, body: Any, status: int, words: str
) -> None:
    answer_status, answer = http(method, base + path, body)
    assert answer_status == status and words in answer["error"], answer


async def test_creating_and_joining_rooms_is_limited_per_address(tmp_path: Path) -> None:
    with running(create_app(tmp_path / "db.sqlite")) as base:  # the default limits
        burst = int(DEFAULT.creation_burst)
        code, _ = new_room(base)
        joins = [http("POST", f"{base}/api/rooms/{code}/join", {"name": "b"}) for _ in range(3)]
        made = [http("POST", f"{base}/api/rooms", {"name": "a"}) for _ in range(burst)]
    statuses = [status for status, _ in [*joins, *made]]
    assert statuses[: burst - 1] == [200] * 3 + [201] * (burst - 4) and statuses[-1] == 429
    assert made[-1][1]["error"].startswith("too many requests from this address")


async def test_a_connection_flooding_messages_is_refused_then_closed(tmp_path: Path) -> None:
    with running(create_app(tmp_path / "db.sqlite")) as base:  # the default limits
        code, creator = new_room(base)
        client = await Client.open(base, code, creator)
        for _ in range(150):
            await client.send({"type": "sync"})
        errors = 0
        with pytest.raises(ConnectionClosed):
            while True:
                message = await client.next(timeout=10)
                errors += message["type"] == "error" and message["message"] == "too many messages"
        assert errors >= 1  # refused one by one (the last of them may be cut by the close)
        assert client.socket.close_code == 4429


# --- playing ---------------------------------------------------------------------------------


async def test_two_people_and_a_spectator_play_a_room(app: Any, base: str) -> None:
    code, creator = new_room(
        base,
        rules="classic(deals=2)",
        seats=[None, "random", "random"],
        turn_seconds=0,
        speed="instant",
    )
    _, joined = http("POST", f"{base}/api/rooms/{code}/join", {"name": "Bikash"})
    http("POST", f"{base}/api/rooms/{code}/start", token=creator)
    asha = await Client.open(base, code, creator)
    bikash = await Client.open(base, code, joined["token"])
    watcher = await Client.open(base, code)
    intruder = await Client.open(base, code, "not-a-token")
    assert (asha.seat, bikash.seat, watcher.seat, intruder.seat) == (0, 1, None, None)
    tried: dict[str, bool] = {}

    async def play_along(person: Client) -> None:
        while (state := await person.my_turn(timeout=60)) is not None:
            if "stale" not in tried and state["version"] > 0:
                tried["stale"] = True
                await person.send({"type": "call", "value": 1, "version": state["version"] - 1})
                error = await person.until(lambda m: m["type"] == "error")
                assert error.get("stale") and "earlier state" in error["message"]
            await person.act(state)

    async def watch() -> dict[str, Any]:
        await watcher.send({"type": "play", "card": "AS", "version": 0})
        error = await watcher.until(lambda m: m["type"] == "error")
        assert "spectator" in error["message"]
        tried["spectator"] = True
        return await watcher.until(
            lambda m: m["type"] == "state" and m["state"]["match_over"], timeout=120
        )

    async def lurk() -> None:
        await intruder.until(lambda m: m["type"] == "state" and m["state"]["match_over"], 120)

    *_, final = await asyncio.gather(play_along(asha), play_along(bikash), lurk(), watch())
    assert final["state"]["hand"] == [] and final["state"]["seat"] is None
    assert tried == {"stale": True, "spectator": True}
    assert_fair(app, code, asha, bikash, watcher, intruder)
    assert_same_events(app, code, asha, bikash, watcher, intruder)
    assert all(json.loads(m)["state"]["hand"] == [] for m in watcher.received if '"state"' in m)
    status, record = http("GET", f"{base}/api/rooms/{code}/record")
    assert status == 200 and check(from_data(record)).valid
    status, replay = http("GET", f"{base}/api/rooms/{code}/replay")
    assert replay["record"] == record and len(replay["winners"][0]) == 13
    for client in (asha, bikash, watcher, intruder):
        await client.close()


@pytest.mark.slow
async def test_the_clock_runs_out_and_the_cover_plays(app: Any, base: str) -> None:
    code, creator = new_room(
        base, seats=["random", "random", "random"], turn_seconds=5, cover="random", speed="instant"
    )
    http("POST", f"{base}/api/rooms/{code}/start", token=creator)
    asha = await Client.open(base, code, creator)
    state = await asha.my_turn()
    assert state is not None and state["clock"]["seat"] == 0
    version = state["version"]
    notice = await asha.until(lambda m: m["type"] == "notice", timeout=20)
    assert "turn clock ran out" in notice["message"]
    # What happened, as data for a page in another language to word.
    assert notice["cover"]["seat"] == 0 and notice["cover"]["reason"] == "timeout"
    assert notice["cover"]["kind"] == "call" and notice["cover"]["action"].isdigit()
    after = await asha.until(lambda m: m["type"] == "state" and m["state"]["version"] > version)
    assert after["state"]["calls"][0] is not None  # the cover called for Asha
    table = app.state.tables.live[code]
    assert table.state.data.faults[version][0]["fault"] == "timeout"
    assert_fair(app, code, asha)
    await asha.close()


@pytest.mark.slow
async def test_a_searching_cover_has_the_stand_in_while_its_search_compiles(
    app: Any, base: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a first start a room whose cover is the expert does not wait on the compiler: the
    stand-in decides for the person out of time (the expert cover, whose search functions here
    stand for ones with no machine code, would fail on them), still marked as the cover's."""
    import numba

    from callbreak import warmup
    from callbreak.players import kernel

    monkeypatch.setattr(warmup, "preparing", lambda: True)
    monkeypatch.setattr(warmup, "GRACE", 0.05)
    for name in ("simulate", "evaluate"):
        monkeypatch.setattr(kernel, name, numba.njit(lambda x: x))  # never compiled
    code, creator = new_room(
        base,
        seats=["random", "random", "random"],
        turn_seconds=5,
        cover="expert(time=0.01)",
        speed="instant",
    )
    http("POST", f"{base}/api/rooms/{code}/start", token=creator)
    asha = await Client.open(base, code, creator)
    state = await asha.my_turn()
    assert state is not None
    version = state["version"]
    notice = await asha.until(lambda m: m["type"] == "notice", timeout=20)
    assert notice["cover"]["reason"] == "timeout" and notice["cover"]["action"].isdigit()
    table = app.state.tables.live[code]
    assert [f["fault"] for f in table.state.data.faults[version]] == ["timeout"]
    assert list(table.driver.cover.stand_ins) == [0]  # the stand-in, not the expert cover, decided
    figures = app.state.metrics.registry
    assert figures.get_sample_value("callbreak_stand_in_decisions_total") >= 1
    assert figures.get_sample_value("callbreak_cover_decisions_total", {"reason": "timeout"}) >= 1
    assert_fair(app, code, asha)
    await asha.close()


@pytest.mark.slow
async def test_a_person_who_goes_away_is_covered_and_gets_the_seat_back(
    app: Any, base: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, creator = new_room(
        base, seats=[None, "random", "random"], turn_seconds=0, speed="instant"
    )
    _, joined = http("POST", f"{base}/api/rooms/{code}/join", {"name": "Bikash"})
    http("POST", f"{base}/api/rooms/{code}/start", token=creator)
    asha = await Client.open(base, code, creator)
    bikash = await Client.open(base, code, joined["token"])
    await bikash.close()  # Bikash's network goes away
    table = app.state.tables.live[code]
    covered = await asha.play_until(
        lambda m: m["type"] == "state" and 1 in m["state"]["covered"], timeout=20
    )
    assert covered["state"]["seats"][1]["connected"] is False
    away = await asha.play_until(
        lambda m: m["type"] == "notice" and "not at the table" in m["message"], timeout=30
    )
    assert "Bikash" in away["message"]
    faults = [f for notes in table.state.data.faults.values() for f in notes]
    assert any(f["fault"] == "away" and f["seat"] == 1 for f in faults)
    back = await Client.open(base, code, joined["token"])  # a reload, a new network
    assert back.seat == 1
    state = await back.until(lambda m: m["type"] == "state" and 1 not in m["state"]["covered"])
    assert state["state"]["hand"]
    # From now on Bikash's turns wait for Bikash (Asha plays hers meanwhile).
    helper = asyncio.ensure_future(asha.play_until(lambda m: False, timeout=120))
    turn = await back.my_turn(timeout=60)
    assert turn is not None
    # However long Bikash takes, the cover leaves his turn to him: asked with the cover's clock
    # and the table loop's (asyncio's, time.monotonic) an hour on, far past the away grace, the
    # driver moves nothing. A clock given, not a sleep that waits for nothing to happen.
    hour, real = 3600.0, time.time
    with monkeypatch.context() as later:
        later.setattr(cover, "time", SimpleNamespace(time=lambda: real() + hour))
        assert table.driver.cover.reason(1) == (None, LEASE_SECONDS)
        assert not isinstance(table.driver.next(time.monotonic() + hour), Move)
    assert app.state.tables.live[code].state.version == turn["version"]
    helper.cancel()
    assert_fair(app, code, asha, back)
    for client in (asha, back):
        await client.close()


async def test_leaving_for_good_and_a_computer_seated_instead(app: Any, base: str) -> None:
    code, creator = new_room(
        base, seats=[None, "random", "random"], turn_seconds=0, speed="instant"
    )
    _, joined = http("POST", f"{base}/api/rooms/{code}/join", {"name": "Bikash"})
    http("POST", f"{base}/api/rooms/{code}/start", token=creator)
    status, lobby = http("POST", f"{base}/api/rooms/{code}/leave", token=joined["token"])
    assert status == 200 and lobby["seats"][1]["left"]
    status, _ = http("POST", f"{base}/api/rooms/{code}/leave", token=joined["token"])
    assert status == 401  # the token went with the seat
    status, lobby = http(
        "POST", f"{base}/api/rooms/{code}/seats/1", {"level": "intermediate"}, creator
    )
    assert status == 200 and lobby["seats"][1]["kind"] == "computer"
    asha = await Client.open(base, code, creator)
    state = await asha.play_until(
        lambda m: m["type"] == "state" and m["state"]["calls"][1] is not None
    )
    assert state["state"]["levels"][1] == "intermediate"
    await asha.close()


async def test_a_restarted_server_goes_on_with_the_room(
    tmp_path: Path, backend: str | None
) -> None:
    database = tmp_path / "db.sqlite"
    with running(create_app(database, backend)) as base:
        code, creator = new_room(
            base, seats=["random", "random", "random"], turn_seconds=60, speed="instant"
        )
        http("POST", f"{base}/api/rooms/{code}/start", token=creator)
        asha = await Client.open(base, code, creator)
        state = await asha.my_turn()
        assert state is not None
        await asha.act(state)
        state = await asha.my_turn()
        assert state is not None
        deadline = state["clock"]["deadline"]
        await asha.close()
    with running(create_app(database, backend)) as base:
        asha = await Client.open(base, code, creator)
        again = await asha.my_turn()
        assert again is not None and again["version"] == state["version"]
        assert again["clock"]["deadline"] == deadline  # the clock goes on from where it was
        await asha.act(again)
        after = await asha.until(
            lambda m: m["type"] == "state" and m["state"]["version"] > again["version"]
        )
        assert after["state"]["calls"][0] is not None or after["state"]["tricks_played"]
        await asha.close()


# --- what a seat or a spectator is sent ------------------------------------------------------


async def test_views_do_not_change_with_the_other_seats_hidden_cards(app: Any, base: str) -> None:
    code, creator = new_room(base, seats=[None, "random", None], turn_seconds=0, speed="instant")
    http("POST", f"{base}/api/rooms/{code}/join", {"name": "B"})
    http("POST", f"{base}/api/rooms/{code}/join", {"name": "C"})
    http("POST", f"{base}/api/rooms/{code}/start", token=creator)
    table = app.state.tables.live[code]
    for seat in (0, None):
        before = json.dumps(
            [seat_view(table.state, seat), lobby_json(table.state), record_of(table.state)],
            sort_keys=True,
        )
        swap_hidden(table.state.match.deal, 0 if seat is None else seat)
        after = json.dumps(
            [seat_view(table.state, seat), lobby_json(table.state), record_of(table.state)],
            sort_keys=True,
        )
        assert after == before, f"seat {seat}"


async def test_bad_socket_messages_get_one_error_and_the_room_goes_on(base: str) -> None:
    from websockets.asyncio.client import connect

    async with connect(base.replace("http://", "ws://") + "/ws/rooms/ZZZZZZ") as unknown:
        assert json.loads(await unknown.recv())["message"] == "no such room"
    code, creator = new_room(base, turn_seconds=0)  # four people: only they move the turn
    _, joined = http("POST", f"{base}/api/rooms/{code}/join", {"name": "Bikash"})
    for name in ("Chandra", "Dipa"):
        http("POST", f"{base}/api/rooms/{code}/join", {"name": name})
    http("POST", f"{base}/api/rooms/{code}/start", token=creator)
    asha = await Client.open(base, code, creator)
    bikash = await Client.open(base, code, joined["token"])
    state = await asha.until(lambda m: m["type"] == "state")
    turn = state["state"]["turn"]
    waiting = asha if turn != 0 else bikash
    for message, words in [
        ("{nope", "not JSON"),
        ('{"type": "dance"}', "unknown message type"),
        ('{"type": "hello", "token": "x"}', "first message only"),
        ('{"type": "call", "value": 2, "version": 0}', "turn, not yours"),
        ("x" * 5000, "too long"),
    ]:
        await waiting.socket.send(message)
        error = await waiting.until(lambda m: m["type"] == "error")
        assert words in error["message"], (message, error)
    assert turn is not None
    # The room goes on: nothing was played, and the seat to act still can.
    assert waiting.state is not None and waiting.state["version"] == 0
    if turn in (0, 1):
        actor = asha if turn == 0 else bikash
        await actor.act(await actor.my_turn() or {})
        await actor.until(lambda m: m["type"] == "state" and m["state"]["version"] == 1)
    for client in (asha, bikash):
        await client.close()


# --- a connection's seat follows its token ---------------------------------------------------


async def test_a_moved_person_gets_the_new_seat(app: Any, base: str) -> None:
    code, creator = new_room(base, seats=[None, "random", None], turn_seconds=0)
    _, bikash_seat = http("POST", f"{base}/api/rooms/{code}/join", {"name": "Bikash"})
    _, chandra_seat = http("POST", f"{base}/api/rooms/{code}/join", {"name": "Chandra"})
    assert (bikash_seat["seat"], chandra_seat["seat"]) == (1, 3)
    bikash = await Client.open(base, code, bikash_seat["token"])
    assert bikash.seat == 1
    status, _ = http("POST", f"{base}/api/rooms/{code}/move", {"from": 1, "to": 3}, creator)
    assert status == 200
    welcome = await bikash.until(lambda m: m["type"] == "welcome")
    assert welcome["seat"] == 3
    bikash.seat = 3
    http("POST", f"{base}/api/rooms/{code}/start", token=creator)
    state = await bikash.until(lambda m: m["type"] == "state")
    assert state["state"]["seat"] == 3
    assert_fair(app, code, bikash)
    await bikash.close()


async def test_the_creator_cannot_be_moved(base: str) -> None:
    code, creator = new_room(base, turn_seconds=0)
    http("POST", f"{base}/api/rooms/{code}/join", {"name": "Bikash"})
    status, answer = http("POST", f"{base}/api/rooms/{code}/move", {"from": 0, "to": 1}, creator)
    assert status == 409 and "creator" in answer["error"]


async def test_a_person_who_left_watches_and_cannot_act(app: Any, base: str) -> None:
    code, creator = new_room(base, seats=[None, "random", "random"], turn_seconds=0)
    _, joined = http("POST", f"{base}/api/rooms/{code}/join", {"name": "Bikash"})
    http("POST", f"{base}/api/rooms/{code}/start", token=creator)
    bikash = await Client.open(base, code, joined["token"])
    await bikash.until(lambda m: m["type"] == "state")
    http("POST", f"{base}/api/rooms/{code}/leave", token=joined["token"])
    welcome = await bikash.until(lambda m: m["type"] == "welcome")
    assert welcome["seat"] is None
    http("POST", f"{base}/api/rooms/{code}/seats/1", {"open": True}, creator)
    _, dipa = http("POST", f"{base}/api/rooms/{code}/join", {"name": "Dipa"})
    assert dipa["seat"] == 1
    bikash.received.clear()  # what came before, Bikash saw from his seat
    bikash.seat = None
    await bikash.send({"type": "sync"})
    state = await bikash.until(lambda m: m["type"] == "state")
    assert state["state"]["seat"] is None and state["state"]["hand"] == []
    await bikash.send({"type": "call", "value": 1, "version": state["state"]["version"]})
    error = await bikash.until(lambda m: m["type"] == "error")
    assert "spectator" in error["message"]
    assert_fair(app, code, bikash)
    await bikash.close()


async def test_a_room_nobody_is_at_says_it_is_paused_and_who_resumes_it(
    app: Any, base: str
) -> None:
    """The computers play up to the person's turn; with none of the room's people here the
    cover does not play for them and the clock stands still: the view says the room is paused,
    why, and who can resume it (and, once everyone left for good, that nobody can)."""
    code, creator = new_room(
        base, seats=["random", "random", "random"], turn_seconds=5, speed="instant"
    )
    http("POST", f"{base}/api/rooms/{code}/start", token=creator)
    watcher = await Client.open(base, code)
    paused = await watcher.until(
        lambda m: m["type"] == "state" and m["state"]["paused"] is not None, timeout=20
    )
    state = paused["state"]
    assert state["turn"] == 0 and state["clock"] is None
    assert state["paused"] == {"reason": "away", "seats": [0]}
    asha = await Client.open(base, code, creator)
    back = await watcher.until(lambda m: m["type"] == "state" and m["state"]["paused"] is None)
    assert back["state"]["clock"]["seat"] == 0  # the clock runs again for Asha
    await asha.close()
    http("POST", f"{base}/api/rooms/{code}/leave", token=creator)
    gone = await watcher.until(
        lambda m: m["type"] == "state" and (m["state"]["paused"] or {}).get("reason") == "left",
        timeout=30,
    )
    assert gone["state"]["paused"]["seats"] == [] and gone["state"]["clock"] is None
    await watcher.close()


async def test_an_action_is_stored_only_on_the_lobby_revision_it_was_made_on(
    app: Any,
) -> None:
    """Both backends: an action made before a lobby change (which may have given a seat to
    someone else) is refused, like one made on an old version; made on the new revision it is
    stored."""
    from callbreak.web.model import Step, join, start
    from callbreak.web.model import new_room as room_data

    backend = app.state.backend
    data = room_data("strict", "Asha", [None, "random", "random"])
    join(data, "Bikash")
    start(data)
    await backend.create(data)
    assert await backend.append(data.id, 0, Step(0, "3", [], "playing", None))
    copy = await backend.load(data.id)
    copy.seats[1].name = "Bina"
    assert await backend.save(copy) and copy.rev == 1
    assert not await backend.append(data.id, 0, Step(1, "3", [], "playing", None))
    assert (await backend.load(data.id)).version == 1
    assert await backend.append(data.id, 1, Step(1, "3", [], "playing", None))
    assert (await backend.load(data.id)).actions == ["3", "3"]


async def test_a_level_past_the_bounds_cannot_be_seated_later_either(base: str) -> None:
    code, creator = new_room(base, turn_seconds=0)
    for level in ("expert(time=600)", "expert(spend=deal)", "oracle"):
        status, answer = http("POST", f"{base}/api/rooms/{code}/seats/1", {"level": level}, creator)
        assert status == 400, (level, answer)
    status, answer = http(
        "POST", f"{base}/api/rooms/{code}/seats/1", {"level": "expert(time=2, threads=1)"}, creator
    )
    assert status == 200 and answer["seats"][1]["level"] == "expert"


# --- remote bots: only where the operator allows them -----------------------------------------


async def test_a_room_never_calls_a_bot_the_server_does_not_allow(base: str) -> None:
    with Listener(http_reply("200 OK", b'{"value": "hello"}')) as bot:
        for body in (
            {"seats": [bot.address, None, None]},
            {"seats": [None, None, f"http://localhost:{bot.port}"]},
            {"cover": bot.address},
        ):
            status, answer = http("POST", f"{base}/api/rooms", {"name": "Asha", **body})
            assert status == 400 and "calls no remote bot" in answer["error"], answer
        code, creator = new_room(base, seats=[None, "random", "random"], turn_seconds=5)
        status, answer = http(
            "POST", f"{base}/api/rooms/{code}/seats/1", {"level": bot.address}, creator
        )
        assert status == 400 and "calls no remote bot" in answer["error"]
    assert bot.connections == 0 and not bot.received


async def test_an_allowed_bot_plays_a_room_and_nobody_reads_its_answers(
    tmp_path: Path, backend: str | None
) -> None:
    """A seat and the cover at an allowed address that answers nonsense with a secret in it:
    the room plays on with substitutes, and its notices, views and record name only the kind
    of fault, never what the bot said."""
    secret = b"SECRET-from-the-inside"
    with Listener(http_reply("200 OK", secret)) as bot:
        allowed = dataclasses.replace(FAST, bots=BotAddresses.parse("127.0.0.1/32"))
        app = create_app(tmp_path / "db.sqlite", backend, allowed)
        with running(app) as base:
            code, creator = new_room(
                base,
                rules="strict(deals=1)",
                seats=[bot.address, "random", "random"],
                cover=bot.address,
                turn_seconds=0,
                speed="instant",
            )
            http("POST", f"{base}/api/rooms/{code}/start", token=creator)
            asha = await Client.open(base, code, creator)
            watcher = await Client.open(base, code)
            await asha.play_until(lambda m: m["type"] == "state" and m["state"]["match_over"])
            await watcher.until(lambda m: m["type"] == "state" and m["state"]["match_over"])
            _, record = http("GET", f"{base}/api/rooms/{code}/record")
            for client in (asha, watcher):
                await client.close()
    assert b"POST /bid" in bot.received
    said = "".join(asha.received + watcher.received) + json.dumps(record)
    assert "SECRET" not in said
    notices = [json.loads(m) for m in watcher.received if '"notice"' in m]
    assert notices and {n["fault"]["detail"] for n in notices} == {"an answer outside the protocol"}
    faults = [f for deal in record["deals"] for f in deal.get("faults", [])]
    assert len(faults) == 14 and {(f["seat"], f["fault"]) for f in faults} == {(1, "malformed")}


# --- the seed: drawn by the server, shown once the match is over ------------------------------


async def test_the_seed_is_shown_only_once_the_match_is_over(app: Any, base: str) -> None:
    code, creator = new_room(
        base,
        rules="strict(deals=1)",
        seats=[None, "random", "random"],
        turn_seconds=0,
        speed="instant",
    )
    _, joined = http("POST", f"{base}/api/rooms/{code}/join", {"name": "Bikash"})
    seed = app.state.tables.live[code].state.data.seed
    assert seed.isdigit() and len(seed) >= 6  # 48 random bits
    sent: list[str] = []

    def fetch() -> None:
        for path in ("", "/record", "/replay"):
            sent.append(json.dumps(http("GET", f"{base}/api/rooms/{code}{path}")[1]))

    fetch()  # the lobby
    http("POST", f"{base}/api/rooms/{code}/start", token=creator)
    asha = await Client.open(base, code, creator)
    bikash = await Client.open(base, code, joined["token"])
    watcher = await Client.open(base, code)

    def over(message: dict[str, Any]) -> bool:
        return message["type"] == "state" and message["state"]["match_over"]

    async def watch() -> None:
        await watcher.until(lambda m: m["type"] == "state" and m["state"]["tricks_played"] >= 6)
        fetch()  # in the middle of the deal
        await watcher.until(over)

    await asyncio.gather(asha.play_until(over), bikash.play_until(over), watch())
    everything = sent + asha.received + bikash.received + watcher.received
    assert not [text for text in everything if seed in text]
    status, record = http("GET", f"{base}/api/rooms/{code}/record")
    assert status == 200 and record["seed"] == seed and not record.get("unfinished")
    _, replay = http("GET", f"{base}/api/rooms/{code}/replay")
    assert replay["record"]["seed"] == seed
    for client in (asha, bikash, watcher):
        await client.close()


class _StalledSocket:
    """A room socket whose client says hello with ``token`` and then reads nothing until
    ``reading`` is set (a full socket), then sends ``then``; it keeps what it is sent."""

    def __init__(self, token: str) -> None:
        self.headers: dict[str, str] = {}
        self.scope: dict[str, Any] = {"type": "websocket", "client": ("127.0.0.1", 50000)}
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.inbox.put_nowait(
            {"type": "websocket.receive", "text": json.dumps({"type": "hello", "token": token})}
        )
        self.reading = asyncio.Event()
        self.sent: list[dict[str, Any]] = []

    async def accept(self) -> None:
        pass

    async def receive(self) -> dict[str, Any]:
        return await self.inbox.get()

    async def send_text(self, text: str) -> None:
        await self.reading.wait()
        self.sent.append(json.loads(text))

    async def close(self, code: int = 1000) -> None:
        self.inbox.put_nowait({"type": "websocket.disconnect"})


async def test_a_client_that_holds_up_its_welcome_keeps_no_seat_its_token_lost(app: Any) -> None:
    """Found by a probe: a person whose token holds seat 1 says hello and stops reading, so
    that the server waits to welcome them; meanwhile they leave, the seat is opened and given
    to Esha. Once they read again they must be a spectator: after the welcome that says so
    nothing shows them seat 1's hand, and an action they send for it is not stored."""
    from callbreak.game import Call
    from callbreak.web.messages import connect
    from callbreak.web.model import ROOM, join, leave, open_seat, start
    from callbreak.web.model import new_room as room_data

    tables = app.state.tables
    data = room_data("strict", "Asha", [None, "random", "random"])
    _, token = join(data, "Bikash")
    start(data)
    await app.state.backend.create(data)
    table = await tables.get(data.id)
    while table.state.match.deal.turn != 1:  # the seats before Bikash call: his turn next
        await table.act(
            table.state.match.deal.turn, Call(table.state.match.rules.min_call), table.state.version
        )
    socket = _StalledSocket(token)
    serving = asyncio.get_running_loop().create_task(connect(tables, socket, data.id, ROOM))
    for _ in range(200):  # until the server has read his hello and is sending to him
        await asyncio.sleep(0.01)
        if socket.inbox.empty():
            break
    await asyncio.sleep(0.1)
    await table.change(lambda room: leave(room, 1))
    await table.change(lambda room: open_seat(room, 1))
    assert (await table.change(lambda room: join(room, "Esha")))[0] == 1
    given_at = table.state.data.rev
    socket.reading.set()  # he reads again, and at once plays his old seat's turn
    socket.inbox.put_nowait(
        {
            "type": "websocket.receive",
            "text": json.dumps({"type": "call", "value": 3, "version": table.state.version}),
        }
    )
    for _ in range(100):
        await asyncio.sleep(0.02)
        if any(m["type"] == "error" and m.get("stale") is None for m in socket.sent[1:]):
            break
    welcomes = [i for i, m in enumerate(socket.sent) if m["type"] == "welcome"]
    assert welcomes and socket.sent[welcomes[-1]]["seat"] is None, socket.sent
    for message in socket.sent[welcomes[-1] :]:
        if message["type"] == "state":
            assert message["state"]["seat"] is None and not message["state"].get("hand")
    stored = await app.state.backend.load(data.id)
    assert stored.version == table.state.version and stored.rev == given_at
    assert stored.seats[1].name == "Esha" and table.state.match.deal.turn == 1  # still Esha's call
    socket.inbox.put_nowait({"type": "websocket.disconnect"})
    await asyncio.wait_for(serving, 10)


async def test_a_seat_number_in_other_digits_is_one_clear_error(base: str) -> None:
    """Found by a probe: '²' is a digit to str.isdigit but not to int (a 500)."""
    code, token = new_room(base, seats=[None, None, None])
    status, answer = http("POST", f"{base}/api/rooms/{code}/seats/%C2%B2", {"open": True}, token)
    assert status == 400 and "a seat is 0-3" in answer["error"]
