"""Quick play under load: scripted people press *Play now* over a minute and play their match
to its end, on one `callbreak serve` process or on two sharing a `redis-server`.

Run: ``python benchmarks/pools.py [--people 400] [--over 60] [--think 1.0]
[--mode one|redis|both]``.

Each person arrives at a moment drawn evenly over ``--over`` seconds (seeded), makes a profile
(``POST /api/players``), joins the pool (``POST /api/pools/POOL/join``), asks their place every
second as the browser does (``GET .../place``) until seated, then opens the room's socket with
the seat's token and plays their turns (the first legal call or card, after a pause of
``--think`` seconds on average) until the match is over; a person who took a computer's seat
watches until their first deal, when the server welcomes them to it. Person ``n`` talks to
process ``n % processes``, whichever process decides for the pool.

The report, for each mode: the wait from *Play now* to a seat, as the person saw it (from the
join's request to the first answer that says seated, so it includes up to a second of polling)
and as the server counted it (``waited``: from the join to the seat being given), median, 95th
percentile and the longest; the wait to play the seat (to the socket's welcome to it: at once
at a new table, at the person's first deal for a computer's seat taken over); the tables the
pools started by the people seated at the start and the computers' seats taken over (the
servers' own counters, ``/metrics``); whether every person was seated exactly once (no lost
join, no seat given twice, at most four people a table); and how many matches were played to
their end (by every person at them, and as the store has them).
The machine's load average is printed with it: the scripted people share the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import tempfile
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

from callbreak.web.client import Client, http
from rooms import ready, start_redis, start_server  # benchmarks/rooms.py, beside this script

POLL = 1.0
"""Seconds between two asks of the person's place: the browser's (static/now.js)."""


class Person:
    """One scripted person: what they saw of their wait, their seat and their match."""

    def __init__(self, number: int, base: str) -> None:
        self.number = number
        self.base = base
        self.place: dict[str, Any] | None = None
        self.wait: float | None = None
        """Seconds from the join's request to the first answer that said seated."""
        self.joined = 0.0
        self.playing: float | None = None
        """Seconds from the join's request to the seat being theirs at the table: at once for
        a new table's seat, at their first deal for a computer's seat taken over."""
        self.finished = False
        self.error: str | None = None


async def call(method: str, url: str, body: object = None, token: str | None = None) -> Any:
    """One JSON request off the event loop (on the loop's threads)."""
    status, answer = await asyncio.to_thread(http, method, url, body, token)
    if status >= 400:
        raise RuntimeError(f"{method} {url}: {status} {answer}")
    return answer


async def live(person: Person, arrive: float, pool: str, think: float, start: float) -> None:
    """``person`` arrives ``arrive`` seconds after ``start``, presses Play now and plays."""
    loop = asyncio.get_running_loop()
    await asyncio.sleep(max(0.0, start + arrive - loop.time()))
    try:
        made = await call("POST", f"{person.base}/api/players", {"name": f"P{person.number}"})
        token = made["token"]
        joined = person.joined = loop.time()
        place = await call("POST", f"{person.base}/api/pools/{pool}/join", token=token)
        while place["state"] != "seated":
            await asyncio.sleep(POLL)
            place = await call("GET", f"{person.base}/api/pools/{pool}/place", token=token)
        person.wait = loop.time() - joined
        person.place = place
        await play(person, place, think)
    except Exception as error:  # reported, and counted against the run
        person.error = f"{type(error).__name__}: {error}"


async def play(person: Person, place: dict[str, Any], think: float) -> None:
    """Play the seat's turns until the match is over (watching first, for a computer's seat
    taken over from a later deal)."""
    loop = asyncio.get_running_loop()
    client = await Client.open(person.base, place["room"], place["token"])
    acted: set[int] = set()
    try:
        while True:
            if person.playing is None and client.seat is not None:
                person.playing = loop.time() - person.joined
            message = await client.next(timeout=300)
            if message["type"] != "state":
                continue
            state = message["state"]
            if state["match_over"]:
                person.finished = True
                return
            if client.seat is None or state["turn"] != client.seat or state["version"] in acted:
                continue
            acted.add(state["version"])
            await asyncio.sleep(random.uniform(0.5, 1.5) * think)
            await client.act(state)  # refused as stale if the clock ran out meanwhile
    finally:
        await client.close()


def metrics(base: str) -> str:
    """The Prometheus text of a server (``--metrics 127.0.0.1``)."""
    with urllib.request.urlopen(f"{base}/metrics", timeout=30) as answer:
        return str(answer.read().decode())


def counted(texts: list[str], name: str) -> dict[str, float]:
    """A counter of the servers' metrics, summed over the processes, by its labels."""
    found: Counter[str] = Counter()
    pattern = re.compile(rf"^{name}\{{(.*)\}} ([0-9.e+]+)$", re.MULTILINE)
    for text in texts:
        for labels, value in pattern.findall(text):
            found[labels] += float(value)
    return dict(found)


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


async def run(bases: list[str], people: int, over: float, think: float, pool: str) -> list[Person]:
    rng = random.Random(44)
    arrivals = sorted(rng.uniform(0, over) for _ in range(people))
    crowd = [Person(n, bases[n % len(bases)]) for n in range(people)]
    loop = asyncio.get_running_loop()
    loop.set_default_executor(concurrent.futures.ThreadPoolExecutor(64))
    start = loop.time() + 1.0
    await asyncio.gather(
        *(live(p, at, pool, think, start) for p, at in zip(crowd, arrivals, strict=True))
    )
    return crowd


def report(mode: str, crowd: list[Person], bases: list[str], seconds: float) -> dict[str, Any]:
    texts = [metrics(base) for base in bases]
    started = counted(texts, "callbreak_pool_tables_started_total")
    taken = sum(counted(texts, "callbreak_pool_seats_taken_over_total").values())
    seated = [p for p in crowd if p.place is not None]
    seats = Counter((p.place["room"], p.place["seat"]) for p in seated)  # type: ignore[index]
    rooms = Counter(p.place["room"] for p in seated)  # type: ignore[index]
    waits = [p.wait for p in seated if p.wait is not None]
    server = [float(p.place["waited"]) for p in seated]  # type: ignore[index]
    playing = [p.playing for p in seated if p.playing is not None]
    stored = {code: http("GET", f"{bases[0]}/api/rooms/{code}")[1].get("status") for code in rooms}
    by_people: Counter[str] = Counter()
    for labels, value in started.items():
        people = re.search(r'people="(\d)"', labels)
        by_people[people.group(1) if people else "?"] += int(value)
    finished_rooms = {p.place["room"] for p in seated if p.finished}  # type: ignore[index]
    unfinished = {code for code in rooms if code not in finished_rooms}
    figures = {
        "mode": mode,
        "people": len(crowd),
        "seated": len(seated),
        "errors": [p.error for p in crowd if p.error][:5],
        "seats given twice": sum(1 for n in seats.values() if n > 1),
        "most people at a table": max(rooms.values()) if rooms else 0,
        "wait seen (s)": {
            "median": round(statistics.median(waits), 2) if waits else None,
            "p95": round(quantile(waits, 0.95), 2),
            "max": round(max(waits), 2) if waits else None,
        },
        "wait counted by the server (s)": {
            "median": round(statistics.median(server), 2) if server else None,
            "p95": round(quantile(server, 0.95), 2),
            "max": round(max(server), 2) if server else None,
        },
        "wait to play the seat (s)": {
            "median": round(statistics.median(playing), 2) if playing else None,
            "p95": round(quantile(playing, 0.95), 2),
            "max": round(max(playing), 2) if playing else None,
            "people": len(playing),
        },
        "tables started by people at the start": dict(sorted(by_people.items())),
        "tables": len(rooms),
        "seats taken over": int(taken),
        "people who saw their match end": sum(1 for p in seated if p.finished),
        "matches finished (store)": sum(1 for s in stored.values() if s == "finished"),
        "matches not seen to their end": sorted(unfinished)[:5],
        "seconds": round(seconds, 1),
        "load average": Path("/proc/loadavg").read_text().split()[:3],
    }
    print(json.dumps(figures, indent=1), flush=True)
    return figures


def one_mode(mode: str, args: argparse.Namespace) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix=f"pools-{mode}-"))
    processes: list[subprocess.Popen[bytes]] = []
    try:
        redis_url = None
        if mode == "redis":
            redis, redis_url = start_redis(folder)
            processes.append(redis)
        bases = []
        for number in range(1 if mode == "one" else 2):
            name = f"serve{number}"
            options = ("--pools", args.pools, "--metrics", "127.0.0.1")
            process, base = start_server(folder, name, redis_url, extra=options)
            processes.append(process)
            bases.append(base)
            # The computers' players loaded before anyone waits on them (as a deployed
            # server is).
            ready(folder / f"{name}.log")
        began = time.monotonic()
        crowd = asyncio.run(run(bases, args.people, args.over, args.think, args.pool))
        return report(mode, crowd, bases, time.monotonic() - began)
    finally:
        for process in reversed(processes):
            process.terminate()
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, default=400)
    parser.add_argument("--over", type=float, default=60.0, help="seconds the arrivals span")
    parser.add_argument("--think", type=float, default=1.0, help="a person's seconds a turn")
    parser.add_argument("--mode", choices=["one", "redis", "both"], default="both")
    parser.add_argument("--pools", default="strict:20", help="callbreak serve --pools")
    parser.add_argument("--pool", default="strict", help="the pool the people join")
    args = parser.parse_args()
    print(f"pid {os.getpid()}, {args.people} people over {args.over:g} s, think {args.think:g} s")
    for mode in ("one", "redis") if args.mode == "both" else (args.mode,):
        one_mode(mode, args)


if __name__ == "__main__":
    main()
