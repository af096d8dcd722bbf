"""The CPU time of what a room's connections are sent after each action, alone: every state of
``--matches`` one-deal rooms of four people, each state's views built, encoded and queued for
the four seats and ``--spectators`` spectators through the table's hub (``web.hub``, as the
table's owner does after each action), and handed to sockets that keep nothing. No store, no
network: what ``web.view``, ``web.wire`` and the hub cost per state, which a shared machine's
other load hardly changes.

Run: ``python benchmarks/views.py [--matches 40] [--spectators 1] [--seed 1]``.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time

from callbreak.game import Call, Play
from callbreak.web.hub import VIEW, Hub
from callbreak.web.model import claim, join, new_room, start
from callbreak.web.state import TableState


class _Socket:
    """A socket that takes every message and keeps none."""

    async def send_text(self, text: str) -> None:
        pass


async def measure(matches: int, spectators: int, seed: int) -> tuple[int, float]:
    """The states shown and the CPU seconds their views took."""
    rng = random.Random(seed)
    states, cpu = 0, 0.0
    for number in range(matches):
        data = new_room("strict(deals=1)", "A", [None, None, None], seed=str(number))
        tokens: list[str | None] = [claim(data, 0)]
        tokens += [join(data, name)[1] for name in "BCD"]
        start(data)
        state = TableState(data)
        hub = Hub(state)
        for token in [*tokens, *[None] * spectators]:
            hub.add(_Socket(), token)  # type: ignore[arg-type]
        while not state.match.is_over:
            deal = state.match.deal
            seat = deal.turn
            assert seat is not None
            calls, cards = list(deal.legal_calls()), list(deal.legal_cards())
            action = Call(rng.choice(calls)) if calls else Play(rng.choice(cards))
            state.commit(state.act(seat, action, state.version, []))
            started = time.process_time()
            await hub.send(VIEW)
            await asyncio.sleep(0)  # the connections' writers hand the messages on
            cpu += time.process_time() - started
            states += 1
        for connection in list(hub.connections.values()):
            connection.writer.cancel()
    return states, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=40)
    parser.add_argument("--spectators", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    states, cpu = asyncio.run(measure(args.matches, args.spectators, args.seed))
    print(f"{states} states, {1e6 * cpu / states:.1f} µs of CPU each for every connection's view")


if __name__ == "__main__":
    main()
