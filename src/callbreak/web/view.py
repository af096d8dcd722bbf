"""What a browser is sent of a table: one seat's view, and nothing it may not see.

The view holds the seat's own hand and, on its turn, what it may play and why the other cards
are forbidden; everything else in it is public: calls, tricks won, the cards played face up,
scores. Other seats' hands never enter it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from callbreak.cards import Card
from callbreak.game import Phase, Trick
from callbreak.rules import format_tenths
from callbreak.seating import is_remote

if TYPE_CHECKING:
    from callbreak.web.tables import Table

__all__ = ["level_name", "seat_view", "trick_json"]


def seat_view(table: Table, seat: int) -> dict[str, Any]:
    """The view of ``table`` from ``seat``: only what that seat may see."""
    match = table.match
    deal = match.deal
    seen = match.observation(seat)
    my_turn = deal.turn == seat and not match.is_over
    hand = sorted(seen.hand, key=display_order)
    reasons: dict[str, str] = {}
    if my_turn and deal.phase is Phase.PLAYING:
        for card in hand:
            why = deal.explain(card)
            if why:
                reasons[str(card)] = why
    played = match.played_deals()
    last_trick = deal.tricks[-1] if deal.tricks else None
    if last_trick is None and len(match.deals) > 1:
        # Until the new deal's first card, the last trick of the deal before is still up.
        previous = match.deals[-2]
        last_trick = previous.tricks[-1] if previous.tricks else None
    results = [
        {
            "number": number,
            "calls": list(finished.calls),
            "won": list(finished.won),
            "scores": [format_tenths(s) for s in finished.scores()],
        }
        for number, finished in enumerate(played, 1)
    ]
    rules = match.rules
    return {
        "match": table.id,
        "rules": {
            "text": str(rules),
            "profile": rules.profile,
            "summary": rules.summary(),
            "clockwise": rules.clockwise,
            "deals": rules.deals,
            "calls": [rules.min_call, rules.max_call],
        },
        "seat": seat,
        "names": table.names,
        "levels": [level_name(level) for level in table.levels],
        "deal_number": match.deal_number,
        "dealer": deal.dealer,
        "phase": deal.phase.value,
        "turn": None if match.is_over else deal.turn,
        "hand": [str(card) for card in hand],
        "legal": [str(card) for card in seen.legal_cards] if my_turn else [],
        "reasons": reasons,
        "legal_calls": list(seen.legal_calls) if my_turn else [],
        "may_claim_redeal": bool(my_turn and seen.may_claim_redeal),
        "calls": list(deal.calls),
        "won": list(deal.won),
        "trick": trick_json(deal.trick),
        "last_trick": None if last_trick is None else trick_json(last_trick),
        "tricks_played": len(deal.tricks),
        "totals": [format_tenths(t) for t in match.totals()],
        "totals_before": [format_tenths(t) for t in match.totals_before(len(match.deals) - 1)],
        "results": results,
        "thrown_in": [d.thrown_in for d in match.deals if d.thrown_in],
        "match_over": match.is_over,
        "status": table.status,
        "places": match.places() if match.is_over else None,
        "can_stop": table.can_stop,
        "thinking": table.thinking,
        "settings": table.settings,
        "version": table.version,
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
