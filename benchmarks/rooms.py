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

The scripted people share one machine with the servers, so the report also says what they
spent while the rooms played, to tell whose figure a latency is: the clients' CPU per action
and share of a core, how late their timers fired (each think, and a ticker every 0.1 s: an
event loop that is behind fires them late and delays every message it reads), the bytes they
read from their sockets per action (as on the wire, compressed or not) and the messages' size
once decoded; the servers' share of a core and the whole machine's busy share. Its last line
names the bottleneck: the clients (a client process near a whole core, or timers late by a
quarter of the 95th percentile while the machine had cores to spare), the server (a server
process near a whole core), the machine (its cores busy with other work while neither was), or
neither. ``--clients N`` shares the
rooms among N client processes, started together, when one saturates first; ``--serve
"OPTIONS"`` passes more options to `callbreak serve` (``--serve "--deflate off"``).

CPU seconds per action move with the machine's other load (a shared core's caches, a busier
loop doing more per wake-up). ``--callgrind`` runs the servers under Valgrind's callgrind
(``valgrind`` on the PATH; Debian's ``valgrind`` package, not a project dependency), counting
nothing until the rooms are ready, then every instruction the servers execute while they play:
the report's "instructions per action" is the same on a quiet machine and a loaded one, so
that two commits compare without taking turns on a quiet machine. The servers run about 50
times slower under it: keep the rooms few and ``--think 0`` (``--rooms 20 --think 0 --deals
2`` plays 2,240 actions in a few minutes), and read only the instructions of such a run, not
its latencies (nor its memory, which is valgrind's). One client process only.

``--idle SECONDS``: the rooms are opened and every person connected, and nobody acts; the
report says what the servers spent on them meanwhile per table and second (CPU, and with
``--callgrind`` instructions): what keeping a table costs besides its actions (each process's
looks at the store, pings to quiet sockets).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection

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


LIFTED = (
    "--create-rate",
    "1000000",
    "--lookup-rate",
    "1000000",
    "--sockets",
    "1000000",
    "--message-rate",
    "1000000",
)
"""Every scripted person comes from 127.0.0.1: the per-address limits lifted."""


def serve_command(
    port: int, database: Path, *options: str, launch: tuple[str, ...] = ("-m", "callbreak")
) -> list[str]:
    """The command line of a `callbreak serve` on ``port`` with its database at ``database``
    (``launch``: how Python starts the command line, ``-m callbreak`` unless traced)."""
    return [sys.executable, *launch, "serve", "--port", str(port), "--db", str(database), *options]


def start_server(
    folder: Path,
    name: str,
    redis_url: str | None,
    traced: bool = False,
    extra: tuple[str, ...] = (),
    counted: bool = False,
) -> tuple[subprocess.Popen[bytes], str]:
    """A `callbreak serve` process with the limits lifted, its database and log ``name`` in
    ``folder``, on Redis when ``redis_url``; its process and address once it answers (its
    computer players may still be loading: :func:`ready`)."""
    port = free_port()
    launch = ("-X", "tracemalloc=1", "-c", TRACED_SERVE) if traced else ("-m", "callbreak")
    redis = ("--redis", redis_url) if redis_url else ()
    options = (*LIFTED, *redis, *extra)
    command = serve_command(port, folder / f"{name}.db", *options, launch=launch)
    if counted:
        command = [*callgrind_command(folder, name), *command]
    log = open(folder / f"{name}.log", "wb")  # noqa: SIM115  # kept for a failing run
    environment = os.environ | {"CALLBREAK_TRACED": str(folder / f"{name}.traced")}
    process = subprocess.Popen(command, stdout=log, stderr=log, env=environment)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + (600 if counted else 90)
    while True:
        try:
            if http("GET", f"{base}/api/profiles")[0] == 200:
                return process, base
        except OSError:
            pass
        if time.monotonic() > deadline or process.poll() is not None:
            raise SystemExit(f"the server {name} did not start")
        time.sleep(0.2)


def callgrind_command(folder: Path, name: str) -> list[str]:
    """The start of a command that runs a server under callgrind, counting nothing until told
    (:class:`Instructions`)."""
    binary = shutil.which("valgrind")
    if binary is None:
        raise SystemExit("--callgrind needs valgrind (apt-get install valgrind)")
    out = folder / f"{name}.callgrind"
    return [binary, "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}"]


class Instructions:
    """The instructions the servers run under callgrind execute between :meth:`start` and
    :meth:`count`, counted by callgrind itself (``callgrind_control``): the same work gives the
    same count however loaded the machine is."""

    def __init__(self, pids: list[int]) -> None:
        self.pids = pids
        self.on = False
        self.threads: list[int] = []
        """The last count's instructions of each thread that ran (callgrind's order: the
        event loop's first, then the threads in the order they started; every server's)."""

    def _control(self, *args: str) -> str:
        result = subprocess.run(
            ["callgrind_control", *args, *map(str, self.pids)],
            capture_output=True,
            text=True,
            check=True,
            timeout=600,
        )
        return result.stdout

    def start(self) -> None:
        """Count from now on (the first time, the servers' instrumentation is switched on)."""
        if not self.on:
            self._control("--instr=on")
            self.on = True
        self._control("--zero")

    def count(self) -> int:
        """The instructions counted since :meth:`start`, every thread of every server; what
        they were spent on is dumped beside the servers' logs (``--keep``), for
        ``callgrind_annotate``."""
        total = 0
        self.threads = []
        for line in self._control("-e", "Ir").splitlines():
            words = line.split()
            if len(words) == 3 and words[0] == "Th":
                total += int(words[2].replace(",", ""))
                self.threads.append(int(words[2].replace(",", "")))
        self._control("--dump=played")  # after the count: a dump sets the counters to zero
        return total


COUNTED: list[Instructions] = []
"""The servers' instruction counter, with --callgrind (one client process only)."""


def counted_pid(process: subprocess.Popen[bytes]) -> int:
    """The process that runs the server: ``process`` itself, or, when ``valgrind`` is a wrapper
    script (Debian's), the valgrind it started."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                command = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            mine = entry.name == str(process.pid) or stat[1] == str(process.pid)
            program = Path(command.split(b"\0")[0].decode()).name
            if mine and b"--tool=callgrind" in command and program not in ("sh", "dash", "bash"):
                return int(entry.name)
        time.sleep(0.1)
    raise SystemExit("the server under callgrind was not found")


def ready(log: Path, seconds: float = 180) -> None:
    """Wait until the server of ``log`` says its computer players are loaded."""
    deadline = time.monotonic() + seconds
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
    """When each version of each table was sent, and when each person saw it; and what the
    clients themselves spent doing it (their CPU, their timers' lateness, the bytes they read),
    so that the report can say whether a figure is the server's or the clients'."""

    def __init__(self) -> None:
        self.sent: dict[tuple[str, int], float] = {}
        self.samples: list[float] = []
        self.actions = 0
        self.tables: set[str] = set()
        self.finished: set[str] = set()
        """The tables whose match a person saw end: only those are let go of after
        IDLE_FINISHED; one cut off by --seconds stays for IDLE_UNFINISHED."""
        self.lags: list[float] = []
        """How late the clients' timers fired (a think, or the ticker's tenth of a second):
        a client process whose event loop is full fires them late, and its latencies with
        them."""
        self.elapsed = 0.0
        self.client_cpu: list[float] = []
        """Each client process's CPU seconds while the rooms played."""
        self.read_bytes = 0
        """Bytes the clients read from their sockets while the rooms played (the wire's,
        compressed or not)."""
        self.text_bytes = 0
        """Bytes of the messages' text as the clients decoded it (after any inflating)."""
        self.server_cpu: list[float] = []
        """Each server process's CPU seconds while the rooms played."""
        self.machine: tuple[float, float] = (0.0, 0.0)
        """The whole machine's busy and total CPU seconds (all cores) while the rooms played."""
        self.instructions: int | None = None
        """The instructions the servers executed while the rooms played (--callgrind)."""
        self.threads: list[int] = []
        """The same, of each of the servers' threads that ran."""

    def saw(self, table: str, version: int) -> None:
        started = self.sent.get((table, version))
        if started is not None:
            self.samples.append(time.perf_counter() - started)

    def merge(self, other: Timing) -> None:
        """Add the figures of another client process's rooms (played at the same time)."""
        self.samples += other.samples
        self.actions += other.actions
        self.tables |= other.tables
        self.finished |= other.finished
        self.lags += other.lags
        self.elapsed = max(self.elapsed, other.elapsed)
        self.client_cpu += other.client_cpu
        self.read_bytes += other.read_bytes
        self.text_bytes += other.text_bytes
        self.server_cpu = self.server_cpu or other.server_cpu
        self.machine = self.machine if self.machine[1] else other.machine
        self.instructions = self.instructions or other.instructions


WIRE = [0]
"""Bytes this process's sockets have received from the servers, as they came on the wire
(compressed when per-message deflate is on)."""
_received = ClientConnection.data_received


def _counted(self: ClientConnection, data: bytes) -> None:
    WIRE[0] += len(data)
    _received(self, data)


# Counted where the bytes arrive, for every client of this process (and of the --clients
# processes, which import this module anew): the kernel's own count of reads misses recv().
ClientConnection.data_received = _counted  # type: ignore[method-assign,assignment]


def machine_cpu() -> tuple[float, float]:
    """The machine's busy and total CPU seconds so far, all cores (Linux ``/proc/stat``)."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]  # idle and waiting for I/O
    total = sum(values[:8])  # guest time is counted in user already
    tick = os.sysconf("SC_CLK_TCK")
    return (total - idle) / tick, total / tick


class Played:
    """Measures what the clients and the servers spend from the rooms' start to their end."""

    def __init__(self, timing: Timing, servers: list[int]) -> None:
        self.timing, self.servers = timing, servers

    def __enter__(self) -> Played:
        self.started = time.perf_counter()
        self.cpu = time.process_time()
        self.read = WIRE[0]
        self.server = [cpu_seconds(pid) for pid in self.servers]
        self.machine = machine_cpu()
        if COUNTED:
            COUNTED[0].start()
        return self

    def __exit__(self, *_: object) -> None:
        timing = self.timing
        timing.elapsed = time.perf_counter() - self.started
        timing.client_cpu = [time.process_time() - self.cpu]
        timing.read_bytes = WIRE[0] - self.read
        if COUNTED:
            timing.instructions = COUNTED[0].count()
            timing.threads = COUNTED[0].threads
        timing.server_cpu = [
            cpu_seconds(pid) - before for pid, before in zip(self.servers, self.server, strict=True)
        ]
        busy, total = machine_cpu()
        timing.machine = (busy - self.machine[0], total - self.machine[1])


async def ticker(timing: Timing, stop: float, every: float = 0.1) -> None:
    """Note how late a timer of ``every`` seconds fires, until ``stop``: the client's event
    loop lag even when nobody thinks (``--think 0``)."""
    loop = asyncio.get_running_loop()
    while loop.time() < stop:
        before = loop.time()
        await asyncio.sleep(every)
        timing.lags.append(loop.time() - before - every)


async def person(client: Client, table: str, timing: Timing, think: float, stop: float) -> None:
    """Play this seat's turns with its first legal call or card until the match is over."""
    loop = asyncio.get_running_loop()
    acted: set[int] = set()
    timing.tables.add(table)
    while loop.time() < stop:
        text = await asyncio.wait_for(client.socket.recv(), 120)
        timing.text_bytes += len(text)
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
            pause = random.uniform(0.5, 1.5) * think
            before = loop.time()
            await asyncio.sleep(pause)
            timing.lags.append(loop.time() - before - pause)
        if state["legal_calls"]:
            action: dict[str, Any] = {"type": "call", "value": state["legal_calls"][0]}
        else:
            action = {"type": "play", "card": state["legal"][0]}
        timing.sent[(table, state["version"] + 1)] = time.perf_counter()
        timing.actions += 1
        await client.send(action | {"version": state["version"]})


async def rooms_load(
    bases: list[str],
    rooms: int,
    think: float,
    deals: int,
    seconds: float,
    servers: list[int],
    first: int = 0,
    go: Callable[[], Awaitable[None]] | None = None,
    idle: float = 0.0,
) -> Timing:
    """``rooms`` rooms of four people, each person on one of ``bases`` in turn (numbered from
    ``first``, when several client processes share the rooms); ``go`` is awaited once every
    socket is open, before the first action (the other client processes' rooms ready too).
    ``idle``: nobody acts, and what the servers spend is measured for that many seconds."""
    timing = Timing()
    tasks = []
    clients = []
    for number in range(first, first + rooms):
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
    if go is not None:
        await go()
    stop = asyncio.get_running_loop().time() + seconds
    if idle:
        timing.tables = {code for _, code in clients}
        with Played(timing, servers):
            await asyncio.sleep(idle)
    else:
        with Played(timing, servers):
            for client, code in clients:
                tasks.append(asyncio.create_task(person(client, code, timing, think, stop)))
            tick = asyncio.create_task(ticker(timing, stop))
            await asyncio.gather(*tasks, return_exceptions=True)
            tick.cancel()
    for client, _ in clients:
        await client.close()
    return timing


async def computers_load(
    base: str, tables: int, think: float, seconds: float, servers: list[int]
) -> Timing:
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
    stop = asyncio.get_running_loop().time() + seconds
    with Played(timing, servers):
        tick = asyncio.create_task(ticker(timing, stop))
        await asyncio.gather(
            *(person(client, code, timing, think, stop) for client, code in sockets),
            return_exceptions=True,
        )
        tick.cancel()
    for client, _ in sockets:
        await client.close()
    return timing


def client_process(
    bases: list[str],
    rooms: int,
    first: int,
    think: float,
    deals: int,
    seconds: float,
    servers: list[int],
    barrier: Any,
    results: Any,
    idle: float = 0.0,
) -> None:
    """One of ``--clients`` processes: its share of the rooms, started with the others'."""

    async def go() -> None:
        await asyncio.to_thread(barrier.wait)

    timing = asyncio.run(rooms_load(bases, rooms, think, deals, seconds, servers, first, go, idle))
    timing.sent.clear()  # not needed by the report, and large to send
    results.put(timing)


def play_rooms(
    bases: list[str],
    rooms: int,
    think: float,
    deals: int,
    seconds: float,
    servers: list[int],
    processes: int,
    idle: float = 0.0,
) -> Timing:
    """The rooms on ``processes`` client processes (in this one when 1): one event loop and one
    interpreter lock for 800 sockets may be the first to saturate, not the server."""
    if processes <= 1:
        return asyncio.run(rooms_load(bases, rooms, think, deals, seconds, servers, idle=idle))
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(processes), context.Queue()
    shares = [rooms // processes + (i < rooms % processes) for i in range(processes)]
    starts = [sum(shares[:i]) for i in range(processes)]
    workers = [
        context.Process(
            target=client_process,
            args=(bases, share, start, think, deals, seconds, servers, barrier, results, idle),
        )
        for share, start in zip(shares, starts, strict=True)
    ]
    for worker in workers:
        worker.start()
    timing = Timing()
    for _ in workers:
        timing.merge(results.get(timeout=seconds + 600))
    for worker in workers:
        worker.join(30)
    return timing


def percentile(values: list[float], share: float) -> float:
    """The value at ``share`` (0 to 1) of the sorted values; 0 for none."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


SATURATED = 0.8
"""A process busy this share of one core is taken as saturated: one Python process does its
work on one core at a time (the interpreter's lock), whatever the machine has."""


def report_idle(title: str, timing: Timing) -> None:
    """What the servers spent on tables whose people are all connected and nobody acts: what
    keeping a table costs apart from its actions (the processes' looks at the store, pings)."""
    table_seconds = max(len(timing.tables) * timing.elapsed, 1e-9)
    cpu = sum(timing.server_cpu)
    line = (
        f"{title}: {len(timing.tables)} tables idle for {timing.elapsed:.1f} s: the servers "
        f"spent {cpu:.2f} s of CPU ({1e6 * cpu / table_seconds:.0f} µs per table and second)"
    )
    if timing.instructions is not None:
        line += (
            f", {timing.instructions:,} instructions (callgrind; "
            f"{timing.instructions / table_seconds / 1e6:.3f} million per table and second)"
        )
    busy, total = timing.machine
    print(f"{line}; the machine {100 * busy / max(total, 1e-9):.0f}% busy")


def report(title: str, timing: Timing) -> None:
    samples = sorted(timing.samples)
    elapsed = max(timing.elapsed, 1e-9)
    if not samples:
        print(f"{title}: no samples")
        return
    p95 = percentile(samples, 0.95)
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
    bottleneck(timing, p95)


def bottleneck(timing: Timing, p95: float) -> None:
    """Say what the clients and the servers spent while the rooms played, and which of them (or
    the machine) set the figures: a latency measured by clients whose own event loop was late
    is partly theirs, not the server's."""
    elapsed, actions = max(timing.elapsed, 1e-9), max(timing.actions, 1)
    clients = [cpu / elapsed for cpu in timing.client_cpu]
    servers = [cpu / elapsed for cpu in timing.server_cpu]
    lag = percentile(timing.lags, 0.95)
    busy, total = timing.machine
    cores = os.cpu_count() or 1
    print(
        f"  clients ({len(clients)} process{'es' if len(clients) > 1 else ''}): CPU "
        f"{1000 * sum(timing.client_cpu) / actions:.2f} ms per action, "
        f"{' + '.join(f'{share:.2f}' for share in clients)} of a core; their timers fired late "
        f"by {1000 * percentile(timing.lags, 0.5):.1f} ms (median), {1000 * lag:.1f} ms (95th), "
        f"{1000 * max(timing.lags, default=0):.0f} ms (max); they read "
        f"{timing.read_bytes / actions:.0f} bytes per action from their sockets "
        f"({timing.text_bytes / actions:.0f} bytes of messages once decoded)"
    )
    print(
        f"  servers while playing: {' + '.join(f'{share:.2f}' for share in servers)} of a core "
        f"({1000 * sum(timing.server_cpu) / actions:.2f} ms CPU per action); the machine: "
        f"{100 * busy / max(total, 1e-9):.0f}% of its {cores} cores busy, load average "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    # The clients saturate when one of their processes is as busy as a Python process can be,
    # or when their timers fire late by a good part of the latency they measure while the
    # machine had cores to spare (on full cores a timer is late for want of a core: the
    # machine's doing, not the clients').
    machine_full = total > 0 and busy / total >= 0.9
    late = lag >= max(0.010, 0.25 * p95)
    client_bound = max(clients, default=0) >= SATURATED or (late and not machine_full)
    server_bound = max(servers, default=0) >= SATURATED
    if client_bound and server_bound:
        verdict = (
            "both the clients and the server saturated: the latencies are partly the "
            "clients' (try more --clients processes)"
        )
    elif client_bound:
        verdict = (
            "the clients: their event loop was late, so the latencies are partly theirs and "
            "the server had room left (try more --clients processes)"
        )
    elif server_bound:
        verdict = "the server: the clients had room to spare, the figures are the server's"
    elif machine_full:
        verdict = (
            "the machine: neither the server nor the clients used a whole core, but the cores "
            "were busy (other work on the machine); the latencies are the machine's load"
        )
    else:
        verdict = (
            "neither: the server and the clients had room to spare; the latencies are the "
            "server's own, unloaded"
        )
    print(f"  bottleneck: {verdict}")
    if timing.instructions is not None:
        print(
            f"  servers' instructions while playing (callgrind): {timing.instructions:,} "
            f"({timing.instructions / actions / 1e6:.3f} million per action; by thread: "
            f"{', '.join(f'{n / actions / 1e6:.3f}' for n in timing.threads)})"
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
    parser.add_argument(
        "--clients",
        type=int,
        default=1,
        help="client processes the rooms are shared among (when one saturates before the server)",
    )
    parser.add_argument(
        "--idle",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="nobody acts: measure what the servers spend on the open rooms for this long",
    )
    parser.add_argument(
        "--callgrind",
        action="store_true",
        help="count the servers' instructions per action under valgrind's callgrind (slow)",
    )
    parser.add_argument(
        "--serve",
        action="append",
        default=[],
        metavar="OPTIONS",
        help="more options for `callbreak serve` (split at spaces), to compare its settings",
    )
    args = parser.parse_args()
    if args.callgrind and (args.clients > 1 or args.tracemalloc):
        parser.error("--callgrind counts with one client process, and without --tracemalloc")
    if args.idle and args.mode == "computers":
        parser.error("--idle is for rooms of people (computers act on their own)")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(args.keep or name)
        folder.mkdir(parents=True, exist_ok=True)
        processes = []
        redis_url = None
        redis_process = None
        if args.mode == "redis":
            redis_process, redis_url = start_redis(folder)
        count = 2 if args.mode == "redis" else 1
        extra = tuple(word for words in args.serve for word in words.split())
        servers = [
            start_server(folder, f"s{i}", redis_url, args.tracemalloc, extra, args.callgrind)
            for i in range(count)
        ]
        processes = [process for process, _ in servers]
        bases = [base for _, base in servers]
        # The servers load the players' compiled kernel in the background at start: wait until
        # they say it is loaded, so that it is not counted as the rooms'.
        for number in range(count):
            ready(folder / f"s{number}.log", 900 if args.callgrind else 180)
        pids = [counted_pid(p) if args.callgrind else p.pid for p in processes]
        if args.callgrind:
            COUNTED.append(Instructions(pids))
        memory = Memory(processes, folder, args.tracemalloc)
        memory.measure("at start", 0)
        try:
            if args.warm:
                play_rooms(
                    bases, args.warm, args.think, args.deals, args.seconds, pids, args.clients
                )
                if args.evict:
                    time.sleep(IDLE_FINISHED + 2 * EVICT_EVERY)
                memory.first = None
                memory.measure(f"after {args.warm} rooms to warm up (before)", 0)
            for round_ in range(1, args.rounds + 1):
                cpu = sum(cpu_seconds(pid) for pid in pids)
                if args.mode == "computers":
                    timing = asyncio.run(
                        computers_load(bases[0], args.rooms, args.think, args.seconds, pids)
                    )
                else:
                    timing = play_rooms(
                        bases,
                        args.rooms,
                        args.think,
                        args.deals,
                        args.seconds,
                        pids,
                        args.clients,
                        args.idle,
                    )
                cpu = sum(cpu_seconds(pid) for pid in pids) - cpu
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
                title = f"{args.rooms} {'tables' if args.mode == 'computers' else 'rooms'}"
                if args.idle:
                    report_idle(f"{title}, {what[args.mode]}", timing)
                    continue
                report(f"{title}, {what[args.mode]}, think {args.think} s", timing)
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
