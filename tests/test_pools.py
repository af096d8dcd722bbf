"""Public play through the HTTP API (``web.profiles``, ``web.pools``, ``web.standings``):
profiles made, read and changed by their token and shown by their public id; bad names and
avatars refused with nothing stored; people joining pools seated exactly once, at most four a
table, on one process and on two processes sharing a real redis-server; a finished pool's
table rated once whichever process sees its end. The pools' clock is a number the test moves:
no test waits on the pools' real wait."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from callbreak.game import Match
from callbreak.seating import play_match
from callbreak.web.actions import encode
from callbreak.web.app import create_app
from callbreak.web.model import FINISHED, PERSON, PLAYING, TableData, join, new_room, start
from callbreak.web.pools import Pool
from callbreak.web.standings import match_id, outcome_of, rate_finished
from tests.helpers import FAST

WAIT = 60.0
POOLS = (
    Pool("strict", "strict(deals=1)", 20, "random", WAIT),
    Pool("bhoos", "bhoos", 20, "random", WAIT),
)


class Clock:
    """The pools' clock (wall-clock seconds), moved by the test."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def served(app: Any, clock: Clock) -> TestClient:
    app.state.pools.clock = clock
    return TestClient(app)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[tuple[TestClient, Clock]]:
    clock = Clock()
    with served(create_app(tmp_path / "db.sqlite", None, FAST, pools=POOLS), clock) as web:
        yield web, clock


def call(web: TestClient, work: Any, *args: Any) -> Any:
    """``work(*args)`` on the served app's event loop (where its backend lives)."""
    assert web.portal is not None
    return web.portal.call(work, *args)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def make(web: TestClient, name: str, avatar: str = "sun") -> dict[str, Any]:
    answer = web.post("/api/players", json={"name": name, "avatar": avatar})
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def place(web: TestClient, token: str, pool: str = "strict") -> dict[str, Any]:
    answer = web.get(f"/api/pools/{pool}/place", headers=bearer(token))
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def seated(webs: list[TestClient], token: str, tries: int = 400) -> dict[str, Any]:
    """The person's place once they are seated (the deciding process looks every half
    second; each of ``webs`` is asked in turn)."""
    for attempt in range(tries):
        found = place(webs[attempt % len(webs)], token)
        if found["state"] == "seated":
            return found
        time.sleep(0.025)
    raise AssertionError(f"not seated: {found}")


def test_a_profile_is_made_read_and_changed_by_its_token(client: Any) -> None:
    web, _ = client
    made = make(web, "  Asha  ", "moon")
    assert made["name"] == "Asha" and made["avatar"] == "moon" and len(made["token"]) >= 43
    mine = web.get("/api/players/me", headers=bearer(made["token"])).json()
    assert mine["id"] == made["id"] and mine["ratings"] == {}
    changed = web.post("/api/players/me", json={"name": "Bina"}, headers=bearer(made["token"]))
    assert changed.status_code == 200 and changed.json()["name"] == "Bina"
    page = web.get(f"/api/players/{made['id']}").json()
    assert page == {"id": made["id"], "name": "Bina", "avatar": "moon",
                    "created": made["created"], "ratings": {}}  # fmt: skip
    # Nothing of the token, nor of its hash, is ever shown.
    stored = web.app.state.store.profile(made["id"])
    assert made["token"] not in str(page) and stored["token"] not in str(page)
    assert stored["token"] != made["token"]
    assert web.get("/api/players/me").json()["code"] == "token_needed"
    wrong = web.get("/api/players/me", headers=bearer("x" * 43))
    assert (wrong.status_code, wrong.json()["code"]) == (401, "not_a_player")
    assert web.get("/api/players/nobody").json()["code"] == "no_such_player"


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("Ann\u0007", "name_control"),
        ("An\u200bn", "name_control"),
        ("Ann\u202e", "name_control"),
        ("\u200b", "name_empty"),
        ("x" * 10_000, "name_long"),
        (7, "name_not_text"),
        (None, "name_not_text"),
    ],
)
def test_bad_names_are_refused_and_nothing_is_stored(client: Any, name: Any, code: str) -> None:
    web, _ = client
    answer = web.post("/api/players", json={"name": name, "avatar": "sun"})
    assert (answer.status_code, answer.json()["code"]) == (400, code)
    good = make(web, "Asha")
    changed = web.post("/api/players/me", json={"name": name}, headers=bearer(good["token"]))
    assert (changed.status_code, changed.json()["code"]) == (400, code)
    store = web.app.state.store
    with store.transaction() as db:
        assert db.execute("SELECT COUNT(*) FROM profiles").fetchone()[0] == 1
    assert store.profile(good["id"])["name"] == "Asha"


def test_a_bad_avatar_is_refused_and_changes_nothing(client: Any) -> None:
    web, _ = client
    answer = web.post("/api/players", json={"name": "Asha", "avatar": "../x"})
    assert answer.json()["code"] == "avatar" and "sun" in answer.json()["args"]["avatars"]
    good = make(web, "Asha")
    both = {"name": "Bina", "avatar": "nope"}
    assert web.post("/api/players/me", json=both, headers=bearer(good["token"])).status_code == 400
    assert web.get(f"/api/players/{good['id']}").json()["name"] == "Asha"  # the name neither


def test_every_avatar_is_drawn_and_served(client: Any) -> None:
    from callbreak.web.app import STATIC
    from callbreak.web.profiles import AVATARS

    web, _ = client
    assert {p.stem.removeprefix("avatar-") for p in STATIC.glob("avatar-*.svg")} == set(AVATARS)
    for avatar in AVATARS:
        answer = web.get(f"/static/avatar-{avatar}.svg")
        assert answer.status_code == 200 and answer.text.startswith("<svg")


def test_joins_seat_four_at_once_and_fewer_after_the_wait(client: Any) -> None:
    web, clock = client
    people = [make(web, f"P{n}") for n in range(6)]
    for person in people:
        clock.now += 0.1
        answer = web.post("/api/pools/strict/join", headers=bearer(person["token"]))
        assert answer.status_code == 200 and answer.json()["state"] in ("waiting", "seated")
    first = [seated([web], p["token"]) for p in people[:4]]
    assert len({p["room"] for p in first}) == 1 and sorted(p["seat"] for p in first) == [0, 1, 2, 3]
    assert [place(web, p["token"])["state"] for p in people[4:]] == ["waiting", "waiting"]
    clock.now += WAIT
    rest = [seated([web], p["token"]) for p in people[4:]]
    assert rest[0]["room"] == rest[1]["room"] != first[0]["room"]
    data = web.app.state.store.load(rest[0]["room"])
    assert [seat.kind for seat in data.seats] == [PERSON, PERSON, "computer", "computer"]
    assert data.status == PLAYING and data.rules.startswith("strict")
    assert data.turn_seconds == 20
    for person, spot in zip(people[4:], rest, strict=True):
        assert data.seat_of(spot["token"]) == spot["seat"]
        assert data.seats[spot["seat"]].name == person["name"]
        assert data.settings["public"]["profiles"][spot["seat"]] == person["id"]


def test_a_place_tells_a_person_only_their_own_seat(client: Any) -> None:
    web, _ = client
    people = [make(web, f"P{n}") for n in range(4)]
    for person in people:
        web.post("/api/pools/strict/join", headers=bearer(person["token"]))
    places = [seated([web], p["token"]) for p in people]
    for number, found in enumerate(places):
        assert set(found) == {"state", "pool", "waited", "room", "seat", "token", "over", "deal"}
        others = [p["token"] for n, p in enumerate(places) if n != number]
        assert not any(token in str(found) for token in others)


def test_joining_twice_or_from_two_tabs_is_one_wait_and_one_seat(client: Any) -> None:
    web, clock = client
    person = make(web, "Asha")
    answers = [
        web.post("/api/pools/strict/join", headers=bearer(person["token"])) for _ in range(3)
    ]
    assert len({a.json()["waited"] for a in answers}) <= 2  # the same wait, since its start
    store = web.app.state.store
    assert [p for p, _ in store.waiting("strict")] == [person["id"]]
    # Another pool moves the wait; leaving ends it.
    assert (
        web.post("/api/pools/bhoos/join", headers=bearer(person["token"])).json()["pool"] == "bhoos"
    )
    assert store.waiting("strict") == [] and len(store.waiting("bhoos")) == 1
    assert web.post("/api/pools/bhoos/leave", headers=bearer(person["token"])).json() == {
        "state": "none"
    }
    web.post("/api/pools/strict/join", headers=bearer(person["token"]))
    clock.now += WAIT
    seat = seated([web], person["token"])
    again = web.post("/api/pools/strict/join", headers=bearer(person["token"])).json()
    assert (again["room"], again["seat"], again["token"]) == (
        seat["room"],
        seat["seat"],
        seat["token"],
    )
    assert store.waiting("strict") == []


def test_unknown_pools_and_missing_tokens_are_refused(client: Any) -> None:
    web, _ = client
    person = make(web, "Asha")
    answer = web.post("/api/pools/snap/join", headers=bearer(person["token"]))
    assert (answer.status_code, answer.json()["code"]) == (404, "no_such_pool")
    answer = web.post("/api/pools/strict/join")
    assert (answer.status_code, answer.json()["code"]) == (401, "token_needed")
    assert [p["name"] for p in web.get("/api/pools").json()] == ["strict", "bhoos"]


def test_a_flood_of_joins_from_one_profile_is_refused(tmp_path: Path) -> None:
    app = create_app(tmp_path / "db.sqlite", None, FAST, pools=POOLS)
    with served(app, Clock()) as web:
        person = make(web, "Asha")
        codes = [
            web.post("/api/pools/strict/join", headers=bearer(person["token"])).status_code
            for _ in range(20)
        ]
        assert codes.count(200) == FAST.pool_join_burst and set(codes) == {200, 429}
        last = web.post("/api/pools/strict/join", headers=bearer(person["token"]))
        assert last.json()["code"] == "joins_rate" and last.json()["args"]["seconds"] >= 1


def test_forty_joins_through_two_processes_on_redis_seat_everyone_once(
    tmp_path: Path, redis_url: str
) -> None:
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    clock = Clock()
    one = create_app(tmp_path / "one.sqlite", redis_url, FAST, pools=POOLS)
    two = create_app(tmp_path / "two.sqlite", redis_url, FAST, pools=POOLS)
    with served(one, clock) as first, served(two, clock) as second:
        webs = [first, second]
        people = [make(webs[n % 2], f"P{n}") for n in range(40)]
        for n, person in enumerate(people):
            pool = POOLS[n % 2].name
            clock.now += 0.01
            # Each joins through one process, and again through the other (a second tab).
            for web in (webs[n % 2], webs[(n + 1) % 2]):
                answer = web.post(f"/api/pools/{pool}/join", headers=bearer(person["token"]))
                assert answer.status_code == 200, answer.text
        places = [seated(webs, p["token"]) for p in people]
        backend = one.state.backend
        rooms: dict[str, list[int]] = {}
        for found in places:
            rooms.setdefault(found["room"], []).append(found["seat"])
        assert len(rooms) == 10  # 20 a pool: five full tables each
        for code, seats in rooms.items():
            assert sorted(seats) == [0, 1, 2, 3]  # four people, each seat once
            data = one.state.tables.live.get(code) or two.state.tables.live.get(code)
            assert data is not None  # made by the process that decided
        for person, found in zip(people, places, strict=True):
            stored = call(first, backend.load, found["room"])
            assert stored.seat_of(found["token"]) == found["seat"]
            assert stored.settings["public"]["profiles"][found["seat"]] == person["id"]
        # From the tables' side: every pool's table holds four of these people, and each
        # person sits at one table only (a second table for the same people would show here,
        # whatever the places say).
        stored = call(first, backend.tables, "room")
        sitting: list[str] = []
        for data in stored:
            public = data.settings.get("public")
            assert public is not None and data.status == PLAYING
            people_here = [p for p in public["profiles"] if p is not None]
            assert len(people_here) == 4
            sitting += people_here
        assert sorted(sitting) == sorted(p["id"] for p in people)
        assert {data.id for data in stored} == set(rooms)
        # Asked again through either process, nobody is seated anew.
        again = [place(webs[(n + 1) % 2], p["token"]) for n, p in enumerate(people)]
        assert [(a["room"], a["seat"]) for a in again] == [(p["room"], p["seat"]) for p in places]


def finished_table(rules: str = "strict(deals=1)") -> TableData:
    data = new_room(rules, "Asha", [None, "random", "random"], seed="3")
    join(data, "Bina")
    start(data)
    data.settings["public"] = {"pool": "strict", "profiles": ["ann", "bo", None, None]}
    match = Match(data.rules, seed=data.seed)
    play_match(match, ["random"] * 4)
    data.actions = [encode(action) for deal in match.deals for action in deal.actions]
    data.status = FINISHED
    return data


def test_a_finished_pool_table_is_its_outcome() -> None:
    data = finished_table()
    outcome = outcome_of(data)
    assert outcome is not None and outcome.match_id == match_id(data)
    assert [getattr(seat, "profile", None) for seat in outcome.seats] == ["ann", "bo", None, None]
    assert outcome.left == frozenset()
    data.seats[1].left = True
    assert outcome_of(data).left == frozenset({1})  # type: ignore[union-attr]
    data.status = PLAYING
    assert outcome_of(data) is None
    data.status = FINISHED
    del data.settings["public"]
    assert outcome_of(data) is None  # a room of friends is not rated


def test_the_offers_rank_tables_by_the_people_still_at_them() -> None:
    """A table's people who left for good are nobody to play with: a table where two people
    play on is offered before one where two sat down and one of them left, and neither of
    those two sits down there again."""
    from callbreak.web.pools import _offered

    def table(profiles: list[str | None], left: set[int]) -> TableData:
        data = new_room("strict(deals=2)", "P", [None, "random", "random"], seed="5")
        join(data, "Q")
        start(data)
        data.settings["public"] = {"pool": "strict", "profiles": profiles}
        for seat in left:
            data.seats[seat].left = True
        return data

    two_one_left = _offered(table(["a", "b", None, None], {1}), "strict")
    two = _offered(table(["c", "d", None, None], set()), "strict")
    assert two_one_left is not None and two is not None
    assert two_one_left[1] == frozenset({"a", "b"})  # neither sits down there again
    assert two[0] < two_one_left[0]


def test_a_finished_match_is_rated_once_when_two_processes_see_its_end(
    tmp_path: Path, redis_url: str
) -> None:
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    one = create_app(tmp_path / "one.sqlite", redis_url, FAST, pools=POOLS)
    two = create_app(tmp_path / "two.sqlite", redis_url, FAST, pools=POOLS)
    data = finished_table()
    with served(one, Clock()) as first, served(two, Clock()) as second:
        rated = [
            call(web, rate_finished, app.state.backend, data)
            for web, app in ((first, one), (second, two), (first, one))
        ]
        assert rated == [True, False, False]
        ann = call(first, one.state.backend.rating, "strict", "ann")
        assert ann.matches == 1 and ann.provisional
        board = second.get("/api/pools/strict/leaderboard").json()
        assert board == {"pool": "strict", "ratings": []}  # provisional: hidden


def test_the_leaderboard_lists_the_settled_ratings_with_public_names(client: Any) -> None:
    from callbreak.ratings import Computer, Outcome, Person

    web, _ = client
    ann, bo, cy = make(web, "Ann", "lotus"), make(web, "Bo"), make(web, "Cy")
    store = web.app.state.store
    for n in range(10):
        seats = (Person(ann["id"]), Person(bo["id"]), Computer("random"), Computer("random"))
        store.settle(Outcome(f"m{n}", "strict", seats, (1, 2, 3, 4)))
    store.settle(
        Outcome("c", "strict", (Person(cy["id"]), *[Computer("random")] * 3), (1, 2, 3, 4))
    )
    board = web.get("/api/pools/strict/leaderboard").json()
    assert [row["name"] for row in board["ratings"]] == ["Ann", "Bo"]  # Cy is provisional
    assert board["ratings"][0]["avatar"] == "lotus" and board["ratings"][0]["rank"] == 1
    assert all("token" not in row for row in board["ratings"])
    mine = web.get("/api/pools/strict/leaderboard", headers=bearer(cy["token"])).json()
    assert mine["you"]["provisional"] and mine["you"]["rank"] is None
    page = web.get(f"/api/players/{bo['id']}").json()
    assert page["ratings"]["strict"]["matches"] == 10 and page["ratings"]["strict"]["rank"] == 2
    assert web.get("/api/pools/snap/leaderboard").json()["code"] == "no_such_pool"


def test_the_metrics_count_waiting_waits_and_tables(client: Any) -> None:
    web, _ = client
    people = [make(web, f"P{n}") for n in range(5)]
    for person in people:
        web.post("/api/pools/strict/join", headers=bearer(person["token"]))
    for person in people[:4]:
        seated([web], person["token"])
    text = web.app.state.metrics.text().decode()
    assert 'callbreak_pool_tables_started_total{people="4",pool="strict"} 1.0' in text
    assert 'callbreak_pool_wait_seconds_count{pool="strict"} 4.0' in text
    for _ in range(100):  # the gauge is set at each look of the pool
        text = web.app.state.metrics.text().decode()
        if 'callbreak_pool_waiting{pool="strict"} 1.0' in text:
            break
        time.sleep(0.02)
    assert 'callbreak_pool_waiting{pool="strict"} 1.0' in text


def test_a_seating_that_never_finished_puts_the_person_back_on_the_list(client: Any) -> None:
    web, clock = client
    person = make(web, "Asha")
    store = web.app.state.store
    store.wait("bhoos", person["id"], clock.now, 0.0)
    assert store.take("bhoos", [person["id"]], clock.now)  # as a process that then died
    assert place(web, person["token"], "bhoos")["state"] == "seating"
    clock.now += 31
    assert place(web, person["token"], "bhoos")["state"] == "waiting"
    assert [p for p, _ in store.waiting("bhoos")] == [person["id"]]


def test_nothing_public_play_answers_changes_with_the_tables_hidden_cards(client: Any) -> None:
    """The places, the profiles and the leaderboard carry nothing of a table's cards: with
    every hand of the table changed (another seed), every answer is the same."""
    web, _ = client
    people = [make(web, f"P{n}") for n in range(4)]
    for person in people:
        web.post("/api/pools/strict/join", headers=bearer(person["token"]))
    places = [seated([web], p["token"]) for p in people]

    def answers() -> list[Any]:
        found: list[Any] = []
        for person in people:
            found.append(place(web, person["token"]))
            found.append(web.get("/api/players/me", headers=bearer(person["token"])).json())
            found.append(web.get(f"/api/players/{person['id']}").json())
            found.append(web.get("/api/pools/strict/leaderboard").json())
        return found

    before = answers()
    store = web.app.state.store
    data = store.load(places[0]["room"])
    hands = Match(data.rules, seed=data.seed).deal.hands
    data.seed = "another seed"
    assert store.save(data)
    assert Match(data.rules, seed=data.seed).deal.hands != hands
    assert answers() == before


@pytest.mark.anyio
@pytest.mark.parametrize("backend", ["sqlite", "redis"])
async def test_two_deciders_racing_seat_each_person_once(
    tmp_path: Path, backend: str, request: Any
) -> None:
    """Two processes deciding for one pool at once (here two ``Pools`` whose leases both hold:
    one owner) read the same waiting list; the all-or-none take seats each person once."""
    from callbreak.web.backend import LocalBackend
    from callbreak.web.pools import Pools
    from callbreak.web.store import Store
    from callbreak.web.tables import Tables

    if backend == "sqlite":
        stores: list[Any] = [LocalBackend(Store(tmp_path / "db.sqlite"))] * 2
    else:
        import redis

        from callbreak.web.redis_backend import RedisBackend

        url = request.getfixturevalue("redis_url")
        redis.Redis.from_url(url).flushdb()
        stores = [RedisBackend(url), RedisBackend(url)]
    clock = Clock()
    deciders = [Pools(s, Tables(s, FAST), POOLS, FAST, clock=clock) for s in stores]
    for n in range(12):
        person = {"id": f"p{n}", "token": f"h{n}", "name": f"P{n}", "avatar": "sun"}
        await stores[0].create_profile(person | {"created": 1.0, "updated": 1.0})
        await stores[n % 2].wait("strict", f"p{n}", clock.now + n, 0.0)
    started = await asyncio.gather(*(d.look(POOLS[0]) for d in deciders for _ in range(2)))
    assert sum(started) == 3
    sitting = [
        profile
        for data in await stores[0].tables("room")
        for profile in data.settings["public"]["profiles"]
        if profile is not None
    ]
    assert sorted(sitting) == sorted(f"p{n}" for n in range(12))
    for n in range(12):
        assert (await stores[1].place(f"p{n}"))["state"] == "seated"  # type: ignore[index]
    for s in set(stores):
        await s.close()


def test_the_first_poll_after_the_end_rates_the_table_once(client: Any) -> None:
    from callbreak.web.model import Step

    web, _ = client
    people = [make(web, f"P{n}") for n in range(4)]
    for person in people:
        web.post("/api/pools/strict/join", headers=bearer(person["token"]))
    places = [seated([web], p["token"]) for p in people]
    store = web.app.state.store
    data = store.load(places[0]["room"])
    match = Match(data.rules, seed=data.seed)
    play_match(match, ["random"] * 4)
    codes = [encode(action) for deal in match.deals for action in deal.actions]
    for version, code in enumerate(codes):
        status = FINISHED if version == len(codes) - 1 else PLAYING
        assert store.append(data.id, data.rev, Step(version, code, [], status, None))
    for _ in range(2):  # every poll, each person's: rated by the first alone
        for person in people:
            assert place(web, person["token"])["over"] is True
    finish = match.places()
    places_by_id = {p["id"]: finish[spot["seat"]] for p, spot in zip(people, places, strict=True)}
    for person in people:
        rating = store.rating("strict", person["id"])
        assert rating is not None and rating.matches == 1 and rating.left == 0
        page = web.get(f"/api/players/{person['id']}").json()
        assert page["ratings"]["strict"]["provisional"] is True
    mu = {p["id"]: store.rating("strict", p["id"]).mu for p in people}
    # The winners rated highest (no lower than anyone: OpenSkill's Plackett-Luce gives a third
    # place behind two tied winners as much as them, so a strict "highest" fails then).
    assert max(mu[i] for i, place in places_by_id.items() if place == 1) == max(mu.values())
    # Over: the next join waits anew, at another table.
    again = web.post("/api/pools/strict/join", headers=bearer(people[0]["token"])).json()
    assert again["state"] == "waiting"


def test_the_people_who_leave_a_table_nobody_else_plays_are_rated_last_at_once(
    client: Any,
) -> None:
    """A pool's table is driven only while someone is at it: once every person at it has left
    for good it is played no further, so it is rated then, every person last, and offered to
    nobody (a newcomer's match there could not be rated: it is rated already)."""
    web, clock = client
    asha, bina = make(web, "Asha"), make(web, "Bina")
    for person in (asha, bina):
        web.post("/api/pools/strict/join", headers=bearer(person["token"]))
    clock.now += WAIT
    spots = [seated([web], p["token"]) for p in (asha, bina)]
    code = spots[0]["room"]
    store = web.app.state.store
    assert store.offers("strict") == [code]
    left = web.post(f"/api/rooms/{code}/leave", headers=bearer(spots[0]["token"]))
    assert left.status_code == 200
    assert store.rating("strict", asha["id"]) is None  # Bina plays on: not over for her
    web.post(f"/api/rooms/{code}/leave", headers=bearer(spots[1]["token"]))
    for person in (asha, bina):
        rating = store.rating("strict", person["id"])
        assert rating is not None and (rating.matches, rating.left) == (1, 1)
        assert place(web, person["token"])["over"] is True
    # Nobody is given a seat at it: the next person waits, then sits down elsewhere.
    cy = make(web, "Cy")
    web.post("/api/pools/strict/join", headers=bearer(cy["token"]))
    call(web, web.app.state.pools.look, POOLS[0])
    assert store.offers("strict") != [code]
    clock.now += WAIT
    assert seated([web], cy["token"])["room"] != code


LONG = Pool("long", "strict(deals=3)", 20, "random", WAIT)


def test_a_person_who_joins_later_takes_a_computers_seat_from_the_next_deal(
    tmp_path: Path,
) -> None:
    from callbreak.game import Call, Play

    app = create_app(tmp_path / "db.sqlite", None, FAST, pools=(*POOLS, LONG))
    clock = Clock()
    with served(app, clock) as web:
        asha, bina, cy, dev, eli = (make(web, n) for n in ("Asha", "Bina", "Cy", "Dev", "Eli"))
        web.post("/api/pools/long/join", headers=bearer(asha["token"]))
        clock.now += WAIT
        first = seated([web], asha["token"])
        code = first["room"]
        table = web.app.state.tables.live[code]
        store = web.app.state.store
        assert store.offers("long") == [code]  # three computers' seats on offer

        def step() -> None:
            deal = table.state.match.deal
            action = Call(2) if deal.legal_calls() else Play(min(deal.legal_cards()))
            call(web, table.act, deal.turn, action, table.state.version)

        while len(table.state.match.deal.tricks) < 2:
            step()
        web.post("/api/pools/long/join", headers=bearer(bina["token"]))
        taken = seated([web], bina["token"])
        assert taken["room"] == code and taken["seat"] in (1, 2, 3) and taken["deal"] == 2
        lobby = web.get(f"/api/rooms/{code}").json()
        assert lobby["pool"] == "long"
        assert lobby["seats"][taken["seat"]]["kind"] == "computer"  # the computer's until then
        assert lobby["seats"][taken["seat"]]["arriving"] == {"name": "Bina", "deal": 2}
        data = store.load(code)
        assert data.seats[taken["seat"]].since == 1
        assert data.settings["public"]["profiles"][taken["seat"]] == bina["id"]
        # The first person seated has no creator's powers at a table of strangers.
        refused = web.post(
            f"/api/rooms/{code}/seats/{taken['seat']}", json={"open": True},
            headers=bearer(first["token"]),
        )  # fmt: skip
        assert (refused.status_code, refused.json()["code"]) == (403, "public_table")
        # Two more take the two other computers' seats; the next waits, and sits down at a
        # new table after the wait.
        for person in (cy, dev):
            web.post("/api/pools/long/join", headers=bearer(person["token"]))
            assert seated([web], person["token"])["room"] == code
        web.post("/api/pools/long/join", headers=bearer(eli["token"]))
        assert call(web, app.state.pools.look, LONG) == 0  # a look: nothing left to take
        assert place(web, eli["token"], "long")["state"] == "waiting"
        assert store.offers("long") == []
        seats = sorted(seated([web], p["token"])["seat"] for p in (bina, cy, dev))
        assert seats == [1, 2, 3]
        text = app.state.metrics.text().decode()
        assert 'callbreak_pool_seats_taken_over_total{pool="long"} 3.0' in text
        clock.now += WAIT
        assert seated([web], eli["token"])["room"] != code
        # Bina gives the seat back before her first deal: the computer's again, her place over.
        left = web.post(f"/api/rooms/{code}/leave", headers=bearer(taken["token"]))
        assert left.status_code == 200
        assert left.json()["seats"][taken["seat"]]["kind"] == "computer"
        assert place(web, bina["token"], "long")["over"] is True
        assert store.load(code).settings["public"]["profiles"][taken["seat"]] is None
