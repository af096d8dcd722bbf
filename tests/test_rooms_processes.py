"""Two `callbreak serve` processes on one real Redis serve one room: people on either process
play together, and when one process is killed mid-deal its people reconnect to the other and
finish the match, losing nothing."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from callbreak.record import check, from_data
from callbreak.web.client import Client, http
from callbreak.web.redis_backend import RedisBackend
from tests.fairness import hidden_cards_seen
from tests.helpers import RecordingSocket, redis_server, start_serve

pytestmark = pytest.mark.anyio


def serve(url: str, folder: Path, name: str, *options: str) -> tuple[subprocess.Popen[bytes], str]:
    """A `callbreak serve` process kept in Redis at ``url``: its output in ``name``.out, its
    log in ``name``.log (``tests.helpers.start_serve``)."""
    return start_serve(folder, "--redis", url, *options, name=name, apart=True)


async def test_two_processes_serve_one_room_and_survive_one_dying(tmp_path: Path) -> None:
    with redis_server() as url:
        first, a = serve(url, tmp_path, "a")
        second, b = serve(url, tmp_path, "b")
        try:
            await _play(url, first, a, b)
        finally:
            for process in (first, second):
                if process.poll() is None:
                    process.terminate()
                    process.wait(20)


async def _play(url: str, first: subprocess.Popen[bytes], a: str, b: str) -> None:
    status, created = http(
        "POST",
        f"{a}/api/rooms",
        {
            "name": "Asha",
            "rules": "strict(deals=2)",
            "seats": [None, None, "random"],
            "turn_seconds": 0,
            "speed": "instant",
        },
    )
    assert status == 201
    code = created["room"]
    _, bikash_seat = http("POST", f"{b}/api/rooms/{code}/join", {"name": "Bikash"})  # on B
    _, chandra_seat = http("POST", f"{a}/api/rooms/{code}/join", {"name": "Chandra"})
    status, lobby = http("GET", f"{b}/api/rooms/{code}")  # B sees what A did
    assert status == 200 and [s["name"] for s in lobby["seats"]][:3] == [
        "Asha",
        "Bikash",
        "Chandra",
    ]
    http("POST", f"{b}/api/rooms/{code}/start", token=created["token"])

    tokens = {
        "Asha": created["token"],
        "Bikash": bikash_seat["token"],
        "Chandra": chandra_seat["token"],
    }
    homes = {"Asha": a, "Bikash": b, "Chandra": a}
    received: dict[str, list[str]] = {name: [] for name in tokens}
    seats: dict[str, int | None] = {}
    killed = asyncio.Event()

    async def person(name: str) -> dict[str, Any]:
        base = homes[name]
        reconnects = 0
        while True:
            client = await Client.open(base, code, tokens[name])
            seats[name] = client.seat
            try:
                while (state := await client.my_turn(timeout=90)) is not None:
                    await client.act(state)
                    if state["version"] >= 20 and not killed.is_set():
                        killed.set()
                        first.send_signal(signal.SIGKILL)  # mid-deal, with no warning
                final = client.state
                assert final is not None
                received[name] += client.received
                await client.close()
                return final
            except (ConnectionClosed, OSError, TimeoutError):
                received[name] += client.received
                assert base == a and killed.is_set(), f"{name} lost {base} unexpectedly"
                base, reconnects = b, reconnects + 1  # the load balancer sends them to B
                assert reconnects <= 3

    finals = await asyncio.gather(*(person(name) for name in tokens))
    assert killed.is_set() and first.wait(10) == -signal.SIGKILL
    assert all(final["match_over"] for final in finals)
    assert len({tuple(final["totals"]) for final in finals}) == 1  # one match, seen alike
    status, record = http("GET", f"{b}/api/rooms/{code}/record")
    assert status == 200 and check(from_data(record)).valid
    assert check(from_data(record)).to_json()["totals"] == finals[0]["totals"]
    backend = RedisBackend(url)
    data = await backend.load(code)
    await backend.close()
    assert data is not None
    for name, messages in received.items():
        leaks = hidden_cards_seen(messages, seats[name], data.rules, data.seed, data.actions)
        assert leaks == [], f"{name} saw {leaks[:5]}"


async def test_a_reaction_reaches_the_table_through_the_other_process(tmp_path: Path) -> None:
    """Bina at the table through B, Asha through A: Asha's reaction is shown to Bina (the
    event goes between the processes; nothing of it is stored)."""
    with redis_server() as url:
        first, a = serve(url, tmp_path, "a")
        second, b = serve(url, tmp_path, "b")
        try:
            code, creator = _room(a, [None, "random", "random"])
            _, joined = http("POST", f"{b}/api/rooms/{code}/join", {"name": "Bina"})
            http("POST", f"{a}/api/rooms/{code}/start", token=creator)
            bina = await Client.open(b, code, joined["token"])
            await bina.until(lambda m: m["type"] == "state")
            asha = await Client.open(a, code, creator)
            await asha.until(lambda m: m["type"] == "state")
            await asha.send({"type": "react", "reaction": "good_luck"})
            heard = await bina.until(lambda m: m["type"] == "reaction")
            assert heard == {"type": "reaction", "seat": 0, "reaction": "good_luck"}
            for client in (asha, bina):
                await client.close()
        finally:
            for process in (first, second):
                process.terminate()
                process.wait(20)


async def test_reading_from_a_known_copy_gives_the_whole_table(tmp_path: Path) -> None:
    """A process catching up reads only the actions after its copy's: the answer must be the
    table as a whole read gives it, through new actions, their faults and a lobby change."""
    from callbreak.web.model import Step, new_match

    with redis_server() as url:
        backend = RedisBackend(url)
        try:
            data = new_match("strict", "Asha", ["beginner"] * 3, "7", {})
            await backend.create(data)
            known = await backend.load(data.id)
            assert known is not None
            fault = [{"seat": 1, "fault": "timeout"}]
            for version, code in enumerate(["3", "2", "4"]):
                assert await backend.append(data.id, 0, Step(version, code, fault, "playing", 12.5))
            assert not await backend.append(data.id, 0, Step(1, "5", [], "playing", None))  # stale
            whole = await backend.load(data.id)
            assert await backend.load(data.id, known=known) == whole
            assert whole is not None and whole.actions == ["3", "2", "4"] and whole.faults[2]
            assert known.actions == []  # the known copy is left as it was
            whole.seats[1].name = "Bina"  # a lobby change: the whole table is read again
            assert await backend.save(whole)
            again = await backend.load(data.id, known=known)
            assert again is not None and again.seats[1].name == "Bina"
            assert again == await backend.load(data.id)
            # An action made on the revision before that lobby change is refused: who holds
            # which seat may have changed with it.
            assert not await backend.append(data.id, 0, Step(3, "5", [], "playing", None))
            assert await backend.append(data.id, 1, Step(3, "5", [], "playing", None))
        finally:
            await backend.close()


def _room(base: str, seats: list[str | None], rules: str = "strict(deals=3)") -> tuple[str, str]:
    """A room made on ``base`` by Asha (no clock, instant computers): its code and her token."""
    status, created = http(
        "POST",
        f"{base}/api/rooms",
        {"name": "Asha", "rules": rules, "seats": seats, "turn_seconds": 0, "speed": "instant"},
    )
    assert status == 201, created
    return created["room"], created["token"]


def _saved_action(state: dict[str, Any]) -> dict[str, Any]:
    """The action Client.act would send for ``state``, kept to be sent later."""
    if state["legal_calls"]:
        return {"type": "call", "value": state["legal_calls"][0], "version": state["version"]}
    return {"type": "play", "card": state["legal"][0], "version": state["version"]}


async def _play_on(client: Client) -> None:
    """Play the client's seat for as long as the task runs."""
    with contextlib.suppress(TimeoutError, ConnectionClosed):
        await client.play_until(lambda _m: False, timeout=600)


async def test_a_revoked_seat_token_cannot_play_through_another_process(tmp_path: Path) -> None:
    """Issue 28, item 1: Bikash plays through B, leaves at his turn (through A), the creator
    gives his seat to Esha (through A); in deal 2, at Esha's turn, Bikash comes back on B with
    his old token and at once sends the action he kept from deal 1, then another on the version
    he is shown. B must read the room as it is now: he only watches, sees no card of Esha's
    hand, and nothing he sends is stored. Run several times: the race was 3 of 5."""
    with redis_server() as url:
        first, a = serve(url, tmp_path, "a")
        second, b = serve(url, tmp_path, "b")
        backend = RedisBackend(url)
        try:
            for run in range(4):  # each process takes each part in turn (joins are limited)
                await _revoked_token_comes_back(backend, *((a, b) if run % 2 else (b, a)))
        finally:
            await backend.close()
            for process in (first, second):
                process.terminate()
                process.wait(20)


async def _revoked_token_comes_back(backend: RedisBackend, a: str, b: str) -> None:
    code, creator = _room(a, [None, "random", "random"])
    status, bikash = http("POST", f"{b}/api/rooms/{code}/join", {"name": "Bikash"})
    assert status == 200 and bikash["seat"] == 1
    assert http("POST", f"{a}/api/rooms/{code}/start", token=creator)[0] == 200
    asha = await Client.open(a, code, creator)
    asha_plays = asyncio.get_running_loop().create_task(_play_on(asha))
    try:
        him = await Client.open(b, code, bikash["token"])
        assert him.seat == 1
        turn = await him.my_turn()
        assert turn is not None
        kept = _saved_action(turn)  # what he would have sent, sent much later
        await him.close()
        assert http("POST", f"{a}/api/rooms/{code}/leave", token=bikash["token"])[0] == 200
        status, _ = http("POST", f"{a}/api/rooms/{code}/seats/1", {"open": True}, token=creator)
        assert status == 200
        status, esha = http("POST", f"{a}/api/rooms/{code}/join", {"name": "Esha"})
        assert status == 200 and esha["seat"] == 1
        her = await Client.open(a, code, esha["token"])
        while True:  # Esha plays on until her turn in the second deal, and waits there
            state = await her.my_turn(timeout=60)
            assert state is not None
            if state["deal_number"] >= 2:
                break
            await her.act(state)
        waiting = state["version"]

        address = b.replace("http://", "ws://") + f"/ws/rooms/{code}"
        back = Client(await connect(address, max_size=2**20))
        await back.send({"type": "hello", "token": bikash["token"]})
        await back.send(kept)  # at once, before any answer
        sent = 1
        welcome = await back.until(lambda m: m["type"] == "welcome")
        with contextlib.suppress(TimeoutError):
            await back.until(lambda m: m["type"] == "state", timeout=5)
        if back.state is not None:  # whatever he is shown, he tries to act on it
            await back.send(_saved_action_or_call(back.state))
            sent += 1
        # B answers each action it refuses, once handled: those answers are waited for, not a
        # time for nothing to happen. An action stored instead is found below.
        if _refused(back) < sent:
            with contextlib.suppress(TimeoutError):
                await back.until(lambda _m: _refused(back) >= sent, timeout=10)
        await back.close()

        data = await backend.load(code)
        assert data is not None
        assert data.seats[1].name == "Esha" and data.seat_of(bikash["token"]) is None
        leaks = hidden_cards_seen(back.received, None, data.rules, data.seed, data.actions)
        assert data.version == waiting, f"an action from a revoked token was stored; {leaks}"
        assert leaks == [], f"the revoked token was shown {leaks[:5]}"
        assert welcome["seat"] is None, "a revoked token was given its old seat back"
        await her.act(state)  # Esha's turn was hers all along
        await her.until(lambda m: m["type"] == "state" and m["state"]["version"] > waiting)
        await her.close()
    finally:
        asha_plays.cancel()
        await asha.close()


def _refused(client: Client) -> int:
    """How many of ``client``'s actions it was told were refused so far (any error but the
    one that says, on joining, that its token holds no seat)."""
    errors = [json.loads(text) for text in client.received if '"error"' in text]
    return sum(1 for error in errors if error["type"] == "error" and error["code"] != "watching")


def _saved_action_or_call(state: dict[str, Any]) -> dict[str, Any]:
    """An action for ``state`` as if it were one's turn: a call of 3 or the first hand card."""
    if state.get("phase") == "calling":
        return {"type": "call", "value": 3, "version": state["version"]}
    hand = state.get("hand") or ["AS"]
    return {"type": "play", "card": hand[0], "version": state["version"]}


async def test_a_valid_token_is_seated_by_every_process(tmp_path: Path) -> None:
    """Issue 28, item 2: seat 1 joins through B (B now holds a copy of the room), seat 2
    through A; seat 2 then connects to B. B must check the token against the room as stored
    now, not its copy: seat 2 is welcomed to seat 2, and the cover never plays for it."""
    with redis_server() as url:
        first, first_base = serve(url, tmp_path, "a")
        second, second_base = serve(url, tmp_path, "b")
        try:
            for run in range(3):  # each process takes each part in turn (joins are limited)
                a, b = (first_base, second_base) if run % 2 else (second_base, first_base)
                code, creator = _room(a, [None, None, "random"], rules="strict(deals=1)")
                status, one = http("POST", f"{b}/api/rooms/{code}/join", {"name": "Bikash"})
                assert status == 200 and one["seat"] == 1
                status, two = http("POST", f"{a}/api/rooms/{code}/join", {"name": "Chandra"})
                assert status == 200 and two["seat"] == 2
                chandra = await Client.open(b, code, two["token"])
                assert chandra.seat == 2, "a valid token was made a spectator by a stale copy"
                bikash = await Client.open(b, code, one["token"])
                asha = await Client.open(a, code, creator)
                assert (bikash.seat, asha.seat) == (1, 0)
                assert http("POST", f"{a}/api/rooms/{code}/start", token=creator)[0] == 200
                finals = await asyncio.gather(
                    *(_finish(client) for client in (asha, bikash, chandra))
                )
                assert all(final["match_over"] for final in finals)
                status, record = http("GET", f"{a}/api/rooms/{code}/record")
                assert status == 200
                covered = [
                    fault
                    for deal in record["deals"]
                    for fault in deal.get("faults", [])
                    if fault.get("seat") == 2
                ]
                assert covered == [], f"the cover played for a connected person: {covered[:3]}"
        finally:
            for process in (first, second):
                process.terminate()
                process.wait(20)


async def _finish(client: Client) -> dict[str, Any]:
    """Play the client's seat to the end of the match; the last state."""
    while (state := await client.my_turn(timeout=90)) is not None:
        await client.act(state)
    final = client.state
    assert final is not None
    await client.close()
    return final


async def test_an_action_from_a_seat_given_away_meanwhile_is_not_stored() -> None:
    """Two copies of one room on one Redis, as two processes hold them. Through A the person
    in seat 1 leaves and the seat is given to someone else; B has not heard. An action B's
    connection sends for seat 1 on B's copy (its version still current) must not be stored: the
    append checks the lobby's revision, and B then gives the connection the seat its token
    holds now (none)."""
    from callbreak.game import Call
    from callbreak.web.hub import Connection
    from callbreak.web.model import StaleAction, join, leave, new_room, open_seat, start
    from callbreak.web.tables import LiveTable

    with redis_server() as url:
        backend = RedisBackend(url)
        try:
            data = new_room("strict", "Asha", [None, "random", "random"])
            seat, token = join(data, "Bikash")
            start(data)
            await backend.create(data)
            copy = await backend.load(data.id)
            assert copy is not None and seat == 1
            a = LiveTable(copy, backend)
            while a.state.match.deal.turn != 1:  # the seats before Bikash call
                await a.act(
                    a.state.match.deal.turn or 0,
                    Call(a.state.match.rules.min_call),
                    a.state.version,
                )
            copy = await backend.load(data.id)
            assert copy is not None
            b = LiveTable(copy, backend)  # B's copy: Bikash to call, his connection here
            socket: Any = RecordingSocket()
            b.hub.connections[socket] = Connection(socket, 1, token)
            await a.change(lambda room: leave(room, 1))
            await a.change(lambda room: open_seat(room, 1))
            assert (await a.change(lambda room: join(room, "Esha")))[0] == 1
            version = a.state.version
            assert (
                b.state.version == version and b.state.data.rev < a.state.data.rev
            )  # B missed the lobby only
            with pytest.raises(StaleAction):
                await b.act(1, Call(b.state.match.rules.min_call), version, by=socket)
            stored = await backend.load(data.id)
            assert stored is not None and stored.version == version  # nothing stored
            assert b.hub.seat_of(socket) is None  # and the connection no longer holds the seat
            await asyncio.sleep(0)  # let the connection's writer send what was queued
            assert any(
                json.loads(text) == {"type": "welcome", "seat": None} for text in socket.sent
            )
        finally:
            await backend.close()


# --- a process that hangs, and one that is stopped (issue 32, item 3) --------------------------


async def test_a_stopped_process_is_noticed_through_its_pings(tmp_path: Path) -> None:
    """A process frozen with SIGSTOP closes nothing: its clients learn it is gone only because
    its pings stop. Asha, on A, hears pings while the table is quiet and is not taken in by the
    quiet; A is stopped; she notices the silence within a few intervals (on a generous
    deadline), reconnects to B and finishes the match there with Bikash."""
    with redis_server() as url:
        first, a = serve(url, tmp_path, "a", "--ping-seconds", "1")
        second, b = serve(url, tmp_path, "b", "--ping-seconds", "1")
        try:
            code, creator = _room(a, [None, "random", "random"], rules="strict(deals=1)")
            status, bikash_seat = http("POST", f"{b}/api/rooms/{code}/join", {"name": "Bikash"})
            assert status == 200
            assert http("POST", f"{b}/api/rooms/{code}/start", token=creator)[0] == 200
            asha = await Client.open(a, code, creator, watch=True)
            bikash = await Client.open(b, code, bikash_seat["token"], watch=True)
            # Nothing happens at the table for a while (Bikash and Asha wait): pings only.
            with contextlib.suppress(TimeoutError):
                await asha.until(lambda _m: False, timeout=4)
            assert asha.pings >= 2  # a quiet server is heard, not taken for dead
            bikash_plays = asyncio.get_running_loop().create_task(_finish(bikash))
            while (state := await asha.my_turn(timeout=60)) is not None:
                await asha.act(state)
                if state["version"] >= 10:
                    break
            first.send_signal(signal.SIGSTOP)
            stopped = time.monotonic()
            with pytest.raises(TimeoutError):
                await asha.until(lambda _m: False, timeout=60)
            # Silent for 2.5 pings of 1 s: noticed well before the websockets library's own
            # keepalive (20 s and 20 s) or any turn's wait would have given up.
            assert time.monotonic() - stopped < 15
            again = await Client.open(b, code, creator, watch=True)
            assert again.seat == 0
            finals = await asyncio.gather(_finish(again), bikash_plays)
            assert all(final["match_over"] for final in finals)
            assert len({tuple(final["totals"]) for final in finals}) == 1
        finally:
            first.send_signal(signal.SIGCONT)
            for process in (first, second):
                process.terminate()
                process.wait(20)


async def test_sigterm_hands_the_room_over_within_the_bound(tmp_path: Path) -> None:
    """SIGTERM to A mid-deal: A gives up its lease on the room (so B drives it at once, not
    when the lease would run out), closes every socket with 1012 ("restarting: reconnect"),
    and exits within --drain-seconds (on a generous deadline). Its people reconnect to B and
    finish there, every action kept. A's JSON log lines hold none of the tokens."""
    import redis

    with redis_server() as url:
        first, a = serve(url, tmp_path, "a", "--drain-seconds", "5", "--log-json")
        second, b = serve(url, tmp_path, "b", "--log-json")
        store = redis.Redis.from_url(url, decode_responses=True)
        try:
            code, creator = _room(a, [None, None, "random"], rules="strict(deals=2)")
            _, bikash = http("POST", f"{a}/api/rooms/{code}/join", {"name": "Bikash"})
            _, chandra = http("POST", f"{a}/api/rooms/{code}/join", {"name": "Chandra"})
            assert http("POST", f"{a}/api/rooms/{code}/start", token=creator)[0] == 200
            tokens = [creator, bikash["token"], chandra["token"]]
            closed: list[int | None] = []
            terminated = asyncio.Event()
            lease: list[str | None] = []

            async def person(token: str) -> dict[str, Any]:
                client = await Client.open(a, code, token)
                try:
                    while (state := await client.my_turn(timeout=60)) is not None:
                        await client.act(state)
                        if state["version"] >= 12 and not terminated.is_set():
                            terminated.set()
                            lease.append(store.get(f"cb:{{{code}}}:lease"))
                            first.send_signal(signal.SIGTERM)
                except ConnectionClosed as gone:
                    closed.append(gone.rcvd.code if gone.rcvd else None)
                    client = await Client.open(b, code, token)  # the load balancer: to B
                return await _finish(client)

            finals = await asyncio.gather(*(person(token) for token in tokens))
            deadline = time.monotonic() + 30  # --drain-seconds 5, on a generous deadline
            while first.poll() is None:
                assert time.monotonic() < deadline, "A did not stop within its bound"
                await asyncio.sleep(0.1)
            # Read as soon as A is gone: a lease not given up would still be A's here.
            after = store.get(f"cb:{{{code}}}:lease")
            # uvicorn raises the signal again once its shutdown is done: dying of SIGTERM is the
            # end of a graceful stop too (its words in a.out say the drain ran).
            assert first.returncode in (0, -signal.SIGTERM)
            assert lease and lease[0] is not None and lease[0].split(":")[1] == str(first.pid)
            assert after is None or after.split(":")[1] == str(second.pid)
            assert closed == [1012, 1012, 1012]
            assert all(final["match_over"] for final in finals)
            assert len({tuple(final["totals"]) for final in finals}) == 1
            status, record = http("GET", f"{b}/api/rooms/{code}/record")
            assert status == 200 and check(from_data(record)).valid
            assert "Stopping: handing the rooms over" in (tmp_path / "a.out").read_text()
            for name in ("a", "b"):
                for line in (tmp_path / f"{name}.log").read_text().splitlines():
                    entry = json.loads(line)  # every line is one JSON object
                    assert not any(token in line for token in tokens), entry
        finally:
            store.close()
            for process in (first, second):
                if process.poll() is None:
                    process.terminate()
                process.wait(20)


async def test_the_pubsub_reader_starts_only_once_subscribed() -> None:
    """Many tables opening at once on a fresh process: the reader of Redis' pub/sub must start
    after the subscription, once. It used to start on a pub/sub still being subscribed
    ("RuntimeError: pubsub connection not set"), a task that died with nobody to hear it
    ("Task exception was never retrieved")."""
    import gc

    loop = asyncio.get_running_loop()
    problems: list[dict[str, Any]] = []
    previous = loop.get_exception_handler()
    loop.set_exception_handler(lambda _loop, context: problems.append(context))
    try:
        with redis_server() as url:
            for _ in range(3):
                backend = RedisBackend(url)
                try:
                    async with contextlib.AsyncExitStack() as stack:
                        queues = await asyncio.gather(
                            *(stack.enter_async_context(backend.events(f"T{i}")) for i in range(8))
                        )
                        await backend.publish("T5", {"type": "action"})
                        assert await asyncio.wait_for(queues[5].get(), 10) == {"type": "action"}
                        await asyncio.sleep(0.2)
                finally:
                    await backend.close()
                del backend
                gc.collect()
                await asyncio.sleep(0)
    finally:
        loop.set_exception_handler(previous)
    assert problems == []
