"""What one seat can know about the hidden cards: everything the rules reveal, nothing more.

Every play is public, and the duties make each play a piece of evidence: a seat that did not
follow suit holds none of that suit; a seat that followed without beating the top card holds no
higher card of that suit (the must-beat duty); a void seat that did not trump holds no spade, or
no spade above the one on the trick (the must-trump duty). What is revealed depends on the
profile: free following reveals nothing about ranks, and without a forced low spade a discard
over a spade says only that no higher spade was held.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from callbreak.cards import FULL_MASK, SPADE_MASK, SUIT_MASKS
from callbreak.game import Observation
from callbreak.players import kernel
from callbreak.rules import above, trick_step


@dataclasses.dataclass(frozen=True)
class Knowledge:
    """One seat's knowledge of a deal, as plain integer masks for the search."""

    seat: int
    hand: int
    gone: int
    """Every card played this deal, the current trick included."""
    done: int
    """The cards of completed tricks."""
    voids: int
    """Bit ``4 * seat + suit`` is set when that seat has shown out of that suit."""
    excluded: tuple[int, ...]
    """For each seat, the cards the rules prove it does not hold."""
    sizes: tuple[int, ...]
    """How many cards each seat holds now."""
    played_by: tuple[int, ...]
    """The cards each seat has played this deal."""

    @property
    def unseen(self) -> int:
        """The cards in other seats' hands."""
        return FULL_MASK & ~(self.hand | self.gone)

    def allowed(self, seat: int) -> int:
        """The unseen cards ``seat`` may hold, as far as this seat can tell."""
        if seat == self.seat:
            return self.hand
        return self.unseen & ~self.excluded[seat]

    # The same facts as the compiled kernel reads them (:mod:`callbreak.players.kernel`): one
    # array per seat, made fresh on each call so that no caller shares a buffer with another.

    def allowed_array(self) -> np.ndarray:
        """``allowed(seat)`` for every seat, as the kernel's world samplers read it."""
        return np.array([self.allowed(seat) for seat in range(4)], dtype=np.int64)

    def sizes_array(self) -> np.ndarray:
        """How many cards each seat holds now, as the kernel's world samplers read it."""
        return np.array(self.sizes, dtype=np.int64)

    def played_array(self) -> np.ndarray:
        """The cards each seat has played, as the kernel's weighing of calls reads them."""
        return np.array(self.played_by, dtype=np.int64)

    @classmethod
    def from_observation(cls, observation: Observation) -> Knowledge:
        """Read everything the seat's observation reveals."""
        rules = observation.rules
        excluded = [0, 0, 0, 0]
        played_by = [0, 0, 0, 0]
        voids = 0
        done = 0
        tricks = [*observation.tricks, observation.trick]
        for index, trick in enumerate(tricks):
            led, high_led, high_spade, winner = -1, -1, -1, trick.leader
            for position, card in enumerate(trick.cards):
                seat = trick.seat_of(position)
                played_by[seat] |= 1 << card
                if position == 0:
                    if card < 13 and index == 0 and rules.no_spade_first_lead:
                        excluded[seat] |= FULL_MASK & ~SPADE_MASK  # led a spade: held only spades
                elif card // 13 == led:
                    trumped = led != 0 and high_spade >= 0
                    top = high_spade if led == 0 else high_led
                    if not rules.free_following and not trumped and card < top:
                        excluded[seat] |= above(top)  # followed low: held nothing higher
                else:
                    voids |= 1 << (4 * seat + led)
                    excluded[seat] |= SUIT_MASKS[led]
                    if card >= 13:  # discarded while void
                        if high_spade < 0 or rules.forced_low_spade:
                            excluded[seat] |= SPADE_MASK
                        else:
                            excluded[seat] |= above(high_spade)
                    elif high_spade >= 0 and card < high_spade:
                        excluded[seat] |= above(high_spade)  # underruffed: no higher spade
                led, high_led, high_spade, winner = trick_step(
                    led, high_led, high_spade, winner, card, seat
                )
            if trick.complete:
                for card in trick.cards:
                    done |= 1 << card
        gone = done
        for card in observation.trick.cards:
            gone |= 1 << card
        hand = observation.hand.mask
        sizes = [13 - played_by[seat].bit_count() for seat in range(4)]
        return cls(
            seat=observation.seat,
            hand=hand,
            gone=gone,
            done=done,
            voids=voids,
            excluded=tuple(mask & ~gone for mask in excluded),
            sizes=tuple(sizes),
            played_by=tuple(played_by),
        )


def position(observation: Observation, knowledge: Knowledge | None = None) -> kernel.Position:
    """The deal as the seat of ``observation`` may know it, as the kernel's searches start from
    it (``knowledge``: the observation's, when it has been read already). The one place an
    observation becomes the kernel's arguments."""
    if knowledge is None:
        knowledge = Knowledge.from_observation(observation)
    trick = observation.trick
    return kernel.Position(
        seat=observation.seat,
        hand=knowledge.hand,
        unseen=knowledge.unseen,
        leader=trick.leader,
        trick=kernel.trick_cards(trick.cards),
        n=len(trick.cards),
        first=not observation.tricks,
        gone=knowledge.gone,
        voids=knowledge.voids,
        calls=kernel.calls_of(observation.calls),
        won=np.array(observation.won, dtype=np.int64),
        flags=kernel.flags_of(observation.rules),
    )
