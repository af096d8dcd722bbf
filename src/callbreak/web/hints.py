"""Hints for the person at a table: the advisor's ranking of their calls or cards."""

from __future__ import annotations

from typing import Any

from callbreak.cards import Card
from callbreak.game import Observation
from callbreak.players.advisor import advise

__all__ = ["HINT_SECONDS", "hint_message"]

HINT_SECONDS = 0.5


def hint_message(observation: Observation, version: int) -> dict[str, Any]:
    """The ``hint`` message for the seat of ``observation`` (blocking: the advisor searches).

    ``version`` says which decision the hint is for: by the time it arrives the person may
    have moved on.
    """
    advice = advise(observation, time=HINT_SECONDS, seed=version)
    options = [
        {
            # A card is an int too: test for the card first, so that it is sent as "AD".
            "action": str(option.action) if isinstance(option.action, Card) else option.action,
            "value": None if option.value is None else round(option.value, 2),
            "tricks": None if option.expected_tricks is None else round(option.expected_tricks, 2),
        }
        for option in advice.options
    ]
    return {
        "type": "hint",
        "kind": advice.kind,
        "summary": advice.summary(),
        "options": options,
        "version": version,
    }
