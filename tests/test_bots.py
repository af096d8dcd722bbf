"""The Bhoos bot protocol both ways: bodies field by field, our bot server, remote bots seated
through the host, and faulty bots survived with their faults recorded."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from callbreak.bots.protocol import (
    bid_body,
    card_text,
    observation_from_body,
    play_body,
    player_ids,
)
from callbreak.bots.remote import RemotePlayer
from callbreak.bots.server import create_app
from callbreak.cards import Card, parse_card
from callbreak.game import Match
from callbreak.players import PlayerError
from callbreak.record import Record, check, dumps, loads
from callbreak.seating import make_player, play_match
from tests.helpers import free_port, running

IDS = ["ana", "bo", "cy", "di"]


def midgame(plays: int, seed: int = 3) -> Match:
    """A bhoos match a few deals in, ``plays`` cards into the current deal."""
    match = Match("bhoos", seed=seed)
    rng = random.Random(seed)
    while len(match.played_deals()) < 2:
        match.apply(rng.choice(match.deal.legal_actions()))
    for _ in range(4 + plays):
        match.apply(rng.choice(match.deal.legal_actions()))
    return match


# --- bodies ----------------------------------------------------------------------------------


def test_aces_are_written_as_1() -> None:
    assert card_text(Card.AS) == "1S" and parse_card("1D") == Card.AD and card_text(Card.TH) == "TH"


def test_play_body_field_by_field() -> None:
    match = midgame(plays=22)
    seat = match.deal.turn
    assert seat is not None
    seen = match.observation(seat)
    body = play_body(seen, IDS, 1234)
    assert set(body) == {
        "playerId",
        "playerIds",
        "cards",
        "timeBudget",
        "context",
        "played",
        "history",
    }
    assert body["playerId"] == IDS[seat] and body["playerIds"] == IDS
    assert body["timeBudget"] == 1234
    assert sorted(parse_card(c) for c in body["cards"]) == sorted(seen.hand)
    assert all(c[0] in "123456789TJQK" and c[1] in "SHCD" and len(c) == 2 for c in body["cards"])
    assert body["played"] == [card_text(card) for card in seen.trick.cards]
    assert len(body["history"]) == len(seen.tricks) == 5
    for (start, cards, winner), trick in zip(body["history"], seen.tricks, strict=True):
        assert start == trick.leader and winner == trick.winner
        assert [parse_card(c) for c in cards] == list(trick.cards)
    context = body["context"]
    assert context["round"] == 3
    assert set(context["players"]) == set(IDS)
    totals = match.totals_before(len(match.deals) - 1)
    for index, seat_id in enumerate(IDS):
        entry = context["players"][seat_id]
        assert entry == {
            "totalPoints": totals[index] / 10,
            "bid": match.deal.calls[index],
            "won": match.deal.won[index],
        }
    assert json.loads(json.dumps(body)) == body


def test_bid_body_before_every_call() -> None:
    match = Match("bhoos", seed=8)
    calls = []
    while match.deal.phase.value == "calling":
        seat = match.deal.turn
        assert seat is not None
        body = bid_body(match.observation(seat), IDS, 1500)
        assert set(body) == {"playerId", "playerIds", "cards", "timeBudget", "context"}
        assert len(body["cards"]) == 13
        bids = [body["context"]["players"][i]["bid"] for i in IDS]
        assert bids == [c or 0 for c in match.deal.calls]
        back = observation_from_body(body, "bid")
        assert back.dealer == match.deal.dealer and back.seat == seat
        calls.append(3)
        match.call(3)


@pytest.mark.parametrize("plays", [0, 1, 3, 4, 21, 51])
def test_bodies_rebuild_the_same_observation(plays: int) -> None:
    match = midgame(plays, seed=plays)
    seat = match.deal.turn
    assert seat is not None
    original = match.observation(seat)
    rebuilt = observation_from_body(play_body(original, IDS, 900), "play")
    for field in (
        "seat",
        "deal_number",
        "dealer",
        "hand",
        "calls",
        "tricks",
        "trick",
        "won",
        "totals",
        "legal_cards",
        "turn",
    ):
        assert getattr(rebuilt, field) == getattr(original, field), field


def test_player_ids_fall_back_when_names_repeat() -> None:
    assert player_ids(["a", "b", "c", "d"]) == ["a", "b", "c", "d"]
    assert player_ids(["x", "x", "y", "z"]) == ["P1", "P2", "P3", "P4"]


# --- the bot server --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app("intermediate(seed=1)")) as test_client:
        yield test_client


def _valid_play_body() -> dict[str, Any]:
    match = midgame(plays=9)
    return play_body(match.observation(match.deal.turn), IDS, 1500)  # type: ignore[arg-type]


def test_server_answers_hi_bid_and_play(client: TestClient) -> None:
    assert client.get("/hi").json() == {"value": "hello"}
    match = Match("bhoos", seed=2)
    answer = client.post("/bid", json=bid_body(match.observation(match.deal.turn), IDS, 1500))  # type: ignore[arg-type]
    assert answer.status_code == 200 and answer.json()["value"] in range(1, 9)
    body = _valid_play_body()
    answer = client.post("/play", json=body)
    assert answer.status_code == 200
    card = parse_card(answer.json()["value"])
    seen = observation_from_body(body, "play")
    assert card in seen.legal_cards


def _broken(change: Any) -> dict[str, Any]:
    body = _valid_play_body()
    change(body)
    return body


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"cards": []}, "no 'playerIds'"),
        (_broken(lambda b: b.update(playerId="zed")), "not one of playerIds"),
        (_broken(lambda b: b.update(playerIds=["a", "a", "b", "c"])), "4 distinct"),
        (_broken(lambda b: b["cards"].append("ZZ")), "unknown card"),
        (
            _broken(
                lambda b: b["cards"].append(
                    b["played"][0] if b["played"] else b["history"][0][1][0]
                )
            ),
            "twice",
        ),
        (_broken(lambda b: b.update(timeBudget="fast")), "timeBudget"),
        # Past a float's range: math.isfinite of it raised, and a player's seconds overflowed.
        (_broken(lambda b: b.update(timeBudget=10**400)), "timeBudget"),
        (
            _broken(lambda b: b["history"][0].__setitem__(2, (b["history"][0][2] + 1) % 4)),
            "the winner is",
        ),
        (_broken(lambda b: b["context"].update(round=0)), "context.round"),
        (_broken(lambda b: b["context"]["players"]["ana"].update(bid=12)), "bid must be"),
        (_broken(lambda b: b["context"]["players"]["ana"].update(won=9)), "does not match"),
        (_broken(lambda b: b["cards"].pop()), "cards must hold"),
        (_broken(lambda b: b.update(history="none")), "history must be"),
        ([1, 2, 3], "JSON object"),
    ],
)
def test_server_refuses_bad_bodies_with_400(client: TestClient, body: object, words: str) -> None:
    answer = client.post("/play", json=body)
    assert answer.status_code == 400
    assert words in answer.json()["error"]
    assert answer.json()["code"] == "protocol"  # as the web app answers (callbreak.refusals)
    assert client.get("/hi").json() == {"value": "hello"}  # still serving


def test_server_refuses_non_json_and_huge_bodies(client: TestClient) -> None:
    """The web app's body reader and refusals, but any content type: the protocol's hosts."""
    answer = client.post("/bid", content=b"{not json", headers={"content-type": "text/plain"})
    assert answer.status_code == 400 and "not JSON" in answer.json()["error"]
    assert answer.json()["code"] == "body_not_json"
    answer = client.post("/bid", content=b"[" + b"1," * 50_000 + b"1]")
    assert (answer.status_code, answer.json()["code"]) == (413, "body_too_large")
    assert client.get("/bid").status_code == 405
    assert client.get("/hi").status_code == 200


# --- serving and seating over real HTTP on loopback ------------------------------------------


@pytest.mark.slow
def test_our_players_served_and_seated_back_play_whole_matches() -> None:
    with (
        running(create_app("intermediate(seed=4)")) as first,
        running(create_app("expert(time=0.05, seed=2)")) as second,
    ):
        players = [
            make_player(first),
            make_player("beginner(seed=1)"),
            make_player(second, bot_budget=0),
            make_player(first),
        ]
        match = Match("bhoos", seed=12)
        play_match(match, players)
        assert match.is_over
        assert all(not getattr(p, "faults", []) for p in players)
        assert check(Record.from_match(match)).valid


def _faulty(kind: str) -> Starlette:
    """A bot that fails in one way on every request."""

    async def hi(_request: Request) -> Response:
        return JSONResponse({"value": "hello"})

    async def answer(request: Request) -> Response:
        body = await request.json()
        if kind == "slow":
            await asyncio.sleep(0.3)
            return JSONResponse({"value": 1 if request.url.path == "/bid" else body["cards"][0]})
        if kind == "malformed":
            return PlainTextResponse("hello there")
        if kind == "trickle":

            async def drip() -> AsyncIterator[bytes]:
                for byte in b'{"value": 1}':
                    await asyncio.sleep(0.2)
                    yield bytes([byte])

            return StreamingResponse(drip(), media_type="application/json")
        if kind == "error":
            return JSONResponse({"oops": True}, status_code=500)
        if request.url.path == "/bid":
            return JSONResponse({"value": 9})  # over bhoos's maximum of 8
        observation = observation_from_body(body, "play")
        illegal = [c for c in observation.hand if c not in observation.legal_cards]
        card = illegal[0] if illegal else Card.AS if Card.AS not in observation.hand else Card.KS
        return JSONResponse({"value": card_text(card)})

    return Starlette(
        routes=[
            Route("/hi", hi),
            Route("/bid", answer, methods=["POST"]),
            Route("/play", answer, methods=["POST"]),
        ]
    )


@pytest.mark.parametrize(
    ("kind", "fault"),
    [("slow", "late"), ("malformed", "malformed"), ("error", "malformed"), ("illegal", "illegal")],
)
def test_faulty_bots_are_survived_and_recorded(kind: str, fault: str) -> None:
    with running(_faulty(kind)) as address:
        remote = make_player(address, bot_budget=0.5 if kind == "slow" else 1.5)
        players = [remote] + [make_player(f"intermediate(seed={s})") for s in range(3)]
        match = Match("bhoos(deals=1)", seed=4)
        result = play_match(match, players)
    assert isinstance(remote, RemotePlayer)
    assert match.is_over and remote.faults
    assert {f.fault for f in remote.faults} == {fault}
    assert all(f.seat == 0 for f in remote.faults)
    assert list(result.faults) == [0] and list(result.faults[0]) == remote.faults
    assert result.fault_counts() == [len(remote.faults), 0, 0, 0]
    again = loads(dumps(result.record()))
    assert list(again.deals[0].faults) == [f.to_json() for f in remote.faults]
    assert check(again).valid
    if kind == "slow":  # 0.5 s buys one late answer at the most, then the rest are faults
        assert len(remote.faults) >= 12


def test_a_trickling_answer_is_late_within_the_budget() -> None:
    """The budget is a deadline for the whole answer, however slowly the bytes come."""
    with running(_faulty("trickle")) as address:
        remote = make_player(address, bot_budget=0.6)
        assert isinstance(remote, RemotePlayer)
        match = Match("bhoos", seed=1)
        seen = match.observation(match.deal.turn)  # type: ignore[arg-type]
        started = time.monotonic()
        call = remote.call(seen)
        elapsed = time.monotonic() - started
        remote.close()
    assert call == 1 and remote.faults[0].fault == "late"
    assert elapsed < 1.5


def test_no_limit_still_tells_the_bot_a_budget() -> None:
    bodies: list[dict[str, Any]] = []

    async def hi(_request: Request) -> Response:
        return JSONResponse({"value": "hello"})

    async def bid(request: Request) -> Response:
        bodies.append(await request.json())
        return JSONResponse({"value": 2})

    app = Starlette(routes=[Route("/hi", hi), Route("/bid", bid, methods=["POST"])])
    with running(app) as address:
        remote = make_player(address, bot_budget=0)
        match = Match("bhoos", seed=1)
        assert remote.call(match.observation(match.deal.turn)) == 2  # type: ignore[arg-type]
    assert bodies[0]["timeBudget"] == 1500


def test_a_silent_bot_is_a_fault_not_a_crash() -> None:
    with running(_faulty("slow")) as address:
        remote = make_player(address, bot_budget=1.5)
    # The server is gone now: every request fails to connect.
    players = [remote] + [make_player(f"intermediate(seed={s})") for s in range(3)]
    match = Match("bhoos(deals=1)", seed=4)
    play_match(match, players)
    assert match.is_over
    assert remote.faults and {f.fault for f in remote.faults} == {"silent"}  # type: ignore[attr-defined]


def test_unreachable_bot_is_a_clear_error() -> None:
    port = free_port()
    with pytest.raises(PlayerError, match=f"cannot reach the bot at http://127.0.0.1:{port}"):
        RemotePlayer(f"http://127.0.0.1:{port}").ready(wait=0.3)
    with pytest.raises(PlayerError, match="http://HOST:PORT"):
        make_player("http://")


@pytest.mark.slow
def test_cli_bot_and_arena_against_it(tmp_path: Any) -> None:
    port = free_port()
    bot = subprocess.Popen(
        [sys.executable, "-m", "callbreak", "bot", "intermediate", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "callbreak",
                "arena",
                "beginner",
                f"http://127.0.0.1:{port}",
                "--rules",
                "bhoos(deals=1)",  # one-deal matches: what is checked is the wire, not play
                "--sets",
                "1",
                "--json",
                str(tmp_path / "r.json"),
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 0, result.stderr
        report = json.loads((tmp_path / "r.json").read_text())
        assert report["sets"] == 1 and report["b_faults"] == 0
    finally:
        bot.terminate()
        bot.wait(10)


def test_cli_bot_refuses_a_bad_spec() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "callbreak", "bot", "wizard"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and "unknown player" in result.stderr
