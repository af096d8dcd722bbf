"""Deals and matches as state machines, with undo and per-seat observations.

A :class:`Deal` takes calls and cards in turn and refuses anything the rules forbid, saying
why. A :class:`Match` deals seeded, reproducible deals, passes the deal round the table and
keeps the scores. Both undo their last action by popping a stack of actions, never by copying
the whole state.

>>> match = Match(seed=7)
>>> deal = match.deal
>>> deal.turn == (deal.dealer + 1) % 4
True
>>> for _ in range(4):
...     deal.call(2)
>>> deal.phase
<Phase.PLAYING: 'playing'>
"""

from __future__ import annotations

import dataclasses
import enum
import random
import secrets
from collections.abc import Iterable, Sequence

from callbreak.cards import FULL_MASK, Card, CardSet, parse_card
from callbreak.errors import CallbreakError, IllegalCallError, IllegalPlayError
from callbreak.rules import (
    STRICT,
    Duty,
    Rules,
    calls_thrown_in,
    describe_legal,
    duties,
    legal_cards,
    match_over,
    may_claim_spadeless,
    next_dealer,
    outright_winners,
    places,
    score_deal,
    trick_winner,
)

__all__ = [
    "MIN_TOTAL_CALLS",
    "REFUSAL_TEXTS",
    "SPADELESS",
    "THROWN_IN_REASONS",
    "Action",
    "Call",
    "ClaimRedeal",
    "Deal",
    "Match",
    "Observation",
    "Phase",
    "Play",
    "Refusal",
    "Trick",
    "deal_from_seed",
]

SPADELESS = "spadeless"
MIN_TOTAL_CALLS = "min_total_calls"
THROWN_IN_REASONS = (MIN_TOTAL_CALLS, SPADELESS)


class Phase(enum.Enum):
    """Where a deal stands."""

    CALLING = "calling"
    PLAYING = "playing"
    OVER = "over"
    """All 13 tricks played and scored."""
    THROWN_IN = "thrown_in"
    """Thrown in before play (see :attr:`Deal.thrown_in`); the same dealer deals again."""


@dataclasses.dataclass(frozen=True)
class Call:
    """The action of calling a number of tricks."""

    value: int


@dataclasses.dataclass(frozen=True)
class Play:
    """The action of playing a card."""

    card: Card


@dataclasses.dataclass(frozen=True)
class ClaimRedeal:
    """The action of a player dealt no spade who asks for a new deal instead of calling."""


Action = Call | Play | ClaimRedeal


REFUSAL_TEXTS: dict[str, str] = {
    "calling_over": "calling is over: the deal is {phase}",
    "call_not_whole": "a call is a whole number of tricks from {low} to {high}",
    "call_range": "calls run from {low} to {high} under these rules",
    "no_redeal_rule": "these rules have no redeal for a spadeless hand",
    "redeal_after_calling": "a redeal can be claimed only during calling",
    "redeal_with_spades": "only a player dealt no spade may claim a redeal",
    "calls_pending": "the calls are not all in yet",
    "not_playing": "the deal is {phase}",
    "not_held": "you do not hold the {card}",
}
"""Why an action is refused, in English, with its blanks. Front ends in other languages word
the same ``kind`` and values themselves; a card refused by a duty of play is a
:class:`~callbreak.rules.Duty` instead, worded by ``rules.DUTY_TEXTS``."""


@dataclasses.dataclass(frozen=True)
class Refusal:
    """Why an action is refused, as data: a key of :data:`REFUSAL_TEXTS` and its blanks."""

    kind: str
    low: int = 0
    high: int = 0
    phase: str = ""
    """The phase of the deal, as its words ('over', 'thrown in')."""
    card: int = -1

    @property
    def reason(self) -> str:
        """The refusal in words: 'calls run from 2 to 13 under these rules'."""
        card = Card(self.card).pretty() if self.card >= 0 else ""
        return REFUSAL_TEXTS[self.kind].format(
            low=self.low, high=self.high, phase=self.phase, card=card
        )


def _phase_words(phase: Phase) -> str:
    return phase.value.replace("_", " ")


@dataclasses.dataclass(frozen=True)
class Trick:
    """A trick, complete or in progress: who led it and the cards in the order played."""

    leader: int
    cards: tuple[Card, ...] = ()

    @property
    def complete(self) -> bool:
        """Whether all four cards are in."""
        return len(self.cards) == 4

    @property
    def winner(self) -> int | None:
        """The seat that wins this trick, or None while it is incomplete."""
        return self.seat_of(trick_winner(self.cards)) if self.complete else None

    def seat_of(self, position: int) -> int:
        """The seat that played the card at ``position``."""
        return (self.leader + position) % 4

    def plays(self) -> list[tuple[int, Card]]:
        """The (seat, card) pairs in the order played."""
        return [(self.seat_of(i), card) for i, card in enumerate(self.cards)]


@dataclasses.dataclass(frozen=True)
class Observation:
    """Everything one seat may know at one moment, and nothing more.

    Other seats' hands are never part of it: what they played is public, what they hold is not.
    """

    seat: int
    rules: Rules
    deal_number: int
    """1 for the first played deal of the match; a thrown-in deal does not count."""
    dealer: int
    hand: CardSet
    calls: tuple[int | None, ...]
    """Calls by seat; None for a seat that has not called yet."""
    tricks: tuple[Trick, ...]
    """The completed tricks of this deal."""
    trick: Trick
    """The trick in progress (no cards before the lead; during calling its leader is the
    seat that will lead)."""
    won: tuple[int, ...]
    """Tricks taken so far in this deal, by seat."""
    totals: tuple[int, ...]
    """Match totals in tenths before this deal, by seat."""
    phase: Phase
    turn: int | None
    legal_calls: tuple[int, ...]
    """The calls this seat may make now (empty when it is not its turn to call)."""
    legal_cards: CardSet
    """The cards this seat may play now (empty when it is not its turn to play)."""
    may_claim_redeal: bool = False

    @property
    def played(self) -> CardSet:
        """Every card played so far in this deal, by anyone."""
        cards = [card for trick in self.tricks for card in trick.cards]
        return CardSet(cards + list(self.trick.cards))

    @property
    def unseen(self) -> CardSet:
        """The cards this seat cannot see: in other players' hands."""
        return CardSet(FULL_MASK & ~self.hand.mask & ~self.played.mask)

    @property
    def deals_left(self) -> int | None:
        """Played deals remaining after this one, or None in an open-ended match."""
        if self.rules.deals is None:
            return None
        return max(self.rules.deals - self.deal_number, 0)


def deal_from_seed(
    seed: int | str, number: int, dealer: int, redeal: int = 0
) -> tuple[CardSet, ...]:
    """The four hands of a seeded match's played deal ``number`` (from 0), dealt again
    ``redeal`` times after thrown-in deals.

    Counting played deals and redeals apart keeps two matches from the same seed on the same
    deals even when only one of them throws a deal in (the arena pairs matches that way).
    The deck is shuffled, cut at a random place by the dealer's left neighbour (the previous
    seat) and dealt one card at a time, starting with the dealer's next seat.
    """
    suffix = f"/redeal/{redeal}" if redeal else ""
    rng = random.Random(f"callbreak/{seed}/deal/{number}{suffix}")
    deck = list(range(52))
    rng.shuffle(deck)
    cut = rng.randint(1, 51)
    deck = deck[cut:] + deck[:cut]
    hands = [0, 0, 0, 0]
    for position, card in enumerate(deck):
        hands[(dealer + 1 + position) % 4] |= 1 << card
    return tuple(CardSet(mask) for mask in hands)


def first_dealer_from_seed(seed: int | str) -> int:
    """The first dealer of a seeded match, chosen at random."""
    return random.Random(f"callbreak/{seed}/first-dealer").randrange(4)


def check_hands(hands: Sequence[CardSet]) -> None:
    """Raise unless ``hands`` are four hands of 13 cards that together hold all 52."""
    if len(hands) != 4:
        raise CallbreakError(f"a deal needs 4 hands, not {len(hands)}")
    for seat, hand in enumerate(hands):
        if len(hand) != 13:
            raise CallbreakError(f"seat {seat} holds {len(hand)} cards, not 13")
    seen = 0
    for seat, hand in enumerate(hands):
        shared = seen & hand.mask
        if shared:
            raise CallbreakError(f"{CardSet(shared)} dealt twice (again to seat {seat})")
        seen |= hand.mask


class Deal:
    """One deal: calls in turn, then 13 tricks, then a score for every seat.

    Seats are numbered in play order; ``(s + 1) % 4`` plays after ``s``.
    """

    def __init__(
        self, hands: Sequence[CardSet | Iterable[Card]], dealer: int, rules: Rules = STRICT
    ) -> None:
        """Start a deal from four 13-card hands (indexed by seat) and the dealer's seat."""
        self.hands: tuple[CardSet, ...] = tuple(
            hand if isinstance(hand, CardSet) else CardSet(hand) for hand in hands
        )
        check_hands(self.hands)
        if dealer not in range(4):
            raise CallbreakError(f"the dealer must be seat 0-3, not {dealer!r}")
        self.rules = rules
        self.dealer = dealer
        self.calls: list[int | None] = [None] * 4
        self.tricks: list[Trick] = []
        """Completed tricks, in order."""
        self.trick = Trick((dealer + 1) % 4)
        """The trick in progress."""
        self.won = [0, 0, 0, 0]
        self.thrown_in: str | None = None
        """Why the deal was thrown in: MIN_TOTAL_CALLS or SPADELESS; None otherwise."""
        self.actions: list[Action] = []
        self._held = [hand.mask for hand in self.hands]
        self._calls_made = 0

    # --- where the deal stands ---------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        """Calling, playing, over or thrown in."""
        if self.thrown_in:
            return Phase.THROWN_IN
        if self._calls_made < 4:
            return Phase.CALLING
        return Phase.OVER if len(self.tricks) == 13 else Phase.PLAYING

    @property
    def turn(self) -> int | None:
        """The seat to act, or None once the deal is over or thrown in."""
        phase = self.phase
        if phase is Phase.CALLING:
            return (self.dealer + 1 + self._calls_made) % 4
        if phase is Phase.PLAYING:
            return self.trick.seat_of(len(self.trick.cards))
        return None

    @property
    def is_over(self) -> bool:
        """Whether no more actions are possible (played out or thrown in)."""
        return self.phase in (Phase.OVER, Phase.THROWN_IN)

    def held(self, seat: int) -> CardSet:
        """The cards ``seat`` still holds."""
        return CardSet(self._held[seat])

    # --- calling -----------------------------------------------------------------------------

    def legal_calls(self) -> range:
        """The calls the seat to act may make (empty outside the calling phase)."""
        if self.phase is not Phase.CALLING:
            return range(0)
        return self.rules.call_range()

    def may_claim_redeal(self, seat: int | None = None) -> bool:
        """Whether ``seat`` (default: the seat to act) may now claim a redeal for no spades."""
        turn = self.turn
        seat = turn if seat is None else seat
        return (
            self.phase is Phase.CALLING
            and seat is not None
            and seat == turn
            and may_claim_spadeless(self.hands[seat].mask, self.rules.spadeless_redeal)
        )

    def call(self, value: int) -> None:
        """Make the call of the seat to act; raises IllegalCallError when not allowed."""
        refusal = self.call_refusal(value)
        if refusal:
            problem, legal = refusal.reason, tuple(self.legal_calls())
            raise IllegalCallError(
                f"illegal call {value!r}: {problem}", reason=problem, legal=legal, why=refusal
            )
        seat = self.turn
        assert seat is not None
        self.calls[seat] = value
        self._calls_made += 1
        self.actions.append(Call(value))
        if self._calls_made == 4 and calls_thrown_in(
            sum(self.called()), self.rules.min_total_calls
        ):
            self.thrown_in = MIN_TOTAL_CALLS

    def call_problem(self, value: object) -> str | None:
        """Why ``value`` may not be called now, in words; None when it may."""
        refusal = self.call_refusal(value)
        return None if refusal is None else refusal.reason

    def call_refusal(self, value: object) -> Refusal | None:
        """Why ``value`` may not be called now, as data; None when it may."""
        if self.phase is not Phase.CALLING:
            return Refusal("calling_over", phase=_phase_words(self.phase))
        low, high = self.rules.min_call, self.rules.max_call
        if isinstance(value, bool) or not isinstance(value, int):
            return Refusal("call_not_whole", low, high)
        if not low <= value <= high:
            return Refusal("call_range", low, high)
        return None

    def claim_redeal(self) -> None:
        """The seat to act, dealt no spade, asks for a new deal instead of calling."""
        if not self.may_claim_redeal():
            if not self.rules.spadeless_redeal:
                refusal = Refusal("no_redeal_rule")
            elif self.phase is not Phase.CALLING:
                refusal = Refusal("redeal_after_calling")
            else:
                refusal = Refusal("redeal_with_spades")
            reason, legal = refusal.reason, tuple(self.legal_calls())
            raise IllegalCallError(
                f"illegal redeal claim: {reason}", reason=reason, legal=legal, why=refusal
            )
        self.thrown_in = SPADELESS
        self.actions.append(ClaimRedeal())

    def called(self) -> list[int]:
        """The calls made so far, in calling order."""
        first = self.dealer + 1
        seats = [(first + i) % 4 for i in range(self._calls_made)]
        return [call for seat in seats if (call := self.calls[seat]) is not None]

    # --- playing -----------------------------------------------------------------------------

    def legal_cards(self) -> CardSet:
        """The cards the seat to act may play (empty outside the playing phase)."""
        if self.phase is not Phase.PLAYING:
            return CardSet()
        seat = self.trick.seat_of(len(self.trick.cards))
        return CardSet(legal_cards(self._held[seat], self.trick.cards, not self.tricks, self.rules))

    def _duties(self, seat: int) -> list[Duty]:
        return duties(self._held[seat], self.trick.cards, not self.tricks, self.rules)

    def play_problem(self, card: Card) -> str | None:
        """Why ``card`` may not be played now by the seat to act, in words; None when legal."""
        refusal = self.play_refusal(card)
        return None if refusal is None else refusal.reason

    def play_refusal(self, card: Card) -> Refusal | Duty | None:
        """Why ``card`` may not be played now by the seat to act, as data (the duty of play
        that forbids it, or why no card may be played); None when legal."""
        if self.phase is not Phase.PLAYING:
            if self.phase is Phase.CALLING:
                return Refusal("calls_pending")
            return Refusal("not_playing", phase=_phase_words(self.phase))
        seat = self.trick.seat_of(len(self.trick.cards))
        if not self._held[seat] >> card & 1:
            return Refusal("not_held", card=card)
        for duty in self._duties(seat):
            if not duty.allowed >> card & 1:
                return duty
        return None

    def explain(self, card: Card) -> str | None:
        """A status line for an illegal card: the duty and what to play instead."""
        problem = self.play_problem(card)
        if problem is None:
            return None
        return self._status_line(problem, self.legal_cards())

    def explain_hand(self) -> dict[Card, str]:
        """The status line of :meth:`explain` for every card of the seat to act that it may
        not play, working the duties out once (a table shows them all at every turn).

        >>> deal = Match("strict", seed=3).deal
        >>> for _ in range(4):
        ...     deal.call(2)
        >>> deal.play(min(deal.legal_cards()))
        >>> seat = deal.turn
        >>> lines = {c: deal.explain(c) for c in deal.held(seat) if deal.explain(c)}
        >>> deal.explain_hand() == lines and len(lines) > 0
        True
        """
        forbidden = self.forbidden()
        if not forbidden:
            return {}
        legal = self.legal_cards()
        # What to play instead is the same for every card: worded once.
        tail = f": play {describe_legal(legal.mask)}" if legal else ""
        return {
            card: f"{duty.reason[0].upper()}{duty.reason[1:]}{tail}"
            for card, duty in forbidden.items()
        }

    def forbidden(self) -> dict[Card, Duty]:
        """For each card of the seat to act that it may not play, the duty that forbids it
        (as data: a front end words it in its own language)."""
        if self.phase is not Phase.PLAYING:
            return {}
        steps = self._duties(self.trick.seat_of(len(self.trick.cards)))
        found = {}
        for card in self.held(self.trick.seat_of(len(self.trick.cards))):
            for duty in steps:
                if not duty.allowed >> card & 1:
                    found[card] = duty
                    break
        return found

    @staticmethod
    def _status_line(problem: str, legal: CardSet) -> str:
        if not legal:
            return problem[0].upper() + problem[1:]
        return f"{problem[0].upper()}{problem[1:]}: play {describe_legal(legal.mask)}"

    def play(self, card: Card | str) -> None:
        """Play a card for the seat to act; raises IllegalPlayError when not allowed."""
        if isinstance(card, str):
            card = parse_card(card)
        card = Card(card)
        refusal = self.play_refusal(card)
        if refusal:
            problem, legal = refusal.reason, sorted(self.legal_cards())
            shown = " ".join(card.pretty() for card in legal) or "none"
            raise IllegalPlayError(
                f"illegal {card.pretty()}: {problem}; legal: {shown}",
                reason=problem,
                legal=tuple(legal),
                why=refusal,
            )
        self._apply_play(card)
        self.actions.append(Play(card))

    def _apply_play(self, card: Card) -> None:
        seat = self.trick.seat_of(len(self.trick.cards))
        self._held[seat] ^= 1 << card
        self.trick = Trick(self.trick.leader, (*self.trick.cards, card))
        winner = self.trick.winner
        if winner is not None:
            self.tricks.append(self.trick)
            self.won[winner] += 1
            self.trick = Trick(winner)

    # --- actions in general ------------------------------------------------------------------

    def legal_actions(self) -> list[Action]:
        """Every action the seat to act may take now."""
        actions: list[Action] = [Call(value) for value in self.legal_calls()]
        if self.may_claim_redeal():
            actions.append(ClaimRedeal())
        actions.extend(Play(card) for card in self.legal_cards())
        return actions

    def apply(self, action: Action) -> None:
        """Take one action (a call, a card or a redeal claim) for the seat to act."""
        if isinstance(action, Call):
            self.call(action.value)
        elif isinstance(action, Play):
            self.play(action.card)
        elif isinstance(action, ClaimRedeal):
            self.claim_redeal()
        else:
            raise CallbreakError(f"not an action: {action!r}")

    def undo(self) -> Action:
        """Take back the last action and return it."""
        if not self.actions:
            raise CallbreakError("nothing to undo in this deal")
        action = self.actions.pop()
        if isinstance(action, Play):
            if not self.trick.cards:
                # The card completed a trick: reopen it.
                self.trick = self.tricks.pop()
                self.won[self.trick.winner] -= 1  # type: ignore[index]
            self.trick = Trick(self.trick.leader, self.trick.cards[:-1])
            self._held[self.trick.seat_of(len(self.trick.cards))] |= 1 << action.card
        elif isinstance(action, Call):
            self.thrown_in = None
            self._calls_made -= 1
            self.calls[(self.dealer + 1 + self._calls_made) % 4] = None
        else:
            self.thrown_in = None
        return action

    # --- results -----------------------------------------------------------------------------

    def scores(self) -> list[int]:
        """Each seat's score for this deal in tenths; zeros unless the deal is played out."""
        if self.phase is not Phase.OVER:
            return [0, 0, 0, 0]
        return [
            score_deal(self.rules, call or 0, won)
            for call, won in zip(self.calls, self.won, strict=True)
        ]

    def eight_winners(self) -> list[int]:
        """Seats that called 8 or more and made it, when ``eight_wins`` is played."""
        if self.phase is not Phase.OVER:
            return []
        return outright_winners(self.rules, self.calls, self.won)

    def observation(
        self, seat: int, totals: Sequence[int] = (0, 0, 0, 0), deal_number: int = 1
    ) -> Observation:
        """What ``seat`` may see now; ``totals`` are the match totals before this deal."""
        turn = self.turn
        mine = turn == seat
        return Observation(
            seat=seat,
            rules=self.rules,
            deal_number=deal_number,
            dealer=self.dealer,
            hand=self.held(seat),
            calls=tuple(self.calls),
            tricks=tuple(self.tricks),
            trick=self.trick,
            won=tuple(self.won),
            totals=tuple(totals),
            phase=self.phase,
            turn=turn,
            legal_calls=tuple(self.legal_calls()) if mine else (),
            legal_cards=self.legal_cards() if mine else CardSet(),
            may_claim_redeal=mine and self.may_claim_redeal(),
        )


class Match:
    """A match: seeded deals passed round the table, scored until the profile's last deal.

    Thrown-in deals are dealt again by the same dealer and do not count toward the match's
    length. With ``eight_wins``, a made call of 8 or more ends the match at once.
    """

    def __init__(
        self,
        rules: Rules | str = STRICT,
        seed: int | str | None = None,
        *,
        players: Sequence[str] = ("North", "West", "South", "East"),
        first_dealer: int | None = None,
    ) -> None:
        """Start a match; the same ``seed`` always gives the same first dealer and deals."""
        self.rules = Rules.load(rules)
        self.seed: int | str = secrets.randbits(64) if seed is None else seed
        if len(players) != 4:
            raise CallbreakError(f"a match needs 4 players, not {len(players)}")
        self.players = tuple(players)
        if first_dealer is None:
            first_dealer = first_dealer_from_seed(self.seed)
        self.deals: list[Deal] = []
        self.stopped = False
        self._new_deal(first_dealer)

    def _new_deal(self, dealer: int) -> None:
        redeal = 0
        for deal in reversed(self.deals):
            if deal.phase is not Phase.THROWN_IN:
                break
            redeal += 1
        hands = deal_from_seed(self.seed, len(self.played_deals()), dealer, redeal)
        self.deals.append(Deal(hands, dealer, self.rules))

    @property
    def deal(self) -> Deal:
        """The deal being played (the last one, once the match is over)."""
        return self.deals[-1]

    def played_deals(self) -> list[Deal]:
        """The deals played out, in order (thrown-in and unfinished deals left out)."""
        return [deal for deal in self.deals if deal.phase is Phase.OVER]

    @property
    def deal_number(self) -> int:
        """The number of the current deal among played deals, from 1."""
        done = len(self.played_deals())
        return done if self.deal.phase is Phase.OVER else done + 1

    @property
    def is_over(self) -> bool:
        """Whether the match has ended."""
        if self.stopped:
            return True
        played = self.played_deals()
        outright = bool(played and played[-1].eight_winners())
        return match_over(len(played), self.rules.deals or 0, outright)

    def totals(self) -> list[int]:
        """Each seat's total in tenths over the played deals."""
        totals = [0, 0, 0, 0]
        for deal in self.played_deals():
            for seat, score in enumerate(deal.scores()):
                totals[seat] += score
        return totals

    def places(self) -> list[int]:
        """Places by total, equal totals sharing; made calls of 8+ under eight_wins share first."""
        played = self.played_deals()
        return places(self.totals(), played[-1].eight_winners() if played else ())

    def _advance(self) -> None:
        if not self.deal.is_over or self.is_over:
            return
        thrown = self.deal.phase is Phase.THROWN_IN
        self._new_deal(next_dealer(self.deal.dealer, thrown))

    def apply(self, action: Action) -> None:
        """Take one action in the current deal; a finished deal is followed by the next."""
        if self.is_over:
            raise CallbreakError("the match is over")
        self.deal.apply(action)
        self._advance()

    def call(self, value: int) -> None:
        """Make a call in the current deal."""
        self.apply(Call(value))

    def play(self, card: Card | str) -> None:
        """Play a card in the current deal."""
        if isinstance(card, str):
            card = parse_card(card)
        self.apply(Play(Card(card)))

    def claim_redeal(self) -> None:
        """Claim a redeal for a spadeless hand in the current deal."""
        self.apply(ClaimRedeal())

    def stop(self) -> None:
        """End an open-ended match between deals."""
        if self.rules.deals is not None:
            raise CallbreakError(f"this match ends after {self.rules.deals} deals")
        if self.deal.actions:
            raise CallbreakError("a match can be stopped only between deals")
        if not self.played_deals():
            raise CallbreakError("play at least one deal before stopping")
        self.deals.pop()
        self.stopped = True

    def undo(self) -> Action | None:
        """Take back the last action of the match, reaching back into the previous deal.

        Undoing a stop only cancels it (and returns None): the next deal is dealt again.
        """
        if self.stopped:
            self.stopped = False
            self._advance()
            return None
        if not self.deal.actions:
            if len(self.deals) == 1:
                raise CallbreakError("nothing to undo")
            self.deals.pop()
        return self.deal.undo()

    def totals_before(self, deal_index: int) -> list[int]:
        """Totals in tenths over the played deals before ``deals[deal_index]``."""
        totals = [0, 0, 0, 0]
        for deal in self.deals[:deal_index]:
            for seat, score in enumerate(deal.scores()):
                totals[seat] += score
        return totals

    def observation(self, seat: int) -> Observation:
        """What ``seat`` may see now."""
        totals = self.totals_before(len(self.deals) - 1)
        return self.deal.observation(seat, totals, self.deal_number)
