"""The computers that decide for a seat instead of its occupant: the *cover*, a computer of the
room's level that plays for a person who is away while others wait, or whose turn clock ran
out; and the *stand-in*, which decides for a search player while a first start still compiles
its search. Each decision is noted as a fault of the seat in the record.
"""

from __future__ import annotations

import asyncio
import functools
import time

from starlette.concurrency import run_in_threadpool

from callbreak.game import Observation
from callbreak.players import Player
from callbreak.players.base import AWAY, TIMEOUT, Fault, written
from callbreak.seating import Decision, PlayerSpec, derive_seed
from callbreak.warmup import STAND_IN, ready
from callbreak.web.accesslog import room_event
from callbreak.web.model import PERSON
from callbreak.web.notices import what
from callbreak.web.tasks import LEASE_SECONDS, Host, leased, pace

__all__ = ["AWAY_GRACE", "Cover"]

AWAY_GRACE = 4.0
"""Seconds a person may be gone (a reload, a network change) before the cover plays for them."""


class Cover:
    """The cover and the stand-ins of one table, built on first need, and when each seat was
    first found away."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self.covers: dict[int, Player] = {}
        self.stand_ins: dict[int, Player] = {}
        self.away_since: dict[int, float] = {}

    def player(self, seat: int) -> Player:
        """The computer that plays for the person in ``seat`` when they are away or out of
        time: the room's cover level, seeded from the match and the seat."""
        spec = self.host.state.data.settings.get("cover") or "intermediate"
        return self._helper(self.covers, "cover", spec, seat)

    def stand_in(self, seat: int) -> Player:
        """The computer that decides for the search player in ``seat`` while a first start is
        still compiling its search (:func:`callbreak.warmup.ready`), seeded like the cover."""
        return self._helper(self.stand_ins, "stand-in", STAND_IN, seat)

    def _helper(self, built: dict[int, Player], role: str, spec: str, seat: int) -> Player:
        player = built.get(seat)
        if player is None:
            state = self.host.state
            seed = derive_seed(state.data.seed, role, seat)
            player = (
                PlayerSpec.parse(spec).with_defaults(seed=seed).build(ready=False, bots=state.bots)
            )
            built[seat] = player
        return player

    def reason(self, seat: int) -> tuple[str | None, float]:
        """Why the cover should play for the person in ``seat`` now (``AWAY``, ``TIMEOUT`` or
        None), and otherwise how long until it may have to."""
        state = self.host.state
        if not state.is_room:
            return None, LEASE_SECONDS
        data, present = state.data, state.present  # kept fresh by events and the listener
        person, now = data.seats[seat], time.time()
        if person.left or seat not in present:
            waiting = any(
                info.kind == PERSON and not info.left and other in present
                for other, info in enumerate(data.seats)
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

    async def play(
        self, seat: int, version: int, reason: str, delay: float, loop: asyncio.AbstractEventLoop
    ) -> None:
        """Let the room's cover decide for the person in ``seat``, marked as a fault of the
        seat."""
        host, state = self.host, self.host.state
        player = await run_in_threadpool(self.player, seat)
        started = loop.time()
        observation = state.match.observation(seat)
        if not await run_in_threadpool(ready, observation, player):  # a cover still compiling
            player = await run_in_threadpool(self.stand_in, seat)
            host.metrics.stand_ins.inc()
        detail = "the turn clock ran out" if reason == TIMEOUT else "not at the table"
        decision, fault = await self.helped(player, observation, reason, detail)
        await pace(delay, started, loop)
        if state.version != version:
            return
        await host.sync.act(seat, decision.action, version, [fault.to_json()])
        host.metrics.covers.labels(reason).inc()
        room_event(state.id, "covered", seat=seat, reason=reason)
        cover = {"seat": seat, "reason": reason, "kind": fault.action, "action": fault.substitute}
        words = f"{state.data.names[seat]}: {detail}, so the computer made {what(fault)}"
        await host.listener.announce({"type": "notice", "message": words, "cover": cover})

    async def helped(
        self, helper: Player, observation: Observation, reason: str, detail: str
    ) -> tuple[Decision, Fault]:
        """The decision of ``helper`` (the cover, the stand-in) seated for this one decision in
        the seat of ``observation``, whose own occupant gets the seat back after; and the fault
        that says so in the record."""
        host = self.host
        seat, seating = observation.seat, host.state.seating  # the same before and after
        table = host.state.id
        previous = seating.sit(seat, helper)
        try:
            decide = functools.partial(seating.decide, observation)
            searched = host.searches.decide(
                table, host.client or table, helper, observation, decide
            )
            decision: Decision = await leased(host, searched)
        finally:
            seating.sit(seat, previous)
        kind, shown = written(decision.action)
        return decision, Fault(seat, kind, reason, detail, shown)
