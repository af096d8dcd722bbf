"""The daily challenge served (``web.challenge``) and a profile's career (``web.career``), through
the HTTP API and the match's socket: everyone gets the same deals; the published commitment is
the hash of the seed revealed at the close; nothing a profile that has not played receives
depends on the day's deals (another secret, the same answers); a second attempt is refused; the
standings rank finished, seasoned attempts by total with the review's accuracy beside it; one
attempt per profile holds on two processes sharing a real redis-server. The days open and close
on a clock the test moves: no test waits for midnight."""

from __future__ import annotations

import asyncio
import concurrent.futures
import datetime
import hashlib
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from callbreak import challenge
from callbreak.game import Match
from callbreak.ratings import Computer, Outcome, Person
from callbreak.record import from_data
from callbreak.web.actions import encode
from callbreak.web.app import create_app
from callbreak.web.model import FINISHED, PLAYING, Step
from callbreak.web.reviews import Reviews
from tests.helpers import FAST

SECRET = b"the operator's secret, 32 bytes!"
OTHER_SECRET = b"another operator's secret of 32!"
DAY = datetime.date(2026, 12, 4)
NOON = challenge.day_start(DAY).timestamp() + 12 * 3600
CARD = re.compile(r"\b[2-9TJQKA][SHDC]\b")


class Clock:
    """The challenge's clock (wall-clock seconds), moved by the test."""

    def __init__(self, now: float = NOON) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def fake_review(data: dict[str, Any], seat: int, time: float, slot: int) -> dict[str, Any]:
    """A review's summary at once: an accuracy made of the record's calls (so that it differs
    between attempts), not an expert's minute."""
    calls = [deal["calls"][seat] for deal in data["deals"]]
    accuracy = 50.0 + sum(calls)
    return {"summary": {"accuracy": accuracy, "lost": 1.0}, "decisions": []}


def app_for(path: Path, secret: bytes, clock: Clock, redis_url: str | None = None) -> Any:
    reviews = Reviews(pool=concurrent.futures.ThreadPoolExecutor(1), job=fake_review)
    app = create_app(path, redis_url, FAST, reviews=reviews, ping_seconds=3600)
    app.state.challenge.use(secret)
    app.state.challenge.clock = clock
    app.state.challenge.opponents = "random"  # the experts' place, at a test's speed
    return app


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[TestClient, Clock]]:
    clock = Clock()
    with TestClient(app_for(tmp_path / "db.sqlite", SECRET, clock)) as web:
        yield web, clock


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def make(web: TestClient, name: str) -> dict[str, Any]:
    answer = web.post("/api/players", json={"name": name, "avatar": "kite"})
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def begin(web: TestClient, person: dict[str, Any], status: int = 201) -> dict[str, Any]:
    answer = web.post(
        "/api/challenge/play", json={"speed": "instant"}, headers=bearer(person["token"])
    )
    assert answer.status_code == status, answer.text
    return dict(answer.json())


def call(web: TestClient, work: Any, *args: Any) -> Any:
    """``work(*args)`` on the served app's event loop (where its backend lives)."""
    assert web.portal is not None
    return web.portal.call(work, *args)


def finish(web: TestClient, attempt: dict[str, Any], deals: int | None = None) -> Match:
    """Play ``attempt``'s match by storing its actions (random play), through ``deals`` deals
    (all: the match finished); the match played."""
    backend = web.app.state.backend
    data = call(web, backend.load, attempt["match"])
    match = Match(data.rules, seed=data.seed)
    chooser = random.Random(len(attempt["match"]))
    while not match.is_over and (deals is None or len(match.played_deals()) < deals):
        match.apply(chooser.choice(match.deal.legal_actions()))
    codes = [encode(action) for deal in match.deals for action in deal.actions]
    over = match.is_over
    for version, code in enumerate(codes):
        status = FINISHED if over and version == len(codes) - 1 else PLAYING
        step = Step(version, code, [], status, None)
        assert call(web, backend.append, data.id, data.rev, step)
    return match


def season(web: TestClient, *people: dict[str, Any], left: bool = False) -> None:
    """Give each person the rated public matches their attempt needs to rank (``left``: each
    one left for good, rated last)."""
    store = web.app.state.backend
    for person in people:
        for n in range(10):
            seats = (Person(person["id"]), *[Computer("random")] * 3)
            gone = frozenset({0} if left else ())
            outcome = Outcome(f"{person['id']}-{n}", "strict", seats, (1, 2, 3, 4), gone)
            call(web, store.settle, outcome)


def look(web: TestClient) -> None:
    """The challenge's look until the reviews it asked for are in."""
    daily = web.app.state.challenge
    for _ in range(200):
        call(web, daily.look)
        attempts = call(web, web.app.state.backend.attempts, DAY.isoformat())
        if all(a["state"] != "finished" or a["accuracy"] is not None for a in attempts):
            return
        web.portal.call(asyncio.sleep, 0.01)  # type: ignore[union-attr]
    raise AssertionError("the reviews never came")


def first_state(socket: Any, attempt: dict[str, Any]) -> dict[str, Any]:
    """Say hello on the attempt's socket with its token: the first view it is sent."""
    socket.send_json({"type": "hello", "token": attempt["token"]})
    assert socket.receive_json()["type"] == "welcome"
    message = socket.receive_json()
    while message["type"] != "state":
        message = socket.receive_json()
    return dict(message["state"])


def hand_dealt(web: TestClient, attempt: dict[str, Any]) -> list[str]:
    """The hand seat 0 is shown first on the attempt's socket."""
    with web.websocket_connect(f"/ws/matches/{attempt['match']}") as socket:
        return sorted(first_state(socket, attempt)["hand"])


# --- the deals -------------------------------------------------------------------------------


def test_two_profiles_get_the_same_deals(served: Any) -> None:
    web, _ = served
    asha, bina = make(web, "Asha"), make(web, "Bina")
    first, second = begin(web, asha), begin(web, bina)
    assert first["match"] != second["match"]
    assert hand_dealt(web, first) == hand_dealt(web, second)
    backend = web.app.state.backend
    one = call(web, backend.load, first["match"])
    two = call(web, backend.load, second["match"])
    seed = challenge.day_seed(SECRET, DAY)
    assert one.seed == two.seed == challenge.match_seed(DAY, seed)
    # Every deal of the day, whoever plays it: the same dealers and hands.
    played = [finish(web, first), finish(web, second)]
    for a, b in zip(played[0].deals, played[1].deals, strict=True):
        assert (a.dealer, a.hands) == (b.dealer, b.hands)
    assert one.seats[1].level == "random" and one.rules == challenge.RULES


def test_the_published_hash_is_the_seed_revealed_at_the_close(served: Any) -> None:
    web, clock = served
    today = web.get("/api/challenge").json()
    assert today["day"] == DAY.isoformat() and today["seed"] is None
    assert today["previous"]["seed"] == challenge.day_seed(SECRET, DAY - datetime.timedelta(1))
    person = make(web, "Asha")
    attempt = begin(web, person)
    finish(web, attempt)
    sealed = web.get(f"/api/matches/{attempt['match']}/record", headers=bearer(attempt["token"]))
    assert sealed.json()["seed"] is None  # the match is over, its day is not
    clock.now = challenge.day_start(DAY).timestamp() + 86_400  # the close
    revealed = web.get(f"/api/challenge/days/{DAY.isoformat()}").json()
    assert revealed["commitment"] == today["commitment"]
    assert hashlib.sha256(revealed["seed"].encode()).hexdigest() == today["commitment"]
    # The record now carries the match's seed, and `verify` finds its deals the seed's.
    record = web.get(f"/api/matches/{attempt['match']}/record", headers=bearer(attempt["token"]))
    assert record.json()["seed"] == challenge.match_seed(DAY, revealed["seed"])
    verdict = challenge.verify(DAY, revealed["seed"], from_data(record.json()), today["commitment"])
    assert verdict.ok, verdict.message
    tomorrow = web.get("/api/challenge").json()
    assert tomorrow["day"] == "2026-12-05" and tomorrow["previous"]["seed"] == revealed["seed"]


def test_a_day_not_open_or_not_a_day_is_refused(served: Any) -> None:
    web, _ = served
    later = web.get("/api/challenge/days/2026-12-05")
    assert (later.status_code, later.json()["code"]) == (404, "challenge_not_open")
    bad = web.get("/api/challenge/days/yesterday")
    assert (bad.status_code, bad.json()["code"]) == (400, "challenge_day")
    assert (
        web.get("/api/challenge/days/2026-12-05/standings").json()["code"] == "challenge_not_open"
    )
    assert web.post("/api/challenge/play").json()["code"] == "token_needed"


# --- one attempt -----------------------------------------------------------------------------


def test_a_second_attempt_is_refused_and_a_reload_resumes_the_first(served: Any) -> None:
    web, clock = served
    person = make(web, "Asha")
    attempt = begin(web, person)
    again = begin(web, person, status=200)  # a reload, a second tab: the same attempt
    assert (again["match"], again["token"]) == (attempt["match"], attempt["token"])
    finish(web, attempt)
    refused = web.post("/api/challenge/play", json={}, headers=bearer(person["token"]))
    assert (refused.status_code, refused.json()["code"]) == (409, "challenge_played")
    assert refused.json()["args"] == {"day": DAY.isoformat()}
    mine = web.get("/api/challenge", headers=bearer(person["token"])).json()["you"]
    assert mine["state"] == "finished" and mine["deals"] == 5 and mine["total"] is not None
    clock.now += 86_400  # the next day: a new attempt
    assert begin(web, person)["day"] == "2026-12-05"


def test_no_attempt_begins_in_the_last_half_hour(served: Any) -> None:
    web, clock = served
    clock.now = challenge.day_start(DAY).timestamp() + 86_400 - 29 * 60
    answer = web.post("/api/challenge/play", json={}, headers=bearer(make(web, "A")["token"]))
    assert (answer.status_code, answer.json()["code"]) == (409, "challenge_closing")
    assert answer.json()["args"] == {"minutes": 29}


def test_hints_are_refused_in_a_challenge(served: Any) -> None:
    web, _ = served
    attempt = begin(web, make(web, "Asha"))
    with web.websocket_connect(f"/ws/matches/{attempt['match']}") as socket:
        state = first_state(socket, attempt)
        assert state["settings"]["challenge"] is True  # the page shows no hint button
        socket.send_json({"type": "hint"})
        message = socket.receive_json()
        while message["type"] != "error":
            message = socket.receive_json()
        assert message["code"] == "challenge_hint"


# --- nothing before playing ------------------------------------------------------------------


def answers_to_a_stranger(web: TestClient, player: dict[str, Any], attempt: dict[str, Any]) -> Any:
    """Everything a profile that has not played today can ask of the app about the day and
    about a profile that has: with the player's public id, and the match's id (without its
    token)."""
    stranger = make(web, "Stranger")
    me = bearer(stranger["token"])
    match_id = attempt["match"]
    found: list[Any] = [
        web.get("/api/challenge", headers=me).json(),
        web.get("/api/challenge").json(),
        web.get(f"/api/challenge/days/{DAY.isoformat()}").json(),
        web.get(f"/api/challenge/days/{DAY.isoformat()}/standings", headers=me).json(),
        web.get(f"/api/challenge/days/{DAY.isoformat()}/standings").json(),
        web.get(f"/api/players/{player['id']}").json(),
        web.get(f"/api/players/{player['id']}/career").json(),
        web.get("/api/players/me", headers=me).json(),
        web.get(f"/api/players/{stranger['id']}/career").json(),
        web.get("/api/pools/strict/leaderboard", headers=me).json(),
        web.get(f"/api/matches/{match_id}/record").json(),
        web.get(f"/api/matches/{match_id}/record", headers=me).json(),
        web.get(f"/api/matches/{match_id}/replay", headers=me).json(),
        web.get(f"/api/matches/{match_id}/review", headers=me).json(),
        web.post(
            "/api/matches/mine", json={"matches": [{"id": match_id, "token": stranger["token"]}]}
        ).json(),
        web.post("/api/stats", json={"matches": [{"id": match_id, "token": "x" * 43}]}).json(),
    ]
    with web.websocket_connect(f"/ws/matches/{match_id}") as socket:
        socket.send_json({"type": "hello", "token": stranger["token"]})
        found.append(socket.receive_json())
    return found, stranger


def neutral(answers: Any, names: dict[str, str], secret: bytes) -> str:
    """The answers with the random ids, the day's commitment (the seed's hash, which hides the
    deals: its whole point) and yesterday's (closed: its seed is out) named by what they are."""
    names = dict(names)
    for day, name in ((DAY, "TODAY"), (DAY - datetime.timedelta(1), "YESTERDAY")):
        seed = challenge.day_seed(secret, day)
        names |= {challenge.commitment(seed): f"{name}'S COMMITMENT", seed: f"{name}'S SEED"}
    text = json.dumps(answers, sort_keys=True)
    for value, name in names.items():
        text = text.replace(value, name)
    assert "TODAY'S SEED" not in text
    # When each public match was rated (the test rates them in real time, run after run).
    return re.sub(r'"at": [0-9.]+', '"at": T', text)


def a_day_played(path: Path, secret: bytes) -> tuple[str, list[list[str]]]:
    """A day on which a seasoned person played every deal, another is mid-way through the
    third, and a third has just begun, as a stranger sees it under ``secret``; and the hands
    dealt (which differ with the secret)."""
    clock = Clock()
    with TestClient(app_for(path, secret, clock)) as web:
        asha, bina, chan = make(web, "Asha"), make(web, "Bina"), make(web, "Chan")
        season(web, asha)
        done, midway, begun = begin(web, asha), begin(web, bina), begin(web, chan)
        finish(web, done)
        finish(web, midway, deals=2)
        look(web)
        seen, stranger = answers_to_a_stranger(web, asha, done)
        names = {asha["id"]: "ASHA", stranger["id"]: "STRANGER", done["match"]: "MATCH"}
        names |= {p["token"]: "T" for p in (asha, bina, chan, stranger)}
        for person in (asha, bina, chan, stranger):
            names[repr(call(web, web.app.state.backend.profile, person["id"])["created"])] = "T0"
        hands = [hand_dealt(web, attempt) for attempt in (done, begun)]
    return neutral(seen, names, secret), hands


def test_nothing_a_stranger_receives_depends_on_the_days_deals(tmp_path: Path) -> None:
    """The day played the same way under two secrets (so with other deals, other totals and
    other accuracies): everything a profile that has not played receives is the same, the
    commitment aside."""
    one, hands = a_day_played(tmp_path / "one.sqlite", SECRET)
    other, other_hands = a_day_played(tmp_path / "other.sqlite", OTHER_SECRET)
    assert hands[0] == hands[1] and other_hands[0] == other_hands[1]
    assert hands[0] != other_hands[0]  # the deals did change
    assert one == other
    assert not CARD.search(one.replace('"strict"', ""))  # not a card named anywhere


def test_a_player_midway_sees_only_the_deals_played(served: Any) -> None:
    web, _ = served
    asha, bina = make(web, "Asha"), make(web, "Bina")
    done, midway = begin(web, asha), begin(web, bina)
    finish(web, done)
    match = finish(web, midway, deals=2)
    record = web.get(f"/api/matches/{midway['match']}/record", headers=bearer(midway["token"]))
    data = record.json()
    assert data["seed"] is None and len(data["deals"]) == len(match.played_deals()) == 2
    assert [sorted(h) for h in data["deals"][1]["hands"]] == [
        sorted(str(c) for c in hand) for hand in match.deals[1].hands
    ]
    standings = web.get(
        f"/api/challenge/days/{DAY.isoformat()}/standings", headers=bearer(bina["token"])
    )
    assert standings.json() == {
        "day": DAY.isoformat(),
        "closed": False,
        "shown": False,
        "entrants": 2,
    }
    listed = web.post(
        "/api/matches/mine", json={"matches": [{"id": midway["match"], "token": midway["token"]}]}
    )
    assert listed.json()[0]["seed"] is None


# --- standings -------------------------------------------------------------------------------


def test_the_standings_rank_seasoned_finished_attempts_by_total(served: Any) -> None:
    web, clock = served
    people = [make(web, name) for name in ("Asha", "Bina", "Chan", "Dev")]
    season(web, *people[:3])  # Dev's profile is new: it plays, it does not rank
    attempts = [begin(web, person) for person in people]
    for attempt in attempts:
        finish(web, attempt)
    look(web)
    stored = {a["profile"]: a for a in call(web, web.app.state.backend.attempts, DAY.isoformat())}
    # From one address: only its first seasoned attempt ranks.
    assert [stored[p["id"]]["ranked"] for p in people] == [True, False, False, False]
    assert [stored[p["id"]]["why"] for p in people] == [None, "address", "address", "provisional"]
    web.app.state.challenge.per_address = 10
    clock.now += 1
    for person in people[1:3]:
        call(web, web.app.state.backend.update_attempt, DAY.isoformat(), person["id"],
             {"ranked": True, "why": None})  # fmt: skip
    board = web.get(
        f"/api/challenge/days/{DAY.isoformat()}/standings", headers=bearer(people[0]["token"])
    ).json()
    assert board["shown"] and board["entrants"] == 4 and board["ranked"] == 3
    rows = board["rows"]
    totals = [stored[p["id"]]["total"] for p in people[:3]]
    assert [row["place"] for row in rows] == [1, 2, 3]
    assert [round(float(row["total"]) * 10) for row in rows] == sorted(totals, reverse=True)
    assert all(row["accuracy"] is not None and row["deals"] == 5 for row in rows)
    assert board["you"]["name"] == "Asha" and board["you"]["place"] is not None
    assert all("token" not in row and "match" not in row for row in rows)
    # Dev sees the standings (he played to the end) and why he is not in them.
    dev = web.get(
        f"/api/challenge/days/{DAY.isoformat()}/standings", headers=bearer(people[3]["token"])
    ).json()
    assert dev["you"]["place"] is None and dev["you"]["why"] == "provisional"


def test_matches_left_do_not_season_a_profile(served: Any) -> None:
    """A match left for good is rated (last) as soon as its last person leaves: seconds, not a
    match's play. Ten of them end a provisional rating, but they do not make a profile's
    attempt rank: only matches played to their end do."""
    web, _ = served
    quitter = make(web, "Quitter")
    season(web, quitter, left=True)
    rating = web.get(f"/api/players/{quitter['id']}").json()["ratings"]["strict"]
    assert (rating["matches"], rating["left"], rating["provisional"]) == (10, 10, False)
    attempt = begin(web, quitter)
    assert (attempt["ranked"], attempt["why"]) == (False, "provisional")


def test_standings_order_ties_by_accuracy_then_by_the_earlier_finish(served: Any) -> None:
    from callbreak.web.challenge import DONE

    web, _ = served
    daily = web.app.state.challenge
    backend = web.app.state.backend
    rows = [
        ("a", 420, 80.0, 3.0),
        ("b", 420, 90.0, 5.0),
        ("c", 420, 90.0, 4.0),
        ("d", 500, None, 9.0),
    ]
    for profile, total, accuracy, ended in rows:
        person = {"id": profile, "token": f"h{profile}", "name": profile, "avatar": "sun"}
        call(web, backend.create_profile, person | {"created": 1.0, "updated": 1.0})
        attempt = {"day": DAY.isoformat(), "profile": profile, "address": profile, "ranked": True,
                   "why": None, "match": "m", "token": "t", "started": 1.0, "state": DONE,
                   "total": total, "deals": 5, "made": 3, "ended": NOON + ended,
                   "accuracy": accuracy}  # fmt: skip
        call(web, backend.begin_attempt, attempt, 1)
    web.app.state.challenge.clock.now += 86_400  # after the close: anyone sees them
    board = call(web, daily.standings, DAY, None)
    assert [row["name"] for row in board["rows"]] == ["d", "c", "b", "a"]
    assert "you" not in board and board["closed"]


def test_an_attempt_finished_after_the_close_does_not_rank(served: Any) -> None:
    web, clock = served
    person = make(web, "Asha")
    season(web, person)
    attempt = begin(web, person)
    clock.now = challenge.day_start(DAY).timestamp() + 86_400 + 60
    finish(web, attempt)  # stored now: after the seed was out
    data = call(web, web.app.state.backend.load, attempt["match"])
    data.updated = clock.now  # the store writes its own time: as the close had passed
    call(web, web.app.state.backend.restore, data)
    call(web, web.app.state.challenge.look)
    board = web.get(
        f"/api/challenge/days/{DAY.isoformat()}/standings", headers=bearer(person["token"])
    ).json()
    assert board["rows"] == [] and board["you"]["why"] == "late"


# --- the profile's page ----------------------------------------------------------------------


def test_a_challenge_counts_on_the_profile_only_after_its_day(served: Any) -> None:
    web, clock = served
    person = make(web, "Asha")
    season(web, person)
    finish(web, begin(web, person))
    look(web)
    career = web.get(f"/api/players/{person['id']}/career").json()
    assert career["figures"]["challenges"] == 0 and career["figures"]["accuracy"] is None
    history = career["ratings"]["strict"]["history"]
    assert [point["matches"] for point in history] == list(range(1, 11))
    assert history[-1]["rating"] == career["ratings"]["strict"]["rating"]
    clock.now += 86_400
    shown = web.get(f"/api/players/{person['id']}/career").json()["figures"]
    attempt = call(web, web.app.state.backend.attempt, DAY.isoformat(), person["id"])
    assert shown["challenges"] == 1 and shown["accuracy"] == attempt["accuracy"]
    assert shown["deals"] == 5 and shown["calls_made"] == attempt["made"]


# --- two processes on Redis ------------------------------------------------------------------


def test_one_attempt_a_profile_through_two_processes_on_redis(
    tmp_path: Path, redis_url: str
) -> None:
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    clock = Clock()
    one = app_for(tmp_path / "one.sqlite", SECRET, clock, redis_url)
    two = app_for(tmp_path / "two.sqlite", SECRET, clock, redis_url)
    with TestClient(one) as first, TestClient(two) as second:
        people = [make(first, f"P{n}") for n in range(6)]
        with concurrent.futures.ThreadPoolExecutor(12) as pool:
            asked = [
                pool.submit(web.post, "/api/challenge/play", json={}, headers=bearer(p["token"]))
                for p in people
                for web in (first, second)
            ]
            answers = [future.result() for future in asked]
        assert sorted(a.status_code for a in answers) == [200] * 6 + [201] * 6
        for n in range(6):
            a, b = answers[2 * n].json(), answers[2 * n + 1].json()
            assert (a["match"], a["token"]) == (b["match"], b["token"])
        finish(first, answers[0].json())
        refused = second.post("/api/challenge/play", json={}, headers=bearer(people[0]["token"]))
        assert refused.json()["code"] == "challenge_played"
        # Both processes deal the same day, and publish the same commitment.
        assert first.get("/api/challenge").json() == second.get("/api/challenge").json()


def test_a_rated_public_match_counts_on_the_profile_once(served: Any) -> None:
    from callbreak.web.model import join, new_room, start
    from callbreak.web.standings import rate_finished

    web, _ = served
    asha, bina = make(web, "Asha"), make(web, "Bina")
    data = new_room("strict(deals=2)", "Asha", [None, "random", "random"], seed="3")
    join(data, "Bina")
    start(data)
    data.settings["public"] = {"pool": "strict", "profiles": [asha["id"], bina["id"], None, None]}
    match = Match(data.rules, seed=data.seed)
    chooser = random.Random(1)
    while not match.is_over:
        match.apply(chooser.choice(match.deal.legal_actions()))
    data.actions = [encode(action) for deal in match.deals for action in deal.actions]
    data.status = FINISHED
    backend = web.app.state.backend
    assert [call(web, rate_finished, backend, data) for _ in range(2)] == [True, False]
    figures = web.get(f"/api/players/{asha['id']}/career").json()["figures"]
    made = sum(1 for deal in match.played_deals() if deal.won[0] >= (deal.calls[0] or 0))
    assert figures == {"deals": 2, "calls_made": made, "accuracy": None, "reviewed": 0,
                       "challenges": 0}  # fmt: skip
    history = web.get(f"/api/players/{bina['id']}/career").json()["ratings"]["strict"]["history"]
    assert len(history) == 1 and history[0]["matches"] == 1


def test_one_attempt_a_profile_across_two_serve_processes(tmp_path: Path, redis_url: str) -> None:
    """Two real ``callbreak serve`` processes on one redis-server, the same secret: each
    profile asking both at once for its attempt gets one match, and both publish one
    commitment, the operator's secret's."""
    import redis

    from callbreak.web.client import http
    from tests.helpers import callbreak_serve

    redis.Redis.from_url(redis_url).flushdb()
    secret = tmp_path / "secret"
    secret.write_bytes(SECRET + b"\n")
    options = ("--redis", redis_url, "--challenge-secret", str(secret), "--create-rate", "6000")
    with (
        callbreak_serve(tmp_path / "one", *options) as (_, one),
        callbreak_serve(tmp_path / "two", *options) as (_, two),
    ):
        people = [http("POST", f"{one}/api/players", {"name": f"P{n}"})[1] for n in range(8)]
        with concurrent.futures.ThreadPoolExecutor(16) as pool:
            asked = {
                (n, base): pool.submit(http, "POST", f"{base}/api/challenge/play", {}, p["token"])
                for n, p in enumerate(people)
                for base in (one, two)
            }
            answers = {key: future.result() for key, future in asked.items()}
        for n in range(8):
            (first, a), (second, b) = answers[n, one], answers[n, two]
            assert sorted([first, second]) == [200, 201], (a, b)
            assert (a["match"], a["token"]) == (b["match"], b["token"])
        again = http("POST", f"{two}/api/challenge/play", {}, people[0]["token"])
        assert again[0] == 200 and again[1]["match"] == answers[0, one][1]["match"]
        today = http("GET", f"{one}/api/challenge")[1]
        assert today == http("GET", f"{two}/api/challenge")[1]
        seed = challenge.day_seed(SECRET, challenge.parse_day(today["day"]))
        assert today["commitment"] == challenge.commitment(seed)


def test_a_review_that_keeps_failing_is_given_up_after_three_tries(tmp_path: Path) -> None:
    def failing(data: dict[str, Any], seat: int, time: float, slot: int) -> dict[str, Any]:
        raise RuntimeError("a review that cannot be made")

    clock = Clock()
    reviews = Reviews(pool=concurrent.futures.ThreadPoolExecutor(1), job=failing)
    app = create_app(tmp_path / "db.sqlite", None, FAST, reviews=reviews, ping_seconds=3600)
    app.state.challenge.use(SECRET)
    app.state.challenge.clock = clock
    app.state.challenge.opponents = "random"
    with TestClient(app) as web:
        finish(web, begin(web, make(web, "Asha")))
        for _ in range(40):
            call(web, web.app.state.challenge.look)
            web.portal.call(asyncio.sleep, 0.01)  # type: ignore[union-attr]
        assert reviews.started == 3
        attempt = call(web, web.app.state.backend.attempts, DAY.isoformat())[0]
        assert attempt["state"] == "finished" and attempt["accuracy"] is None
