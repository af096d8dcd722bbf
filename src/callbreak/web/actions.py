"""How a browser match's actions are stored, and the match rebuilt from them.

A stored match is its rules, seed and players plus the list of actions taken, each a short code:
``c3`` (a call of 3), ``pTH`` (the 10♥), ``r`` (a spadeless redeal claim), ``s`` (the table
stopped an open-ended match). Replaying the codes through the engine rebuilds the match exactly.

>>> match = Match("strict", seed=1)
>>> code = encode(Call(2))
>>> code, decode(code)
('c2', Call(value=2))
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from callbreak.cards import parse_card
from callbreak.errors import CallbreakError
from callbreak.game import Action, Call, ClaimRedeal, Match, Play
from callbreak.rules import Rules

__all__ = ["STOP", "decode", "encode", "match_from_row", "replay"]

STOP: Final = "s"
"""The code of stopping an open-ended match between deals (not an action of a seat)."""


def encode(action: Action | str) -> str:
    """An action as stored (``STOP`` is stored as it is)."""
    if isinstance(action, Call):
        return f"c{action.value}"
    if isinstance(action, Play):
        return f"p{action.card}"
    if isinstance(action, ClaimRedeal):
        return "r"
    if action == STOP:
        return STOP
    raise CallbreakError(f"not an action: {action!r}")


def decode(code: str) -> Action | str:
    """A stored code back as an action, or ``STOP``."""
    if code == STOP:
        return STOP
    if code == "r":
        return ClaimRedeal()
    if code.startswith("c") and code[1:].isdigit():
        return Call(int(code[1:]))
    if code.startswith("p"):
        return Play(parse_card(code[1:]))
    raise CallbreakError(f"not a stored action: {code!r}")


def replay(match: Match, codes: Iterable[str]) -> Match:
    """Apply stored actions to ``match`` in order."""
    for code in codes:
        action = decode(code)
        if action == STOP:
            match.stop()
        else:
            assert not isinstance(action, str)
            match.apply(action)
    return match


def match_from_row(row: Mapping[str, Any]) -> Match:
    """A stored match rebuilt by replaying its actions."""
    match = Match(Rules.parse(row["rules"]), seed=row["seed"], players=tuple(row["names"]))
    return replay(match, row["actions"])
