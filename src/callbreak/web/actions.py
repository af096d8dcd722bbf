"""A table's actions: a seat's call, card or redeal claim, and the table's :class:`Stop`; how
each is stored (one short code) and taken on a match.

``c3`` (a call of 3), ``pTH`` (the 10♥), ``r`` (a spadeless redeal claim), ``s`` (the table
stopped an open-ended match). Taking the codes again in order rebuilds the match exactly.

>>> code = encode(Call(2))
>>> code, decode(code), decode(encode(Stop()))
('c2', Call(value=2), Stop())
"""

from __future__ import annotations

import dataclasses
from typing import TypeAlias

from callbreak.cards import parse_card
from callbreak.errors import CallbreakError
from callbreak.game import Action, Call, ClaimRedeal, Match, Play
from callbreak.seating import Seating

__all__ = ["Stop", "TableAction", "decode", "encode", "take"]


@dataclasses.dataclass(frozen=True)
class Stop:
    """The table ends an open-ended match between deals: the room's creator (or the person of
    a match) asks for it; it is no seat's turn."""


TableAction: TypeAlias = Action | Stop
"""What a table takes: a seat's action, or :class:`Stop`."""


def encode(action: TableAction) -> str:
    """An action as stored."""
    if isinstance(action, Call):
        return f"c{action.value}"
    if isinstance(action, Play):
        return f"p{action.card}"
    if isinstance(action, ClaimRedeal):
        return "r"
    if isinstance(action, Stop):
        return "s"
    raise CallbreakError(f"not an action: {action!r}")


def decode(code: str) -> TableAction:
    """A stored code back as an action."""
    if code == "s":
        return Stop()
    if code == "r":
        return ClaimRedeal()
    if code.startswith("c") and code[1:].isdigit():
        return Call(int(code[1:]))
    if code.startswith("p"):
        return Play(parse_card(code[1:]))
    raise CallbreakError(f"not a stored action: {code!r}")


def take(on: Match | Seating, action: TableAction) -> None:
    """Take ``action`` on a match, or on a seating's match with every player told; the
    engine's error (IllegalPlayError, IllegalCallError, CallbreakError) when it may not be
    taken, nothing changed."""
    if isinstance(action, Stop):
        on.stop()
    else:
        on.apply(action)
