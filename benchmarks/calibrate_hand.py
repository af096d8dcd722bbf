"""Fit the hand-strength features to the tricks hands really take, and print the weights.

The casual players call from ``kernel.hand_strength``, and the expert uses it to judge how
likely the calls it hears are. Its weights come from this script: it deals many random deals,
lets the policy play them out for all four seats (calls from the current estimate), and fits
the tricks each seat took to the features of its hand by least squares.

Run: ``python benchmarks/calibrate_hand.py [--deals N] [--rules strict] [--seed S]``.
"""

from __future__ import annotations

import argparse
import random

import numpy as np

from callbreak.players import kernel
from callbreak.rules import Rules


def deal_hands(rng: random.Random) -> list[int]:
    """Four random 13-card hands as masks (the dealing the fitted weights were made with)."""
    deck = list(range(52))
    rng.shuffle(deck)
    return [sum(1 << card for card in deck[seat::4]) for seat in range(4)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100_000)
    parser.add_argument("--rules", default="strict")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rules = Rules.parse(args.rules)
    rng = random.Random(args.seed)
    worlds = np.array([deal_hands(rng) for _ in range(args.deals)], dtype=np.int64)
    features = np.array([[kernel.hand_features(int(h)) for h in row] for row in worlds])
    flags, scoring = kernel.flags_of(rules), kernel.scoring_of(rules)
    estimate = features @ kernel.HAND_WEIGHTS
    tricks = np.zeros((args.deals, 4))
    # Calls change how the policy plays, so the calls come from the current weights.
    for start in range(0, args.deals, 1000):
        for w in range(start, min(start + 1000, args.deals)):
            calls = np.clip(np.rint(estimate[w] - 0.4), rules.min_call, rules.max_call)
            result = kernel.simulate(
                worlds[w : w + 1],
                rng.randrange(4),
                calls.astype(np.int64),
                flags,
                scoring,
                1,
                kernel.Playouts(0.0, kernel.NO_MODEL, 0),
                rng.getrandbits(48),
            )
            tricks[w] = result[0]
    x = features.reshape(-1, features.shape[-1])
    y = tricks.reshape(-1)
    weights, *_ = np.linalg.lstsq(x, y, rcond=None)
    residual = y - x @ weights
    print("names:", ", ".join(kernel.HAND_FEATURES))
    print("weights:", ", ".join(f"{w:.3f}" for w in weights))
    print(f"residual sd: {residual.std():.3f} tricks over {len(y)} hands")
    old = y - x @ kernel.HAND_WEIGHTS
    print(f"current weights: mean error {old.mean():.3f}, sd {old.std():.3f}")


if __name__ == "__main__":
    main()
