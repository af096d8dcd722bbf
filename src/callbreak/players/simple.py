"""The random, beginner, intermediate and advanced players, and the casual player they are made of.

The casual player plays the search kernel's policy with what it remembers and calls from a
count of its hand. Without weaknesses (``casual``) it remembers everything the rules have
revealed and calls soundly. The levels are weaker the way people are: they forget cards that
have gone and miss what a void means, and they call by feel, hoping for more tricks than their
hand is worth (a broken call costs the whole call, so hope costs the most). The arena showed
that hope is what makes the steps (docs/strength.md): forgetting cards costs the policy little,
since it uses them only to know which cards are masters.
"""

from __future__ import annotations

import inspect
import random

import numpy as np

from callbreak.cards import Card
from callbreak.game import Observation
from callbreak.players import kernel
from callbreak.players.base import Player
from callbreak.players.calling import (
    HAND_SPREAD,
    best_call,
    expected_tricks,
    normal_distribution,
    sure_tricks,
)
from callbreak.players.knowledge import Knowledge
from callbreak.rules import trick_state
from callbreak.spec import format_spec

__all__ = [
    "AdvancedPlayer",
    "BeginnerPlayer",
    "CasualPlayer",
    "IntermediatePlayer",
    "RandomPlayer",
]


class RandomPlayer(Player):
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
    state = kernel.State(
        leader=trick.leader,
        n=len(trick.cards),
        led=led,
        high_led=high_led,
        high_spade=high_spade,
        win_seat=win_seat,
        first=not observation.tricks,
        gone=gone,
        done=knowledge.done & gone,  # what it remembers of the completed tricks
        voids=voids,
    )
    rules = observation.rules
    return int(
        kernel.choose(
            observation.seat,
            knowledge.hand,
            state,
            kernel.calls_of(observation.calls),
            np.array(observation.won, dtype=np.int64),
            kernel.flags_of(rules),
            kernel.scoring_of(rules),
            rng,
            eps,
        )
    )


HONOURS = sum(1 << (13 * suit + rank - 2) for suit in range(4) for rank in range(11, 15))
"""Jacks, queens, kings and aces: the cards a casual player remembers seeing."""

MEMORIES = ("all", "honours", "trick")
CALLINGS = ("strength", "count")
COUNT_SPREAD = 1.2
"""The spread around a count of sure tricks when calling by that count."""


class CasualPlayer(Player):
    """The policy with a person's weaknesses: a memory of only some of the cards played
    (``memory``: every card, the honours and the current trick, or the current trick alone),
    voids noticed or not (``voids``), and calls from the hand's strength or from a count of
    sure tricks (``calls``), moved up by ``optimism`` tricks of hope."""

    name = "casual"
    """The spec's name; a level made of these weaknesses has its own, and takes no options
    but its seed."""

    def __init__(
        self,
        seed: int | None = None,
        *,
        memory: str = "all",
        voids: bool = True,
        calls: str = "strength",
        optimism: float = 0.0,
    ) -> None:
        if memory not in MEMORIES:
            raise ValueError(f"memory must be one of {', '.join(MEMORIES)}, not {memory!r}")
        if calls not in CALLINGS:
            raise ValueError(f"calls must be one of {', '.join(CALLINGS)}, not {calls!r}")
        if not -3 <= optimism <= 3:
            raise ValueError(f"optimism must be -3 to 3 tricks, not {optimism}")
        self.memory, self.voids, self.calls = memory, voids, calls
        self.optimism = float(optimism)  # one spec for 1 and 1.0
        options: dict[str, object] = {} if seed is None else {"seed": seed}
        if self.name == CasualPlayer.name:  # a level's weaknesses are its own, not options
            given = {"memory": memory, "voids": voids, "calls": calls, "optimism": self.optimism}
            defaults = inspect.signature(CasualPlayer).parameters
            options |= {
                key: value for key, value in given.items() if value != defaults[key].default
            }
        self.spec = format_spec(self.name, options)
        self.rng = np.empty(1, dtype=np.uint64)
        self.rng[:] = kernel.seed_state(random.getrandbits(63) if seed is None else seed)

    def call(self, observation: Observation, *, time: float | None = None) -> int:
        """The best call for the trick count the hand seems worth."""
        hand = observation.hand.mask
        if self.calls == "count":
            mean, spread = sure_tricks(hand) + 0.5, COUNT_SPREAD
        else:
            mean, spread = expected_tricks(hand), HAND_SPREAD
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


class AdvancedPlayer(CasualPlayer):
    """Remembers every card and void; calls nine tenths of a trick more than its hand is worth
    (the casual player without weaknesses, ``casual``, calls soundly and is a few points a match
    stronger: docs/strength.md)."""

    name = "advanced"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed, optimism=0.9)


class IntermediatePlayer(CasualPlayer):
    """Remembers the honours played (jacks and up) and notices voids; calls 1.4 tricks more
    than its hand is worth."""

    name = "intermediate"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed, memory="honours", optimism=1.4)


class BeginnerPlayer(CasualPlayer):
    """Remembers only the trick on the table and misses what a void means; calls a trick and a
    half more than its hand is worth."""

    name = "beginner"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed, memory="trick", voids=False, optimism=1.5)
