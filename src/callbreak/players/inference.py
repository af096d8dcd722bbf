"""Inference from plays: how likely each sampled world makes the cards the others played.

The hard constraints (:mod:`callbreak.players.knowledge`) rule worlds out; every free choice
says something too. A seat that led a low club probably holds no master club to lead; a seat
that threw the jack rather than the two may have nothing lower. Following Rebstock, Solinas,
Buro and Sturtevant (2019), a world's weight is the product, over the other seats' plays, of
the probability a model of sensible play gives the card each seat played, with its hand in
that world. The model is a softmax over the classes of legal cards (cards that play the same
are one choice) of a few features (``kernel.PLAY_FEATURES``: the policy's card, taking the
trick, rank, spades, masters, suit length), its weights fitted by maximum likelihood on the
expert's own self-play (``benchmarks/fit_play_model.py``), mixed with a little of a uniform
choice so that no surprising card rules a world out.

Everything here is computed from one seat's :class:`~callbreak.game.Observation`.
"""

from __future__ import annotations

import numpy as np

from callbreak.game import Observation
from callbreak.players import kernel
from callbreak.rules import trick_step

__all__ = ["PLAY_FLOOR", "PLAY_WEIGHTS", "play_events", "play_log_likelihoods"]

#: Weights of ``kernel.PLAY_FEATURES``, fitted by benchmarks/fit_play_model.py (its output is in
#: docs/strength.md).
PLAY_WEIGHTS = np.array(
    [0.499, 0.000, -0.357, 0.842, -1.130, 0.716, 1.375, 2.035, 0.896, 0.390, -0.153]
)
PLAY_FLOOR = kernel.PLAY_FLOOR
"""The share of a uniform choice among the classes in the model of play."""


def play_events(
    observation: Observation, *, everyone: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """The plays of the other seats this deal (every seat's with ``everyone``) as rows for
    ``kernel.play_log_likelihoods``, and the tricks each seat had won before each play."""
    rows: list[list[int]] = []
    won_rows: list[list[int]] = []
    won = [0, 0, 0, 0]
    gone = done = voids = 0
    first = True
    for trick in [*observation.tricks, observation.trick]:
        led, high_led, high_spade, win_seat = -1, -1, -1, trick.leader
        for position, card in enumerate(trick.cards):
            seat = trick.seat_of(position)
            state = [trick.leader, position, led, high_led, high_spade, win_seat, int(first)]
            rows.append([seat, *state, gone, done, voids, int(card), 0])
            won_rows.append(list(won))
            if position and card // 13 != led:
                voids |= 1 << (4 * seat + led)
            gone |= 1 << card
            led, high_led, high_spade, win_seat = trick_step(
                led, high_led, high_spade, win_seat, int(card), seat
            )
        if trick.complete:
            won[win_seat] += 1
            done = gone
            first = False
    # A seat's hand at a play is its hand now and every card it played from that play on.
    later = [0, 0, 0, 0]
    for row in reversed(rows):
        later[row[0]] |= 1 << row[11]
        row[12] = later[row[0]]
    keep = [i for i, row in enumerate(rows) if everyone or row[0] != observation.seat]
    events = np.array([rows[i] for i in keep], dtype=np.int64).reshape(len(keep), 13)
    event_won = np.array([won_rows[i] for i in keep], dtype=np.int64).reshape(len(keep), 4)
    return events, event_won


def play_log_likelihoods(
    pool: np.ndarray,
    observation: Observation,
    *,
    weights: np.ndarray = PLAY_WEIGHTS,
    floor: float = PLAY_FLOOR,
    lanes: int = 1,
) -> np.ndarray:
    """Each world's log-likelihood of the other seats' plays so far (zeros before any)."""
    events, event_won = play_events(observation)
    if len(events) == 0:
        return np.zeros(len(pool))
    calls = kernel.calls_of(observation.calls)
    rules = observation.rules
    return kernel.play_log_likelihoods(
        pool,
        events,
        event_won,
        calls,
        kernel.flags_of(rules),
        kernel.scoring_of(rules),
        weights,
        floor,
        lanes,
    )
