"""What people at a table are told when a computer decided for a seat: a remote bot's fault,
one of our players failing, the cover playing for a person away or out of time.

The words are English; each notice also carries what happened as data (``fault``, ``cover``),
from which a page in another language words it itself.
"""

from __future__ import annotations

import dataclasses

from callbreak.cards import parse_card
from callbreak.players.base import CALL, FAILED, ILLEGAL, LATE, MALFORMED, SILENT, Fault

__all__ = ["BOT_FAULTS", "fault_message", "public", "what"]

BOT_FAULTS = {
    LATE: "no answer in time",
    SILENT: "no connection",
    MALFORMED: "an answer outside the protocol",
    ILLEGAL: "an illegal {what}",
}
"""What a room or a match says of a remote bot's fault, by kind: nothing of what it answered
or of why a connection failed (the server called an address a stranger may have chosen)."""


def public(fault: Fault) -> Fault:
    """A remote bot's fault with only its kind in words; any other fault as it is."""
    words = BOT_FAULTS.get(fault.fault)
    if words is None:
        return fault
    kind = "call" if fault.action == CALL else "card"
    return dataclasses.replace(fault, detail=words.format(what=kind))


def fault_message(name: str, fault: Fault) -> tuple[str, str]:
    """What people are told of a computer's fault, and whether it is an error or a notice."""
    if fault.fault == FAILED:  # a player of ours failed: a bug, in the log (seating), not shown
        return f"{name} failed; a legal move was made for it", "error"
    done = "made" if fault.action == CALL else "played"
    return (
        f"{name}'s bot: {fault.fault} ({fault.detail}); {what(fault)} was {done} for it",
        "notice",
    )


def what(fault: Fault) -> str:
    """What the host played for a seat, in words (the English of a notice)."""
    if fault.action != CALL:
        return f"the {parse_card(fault.substitute).pretty()}"
    return (
        "a claim for a new deal"
        if fault.substitute == "redeal"
        else f"a call of {fault.substitute}"
    )
