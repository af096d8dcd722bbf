"""One process's copy of a table kept in step with the store: every change stored, and the
changes others stored taken.

Every action goes through :meth:`Sync.act` (checked and taken once by the state, stored on the
version it was made on, then shown), every lobby change through :meth:`Sync.change`; the
changes other processes stored are taken by :meth:`Sync.catch_up` (when their events are heard,
``web.listener``, or whenever this copy must be current), and a copy the store lost is written
back from here. The copy is a part of a live table (``web.live``), which it reaches through
``web.tasks.Host``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from starlette.websockets import WebSocket

from callbreak.game import Match
from callbreak.refusals import Refusal
from callbreak.web.actions import TableAction
from callbreak.web.backend import retried
from callbreak.web.http import LOG
from callbreak.web.hub import ROOM_VIEW, VIEW
from callbreak.web.model import PLAYING, StaleAction, TableData
from callbreak.web.state import Taken, next_deadline
from callbreak.web.tasks import Host

__all__ = ["Sync"]

T = TypeVar("T")


class Sync:
    """Stores a table's actions and lobby changes, and brings its copy up to the store's."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self.state, self.hub, self.backend = host.state, host.hub, host.backend
        self.lock = asyncio.Lock()
        """Held while an action or a change is stored, or the copy catches up."""

    async def act(
        self,
        seat: int,
        action: TableAction,
        version: object,
        faults: Sequence[dict[str, Any]] = (),
        by: WebSocket | None = None,
    ) -> None:
        """Take ``action`` for ``seat`` on ``version`` of the table; raises CallbreakError
        saying why when it may not be taken, StaleAction when the table has moved on since
        that version. ``by`` is the connection that sent it: the action is taken only while
        its token holds ``seat`` in this copy."""
        started = time.perf_counter()
        state = self.state
        async with self.lock:
            # No reading of the store first: the append below refuses an action on a version
            # or a lobby revision another process has moved past, and this copy then catches
            # up. A connection's seat is set with every copy of the room (hub.reseat), so a
            # token's seat here is its seat at this copy's revision, which the append checks.
            if by is not None and not self.hub.holds(by, seat):
                raise StaleAction("seat_changed")
            step = state.act(seat, action, version, list(faults))
            try:
                if await self._append(step):
                    state.commit(step)
            finally:
                if state.pending is step:
                    # Not stored (the store failed, or the table is gone): the copy as it was,
                    # and what was held back meanwhile is shown now.
                    state.rebuild(state.data)
                    self.host.driver.changed.set()
                    if self.hub.owed:
                        await self.hub.send(VIEW)
            state.thinking = None
        await self.host.listener.announce({"type": "action", "version": state.version})
        self.host.metrics.acted(action, started, state.id, state.status)

    async def _append(self, step: Taken) -> bool:
        """Store ``step``: True when stored (for this copy to take it), False when the store
        holds it already and this copy was rebuilt from there; StaleAction when another action
        or lobby change came first (this copy then takes the store's table)."""
        data, table_id = self.state.data, self.state.id

        async def append() -> bool:
            return await self.backend.append(table_id, data.rev, step)

        async def load() -> TableData | None:
            return await self.backend.load(table_id)

        # A store out of reach for a moment (Redis restarting) is tried again for a few
        # seconds; past that its failure goes to the caller, who says so and sends the table as
        # it is. Trying again is safe: the store checks the version, so an append stored on the
        # first try whose answer was lost is refused the second time, and found below.
        if await retried(self.backend, append):
            return True
        fresh = await retried(self.backend, load)
        if await self._restore_if_lost(fresh):
            if await retried(self.backend, append):  # on the copy written back
                return True
            fresh = await retried(self.backend, load)
        if fresh is not None:
            ours = (
                fresh.rev == data.rev
                and fresh.actions[step.version : step.version + 1] == [step.code]
                and fresh.faults.get(step.version, []) == step.faults
            )
            self._rebuild(fresh)
            if ours:
                await self.host.presence.recount()
                return False  # shown by the caller, as an action of its own
            # Another action came first (another process's): every connection here is shown
            # the table it now is, not only the one whose action was refused. (The event of
            # that action finds this copy up to date, and shows nothing.)
            await self._show_anew()
        raise StaleAction("moved_on")

    def _rebuild(self, data: TableData) -> None:
        """Take ``data`` as the table, and give each connection the seat its token holds in
        it (at once, with no await between: an action is checked against the seat its
        connection holds at the copy's revision)."""
        self.state.rebuild(data)
        self.host.presence.reseat()

    async def _restore_if_lost(self, fresh: TableData | None) -> bool:
        """When the store lost this table, or the end of it (Redis restarted without its data,
        or without its last writes), write this copy back, and say so in the log; whether it
        did. A copy is never ahead of the store otherwise: it takes an action only once the
        store has it. A stored table that is not this copy's beginning is another table's
        truth (another process restored a longer copy first): it is taken, never overwritten."""
        if not self.backend.shared:
            return False
        data = self.state.data
        if fresh is not None:
            behind = fresh.version < data.version or fresh.rev < data.rev
            if not behind or fresh.actions != data.actions[: fresh.version]:
                return False
        restored = await retried(self.backend, lambda: self.backend.restore(data))
        if restored:
            LOG.warning(
                "table %s was lost by the store (%s): written back at version %d",
                self.state.id,
                "all of it" if fresh is None else f"stored at version {fresh.version}",
                data.version,
            )
        return restored

    async def change(self, change: Callable[[TableData], T]) -> T:
        """Make a lobby change (``change`` edits a fresh copy of the room and returns what the
        caller needs); retried on the newest copy when another change was stored first."""
        table_id = self.state.id
        async with self.lock:
            for _ in range(5):
                fresh = await retried(self.backend, lambda: self.backend.load(table_id))
                if await self._restore_if_lost(fresh):  # a room the store lost: written back
                    fresh = await retried(self.backend, lambda: self.backend.load(table_id))
                if fresh is None:
                    raise Refusal("no_such_room")
                result = change(fresh)
                if fresh.status == PLAYING and not fresh.actions:  # the start: the first clock
                    first = Match(fresh.rules, seed=fresh.seed)
                    fresh.deadline = next_deadline(fresh, first, fresh.status)
                # Not tried again on a failure: a save stored although its answer was lost would
                # look like a change made meanwhile, and be made a second time.
                if await self.backend.save(fresh):
                    self._rebuild(fresh)
                    break
            else:
                raise Refusal("too_fast")
        await self.host.listener.announce({"type": "lobby"})
        return result

    async def catch_up(self) -> None:
        """Take the changes other processes stored since this copy was made, and show them
        to this process's connections (whether or not an event announced them)."""
        async with self.lock:
            moved = await self._catch_up()
        if moved:
            await self._show_anew()

    async def _catch_up(self) -> bool:
        """Bring this copy up to the stored table; whether anything changed. A table the store
        lost (or lost the end of) is written back from this copy first."""
        if not self.backend.shared:
            return False  # one process: this copy is the only writer
        data, table_id = self.state.data, self.state.id
        fresh = await retried(self.backend, lambda: self.backend.load(table_id, known=data))
        if await self._restore_if_lost(fresh):
            return False  # the store holds this copy again
        if fresh is None or fresh.version < data.version or fresh.rev < data.rev:
            # Lost, and written back first by another process with a longer copy, or not at
            # all (restore refused): the store's table as it is now decides.
            fresh = await retried(self.backend, lambda: self.backend.load(table_id))
        if fresh is None or not self.state.extend(fresh):
            return False
        if fresh.seats != data.seats:  # a lobby change: the seats' holders may have changed
            self.host.presence.reseat()
        return True

    async def _show_anew(self) -> None:
        """Show this process's connections a copy of the table taken from the store."""
        if not self.hub.connections:
            return
        self.host.driver.changed.set()
        if self.state.is_room:
            await self.host.presence.recount()  # a lobby change stored by another process
            await self.hub.send(ROOM_VIEW)
        await self.hub.send(VIEW)
