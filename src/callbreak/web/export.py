"""A browser match's game record, safe to hand out while the match is still being played."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from callbreak.game import Match
from callbreak.record import Record, check, from_data, to_data

__all__ = ["record_data", "trick_winners"]


def record_data(match: Match, faults: Mapping[int, Sequence[Mapping[str, Any]]]) -> dict[str, Any]:
    """The game record, with the faults noted by deal: the whole match once over; before that
    only the completed deals, so that nobody can read the hidden hands of the deal in play."""
    record = Record.from_match(match, faults)
    if not match.is_over:
        # The seed would rebuild every hand, those of the deals still to come included: it is
        # written only once the match is over.
        complete = [deal for deal in record.deals if deal.thrown_in or len(deal.tricks) == 13]
        record = dataclasses.replace(record, deals=tuple(complete), seed=None, unfinished=True)
    return to_data(record)


def trick_winners(data: dict[str, Any]) -> list[list[int]]:
    """The seat that won each trick of each deal of a record (empty for thrown-in deals), as
    the engine decides it, so that a replay never has to work it out again."""
    deals = check(from_data(data)).deals
    return [[trick.winner for trick in deal.tricks if trick.winner is not None] for deal in deals]
