"""One process's copy of a table kept in step with the store: every change stored, and the
changes others stored taken.

Only the table's owner (``web.live.LiveTable``, one message at a time) calls a :class:`Sync`:
nothing else changes the copy meanwhile, so there is no lock. :meth:`Sync.append` stores an
action on the version and lobby revision it was taken on, :meth:`Sync.change` makes a lobby
change on the stored room, :meth:`Sync.catch_up` takes the changes other processes stored, and
a copy the store lost is written back from here. What they mean for the connections (views to
send, events to publish, seats to count again) is the owner's to do: each says what it did.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from callbreak.game import Match
from callbreak.refusals import Refusal
from callbreak.web.backend import Backend, retried
from callbreak.web.http import LOG
from callbreak.web.hub import Hub
from callbreak.web.model import PLAYING, StaleAction, TableData
from callbreak.web.state import TableState, Taken, next_deadline

__all__ = ["Sync"]

T = TypeVar("T")


class Sync:
    """Stores a table's actions and lobby changes, and brings its copy up to the store's."""

    def __init__(self, state: TableState, hub: Hub, backend: Backend) -> None:
        self.state, self.hub, self.backend = state, hub, backend
        self.moved: set[int] = set()
        """Seats whose connections here a new copy of the room moved, to be counted again."""

    def rebuild(self, data: TableData) -> None:
        """Take ``data`` as the table, and give each connection the seat its token holds in it
        (an action is checked against the seat its connection holds in this copy)."""
        self.state.rebuild(data)
        self.moved |= self.hub.reseat()

    async def append(self, step: Taken) -> bool:
        """Store ``step``, pending on the copy: True when stored (the copy takes it), False
        when the store holds it already and the copy was rebuilt from there; StaleAction when
        another action or lobby change came first (the copy is then the store's table)."""
        data, table_id = self.state.data, self.state.id

        async def append() -> bool:
            return await self.backend.append(table_id, data.rev, step)

        async def load() -> TableData | None:
            return await self.backend.load(table_id)

        # A store out of reach for a moment (Redis restarting) is tried again for a few
        # seconds; past that its failure goes to the caller. Trying again is safe: the store
        # checks the version, so an append stored on the first try whose answer was lost is
        # refused the second time, and found below.
        if await retried(self.backend, append):
            self._commit(step)
            return True
        fresh = await retried(self.backend, load)
        if await self._restore_if_lost(fresh):
            if await retried(self.backend, append):  # on the copy written back
                self._commit(step)
                return True
            fresh = await retried(self.backend, load)
        if fresh is not None:
            ours = (
                fresh.rev == data.rev
                and fresh.actions[step.version : step.version + 1] == [step.code]
                and fresh.faults.get(step.version, []) == step.faults
            )
            self.rebuild(fresh)
            if ours:
                return False
        raise StaleAction("moved_on")

    def _commit(self, step: Taken) -> None:
        """The step is stored: the copy takes it, and a person whose first deal it dealt (a
        computer's seat taken over) is given the seat."""
        self.state.commit(step)
        self._arrived()

    def _arrived(self) -> None:
        if any(seat.since for seat in self.state.data.seats):
            self.moved |= self.hub.reseat()

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
        caller needs); made again on the newest copy when another change was stored first."""
        table_id = self.state.id
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
                self.rebuild(fresh)
                return result
        raise Refusal("too_fast")

    async def catch_up(self) -> bool:
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
            self.moved |= self.hub.reseat()
        else:
            self._arrived()  # a new deal: a person's first, in a seat they took over
        return True
