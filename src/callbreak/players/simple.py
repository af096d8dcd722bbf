"""The random, beginner and intermediate players."""

from __future__ import annotations

import random

import numpy as np

from callbreak.cards import Card, CardSet
from callbreak.game import Observation
from callbreak.players import kernel
from callbreak.players.calling import (
    best_call,
    expected_tricks,
    normal_distribution,
    sure_tricks,
)
from callbreak.players.knowledge import Knowledge
from callbreak.rules import trick_state, trick_step

__all__ = ["BeginnerPlayer", "IntermediatePlayer", "RandomPlayer"]


class RandomPlayer:
    """A uniformly random legal card and a random call in range."""

    def __init__(self, seed: int | None = None) -> None:
        self.spec = "random" if seed is None else f"random(seed={seed})"
        self.rng = random.Random(seed)

    def call(self, observation: Observation, *, time: float | None = None) -> int:
        """A random legal call."""
        return self.rng.choice(observation.legal_calls)

    def play(self, observation: Observation, *, time: float | None = None) -> Card:
        """A random legal card."""
        return self.rng.choice(list(observation.legal_cards))


class BeginnerPlayer:
    """Counts sure tricks, calls cautiously, wins and ducks cheaply.

    Its count of sure tricks is the one the full-rules guide's tips for beginners teach. It
    remembers nothing of the cards played: only aces are sure winners to it.
    """

    spread = 1.2

    def __init__(self, seed: int | None = None) -> None:
        self.spec = "beginner" if seed is None else f"beginner(seed={seed})"
        self.rng = random.Random(seed)

    def call(self, observation: Observation, *, time: float | None = None) -> int:
        """The best call for a trick count around the sure tricks."""
        mean = sure_tricks(observation.hand.mask) + 0.5
        return best_call(normal_distribution(mean, self.spread), observation)[0]

    def claim_redeal(self, observation: Observation) -> bool:
        """A spadeless hand asks for a new deal when it holds fewer than two sure tricks."""
        return sure_tricks(observation.hand.mask) < 2

    def play(self, observation: Observation, *, time: float | None = None) -> Card:
        """Win cheaply while short of the call, otherwise play low."""
        legal = observation.legal_cards
        if len(legal) == 1:
            return next(iter(legal))
        seat = observation.seat
        need = (observation.calls[seat] or 0) > observation.won[seat]
        trick = observation.trick.cards
        if not trick:
            aces = [card for card in legal if card.rank == 14 and card.suit != 0]
            if need and aces:
                return aces[0]
            return _low_from_longest(legal)
        winners = [card for card in legal if _beats(card, trick)]
        if need and winners:
            return min(winners, key=_cheapness)
        losers = [card for card in legal if card not in winners]
        return min(losers or list(legal), key=_cheapness)


def _cheapness(card: Card) -> tuple[int, int]:
    """Order for 'the cheapest card': low ranks first, spades last."""
    return (card.suit == 0, card.rank)


def _beats(card: Card, trick: tuple[Card, ...]) -> bool:
    """Whether ``card`` would take the lead of ``trick`` now."""
    position = len(trick)
    return trick_step(*trick_state(trick), card, position)[3] == position


def _low_from_longest(legal: CardSet) -> Card:
    best = None
    for suit in (1, 2, 3, 0):
        part = legal.suit(suit)
        if part and (best is None or len(part) > len(legal.suit(best.suit))):
            best = part.lowest()
    assert best is not None
    return best


class IntermediatePlayer:
    """Remembers every card, tracks voids and masters, plays toward its call and breaks rivals.

    Calls from a finer count of the hand (the online game's guide counts half tricks) and the
    best expected score; plays by the search kernel's policy with everything the rules have
    revealed.
    """

    spread = 0.95  # the residual spread of hand_strength, from benchmarks/calibrate_hand.py

    def __init__(self, seed: int | None = None) -> None:
        self.spec = "intermediate" if seed is None else f"intermediate(seed={seed})"
        self.rng = np.empty(1, dtype=np.uint64)
        self.rng[:] = kernel.seed_state(0 if seed is None else seed)
        if seed is None:
            self.rng[:] = kernel.seed_state(random.getrandbits(63))

    def call(self, observation: Observation, *, time: float | None = None) -> int:
        """The best call for a trick count around the hand's estimated tricks."""
        mean = expected_tricks(observation.hand.mask)
        return best_call(normal_distribution(mean, self.spread), observation)[0]

    def claim_redeal(self, observation: Observation) -> bool:
        """A spadeless hand asks for a new deal unless it is worth three tricks."""
        return expected_tricks(observation.hand.mask) < 3

    def play(self, observation: Observation, *, time: float | None = None) -> Card:
        """The policy's card for what this seat knows."""
        return Card(policy_card(observation, Knowledge.from_observation(observation), self.rng))


def policy_card(
    observation: Observation,
    knowledge: Knowledge,
    rng: np.ndarray,
    eps: float = 0.0,
    *,
    gone: int | None = None,
    voids: int | None = None,
) -> int:
    """The kernel policy's choice for the seat of ``observation``; ``gone`` and ``voids``
    replace what the seat remembers of the cards played and the suits shown out of."""
    gone = knowledge.gone if gone is None else gone
    voids = knowledge.voids if voids is None else voids
    trick = observation.trick
    led, high_led, high_spade, win_seat = trick_state([int(c) for c in trick.cards], trick.leader)
    calls = np.array([c or 0 for c in observation.calls], dtype=np.int64)
    won = np.array(observation.won, dtype=np.int64)
    return int(
        kernel.choose(
            observation.seat,
            knowledge.hand,
            trick.leader,
            len(trick.cards),
            led,
            high_led,
            high_spade,
            win_seat,
            not observation.tricks,
            gone,
            voids,
            calls,
            won,
            kernel.flags_of(observation.rules),
            kernel.scoring_of(observation.rules),
            rng,
            eps,
        )
    )


HONOURS = sum(1 << (13 * suit + rank - 2) for suit in range(4) for rank in range(11, 15))
"""Jacks, queens, kings and aces: the cards a casual player remembers seeing."""

MEMORIES = ("all", "honours", "trick")
CALLINGS = ("strength", "count")


class CasualPlayer:
    """The policy with a person's weaknesses: a memory of only some of the cards played
    (``memory``: every card, the honours and the current trick, or the current trick alone),
    voids noticed or not (``voids``), and calls from the hand's strength or from a count of
    sure tricks (``calls``)."""

    def __init__(
        self,
        seed: int | None = None,
        *,
        memory: str = "all",
        voids: bool = True,
        calls: str = "strength",
        optimism: float = 0.0,
        name: str = "casual",
    ) -> None:
        if memory not in MEMORIES:
            raise ValueError(f"memory must be one of {', '.join(MEMORIES)}, not {memory!r}")
        if calls not in CALLINGS:
            raise ValueError(f"calls must be one of {', '.join(CALLINGS)}, not {calls!r}")
        self.memory, self.voids, self.calls = memory, voids, calls
        self.optimism = optimism
        self.spec = name if seed is None else f"{name}(seed={seed})"
        self.rng = np.empty(1, dtype=np.uint64)
        self.rng[:] = kernel.seed_state(random.getrandbits(63) if seed is None else seed)

    def call(self, observation: Observation, *, time: float | None = None) -> int:
        """The best call for the trick count the hand seems worth."""
        hand = observation.hand.mask
        if self.calls == "count":
            mean, spread = sure_tricks(hand) + 0.5, BeginnerPlayer.spread
        else:
            mean, spread = expected_tricks(hand), IntermediatePlayer.spread
        mean += self.optimism
        return best_call(normal_distribution(mean, spread), observation)[0]

    def claim_redeal(self, observation: Observation) -> bool:
        """A spadeless hand asks for a new deal unless it seems worth three tricks."""
        return expected_tricks(observation.hand.mask) < 3

    def play(self, observation: Observation, *, time: float | None = None) -> Card:
        """The policy's card for what this player remembers."""
        knowledge = Knowledge.from_observation(observation)
        on_table = 0
        for card in observation.trick.cards:
            on_table |= 1 << card
        gone = knowledge.gone
        if self.memory == "honours":
            gone = (gone & HONOURS) | on_table
        elif self.memory == "trick":
            gone = on_table
        voids = knowledge.voids if self.voids else 0
        return Card(policy_card(observation, knowledge, self.rng, gone=gone, voids=voids))
