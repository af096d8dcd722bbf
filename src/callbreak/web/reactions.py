"""Reactions at a room's table: a preset set of emoji and short phrases a seated person sends
over the room's socket, shown on their badge in every browser at the table (docs/rooms.md,
*Reactions*). No free text: a reaction is one of :data:`REACTIONS`, which each page words in
its own language (the phrases) or shows as it is (the emoji). Nothing of a reaction is stored.

A person sends at most a few a minute (:class:`Reactions`): counted against their profile at a
table of strangers (their seat elsewhere) and against their address, each a token bucket kept
by the process the socket reaches. Over either, the reaction is refused (``reactions_rate``,
with the seconds to wait) and nobody is sent anything.
"""

from __future__ import annotations

from callbreak.refusals import Refusal
from callbreak.web.limits import DEFAULT, Limits, PerAddress
from callbreak.web.model import TableData

__all__ = ["EMOJI", "PHRASES", "REACTIONS", "Reactions", "check_reaction"]

EMOJI = ("thumbs", "heart", "laugh", "wow", "sad")
"""The emoji (thumbs up, a heart, laughing, surprised, sad), drawn by the pages (not a font's
glyphs, which a phone may lack)."""
PHRASES = ("good_luck", "well_played", "nice_call", "thanks", "oops")
"""The short phrases, worded by each page (``reaction.NAME`` in ``static/lang-*.js``)."""
REACTIONS = EMOJI + PHRASES


def check_reaction(value: object) -> str:
    """One of :data:`REACTIONS`; a Refusal (``reaction``) naming them otherwise."""
    if not isinstance(value, str) or value not in REACTIONS:
        raise Refusal("reaction", reactions=list(REACTIONS))
    return value


class Reactions:
    """How many reactions a person and an address may send: one bucket each, in this
    process."""

    def __init__(self, limits: Limits = DEFAULT) -> None:
        self.people = PerAddress(limits.reactions_per_minute / 60, limits.reaction_burst)
        self.addresses = PerAddress(
            limits.address_reactions_per_minute / 60, limits.address_reaction_burst
        )

    def take(self, data: TableData, seat: int, address: str) -> None:
        """Count one reaction of ``seat`` at ``data``'s table from ``address``; a Refusal
        (``reactions_rate``, with the seconds to wait) when either is over its rate. A refused
        reaction counts against neither."""
        public = data.public
        profile = public["profiles"][seat] if public is not None else None
        person = f"profile:{profile}" if profile else f"seat:{data.id}:{seat}"
        wait = self.addresses.take(address)
        if not wait:
            wait = self.people.take(person)
            if wait:
                self.addresses.give_back(address)
        if wait:
            raise Refusal("reactions_rate", seconds=max(1, round(wait + 0.5)))
