"""Cards, suits, ranks and 52-bit card sets, with parsing of every common notation.

A card is a small integer ``suit * 13 + (rank - 2)``, so the thirteen spades are bits 0-12 of a
card set and, inside a suit, a higher bit is a higher card. That layout makes "the spades in a
hand" and "the cards above the ten of hearts" single mask operations, which the rules engine and
the search both lean on.

>>> card = parse_card("10H")
>>> card, str(card), card.pretty()
(Card.TH, 'TH', '10♥')
>>> CardSet.parse("AS a♠ 1S") == CardSet.parse("AS")
True
>>> str(CardSet.parse("2C KS TH"))
'KS TH 2C'
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator
from typing import ClassVar

from callbreak.errors import InvalidCardError

__all__ = [
    "ALL_CARDS",
    "FULL_MASK",
    "SPADE_MASK",
    "SUIT_MASKS",
    "Card",
    "CardSet",
    "Rank",
    "Suit",
    "full_deck",
    "parse_card",
    "parse_cards",
]


class Suit(enum.IntEnum):
    """The four suits; spades come first because they are always trump."""

    SPADES = 0
    HEARTS = 1
    DIAMONDS = 2
    CLUBS = 3

    @property
    def letter(self) -> str:
        """The one-letter name used in canonical card text: S, H, D or C."""
        return "SHDC"[self]

    @property
    def symbol(self) -> str:
        """The suit symbol: ♠ ♥ ♦ ♣."""
        return "♠♥♦♣"[self]

    @property
    def plural(self) -> str:
        """The English name in the plural, for messages: 'spades'."""
        return ("spades", "hearts", "diamonds", "clubs")[self]


class Rank(enum.IntEnum):
    """Card ranks, two (2) up to ace (14)."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def letter(self) -> str:
        """The one-character name used in canonical card text: 2-9, T, J, Q, K, A."""
        return "23456789TJQKA"[self - 2]

    @property
    def label(self) -> str:
        """The name as players write it: 2-10, J, Q, K, A."""
        return "10" if self == Rank.TEN else self.letter

    @property
    def title(self) -> str:
        """The English name: 'Queen', 'Ten'."""
        return _RANK_TITLES[self - 2]


_RANK_TITLES = (
    "Two",
    "Three",
    "Four",
    "Five",
    "Six",
    "Seven",
    "Eight",
    "Nine",
    "Ten",
    "Jack",
    "Queen",
    "King",
    "Ace",
)
_SUIT_BY_TEXT = {
    "S": Suit.SPADES,
    "♠": Suit.SPADES,
    "♤": Suit.SPADES,
    "H": Suit.HEARTS,
    "♥": Suit.HEARTS,
    "♡": Suit.HEARTS,
    "D": Suit.DIAMONDS,
    "♦": Suit.DIAMONDS,
    "♢": Suit.DIAMONDS,
    "C": Suit.CLUBS,
    "♣": Suit.CLUBS,
    "♧": Suit.CLUBS,
}
_RANK_BY_TEXT = {r.letter: r for r in Rank} | {"10": Rank.TEN, "1": Rank.ACE}


class Card(int):
    """One of the 52 cards, as the integer ``suit * 13 + rank - 2``.

    Instances are interned, so ``Card(12) is Card.AS``. Being an ``int`` lets a card index
    tables and shift bits directly.
    """

    __slots__ = ()
    _interned: ClassVar[list[Card]] = []

    def __new__(cls, index: int) -> Card:
        """Return the card with the given index 0-51."""
        try:
            if index >= 0:
                return cls._interned[index]
        except (IndexError, TypeError):
            pass
        raise InvalidCardError(f"no card has index {index!r}: indices run 0-51")

    @classmethod
    def of(cls, rank: Rank | int, suit: Suit | int) -> Card:
        """The card of this rank and suit."""
        return cls(Suit(suit) * 13 + Rank(rank) - 2)

    @property
    def suit(self) -> Suit:
        """This card's suit."""
        return _SUITS[self]

    @property
    def rank(self) -> Rank:
        """This card's rank."""
        return _RANKS[self]

    @property
    def bit(self) -> int:
        """This card as a one-card mask."""
        return 1 << self

    def pretty(self) -> str:
        """The card as players write it, with a suit symbol: '10♥', 'A♠'."""
        return self.rank.label + self.suit.symbol

    def spoken(self) -> str:
        """The card's accessible name: 'Queen of spades'."""
        return f"{self.rank.title} of {self.suit.plural}"

    def __str__(self) -> str:
        return _TEXTS[self]

    def __repr__(self) -> str:
        return f"Card.{self}"

    def __reduce__(self) -> tuple[type[Card], tuple[int]]:
        return (Card, (int(self),))


# Looked up, not computed: cards are named and sorted in every view a server sends.
_SUITS: tuple[Suit, ...] = tuple(Suit(index // 13) for index in range(52))
_RANKS: tuple[Rank, ...] = tuple(Rank(index % 13 + 2) for index in range(52))
_TEXTS: tuple[str, ...] = tuple(_RANKS[i].letter + _SUITS[i].letter for i in range(52))

for _index in range(52):
    _card = int.__new__(Card, _index)
    Card._interned.append(_card)
    # Attribute names such as Card.AS or Card.TH; digits cannot start a name, so 2-9 get a
    # leading underscore (Card._7H).
    _name = str(_card)
    setattr(Card, _name if not _name[0].isdigit() else "_" + _name, _card)

ALL_CARDS: tuple[Card, ...] = tuple(Card._interned)
SUIT_MASKS: tuple[int, ...] = tuple(0x1FFF << (13 * s) for s in range(4))
SPADE_MASK: int = SUIT_MASKS[Suit.SPADES]
FULL_MASK: int = (1 << 52) - 1


def parse_card(text: str) -> Card:
    """Parse one card in any accepted notation: 'AS', 'TH', '10H', 'A♠', 'a♠', Bhoos '1S'."""
    if not isinstance(text, str):
        raise InvalidCardError(f"a card must be text such as 'AS', not {text!r}")
    cleaned = text.strip().upper()
    rank = _RANK_BY_TEXT.get(cleaned[:-1])
    suit = _SUIT_BY_TEXT.get(cleaned[-1:])
    if rank is None or suit is None:
        raise InvalidCardError(
            f"unknown card {text!r}: write rank then suit, such as 'AS', 'TH', '10H' or 'A♠'"
        )
    return Card.of(rank, suit)


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse cards separated by spaces or commas, or an iterable of card texts, in order."""
    items = text.replace(",", " ").split() if isinstance(text, str) else text
    return [parse_card(item) for item in items]


class CardSet:
    """An immutable set of cards stored as a 52-bit integer mask.

    Iteration goes from the highest card down in the order spades, hearts, diamonds, clubs,
    which is how a hand is sorted for display.

    >>> hand = CardSet.parse("AH 3H KD")
    >>> len(hand), Card.AH in hand, hand.suit(Suit.HEARTS)
    (3, True, CardSet('AH 3H'))
    """

    __slots__ = ("mask",)
    mask: int

    def __init__(self, cards: Iterable[Card | int] | int = 0) -> None:
        """Build from a mask or from cards."""
        if isinstance(cards, int):
            if not 0 <= cards <= FULL_MASK:
                raise InvalidCardError(f"a card set mask must fit in 52 bits, not {cards:#x}")
            mask = cards
        else:
            mask = 0
            for card in cards:
                mask |= 1 << Card(card)
        object.__setattr__(self, "mask", mask)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("CardSet is immutable")

    @classmethod
    def parse(cls, text: str | Iterable[str]) -> CardSet:
        """Parse a set of cards written in any accepted notation."""
        return cls(parse_cards(text))

    def suit(self, suit: Suit | int) -> CardSet:
        """The cards of one suit."""
        return CardSet(self.mask & SUIT_MASKS[suit])

    def highest(self) -> Card | None:
        """The card with the highest index (for cards of one suit: the highest card)."""
        return Card(self.mask.bit_length() - 1) if self.mask else None

    def lowest(self) -> Card | None:
        """The card with the lowest index (for cards of one suit: the lowest card)."""
        return Card((self.mask & -self.mask).bit_length() - 1) if self.mask else None

    def __iter__(self) -> Iterator[Card]:
        mask = self.mask
        for suit_mask in SUIT_MASKS:
            part = mask & suit_mask
            while part:
                top = part.bit_length() - 1
                yield Card(top)
                part ^= 1 << top

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __bool__(self) -> bool:
        return self.mask != 0

    def __contains__(self, card: object) -> bool:
        return isinstance(card, int) and 0 <= card < 52 and bool(self.mask >> card & 1)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CardSet) and other.mask == self.mask

    def __hash__(self) -> int:
        return hash(self.mask)

    def __or__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask | other.mask)

    def __and__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask & other.mask)

    def __sub__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask & ~other.mask)

    def __xor__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask ^ other.mask)

    def __str__(self) -> str:
        return " ".join(str(card) for card in self)

    def __repr__(self) -> str:
        return f"CardSet('{self}')"

    def pretty(self) -> str:
        """The cards as players write them: 'A♠ 10♥ 2♣'."""
        return " ".join(card.pretty() for card in self)


def full_deck() -> list[Card]:
    """All 52 cards in index order (spades 2 to ace, then hearts, diamonds, clubs)."""
    return list(ALL_CARDS)
