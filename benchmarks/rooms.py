"""Load on the server: rooms of four people, on one process or two processes with Redis, and
people each playing three computers.

Run: ``python benchmarks/rooms.py [--rooms 200] [--think 1.0] [--mode one|redis|computers]``.
The server runs as `callbreak serve` subprocesses (and a `redis-server` for ``--mode redis``);
the scripted people are socket clients in this process (``callbreak.web.client``). For each
action, the time from sending it to the moment each person at the table has the state it made
is one sample; the report gives the median, 95th percentile and maximum, the actions per second
in all, and the servers' memory: resident size before the rooms, once they are played and
every socket is closed, and once the servers have let go of the finished tables
(``web.tables.IDLE_FINISHED`` after the last socket, looked for every ``EVICT_EVERY``), per
room and against the size before them. People wait ``--think`` seconds before each of their
actions (a person takes seconds; 0 plays at machine speed and finds where the server
saturates).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from callbreak.web.client import Client, http
from callbreak.web.retention import EVICT_EVERY
from callbreak.web.tables import IDLE_FINISHED


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def resident_kb(pid: int) -> int:
    """A process's resident memory in kB (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def start_server(
    folder: Path, name: str, redis_url: str | None
) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "callbreak",
        "serve",
        "--port",
        str(port),
        "--db",
        str(folder / f"{name}.db"),
        # Every scripted person comes from 127.0.0.1: the per-address limits are lifted.
        "--create-rate",
        "1000000",
        "--lookup-rate",
        "1000000",
        "--sockets",
        "1000000",
        "--message-rate",
        "1000000",
    ]
    if redis_url:
        command += ["--redis", redis_url]
    log = open(folder / f"{name}.log", "wb")  # noqa: SIM115  # kept for a failing run
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while True:
        try:
            if http("GET", f"{base}/api/profiles")[0] == 200:
                return process, base
        except OSError:
            pass
        if time.monotonic() > deadline or process.poll() is not None:
            raise SystemExit(f"the server {name} did not start")
        time.sleep(0.2)


def start_redis(folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("redis-server is not installed (apt-get install redis-server)")
    port = free_port()
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", str(folder)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(0.5)
    return process, f"redis://127.0.0.1:{port}/0"


def settled(processes: list[subprocess.Popen[bytes]]) -> int:
    """The processes' resident memory once it has not moved for two seconds (30 s at most)."""
    last, stable_since, deadline = -1, time.monotonic(), time.monotonic() + 30
    while time.monotonic() < deadline:
        now = sum(resident_kb(p.pid) for p in processes)
        if abs(now - last) > 512:
            last, stable_since = now, time.monotonic()
        elif time.monotonic() - stable_since >= 2:
            break
        time.sleep(0.25)
    return last


class Timing:
    """When each version of each table was sent, and when each person saw it."""

    def __init__(self) -> None:
        self.sent: dict[tuple[str, int], float] = {}
        self.samples: list[float] = []
        self.actions = 0

    def saw(self, table: str, version: int) -> None:
        started = self.sent.get((table, version))
        if started is not None:
            self.samples.append(time.perf_counter() - started)


async def person(client: Client, table: str, timing: Timing, think: float, stop: float) -> None:
    """Play this seat's turns with its first legal call or card until the match is over."""
    loop = asyncio.get_running_loop()
    acted: set[int] = set()
    while loop.time() < stop:
        text = await asyncio.wait_for(client.socket.recv(), 120)
        message = json.loads(text)
        if message["type"] != "state":
            continue
        state = message["state"]
        timing.saw(table, state["version"])
        if state["match_over"]:
            return
        if state["turn"] != client.seat or state["version"] in acted:
            continue
        acted.add(state["version"])
        if think:
            await asyncio.sleep(random.uniform(0.5, 1.5) * think)
        if state["legal_calls"]:
            action: dict[str, Any] = {"type": "call", "value": state["legal_calls"][0]}
        else:
            action = {"type": "play", "card": state["legal"][0]}
        timing.sent[(table, state["version"] + 1)] = time.perf_counter()
        timing.actions += 1
        await client.send(action | {"version": state["version"]})


async def rooms_load(
    bases: list[str], rooms: int, think: float, deals: int, seconds: float
) -> tuple[Timing, float]:
    """``rooms`` rooms of four people, each person on one of ``bases`` in turn."""
    timing = Timing()
    tasks = []
    clients = []
    for number in range(rooms):
        creator = bases[number % len(bases)]
        status, room = http(
            "POST",
            f"{creator}/api/rooms",
            {
                "name": "P0",
                "rules": f"strict(deals={deals})",
                "turn_seconds": 0,
                "speed": "instant",
            },
        )
        assert status == 201, room
        tokens = [room["token"]]
        for seat in (1, 2, 3):
            status, joined = http(
                "POST",
                f"{bases[(number + seat) % len(bases)]}/api/rooms/{room['room']}/join",
                {"name": f"P{seat}"},
            )
            assert status == 200, joined
            tokens.append(joined["token"])
        http("POST", f"{creator}/api/rooms/{room['room']}/start", token=room["token"])
        for seat, token in enumerate(tokens):
            client = await Client.open(bases[(number + seat) % len(bases)], room["room"], token)
            clients.append((client, room["room"]))
    started = time.perf_counter()
    stop = asyncio.get_running_loop().time() + seconds
    for client, code in clients:
        tasks.append(asyncio.create_task(person(client, code, timing, think, stop)))
    await asyncio.gather(*tasks, return_exceptions=True)
    elapsed = time.perf_counter() - started
    for client, _ in clients:
        await client.close()
    return timing, elapsed


async def computers_load(
    base: str, tables: int, think: float, seconds: float
) -> tuple[Timing, float]:
    """``tables`` people, each against three computers at instant speed."""

    timing = Timing()
    sockets = []
    for number in range(tables):
        status, created = http(
            "POST",
            f"{base}/api/matches",
            {"opponents": ["intermediate"] * 3, "speed": "instant", "seed": number},
        )
        assert status == 201, created
        client = await Client.open(base, created["id"], created["token"], kind="matches")
        sockets.append((client, created["id"]))
    started = time.perf_counter()
    stop = asyncio.get_running_loop().time() + seconds
    await asyncio.gather(
        *(person(client, code, timing, think, stop) for client, code in sockets),
        return_exceptions=True,
    )
    elapsed = time.perf_counter() - started
    for client, _ in sockets:
        await client.close()
    return timing, elapsed


def report(title: str, timing: Timing, elapsed: float, memory: str) -> None:
    samples = sorted(timing.samples)
    if not samples:
        print(f"{title}: no samples")
        return
    p95 = samples[min(len(samples) - 1, int(0.95 * len(samples)))]
    print(
        f"{title}: {timing.actions} actions in {elapsed:.1f} s ({timing.actions / elapsed:.0f}/s); "
        f"action to each person's state: median {statistics.median(samples) * 1000:.1f} ms, "
        f"95th percentile {p95 * 1000:.1f} ms, max {samples[-1] * 1000:.1f} ms "
        f"({len(samples)} samples); {memory}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=["one", "redis", "computers"], default="one")
    parser.add_argument("--rooms", type=int, default=200, help="rooms (or tables, for computers)")
    parser.add_argument("--think", type=float, default=1.0, help="seconds a person thinks, about")
    parser.add_argument("--deals", type=int, default=1, help="deals per room's match")
    parser.add_argument("--seconds", type=float, default=120.0, help="stop after this long")
    parser.add_argument("--keep", metavar="DIR", help="keep the servers' logs and files here")
    parser.add_argument(
        "--no-evict",
        dest="evict",
        action="store_false",
        help="do not wait for the servers to let go of the finished tables",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(args.keep or name)
        folder.mkdir(parents=True, exist_ok=True)
        processes = []
        redis_url = None
        redis_process = None
        if args.mode == "redis":
            redis_process, redis_url = start_redis(folder)
        count = 2 if args.mode == "redis" else 1
        servers = [start_server(folder, f"s{i}", redis_url) for i in range(count)]
        processes = [process for process, _ in servers]
        bases = [base for _, base in servers]
        # The servers load the players' compiled kernel in the background at start: wait until
        # their memory settles, so that it is not counted as the rooms'.
        before = settled(processes)
        try:
            if args.mode == "computers":
                timing, elapsed = asyncio.run(
                    computers_load(bases[0], args.rooms, args.think, args.seconds)
                )
            else:
                timing, elapsed = asyncio.run(
                    rooms_load(bases, args.rooms, args.think, args.deals, args.seconds)
                )
            after = settled(processes)
            memory = (
                f"servers' memory {before / 1024:.0f} MB before, {after / 1024:.0f} MB after "
                f"with every socket closed ({(after - before) / args.rooms:.0f} kB per room)"
            )
            if args.evict:
                # The finished tables go IDLE_FINISHED after their last socket, at the next
                # look (every EVICT_EVERY): wait for both, then for the memory to settle.
                time.sleep(IDLE_FINISHED + 2 * EVICT_EVERY)
                evicted = settled(processes)
                memory += (
                    f", {evicted / 1024:.0f} MB once the tables are let go of "
                    f"({(evicted - before) / args.rooms:.0f} kB per room, "
                    f"{100 * (evicted - before) / before:+.1f}% on before)"
                )
            if redis_url:
                import redis

                used = redis.Redis.from_url(redis_url).info("memory")["used_memory"]
                memory += f", Redis {used / 1024 / args.rooms:.1f} kB per room"
            what = {
                "one": "one process",
                "redis": "two processes on Redis",
                "computers": "people against computers",
            }
            report(
                f"{args.rooms} {'tables' if args.mode == 'computers' else 'rooms'}, "
                f"{what[args.mode]}, think {args.think} s",
                timing,
                elapsed,
                memory,
            )
        finally:
            for process in processes:
                process.terminate()
                process.wait(20)
            if redis_process is not None:
                redis_process.terminate()
                redis_process.wait(10)


if __name__ == "__main__":
    main()
