"""How soon a fresh install's first start gives a person a computer's move, as the browser has it.

Run: ``python benchmarks/first_move.py [--runs N] [--opponent SPEC] [--speed PACE]``. Each run
starts ``callbreak serve`` in a new process with ``NUMBA_CACHE_DIR`` set to a new empty folder (as
after ``pip install``) and a new database, creates a match against three computers (three
experts by default, the browser's default opponents, at the page's default pace) the moment
the server answers, and plays the person's seat with the first legal call or card the moment
it is their turn, closing each deal's summary at once. It prints the
seconds from starting the server to: the page answering, the first computer call and card
(and whether the stand-in made it, ``warmup.ready``), the first call and card the computer's
own search made (playing on past the first deal until it has made both), and the server's
"ready" line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from callbreak.web.client import http
from rooms import free_port, serve_command  # benchmarks/rooms.py, beside this script


async def play_until_searched(
    base: str, match_id: str, token: str, started: float
) -> dict[str, float | None]:
    """Play the person's seat until a computer's own search has made a call and a card; the
    moments (seconds since ``started``) the computers' decisions arrived."""
    from websockets.asyncio.client import connect

    moments: dict[str, float | None] = dict.fromkeys(
        (
            "first computer call",
            "first computer card",
            "first call by the search",
            "first card by the search",
        )
    )
    stood_in = {"call": False, "card": False}
    address = base.replace("http://", "ws://") + f"/ws/matches/{match_id}"
    async with connect(address) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))  # the match's key
        thinking: tuple[str, bool] | None = None  # the phase a computer thinks in, stood in
        closed = 0
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), 300))
            if message["type"] != "state":
                continue
            state = message["state"]
            now = time.perf_counter() - started
            if state["thinking"] is not None:
                thinking = (state["phase"], state["preparing"])
            elif thinking is not None:  # the thinking seat has acted
                kind = "call" if thinking[0] == "calling" else "card"
                if moments[f"first computer {kind}"] is None:
                    moments[f"first computer {kind}"] = now
                    stood_in[kind] = thinking[1]
                if not thinking[1] and moments[f"first {kind} by the search"] is None:
                    moments[f"first {kind} by the search"] = now
                thinking = None
            searched = moments["first call by the search"] and moments["first card by the search"]
            if searched or state["match_over"]:
                break
            if len(state["results"]) > closed:  # close each deal's summary at once
                closed = len(state["results"])
                await ws.send(json.dumps({"type": "seen", "deals": closed}))
            if state["turn"] == state["seat"] and state["thinking"] is None:
                if state["legal_calls"]:
                    move: dict[str, Any] = {"type": "call", "value": state["legal_calls"][0]}
                else:
                    move = {"type": "play", "card": state["legal"][0]}
                await ws.send(json.dumps(move | {"version": state["version"]}))
    moments["stood in: call"] = float(stood_in["call"])
    moments["stood in: card"] = float(stood_in["card"])
    return moments


def run(opponent: str, speed: str) -> dict[str, float | None]:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as folder:
        env = dict(os.environ, NUMBA_CACHE_DIR=str(Path(folder) / "numba"))
        started = time.perf_counter()
        server = subprocess.Popen(
            serve_command(port, Path(folder) / "db.sqlite"),
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        ready: list[float] = []

        def watch() -> None:
            assert server.stdout is not None
            for line in server.stdout:
                if "players are ready" in line:
                    ready.append(time.perf_counter() - started)

        threading.Thread(target=watch, daemon=True).start()
        try:
            while True:
                try:
                    status, _ = http("GET", f"{base}/api/levels")
                    if status < 500:
                        break
                except OSError:
                    time.sleep(0.05)
            page = time.perf_counter() - started
            status, created = http(
                "POST",
                f"{base}/api/matches",
                {"opponents": [opponent] * 3, "speed": speed, "seed": 1},
            )
            if status != 201:
                raise SystemExit(f"first_move.py: the server refused the match: {created}")
            moments = asyncio.run(
                play_until_searched(base, created["id"], created["token"], started)
            )
            while not ready and server.poll() is None and time.perf_counter() - started < 600:
                time.sleep(0.2)
        finally:
            server.terminate()
            server.wait(30)
    return {"page answers": page, **moments, "server ready": ready[0] if ready else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1, help="fresh starts to measure")
    parser.add_argument("--opponent", default="expert", help="the three computers' spec")
    parser.add_argument(
        "--speed", default="normal", help="the computers' pace (the page's default)"
    )
    args = parser.parse_args()
    for number in range(args.runs):
        figures = run(args.opponent, args.speed)
        shown = ", ".join(
            f"{name} {'-' if value is None else f'{value:.1f} s'}"
            for name, value in figures.items()
            if not name.startswith("stood in")
        )
        stood = [k.split(": ")[1] for k, v in figures.items() if k.startswith("stood in") and v]
        made = " and ".join(stood) or "nothing"
        print(f"run {number + 1}: {shown}; the stand-in made the first {made}", flush=True)


if __name__ == "__main__":
    main()
