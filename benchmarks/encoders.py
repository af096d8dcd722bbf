"""The JSON encoders on what the server sends most: every seat's view of every state of some
matches (``web.view``: the public part and each seat's own), encoded by the standard library's
``json``, ``orjson`` and ``msgspec`` where installed; CPU time per view and bytes per view.

Run: ``python benchmarks/encoders.py [--matches 10] [--repeat 5]``.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import random
import time
from collections.abc import Callable
from typing import Any

from callbreak.web.backend import LocalBackend
from callbreak.web.store import Store
from callbreak.web.tables import Tables
from callbreak.web.view import private_view, public_view


async def views(matches: int, seed: int) -> list[dict[str, Any]]:
    """The public view and each seat's own view of every state of ``matches`` matches."""
    backend = LocalBackend(Store(":memory:"))
    tables = Tables(backend)
    rng = random.Random(seed)
    seen: list[dict[str, Any]] = []
    for number in range(matches):
        table, _ = await tables.create_match(
            "strict(deals=2)", "आशा", ["random"] * 3, str(number), {"speed": "instant"}
        )
        state = table.state
        while not state.match.is_over:
            seen.append(public_view(state))
            seen += [private_view(state, seat) for seat in range(4)]
            deal = state.match.deal
            turn = deal.turn
            assert turn is not None
            await table.sync.act(turn, rng.choice(deal.legal_actions()), state.version)
        tables.live.clear()
    await backend.close()
    return seen


def encoders() -> dict[str, Callable[[Any], str]]:
    """Each installed encoder, as a function to text (what a socket sends)."""
    found: dict[str, Callable[[Any], str]] = {"json": json.dumps}
    # Imported by name: either may be missing, and neither is a dependency of the project.
    try:
        orjson: Any = importlib.import_module("orjson")
        option = orjson.OPT_NON_STR_KEYS
        found["orjson"] = lambda value: orjson.dumps(value, option=option).decode()
    except ImportError:
        pass
    try:
        msgspec: Any = importlib.import_module("msgspec")
        encoder = msgspec.json.Encoder()
        found["msgspec"] = lambda value: encoder.encode(value).decode()
    except ImportError:
        pass
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    seen = asyncio.run(views(args.matches, args.seed))
    for name, encode in encoders().items():
        best = float("inf")
        for _ in range(args.repeat):  # the best of the repeats: the least disturbed
            started = time.process_time()
            for value in seen:
                encode(value)
            best = min(best, time.process_time() - started)
        size = sum(len(encode(value).encode()) for value in seen) / len(seen)
        print(f"{name}: {1e6 * best / len(seen):.1f} µs of CPU a view, {size:.0f} bytes a view")
    print(f"({len(seen)} views)")


if __name__ == "__main__":
    main()
