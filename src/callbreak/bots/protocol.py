"""The Bhoos bot protocol (Bhoos Smart Bots 2022): request bodies both ways.

A bot is an HTTP server answering ``GET /hi`` with ``{"value": "hello"}``, ``POST /bid`` with
``{"value": <int>}`` and ``POST /play`` with ``{"value": "<card>"}``. Every request body carries
the asking seat's id, the four ids in play order, its cards, the time it has left for the round
and a context of the round's calls, tricks won and points before the round; ``/play`` adds the
cards of the current trick and the completed tricks of the round. Cards are written ``1S`` (ace),
``2S``-``9S``, ``TS``, ``JS``, ``QS``, ``KS``, suits ``S H C D``.

This module turns an :class:`~callbreak.game.Observation` into such a body (for seating a
remote bot) and a body back into an Observation (for serving one of our players), checking every
field on the way in.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from callbreak.cards import FULL_MASK, Card, CardSet, Rank, parse_card
from callbreak.errors import CallbreakError, InvalidCardError
from callbreak.game import Observation, Phase, Trick
from callbreak.rules import BHOOS, Rules, legal_cards

__all__ = [
    "MAX_BUDGET_MS",
    "ProtocolError",
    "bid_body",
    "card_text",
    "observation_from_body",
    "play_body",
    "player_ids",
]


MAX_BUDGET_MS = 86_400_000
"""The most milliseconds a request's ``timeBudget`` may give (a day)."""


class ProtocolError(CallbreakError):
    """A request or answer that breaks the protocol, or describes an impossible game."""


def card_text(card: Card) -> str:
    """The card in the protocol's notation: '1S' for the ace, 'TH', 'QD' (``parse_card`` reads
    it back, as it reads every notation)."""
    return ("1" if card.rank == Rank.ACE else card.rank.letter) + card.suit.letter


def player_ids(names: Sequence[str] | None = None) -> list[str]:
    """The four ids sent to bots: the players' names when they are distinct, else P1-P4."""
    if names and len(set(names)) == 4 and all(isinstance(n, str) and n for n in names):
        return list(names)
    return [f"P{seat + 1}" for seat in range(4)]


# --- host side: observation -> body -----------------------------------------------------------


def _context(observation: Observation, ids: Sequence[str]) -> dict[str, Any]:
    players = {
        ids[seat]: {
            "totalPoints": observation.totals[seat] / 10,
            "bid": observation.calls[seat] or 0,
            "won": observation.won[seat],
        }
        for seat in range(4)
    }
    return {"round": observation.deal_number, "players": players}


def bid_body(observation: Observation, ids: Sequence[str], time_budget_ms: int) -> dict[str, Any]:
    """The body of ``POST /bid`` for the seat of ``observation``."""
    return {
        "playerId": ids[observation.seat],
        "playerIds": list(ids),
        "cards": [card_text(card) for card in observation.hand],
        "timeBudget": time_budget_ms,
        "context": _context(observation, ids),
    }


def play_body(observation: Observation, ids: Sequence[str], time_budget_ms: int) -> dict[str, Any]:
    """The body of ``POST /play`` for the seat of ``observation``."""
    history = [
        [trick.leader, [card_text(card) for card in trick.cards], trick.winner]
        for trick in observation.tricks
    ]
    return bid_body(observation, ids, time_budget_ms) | {
        "played": [card_text(card) for card in observation.trick.cards],
        "history": history,
    }


# --- bot side: body -> observation ------------------------------------------------------------


def observation_from_body(body: object, kind: str, rules: Rules = BHOOS) -> Observation:
    """The observation a ``/bid`` or ``/play`` body describes, checked for consistency.

    Raises ProtocolError naming the first field that is missing, malformed or impossible.
    """
    data = _object(body, "the body")
    ids = _ids(data)
    me = _text(_field(data, "playerId"), "playerId")
    if me not in ids:
        raise ProtocolError(f"playerId {me!r} is not one of playerIds")
    seat = ids.index(me)
    hand = _cards(_field(data, "cards"), "cards")
    budget = _field(data, "timeBudget")
    # At most a day: the players divide it into seconds, which a float must hold.
    if not _number(budget) or not 0 <= budget <= MAX_BUDGET_MS:
        raise ProtocolError(
            f"timeBudget must be a number of milliseconds, 0-{MAX_BUDGET_MS}, not {budget!r}"
        )
    context = _object(_field(data, "context"), "context")
    round_number = _field(context, "round")
    if type(round_number) is not int or round_number < 1:
        raise ProtocolError(f"context.round must be a whole number from 1, not {round_number!r}")
    players = _object(_field(context, "players"), "context.players")
    totals, calls, won = [], [], []
    for seat_id in ids:
        entry = _object(_field(players, seat_id, "context.players"), f"context.players.{seat_id}")
        points = _field(entry, "totalPoints", f"context.players.{seat_id}")
        if not _number(points) or abs(points) > 1_000_000:
            raise ProtocolError(f"context.players.{seat_id}.totalPoints must be a number")
        totals.append(round(points * 10))
        bid = _field(entry, "bid", f"context.players.{seat_id}")
        if type(bid) is not int or not (bid == 0 or bid in rules.call_range()):
            raise ProtocolError(
                f"context.players.{seat_id}.bid must be 0 (not yet) or "
                f"{rules.min_call}-{rules.max_call}, not {bid!r}"
            )
        calls.append(bid or None)
        taken = _field(entry, "won", f"context.players.{seat_id}")
        if type(taken) is not int or not 0 <= taken <= 13:
            raise ProtocolError(f"context.players.{seat_id}.won must be 0-13, not {taken!r}")
        won.append(taken)

    if kind == "bid":
        return _bid_observation(seat, hand, calls, won, totals, round_number, rules)
    return _play_observation(data, seat, hand, calls, won, totals, round_number, rules)


def _bid_observation(
    seat: int,
    hand: list[Card],
    calls: list[int | None],
    won: list[int],
    totals: list[int],
    round_number: int,
    rules: Rules,
) -> Observation:
    if len(hand) != 13 or len(set(hand)) != 13:
        raise ProtocolError(f"cards must be 13 distinct cards when bidding, not {len(hand)}")
    if calls[seat] is not None:
        raise ProtocolError("this player has already bid in this round")
    if any(won):
        raise ProtocolError("tricks are won before bidding ends")
    # Calls go round from the dealer's next seat, so the seats that have called are the ones
    # just before this seat, and the dealer sits just before them.
    made = sum(call is not None for call in calls)
    for back in range(1, made + 1):
        if calls[(seat - back) % 4] is None:
            raise ProtocolError("the bids so far are not the seats before this one in turn")
    dealer = (seat - made - 1) % 4
    return Observation(
        seat=seat,
        rules=rules,
        deal_number=round_number,
        dealer=dealer,
        hand=CardSet(hand),
        calls=tuple(calls),
        tricks=(),
        trick=Trick((dealer + 1) % 4),
        won=(0, 0, 0, 0),
        totals=tuple(totals),
        phase=Phase.CALLING,
        turn=seat,
        legal_calls=tuple(rules.call_range()),
        legal_cards=CardSet(),
    )


def _play_observation(
    data: Mapping[str, Any],
    seat: int,
    hand: list[Card],
    calls: list[int | None],
    won: list[int],
    totals: list[int],
    round_number: int,
    rules: Rules,
) -> Observation:
    if any(call is None for call in calls):
        raise ProtocolError("every player must have bid before play")
    played = _cards(_field(data, "played"), "played")
    if len(played) > 3:
        raise ProtocolError(f"played holds at most 3 cards of the current trick, not {len(played)}")
    history_raw = _field(data, "history")
    if not isinstance(history_raw, list) or len(history_raw) > 12:
        raise ProtocolError("history must be a list of at most 12 completed tricks")
    tricks: list[Trick] = []
    leader = None
    for index, entry in enumerate(history_raw, 1):
        where = f"history[{index - 1}]"
        if not isinstance(entry, list) or len(entry) != 3:
            raise ProtocolError(f"{where} must be [startIndex, [4 cards], winnerIndex]")
        start, cards_raw, winner = entry
        if type(start) is not int or start not in range(4):
            raise ProtocolError(f"{where}: startIndex must be 0-3, not {start!r}")
        if leader is not None and start != leader:
            raise ProtocolError(
                f"{where}: led by {start}, but the previous trick's winner was {leader}"
            )
        cards = _cards(cards_raw, f"{where} cards")
        if len(cards) != 4:
            raise ProtocolError(f"{where} must hold 4 cards, not {len(cards)}")
        trick = Trick(start, tuple(cards))
        if type(winner) is not int or winner != trick.winner:
            raise ProtocolError(f"{where}: the winner is {trick.winner}, not {winner!r}")
        tricks.append(trick)
        leader = winner
    if leader is None:
        # The first trick: the current trick's leader is the dealer's next seat.
        leader = (seat - len(played)) % 4
    current = Trick(leader, tuple(played))
    if current.seat_of(len(played)) != seat:
        raise ProtocolError(
            f"it is not this player's turn: {len(played)} cards are on a trick led by {leader}"
        )
    seen = [card for trick in tricks for card in trick.cards] + played + hand
    if len(set(seen)) != len(seen):
        raise ProtocolError("a card appears twice among cards, played and history")
    expected = 13 - len(tricks)
    if len(hand) != expected:
        raise ProtocolError(
            f"cards must hold {expected} cards after {len(tricks)} tricks, not {len(hand)}"
        )
    counted = [0, 0, 0, 0]
    for trick in tricks:
        counted[trick.winner] += 1  # type: ignore[index]
    if counted != won:
        raise ProtocolError(f"context won {won} does not match the history's winners {counted}")
    hand_set = CardSet(hand)
    legal = legal_cards(hand_set.mask, played, not tricks, rules)
    dealer = ((tricks[0].leader if tricks else leader) - 1) % 4
    return Observation(
        seat=seat,
        rules=rules,
        deal_number=round_number,
        dealer=dealer,
        hand=hand_set,
        calls=tuple(calls),
        tricks=tuple(tricks),
        trick=current,
        won=tuple(won),
        totals=tuple(totals),
        phase=Phase.PLAYING,
        turn=seat,
        legal_calls=(),
        legal_cards=CardSet(legal & FULL_MASK),
    )


def _number(value: object) -> bool:
    if isinstance(value, bool):
        return False
    # A whole number is finite however large (math.isfinite of one past a float's range raises).
    return isinstance(value, int) or (isinstance(value, float) and math.isfinite(value))


def _object(value: object, where: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise ProtocolError(f"{where} must be a JSON object")
    return value


def _field(data: Mapping[str, Any], key: str, where: str = "the body") -> Any:
    if key not in data:
        raise ProtocolError(f"{where} has no {key!r}")
    return data[key]


def _text(value: object, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise ProtocolError(f"{where} must be a non-empty string")
    return value


def _ids(data: Mapping[str, Any]) -> list[str]:
    ids = _field(data, "playerIds")
    if (
        not isinstance(ids, list)
        or len(ids) != 4
        or not all(isinstance(i, str) and i for i in ids)
        or len(set(ids)) != 4
    ):
        raise ProtocolError("playerIds must be 4 distinct non-empty strings")
    return ids


def _cards(value: object, where: str) -> list[Card]:
    if not isinstance(value, list) or len(value) > 52:
        raise ProtocolError(f"{where} must be a list of cards")
    try:
        return [parse_card(item) for item in value]
    except InvalidCardError as error:
        raise ProtocolError(f"{where}: {error}") from None


def answer_card(value: object) -> Card:
    """Read a bot's ``/play`` answer; raises ProtocolError when it is not a card."""
    answer = _object(value, "the answer")
    try:
        return parse_card(_field(answer, "value", "the answer"))
    except InvalidCardError as error:
        raise ProtocolError(f"the answer: {error}") from None


def answer_call(value: object) -> int:
    """Read a bot's ``/bid`` answer; raises ProtocolError when it is not a whole number."""
    answer = _object(value, "the answer")
    call = _field(answer, "value", "the answer")
    if type(call) is not int:
        raise ProtocolError(f"the answer's value must be a whole number, not {call!r}")
    return call
