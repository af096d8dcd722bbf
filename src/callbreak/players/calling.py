"""Calling: how many tricks a hand is worth, and which call to make of a trick distribution.

The asymmetry of the score decides the call: a failed call costs the whole call, an extra
trick earns a tenth. So the best call is the one with the highest *expected score* over the
distribution of tricks the hand may take, which sits below the mean. In the last deal the
standings matter too: a player who cannot catch the leader with a safe call must risk more,
and a leader can afford less (the online game's guide, on the fifth deal).
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Sequence
from statistics import NormalDist

import numpy as np

from callbreak.cards import SUIT_MASKS, Suit
from callbreak.game import Observation
from callbreak.players import kernel
from callbreak.players.kernel import hand_strength
from callbreak.rules import Rules, score_deal

__all__ = [
    "CALL_MODEL",
    "DEAL_SCORE_SPREAD",
    "HAND_SPREAD",
    "best_call",
    "call_bounds",
    "call_features",
    "call_lookup",
    "call_table",
    "candidate_calls",
    "expected_tricks",
    "first_place_chance",
    "first_place_chance_ahead",
    "model_distribution",
    "normal_distribution",
    "simulated_call",
    "sure_tricks",
]


HAND_SPREAD = 0.95
"""The residual spread of ``hand_strength`` around the tricks a hand takes, from
benchmarks/calibrate_hand.py: how sure a sound count of the hand is."""
RULES_KEPT = 64
"""Rules whose call tables a process keeps at once (each a few kB)."""


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


def candidate_calls(hand: int, rules: Rules) -> list[int]:
    """The calls a search weighs for ``hand``: those within 3.5 tricks of its expected count
    (the lowest call if none is), since a call further off never has the best value."""
    estimate = expected_tricks(hand)
    return [call for call in rules.call_range() if abs(call - estimate) <= 3.5] or [rules.min_call]


def simulated_call(
    worlds: np.ndarray,
    world_calls: np.ndarray,
    observation: Observation,
    candidates: Sequence[int],
    rollouts: int,
    eps: float,
    rng: random.Random,
    model: np.ndarray = kernel.NO_MODEL,
) -> int:
    """The candidate call with the best expected score when ``worlds`` are played out by the
    kernel's policy from the first lead (``rollouts`` times each; the other seats by the model
    of play with weights ``model`` when given), the other seats calling ``world_calls``; of
    values level to within 1e-9, the first candidate. ``world_calls`` is changed in the seat's
    column."""
    rules = observation.rules
    flags, scoring = kernel.flags_of(rules), kernel.scoring_of(rules)
    leader = (observation.dealer + 1) % 4
    playouts = kernel.Playouts(eps, model, kernel.others_modelled(model, observation.seat))
    best, best_value = candidates[0], -1e9
    for call in candidates:
        world_calls[:, observation.seat] = call
        won = kernel.simulate(
            worlds, leader, world_calls, flags, scoring, rollouts, playouts, rng.getrandbits(48)
        )
        histogram = np.bincount(won[:, observation.seat], minlength=14)[:14]
        value = dict(call_table(list(histogram / histogram.sum()), rules))[call]
        if value > best_value + 1e-9:
            best, best_value = call, value
    return best


def normal_distribution(mean: float, spread: float) -> list[float]:
    """Probabilities of 0-13 tricks from a normal curve around ``mean``, cut and renormalised."""
    weights = [math.exp(-((tricks - mean) ** 2) / (2 * spread * spread)) for tricks in range(14)]
    total = sum(weights)
    return [weight / total for weight in weights]


def shifted(distribution: Sequence[float], shift: float) -> list[float]:
    """``distribution`` (of 0-13 tricks) moved up by ``shift`` tricks (0 or more): each trick
    count's chance goes to the count ``shift`` above it, split between the two whole counts
    around it, and what would pass 13 stays at 13."""
    whole, part = int(shift), shift - int(shift)
    moved = [0.0] * len(distribution)
    top = len(distribution) - 1
    for tricks, chance in enumerate(distribution):
        moved[min(tricks + whole, top)] += chance * (1 - part)
        moved[min(tricks + whole + 1, top)] += chance * part
    return moved


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
    return _best_of(table), table


def _best_of(table: Sequence[tuple[int, float]]) -> int:
    """The call of highest value in ``table``; of calls level to 9 places, the lowest."""
    return max(table, key=lambda item: (round(item[1], 9), -item[0]))[0]


# Kept per rules, and a room may name rules with any parameters (``classic(deals=N)``): the
# least recently used go past RULES_KEPT, to be computed again if asked for.
@functools.lru_cache(maxsize=RULES_KEPT)
def call_lookup(rules: Rules) -> np.ndarray:
    """The call a hand of strength ``i / 20`` makes when called soundly (as ``casual`` calls):
    the other seats' calls are read as sound ones."""
    calls = []
    for index in range(14 * 20):
        table = call_table(normal_distribution(index / 20, HAND_SPREAD), rules)
        calls.append(_best_of(table))
    return np.array(calls, dtype=np.int64)


@functools.lru_cache(maxsize=RULES_KEPT)
def call_bounds(rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """For each call 0-13, the hand strengths ``[low, high)`` a sound caller makes it with (by
    :func:`call_lookup`, whose call never falls as the strength rises): the lowest call the
    lookup makes covers every weaker hand, as does any call below it, and its highest every
    stronger one, as does any call above it; a call it skips between the two would have an
    empty range (``low == high``)."""
    lookup = call_lookup(rules)
    low, high = np.zeros(14), np.zeros(14)
    for call in range(14):
        strengths = np.flatnonzero(lookup == call)
        if len(strengths):
            low[call], high[call] = strengths[0] / 20, (strengths[-1] + 1) / 20
    low[lookup[0]], high[lookup[-1]] = -np.inf, np.inf
    low[lookup[-1] + 1 :], high[lookup[-1] + 1 :] = low[lookup[-1]], np.inf  # bolder still
    low[: lookup[0]], high[: lookup[0]] = -np.inf, high[lookup[0]]  # more timid still
    return low, high


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


# --- the call model fitted on the expert's own deals -----------------------------------------

CALL_FEATURES = (
    "one",
    "hand strength",
    "second to call",
    "third to call",
    "fourth to call",
    "sum of the earlier calls",
)
#: The expert's tricks as a function of ``CALL_FEATURES`` (least squares), and the spread of
#: its tricks around that mean as ``spread[0] + spread[1] * mean``: fitted on the expert's own
#: self-play by benchmarks/fit_call_model.py (its output is in docs/strength.md).
CALL_MODEL = {
    "mean": (-0.3554, 1.1121, 0.1092, 0.4621, 0.9681, -0.1036),
    "spread": (0.8560, 0.0506),
}

DEAL_SCORE_SPREAD = 2.35
"""The spread (standard deviation, in points) of one seat's score in one deal, for the chance
of finishing first when deals remain (measured with the call model's fit)."""


def call_features(hand: int, observation: Observation) -> list[float]:
    """The call model's features of ``hand`` for the seat of ``observation``."""
    first = (observation.dealer + 1) % 4
    position = (observation.seat - first) % 4
    earlier = [observation.calls[(first + k) % 4] or 0 for k in range(position)]
    return [
        1.0,
        expected_tricks(hand),
        float(position == 1),
        float(position == 2),
        float(position == 3),
        float(sum(earlier)),
    ]


def model_distribution(hand: int, observation: Observation) -> list[float]:
    """The distribution of the tricks the expert takes with ``hand`` (0-13), from the call
    model: a normal curve around the fitted mean with the fitted spread."""
    features = call_features(hand, observation)
    mean = sum(w * f for w, f in zip(CALL_MODEL["mean"], features, strict=True))
    low, slope = CALL_MODEL["spread"]
    spread = max(0.5, low + slope * mean)
    return normal_distribution(mean, spread)


def first_place_chance_ahead(
    distribution: Sequence[float],
    call: int,
    observation: Observation,
    made_chance: float = 0.75,
    spread: float = DEAL_SCORE_SPREAD,
) -> float:
    """Chance of finishing first at the end of the match when deals remain after this one.

    This deal's outcomes are those of :func:`first_place_chance`; each remaining deal moves
    each seat's total by a normal amount of spread ``spread`` points (the same mean for all),
    independently. With no deal left it is :func:`first_place_chance`.
    """
    left = observation.deals_left or 0
    if left <= 0:
        return first_place_chance(distribution, call, observation, made_chance)
    rules = observation.rules
    seat = observation.seat
    sigma = spread * 10 * math.sqrt(left)  # in tenths, as the totals are
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
    normal = NormalDist()
    chance = 0.0
    for tricks, p_tricks in enumerate(distribution):
        if p_tricks <= 0:
            continue
        mine = observation.totals[seat] + score_deal(rules, call, tricks)
        for p, totals in outcomes:
            # P(mine + X > each other + Y_j) with X, Y_j independent N(0, sigma^2): integrate
            # over X with Gauss-Hermite quadrature.
            inner = 0.0
            for node, weight in _GAUSS_HERMITE:
                level = mine + sigma * node
                product = 1.0
                for other_total in totals:
                    product *= normal.cdf((level - other_total) / sigma)
                inner += weight * product
            chance += p_tricks * p * inner
    return chance


def _gauss_hermite(points: int) -> list[tuple[float, float]]:
    """Nodes and weights to integrate against a standard normal density."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(points)
    weights = weights / weights.sum()
    return [(float(x), float(w)) for x, w in zip(nodes, weights, strict=True)]


_GAUSS_HERMITE = _gauss_hermite(16)
