"""How a table's actions are stored: one short code each.

``c3`` (a call of 3), ``pTH`` (the 10♥), ``r`` (a spadeless redeal claim), ``s`` (the table
stopped an open-ended match). Replaying the codes through the engine rebuilds the match exactly.

>>> code = encode(Call(2))
>>> code, decode(code)
('c2', Call(value=2))
"""

from __future__ import annotations

from typing import Final

from callbreak.cards import parse_card
from callbreak.errors import CallbreakError
from callbreak.game import Action, Call, ClaimRedeal, Play

__all__ = ["STOP", "decode", "encode"]

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
