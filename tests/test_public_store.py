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
