"""Game records: reading, writing, round trips, and judging every kind of rule break."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from callbreak.bots.protocol import card_text
from callbreak.cards import Card, CardSet, parse_card
from callbreak.errors import RecordError
from callbreak.game import Match, Phase
from callbreak.record import Record, check, dumps, from_data, loads, to_data
from callbreak.rules import PROFILES, legal_cards


def played_match(rules: str = "strict", seed: int = 1) -> Match:
    match = Match(rules, seed=seed, players=("Asha", "Bikash", "Chandra", "Dipa"))
    rng = random.Random(seed)
    while not match.is_over:
        if match.rules.deals is None and len(match.played_deals()) == 2:
            match.stop()
            break
        match.apply(rng.choice(match.deal.legal_actions()))
    return match


def record_data(rules: str = "strict", seed: int = 1) -> dict[str, Any]:
    return to_data(Record.from_match(played_match(rules, seed)))


def judge(data: dict[str, Any]) -> dict[str, Any]:
    return check(from_data(json.loads(json.dumps(data)))).to_json()


# --- round trips -----------------------------------------------------------------------------


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_dump_of_a_loaded_record_reproduces_it(profile: str) -> None:
    text = dumps(Record.from_match(played_match(profile, 3)))
    assert dumps(loads(text)) == text
    assert loads(text) == loads(dumps(loads(text)))


def test_a_deal_record_replays_its_calls_in_calling_order() -> None:
    """``calls`` is by seat and the dealer's next seat calls first: every deal of a match
    (dealt by each seat in turn) comes back with each seat's own call, ready for its tricks."""
    match = played_match("strict", 4)
    record = Record.from_match(match)
    dealers = set()
    for played, deal_record in zip(match.deals, record.deals, strict=True):
        deal = deal_record.deal_after_calls(match.rules)
        dealers.add(deal.dealer)
        assert tuple(deal.calls) == tuple(played.calls)
        assert deal.phase is Phase.PLAYING and len(deal.held(deal.turn or 0)) == 13
        for trick in deal_record.tricks:
            for card in trick:
                deal.play(card)
        assert deal.won == played.won
    assert len(dealers) == 4  # not only the dealer whose next seat is seat 0


def test_other_notations_load_and_dump_canonically() -> None:
    data = record_data()
    data["deals"][0]["hands"] = [
        [parse_card(c).pretty() if i % 2 else card_text(parse_card(c)) for i, c in enumerate(h)]
        for h in data["deals"][0]["hands"]
    ]
    record = from_data(data)
    assert to_data(record) == record_data()
    assert check(record).valid


def test_rules_as_fields_and_one_string_are_kept_as_written() -> None:
    data = record_data("classic")
    data["rules"] = {"profile": "classic", "deals": 5}
    assert to_data(from_data(data))["rules"] == {"profile": "classic", "deals": 5}
    assert judge(data)["valid"] is True
    data["rules"] = "classic(deals=5)"
    assert judge(data)["valid"] is True


def test_meta_and_faults_are_kept() -> None:
    data = record_data()
    data["meta"] = {"place": "Kathmandu", "date": "2026-11-29"}
    data["deals"][0]["faults"] = [{"seat": 1, "fault": "late"}]
    again = to_data(loads(dumps(from_data(data))))
    assert again["meta"] == data["meta"] and again["deals"][0]["faults"] == [
        {"seat": 1, "fault": "late"}
    ]


# --- valid records ---------------------------------------------------------------------------


def test_valid_record_reports_totals_places_and_deal_scores() -> None:
    match = played_match("strict", 5)
    result = judge(to_data(Record.from_match(match)))
    assert result["valid"] is True
    assert set(result) == {"valid", "totals", "places", "deal_scores"}
    assert len(result["deal_scores"]) == 5
    assert result["places"] == match.places()
    totals = [sum(round(float(row[s]) * 10) for row in result["deal_scores"]) for s in range(4)]
    assert totals == match.totals()
    assert all(text.count(".") == 1 for text in result["totals"])


def test_handmade_deal_scores_as_the_worked_example() -> None:
    """Calls 3, 4, 2, 3 with tricks 5, 3, 2, 3 score 3.2, -4.0, 2.0, 3.0."""
    result = check(from_data(_example_data())).to_json()
    assert result == {
        "valid": True,
        "totals": ["3.2", "-4.0", "2.0", "3.0"],
        "places": [1, 4, 3, 2],
        "deal_scores": [["3.2", "-4.0", "2.0", "3.0"]],
    }


def _example_data() -> dict[str, Any]:
    """A one-deal classic(deals=1) record: seats call 3, 4, 2, 3 and take 5, 3, 2, 3 tricks."""
    calls_by_seat = [3, 4, 2, 3]
    for seed in range(20_000):
        match = Match("classic(deals=1)", seed=seed)
        deal = match.deal
        while deal.phase is Phase.CALLING:
            deal.call(calls_by_seat[deal.turn])  # type: ignore[index]
        rng = random.Random(seed)
        while deal.phase is Phase.PLAYING:
            deal.play(rng.choice(list(deal.legal_cards())))
        if deal.won == [5, 3, 2, 3]:
            return to_data(Record.from_match(match))
    raise AssertionError("no seed gives tricks 5, 3, 2, 3")


def test_unfinished_record_is_valid_when_marked() -> None:
    match = Match(seed=7)
    rng = random.Random(7)
    for _ in range(4 + 13 * 4 + 4 + 10):
        match.apply(rng.choice(match.deal.legal_actions()))
    data = to_data(Record.from_match(match))
    assert data["unfinished"] is True
    result = judge(data)
    assert result["valid"] is True and result["unfinished"] is True
    assert len(result["deal_scores"]) == 1
    del data["unfinished"]
    broken = judge(data)["error"]
    assert broken["deal"] == 2 and broken["trick"] == 3  # two full tricks, then a short one


def test_thrown_in_deals_are_checked_and_skipped_in_scores() -> None:
    match = Match("classic(min_total_calls=10)", seed=2)
    for _ in range(4):
        match.call(1)
    rng = random.Random(2)
    while not match.is_over:
        choices = [a for a in match.deal.legal_actions() if getattr(a, "value", 9) > 2]
        match.apply(rng.choice(choices))
    data = to_data(Record.from_match(match))
    assert data["deals"][0]["thrown_in"] == "min_total_calls" and "tricks" not in data["deals"][0]
    result = judge(data)
    assert result["valid"] is True and len(result["deal_scores"]) == 5
    # Marking a deal thrown in that should have been played is a break, and vice versa.
    wrong = copy.deepcopy(data)
    wrong["deals"][1]["thrown_in"] = "min_total_calls"
    wrong["deals"][1].pop("tricks")
    assert "not under 10" in judge(wrong)["error"]["message"]
    missing = copy.deepcopy(data)
    del missing["deals"][0]["thrown_in"]
    assert judge(missing)["error"]["message"].startswith("the calls total 4, under 10")


# --- rule breaks -----------------------------------------------------------------------------


def _first_illegal_substitution(data: dict[str, Any]) -> tuple[int, int, int, str, list[str]]:
    """Change one played card into an illegal one the seat holds; return where and what."""
    record = from_data(data)
    result = check(record)
    for deal_index, deal in enumerate(result.deals):
        for trick_index, trick in enumerate(deal.tricks):
            if trick_index < 2:
                continue
            for position, (seat, _card) in enumerate(trick.plays()):
                held_mask = sum(1 << c for c in _held_before(deal, trick_index, position, seat))
                legal = legal_cards(held_mask, list(trick.cards[:position]), False, deal.rules)
                illegal = held_mask & ~legal
                if illegal:
                    bad = Card((illegal & -illegal).bit_length() - 1)
                    data["deals"][deal_index]["tricks"][trick_index][position] = str(bad)
                    legal_text = [str(c) for c in sorted(CardSet(legal))]
                    return deal_index + 1, trick_index + 1, seat, str(bad), legal_text
    raise AssertionError("no trick offered an illegal card")


def _held_before(deal: Any, trick_index: int, position: int, seat: int) -> set[Card]:
    held = set(deal.hands[seat])
    for trick in deal.tricks[:trick_index]:
        held -= set(trick.cards)
    held -= set(deal.tricks[trick_index].cards[:position])
    return held


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_first_illegal_card_is_reported_with_legal_cards(profile: str) -> None:
    data = record_data(profile, 11)
    deal, trick, seat, card, legal = _first_illegal_substitution(data)
    error = judge(data)["error"]
    assert (error["deal"], error["trick"], error["seat"], error["card"]) == (
        deal,
        trick,
        seat,
        card,
    )
    assert sorted(error["legal"]) == sorted(legal)
    assert error["message"].startswith("must ")
    assert "call" not in error


def test_illegal_call_has_call_and_null_trick() -> None:
    data = record_data("strict", 4)
    deal = data["deals"][2]
    seat = (deal["dealer"] + 2) % 4
    deal["calls"][seat] = 1
    error = judge(data)["error"]
    assert error == {
        "deal": 3,
        "trick": None,
        "seat": seat,
        "call": 1,
        "message": "calls run from 2 to 13 under these rules",
        "legal": list(range(2, 14)),
    }


def test_card_not_held_is_a_break() -> None:
    data = record_data("classic", 2)
    tricks = data["deals"][0]["tricks"]
    tricks[0][1], tricks[1][1] = tricks[1][1], tricks[0][1]
    error = judge(data)["error"]
    assert error["deal"] == 1 and error["trick"] == 1
    assert "do not hold" in error["message"] or error["message"].startswith("must")


def test_card_from_another_hand_is_a_break() -> None:
    data = record_data("classic", 2)
    deal = data["deals"][1]
    leader_card = deal["tricks"][0][0]
    other = next(c for h in deal["hands"] if leader_card not in h for c in h)
    deal["tricks"][0][0] = other
    error = judge(data)["error"]
    assert (error["deal"], error["trick"], error["card"]) == (2, 1, other)
    assert error["message"] == f"you do not hold the {parse_card(other).pretty()}"


def test_hands_not_52_distinct_cards() -> None:
    data = record_data()
    hands = data["deals"][1]["hands"]
    hands[3][0] = hands[0][0]
    error = judge(data)["error"]
    assert (error["deal"], error["trick"], error["seat"], error["card"]) == (
        2,
        None,
        3,
        hands[0][0],
    )
    assert "dealt twice" in error["message"]
    data = record_data()
    data["deals"][0]["hands"][2].pop()
    error = judge(data)["error"]
    assert (error["deal"], error["seat"]) == (1, 2) and "12 cards" in error["message"]


def test_wrong_dealer_rotation() -> None:
    data = record_data()
    data["deals"][3]["dealer"] = (data["deals"][3]["dealer"] + 1) % 4
    error = judge(data)["error"]
    assert error["deal"] == 4 and error["trick"] is None
    assert "the deal passes to the next seat" in error["message"]


def test_too_few_tricks() -> None:
    data = record_data()
    del data["deals"][4]["tricks"][11:]
    error = judge(data)["error"]
    assert (error["deal"], error["trick"]) == (5, 12)
    assert "11 tricks" in error["message"]


def test_short_trick_in_the_middle() -> None:
    data = record_data()
    data["deals"][0]["tricks"][5].pop()
    error = judge(data)["error"]
    assert (error["deal"], error["trick"]) == (1, 6)
    assert "3 cards" in error["message"] and "has not played" in error["message"]


def test_illegal_card_in_a_short_trick_is_reported_first() -> None:
    data = record_data()
    trick = data["deals"][0]["tricks"][5]
    foreign = next(c for h in data["deals"][0]["hands"] for c in h if c not in trick)
    trick[0] = foreign
    trick.pop()
    error = judge(data)["error"]
    assert (error["trick"], error["card"]) == (6, foreign)


def test_long_trick_is_a_break() -> None:
    data = record_data()
    tricks = data["deals"][0]["tricks"]
    tricks[0].append(tricks[1].pop(0))
    error = judge(data)["error"]
    assert (error["deal"], error["trick"]) == (1, 1) and "5 cards" in error["message"]


def test_too_many_and_too_few_deals() -> None:
    data = record_data()
    extra = copy.deepcopy(data)
    extra["deals"].append(copy.deepcopy(extra["deals"][0]))
    error = judge(extra)["error"]
    assert error["deal"] == 6 and "match was over" in error["message"]
    short = copy.deepcopy(data)
    del short["deals"][3:]
    error = judge(short)["error"]
    assert error["deal"] == 4 and "5 deals" in error["message"]


def test_missing_call_is_a_break_that_lists_the_legal_calls() -> None:
    data = record_data()
    data["deals"][0]["calls"][data["deals"][0]["dealer"]] = None
    error = judge(data)["error"]
    assert error["deal"] == 1 and "no call" in error["message"]
    assert error["call"] is None and "card" not in error
    assert error["legal"] == list(range(2, 14))


def _claim_redeal_in_first_deal(data: dict[str, Any]) -> int:
    """Mark the first deal thrown in for a spadeless claim by its first seat; return it."""
    deal = data["deals"][0]
    deal["calls"], deal["tricks"], deal["thrown_in"] = [None] * 4, [], "spadeless"
    return (deal["dealer"] + 1) % 4


def test_redeal_claim_under_rules_without_it_lists_the_legal_calls() -> None:
    data = record_data("strict", 2)
    seat = _claim_redeal_in_first_deal(data)
    error = judge(data)["error"]
    assert error == {
        "deal": 1,
        "trick": None,
        "seat": seat,
        "call": None,
        "message": f"seat {seat} claims a redeal, but "
        "these rules have no redeal for a spadeless hand",
        "legal": list(range(2, 14)),
    }


def test_redeal_claim_by_a_seat_holding_spades_lists_the_legal_calls() -> None:
    rules = "classic(spadeless_redeal=true)"
    data = record_data(rules, 2)
    seat = _claim_redeal_in_first_deal(data)
    assert any(card.endswith("S") for card in data["deals"][0]["hands"][seat])
    result = check(from_data(data))
    assert result.error is not None and result.error.about_call
    assert "only a player dealt no spade" in result.error.message
    assert result.error.legal == tuple(PROFILES["classic"].call_range())
    assert result.to_json()["error"]["legal"] == list(PROFILES["classic"].call_range())


def test_one_hand_holding_a_card_twice() -> None:
    data = record_data()
    hand = data["deals"][0]["hands"][1]
    hand[1] = hand[0]
    error = judge(data)["error"]
    assert error["message"].endswith("is dealt twice, to seat 1")


def test_open_ended_match_may_stop_after_a_thrown_in_deal() -> None:
    match = Match("pagat(min_total_calls=10)", seed=5)
    rng = random.Random(5)
    for _ in range(4):
        match.call(3)
    while match.deal.phase is Phase.PLAYING:
        match.apply(rng.choice(match.deal.legal_actions()))
    for _ in range(4):
        match.call(2)
    match.stop()
    result = judge(to_data(Record.from_match(match)))
    assert result["valid"] is True and len(result["deal_scores"]) == 1


def test_unfinished_flag_on_a_complete_match_is_not_echoed() -> None:
    data = record_data() | {"unfinished": True}
    assert "unfinished" not in judge(data)


def test_only_the_first_break_is_reported() -> None:
    data = record_data()
    data["deals"][1]["hands"][0][0] = data["deals"][1]["hands"][1][0]
    data["deals"][0]["calls"][0] = 99
    error = judge(data)["error"]
    assert error["deal"] == 1 and error["call"] == 99


# --- unreadable records ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda d: d.update(format="pgn"), '"format" must be'),
        (lambda d: d.update(version=2), '"version" must be 1'),
        (lambda d: d.update(rules="bridge"), "unknown profile 'bridge'"),
        (lambda d: d.update(rules="classic(jokers=2)"), "unknown rules option 'jokers'"),
        (lambda d: d.update(rules=5), '"rules" must be'),
        (lambda d: d.update(players=["A", "B"]), '"players" must be 4 names'),
        (lambda d: d.update(colour="red"), "unknown key 'colour'"),
        (lambda d: d.pop("deals"), 'has no "deals"'),
        (lambda d: d.update(deals={}), '"deals" must be a list'),
        (lambda d: d["deals"][0].update(dealer=7), '"dealer" must be a seat 0-3'),
        (lambda d: d["deals"][0].update(dealer=True), '"dealer" must be a seat 0-3'),
        (lambda d: d["deals"][0].update(dealer=1.0), '"dealer" must be a seat 0-3'),
        (lambda d: d.update(version=1.0), '"version" must be 1'),
        (lambda d: d["deals"][0]["calls"].__setitem__(0, 3.0), "whole number or null"),
        (lambda d: d["deals"][0]["hands"][0].__setitem__(0, "XX"), "unknown card 'XX'"),
        (lambda d: d["deals"][0]["hands"][0].__setitem__(0, 12), "a card must be text"),
        (lambda d: d["deals"][0]["tricks"][0].__setitem__(0, "11H"), "trick 1: unknown card"),
        (lambda d: d["deals"][0].update(calls=[3, 3]), '"calls" must have 4 entries'),
        (lambda d: d["deals"][0]["calls"].__setitem__(0, "3"), "whole number or null"),
        (lambda d: d["deals"][0].update(hands=[[]]), '"hands" must list 4 hands'),
        (lambda d: d["deals"][0].update(thrown_in="bored"), '"thrown_in" must be one of'),
        (lambda d: d["deals"][0].update(trick=[]), "unknown key 'trick'"),
    ],
)
def test_unreadable_records_say_what_is_wrong(change: Any, words: str) -> None:
    data = record_data()
    change(data)
    with pytest.raises(RecordError, match=words.replace("(", r"\(")):
        from_data(data)


@pytest.mark.parametrize("text", ["", "{", "[1, 2]", "null", '"record"', b"\xff\xfe"])
def test_not_json_or_not_an_object(text: str | bytes) -> None:
    with pytest.raises(RecordError):
        loads(text)


def test_deeply_nested_json_is_refused_cleanly() -> None:
    with pytest.raises(RecordError):
        loads("[" * 100_000 + "]" * 100_000)
