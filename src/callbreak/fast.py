"""The fast path: legality, trick winner and random playouts on plain integer masks.

The computer players search millions of positions, so this module trades the checked API's
objects and reasons for bare ``int`` masks and flat tables. It plays by exactly the same rules
as :func:`callbreak.rules.legal_cards`; the tests compare the two on random positions.

A trick in progress is described by three numbers: the led suit (-1 before the lead), the
highest card of the led suit played so far, and the highest spade played so far (-1 for none).

>>> from callbreak.cards import CardSet, Card
>>> from callbreak.rules import STRICT
>>> hand = CardSet.parse("KH JH 4H 2S").mask
>>> str(CardSet(legal_mask(hand, 1, Card.TH, -1, False, flags_of(STRICT))))
'KH JH'
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from callbreak.cards import SPADE_MASK, SUIT_MASKS
from callbreak.rules import Rules

__all__ = [
    "FORCED_LOW_SPADE",
    "FREE_FOLLOWING",
    "NO_SPADE_FIRST_LEAD",
    "deal_hands",
    "flags_of",
    "legal_mask",
    "random_card",
    "random_playout",
]

NO_SPADE_FIRST_LEAD = 1
FREE_FOLLOWING = 2
FORCED_LOW_SPADE = 4

NON_SPADE_MASK = ((1 << 52) - 1) & ~SPADE_MASK
BITS: tuple[int, ...] = tuple(1 << card for card in range(52))
SUIT_OF: tuple[int, ...] = tuple(card // 13 for card in range(52))
#: For each card, the mask of the cards of its suit ranked above it.
ABOVE: tuple[int, ...] = tuple(SUIT_MASKS[c // 13] & ~((2 << c) - 1) for c in range(52))


def flags_of(rules: Rules) -> int:
    """The legality switches of ``rules`` packed into the int the fast path reads."""
    return (
        NO_SPADE_FIRST_LEAD * rules.no_spade_first_lead
        | FREE_FOLLOWING * rules.free_following
        | FORCED_LOW_SPADE * rules.forced_low_spade
    )


def legal_mask(hand: int, led: int, high_led: int, high_spade: int, first: bool, flags: int) -> int:
    """The mask of legal cards for ``hand`` (the same answer as ``rules.legal_cards``)."""
    if led < 0:
        if first and flags & NO_SPADE_FIRST_LEAD and hand & NON_SPADE_MASK:
            return hand & NON_SPADE_MASK
        return hand
    follow = hand & SUIT_MASKS[led]
    if follow:
        if flags & FREE_FOLLOWING:
            return follow
        if not led:
            return follow & ABOVE[high_spade] or follow
        if high_spade < 0:
            return follow & ABOVE[high_led] or follow
        return follow  # trumped: any card of the led suit
    spades = hand & SPADE_MASK
    if not spades:
        return hand
    if high_spade < 0:
        return spades
    return spades & ABOVE[high_spade] or (spades if flags & FORCED_LOW_SPADE else hand)


def random_card(mask: int, rnd: Callable[[], float]) -> int:
    """A uniformly random card of a non-empty mask, with ``rnd`` giving floats in [0, 1)."""
    skip = int(rnd() * mask.bit_count())
    for _ in range(skip):
        mask &= mask - 1
    return (mask & -mask).bit_length() - 1


def deal_hands(rng: random.Random) -> list[int]:
    """Four random 13-card hands as masks."""
    deck = list(range(52))
    rng.shuffle(deck)
    # Dealt singly: seat i gets deck[i], deck[i + 4], ... (summing bits beats a loop of ors).
    bit = BITS.__getitem__
    return [sum(map(bit, deck[seat::4])) for seat in range(4)]


def random_playout(
    hands: Sequence[int],
    leader: int,
    flags: int,
    rnd: Callable[[], float],
    trick: Sequence[int] = (),
    *,
    first: bool,
) -> list[int]:
    """Play the deal out with uniformly random legal cards; return the tricks each seat wins.

    ``hands`` are the cards each seat still holds, ``leader`` the seat that led the current
    trick, ``trick`` the cards already played to it. ``first`` says the current trick is the
    deal's first (it must be given: the first lead may have its own rule). Hands must hold
    equal numbers of cards once the trick is complete.
    """
    # Locals instead of module globals and flag tests: this is the search's inner loop.
    suit_masks, above, suit_of, spade_mask = SUIT_MASKS, ABOVE, SUIT_OF, SPADE_MASK
    no_spade_lead = first and bool(flags & NO_SPADE_FIRST_LEAD)
    free_following = bool(flags & FREE_FOLLOWING)
    forced_low_spade = bool(flags & FORCED_LOW_SPADE)
    hand = list(hands)
    won = [0, 0, 0, 0]
    led = high_led = high_spade = -1
    winner = leader
    for position, card in enumerate(trick):
        if position == 0:
            led, high_led = SUIT_OF[card], card
            if card < 13:
                high_spade = card
        elif card < 13 and card > high_spade:
            high_spade, winner = card, leader + position & 3
        elif high_spade < 0 and SUIT_OF[card] == led and card > high_led:
            high_led, winner = card, leader + position & 3
    position = len(trick)
    seat = leader + position & 3
    while True:
        for _ in range(position, 4):
            # Inlined legal_mask and random_card: this loop is the search's inner loop.
            h = hand[seat]
            if led < 0:
                legal = h
                if no_spade_lead and h & NON_SPADE_MASK:
                    legal = h & NON_SPADE_MASK
            else:
                legal = h & suit_masks[led]
                if legal:
                    if not free_following:
                        if not led:
                            legal = legal & above[high_spade] or legal
                        elif high_spade < 0:
                            legal = legal & above[high_led] or legal
                else:
                    legal = h & spade_mask
                    if not legal:
                        legal = h
                    elif high_spade >= 0:
                        legal = legal & above[high_spade] or (legal if forced_low_spade else h)
            skip = int(rnd() * legal.bit_count())
            for _ in range(skip):
                legal &= legal - 1
            bit = legal & -legal
            card = bit.bit_length() - 1
            hand[seat] = h ^ bit
            if led < 0:
                led, high_led, winner = suit_of[card], card, seat
                if card < 13:
                    high_spade = card
            elif card < 13:
                if card > high_spade:
                    high_spade, winner = card, seat
            elif high_spade < 0 and card > high_led and suit_of[card] == led:
                high_led, winner = card, seat
            seat = seat + 1 & 3
        won[winner] += 1
        if not hand[winner]:
            return won
        seat = winner
        led = high_led = high_spade = -1
        position = 0
        no_spade_lead = False
