"""The computers that decide for a seat instead of its occupant: the *cover*, a computer of the
room's level that plays for a person who is away while others wait, or whose turn clock ran
out; and the *stand-in*, which decides for a search player while a first start still compiles
its search. Each decision is noted as a fault of the seat in the record.
"""

from __future__ import annotations

import functools
import time

from callbreak.game import Observation
from callbreak.players import Player
from callbreak.players.base import AWAY, TIMEOUT, Fault, written
from callbreak.seating import Decision, PlayerSpec, derive_seed
from callbreak.warmup import STAND_IN
from callbreak.web.model import DEFAULT_COVER, PERSON
from callbreak.web.searches import Searches
from callbreak.web.state import TableState
from callbreak.web.tasks import LEASE_SECONDS

__all__ = ["AWAY_GRACE", "Cover"]

AWAY_GRACE = 4.0
"""Seconds a person may be gone (a reload, a network change) before the cover plays for them."""


class Cover:
    """The cover and the stand-ins of one table, built on first need, and when each seat was
    first found away."""

    def __init__(self, state: TableState, searches: Searches) -> None:
        self.state, self.searches = state, searches
        self.covers: dict[int, Player] = {}
        self.stand_ins: dict[int, Player] = {}
        self.away_since: dict[int, float] = {}

    def player(self, seat: int) -> Player:
        """The computer that plays for the person in ``seat`` when they are away or out of
        time: the room's cover level, seeded from the match and the seat."""
        spec = self.state.data.settings.get("cover") or DEFAULT_COVER
        return self._helper(self.covers, "cover", spec, seat)

    def stand_in(self, seat: int) -> Player:
        """The computer that decides for the search player in ``seat`` while a first start is
        still compiling its search (:func:`callbreak.warmup.ready`), seeded like the cover."""
        return self._helper(self.stand_ins, "stand-in", STAND_IN, seat)

    def _helper(self, built: dict[int, Player], role: str, spec: str, seat: int) -> Player:
        player = built.get(seat)
        if player is None:
            state = self.state
            seed = derive_seed(state.data.seed, role, seat)
            player = (
                PlayerSpec.parse(spec).with_defaults(seed=seed).build(ready=False, bots=state.bots)
            )
            built[seat] = player
        return player

    def reason(self, seat: int) -> tuple[str | None, float]:
        """Why the cover should play for the person in ``seat`` now (``AWAY``, ``TIMEOUT`` or
        None), and otherwise how long until it may have to."""
        state = self.state
        if not state.is_room:
            return None, LEASE_SECONDS
        data, present = state.data, state.present  # kept fresh by events and the listener
        seats = state.seats
        person, now = seats[seat], time.time()
        if person.left or seat not in present:
            waiting = any(
                info.kind == PERSON and not info.left and other in present
                for other, info in enumerate(seats)
            )
            if not waiting:
                return None, LEASE_SECONDS  # nobody is at the table: nobody waits
            since = self.away_since.setdefault(seat, now)
            if person.left or now - since >= AWAY_GRACE:
                return AWAY, 0.0
            return None, AWAY_GRACE - (now - since)
        self.away_since.pop(seat, None)
        if data.deadline is not None:
            if now >= data.deadline:
                return TIMEOUT, 0.0
            return None, data.deadline - now
        return None, LEASE_SECONDS

    async def helped(
        self, helper: Player, observation: Observation, reason: str, detail: str, client: str
    ) -> tuple[Decision, Fault]:
        """The decision of ``helper`` (the cover, the stand-in) seated for this one decision in
        the seat of ``observation``, whose own occupant gets the seat back after; and the fault
        that says so in the record. Its search counts against ``client``."""
        seat, seating = observation.seat, self.state.seating  # the same before and after
        previous = seating.sit(seat, helper)
        try:
            decide = functools.partial(seating.decide, observation)
            searched = self.searches.decide(self.state.id, client, helper, observation, decide)
            decision: Decision = await searched
        finally:
            seating.sit(seat, previous)
        kind, shown = written(decision.action)
        return decision, Fault(seat, kind, reason, detail, shown)
