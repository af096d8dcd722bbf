"""Load on the server: rooms of four people, on one process or two processes with Redis, and
people each playing three computers.

Run: ``python benchmarks/rooms.py [--rooms 200] [--think 1.0] [--mode one|redis|computers]``.
The server runs as `callbreak serve` subprocesses (and a `redis-server` for ``--mode redis``);
the scripted people are socket clients in this process (``callbreak.web.client``). For each
action, the time from sending it to the moment each person at the table has the state it made
is one sample; the report gives the median, 95th percentile and maximum, the actions per second
in all, the servers' CPU time per action (the work they did, which another load on a shared
machine lengthens far less than the latencies), and the servers' memory: before the rooms,
once they are played and every socket is closed, and once the servers have let go of the
finished tables (``web.tables.IDLE_FINISHED`` after the last socket, looked for every
``EVICT_EVERY``), per room and against the size before them; resident size, and with
``--tracemalloc`` the Python heap as tracemalloc counts it. ``--rounds 2`` plays the rooms
twice, to see whether memory keeps growing; ``--warm N`` plays N rooms first, so that what the
first rooms load once (modules, buffers, caches) is not counted per room. People wait
``--think`` seconds before each of their actions (a person takes seconds; 0 plays at machine
speed and finds where the server saturates).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from callbreak.web.client import Client, http
from callbreak.web.retention import EVICT_EVERY
from callbreak.web.tables import IDLE_FINISHED, IDLE_UNFINISHED


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    """A process's CPU time so far, user and system, all its threads (Linux): the work the
    server did, which another load on the machine lengthens far less than the latencies."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def resident_kb(pid: int) -> int:
    """A process's resident memory in kB (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


# `callbreak serve` under tracemalloc, which writes the Python heap's traced size to the file
# CALLBREAK_TRACED names whenever it gets SIGUSR1 (--tracemalloc).
TRACED_SERVE = """
import os, signal, sys, tracemalloc
from pathlib import Path
from callbreak.cli import main

def report(*_):
    Path(os.environ["CALLBREAK_TRACED"]).write_text(str(tracemalloc.get_traced_memory()[0]))

signal.signal(signal.SIGUSR1, report)
sys.exit(main(sys.argv[1:]))
"""


def traced_kb(process: subprocess.Popen[bytes], folder: Path, name: str) -> int:
    """The Python heap of a server run with --tracemalloc, in kB (as tracemalloc counts it)."""
    path = folder / f"{name}.traced"
    path.unlink(missing_ok=True)
    process.send_signal(signal.SIGUSR1)
    deadline = time.monotonic() + 10
    while not path.exists() or not path.read_text():
        if time.monotonic() > deadline:
            raise SystemExit(f"the server {name} did not say its traced memory")
        time.sleep(0.05)
    return int(path.read_text()) // 1024


def start_server(
    folder: Path, name: str, redis_url: str | None, traced: bool = False
) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    launch = ["-X", "tracemalloc=1", "-c", TRACED_SERVE] if traced else ["-m", "callbreak"]
    command = [
        sys.executable,
        *launch,
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
    environment = os.environ | {"CALLBREAK_TRACED": str(folder / f"{name}.traced")}
    process = subprocess.Popen(command, stdout=log, stderr=log, env=environment)
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


def ready(log: Path) -> None:
    """Wait until the server of ``log`` says its computer players are loaded (3 minutes)."""
    deadline = time.monotonic() + 180
    while "computer players are ready" not in log.read_text(errors="replace"):
        if time.monotonic() > deadline:
            raise SystemExit(f"the server of {log} did not load its players")
        time.sleep(0.5)


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
        self.tables: set[str] = set()
        self.finished: set[str] = set()
        """The tables whose match a person saw end: only those are let go of after
        IDLE_FINISHED; one cut off by --seconds stays for IDLE_UNFINISHED."""

    def saw(self, table: str, version: int) -> None:
        started = self.sent.get((table, version))
        if started is not None:
            self.samples.append(time.perf_counter() - started)


async def person(client: Client, table: str, timing: Timing, think: float, stop: float) -> None:
    """Play this seat's turns with its first legal call or card until the match is over."""
    loop = asyncio.get_running_loop()
    acted: set[int] = set()
    timing.tables.add(table)
    while loop.time() < stop:
        text = await asyncio.wait_for(client.socket.recv(), 120)
        message = json.loads(text)
        if message["type"] != "state":
            continue
        state = message["state"]
        timing.saw(table, state["version"])
        if state["match_over"]:
            timing.finished.add(table)
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


def report(title: str, timing: Timing, elapsed: float) -> None:
    samples = sorted(timing.samples)
    if not samples:
        print(f"{title}: no samples")
        return
    p95 = samples[min(len(samples) - 1, int(0.95 * len(samples)))]
    print(
        f"{title}: {timing.actions} actions in {elapsed:.1f} s ({timing.actions / elapsed:.0f}/s); "
        f"action to each person's state: median {statistics.median(samples) * 1000:.1f} ms, "
        f"95th percentile {p95 * 1000:.1f} ms, max {samples[-1] * 1000:.1f} ms "
        f"({len(samples)} samples); {len(timing.finished)} of {len(timing.tables)} matches "
        "played to the end"
    )
    if len(timing.finished) < len(timing.tables):
        print(
            "  not every match ended within --seconds: the unfinished tables stay in memory "
            f"{IDLE_UNFINISHED:.0f} s after their last socket, so the memory after eviction "
            "counts them (raise --seconds)"
        )


class Memory:
    """The servers' memory at each step: resident size, and the Python heap as tracemalloc
    counts it when the servers run under it (``--tracemalloc``)."""

    def __init__(self, processes: list[subprocess.Popen[bytes]], folder: Path, traced: bool):
        self.processes, self.folder, self.traced = processes, folder, traced
        self.lines: list[str] = []
        self.first: tuple[int, int | None] | None = None

    def measure(self, step: str, rooms: int) -> None:
        """Note the memory once it has settled, against the first step's, per room."""
        resident = settled(self.processes)
        heap = (
            sum(traced_kb(p, self.folder, f"s{i}") for i, p in enumerate(self.processes))
            if self.traced
            else None
        )
        if self.first is None:
            self.first = (resident, heap)
        line = f"{step}: resident {resident / 1024:.0f} MB"
        line += self._against(resident, self.first[0], rooms)
        if heap is not None and self.first[1] is not None:
            line += f"; Python heap {heap / 1024:.1f} MB" + self._against(
                heap, self.first[1], rooms
            )
        self.lines.append(line)

    @staticmethod
    def _against(now: int, first: int, rooms: int) -> str:
        if not rooms:
            return ""
        return f" ({(now - first) / rooms:+.0f} kB per room, {100 * (now - first) / first:+.1f}%)"


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
    parser.add_argument(
        "--rounds", type=int, default=1, help="play the rooms this many times, one after another"
    )
    parser.add_argument("--warm", type=int, default=0, help="rooms played before measuring")
    parser.add_argument(
        "--tracemalloc",
        action="store_true",
        help="run the servers under tracemalloc and report their Python heap (slower)",
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
        servers = [start_server(folder, f"s{i}", redis_url, args.tracemalloc) for i in range(count)]
        processes = [process for process, _ in servers]
        bases = [base for _, base in servers]
        memory = Memory(processes, folder, args.tracemalloc)
        # The servers load the players' compiled kernel in the background at start: wait until
        # they say it is loaded, so that it is not counted as the rooms'.
        for number in range(count):
            ready(folder / f"s{number}.log")
        memory.measure("at start", 0)
        try:
            if args.warm:
                asyncio.run(rooms_load(bases, args.warm, args.think, args.deals, args.seconds))
                if args.evict:
                    time.sleep(IDLE_FINISHED + 2 * EVICT_EVERY)
                memory.first = None
                memory.measure(f"after {args.warm} rooms to warm up (before)", 0)
            for round_ in range(1, args.rounds + 1):
                cpu = sum(cpu_seconds(process.pid) for process in processes)
                if args.mode == "computers":
                    timing, elapsed = asyncio.run(
                        computers_load(bases[0], args.rooms, args.think, args.seconds)
                    )
                else:
                    timing, elapsed = asyncio.run(
                        rooms_load(bases, args.rooms, args.think, args.deals, args.seconds)
                    )
                cpu = sum(cpu_seconds(process.pid) for process in processes) - cpu
                played = round_ * args.rooms
                memory.measure(f"after {played} rooms, every socket closed", played)
                if args.evict:
                    # The finished tables go IDLE_FINISHED after their last socket, at the
                    # next look (every EVICT_EVERY): wait for both.
                    time.sleep(IDLE_FINISHED + 2 * EVICT_EVERY)
                    memory.measure(f"after {played} rooms, their tables let go of", played)
                if redis_url:
                    import redis

                    used = redis.Redis.from_url(redis_url).info("memory")["used_memory"]
                    memory.lines.append(f"Redis {used / 1024 / played:.1f} kB per room")
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
                )
                per = 1000 * cpu / max(timing.actions, 1)
                print(f"servers' CPU: {cpu:.1f} s for {timing.actions} actions ({per:.2f} ms each)")
            print("servers' memory (all processes):", *memory.lines, sep="\n  ")
        finally:
            for process in processes:
                process.terminate()
                process.wait(20)
            if redis_process is not None:
                redis_process.terminate()
                redis_process.wait(10)


if __name__ == "__main__":
    main()
