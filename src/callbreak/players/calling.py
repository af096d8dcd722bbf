"""Calling: how many tricks a hand is worth, and which call to make of a trick distribution.

The asymmetry of the score decides the call: a failed call costs the whole call, an extra
trick earns a tenth. So the best call is the one with the highest *expected score* over the
distribution of tricks the hand may take, which sits below the mean. In the last deal the
standings matter too: a player who cannot catch the leader with a safe call must risk more,
and a leader can afford less (the online game's guide, on the fifth deal).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from callbreak.cards import SUIT_MASKS, Suit
from callbreak.game import Observation
from callbreak.players.kernel import hand_strength
from callbreak.rules import Rules, score_deal

__all__ = [
    "best_call",
    "call_table",
    "expected_tricks",
    "first_place_chance",
    "normal_distribution",
    "sure_tricks",
]


def _ranks(hand: int, suit: int) -> list[int]:
    """The ranks (2-14) of ``hand`` in ``suit``, highest first."""
    part = (hand & SUIT_MASKS[suit]) >> (13 * suit)
    return [rank + 2 for rank in range(12, -1, -1) if part >> rank & 1]


def sure_tricks(hand: int) -> int:
    """The count of the full-rules guide's tips for beginners: aces, kings with another card
    of the suit, high spades, and a spade for each spade beyond three."""
    count = 0.0
    for suit in (Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS):
        ranks = _ranks(hand, suit)
        count += 14 in ranks
        count += 13 in ranks and len(ranks) >= 2
    spades = _ranks(hand, Suit.SPADES)
    count += sum(1 for rank in spades if rank >= 13)
    count += 12 in spades and len(spades) >= 3
    count += max(0, len(spades) - 3)
    return int(count)


def expected_tricks(hand: int) -> float:
    """A finer estimate of the tricks a 13-card hand takes (see ``kernel.hand_strength``)."""
    return float(hand_strength(hand))


def normal_distribution(mean: float, spread: float) -> list[float]:
    """Probabilities of 0-13 tricks from a normal curve around ``mean``, cut and renormalised."""
    weights = [math.exp(-((tricks - mean) ** 2) / (2 * spread * spread)) for tricks in range(14)]
    total = sum(weights)
    return [weight / total for weight in weights]


def call_table(distribution: Sequence[float], rules: Rules) -> list[tuple[int, float]]:
    """Each legal call with its expected score in points under ``distribution`` (0-13)."""
    return [
        (
            call,
            sum(p * score_deal(rules, call, tricks) for tricks, p in enumerate(distribution)) / 10,
        )
        for call in rules.call_range()
    ]


def best_call(
    distribution: Sequence[float],
    observation: Observation,
    *,
    win_weight: float = 4.0,
    made_chance: float = 0.75,
) -> tuple[int, list[tuple[int, float]]]:
    """The call with the best expected value, and every call's value.

    In the last deal of a fixed-length match, each call's value adds ``win_weight`` points
    times the chance of finishing first: the other seats score their call with probability
    ``made_chance`` (3 assumed for seats yet to call) and lose it otherwise.
    """
    rules = observation.rules
    table = call_table(distribution, rules)
    if observation.deals_left == 0 and win_weight:
        table = [
            (
                call,
                value
                + win_weight * first_place_chance(distribution, call, observation, made_chance),
            )
            for call, value in table
        ]
    best = max(table, key=lambda item: (round(item[1], 9), -item[0]))
    return best[0], table


def first_place_chance(
    distribution: Sequence[float], call: int, observation: Observation, made_chance: float = 0.75
) -> float:
    """Chance of finishing first (a shared first counted as a share) after this deal."""
    rules = observation.rules
    seat = observation.seat
    rivals = [other for other in range(4) if other != seat]
    outcomes: list[tuple[float, list[int]]] = [(1.0, [])]
    for other in rivals:
        their_call = observation.calls[other] or 3
        made_score = score_deal(rules, their_call, their_call)
        outcomes = [
            (p * q, [*totals, observation.totals[other] + s])
            for p, totals in outcomes
            for q, s in ((made_chance, made_score), (1 - made_chance, -10 * their_call))
        ]
    chance = 0.0
    for tricks, p_tricks in enumerate(distribution):
        mine = observation.totals[seat] + score_deal(rules, call, tricks)
        for p, totals in outcomes:
            best_other = max(totals)
            if mine > best_other:
                chance += p_tricks * p
            elif mine == best_other:
                chance += p_tricks * p / (1 + totals.count(best_other))
    return chance
