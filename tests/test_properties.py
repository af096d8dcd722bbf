"""Property tests: random legal matches under every profile keep the game's invariants."""

from __future__ import annotations

import random

from hypothesis import event, given, settings
from hypothesis import strategies as st

from callbreak.cards import Suit
from callbreak.errors import CallbreakError
from callbreak.game import Match, Phase
from callbreak.record import Record, check, dumps, loads
from callbreak.rules import PROFILES, Rules, made, places, score_deal
from tests.helpers import reference_legal

rules_strategy = st.builds(
    lambda profile, low_total, spadeless, eight: PROFILES[profile].replace(
        min_total_calls=low_total, spadeless_redeal=spadeless, eight_wins=eight
    ),
    profile=st.sampled_from(sorted(PROFILES)),
    low_total=st.sampled_from([0, 0, 10, 26]),
    spadeless=st.booleans(),
    eight=st.booleans(),
)


def _expected_winner(trick: tuple[object, ...], leader: int) -> int:
    cards = list(trick)
    spades = [c for c in cards if c.suit == Suit.SPADES]  # type: ignore[attr-defined]
    led = cards[0].suit  # type: ignore[attr-defined]
    pool = spades or [c for c in cards if c.suit == led]  # type: ignore[attr-defined]
    best = max(pool, key=lambda c: c.rank)  # type: ignore[attr-defined]
    return (leader + cards.index(best)) % 4


@settings(max_examples=120, deadline=None)
@given(rules=rules_strategy, seed=st.integers(0, 2**40), play_seed=st.integers(0, 2**40))
def test_random_matches_keep_the_invariants(rules: Rules, seed: int, play_seed: int) -> None:
    rng = random.Random(play_seed)
    match = Match(rules, seed=seed)
    guard = 0
    while not match.is_over:
        guard += 1
        assert guard < 5000, "the match does not end"
        deal = match.deal
        if rules.deals is None and len(match.played_deals()) >= 2 and not deal.actions:
            match.stop()
            break
        if deal.phase is Phase.PLAYING:
            seat = deal.turn
            assert seat is not None
            expected = reference_legal(
                deal.held(seat), list(deal.trick.cards), not deal.tricks, rules
            )
            assert set(deal.legal_cards()) == expected
        match.apply(rng.choice(deal.legal_actions()))

    played = match.played_deals()
    assert played
    for deal in played:
        assert len(deal.tricks) == 13 and sum(deal.won) == 13
        cards = [card for trick in deal.tricks for card in trick.cards]
        assert len(set(cards)) == 52
        for trick in deal.tricks:
            assert trick.winner == _expected_winner(trick.cards, trick.leader)
        for seat in range(4):
            call = deal.calls[seat]
            assert call is not None and call in rules.call_range()
            assert deal.scores()[seat] == score_deal(rules, call, deal.won[seat])
    for deal in match.deals:
        if deal.phase is Phase.THROWN_IN:
            assert deal.thrown_in in ("min_total_calls", "spadeless")
            event(f"thrown in: {deal.thrown_in}")
    if played[-1].eight_winners():
        event("ended by a made call of 8+")
    totals = match.totals()
    assert totals == [sum(deal.scores()[s] for deal in played) for s in range(4)]
    eight = played[-1].eight_winners()
    if not eight:
        assert match.places() == places(totals)
    else:
        # Made calls of 8+ end the match and rank ahead of everyone else.
        assert rules.eight_wins and match.deals[-1] is played[-1]
        assert all(made(rules, played[-1].calls[s] or 0, played[-1].won[s]) for s in eight)
        others = [s for s in range(4) if s not in eight]
        assert max(match.places()[s] for s in eight) < min(
            (match.places()[s] for s in others), default=5
        )

    record = Record.from_match(match)
    assert loads(dumps(record)) == record
    result = check(loads(dumps(record)))
    assert result.valid, result.error
    assert result.totals == totals and result.places == match.places()

    # Undo everything: back to the very first state of the match.
    first_hands = match.deals[0].hands
    while True:
        try:
            match.undo()
        except CallbreakError:
            break
    assert len(match.deals) == 1 and match.deal.hands == first_hands
    assert match.deal.phase is Phase.CALLING and not match.deal.actions
