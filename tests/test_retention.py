"""Data past its time leaves the store and nothing else does: finished matches after
``--keep-finished``, lobbies after ``--keep-lobbies``, unfinished tables after
``--keep-unfinished``, scoresheets with the finished; never a table someone is connected to.
In SQLite (one indexed sweep) and in Redis (key lifetimes set with every write, and the sweep),
with the time given to the sweep rather than waited for."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from pathlib import Path
from typing import Any

import pytest

from callbreak.web.app import create_app
from callbreak.web.backend import LocalBackend
from callbreak.web.client import Client, http
from callbreak.web.model import (
    FINISHED,
    LOBBY,
    PLAYING,
    STOPPED,
    Step,
    TableData,
    claim,
    new_match,
    new_room,
    start,
)
from callbreak.web.redis_backend import RedisBackend
from callbreak.web.retention import DAY, Retention, parse_duration
from callbreak.web.store import Store
from callbreak.web.tables import Tables
from tests.helpers import FAST, on_server, running

pytestmark = pytest.mark.anyio
NOW = 2_000_000_000.0
"""The sweeps' "now": the tables below are stored as changed some time before it."""


def table(status: str, age: float, kind: str = "room") -> TableData:
    """A stored table of ``status`` last changed ``age`` seconds before NOW."""
    if kind == "room":
        data = new_room("strict", "Asha", ["random", "random", "random"])
    else:
        data = new_match("strict", "Asha", ["random"] * 3, None, {"speed": "instant"})
    claim(data, 0)
    return dataclasses.replace(data, status=status, created=NOW - age - 60, updated=NOW - age)


AGES = {
    "finished, 31 days": (FINISHED, 31 * DAY, "match"),
    "finished, 29 days": (FINISHED, 29 * DAY, "match"),
    "ended, 31 days": (STOPPED, 31 * DAY, "room"),
    "ended, 29 days": (STOPPED, 29 * DAY, "room"),
    "lobby, 25 hours": (LOBBY, 25 * 3600, "room"),
    "lobby, 23 hours": (LOBBY, 23 * 3600, "room"),
    "unfinished, 8 days": (PLAYING, 8 * DAY, "match"),
    "unfinished, 6 days": (PLAYING, 6 * DAY, "room"),
    "live, 60 days": (PLAYING, 60 * DAY, "room"),
}
GONE = {"finished, 31 days", "ended, 31 days", "lobby, 25 hours", "unfinished, 8 days"}


def test_durations_read_as_the_command_line_takes_them() -> None:
    assert parse_duration("30d") == 30 * DAY and parse_duration(" 12H ") == 12 * 3600
    assert parse_duration("1.5h") == 5400 and parse_duration("2w") == 14 * DAY
    assert parse_duration("never") is None
    for bad in ("", "30", "d", "0d", "-1d", "30 days", "1y"):
        with pytest.raises(ValueError, match="such as 30d or 12h, or never"):
            parse_duration(bad)
    cutoffs = Retention(finished=None).cutoffs(NOW)
    assert cutoffs == {LOBBY: NOW - DAY, PLAYING: NOW - 7 * DAY}  # finished ones: for ever


async def test_sqlite_removes_what_is_past_its_time_and_nothing_else(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite")
    backend = LocalBackend(store)
    stored = {name: table(*made) for name, made in AGES.items()}
    for data in stored.values():
        data.actions = ["3"] if data.status != LOBBY else []  # a row in the actions table
        store.create(data)
    live = stored["live, 60 days"].id
    await backend.set_presence(live, 0, "here", 1)  # someone is connected to it
    tables = Tables(backend)

    assert await tables.expire(Retention(), NOW - 365 * DAY) == []  # a year ago: nothing old
    gone = await tables.expire(Retention(), NOW)
    assert sorted(gone) == sorted(stored[name].id for name in GONE)
    for name, data in stored.items():
        assert (store.load(data.id) is None) == (name in GONE), name
    with store.transaction() as db:
        (rows,) = db.execute(
            f"SELECT COUNT(*) FROM actions WHERE table_id IN ({','.join('?' * len(gone))})", gone
        ).fetchone()
    assert rows == 0  # their actions went with them
    assert await tables.expire(Retention(), NOW) == []  # a second sweep finds nothing

    await backend.set_presence(live, 0, "here", 0)  # they left: now it is past its time
    assert await tables.expire(Retention(), NOW) == [live]
    never = Retention(finished=None, lobbies=None, unfinished=None)
    assert await tables.expire(never, NOW + 365 * DAY) == []  # kept for ever
    assert await tables.expire(Retention(), NOW + 31 * DAY) != []
    store.close()


async def test_a_table_in_use_in_this_process_is_never_removed(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite")
    tables = Tables(LocalBackend(store))
    old = table(PLAYING, 60 * DAY, "match")
    store.create(old)
    loaded = await tables.get(old.id)
    assert loaded is not None
    # A letter being handled (an action being stored, a lobby change): in use.
    handling, done = asyncio.Event(), asyncio.Event()

    async def store_slowly() -> None:
        handling.set()
        await done.wait()

    letter = asyncio.ensure_future(loaded.ask(store_slowly))
    await handling.wait()
    assert await tables.expire(Retention(), NOW) == []
    done.set()
    await letter
    assert await tables.expire(Retention(), NOW) == [old.id]
    assert old.id not in tables.live and await tables.get(old.id) is None
    store.close()


def test_scoresheets_go_with_the_finished(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite")
    store.create_sheet("old", {"deals": []}, "hash")
    store.create_sheet("recent", {"deals": []}, "hash")
    with store.transaction() as db:
        db.execute("UPDATE sheets SET updated = ? WHERE id = 'old'", (NOW - 31 * DAY,))
        db.execute("UPDATE sheets SET updated = ? WHERE id = 'recent'", (NOW - 29 * DAY,))
    assert store.expire_sheets(NOW - 30 * DAY) == 1
    assert store.sheet("old") is None and store.sheet("recent") is not None
    store.close()


async def test_redis_keeps_a_scoresheet_as_long_as_a_finished_table(redis_url: str) -> None:
    """A sheet's key lives --keep-finished from its last change (set by every change), for ever
    with `never`; a change made on a revision another change moved past is refused."""
    import redis.asyncio as redis

    client = redis.Redis.from_url(redis_url, decode_responses=True)
    await client.flushdb()
    backend = RedisBackend(redis_url, Retention(finished=3 * DAY))
    try:
        await backend.create_sheet("s", {"deals": []}, "hash")
        assert 3 * DAY - 5 <= await client.ttl("cb:sheet:{s}") <= 3 * DAY
        await client.expire("cb:sheet:{s}", 60)
        read = await backend.sheet("s")
        assert read is not None and read["rev"] == 0 and read["token"] == "hash"
        assert await backend.update_sheet("s", {"deals": [1]}, read["rev"])
        assert await client.ttl("cb:sheet:{s}") > DAY  # the change set it again
        assert not await backend.update_sheet("s", {"deals": [2]}, read["rev"])
        again = await backend.sheet("s")
        assert again is not None and again["data"] == {"deals": [1]} and again["rev"] == 1
        assert [sheet["id"] for sheet in await backend.sheets(["s", "none"])] == ["s"]
    finally:
        await backend.close()
    forever = RedisBackend(redis_url, Retention(finished=None))
    try:
        await forever.create_sheet("kept", {"deals": []}, "hash")
        assert await client.ttl("cb:sheet:{kept}") == -1
        assert await forever.update_sheet("s", {"deals": [3]}, 1)  # kept before for 3 days
        assert await client.ttl("cb:sheet:{s}") == -1
    finally:
        await forever.close()
        await client.aclose()


async def test_redis_removes_what_is_past_its_time_and_nothing_else(redis_url: str) -> None:
    import redis.asyncio as redis

    client = redis.Redis.from_url(redis_url, decode_responses=True)
    await client.flushdb()
    backend = RedisBackend(redis_url)
    stored = {name: table(*made) for name, made in AGES.items()}
    for data in stored.values():
        await backend.create(data)
    live = stored["live, 60 days"].id
    await backend.set_presence(live, 1, "another process", 1)
    leased = table(PLAYING, 60 * DAY, "match")  # a driver runs it in some process
    await backend.create(leased)
    assert await backend.lease(leased.id, "another process", 9.0)

    tables = Tables(backend)
    assert await tables.expire(Retention(), NOW - 365 * DAY) == []
    gone = await tables.expire(Retention(), NOW)
    assert sorted(gone) == sorted(stored[name].id for name in GONE)
    for name, data in stored.items():
        assert (await backend.load(data.id) is None) == (name in GONE), name
        assert await client.exists(f"cb:{{{data.id}}}:data") == (name not in GONE)
    indexed = set(await client.zrange("cb:index:room", 0, -1))
    indexed |= set(await client.zrange("cb:index:match", 0, -1))
    assert indexed == {data.id for name, data in stored.items() if name not in GONE} | {leased.id}
    await backend.close()
    await client.aclose()


async def test_redis_keys_live_for_their_retention_from_each_write(redis_url: str) -> None:
    import redis.asyncio as redis

    client = redis.Redis.from_url(redis_url, decode_responses=True)
    await client.flushdb()
    retention = Retention(finished=30 * DAY, lobbies=DAY, unfinished=7 * DAY)
    backend = RedisBackend(redis_url, retention)

    async def lifetimes(table_id: str) -> list[int]:
        parts = ("data", "state", "actions", "faults")
        found = [await client.ttl(f"cb:{{{table_id}}}:{part}") for part in parts]
        return [ttl for ttl in found if ttl != -2]  # -2: no such key (no fault noted yet)

    room = new_room("strict(deals=1)", "Asha", ["random", "random", "random"])
    await backend.create(room)
    # A lifetime in whole seconds, counted by Redis from the write: within a few seconds of
    # the setting however slow the machine (a lifetime, not a time this test measures).
    assert all(DAY - 60 < ttl <= DAY for ttl in await lifetimes(room.id))
    start(room)
    assert await backend.save(room)
    assert all(6 * DAY < ttl <= 7 * DAY for ttl in await lifetimes(room.id))
    assert await backend.append(room.id, room.rev, Step(0, "3", [{"fault": "x"}], PLAYING, None))
    assert len(await lifetimes(room.id)) == 4  # the actions and faults too
    assert all(6 * DAY < ttl <= 7 * DAY for ttl in await lifetimes(room.id))
    assert await backend.append(room.id, room.rev, Step(1, "3", [], FINISHED, None))
    assert all(29 * DAY < ttl <= 30 * DAY for ttl in await lifetimes(room.id))

    # Someone connected keeps a table from going, however short its time.
    lobby = new_room("strict", "Asha", [None, None, None])
    await backend.create(lobby)
    for part in ("data", "state"):
        await client.expire(f"cb:{{{lobby.id}}}:{part}", 60)
    await backend.set_presence(lobby.id, 0, "here", 1)
    assert all(DAY - 60 < ttl <= DAY for ttl in await lifetimes(lobby.id))
    assert 0 < await client.ttl(f"cb:{{{lobby.id}}}:presence") <= 30
    # So does a driver (a match against the computer has no presence; its driver a lease).
    match = new_match("strict", None, ["random"] * 3, None, {})
    await backend.create(match)
    await client.expire(f"cb:{{{match.id}}}:data", 60)
    assert await backend.lease(match.id, "here", 9.0)
    assert all(6 * DAY < ttl <= 7 * DAY for ttl in await lifetimes(match.id))

    # Tables stored before keys had lifetimes get theirs from the sweep, from their last
    # change; a table whose keys expired leaves the index.
    old = dataclasses.replace(table(FINISHED, 0, "match"), updated=time.time() - 10 * DAY)
    await backend.create(old)
    for part in ("data", "state"):
        await client.persist(f"cb:{{{old.id}}}:{part}")
    vanished = table(PLAYING, 0, "match")
    await backend.create(vanished)
    await client.delete(f"cb:{{{vanished.id}}}:data", f"cb:{{{vanished.id}}}:state")
    assert await backend.expire(retention.cutoffs(time.time())) == []
    assert all(19 * DAY < ttl <= 20 * DAY + 1 for ttl in await lifetimes(old.id))
    assert vanished.id not in await client.zrange("cb:index:match", 0, -1)
    assert {data.id for data in await backend.tables()} == {room.id, lobby.id, match.id, old.id}

    forever = RedisBackend(redis_url, Retention(finished=None))
    again = new_match("strict", None, ["random"] * 3, None, {})
    await forever.create(again)
    assert await forever.append(again.id, again.rev, Step(0, "3", [], FINISHED, None))
    assert await lifetimes(again.id) == [-1, -1, -1]  # kept for ever (no faults key)
    await forever.close()
    await backend.close()
    await client.aclose()


async def test_a_finished_match_is_exportable_until_it_expires(tmp_path: Path) -> None:
    app = create_app(tmp_path / "db.sqlite", None, FAST)
    tables = app.state.tables
    with running(app) as base:
        status, created = http(
            "POST",
            f"{base}/api/matches",
            {"opponents": ["random"] * 3, "speed": "instant", "rules": "strict(deals=1)"},
        )
        match_id, token = created["id"], created["token"]
        client = await Client.open(base, match_id, token, kind="matches")
        await client.play_until(lambda m: m["type"] == "state" and m["state"]["match_over"], 120)
        await client.close()
        for _ in range(500):  # until its socket's tasks have wound down
            if not on_server(app, tables.live[match_id].in_use):
                break
            await asyncio.sleep(0.02)
        held = {"matches": [{"id": match_id, "token": token}]}

        def served() -> tuple[int, int, list[Any]]:
            record, _ = http("GET", f"{base}/api/matches/{match_id}/record", token=token)
            replay, _ = http("GET", f"{base}/api/matches/{match_id}/replay", token=token)
            return record, replay, http("POST", f"{base}/api/matches/mine", held)[1]

        now = time.time()
        assert on_server(app, tables.expire(Retention(), now + 29 * DAY)) == []
        record, replay, listed = served()
        assert (record, replay, [m["id"] for m in listed]) == (200, 200, [match_id])
        assert on_server(app, tables.expire(Retention(), now + 31 * DAY)) == [match_id]
        status, answer = http("GET", f"{base}/api/matches/{match_id}/record", token=token)
        assert status == 404 and answer["error"] == "no such match"  # what the page says
        assert served() == (404, 404, [])


def challenge_attempt(day: str, profile: str) -> dict[str, Any]:
    return {"day": day, "profile": profile, "address": "a", "ranked": False, "why": None}


async def test_profiles_and_standings_leave_after_their_time(tmp_path: Path) -> None:
    """Public play's sweep (``retention.expire_public``): a profile unused for
    ``--keep-profiles`` goes with its ratings and plays; a day's standings go
    ``--keep-standings`` after the day's close; the rest stays."""
    from callbreak.web.retention import expire_public

    backend = LocalBackend(Store(tmp_path / "db.sqlite"))
    for name, used in (("old", NOW - 40 * DAY), ("recent", NOW - 2 * DAY)):
        await backend.create_profile(
            {
                "id": name,
                "token": name,
                "name": name,
                "avatar": "sun",
                "created": used,
                "updated": used,
            }
        )
        await backend.tally(name, "m", used, {"deals": 5})
    # NOW is 2033-05-18T03:33:20 UTC: 2033-05-08 closed at the start of 2033-05-09, more
    # than 9 days before; 2033-05-09 closed less than 9 days before.
    for day in ("2033-05-07", "2033-05-08", "2033-05-09", "2033-05-17"):
        await backend.begin_attempt(challenge_attempt(day, "recent"), 1)
    retention = Retention(profiles=30 * DAY, standings=9 * DAY)
    await expire_public(backend, retention, NOW)
    assert await backend.profile("old") is None and await backend.plays("old", 5) == []
    assert await backend.profile("recent") is not None
    kept = [d for d in ("2033-05-07", "2033-05-08", "2033-05-09", "2033-05-17")
            if await backend.attempt(d, "recent")]  # fmt: skip
    assert kept == ["2033-05-09", "2033-05-17"]
    await expire_public(backend, Retention(profiles=None, standings=None), NOW + 400 * DAY)
    assert await backend.profile("recent") is not None  # never: kept
    await backend.close()


async def test_redis_forgets_a_days_standings_after_their_time(redis_url: str) -> None:
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    backend = RedisBackend(redis_url, Retention(standings=9 * DAY))
    today = time.strftime("%Y-%m-%d", time.gmtime())
    await backend.begin_attempt(challenge_attempt(today, "p1"), 1)
    lifetime = await backend.client.ttl(f"cb:{{challenge:{today}}}:attempts")
    # Kept to the day's close (within a day from now) and nine days more.
    assert 9 * DAY < lifetime <= 10 * DAY
    await backend.close()
