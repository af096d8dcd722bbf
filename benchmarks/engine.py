"""Random full deals per second through the fast path and through the checked public API.

Run: ``python benchmarks/engine.py [--seconds S] [--seed N]``. Single process, one core.
A deal here is: shuffle and deal 52 cards, then play all 13 tricks with uniformly random
legal cards (the checked API also takes four calls, since a Deal needs them before play).
"""

from __future__ import annotations

import argparse
import random
import time

from callbreak.cards import CardSet
from callbreak.fast import deal_hands, flags_of, random_playout
from callbreak.game import Deal, Phase
from callbreak.rules import Rules


def fast_path(rules: Rules, rng: random.Random, seconds: float) -> float:
    """Deals per second through callbreak.fast."""
    flags, rnd = flags_of(rules), rng.random
    deals, start = 0, time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(200):
            random_playout(deal_hands(rng), rng.randrange(4), flags, rnd, first=True)
        deals += 200
        now = time.perf_counter()
        if now >= deadline:
            return deals / (now - start)


def checked_api(rules: Rules, rng: random.Random, seconds: float) -> float:
    """Deals per second through Deal.call / Deal.legal_cards / Deal.play."""
    deals, start = 0, time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(20):
            deal = Deal([CardSet(h) for h in deal_hands(rng)], rng.randrange(4), rules)
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
    print(f"fast path: {fast_path(rules, random.Random(args.seed), args.seconds):.0f} deals/s")
    print(f"checked API: {checked_api(rules, random.Random(args.seed), args.seconds):.0f} deals/s")


if __name__ == "__main__":
    main()
