"""Public play's side of the backends (``web.public``): profiles, the pools' waiting lists and
the ratings, the same behaviour on SQLite (``LocalBackend``) and on a real redis-server
(``RedisBackend``), and atomic where two processes meet: a person waits in one pool at once,
a take of a table's people is all or none, a match is rated once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from callbreak.ratings import Computer, Outcome, Person
from callbreak.web.backend import Backend, LocalBackend
from callbreak.web.store import Store

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["sqlite", "redis"])
async def backend(request: Any, tmp_path: Path) -> AsyncIterator[tuple[Backend, Backend]]:
    """Two backends on one store, as two processes see it (on SQLite: one process's backend
    twice, since one process owns the file)."""
    if request.param == "sqlite":
        one: Any = LocalBackend(Store(tmp_path / "db.sqlite"))
        yield one, one
        await one.close()
        return
    import redis

    from callbreak.web.redis_backend import RedisBackend

    url = request.getfixturevalue("redis_url")
    redis.Redis.from_url(url).flushdb()
    first, second = RedisBackend(url), RedisBackend(url)
    yield first, second
    await first.close()
    await second.close()


def profile(number: int) -> dict[str, Any]:
    return {
        "id": f"p{number:03}",
        "token": f"hash{number:03}",
        "name": f"Person {number}",
        "avatar": "sun",
        "created": 1000.0 + number,
        "updated": 1000.0 + number,
    }


async def test_profiles_are_found_by_id_and_by_their_tokens_hash(
    backend: tuple[Backend, Backend],
) -> None:
    one, other = backend
    await one.create_profile(profile(1))
    assert await other.profile("p001") == profile(1)
    assert await other.profile_of("hash001") == profile(1)
    assert await other.profile_of("p001") is None  # the id is no token
    assert await other.profile("nobody") is None
    assert await other.update_profile("p001", "Asha", "moon")
    changed = await one.profile("p001")
    assert changed is not None and (changed["name"], changed["avatar"]) == ("Asha", "moon")
    assert not await one.update_profile("nobody", "Asha", "moon")
    assert [p["id"] for p in await one.profiles(["p001", "nobody"])] == ["p001"]


async def test_a_person_waits_once_in_one_pool(backend: tuple[Backend, Backend]) -> None:
    one, other = backend
    first = await one.wait("strict", "p1", 10.0, 0.0)
    assert first == {"state": "waiting", "pool": "strict", "since": 10.0}
    # Again, from another process (a second tab): the same wait, since when it began.
    assert await other.wait("strict", "p1", 12.0, 0.0) == first
    assert await one.waiting("strict") == [("p1", 10.0)]
    # Another pool: the wait moves there.
    moved = await other.wait("bhoos", "p1", 13.0, 0.0)
    assert moved["pool"] == "bhoos"
    assert await one.waiting("strict") == []
    assert await one.waiting("bhoos") == [("p1", 13.0)]
    assert await one.unwait("p1") is None
    assert await other.place("p1") is None
    assert await one.waiting("bhoos") == []


async def test_racing_waits_from_two_processes_make_one(backend: tuple[Backend, Backend]) -> None:
    _, other = backend
    places = await asyncio.gather(
        *(side.wait("strict", "p1", 10.0 + n, 0.0) for n in range(10) for side in backend)
    )
    assert len({place["since"] for place in places}) == 1
    assert len(await other.waiting("strict")) == 1


async def test_a_take_is_all_or_none_and_a_seat_is_kept(backend: tuple[Backend, Backend]) -> None:
    one, other = backend
    for number in range(3):
        await one.wait("strict", f"p{number}", 10.0 + number, 0.0)
    assert not await other.take("strict", ["p0", "p1", "nobody"], 20.0)
    assert len(await one.waiting("strict")) == 3  # nothing taken
    assert await other.take("strict", ["p0", "p1"], 20.0)
    assert not await one.take("strict", ["p1", "p2"], 20.0)  # p1 is seated already
    assert await one.waiting("strict") == [("p2", 12.0)]
    seating = await one.place("p0")
    assert seating == {"state": "seating", "pool": "strict", "since": 10.0, "at": 20.0}
    seat = {"state": "seated", "pool": "strict", "since": 10.0, "room": "ABC", "seat": 0}
    await other.placed({"p0": seat, "p1": None})
    assert await one.place("p0") == seat
    assert await one.place("p1") is None
    # A seated person who joins again is answered their seat; not taken off by a leave.
    assert await one.wait("bhoos", "p0", 30.0, 0.0) == seat
    assert await other.unwait("p0") == seat
    # Once the table is over, they may wait anew.
    await one.placed({"p0": seat | {"over": True}})
    assert (await other.wait("bhoos", "p0", 31.0, 0.0))["state"] == "waiting"


async def test_a_seating_that_never_finished_gives_way(backend: tuple[Backend, Backend]) -> None:
    one, other = backend
    await one.wait("strict", "p0", 10.0, 0.0)
    assert await one.take("strict", ["p0"], 20.0)
    assert (await other.wait("strict", "p0", 25.0, 15.0))["state"] == "seating"  # not stale yet
    assert (await other.wait("strict", "p0", 40.0, 30.0))["state"] == "waiting"


def outcome(match_id: str, people: list[str], places: tuple[int, ...] = (1, 2, 3, 4)) -> Outcome:
    seats: list[Person | Computer] = [Person(p) for p in people]
    seats += [Computer("intermediate")] * (4 - len(seats))
    return Outcome(match_id, "strict", tuple(seats), places)


async def test_a_match_is_rated_once_whichever_process_sees_its_end(
    backend: tuple[Backend, Backend],
) -> None:
    one, other = backend
    end = outcome("m1", ["ann", "bo"])
    rated = await asyncio.gather(one.settle(end), other.settle(end), one.settle(end))
    assert sorted(rated) == [False, False, True]
    ann = await other.rating("strict", "ann")
    assert ann is not None and ann.matches == 1 and ann.provisional and ann.mu > 25
    assert await one.rating("bhoos", "ann") is None
    assert await one.rating("strict", "nobody") is None


async def test_many_matches_rated_at_once_lose_no_rating(backend: tuple[Backend, Backend]) -> None:
    """Matches sharing a person rated by two processes at once: each counted exactly once."""
    one, _ = backend
    ends = [outcome(f"m{n}", ["ann", f"x{n}"]) for n in range(12)]
    await asyncio.gather(*(side.settle(end) for end in ends for side in backend))
    ann = await one.rating("strict", "ann")
    assert ann is not None and ann.matches == 12


async def test_the_leaderboard_hides_provisional_ratings(backend: tuple[Backend, Backend]) -> None:
    one, other = backend
    for n in range(10):
        await one.settle(outcome(f"m{n}", ["ann", "bo"]))
    await one.settle(outcome("new", ["cy"]))
    board = await other.leaderboard("strict", 10)
    assert [profile for profile, _ in board] == ["ann", "bo"]  # cy is provisional
    assert board[0][1].ordinal > board[1][1].ordinal and board[0][1].matches == 10
    assert await other.rank("strict", "ann") == 1
    assert await other.rank("strict", "bo") == 2
    assert await other.rank("strict", "cy") is None
    assert await other.leaderboard("strict", 1) == board[:1]
    assert await other.leaderboard("bhoos", 10) == []


async def test_each_rating_change_is_kept_in_order(backend: tuple[Backend, Backend]) -> None:
    one, other = backend
    for n in range(5):
        await one.settle(outcome(f"m{n}", ["ann", "bo"]))
        await asyncio.sleep(0.001)  # the changes are ordered by when they were written
    history = await other.rating_history("strict", "ann", 3)
    assert [change["match"] for change in history] == ["m2", "m3", "m4"]
    assert [change["matches"] for change in history] == [3, 4, 5]
    ann = await other.rating("strict", "ann")
    assert ann is not None and (history[-1]["mu"], history[-1]["sigma"]) == (ann.mu, ann.sigma)
    assert await other.rating_history("strict", "cy", 3) == []


async def test_a_play_is_kept_once_and_replaced(backend: tuple[Backend, Backend]) -> None:
    one, other = backend
    await one.create_profile(profile(1))
    await one.tally("p001", "m1", 2000.0, {"deals": 5, "made": 3})
    await other.tally("p001", "m1", 2000.0, {"deals": 5, "made": 3})
    await one.tally("p001", "m2", 3000.0, {"deals": 5, "made": 4, "accuracy": None})
    await other.tally("p001", "m2", 3000.0, {"deals": 5, "made": 4, "accuracy": 81.5})
    plays = await other.plays("p001", 10)
    assert [(p["match"], p["at"], p.get("accuracy")) for p in plays] == [
        ("m2", 3000.0, 81.5),
        ("m1", 2000.0, None),
    ]
    assert await one.plays("p001", 1) == plays[:1]


def attempt(profile_id: str, address: str = "a", ranked: bool = True) -> dict[str, Any]:
    return {
        "day": "2026-12-04",
        "profile": profile_id,
        "address": address,
        "ranked": ranked,
        "why": None if ranked else "provisional",
        "match": f"m-{profile_id}",
        "started": 1_796_385_600.123456789,
        "state": "playing",
        "total": None,
    }


async def test_one_attempt_a_profile_and_a_day_whoever_races(
    backend: tuple[Backend, Backend],
) -> None:
    one, other = backend
    tries = [attempt("p1") | {"match": f"m{n}"} for n in range(6)]
    answers = await asyncio.gather(
        *(side.begin_attempt(tried, 5) for tried, side in zip(tries, [one, other] * 3, strict=True))
    )
    assert sorted(made for _, made in answers) == [False] * 5 + [True]
    kept = {held["match"] for held, _ in answers}
    assert len(kept) == 1 and await other.attempt("2026-12-04", "p1") == answers[0][0]
    assert answers[0][0]["started"] == 1_796_385_600.123456789  # not rounded by the store
    assert await one.attempt("2026-12-05", "p1") is None


async def test_an_address_ranks_its_first_attempts_only(backend: tuple[Backend, Backend]) -> None:
    one, other = backend
    made = [
        await one.begin_attempt(attempt("new", ranked=False), 2),  # takes no ranked place
        await other.begin_attempt(attempt("p1"), 2),
        await one.begin_attempt(attempt("p2"), 2),
        await other.begin_attempt(attempt("p3"), 2),
        await one.begin_attempt(attempt("p4", address="b"), 2),
    ]
    assert [(held["ranked"], held["why"]) for held, _ in made] == [
        (False, "provisional"),
        (True, None),
        (True, None),
        (False, "address"),
        (True, None),
    ]
    assert sorted(a["profile"] for a in await other.attempts("2026-12-04")) == [
        "new",
        "p1",
        "p2",
        "p3",
        "p4",
    ]


async def test_an_attempt_is_changed_in_place(backend: tuple[Backend, Backend]) -> None:
    one, other = backend
    await one.begin_attempt(attempt("p1"), 1)
    changed = await asyncio.gather(
        one.update_attempt("2026-12-04", "p1", {"state": "finished", "total": 123}),
        other.update_attempt("2026-12-04", "p1", {"accuracy": 88.8}),
    )
    assert all(held is not None for held in changed)
    held = await one.attempt("2026-12-04", "p1")
    assert held is not None and (held["state"], held["total"], held["accuracy"]) == (
        "finished",
        123,
        88.8,
    )
    assert held["match"] == "m-p1"
    assert await other.update_attempt("2026-12-04", "nobody", {"total": 1}) is None


async def test_the_first_secret_kept_is_everyones(backend: tuple[Backend, Backend]) -> None:
    one, other = backend
    kept = await asyncio.gather(
        *(side.secret("challenge", f"made-{n}") for n, side in enumerate([one, other] * 3))
    )
    assert len(set(kept)) == 1 and kept[0].startswith("made-")
    assert await other.secret("challenge", "later") == kept[0]
    assert await one.secret("another", "x") == "x"


async def test_profiles_unused_past_their_time_go_with_everything_of_theirs(
    backend: tuple[Backend, Backend],
) -> None:
    one, other = backend
    for number in (1, 2, 3):
        await one.create_profile(profile(number))  # used at 1001, 1002, 1003
    for number in (1, 2):
        await one.wait("strict", f"p00{number}", 5.0, 0.0)
        await one.tally(f"p00{number}", "m", 1000.0 + number, {"deals": 1})
        for n in range(10):
            await one.settle(outcome(f"m{number}-{n}", [f"p00{number}"]))
    await other.touch_profile("p002", 5000.0)  # p002 played since
    assert await other.expire_profiles(1002.5) == ["p001"]
    assert sorted(await other.expire_profiles(4000.0)) == ["p003"]
    assert await one.profile("p001") is None and await one.profile_of("hash001") is None
    assert await one.rating("strict", "p001") is None
    assert await one.rating_history("strict", "p001", 10) == []
    assert await one.plays("p001", 10) == [] and await one.place("p001") is None
    assert [p for p, _ in await one.leaderboard("strict", 10)] == ["p002"]
    kept = await other.profile("p002")
    assert kept is not None and await one.plays("p002", 10) != []
    assert await one.rating("strict", "p002") is not None


async def test_a_pools_offers_are_listed_once_oldest_first_and_withdrawn(
    backend: tuple[Backend, Backend],
) -> None:
    one, other = backend
    await one.offer("strict", "BBBBBB", 2.0)
    await other.offer("strict", "AAAAAA", 1.0)
    await other.offer("strict", "BBBBBB", 3.0)  # listed once, from its first offer
    await one.offer("bhoos", "CCCCCC", 1.0)
    assert await other.offers("strict") == ["AAAAAA", "BBBBBB"]
    await other.withdraw("strict", "AAAAAA")
    assert await one.offers("strict") == ["BBBBBB"] and await one.offers("bhoos") == ["CCCCCC"]


async def test_a_lobby_change_made_before_an_action_is_refused(
    backend: tuple[Backend, Backend],
) -> None:
    """A lobby change carries the status and the clock, which an action moves, and a seat
    taken over counts its deals from the one being played: it is stored only on the version
    it was made on."""
    from callbreak.web.model import PLAYING, Step, new_room, start

    one, other = backend
    data = new_room("strict", "Asha", ["random"] * 3)
    start(data)
    await one.create(data)
    read = await other.load(data.id)
    assert read is not None
    assert await one.append(data.id, data.rev, Step(0, "c2", [], PLAYING, None))
    read.settings["speed"] = "fast"
    assert await other.save(read) is False  # made on version 0; the table is at 1
    fresh = await other.load(data.id)
    assert fresh is not None and fresh.version == 1
    fresh.settings["speed"] = "fast"
    assert await other.save(fresh) is True
