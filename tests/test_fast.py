"""The fast path agrees with the checked rules on random positions, and its playouts are sound."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from callbreak.cards import CardSet
from callbreak.fast import (
    deal_hands,
    flags_of,
    legal_mask,
    random_card,
    random_playout,
)
from callbreak.game import Deal, Match
from callbreak.rules import PROFILES, Rules, legal_cards
from tests.helpers import reference_legal

profiles = st.sampled_from(sorted(PROFILES))


def _trick_state(trick: list[int]) -> tuple[int, int, int]:
    led = trick[0] // 13 if trick else -1
    high_led = max((c for c in trick if c // 13 == led), default=-1)
    high_spade = max((c for c in trick if c < 13), default=-1)
    return led, high_led, high_spade


@settings(max_examples=400, deadline=None)
@given(profile=profiles, seed=st.integers(0, 2**32), plays=st.integers(0, 51))
def test_fast_legal_mask_matches_rules_in_real_positions(
    profile: str, seed: int, plays: int
) -> None:
    """Walk a random legal game and compare the three legality readings at every step."""
    rules = PROFILES[profile]
    rng = random.Random(seed)
    match = Match(rules, seed=seed)
    deal = match.deal
    for _ in range(4):
        deal.call(rules.min_call)
    flags = flags_of(rules)
    for _ in range(plays + 1):
        seat = deal.turn
        assert seat is not None
        hand = deal.held(seat).mask
        trick = list(deal.trick.cards)
        first = not deal.tricks
        checked = legal_cards(hand, trick, first, rules)
        fast = legal_mask(hand, *_trick_state(trick), first, flags)
        reference = reference_legal(CardSet(hand), trick, first, rules)
        assert fast == checked
        assert set(CardSet(checked)) == reference
        assert CardSet(checked) == deal.legal_cards()
        if len(deal.tricks) == 12 and len(trick) == 3:
            break
        deal.play(rng.choice(list(deal.legal_cards())))


@settings(max_examples=300, deadline=None)
@given(
    profile=profiles,
    hand=st.sets(st.integers(0, 51), min_size=1, max_size=13),
    trick=st.lists(st.integers(0, 51), min_size=0, max_size=3, unique=True),
    first=st.booleans(),
)
def test_fast_legal_mask_matches_rules_on_arbitrary_hands(
    profile: str, hand: set[int], trick: list[int], first: bool
) -> None:
    """Arbitrary hands and tricks, even ones no real deal reaches, get the same answer."""
    rules = PROFILES[profile]
    hand -= set(trick)
    if not hand:
        return
    mask = sum(1 << c for c in hand)
    assert legal_mask(mask, *_trick_state(trick), first, flags_of(rules)) == legal_cards(
        mask, trick, first, rules
    )


@given(mask=st.integers(1, (1 << 52) - 1), seed=st.integers(0, 1000))
def test_random_card_is_in_the_mask(mask: int, seed: int) -> None:
    assert mask >> random_card(mask, random.Random(seed).random) & 1


def test_random_card_is_uniform() -> None:
    rng = random.Random(3)
    mask = (1 << 5) | (1 << 17) | (1 << 40)
    counts = {5: 0, 17: 0, 40: 0}
    for _ in range(3000):
        counts[random_card(mask, rng.random)] += 1
    assert all(900 < n < 1100 for n in counts.values()), counts


def test_deal_hands_are_a_partition() -> None:
    hands = deal_hands(random.Random(1))
    assert [h.bit_count() for h in hands] == [13] * 4
    assert hands[0] | hands[1] | hands[2] | hands[3] == (1 << 52) - 1


@settings(max_examples=200, deadline=None)
@given(profile=profiles, seed=st.integers(0, 2**32))
def test_random_playout_takes_13_tricks(profile: str, seed: int) -> None:
    rng = random.Random(seed)
    flags = flags_of(PROFILES[profile])
    won = random_playout(deal_hands(rng), rng.randrange(4), flags, rng.random, first=True)
    assert sum(won) == 13 and all(w >= 0 for w in won)


def test_random_playout_from_mid_trick_follows_the_rules() -> None:
    """A playout that starts inside a trick finishes it legally and counts every trick."""
    rules = Rules.parse("strict")
    for seed in range(50):
        rng = random.Random(seed)
        deal = Match(rules, seed=seed).deal
        for _ in range(4):
            deal.call(2)
        for _ in range(rng.randrange(1, 40)):
            deal.play(rng.choice(list(deal.legal_cards())))
        held = [deal.held(s).mask for s in range(4)]
        won = random_playout(
            held,
            deal.trick.leader,
            flags_of(rules),
            rng.random,
            deal.trick.cards,
            first=not deal.tricks,
        )
        assert sum(won) == 13 - len(deal.tricks)


def test_playout_agrees_with_the_checked_deal() -> None:
    """Replaying the fast playout's choices through a Deal: same tricks, same winners."""
    for profile, rules in PROFILES.items():
        for seed in range(30):
            hands = deal_hands(random.Random(seed))
            leader = seed % 4
            source = random.Random(seed * 7 + 1)
            choices = [source.random() for _ in range(52)]
            replay = iter(choices)
            won = random_playout(hands, leader, flags_of(rules), replay.__next__, first=True)
            deal = Deal([CardSet(h) for h in hands], (leader - 1) % 4, rules)
            for _ in range(4):
                deal.call(rules.min_call)
            for value in choices:
                legal = deal.legal_cards()
                deal.play(sorted(legal)[int(value * len(legal))])
            assert deal.won == won, profile
