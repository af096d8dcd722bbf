"""A browser match's game record, safe to hand out while the match is still being played."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from callbreak.game import Match, Phase
from callbreak.record import Record, Takeover, check, from_data, to_data
from callbreak.rules import format_tenths
from callbreak.web.state import TableState
from callbreak.web.view import display_order, rules_json

__all__ = ["record_data", "record_of", "replay_data"]


def record_data(
    match: Match,
    faults: Mapping[int, Sequence[Mapping[str, Any]]],
    takeovers: Sequence[Takeover] = (),
) -> dict[str, Any]:
    """The game record, with the faults noted by deal and the seats people took over from
    computers: the whole match once over; before that only the completed deals, so that
    nobody can read the hidden hands of the deal in play."""
    record = Record.from_match(match, faults, takeovers)
    if not match.is_over:
        # The seed would rebuild every hand, those of the deals still to come included: it is
        # written only once the match is over.
        complete = [deal for deal in record.deals if deal.thrown_in or len(deal.tricks) == 13]
        shown = tuple(t for t in record.takeovers if t.deal <= len(complete))
        record = dataclasses.replace(
            record, deals=tuple(complete), seed=None, unfinished=True, takeovers=shown
        )
    return to_data(record)


def record_of(state: TableState) -> dict[str, Any]:
    """The game record of a table's state (:func:`record_data` of its match, faults and
    takeovers)."""
    takeovers = [Takeover(seat, since + 1, name) for seat, since, name in state.data.takeovers()]
    return record_data(state.match, state.faults_by_deal, takeovers)


def replay_data(data: dict[str, Any], name_keys: Sequence[str | None]) -> dict[str, Any]:
    """What the replay page draws a record from: the record itself, and what the engine
    decides of it, so that the page never works it out again: the rules as the table gives
    them (the direction of play, the profile), each deal's hands in the table's order, the seat
    that won each trick (none in a thrown-in deal), each deal's scores by seat (None for a
    thrown-in deal) and the match's totals before each deal, in points with one decimal."""
    record = from_data(data)
    checked = check(record)
    deals = checked.deals
    before, running = [], [0, 0, 0, 0]  # the match's totals before each deal, by seat
    for deal in deals:
        before.append(list(running))
        if deal.phase is Phase.OVER:
            running = [total + points for total, points in zip(running, deal.scores(), strict=True)]
    return {
        "record": data,
        "rules": rules_json(checked.rules),
        # Each deal's hands as the table shows a hand (a record keeps them in any order).
        "hands": [
            [[str(card) for card in sorted(hand, key=display_order)] for hand in deal.hands]
            for deal in record.deals
        ],
        "winners": [[t.winner for t in deal.tricks if t.winner is not None] for deal in deals],
        "scores": [
            [format_tenths(points) for points in deal.scores()]
            if deal.phase is Phase.OVER
            else None
            for deal in deals
        ],
        "totals": [[format_tenths(points) for points in totals] for totals in before],
        "name_keys": list(name_keys),
    }
