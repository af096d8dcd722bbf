"""Every worked case and scoring example of rules.md, per profile, plus the profile machinery."""

from __future__ import annotations

import pytest

from callbreak.cards import Card, CardSet, parse_cards
from callbreak.errors import InvalidRulesError
from callbreak.rules import (
    BHOOS,
    CLASSIC,
    ONLINE,
    PAGAT,
    PROFILES,
    STRICT,
    Rules,
    describe_legal,
    duties,
    format_tenths,
    legal_cards,
    places,
    score_deal,
    trick_step,
    trick_winner,
)
from tests.helpers import cards, parse_tenths, reference_legal, scenario

ALL = ["strict", "classic", "online", "pagat", "bhoos"]
MUST_BEAT = ["strict", "classic", "online", "bhoos"]


def legal(profile: str, trick: str, hand: str, first: bool = False) -> set[str]:
    """The legal cards of ``hand`` on ``trick`` under a profile, checked three ways."""
    rules = PROFILES[profile]
    hand_cards, trick_cards = parse_cards(hand), parse_cards(trick)
    mask = legal_cards(CardSet(hand_cards).mask, trick_cards, first, rules)
    expected = reference_legal(hand_cards, trick_cards, first, rules)
    assert set(CardSet(mask)) == expected, "rules.legal_cards disagrees with the reference"
    return {str(card) for card in CardSet(mask)}


# --- worked cases: each line of rules.md, each profile ---------------------------------------


@pytest.mark.parametrize("profile", MUST_BEAT)
def test_7h_led_holding_ah_3h_only_ace(profile: str) -> None:
    assert legal(profile, "7H", "AH 3H KD") == {"AH"}


def test_7h_led_holding_ah_3h_pagat_follows_freely() -> None:
    assert legal("pagat", "7H", "AH 3H KD") == {"AH", "3H"}


@pytest.mark.parametrize("profile", MUST_BEAT)
def test_9h_led_holding_kh_4h_only_king(profile: str) -> None:
    assert legal(profile, "9H", "KH 4H 2C") == {"KH"}


def test_9h_led_pagat_any_heart() -> None:
    assert legal("pagat", "9H", "KH 4H 2C") == {"KH", "4H"}


@pytest.mark.parametrize("profile", MUST_BEAT)
def test_10h_led_holding_kh_jh_4h_jack_or_king(profile: str) -> None:
    assert legal(profile, "TH", "KH JH 4H") == {"KH", "JH"}


def test_10h_led_pagat_any_heart() -> None:
    assert legal("pagat", "TH", "KH JH 4H") == {"KH", "JH", "4H"}


@pytest.mark.parametrize("profile", ALL)
def test_10h_then_3s_releases_followers(profile: str) -> None:
    assert legal(profile, "TH 3S", "KH JH 4H AS") == {"KH", "JH", "4H"}


def test_void_with_only_lower_spade_strict_must_play_it() -> None:
    assert legal("strict", "AH 6H 4S", "2S KD") == {"2S"}


@pytest.mark.parametrize("profile", ["classic", "online", "pagat", "bhoos"])
def test_void_with_only_lower_spade_others_discard_freely(profile: str) -> None:
    assert legal(profile, "AH 6H 4S", "2S KD") == {"2S", "KD"}


@pytest.mark.parametrize("profile", ALL)
def test_trumped_9h_void_must_overtrump_with_queen(profile: str) -> None:
    assert legal(profile, "9H KH 5S", "QS 3S") == {"QS"}


@pytest.mark.parametrize("profile", ALL)
def test_9s_on_trick_void_must_overtrump(profile: str) -> None:
    assert legal(profile, "7D 9S", "QS 4S KH") == {"QS"}


def test_as_on_trick_online_every_card_legal() -> None:
    assert legal("online", "7D AS", "QS 4S KH") == {"QS", "4S", "KH"}


def test_as_on_trick_strict_any_spade() -> None:
    assert legal("strict", "7D AS", "QS 4S KH") == {"QS", "4S"}


@pytest.mark.parametrize("profile", ["classic", "pagat", "bhoos"])
def test_as_on_trick_free_discard_profiles(profile: str) -> None:
    assert legal(profile, "7D AS", "QS 4S KH") == {"QS", "4S", "KH"}


@pytest.mark.parametrize("profile", ALL)
def test_void_no_spade_in_trick_must_trump(profile: str) -> None:
    assert legal(profile, "7D", "2S KH QC") == {"2S"}


@pytest.mark.parametrize("profile", ALL)
def test_void_without_spades_any_card(profile: str) -> None:
    assert legal(profile, "7D 9S", "KH QC") == {"KH", "QC"}


@pytest.mark.parametrize("profile", MUST_BEAT)
def test_spade_lead_must_beat_highest_spade(profile: str) -> None:
    assert legal(profile, "9S JS", "QS 4S KH") == {"QS"}


def test_spade_lead_pagat_any_spade() -> None:
    assert legal("pagat", "9S JS", "QS 4S KH") == {"QS", "4S"}


@pytest.mark.parametrize("profile", ["strict", "online"])
def test_first_lead_no_spade_while_holding_others(profile: str) -> None:
    assert legal(profile, "", "AS 2S 3H", first=True) == {"3H"}
    assert legal(profile, "", "AS 2S 3H", first=False) == {"AS", "2S", "3H"}


@pytest.mark.parametrize("profile", ["strict", "online"])
def test_first_lead_only_spades_may_lead_spade(profile: str) -> None:
    hand = "AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S"
    assert legal(profile, "", hand, first=True) == {str(c) for c in parse_cards(hand)}


@pytest.mark.parametrize("profile", ["classic", "pagat", "bhoos"])
def test_first_lead_spade_allowed(profile: str) -> None:
    assert legal(profile, "", "AS 2S 3H", first=True) == {"AS", "2S", "3H"}


# --- the same cases inside a real deal -------------------------------------------------------


@pytest.mark.parametrize(
    ("profile", "plays", "hand", "fill", "expected"),
    [
        ("strict", "7H", "AH 3H", "DC", "AH"),
        ("pagat", "7H", "AH 3H", "DC", "AH 3H"),
        ("classic", "TH", "KH JH 4H", "DC", "KH JH"),
        ("online", "TH 3S", "KH JH 4H", "DC", "KH JH 4H"),
        ("strict", "AH 6H 4S", "2S KD", "DC", "2S"),
        ("bhoos", "AH 6H 4S", "2S KD", "DC", "*"),
        ("classic", "9H KH 5S", "QS 3S", "DC", "QS"),
        ("online", "7D AS", "QS 4S KH", "HC", "*"),
        ("strict", "7D AS", "QS 4S KH", "HC", "QS 4S"),
    ],
)
def test_worked_cases_in_a_deal(
    profile: str, plays: str, hand: str, fill: str, expected: str
) -> None:
    deal = scenario(PROFILES[profile], plays, hand, fill)
    held = deal.held(deal.turn)  # type: ignore[arg-type]
    want = held if expected == "*" else CardSet.parse(expected)
    assert deal.legal_cards() == want


# --- reasons ---------------------------------------------------------------------------------


def forbidding_duty(
    card: int, hand: int, trick: list[Card], first: bool, rules: Rules
) -> str | None:
    """The reason a player is given for ``card``: the first duty that no longer allows it."""
    for duty in duties(hand, trick, first, rules):
        if not duty.allowed >> card & 1:
            return duty.reason
    return None


def test_reason_for_not_beating() -> None:
    hand = CardSet.parse("KH JH 4H").mask
    reason = forbidding_duty(parse_cards("4H")[0], hand, parse_cards("TH"), False, STRICT)
    assert reason == "must beat the 10♥ while hearts are not trumped"
    assert describe_legal(legal_cards(hand, parse_cards("TH"), False, STRICT)) == "J♥ or K♥"


def test_reason_for_first_lead_spade() -> None:
    hand = CardSet.parse("AS 3H").mask
    reason = forbidding_duty(parse_cards("AS")[0], hand, [], True, ONLINE)
    assert reason == "lead a non-spade to the first trick unless you hold only spades"


@pytest.mark.parametrize(
    ("trick", "hand", "card", "words"),
    [
        ("7H", "AH 3H KD", "KD", "must follow suit, since hearts were led"),
        ("7D", "2S KH", "KH", "must trump, holding no diamonds"),
        ("7D 9S", "QS 4S KH", "4S", "must overtrump the 9♠, holding no diamonds but a higher"),
        ("AH 6H 4S", "2S KD", "KD", "must still play a spade, holding no hearts"),
        ("9S JS", "QS 4S", "4S", "must beat the J♠ when spades are led"),
    ],
)
def test_each_duty_has_words(trick: str, hand: str, card: str, words: str) -> None:
    reason = forbidding_duty(
        parse_cards(card)[0], CardSet.parse(hand).mask, parse_cards(trick), False, STRICT
    )
    assert reason is not None and reason.startswith(words)


# --- trick winner ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("trick", "winner"),
    [
        ("7H AH 4S 2S", 2),
        ("9H KH 5S QS", 3),
        ("TH 3S 4H KH", 1),
        ("2C AD KH QS", 3),
        ("2C AD KH 3C", 3),
        ("5S 4S 3S 2S", 0),
        ("5S AH AS 2S", 2),
    ],
)
def test_trick_winner(trick: str, winner: int) -> None:
    assert trick_winner(parse_cards(trick)) == winner


@pytest.mark.parametrize(
    ("trick", "state"),
    [
        ("", (-1, -1, -1, 2)),
        ("7H", (1, Card._7H, -1, 2)),
        ("7H AH", (1, Card.AH, -1, 3)),
        ("7H AH 4S", (1, Card.AH, Card._4S, 0)),
        ("7H AH 4S KH", (1, Card.AH, Card._4S, 0)),
        ("7H AH 4S 9S", (1, Card.AH, Card._9S, 1)),
        ("5S AS", (0, Card._5S, Card.AS, 3)),
        ("2C AD", (3, Card._2C, -1, 2)),
    ],
)
def test_trick_step_from_the_lead(trick: str, state: tuple[int, int, int, int]) -> None:
    """The state after each card, seat 2 leading; ``high_led`` stops once a spade is in."""
    current = (-1, -1, -1, 2)
    for position, card in enumerate(parse_cards(trick)):
        current = trick_step(*current, card, (2 + position) % 4)
    assert current == state


# --- scoring ---------------------------------------------------------------------------------


@pytest.mark.parametrize("rules", [STRICT, CLASSIC, ONLINE, BHOOS])
def test_scoring_example_3_4_2_3(rules: Rules) -> None:
    scores = [score_deal(rules, c, t) for c, t in zip([3, 4, 2, 3], [5, 3, 2, 3], strict=True)]
    assert [format_tenths(s) for s in scores] == ["3.2", "-4.0", "2.0", "3.0"]


@pytest.mark.parametrize("rules", [STRICT, CLASSIC, ONLINE, BHOOS])
@pytest.mark.parametrize(
    ("call", "tricks", "score"),
    [(3, 3, "3.0"), (3, 5, "3.2"), (1, 13, "2.2"), (5, 4, "-5.0"), (2, 0, "-2.0")],
)
def test_overtrick_scoring_table(rules: Rules, call: int, tricks: int, score: str) -> None:
    assert format_tenths(score_deal(rules, call, tricks)) == score


@pytest.mark.parametrize(
    ("call", "tricks", "score"),
    [
        (4, 4, 40),
        (4, 5, 40),
        (4, 3, -40),
        (4, 6, -40),
        (9, 9, 130),
        (9, 10, 130),
        (9, 11, -90),
        (9, 8, -90),
        (8, 8, 130),
        (7, 7, 70),
        (2, 0, -20),
    ],
)
def test_pagat_exact_scoring(call: int, tricks: int, score: int) -> None:
    assert score_deal(PAGAT, call, tricks) == score


def test_bonus_value_is_a_number() -> None:
    rules = PAGAT.replace(bonus_score=16)
    assert score_deal(rules, 8, 9) == 160


@pytest.mark.parametrize(
    ("tenths", "text"), [(32, "3.2"), (-40, "-4.0"), (0, "0.0"), (-5, "-0.5"), (1301, "130.1")]
)
def test_format_and_parse_tenths(tenths: int, text: str) -> None:
    assert format_tenths(tenths) == text
    assert parse_tenths(text) == tenths


def test_places_share_exact_ties() -> None:
    assert places([91, 70, 70, 30]) == [1, 2, 2, 4]
    assert places([10, 10, 10, 10]) == [1, 1, 1, 1]
    assert places([-5, 32, -40, 32]) == [3, 1, 4, 1]


def test_outright_winners_share_first_place() -> None:
    assert places([10, 50, 20, 30], winners=[0, 2]) == [1, 3, 1, 4]


# --- profiles --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("profile", "low", "high", "deals"),
    [
        ("strict", 2, 13, 5),
        ("classic", 1, 13, 5),
        ("online", 1, 13, 5),
        ("pagat", 2, 13, None),
        ("bhoos", 1, 8, 5),
    ],
)
def test_profile_call_range_and_length(
    profile: str, low: int, high: int, deals: int | None
) -> None:
    rules = Rules.parse(profile)
    assert rules.call_range() == range(low, high + 1)
    assert rules.deals == deals


def test_default_profile_is_strict() -> None:
    assert Rules() == STRICT
    assert str(STRICT) == "strict"


def test_one_string_form_changes_fields() -> None:
    rules = Rules.parse("classic(deals=10, min_total_calls=10)")
    assert (rules.profile, rules.deals, rules.min_total_calls) == ("classic", 10, 10)
    assert rules.free_following is False
    assert Rules.parse(str(rules)) == rules


def test_one_string_values() -> None:
    rules = Rules.parse(" strict ( deals = open , clockwise = yes , eight_wins=true ) ")
    assert rules.deals is None and rules.clockwise and rules.eight_wins
    assert Rules.parse(str(rules)) == rules


def test_exact_scoring_brings_its_companions() -> None:
    rules = Rules.parse("classic(exact_scoring=true)")
    assert (rules.min_call, rules.bonus_call, rules.bonus_score) == (2, 8, 13)
    explicit = Rules.parse("classic(exact_scoring=true, bonus_call=none, min_call=1)")
    assert (explicit.min_call, explicit.bonus_call) == (1, None)
    assert Rules.parse("pagat(exact_scoring=false)").bonus_call is None
    assert CLASSIC.replace(exact_scoring=True).min_call == 1  # replace changes only what it is told


@pytest.mark.parametrize(
    "text",
    [
        "classic(exact_scoring=true)",
        "classic(exact_scoring=true, min_call=1)",
        "classic(exact_scoring=true, bonus_call=none)",
        "pagat(exact_scoring=false)",
        "pagat(exact_scoring=false, bonus_call=8)",
        "bhoos(bonus_score=16, deals=open)",
    ],
)
def test_text_form_round_trips_exactly(text: str) -> None:
    rules = Rules.parse(text)
    assert Rules.parse(str(rules)) == rules
    assert Rules.from_fields({"profile": rules.profile, **rules.changes()}) == rules


def test_fields_form() -> None:
    assert Rules.from_fields({"profile": "online", "deals": 10}) == ONLINE.replace(deals=10)
    assert Rules.load({"deals": 3}) == STRICT.replace(deals=3)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("bridge", "unknown profile 'bridge'"),
        ("classic(decks=2)", "unknown rules option 'decks'"),
        ("classic(deals)", "write name=value"),
        ("classic(deals=ten)", "must be int or none"),
        ("classic(min_call=0)", "1 <= min_call"),
        ("classic(max_call=20)", "max_call <= 13"),
        ("classic(deals=0)", "deals must be"),
        ("classic(deals=1, deals=2)", "given twice"),
        ("classic(free_following=3)", "must be bool"),
        ("classic(", "cannot read the rules"),
        ("", "cannot read the rules"),
        ("bhoos(min_total_calls=40)", "can never be reached"),
    ],
)
def test_bad_rules_are_clear_errors(text: str, words: str) -> None:
    with pytest.raises(InvalidRulesError, match=words.replace("(", r"\(")):
        Rules.parse(text)


def test_rules_are_frozen() -> None:
    with pytest.raises(AttributeError):
        STRICT.deals = 10  # type: ignore[misc]


def test_cards_helper_parses() -> None:
    assert cards("AS 10H") == set(parse_cards("AS TH"))
