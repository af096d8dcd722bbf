"""Random full deals per second through the fast path (the players' compiled kernel) and
through the checked public API.

Run: ``python benchmarks/engine.py [--seconds S] [--seed N] [--rules R]``. Single process, one
thread. A deal here is: shuffle and deal 52 cards, then play all 13 tricks with uniformly
random legal cards (the checked API also takes four calls, since a Deal needs them before
play). The fast path is ``kernel.random_deals``, compiled (or loaded from numba's cache) before
it is timed.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from callbreak.cards import CardSet
from callbreak.game import Deal, Phase
from callbreak.players import kernel
from callbreak.rules import Rules

BATCH = 20_000


def fast_path(rules: Rules, seed: int, seconds: float) -> float:
    """Deals per second through kernel.random_deals on one thread."""
    flags = kernel.flags_of(rules)
    kernel.random_deals(1, flags, seed)  # compile or load it before the clock starts
    deals, tricks, start = 0, 0, time.perf_counter()
    deadline = start + seconds
    while True:
        won = kernel.random_deals(BATCH, flags, seed + deals)
        tricks += int(won.sum())
        deals += BATCH
        now = time.perf_counter()
        if now >= deadline:
            assert tricks == 13 * deals
            return deals / (now - start)


def checked_api(rules: Rules, seed: int, seconds: float) -> float:
    """Deals per second through Deal.call / Deal.legal_cards / Deal.play."""
    rng = random.Random(seed)
    deck = np.arange(52, dtype=np.int64)
    hands = np.zeros(4, dtype=np.int64)
    state = kernel.seed_state(seed)
    kernel.shuffle_deal(deck, hands, state)  # the same dealing as the fast path, compiled first
    deals, start = 0, time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(20):
            kernel.shuffle_deal(deck, hands, state)
            deal = Deal([CardSet(int(h)) for h in hands], rng.randrange(4), rules)
            for _ in range(4):
                deal.call(rules.min_call)
            while deal.phase is Phase.PLAYING:
                deal.play(rng.choice(list(deal.legal_cards())))
        deals += 20
        now = time.perf_counter()
        if now >= deadline:
            return deals / (now - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rules", default="strict")
    args = parser.parse_args()
    rules = Rules.parse(args.rules)
    print(f"fast path: {fast_path(rules, args.seed, args.seconds):.0f} deals/s")
    print(f"checked API: {checked_api(rules, args.seed, args.seconds):.0f} deals/s")


if __name__ == "__main__":
    main()
