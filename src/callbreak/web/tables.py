"""The live tables of a server process: one copy (``web.live.LiveTable``) of each stored match
or room in use here, loaded from the backend on first use and let go of when nobody uses it: a
table nobody uses (no socket, no driver, nothing being stored) leaves memory after a while and
is read from the backend again when asked for.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable
from typing import Any

from starlette.concurrency import run_in_threadpool

from callbreak.errors import CallbreakError
from callbreak.seating import PlayerSpec, close
from callbreak.web.backend import Backend
from callbreak.web.hints import Hints
from callbreak.web.limits import DEFAULT, Limits
from callbreak.web.live import LiveTable
from callbreak.web.metrics import DETACHED, Metrics
from callbreak.web.model import COMPUTER, FINISHED, STOPPED, claim, new_match, new_room
from callbreak.web.reactions import Reactions
from callbreak.web.retention import Retention
from callbreak.web.searches import Searches
from callbreak.web.work import Work

__all__ = ["IDLE_FINISHED", "IDLE_UNFINISHED", "MAX_IDLE", "LiveTable", "Tables"]

IDLE_FINISHED = 60.0
"""Seconds a finished (or ended) table stays in memory once nobody uses it: its page asks for
the record and the replay right after the end; anything later reads it from the store again
(one load and a replay of its actions, about a millisecond a deal)."""
IDLE_UNFINISHED = 300.0
"""Seconds a lobby or an unfinished table stays in memory once nobody is connected: a reload,
a phone's network changing or a short break come back to the very copy; a longer absence
reloads it from the store, where it is whole (nothing of a table lives only in memory)."""
MAX_IDLE = 200
"""Idle tables kept at most (about 370 kB each once played, some 75 MB): past it the least
recently used is let go of at once, whatever its idle time. Tables in use (a socket open, a
driver or a change running) are never let go of; their number is bounded by the sockets."""


class Tables:
    """The live tables of a server process, loaded from the backend on first use and let go of
    when nobody uses them (:meth:`evict`): memory follows the tables in play, not every table
    the process ever served."""

    def __init__(
        self,
        backend: Backend,
        limits: Limits = DEFAULT,
        metrics: Metrics = DETACHED,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.backend = backend
        self.metrics = metrics
        self.live: dict[str, LiveTable] = {}
        """The tables held in memory, by id, the least recently used first."""
        self._gone: weakref.WeakValueDictionary[str, LiveTable] = weakref.WeakValueDictionary()
        """Tables let go of that something still holds (a request being answered, a driver
        finishing its cancelled turn): asked for again, that very copy comes back, so that a
        process never has two copies of a table, one of them behind the other's writes."""
        self.clock = clock
        self.idle_finished = IDLE_FINISHED
        self.idle_unfinished = IDLE_UNFINISHED
        self.max_idle = MAX_IDLE
        self.bots = limits.bots
        self.work = Work(limits.search_threads, limits.search_queue)
        """The pool that hints and *Your record* share."""
        self.hints = Hints(self.work)
        self.reactions = Reactions(limits)
        """How many reactions each person and address may send (``web.reactions``)."""
        self.searches = Searches(limits.searches, limits.client_searches)
        """The computers' searches of every table here, bounded and taken in turn."""

    async def get(self, table_id: str) -> LiveTable | None:
        """The table of a stored match or room (rebuilt from its actions), or None."""
        table = self.live.get(table_id) or self._gone.pop(table_id, None)
        if table is None:
            data = await self.backend.load(table_id)
            if data is None:
                return None
            # Another request may have loaded it while this one waited: the first copy wins.
            table = self.live.get(table_id) or self._gone.pop(table_id, None)
            if table is None:
                table = LiveTable(data, self.backend, self.bots, self.metrics, self.searches)
        return self._hold(table)

    def _hold(self, table: LiveTable) -> LiveTable:
        """Keep ``table`` in memory as its id's copy, the most recently used."""
        self.live.pop(table.id, None)
        self.live[table.id] = table
        table.used = self.clock()
        if len(self.live) > self.max_idle:
            self.evict()
        return table

    def evict(self) -> list[str]:
        """Let go of the tables nobody uses (:meth:`LiveTable.in_use`) once idle for their time,
        or at once past ``max_idle`` of them (the least recently used first); the ids let go of.
        Each is read from the backend again when asked for."""
        now = self.clock()
        idle: list[LiveTable] = []
        for table in self.live.values():
            if table.in_use():
                table.used = now  # idle from when it was last seen in use
            else:
                idle.append(table)
        idle.sort(key=lambda table: table.used)
        excess = len(idle) - self.max_idle
        gone = [
            table.id
            for number, table in enumerate(idle)
            if number < excess or now - table.used >= self._idle_limit(table)
        ]
        for table_id in gone:
            self._gone[table_id] = self.live.pop(table_id)
            self.hints.forget(table_id)
        return gone

    def _idle_limit(self, table: LiveTable) -> float:
        over = table.state.status in (FINISHED, STOPPED)
        return self.idle_finished if over else self.idle_unfinished

    async def expire(self, retention: Retention, now: float) -> list[str]:
        """Remove the stored tables past their time at ``now`` (wall-clock seconds), never one
        in use here; the ids removed, forgotten here too."""
        keep = {table.id for table in self.live.values() if table.in_use()}
        gone = await self.backend.expire(retention.cutoffs(now), keep)
        for table_id in gone:
            table = self.live.pop(table_id, None)
            if table is not None:
                self.hints.forget(table_id)
        return gone

    async def create_match(
        self,
        rules: str,
        name: str | None,
        opponents: list[str],
        seed: str | None,
        settings: dict[str, Any],
        client: str | None = None,
    ) -> tuple[LiveTable, str]:
        """Start a match for a person in seat 0 against three computer players; the match and
        seat 0's token, the match's only key. Its searches count against ``client`` (the
        creator's address).

        The computer players are built first, so that a spec that cannot work is refused
        (CallbreakError) before anything is stored.
        """
        data = new_match(rules, name, opponents, seed, settings)
        token = claim(data, 0)
        table = LiveTable(data, self.backend, self.bots, self.metrics, self.searches)
        table.client = client
        await _build_computers(table)
        await self.backend.create(table.state.data)
        return self._hold(table), token

    async def create_room(
        self,
        rules: str,
        name: object,
        seats: list[str | None],
        client: str | None = None,
        **settings: Any,
    ) -> tuple[LiveTable, str]:
        """A new room in its lobby, and the creator's seat token; its searches count against
        ``client`` (the creator's address)."""
        data = new_room(rules, name, seats, **settings)
        token = claim(data, 0)
        table = LiveTable(data, self.backend, self.bots, self.metrics, self.searches)
        table.client = client
        await _build_computers(table)
        await self.backend.create(data)
        return self._hold(table), token


async def _build_computers(table: LiveTable) -> None:
    state = table.state
    for seat, info in enumerate(state.data.seats):
        if info.kind == COMPUTER:
            try:
                await run_in_threadpool(state.seating.player, seat)
            except CallbreakError:
                # The seating adds a seed to the spec: the error is said again of the spec as
                # the person gave it, which names no seed they never typed.
                if info.level is not None:
                    await run_in_threadpool(_build_as_given, info.level)
                raise
    cover = state.data.settings.get("cover")
    if state.is_room and cover:
        # The cover is built now too, not first when someone's clock runs out: a spec that
        # cannot be built is refused with the room, never a room that stops at that moment.
        try:
            await run_in_threadpool(table.driver.cover.player, 0)
        except CallbreakError:
            await run_in_threadpool(_build_as_given, cover)
            raise


def _build_as_given(level: str) -> None:
    close(PlayerSpec.parse(level).build(ready=False))
