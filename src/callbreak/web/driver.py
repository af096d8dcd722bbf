"""Who moves a table on when no person clicks: computers, the turn clock, and the cover.

While a process has connections to a table, the table's :class:`Driver` runs one task for it
where the backend's lease is held (one process per table): it asks a computer seat's player for
its decision at a pace a person can follow; at a person's turn it plays the forced card when
they asked for that, and in a room it lets the cover (a computer of the room's level) decide
for a person whose clock ran out, or who is away while others wait. Every decision is stored
through the table's sync (``web.sync``) on the version it was made on, so a person who comes
back and plays first simply wins the race.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools

from starlette.concurrency import run_in_threadpool

from callbreak.errors import CallbreakError
from callbreak.game import Play
from callbreak.players.base import PREPARING
from callbreak.warmup import STAND_IN, ready
from callbreak.web.backend import OWNER
from callbreak.web.cover import Cover
from callbreak.web.http import LOG
from callbreak.web.model import COMPUTER, PERSON, PLAYING, SPEEDS, SUMMARY_SECONDS, StaleAction
from callbreak.web.notices import fault_message, public
from callbreak.web.tasks import (
    LEASE_SECONDS,
    Host,
    TableTask,
    leased,
    pace,
    until_store_answers,
    within,
)

__all__ = ["TRICK_PAUSE", "Driver"]

TRICK_PAUSE = 1.6


class Driver(TableTask):
    """The task that moves one table on, with the computers that decide for a seat instead of
    its occupant (``web.cover``)."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self.changed = asyncio.Event()
        """Set whenever the table changes (here or in another process): wakes the driver."""
        self.cover = Cover(host)
        self.summary_since: dict[int, float] = {}
        """When the driver first found the next deal waiting on a summary, by version."""

    async def run(self) -> None:
        """Move the table on while anyone is connected here, waiting out a store out of reach."""
        host = self.host
        loop = asyncio.get_running_loop()
        leased_at = -LEASE_SECONDS
        while host.hub.connections:
            try:
                leased_at = await self._step(loop, leased_at)
            except StaleAction:
                continue  # a person (or another process) moved first: look again
            except host.backend.failures:
                # The store out of reach past its retries: the table goes on as soon as it
                # answers (leased and read again first), not when a clock runs out.
                LOG.warning("table %s waits for the store to answer", host.state.id)
                await until_store_answers(host)
                leased_at = -LEASE_SECONDS

    async def _step(self, loop: asyncio.AbstractEventLoop, leased_at: float) -> float:
        """One decision of the driver, or a wait for one; when the lease was last taken."""
        host, state = self.host, self.host.state
        renew = LEASE_SECONDS / 3
        self.changed.clear()
        if loop.time() - leased_at >= renew:  # renewed a few times a lease, not every turn
            if not await host.backend.lease(state.id, OWNER, LEASE_SECONDS):
                await self._wait(renew)
                return leased_at
            leased_at = loop.time()
            await host.sync.catch_up()  # just leased: this copy may be behind the last holder's
        match, data = state.match, state.data
        if data.status != PLAYING or match.is_over or state.pending is not None:
            await self._wait(renew)
            return leased_at
        deal = match.deal
        seat = deal.turn
        assert seat is not None
        version = state.version
        delay = SPEEDS[data.settings.get("speed") or "normal"]
        if not deal.trick.cards and (deal.tricks or (len(match.deals) > 1 and not deal.tricks)):
            delay *= TRICK_PAUSE  # let the finished trick be seen
        computer = data.seats[seat].kind == COMPUTER
        reason, wait = (None, 0.0) if computer else self.cover.reason(seat)
        if computer or reason is not None:
            # A computer does not start the next deal under a summary people still read.
            summary = self._summary_wait(loop)
            if summary > 0:
                await self._wait(min(summary, renew))
                return leased_at
        if computer:
            await self._computer(seat, version, delay, loop)
        elif reason is not None:
            await self.cover.play(seat, version, reason, delay, loop)
        elif data.settings.get("auto_forced") and len(legal := deal.legal_cards()) == 1:
            await asyncio.sleep(delay)
            if state.version == version:
                await host.sync.act(seat, Play(next(iter(legal))), version, [])
        else:
            await self._wait(min(wait, renew))
        return leased_at

    async def _wait(self, seconds: float) -> None:
        """Until the table changes, or ``seconds`` pass."""
        await within(self.changed.wait(), max(seconds, 0.0))

    def waiting_on_summary(self) -> list[int]:
        """The people at the table who have not closed the last deal's summary, while the next
        deal has not begun (empty otherwise). Only pages that show summaries are waited for
        (they said ``seen``), never a client that shows none (a script, a bot)."""
        state = self.host.state
        match, seats = state.match, state.data.seats
        scored = len(match.played_deals())
        if not scored or match.deal.actions or match.is_over or state.status != PLAYING:
            return []
        if state.is_room:
            here = [s for s in state.present if seats[s].kind == PERSON and not seats[s].left]
        else:
            here = list(self.host.hub.seats())
        return sorted(seat for seat in here if seat in state.seen and state.seen[seat] < scored)

    def _summary_wait(self, loop: asyncio.AbstractEventLoop) -> float:
        """Seconds the next deal's first decision waits for the people at the table to close
        the last deal's summary (0: nobody is looking at one, or they have had long enough)."""
        if not self.waiting_on_summary():
            return 0.0
        version = self.host.state.version
        since = self.summary_since.setdefault(version, loop.time())
        self.summary_since = {version: since}
        return max(0.0, SUMMARY_SECONDS - (loop.time() - since))

    async def _computer(
        self, seat: int, version: int, delay: float, loop: asyncio.AbstractEventLoop
    ) -> None:
        host, state = self.host, self.host.state
        name = state.data.names[seat]
        try:
            player = await run_in_threadpool(state.seating.player, seat)
        except Exception as problem:  # a spec that cannot be built: nothing can move on
            if isinstance(problem, CallbreakError):  # our own errors are written for people
                why = str(problem)
            else:  # any other is for the log only
                LOG.exception("table %s could not seat %s", state.id, seat)
                why = "the server could not start that player"
            await host.hub.send({"type": "error", "message": f"cannot seat {name}: {why}"})
            await self._wait(LEASE_SECONDS)
            return
        if state.version != version:
            return
        started = loop.time()
        observation = state.match.observation(seat)
        prepared = await run_in_threadpool(ready, observation, player)
        if state.version != version:
            return
        await host.listener.announce({"type": "thinking", "seat": seat, "preparing": not prepared})
        if prepared:
            decide = functools.partial(state.seating.decide, observation)
            client = host.client or state.id  # unknown: the table counts as a client of its own
            decision = await leased(
                host, host.searches.decide(state.id, client, player, observation, decide)
            )
            host.metrics.decided(state.data.levels[seat], decision.seconds)
        else:  # a first start still compiles this player's search: the stand-in decides
            stand_in = await run_in_threadpool(self.cover.stand_in, seat)
            detail = f"its search was still being prepared; the {STAND_IN} level decided"
            decision, stood_in = await self.cover.helped(stand_in, observation, PREPARING, detail)
            decision = dataclasses.replace(decision, faults=(*decision.faults, stood_in))
            host.metrics.stand_ins.inc()
            host.metrics.decided(STAND_IN, decision.seconds)
        faults = [public(fault) for fault in decision.faults]
        for fault in faults:
            if fault.fault != PREPARING:  # the page's status says the search is being prepared
                message, kind = fault_message(name, fault)
                if kind == "notice":
                    await host.listener.announce(
                        {"type": "notice", "message": message, "fault": fault.to_json()}
                    )
                else:
                    await host.hub.send({"type": kind, "message": message})
        await pace(delay, started, loop)
        if state.version != version:
            state.thinking = None  # the table moved on meanwhile (the person ended the match)
            return
        await host.sync.act(seat, decision.action, version, [f.to_json() for f in faults])
