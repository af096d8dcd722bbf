"""The CPU time of one action's path on the server, alone: the table's ``act`` on a match
against three random computers, stored in SQLite in memory, with no connection to send to (so
no view is made; ``benchmarks/views.py`` measures the views). What the rooms benchmark measures
with everything else around it (sockets, views, the
clients on the same cores), this measures on its own, and a shared machine's other load hardly
changes it.

Run: ``python benchmarks/actions.py [--matches 40] [--seed 1]`` (five-deal matches; random
legal actions from ``--seed``).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time

from callbreak.web.backend import LocalBackend
from callbreak.web.store import Store
from callbreak.web.tables import Tables


async def measure(matches: int, seed: int) -> tuple[int, float]:
    """The actions taken and the CPU seconds they took."""
    tables = Tables(LocalBackend(Store(":memory:")))
    rng = random.Random(seed)
    actions, cpu = 0, 0.0
    for number in range(matches):
        table, _ = await tables.create_match(
            "strict(deals=5)", "A", ["random"] * 3, str(number), {"speed": "instant"}
        )
        # A table before issue 33 (575b463) held its match itself, and took actions itself
        # until its jobs were split (web.sync), which took them until the table had one inbox
        # (issue 40, web.live): measured the same way.
        state = getattr(table, "state", table)
        act = table.act if hasattr(table, "inbox") else getattr(table, "sync", table).act
        while not state.match.is_over:
            deal = state.match.deal
            action = rng.choice(deal.legal_actions())
            started = time.process_time()
            await act(deal.turn, action, state.version)
            cpu += time.process_time() - started
            actions += 1
        tables.live.clear()
    return actions, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    actions, cpu = asyncio.run(measure(args.matches, args.seed))
    print(f"{actions} actions, {1e6 * cpu / actions:.1f} µs of CPU each")


if __name__ == "__main__":
    main()
