"""How soon a fresh install's first start gives a person a computer's move, as the browser has it.

Run: ``python benchmarks/first_move.py [--runs N] [--opponent SPEC]``. Each run starts
``callbreak serve`` in a new process with ``NUMBA_CACHE_DIR`` set to a new empty folder (as
after ``pip install``) and a new database, creates a match against three computers (three
experts by default, the browser's default opponents) the moment the server answers, and plays
the person's seat with the first legal call or card the moment it is their turn. It prints the
seconds from starting the server to: the page answering, the first computer call and card
(and whether the stand-in made it, ``warmup.ready``), the first decision the computer's own
search made, and the server's "ready" line, for the first deal.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from callbreak.web.client import http


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def play_first_deal(base: str, match_id: str, started: float) -> dict[str, float | None]:
    """Play the person's seat through the first deal; the moments (seconds since ``started``)
    the computers' decisions arrived."""
    from websockets.asyncio.client import connect

    moments: dict[str, float | None] = dict.fromkeys(
        ("first computer call", "first computer card", "first decision by the search")
    )
    stood_in = {"call": False, "card": False}
    address = base.replace("http://", "ws://") + f"/ws/matches/{match_id}"
    async with connect(address) as ws:
        thinking: tuple[str, bool] | None = None  # the phase a computer thinks in, stood in
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
                if not thinking[1] and moments["first decision by the search"] is None:
                    moments["first decision by the search"] = now
                thinking = None
            if state["results"] or state["match_over"]:
                break
            if state["turn"] == state["seat"] and state["thinking"] is None:
                if state["legal_calls"]:
                    move: dict[str, Any] = {"type": "call", "value": state["legal_calls"][0]}
                else:
                    move = {"type": "play", "card": state["legal"][0]}
                await ws.send(json.dumps(move | {"version": state["version"]}))
    moments["stood in: call"] = float(stood_in["call"])
    moments["stood in: card"] = float(stood_in["card"])
    return moments


def run(opponent: str) -> dict[str, float | None]:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as folder:
        env = dict(os.environ, NUMBA_CACHE_DIR=str(Path(folder) / "numba"))
        started = time.perf_counter()
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "callbreak",
                "serve",
                "--port",
                str(port),
                "--db",
                str(Path(folder) / "db.sqlite"),
            ],
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
                {"opponents": [opponent] * 3, "speed": "instant", "seed": 1},
            )
            assert status == 201, created
            moments = asyncio.run(play_first_deal(base, created["id"], started))
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
    args = parser.parse_args()
    for number in range(args.runs):
        figures = run(args.opponent)
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
