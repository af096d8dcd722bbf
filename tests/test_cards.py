"""Cards, suits, ranks and card sets: every notation in, the canonical one out."""

from __future__ import annotations

import pickle

import pytest

from callbreak.bots.protocol import card_text
from callbreak.cards import (
    ALL_CARDS,
    Card,
    CardSet,
    Rank,
    Suit,
    full_deck,
    parse_card,
    parse_cards,
)
from callbreak.errors import InvalidCardError


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("AS", "AS"),
        ("as", "AS"),
        ("A♠", "AS"),
        ("a♠", "AS"),
        ("1S", "AS"),
        ("1s", "AS"),
        ("TH", "TH"),
        ("10H", "TH"),
        ("10♥", "TH"),
        ("th", "TH"),
        (" 10h ", "TH"),
        ("2C", "2C"),
        ("2♣", "2C"),
        ("QD", "QD"),
        ("q♦", "QD"),
        ("K♤", "KS"),
        ("J♡", "JH"),
    ],
)
def test_every_notation_parses_to_the_canonical_card(text: str, canonical: str) -> None:
    assert str(parse_card(text)) == canonical


@pytest.mark.parametrize("text", ["", "A", "S", "11S", "0H", "ZZ", "AX", "10", "AS ", "1", "♠A"])
def test_bad_card_text_is_an_error(text: str) -> None:
    if text == "AS ":
        assert parse_card(text) == Card.AS  # surrounding spaces are fine
        return
    with pytest.raises(InvalidCardError, match="unknown card"):
        parse_card(text)


def test_non_text_card_is_an_error() -> None:
    with pytest.raises(InvalidCardError):
        parse_card(12)  # type: ignore[arg-type]


def test_all_52_round_trip_in_every_form() -> None:
    assert len(set(ALL_CARDS)) == 52
    for card in ALL_CARDS:
        assert parse_card(str(card)) is card
        assert parse_card(card.pretty()) is card
        assert parse_card(card_text(card)) is card
        assert Card.of(card.rank, card.suit) is card


def test_card_attributes() -> None:
    card = Card.QS
    assert (card.rank, card.suit) == (Rank.QUEEN, Suit.SPADES)
    assert card.pretty() == "Q♠" and card_text(card) == "QS" and card.spoken() == "Queen of spades"
    assert card_text(Card.AH) == "1H" and Card.TD.pretty() == "10♦"
    assert repr(Card._7H) == "Card.7H"


def test_card_index_layout_spades_first_and_rising() -> None:
    assert [int(c) for c in (Card._2S, Card.AS, Card._2H, Card.AC)] == [0, 12, 13, 51]
    assert Card.KH > Card.QH


def test_card_index_errors() -> None:
    for bad in (-1, 52, "AS", None):
        with pytest.raises(InvalidCardError):
            Card(bad)  # type: ignore[arg-type]


def test_cards_survive_pickling() -> None:
    assert pickle.loads(pickle.dumps(Card.TH)) is Card.TH


def test_parse_cards_keeps_order_and_accepts_commas() -> None:
    assert [str(c) for c in parse_cards("10H, A♠ 2c")] == ["TH", "AS", "2C"]
    assert parse_cards(["1S", "KD"]) == [Card.AS, Card.KD]


def test_card_set_operations_and_order() -> None:
    hand = CardSet.parse("2C KS TH AH 3S")
    assert str(hand) == "KS 3S AH TH 2C"
    assert len(hand) == 5 and Card.TH in hand and Card.TD not in hand and 99 not in hand
    assert hand.suit(Suit.HEARTS) == CardSet.parse("AH TH")
    assert hand.suit(Suit.HEARTS).highest() == Card.AH
    assert hand.suit(Suit.HEARTS).lowest() == Card.TH
    assert CardSet().highest() is None and not CardSet()
    other = CardSet.parse("AH 4D")
    assert hand | other == CardSet.parse("2C KS TH AH 3S 4D")
    assert hand & other == CardSet.parse("AH")
    assert hand - other == CardSet.parse("2C KS TH 3S")
    assert (hand ^ other) == CardSet.parse("2C KS TH 3S 4D")
    assert hand.pretty() == "K♠ 3♠ A♥ 10♥ 2♣"
    assert CardSet(hand.mask) == hand and hash(CardSet(hand.mask)) == hash(hand)
    assert CardSet(full_deck()).mask == (1 << 52) - 1


def test_card_set_is_immutable_and_bounded() -> None:
    hand = CardSet.parse("AS")
    with pytest.raises(AttributeError):
        hand.mask = 0  # type: ignore[misc]
    with pytest.raises(InvalidCardError):
        CardSet(1 << 52)
