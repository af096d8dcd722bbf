"""What a browser is sent of a table: one seat's view, and nothing it may not see.

The view holds the seat's own hand and, on its turn, what it may play and why the other cards
are forbidden; everything else in it is public: calls, tricks won, the cards played face up,
scores. Other seats' hands never enter it. A spectator (no seat) gets the public part only.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

from callbreak.cards import Card, CardSet
from callbreak.game import Trick
from callbreak.rules import Rules, format_tenths
from callbreak.seating import is_remote
from callbreak.web.model import COMPUTER, PERSON, PLAYING, Seat, duty_json
from callbreak.web.state import TableState

__all__ = [
    "avatars_json",
    "hand_json",
    "level_name",
    "lobby_json",
    "paused_json",
    "private_view",
    "public_view",
    "rules_json",
    "seat_view",
    "seats_json",
    "trick_json",
]


def seat_view(state: TableState, seat: int | None) -> dict[str, Any]:
    """The view of ``state`` from ``seat``: only what that seat may see (a spectator, None,
    sees what every seat sees)."""
    return public_view(state) | private_view(state, seat)


def private_view(state: TableState, seat: int | None) -> dict[str, Any]:
    """What only ``seat`` may see: its hand and, on its turn, what it may play and why not the
    rest. A spectator's is empty."""
    deal = state.match.deal
    view: dict[str, Any] = {
        "seat": seat,
        "hand": [] if seat is None else list(hand_json(deal.held(seat).mask)),
        "legal": [],
        "reasons": {},
        "duties": {},
        "legal_calls": [],
        "may_claim_redeal": False,
    }
    if seat is None or deal.turn != seat or state.status != PLAYING:
        return view  # a seat waiting for its turn: its hand only
    # The seat to act: what it may do, and the duty that forbids each other card.
    view["legal"] = [str(card) for card in deal.legal_cards()]
    view["legal_calls"] = list(deal.legal_calls())
    view["may_claim_redeal"] = deal.may_claim_redeal()
    view["reasons"] = {str(card): why for card, why in deal.explain_hand().items()}
    view["duties"] = {str(card): duty_json(duty) for card, duty in deal.forbidden().items()}
    return view


@functools.lru_cache(maxsize=8192)
def hand_json(mask: int) -> tuple[str, ...]:
    """The cards of the card set ``mask`` in the order a hand shows them (``display_order``):
    a seat's hand is sent with every state and changes once a trick, so it is worked out once
    per hand."""
    return tuple(str(card) for card in sorted(CardSet(mask), key=display_order))


def public_view(state: TableState) -> dict[str, Any]:
    """What every seat (and a spectator) sees of ``state``: no hand, no legal cards."""
    # Made once per version of the table (``web.hub``), yet the largest part of a state's
    # cost: what the match's methods would each work out again (the deals played, each one's
    # scores, whether the match is over) is worked out once here.
    match = state.match
    deal = match.deal
    played = match.played_deals()
    over = match.is_over
    last_trick = deal.tricks[-1] if deal.tricks else None
    if last_trick is None and len(match.deals) > 1:
        # Until the new deal's first card, the last trick of the deal before is still up.
        previous = match.deals[-2]
        last_trick = previous.tricks[-1] if previous.tricks else None
    scores = [finished.scores() for finished in played]
    results = [
        {
            "number": number,
            "calls": list(finished.calls),
            "won": list(finished.won),
            "scores": [format_tenths(s) for s in deal_scores],
        }
        for number, (finished, deal_scores) in enumerate(zip(played, scores, strict=True), 1)
    ]
    totals = [sum(seat) for seat in zip(*scores, strict=True)] if scores else [0, 0, 0, 0]
    # Before the deal being played: the same sums without it once it is played out.
    before = totals
    if played and played[-1] is deal:
        before = [total - score for total, score in zip(totals, scores[-1], strict=True)]
    rules = match.rules
    turn = None if over else deal.turn
    # Only the seat to act can be thinking: a copy in another process hears "thinking" but
    # learns of the action itself by catching up, which leaves the flag behind.
    thinking = state.thinking if state.thinking == turn else None
    paused = _paused(state, over)
    deal_index = state.deal_index
    return {
        "match": state.id,
        "rules": rules_json(rules),
        "names": state.names,
        "name_keys": state.data.name_keys_in(deal_index),
        "levels": [level_name(level) for level in state.data.levels_in(deal_index)],
        "deal_number": len(played) if played and played[-1] is deal else len(played) + 1,
        "dealer": deal.dealer,
        "phase": deal.phase.value,
        "turn": turn,
        "calls": list(deal.calls),
        "won": list(deal.won),
        "trick": trick_json(deal.trick),
        "last_trick": None if last_trick is None else trick_json(last_trick),
        "tricks_played": len(deal.tricks),
        "totals": [format_tenths(t) for t in totals],
        "totals_before": [format_tenths(t) for t in before],
        "results": results,
        "thrown_in": [d.thrown_in for d in match.deals if d.thrown_in],
        "match_over": over,
        "status": state.status,
        "places": match.places() if over else None,
        "can_stop": state.can_stop,
        "thinking": thinking,
        "settings": {key: state.data.settings.get(key) for key in ("speed", "auto_forced")}
        # A daily challenge's table offers no hint (web.challenge): whether it is one, no more.
        | {"challenge": bool(state.data.settings.get("challenge"))},
        "version": state.version,
        "room": state.id if state.is_room else None,
        "avatars": avatars_json(state),
        "seats": seats_json(state) if state.is_room else None,
        "covered": state.covered(),
        "clock": None if paused or over else _clock(state),
        "paused": paused,
        "preparing": thinking is not None and state.stood_in,
    }


def avatars_json(state: TableState) -> list[str | None] | None:
    """At a table of strangers, each person's avatar (``static/avatar-NAME.svg``) as the seats
    are in the deal being played (None for a computer, a seat not yet taken over included);
    None at any other table."""
    public = state.data.public
    if public is None or not public.get("avatars"):
        return None
    seats = state.seats
    return [
        avatar if seats[seat].kind == PERSON else None
        for seat, avatar in enumerate(public["avatars"])
    ]


def paused_json(state: TableState) -> dict[str, Any] | None:
    """Why a room waits with nobody to move it on, or None: it is a person's turn and none of
    the room's people is here, so the cover does not play for them (nobody waits for a table
    nobody is at) and the turn clock stands still. ``reason`` is "away" (any of ``seats``, the
    people who still hold a seat, resumes it by coming back) or "left" (every person left for
    good: nobody can)."""
    return _paused(state, state.match.is_over)


def _paused(state: TableState, over: bool) -> dict[str, Any] | None:
    """:func:`paused_json`, whether the match is ``over`` known already."""
    if not state.is_room or state.status != PLAYING or over:
        return None
    seats = state.seats
    turn = state.match.deal.turn
    if turn is None or seats[turn].kind != PERSON:
        return None
    holders = [seat for seat, info in enumerate(seats) if info.kind == PERSON and not info.left]
    if any(seat in state.present for seat in holders):
        return None
    return {"reason": "away" if holders else "left", "seats": holders}


def _clock(state: TableState) -> dict[str, Any] | None:
    deadline = state.data.deadline  # the match not over (the caller knows)
    if deadline is None or state.match.deal.turn is None:
        return None
    return {"seat": state.match.deal.turn, "deadline": round(deadline * 1000)}


def lobby_json(state: TableState) -> dict[str, Any]:
    """The room as its lobby shows it: names, kinds, who is connected; never a token. A
    seat taken over from a computer is shown as the computer's until the person's first deal,
    with the person ``arriving`` (their name, and that deal's number from 1)."""
    data = state.data
    rules = rules_json(state.match.rules)
    return {
        "room": data.id,
        "status": data.status,
        "pool": None if data.public is None else data.public["pool"],
        "rules": data.rules,
        "summary": rules["summary"],
        "options": rules["options"],
        "seats": seats_json(state),
        "turn_seconds": data.turn_seconds,
        "cover": level_name(data.settings.get("cover")),
        "version": data.version,
    }


def seats_json(state: TableState) -> list[dict[str, Any]]:
    """The room's seats as its lobby shows them (and each state of a room: ``public_view``)."""
    data = state.data
    covered = set(state.covered())
    deal = state.deal_index
    keys = data.name_keys_in(deal)
    return [
        {
            "name": info.name,
            "name_key": keys[seat],
            "kind": info.kind,
            "level": level_name(info.level) if info.kind == COMPUTER else None,
            "connected": seat in state.present,
            "covered": seat in covered,
            "left": info.left,
            "arriving": _arriving(data.seats[seat], deal),
        }
        for seat, info in enumerate(state.seats)
    ]


def _arriving(seat: Seat, deal: int) -> dict[str, Any] | None:
    if seat.since <= deal:
        return None
    return {"name": seat.name, "deal": seat.since + 1}


@functools.lru_cache(maxsize=64)
def rules_json(rules: Rules) -> dict[str, Any]:
    """Rules as a page shows them: the one-string form, the English summary, and every field
    as data (``options``), from which a page in another language words the summary itself.
    Worked out once per rules (a table's views ask for it with every state): not to be
    changed by a caller."""
    return {
        "text": str(rules),
        "profile": rules.profile,
        "summary": rules.summary(),
        "clockwise": rules.clockwise,
        "deals": rules.deals,
        "calls": [rules.min_call, rules.max_call],
        "options": dataclasses.asdict(rules),
    }


def display_order(card: Card) -> tuple[int, int]:
    """Spades, hearts, clubs, diamonds: black and red alternate, highest first."""
    return ((0, 1, 3, 2)[card.suit], -card.rank)


def trick_json(trick: Trick) -> dict[str, Any]:
    """A trick as the browser draws it: who led, the cards in order, the winner once complete."""
    return {
        "leader": trick.leader,
        "cards": [str(card) for card in trick.cards],
        "winner": trick.winner,
    }


def level_name(level: str | None) -> str | None:
    """A seat's level as a menu names it ('expert'), 'remote bot', or None for a person."""
    if level is None:
        return None
    if is_remote(level):
        return "remote bot"
    return level.split("(")[0].strip().lower()
