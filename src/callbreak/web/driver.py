"""Who moves a table on when no person clicks: computers, the turn clock, and the cover.

The table's owner (``web.live.LiveTable``) asks its :class:`Driver` after every message what
comes next (:meth:`Driver.next`): a decision to make (a computer seat's, the cover's for a
person whose clock ran out or who is away while others wait, or the forced card of a person who
asked for it), or how long to wait before looking again. A decision runs as a task of its own
(:meth:`Driver.decide`), at a pace a person can follow; what it decided comes back to the
owner's inbox as a :class:`Decided`, taken on the version it was made on, so a person who comes
back and plays first simply wins the race.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from collections.abc import Callable
from typing import Any

from starlette.concurrency import run_in_threadpool

from callbreak.errors import CallbreakError
from callbreak.game import Play
from callbreak.players.base import PREPARING, TIMEOUT
from callbreak.warmup import STAND_IN, ready
from callbreak.web.actions import TableAction
from callbreak.web.backend import Event
from callbreak.web.cover import Cover
from callbreak.web.http import LOG
from callbreak.web.hub import Hub
from callbreak.web.metrics import Metrics
from callbreak.web.model import COMPUTER, PERSON, PLAYING, SPEEDS, SUMMARY_SECONDS
from callbreak.web.notices import fault_message, public, what
from callbreak.web.searches import Searches
from callbreak.web.state import TableState
from callbreak.web.tasks import LEASE_SECONDS, pace

__all__ = ["COMPUTER_TURN", "COVER", "FORCED", "TRICK_PAUSE", "Decided", "Driver", "Move"]

TRICK_PAUSE = 1.6
COMPUTER_TURN, COVER, FORCED = "computer", "cover", "forced"


@dataclasses.dataclass(frozen=True)
class Move:
    """A decision the driver is to make: whose, of which kind (a computer's turn, the cover's
    with its reason, a person's forced card), on which version, at which pace."""

    seat: int
    kind: str
    version: int
    delay: float
    reason: str | None = None


@dataclasses.dataclass(frozen=True)
class Decided:
    """What a decision came to: the action for the owner to take on ``version``, its faults as
    stored, and the events to announce once it is stored (the cover's notice)."""

    seat: int
    version: int
    action: TableAction
    faults: list[dict[str, Any]]
    after: list[Event] = dataclasses.field(default_factory=list)
    covered: str | None = None
    """The cover's reason, when the cover decided."""
    by: str = dataclasses.field(kw_only=True)
    """Who decided: the kind of its :class:`Move` (a computer's turn, the cover, a person's
    forced card). The owner takes it only while the seat is still played so (``web.live``)."""


class Driver:
    """What moves one table on next, and the computers that decide for a seat (``web.cover``)."""

    def __init__(self, state: TableState, hub: Hub, searches: Searches, metrics: Metrics) -> None:
        self.state, self.hub, self.searches, self.metrics = state, hub, searches, metrics
        self.cover = Cover(state, searches)
        self.summary_since: dict[int, float] = {}
        """When the driver first found the next deal waiting on a summary, by version."""

    def next(self, now: float) -> Move | float:
        """The decision to make now, or the seconds until the table must be looked at again
        (the loop's clock ``now``)."""
        state = self.state
        renew = LEASE_SECONDS / 3
        match, data = state.match, state.data
        if data.status != PLAYING or match.is_over or state.pending is not None:
            return renew
        deal = match.deal
        seat = deal.turn
        assert seat is not None
        delay = SPEEDS[data.settings.get("speed") or "normal"]
        if not deal.trick.cards and (deal.tricks or (len(match.deals) > 1 and not deal.tricks)):
            delay *= TRICK_PAUSE  # let the finished trick be seen
        computer = state.seats[seat].kind == COMPUTER
        reason, wait = (None, 0.0) if computer else self.cover.reason(seat)
        if computer or reason is not None:
            # A computer does not start the next deal under a summary people still read.
            summary = self._summary_wait(now)
            if summary > 0:
                return min(summary, renew)
        if computer:
            return Move(seat, COMPUTER_TURN, state.version, delay)
        if reason is not None:
            return Move(seat, COVER, state.version, delay, reason)
        if data.settings.get("auto_forced") and len(deal.legal_cards()) == 1:
            return Move(seat, FORCED, state.version, delay)
        return min(wait, renew)

    def waiting_on_summary(self) -> list[int]:
        """The people at the table who have not closed the last deal's summary, while the next
        deal has not begun (empty otherwise). Only pages that show summaries are waited for
        (they said ``seen``), never a client that shows none (a script, a bot)."""
        state = self.state
        match, seats = state.match, state.seats
        scored = len(match.played_deals())
        if not scored or match.deal.actions or match.is_over or state.status != PLAYING:
            return []
        if state.is_room:
            here = [s for s in state.present if seats[s].kind == PERSON and not seats[s].left]
        else:
            here = list(self.hub.seats())
        return sorted(seat for seat in here if seat in state.seen and state.seen[seat] < scored)

    def _summary_wait(self, now: float) -> float:
        """Seconds the next deal's first decision waits for the people at the table to close
        the last deal's summary (0: nobody is looking at one, or they have had long enough)."""
        if not self.waiting_on_summary():
            return 0.0
        version = self.state.version
        since = self.summary_since.setdefault(version, now)
        self.summary_since = {version: since}
        return max(0.0, SUMMARY_SECONDS - (now - since))

    async def decide(
        self, move: Move, client: str, say: Callable[[Event, int], None]
    ) -> Decided | None:
        """Make ``move``'s decision, its searches counted against ``client``; None when the
        table moved on meanwhile or the seat's player cannot be built. ``say`` hands an event
        (a computer thinking, a bot's fault) to the owner, to be shown while the table is still
        at the version given with it."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        if move.kind == FORCED:
            (card,) = self.state.match.deal.legal_cards()
            await asyncio.sleep(move.delay)
            return Decided(move.seat, move.version, Play(card), [], by=FORCED)
        if move.kind == COVER:
            return await self._cover(move, client, started, loop)
        return await self._computer(move, client, say, started, loop)

    async def _computer(
        self,
        move: Move,
        client: str,
        say: Callable[[Event, int], None],
        started: float,
        loop: asyncio.AbstractEventLoop,
    ) -> Decided | None:
        state, seat, version = self.state, move.seat, move.version
        name = state.names[seat]
        try:
            player = await run_in_threadpool(state.seating.player, seat)
        except Exception as problem:  # a spec that cannot be built: nothing can move on
            if isinstance(problem, CallbreakError):  # our own errors are written for people
                why = str(problem)
            else:  # any other is for the log only
                LOG.exception("table %s could not seat %s", state.id, seat)
                why = "the server could not start that player"
            await self.hub.send({"type": "error", "message": f"cannot seat {name}: {why}"})
            await asyncio.sleep(LEASE_SECONDS)
            return None
        if state.version != version:
            return None
        started = loop.time()
        observation = state.match.observation(seat)
        prepared = await run_in_threadpool(ready, observation, player)
        if state.version != version:
            return None
        say({"type": "thinking", "seat": seat, "preparing": not prepared}, version)
        if prepared:
            decide = functools.partial(state.seating.decide, observation)
            decision = await self.searches.decide(state.id, client, player, observation, decide)
            self.metrics.decided(state.seats[seat].level, decision.seconds)
        else:  # a first start still compiles this player's search: the stand-in decides
            stand_in = await run_in_threadpool(self.cover.stand_in, seat)
            detail = f"its search was still being prepared; the {STAND_IN} level decided"
            decision, stood_in = await self.cover.helped(
                stand_in, observation, PREPARING, detail, client
            )
            decision = dataclasses.replace(decision, faults=(*decision.faults, stood_in))
            self.metrics.stand_ins.inc()
            self.metrics.decided(STAND_IN, decision.seconds)
        faults = [public(fault) for fault in decision.faults]
        for fault in faults:
            if fault.fault != PREPARING:  # the page's status says the search is being prepared
                message, kind = fault_message(name, fault)
                if kind == "notice":
                    say({"type": "notice", "message": message, "fault": fault.to_json()}, version)
                else:
                    await self.hub.send({"type": kind, "message": message})
        await pace(move.delay, started, loop)
        return Decided(
            seat, version, decision.action, [f.to_json() for f in faults], by=COMPUTER_TURN
        )

    async def _cover(
        self, move: Move, client: str, started: float, loop: asyncio.AbstractEventLoop
    ) -> Decided | None:
        """The room's cover decides for the person in the move's seat, marked as a fault of the
        seat, with the notice that says so once stored."""
        state, seat, cover = self.state, move.seat, self.cover
        reason = move.reason or TIMEOUT
        player = await run_in_threadpool(cover.player, seat)
        if state.version != move.version:
            return None
        observation = state.match.observation(seat)
        if not await run_in_threadpool(ready, observation, player):  # a cover still compiling
            player = await run_in_threadpool(cover.stand_in, seat)
            self.metrics.stand_ins.inc()
        detail = "the turn clock ran out" if reason == TIMEOUT else "not at the table"
        decision, fault = await cover.helped(player, observation, reason, detail, client)
        await pace(move.delay, started, loop)
        notice = {"seat": seat, "reason": reason, "kind": fault.action, "action": fault.substitute}
        words = f"{state.names[seat]}: {detail}, so the computer made {what(fault)}"
        after: list[Event] = [{"type": "notice", "message": words, "cover": notice}]
        return Decided(
            seat, move.version, decision.action, [fault.to_json()], after, reason, by=COVER
        )
