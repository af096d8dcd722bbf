"""Two `callbreak serve` processes on one real Redis serve one room: people on either process
play together, and when one process is killed mid-deal its people reconnect to the other and
finish the match, losing nothing."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from callbreak.record import check, from_data
from callbreak.web.client import Client, http
from callbreak.web.redis_backend import RedisBackend
from tests.fairness import hidden_cards_seen
from tests.helpers import free_port, redis_server

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def serve(url: str, folder: Path, name: str) -> tuple[subprocess.Popen[bytes], str]:
    """A `callbreak serve` process on a free port, kept in Redis at ``url``."""
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "callbreak",
            "serve",
            "--port",
            str(port),
            "--db",
            str(folder / f"{name}.db"),
            "--redis",
            url,
        ],
        stdout=subprocess.DEVNULL,
        stderr=(folder / f"{name}.log").open("wb"),  # kept for a failing run's report
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            if http("GET", f"{base}/api/profiles")[0] == 200:
                return process, base
        except OSError:
            pass
        assert process.poll() is None, f"{name} stopped"
        assert time.monotonic() < deadline, f"{name} did not start"
        time.sleep(0.2)


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


async def test_reading_from_a_known_copy_gives_the_whole_table(tmp_path: Path) -> None:
    """A process catching up reads only the actions after its copy's: the answer must be the
    table as a whole read gives it, through new actions, their faults and a lobby change."""
    from callbreak.web.model import new_match

    with redis_server() as url:
        backend = RedisBackend(url)
        try:
            data = new_match("strict", "Asha", ["beginner"] * 3, "7", {})
            await backend.create(data)
            known = await backend.load(data.id)
            assert known is not None
            fault = [{"seat": 1, "fault": "timeout"}]
            for version, code in enumerate(["3", "2", "4"]):
                assert await backend.append(data.id, version, code, fault, "playing", 12.5)
            assert not await backend.append(data.id, 1, "5", [], "playing", None)  # stale
            whole = await backend.load(data.id)
            assert await backend.load(data.id, known=known) == whole
            assert whole is not None and whole.actions == ["3", "2", "4"] and whole.faults[2]
            assert known.actions == []  # the known copy is left as it was
            whole.seats[1].name = "Bina"  # a lobby change: the whole table is read again
            assert await backend.save(whole)
            again = await backend.load(data.id, known=known)
            assert again is not None and again.seats[1].name == "Bina"
            assert again == await backend.load(data.id)
        finally:
            await backend.close()
