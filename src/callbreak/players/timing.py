"""Spending a budget where decisions are hard.

A competition gives a bot a budget per round (the Bhoos protocol's ``timeBudget``: 1,500 ms
for a call and 13 plays), not per decision. Forced cards should cost nothing, and a card with
several real choices early in the deal (when the most is at stake and least is known) should
get more than one late in the deal, where the exact solver is quick anyway. A decision's
*weight* says how much of the budget it deserves; its share of what is left is its weight over
its own weight and the weights the rest of the round's decisions can be expected to have.

>>> from callbreak.game import Match
>>> match = Match("bhoos", seed=1)
>>> seen = match.observation(match.deal.turn)
>>> round(share(seen, 1.5), 3)  # a call: the hardest decision of the round
0.325
"""

from __future__ import annotations

from callbreak.game import Observation

__all__ = [
    "CALL_WEIGHT",
    "EXPECTED_PLAY_WEIGHT",
    "chunk_sizes",
    "decision_weight",
    "overruns",
    "share",
]

CALL_WEIGHT = 2.0
"""A call decides the most: twice a hard first card."""

EXPECTED_PLAY_WEIGHT = (
    0.0,
    0.0,
    0.14,
    0.27,
    0.35,
    0.43,
    0.51,
    0.60,
    0.64,
    0.72,
    0.68,
    0.85,
    0.95,
    1.09,
)
"""The mean weight of a card decision with 0-13 cards in hand (the last card is forced), over
7,800 card decisions of arena records (``benchmarks/decision_weights.py``, docs/benchmarks.md)."""


def play_weight(cards_in_hand: int, choices: int) -> float:
    """The weight of a card decision: nothing when forced, more with more cards in hand and
    more real choices."""
    if choices <= 1:
        return 0.0
    return float((cards_in_hand / 13) ** 0.5 * (1 + 0.25 * (min(choices, 4) - 2)))


def decision_weight(observation: Observation, choices: int | None = None) -> float:
    """How much of the budget this decision deserves. ``choices`` is the number of legal cards
    that play differently (cards that touch play the same), when the caller knows it; without
    it, every legal card counts."""
    if observation.legal_calls:
        return CALL_WEIGHT
    if choices is None:
        choices = len(observation.legal_cards)
    return play_weight(len(observation.hand), choices)


def share(observation: Observation, seconds_left: float, choices: int | None = None) -> float:
    """This decision's share of ``seconds_left``, the budget left for the rest of the round
    (this deal's remaining call and cards)."""
    weight = decision_weight(observation, choices)
    if weight <= 0:
        return 0.0
    cards = len(observation.hand)
    later = cards if observation.legal_calls else cards - 1
    future = sum(EXPECTED_PLAY_WEIGHT[held] for held in range(1, later + 1))
    return seconds_left * weight / (weight + future)


def chunk_sizes(total: int, full: int, first: int) -> list[int]:
    """The pieces a search of ``total`` units (worlds, iterations) runs between two looks at the
    clock: from ``first`` units doubling up to ``full``, the last piece what is left.

    Without a deadline a search runs equal pieces (``first == full``), so that its decision
    depends on the seed alone. With one it starts small: on a machine far slower than its cost
    model assumed (a loaded one) the first look at the clock comes early.
    """
    sizes, done, size = [], 0, first
    while done < total:
        sizes.append(min(size, total - done))
        done += size
        size = min(2 * size, full)
    return sizes


def overruns(before: float, now: float, size: int, following: int, deadline: float) -> bool:
    """Whether the next piece of ``following`` units, at the pace of the piece of ``size`` units
    that ran from ``before`` to ``now``, would end after ``deadline``."""
    return now + (now - before) * following / size > deadline
