"""How well each reading of a heard call predicts the calls a player really makes.

Run: ``python benchmarks/call_reading.py SPEC [--rules R] [--deals N] [--spreads 0.3,0.5,1]``.
The first deal of ``N`` seeded matches (seeds 10000 on) is called by four copies of ``SPEC``
(each with its own seed), and every call is noted with the hand strength of its caller
(``kernel.hand_strength``, what the expert's weighting of worlds reads). For each reading the
script prints the mean log-likelihood per call (higher is better; a reading that knows nothing
gives the log of one over the number of legal calls):

- ``gap S``: today's ``call_likelihood=gap`` at ``call_spread=S`` (the call is the strength
  less 0.3, give or take ``S``; its weights normalised over the legal calls, so that it is a
  probability);
- ``sound S``: ``call_likelihood=sound`` at ``call_spread=S`` (the call is the profile's sound
  call of a hand whose strength is the caller's give or take ``S``), without the floor the
  expert adds.

It also prints how often the call is the sound call of the caller's strength exactly, and one
above or below it.
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from callbreak.game import Match, Phase
from callbreak.players import kernel
from callbreak.players.calling import call_bounds, call_lookup
from callbreak.rules import Rules
from callbreak.seating import PlayerSpec


def calls_made(spec: str, rules: Rules, deals: int) -> list[tuple[float, int]]:
    """(the caller's hand strength, its call) for every call of the first deals."""
    rows = []
    for index in range(deals):
        match = Match(rules, seed=10_000 + index)
        base = PlayerSpec.parse(spec)
        players = [base.with_defaults(seed=4 * index + seat).build() for seat in range(4)]
        while match.deal.phase is Phase.CALLING:
            seat = match.deal.turn
            assert seat is not None
            seen = match.observation(seat)
            call = players[seat].call(seen)
            rows.append((float(kernel.hand_strength(seen.hand.mask)), int(call)))
            match.call(call)
    return rows


def gap_likelihood(rows: list[tuple[float, int]], rules: Rules, spread: float) -> float:
    legal = list(rules.call_range())
    total = 0.0
    for strength, call in rows:
        weights = {c: math.exp(-((c - strength + 0.3) ** 2) / (2 * spread**2)) for c in legal}
        total += math.log(weights[call] / sum(weights.values()))
    return total / len(rows)


def sound_likelihood(rows: list[tuple[float, int]], rules: Rules, spread: float) -> float:
    low, high = call_bounds(rules)
    total = 0.0
    for strength, call in rows:
        mass = kernel.sound_call_chance(strength, call, spread, low, high)
        total += math.log(max(mass, 1e-9))
    return total / len(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("spec")
    parser.add_argument("--rules", default="strict")
    parser.add_argument("--deals", type=int, default=150)
    parser.add_argument("--spreads", default="0.3,0.5,1,1.5")
    args = parser.parse_args()
    rules = Rules.load(args.rules)
    spreads = [float(text) for text in args.spreads.split(",")]
    rows = calls_made(args.spec, rules, args.deals)
    calls = np.array([call for _, call in rows])
    lookup = call_lookup(rules)
    sound = np.array([kernel.sound_call(strength, lookup) for strength, _ in rows])
    print(f"{args.spec}, {args.rules}: {len(rows)} calls from {args.deals} deals")
    print(f"mean call {calls.mean():.2f}; calls by value {np.bincount(calls).tolist()}")
    print(
        f"the sound call of the caller's strength: {np.mean(calls == sound):.1%} exactly, "
        f"{np.mean(calls == sound + 1):.1%} one above, {np.mean(calls == sound - 1):.1%} one below"
    )
    print(f"knowing nothing: {-math.log(len(rules.call_range())):.3f} per call")
    print("| spread | gap | sound |")
    print("| --- | --- | --- |")
    for spread in spreads:
        gap = gap_likelihood(rows, rules, spread)
        print(f"| {spread:g} | {gap:.3f} | {sound_likelihood(rows, rules, spread):.3f} |")


if __name__ == "__main__":
    main()
