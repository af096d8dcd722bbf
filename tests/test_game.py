"""Deals and matches: dealing, turn order, refusals with reasons, undo, observations."""

from __future__ import annotations

import random

import pytest

from callbreak.cards import SPADE_MASK, Card, CardSet
from callbreak.errors import CallbreakError, IllegalCallError, IllegalPlayError
from callbreak.game import (
    REFUSAL_TEXTS,
    Call,
    ClaimRedeal,
    Deal,
    Match,
    Phase,
    Play,
    Refusal,
    deal_from_seed,
    first_dealer_from_seed,
)
from callbreak.rules import PROFILES, STRICT, Duty, Rules
from tests.helpers import scenario


def play_randomly(match: Match, rng: random.Random, stop_after: int = 3) -> None:
    """Play legal random actions to the end (an open-ended match stops after some deals)."""
    while not match.is_over:
        if match.rules.deals is None and len(match.played_deals()) >= stop_after:
            match.stop()
            break
        match.apply(rng.choice(match.deal.legal_actions()))


def test_seeded_deal_is_reproducible_and_complete() -> None:
    hands = deal_from_seed(42, 0, 1)
    assert hands == deal_from_seed(42, 0, 1)
    assert hands != deal_from_seed(43, 0, 1)
    assert hands != deal_from_seed(42, 1, 1)
    assert hands != deal_from_seed(42, 0, 1, redeal=1)
    assert all(len(hand) == 13 for hand in hands)
    assert CardSet().mask == 0
    union = 0
    for hand in hands:
        union |= hand.mask
    assert union == (1 << 52) - 1


def test_dealing_singly_from_the_dealers_next_seat() -> None:
    # The same shuffled and cut deck dealt by another dealer rotates the hands.
    by_seat_0 = deal_from_seed(5, 0, 0)
    by_seat_2 = deal_from_seed(5, 0, 2)
    assert by_seat_2 == by_seat_0[2:] + by_seat_0[:2]


def test_first_dealer_is_random_but_seeded() -> None:
    dealers = {first_dealer_from_seed(seed) for seed in range(40)}
    assert dealers == {0, 1, 2, 3}
    assert Match(seed=9).deal.dealer == first_dealer_from_seed(9)


def test_calls_go_round_from_the_dealers_next_seat() -> None:
    match = Match(seed=11)
    deal = match.deal
    order = []
    for _ in range(4):
        order.append(deal.turn)
        deal.call(3)
    first = (deal.dealer + 1) % 4
    assert order == [first, (first + 1) % 4, (first + 2) % 4, deal.dealer]
    assert deal.phase is Phase.PLAYING
    assert deal.turn == first  # the dealer's next seat leads


def test_illegal_call_is_refused_with_range() -> None:
    deal = Match(seed=1).deal
    with pytest.raises(IllegalCallError, match="calls run from 2 to 13") as caught:
        deal.call(1)
    assert caught.value.legal == tuple(range(2, 14))
    with pytest.raises(IllegalCallError, match="whole number"):
        deal.call("3")  # type: ignore[arg-type]
    with pytest.raises(IllegalCallError):
        deal.call(True)
    assert deal.actions == []


def test_bhoos_calls_stop_at_eight() -> None:
    deal = Match("bhoos", seed=1).deal
    with pytest.raises(IllegalCallError, match="1 to 8"):
        deal.call(9)
    deal.call(8)


def test_play_before_calls_and_out_of_hand_are_refused() -> None:
    deal = Match(seed=2).deal
    with pytest.raises(IllegalPlayError, match="calls are not all in"):
        deal.play(Card.AS)
    for _ in range(4):
        deal.call(2)
    leader = deal.turn
    assert leader is not None
    foreign = next(card for card in deal.hands[(leader + 1) % 4])
    with pytest.raises(IllegalPlayError, match="you do not hold") as caught:
        deal.play(foreign)
    assert caught.value.why == Refusal("not_held", card=foreign)
    with pytest.raises(CallbreakError, match="calling is over"):
        deal.call(3)


def test_refusals_are_data_with_one_english_wording() -> None:
    deal = Match(seed=2).deal
    assert deal.play_refusal(Card.AS) == Refusal("calls_pending")
    assert deal.call_refusal(1) == Refusal("call_range", 2, 13)
    assert deal.call_problem(1) == "calls run from 2 to 13 under these rules"
    for kind in REFUSAL_TEXTS:  # every wording fills its blanks
        assert "{" not in Refusal(kind, 1, 8, "over", int(Card.TH)).reason
    deal = scenario(STRICT, "TH", "KH JH 4H", "DC")
    duty = deal.play_refusal(Card._4H)
    assert isinstance(duty, Duty) and (duty.kind, duty.card) == ("beat", int(Card.TH))


def test_illegal_card_message_names_duty_and_legal_cards() -> None:
    deal = scenario(STRICT, "TH", "KH JH 4H", "DC")
    with pytest.raises(IllegalPlayError) as caught:
        deal.play("4H")
    error = caught.value
    assert str(error).startswith("illegal 4♥: must beat the 10♥ while hearts are not trumped")
    assert str(error).endswith("legal: J♥ K♥")
    assert error.legal == (Card.JH, Card.KH)
    assert deal.explain(Card._4H) == (
        "Must beat the 10♥ while hearts are not trumped: play J♥ or K♥"
    )
    assert deal.explain(Card.KH) is None


def test_first_lead_explanation() -> None:
    match = Match("online", seed=3)
    deal = match.deal
    for _ in range(4):
        deal.call(1)
    seat = deal.turn
    assert seat is not None
    hand = deal.held(seat)
    spade = hand.suit(0).highest()
    if spade is None or hand.mask & ~SPADE_MASK == 0:
        pytest.skip("this seed's leader holds no spade or only spades")
    assert deal.explain(spade).startswith(  # type: ignore[union-attr]
        "Lead a non-spade to the first trick unless you hold only spades: play"
    )


def test_a_full_deal_scores_and_ends() -> None:
    match = Match(seed=4)
    deal = match.deal
    rng = random.Random(4)
    while deal.phase is not Phase.OVER:
        deal.apply(rng.choice(deal.legal_actions()))
    assert sum(deal.won) == 13 and len(deal.tricks) == 13
    assert deal.turn is None and deal.legal_actions() == []
    for seat in range(4):
        assert not deal.held(seat)
    for trick in deal.tricks:
        assert trick.complete and trick.winner is not None


def test_undo_restores_every_state_exactly() -> None:
    rng = random.Random(12)
    for profile in PROFILES:
        deal = Match(profile, seed=12).deal
        snapshots = []
        while not deal.is_over:
            snapshots.append(_state(deal))
            deal.apply(rng.choice(deal.legal_actions()))
        while snapshots:
            deal.undo()
            assert _state(deal) == snapshots.pop()
        with pytest.raises(CallbreakError, match="nothing to undo"):
            deal.undo()


def _state(deal: Deal) -> tuple[object, ...]:
    return (
        deal.phase,
        deal.turn,
        tuple(deal.calls),
        tuple(deal.tricks),
        deal.trick,
        tuple(deal.won),
        tuple(deal.held(s) for s in range(4)),
        deal.thrown_in,
        deal.legal_cards(),
    )


def test_match_plays_five_deals_with_dealer_passing_on() -> None:
    match = Match(seed=21)
    play_randomly(match, random.Random(21))
    assert match.is_over and len(match.deals) == 5
    dealers = [deal.dealer for deal in match.deals]
    assert dealers == [(dealers[0] + i) % 4 for i in range(5)]
    totals = match.totals()
    assert totals == [sum(d.scores()[s] for d in match.deals) for s in range(4)]
    with pytest.raises(CallbreakError, match="match is over"):
        match.call(3)


def test_same_seed_same_match() -> None:
    first, second = Match("classic", seed="abc"), Match("classic", seed="abc")
    play_randomly(first, random.Random(1))
    play_randomly(second, random.Random(1))
    assert [d.hands for d in first.deals] == [d.hands for d in second.deals]
    assert first.totals() == second.totals()


def test_unseeded_match_records_its_seed() -> None:
    match = Match()
    again = Match(seed=match.seed)
    assert again.deal.hands == match.deal.hands


def test_match_undo_reaches_into_the_previous_deal() -> None:
    match = Match(seed=5)
    rng = random.Random(5)
    while len(match.deals) < 2:
        match.apply(rng.choice(match.deal.legal_actions()))
    assert match.deal.actions == []
    undone = match.undo()
    assert isinstance(undone, Play)
    assert len(match.deals) == 1 and match.deal.phase is Phase.PLAYING
    assert len(match.deal.tricks) == 12


def test_min_total_calls_throws_in_and_same_dealer_redeals() -> None:
    match = Match("classic(min_total_calls=10)", seed=8)
    dealer = match.deal.dealer
    for _ in range(4):
        match.call(2)
    assert len(match.deals) == 2
    assert match.deals[0].phase is Phase.THROWN_IN
    assert match.deals[0].thrown_in == "min_total_calls"
    assert match.deal.dealer == dealer
    assert match.deal.hands != match.deals[0].hands
    assert match.deal_number == 1
    match.undo()
    assert len(match.deals) == 1 and match.deal.phase is Phase.CALLING


def test_a_throw_in_does_not_shift_the_later_deals() -> None:
    """Two matches from one seed stay on the same deals whether or not one throws a deal in."""
    thrown = Match("classic(min_total_calls=10)", seed=8)
    played = Match("classic(min_total_calls=10)", seed=8)
    for _ in range(4):
        thrown.call(1)  # thrown in: the same dealer deals again
    for match in (thrown, played):
        while len(match.played_deals()) < 1:
            deal = match.deal
            if deal.phase is Phase.CALLING:
                match.call(4)
            else:
                match.play(deal.legal_cards().lowest())  # type: ignore[arg-type]
    assert thrown.deals[0].phase is Phase.THROWN_IN and len(thrown.deals) == 3
    assert thrown.deals[1].hands != played.deals[0].hands  # the redeal is a new shuffle
    assert thrown.deal.hands == played.deal.hands  # the next played deal is the same again
    assert thrown.deal.dealer == played.deal.dealer


def test_calls_reaching_the_minimum_play_on() -> None:
    match = Match("classic(min_total_calls=10)", seed=8)
    for value in (2, 2, 3, 3):
        match.call(value)
    assert match.deal.phase is Phase.PLAYING


def _spadeless_seed(rules: Rules) -> tuple[int, int]:
    """A seed whose first deal gives some seat no spade, and that seat."""
    for seed in range(100_000):
        dealer = first_dealer_from_seed(seed)
        hands = deal_from_seed(seed, 0, dealer)
        for seat, hand in enumerate(hands):
            if not hand.mask & SPADE_MASK:
                return seed, seat
    raise AssertionError("no spadeless hand found")


def test_spadeless_redeal_claim() -> None:
    rules = Rules.parse("classic(spadeless_redeal=true)")
    seed, seat = _spadeless_seed(rules)
    match = Match(rules, seed=seed)
    deal = match.deal
    while deal.turn != seat:
        assert not deal.may_claim_redeal()
        with pytest.raises(IllegalCallError, match="only a player dealt no spade"):
            deal.claim_redeal()
        match.call(1)
    assert ClaimRedeal() in deal.legal_actions()
    match.claim_redeal()
    assert deal.thrown_in == "spadeless" and match.deal is not deal
    assert match.deal.dealer == deal.dealer


def test_spadeless_redeal_needs_the_option() -> None:
    seed, seat = _spadeless_seed(STRICT)
    match = Match(STRICT, seed=seed)
    while match.deal.turn != seat:
        match.call(2)
    with pytest.raises(IllegalCallError, match="no redeal") as refused:
        match.claim_redeal()
    assert refused.value.legal == tuple(STRICT.call_range())  # the refusal says what is legal


def test_eight_wins_ends_the_match() -> None:
    rules = Rules.parse("classic(eight_wins=true)")
    for seed in range(300):
        match = Match(rules, seed=seed)
        rng = random.Random(seed)
        deal = match.deal
        for _ in range(4):
            match.call(8 if deal.turn == (deal.dealer + 1) % 4 else 1)
        while deal.phase is Phase.PLAYING:
            match.apply(rng.choice(deal.legal_actions()))
        if deal.eight_winners():
            break
    else:
        raise AssertionError("no seed made a call of 8 by random play")
    winner = deal.eight_winners()[0]
    assert match.is_over and len(match.deals) == 1
    assert match.places()[winner] == 1


def test_open_ended_match_stops_between_deals() -> None:
    match = Match("pagat", seed=3)
    with pytest.raises(CallbreakError, match="at least one deal"):
        match.stop()
    rng = random.Random(3)
    while len(match.played_deals()) < 2:
        match.apply(rng.choice(match.deal.legal_actions()))
    match.stop()
    assert match.is_over and len(match.deals) == 2
    assert match.undo() is None  # cancels the stop only
    assert not match.is_over and match.deal.phase is Phase.CALLING and len(match.deals) == 3
    match.undo()
    assert match.deal.phase is Phase.PLAYING and len(match.deals) == 2
    with pytest.raises(CallbreakError, match="ends after 5 deals"):
        Match(seed=1).stop()


def test_observation_shows_only_the_own_hand() -> None:
    match = Match(seed=14)
    rng = random.Random(14)
    for _ in range(4 + 6):
        match.apply(rng.choice(match.deal.legal_actions()))
    deal = match.deal
    for seat in range(4):
        seen = match.observation(seat)
        assert seen.hand == deal.held(seat)
        others = [deal.held(other) for other in range(4) if other != seat]
        hidden = CardSet(sum(h.mask for h in others))
        assert seen.unseen == hidden
        assert not set(_cards_in(seen)) & set(hidden)
        assert seen.calls == tuple(deal.calls)
        assert (seen.legal_cards == deal.legal_cards()) == (seat == deal.turn)


def _cards_in(value: object) -> list[Card]:
    """Every card reachable inside an observation's fields, except the derived unseen set."""
    found: list[Card] = []
    if isinstance(value, Card):
        found.append(value)
    elif isinstance(value, CardSet):
        found.extend(value)
    elif isinstance(value, (tuple, list)):
        for item in value:
            found.extend(_cards_in(item))
    elif hasattr(value, "__dataclass_fields__"):
        for name in value.__dataclass_fields__:
            found.extend(_cards_in(getattr(value, name)))
    return found


def test_deal_refuses_bad_hands() -> None:
    hands = deal_from_seed(1, 0, 0)
    with pytest.raises(CallbreakError, match="dealt twice"):
        Deal([hands[0], hands[0], hands[2], hands[3]], 0)
    with pytest.raises(CallbreakError, match="12 cards"):
        Deal([hands[0] - CardSet([next(iter(hands[0]))]), *hands[1:]], 0)
    with pytest.raises(CallbreakError, match="dealer"):
        Deal(hands, 4)


def test_generic_actions() -> None:
    deal = Match(seed=6).deal
    assert deal.legal_actions() == [Call(v) for v in range(2, 14)]
    deal.apply(Call(2))
    assert deal.undo() == Call(2)
    with pytest.raises(CallbreakError, match="not an action"):
        deal.apply("2")  # type: ignore[arg-type]
