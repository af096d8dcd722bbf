"""One process's live copy of a stored match or room, kept in step with the store.

A :class:`Table` holds a table in three parts with one owner each: its state (``web.state``:
the match rebuilt from its actions, the lobby, the version), its connections here and what
each is sent (``web.hub``), and its driver (``web.driver``: the computers, the clock, the
cover). The table itself only keeps them in step with the store and the other processes: every
action goes through :meth:`Table.act` (checked and taken once by the state, stored on the
version it was made on, then shown), every lobby change through :meth:`Table.change`; other
processes serving the same room hear of both through the backend's events and catch up (the
listener), and a copy the store lost is written back from here. The socket protocol lives in
:mod:`~callbreak.web.messages`; the process's copies in :mod:`~callbreak.web.tables`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from starlette.websockets import WebSocket

from callbreak.bots.remote import NO_BOTS, BotAddresses
from callbreak.game import Match
from callbreak.refusals import Refusal
from callbreak.web.actions import TableAction
from callbreak.web.backend import OWNER, Backend, retried
from callbreak.web.driver import Driver
from callbreak.web.export import record_data
from callbreak.web.http import LOG
from callbreak.web.hub import ROOM_VIEW, VIEW, Hub
from callbreak.web.metrics import DETACHED, Metrics
from callbreak.web.model import PLAYING, StaleAction, TableData
from callbreak.web.state import Step, TableState, next_deadline
from callbreak.web.tasks import spawn, until_store_answers, within

__all__ = ["PRESENCE_REFRESH", "Table"]

T = TypeVar("T")
PRESENCE_REFRESH = 4.0
"""Seconds between two looks of the listener at the store, however quiet the table: it says
again which seats this process holds, and reads the table (pub/sub may drop a message)."""


class Table:
    """One process's live copy of a match or a room: its state, hub and driver, kept in step
    with the store."""

    def __init__(
        self,
        data: TableData,
        backend: Backend,
        bots: BotAddresses = NO_BOTS,
        metrics: Metrics = DETACHED,
    ) -> None:
        self.backend = backend
        self.metrics = metrics
        """The app's figures (``web.metrics``): actions, their latency, computers' decisions."""
        self.state = TableState(data, bots)
        self.hub = Hub(self.state)
        self.driver = Driver(self)
        self.listener: asyncio.Task[None] | None = None
        """The task that hears the other processes' changes while anyone is connected here."""
        self.lock = asyncio.Lock()
        """Held while an action or a change is stored, or the copy catches up."""
        self._moved: set[int] = set()
        """Seats whose connections here changed with a copy of the room, to be counted again."""
        self.used = 0.0
        """When the process's tables last handed this one out or found it in use (their clock)."""

    @property
    def id(self) -> str:
        """The match id, or the room's code."""
        return self.state.id

    def in_use(self) -> bool:
        """Whether anything here depends on this copy now: a socket is connected, the driver or
        the listener runs (a computer's turn, the clock), or an action or a change is being
        stored. Such a table is never let go of."""
        listening = self.listener is not None and not self.listener.done()
        busy = self.lock.locked() or listening or self.driver.running()
        return busy or bool(self.hub.connections)

    def record(self) -> dict[str, Any]:
        """The game record, safe to give out while the match is being played."""
        return record_data(self.state.match, self.state.faults_by_deal)

    # --- the tasks -----------------------------------------------------------------------------

    def start(self) -> None:
        """Run the table's listener and driver unless they are running."""
        if self.listener is None or self.listener.done():
            self.listener = spawn(self._listen())
        self.driver.start()

    def stop(self) -> None:
        """Stop the table's tasks: nobody here is connected any more, or the process drains."""
        if self.listener is not None:
            self.listener.cancel()
        self.listener = None
        self.driver.stop()

    async def _listen(self) -> None:
        while True:
            try:
                await self._follow()
            except self.backend.failures:  # the store out of reach as the listening started
                LOG.warning("table %s could not listen: the store does not answer", self.id)
                await until_store_answers(self)

    async def _follow(self) -> None:
        """Hear the other processes' events, and look at the store every few seconds."""
        loop = asyncio.get_running_loop()
        refreshed = loop.time()
        async with self.backend.events(self.id) as events:
            while True:
                event = await within(events.get(), PRESENCE_REFRESH)
                if loop.time() - refreshed >= PRESENCE_REFRESH:
                    # However busy the table, this process says again which seats it holds,
                    # and reads the table again: pub/sub may have dropped a message.
                    refreshed = loop.time()
                    try:
                        await self.refresh_presence()
                        await self.catch_up()
                    except Exception:  # the shared store out of reach: tried again next time
                        LOG.exception("table %s could not refresh", self.id)
                    # A driver stopped by a failure (the shared store out of reach for a
                    # moment) starts again rather than leaving the table stuck.
                    self.driver.start()
                if event is None or event.get("origin") == OWNER:
                    continue
                try:
                    if event.get("type") in ("action", "lobby"):
                        await self.catch_up()  # read from the store, not from the message
                    else:
                        await self.hear(event)
                except self.backend.failures:  # read again at the next refresh
                    LOG.warning("table %s could not catch up: the store does not answer", self.id)

    # --- changing the table --------------------------------------------------------------------

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
                    self.driver.changed.set()
                    if self.hub.owed:
                        await self.hub.send(VIEW)
            state.thinking = None
        await self.announce({"type": "action", "version": state.version})
        self.metrics.acted(action, started, self.id, state.status)

    async def _append(self, step: Step) -> bool:
        """Store ``step``: True when stored (for this copy to take it), False when the store
        holds it already and this copy was rebuilt from there; StaleAction when another action
        or lobby change came first (this copy then takes the store's table)."""
        data = self.state.data

        async def append() -> bool:
            return await self.backend.append(
                self.id, step.version, data.rev, step.code, step.faults, step.status, step.deadline
            )

        async def load() -> TableData | None:
            return await self.backend.load(self.id)

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
                await self._reseat()
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
        self._moved |= self.hub.reseat()

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
                self.id,
                "all of it" if fresh is None else f"stored at version {fresh.version}",
                data.version,
            )
        return restored

    async def change(self, change: Callable[[TableData], T]) -> T:
        """Make a lobby change (``change`` edits a fresh copy of the room and returns what the
        caller needs); retried on the newest copy when another change was stored first."""
        async with self.lock:
            for _ in range(5):
                fresh = await retried(self.backend, lambda: self.backend.load(self.id))
                if await self._restore_if_lost(fresh):  # a room the store lost: written back
                    fresh = await retried(self.backend, lambda: self.backend.load(self.id))
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
        await self.announce({"type": "lobby"})
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
        data = self.state.data
        fresh = await retried(self.backend, lambda: self.backend.load(self.id, known=data))
        if await self._restore_if_lost(fresh):
            return False  # the store holds this copy again
        if fresh is None or fresh.version < data.version or fresh.rev < data.rev:
            # Lost, and written back first by another process with a longer copy, or not at
            # all (restore refused): the store's table as it is now decides.
            fresh = await retried(self.backend, lambda: self.backend.load(self.id))
        if fresh is None or not self.state.extend(fresh):
            return False
        if fresh.seats != data.seats:  # a lobby change: the seats' holders may have changed
            self._moved |= self.hub.reseat()
        return True

    async def _show_anew(self) -> None:
        """Show this process's connections a copy of the table taken from the store."""
        if not self.hub.connections:
            return
        self.driver.changed.set()
        if self.state.is_room:
            await self._reseat()  # a lobby change stored by another process
            await self.hub.send(ROOM_VIEW)
        await self.hub.send(VIEW)

    # --- connections and events ----------------------------------------------------------------

    async def join(self, websocket: WebSocket, token: str | None) -> int | None:
        """Take a connection with the seat ``token`` holds in this copy (None: a spectator),
        welcome it, send it the table, count it where people's presence matters (a room), and
        start the table's tasks; the seat it was given."""
        seat = self.hub.add(websocket, token)  # no await before: every new copy re-seats it
        if self.state.is_room and seat is not None:
            await self._count(seat)  # everyone, this connection included, hears of it
        else:
            await self.hub.send(ROOM_VIEW, websocket)
            await self.hub.send(VIEW, websocket)
        self.start()
        return seat

    async def part(self, websocket: WebSocket) -> None:
        """Forget a connection that went away."""
        connection = self.hub.remove(websocket)
        if connection is None:
            return
        await self._count(connection.seat)
        if not self.hub.connections:
            self.stop()

    async def _count(self, seat: int | None) -> None:
        if seat is None or not self.state.is_room:
            return
        await self.backend.set_presence(self.id, seat, OWNER, self.hub.held(seat))
        self.state.present = await self.backend.presence(self.id)
        await self.announce({"type": "presence"})

    async def _reseat(self) -> None:
        """Count again the seats whose connections a copy of the room moved."""
        moved, self._moved = self._moved, set()
        for seat in sorted(moved):
            await self._count(seat)

    async def refresh_presence(self) -> None:
        """Say again which seats this process holds (a shared backend forgets after a while)."""
        for seat in self.hub.seats():
            await self.backend.set_presence(self.id, seat, OWNER, self.hub.held(seat))
        self.state.present = await self.backend.presence(self.id)

    async def saw(self, seat: int, deals: object) -> None:
        """The person in ``seat`` closed the summary of the first ``deals`` scored deals: the
        computers need not wait for them before the next deal. A page that shows summaries
        says so at once (``deals`` 0 on a fresh page): only such seats are waited for, never a
        client that shows none (a script, a bot)."""
        state = self.state
        if type(deals) is not int or not 0 <= deals <= len(state.match.deals):
            raise Refusal("seen_deals")
        if seat not in state.seen or deals > state.seen[seat]:
            await self.announce({"type": "seen", "seat": seat, "deals": deals})

    async def announce(self, event: dict[str, Any]) -> None:
        """Tell the other processes of a change, and show it here."""
        await self.backend.publish(self.id, event | {"origin": OWNER})
        await self.hear(event)

    async def hear(self, event: dict[str, Any]) -> None:
        """Take a change (made here, or heard from another process) into the state, wake the
        driver, and show it to this process's sockets."""
        state, kind = self.state, event.get("type")
        if kind == "thinking":
            state.thinking = event.get("seat")
            state.stood_in = bool(event.get("preparing"))
        if kind == "seen":
            seat, deals = event.get("seat"), event.get("deals")
            if isinstance(seat, int) and isinstance(deals, int):
                state.seen[seat] = max(state.seen.get(seat, deals), deals)
        if kind == "lobby" and state.is_room:
            await self._reseat()
        if kind in ("presence", "lobby"):
            state.present = await self.backend.presence(self.id)
        self.driver.changed.set()
        if kind == "notice":
            # The words in English, and what happened as data for a page in another language.
            extra = {key: event[key] for key in ("cover", "fault") if key in event}
            await self.hub.send({"type": "notice", "message": str(event.get("message"))} | extra)
            return
        if kind in ("lobby", "presence"):
            await self.hub.send(ROOM_VIEW)
        if kind in ("action", "thinking", "lobby", "presence"):
            await self.hub.send(VIEW)
