"""What a seat could see at each version of a table, to check every message it was sent."""

from __future__ import annotations

import json
import re

from callbreak.cards import parse_card
from callbreak.game import Match
from callbreak.web.actions import decode, take

CARD = re.compile(r'"([2-9TJQKA][SHDC])"')


def hidden_cards_seen(
    received: list[str],
    seat: int | None,
    rules: str,
    seed: str,
    codes: list[str],
    since: int = 0,
) -> list[str]:
    """The cards in any message of ``received`` that ``seat`` could not see at that version:
    not in its hand, not played face up in the deal (or the last trick of the deal before).
    A seat taken over from a computer is the person's from the deal of index ``since``: they
    see none of its hand before."""
    seen_by_version: dict[int, set[str]] = {}
    match = Match(rules, seed=seed)
    for version in range(len(codes) + 1):
        visible = set()
        deal = match.deal
        if seat is not None and len(match.deals) - 1 >= since:
            visible |= {str(card) for card in deal.held(seat)}
        for earlier in match.deals[-2:]:
            for trick in [*earlier.tricks, earlier.trick]:
                visible |= {str(card) for card in trick.cards}
        seen_by_version[version] = visible
        if version < len(codes):
            take(match, decode(codes[version]))
    leaks = []
    for text in received:
        message = json.loads(text)
        if message["type"] != "state":
            continue
        visible = seen_by_version[message["state"]["version"]]
        for card in CARD.findall(text):
            parse_card(card)
            if card not in visible:
                leaks.append(f"version {message['state']['version']}: {card}")
    return leaks
