"""An all-seeing reference: a player that knows every hand, for measuring only.

It is the ceiling the expert is measured against: how much of the gap between the
intermediate player and perfect knowledge of the cards does the expert close? It is never
offered as an opponent (it is not in ``players.LEVELS``, so no menu lists it), and only a host
that chooses to (the arena) shows it the hands: :class:`callbreak.seating.Seating` calls
:meth:`OraclePlayer.see` with every seat's hand before each of its decisions when built with
``reveal_to_oracles``. Anywhere else it refuses to play.

With every hand known, a card's value is found in the one true world: the deal is played out
by the policy many times after each candidate card (the other seats playing as the policy
does), or solved exactly by max^n search once ``solve_below`` cards or fewer are left in its
hand. Calls are simulated the same way in the true deal.
"""

from __future__ import annotations

import random

import numpy as np

from callbreak.cards import Card
from callbreak.game import Observation
from callbreak.players import kernel
from callbreak.players.base import ShownEveryHand
from callbreak.players.calling import call_lookup, candidate_calls, simulated_call
from callbreak.players.expert import TT_BITS, playout_models
from callbreak.players.knowledge import position
from callbreak.spec import format_spec

__all__ = ["OraclePlayer"]


class OraclePlayer(ShownEveryHand):
    """Knows every hand (for measuring only); plays by policy playouts and exact solves."""

    def __init__(
        self,
        seed: int | None = None,
        *,
        rollouts: int = 200,
        eps: float = 0.1,
        solve_below: int = 6,
        playouts: str = "policy",
    ) -> None:
        self.seed = random.getrandbits(48) if seed is None else seed
        self.rng = random.Random(self.seed)
        if not 1 <= rollouts <= 100_000:
            raise ValueError(f"rollouts must be 1-100000, not {rollouts}")
        self.rollouts = rollouts
        self.eps = eps
        self.solve_below = solve_below
        # The others in its playouts play by the policy (eps-greedy) or by the fitted model of
        # play that the expert weighs worlds with (a card drawn from its distribution).
        self.call_model, self.card_model = playout_models(playouts)
        options: dict[str, object] = {}
        if seed is not None:
            options["seed"] = seed
        if rollouts != 200:
            options["rollouts"] = rollouts
        if eps != 0.1:
            options["eps"] = eps
        if solve_below != 6:
            options["solve_below"] = solve_below
        if playouts != "policy":
            options["playouts"] = playouts
        self.spec = format_spec("oracle", options)

    def kernel_functions(self, calling: bool) -> tuple[str, ...]:
        """The compiled kernel functions its calls (or its cards) call (see ``ExpertPlayer``)."""
        return ("hand_strength", "world_calls", "simulate") if calling else ("evaluate",)

    def _world(self, observation: Observation) -> np.ndarray:
        """The true deal as the one world its searches play in."""
        return np.array([self._true_deal(observation, "oracle")], dtype=np.int64)

    def call(self, observation: Observation, *, time: float | None = None) -> int:
        """The call with the best expected score over policy playouts of the true deal."""
        world = self._world(observation)
        rules = observation.rules
        candidates = candidate_calls(observation.hand.mask, rules)
        known = kernel.known_calls(observation.calls)
        calls = kernel.world_calls(world, known, np.zeros(4, dtype=np.int64), call_lookup(rules))
        return simulated_call(
            world,
            calls,
            observation,
            candidates,
            self.rollouts,
            self.eps,
            self.rng,
            self.call_model,
        )

    def play(self, observation: Observation, *, time: float | None = None) -> Card:
        """The card with the best value in the true deal."""
        legal = observation.legal_cards
        if len(legal) == 1:
            self._world(observation)  # refuses to play unless shown the hands, even here
            return next(iter(legal))
        return self.rank_cards(observation)[0][0]

    def rank_cards(self, observation: Observation) -> list[tuple[Card, float]]:
        """Every legal card with its value in points in the true deal, best first (of values
        level to within 1e-9 of a tenth, the lowest card first)."""
        world = self._world(observation)
        legal = observation.legal_cards
        candidates = np.array(sorted(int(card) for card in legal), dtype=np.int64)
        exact = len(observation.hand) <= self.solve_below
        worlds = world if exact else np.repeat(world, self.rollouts // 8 or 1, axis=0)
        playouts = kernel.Playouts(
            self.eps, self.card_model, kernel.others_modelled(self.card_model, observation.seat)
        )
        values, _nodes = kernel.evaluate(
            worlds,
            candidates,
            position(observation),
            kernel.scoring_of(observation.rules),
            playouts,
            8,
            self.solve_below,
            0.0,
            self.rng.getrandbits(48),
            TT_BITS + 4,
            1,
        )
        means = values.mean(axis=0)  # tenths of a point (kernel.evaluate)
        order = sorted(range(len(candidates)), key=lambda i: (-round(means[i], 9), candidates[i]))
        return [(Card(int(candidates[i])), float(means[i]) / 10) for i in order]
