"""Perft-style golden counts: legal play sequences from fixed seeded positions, per profile.

The counts in ``data/perft.json`` pin the legality of the checked engine and of the players'
compiled kernel: any change in what is legal changes some count. Regenerate them only after a
deliberate rules change, with ``python -m tests.test_perft --write``, and say why in the
commit.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import numpy as np
import pytest

from callbreak.cards import Card
from callbreak.game import Deal, Match
from callbreak.players import kernel
from callbreak.rules import PROFILES
from tests.helpers import reference_legal

DATA = Path(__file__).parent / "data" / "perft.json"
SEEDS = (1, 2, 4, 9)  # 4 and 9 reach positions where strict's forced low spade matters
MIDGAME_PLAYS = 24  # six tricks in, so that voids, trumping and discards come into play
DEPTHS = (4, 8)


def position(profile: str, seed: int, plays: int) -> Deal:
    """The deal of ``seed`` after the minimum calls and ``plays`` seeded random legal cards."""
    rules = PROFILES[profile]
    deal = Match(rules, seed=seed).deal
    for _ in range(4):
        deal.call(rules.min_call)
    rng = random.Random(seed)
    for _ in range(plays):
        deal.play(rng.choice(sorted(deal.legal_cards())))
    return deal


def perft(deal: Deal, depth: int) -> int:
    """Legal play sequences of ``depth`` cards from here, through play and undo."""
    legal = deal.legal_cards()
    if depth <= 1:
        return len(legal) if depth == 1 else 1
    total = 0
    for card in legal:
        deal.play(card)
        total += perft(deal, depth - 1)
        deal.undo()
    return total


def kernel_perft(
    hands: list[int],
    leader: int,
    n: int,
    state: tuple[int, int, int, int],
    first: bool,
    flags: int,
    depth: int,
) -> int:
    """The same count through the kernel's legality and trick step, the ones the players use."""
    if depth == 0 or not any(hands):
        return 1
    seat = (leader + n) % 4
    led, high_led, high_spade, winner = state
    legal = int(kernel.legal(hands[seat], led, high_led, high_spade, first, flags))
    total = 0
    while legal:
        bit = legal & -legal
        legal ^= bit
        card = bit.bit_length() - 1
        hands[seat] ^= bit
        after = kernel.trick_step(led, high_led, high_spade, winner, card, seat)
        if n == 3:
            winner = after[3]
            total += kernel_perft(hands, winner, 0, (-1, -1, -1, winner), False, flags, depth - 1)
        else:
            total += kernel_perft(hands, leader, n + 1, after, first, flags, depth - 1)
        hands[seat] ^= bit
    return total


def _winner(trick: list[Card]) -> int:
    """The winning position, read independently of the engine (for the reference count)."""
    spades = [c for c in trick if c < 13]
    pool = spades or [c for c in trick if c // 13 == trick[0] // 13]
    return trick.index(max(pool))


def compute() -> dict[str, dict[str, int]]:
    """Every golden count, keyed 'profile/seed/plays' then by depth."""
    counts: dict[str, dict[str, int]] = {}
    for profile in PROFILES:
        for seed in SEEDS:
            for plays in (0, MIDGAME_PLAYS):
                deal = position(profile, seed, plays)
                counts[f"{profile}/{seed}/{plays}"] = {str(d): perft(deal, d) for d in DEPTHS}
    return counts


GOLDEN: dict[str, dict[str, int]] = json.loads(DATA.read_text()) if DATA.exists() else {}


@pytest.mark.parametrize("key", sorted(GOLDEN))
def test_perft_counts_match_the_golden_file(key: str) -> None:
    profile, seed, plays = key.split("/")
    deal = position(profile, int(seed), int(plays))
    for depth, expected in GOLDEN[key].items():
        assert perft(deal, int(depth)) == expected, f"{key} depth {depth}"


@pytest.mark.parametrize("key", sorted(GOLDEN))
def test_kernel_perft_agrees(key: str) -> None:
    profile, seed, plays = key.split("/")
    deal = position(profile, int(seed), int(plays))
    hands = [deal.held(s).mask for s in range(4)]
    flags = kernel.flags_of(PROFILES[profile])
    trick = deal.trick
    state = kernel.trick_state(np.array(trick.cards, dtype=np.int64), trick.leader)
    count = kernel_perft(hands, trick.leader, len(trick.cards), state, not deal.tricks, flags, 8)
    assert count == GOLDEN[key]["8"]


def test_golden_file_covers_every_profile() -> None:
    assert {key.split("/")[0] for key in GOLDEN} == set(PROFILES)
    # The profiles differ, so the counts must too: identical counts everywhere would mean the
    # options are not reaching legality.
    assert len({GOLDEN[f"{p}/1/0"]["8"] for p in PROFILES}) >= 3
    assert GOLDEN["strict/4/24"] != GOLDEN["online/4/24"]


@pytest.mark.parametrize("key", sorted(GOLDEN))
def test_reference_rules_give_the_same_depth_4_counts(key: str) -> None:
    """An independent reading of the duty table counts the same sequences."""
    profile, seed, plays = key.split("/")
    rules = PROFILES[profile]
    deal = position(profile, int(seed), int(plays))
    hands = [set(deal.held(s)) for s in range(4)]

    def count(leader: int, trick: list[Card], first: bool, depth: int) -> int:
        if depth == 0:
            return 1
        seat = (leader + len(trick)) % 4
        total = 0
        for card in reference_legal(hands[seat], trick, first, rules):
            hands[seat].remove(card)
            played = [*trick, card]
            if len(played) == 4:
                winner = (leader + _winner(played)) % 4
                total += count(winner, [], False, depth - 1)
            else:
                total += count(leader, played, first, depth - 1)
            hands[seat].add(card)
        return total

    assert count(deal.trick.leader, list(deal.trick.cards), not deal.tricks, 4) == GOLDEN[key]["4"]


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python -m tests.test_perft --write")
    DATA.write_text(json.dumps(compute(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {DATA}")
