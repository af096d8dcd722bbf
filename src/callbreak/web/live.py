"""One process's live copy of a stored match or room: one owner, one inbox.

Everything that touches a :class:`LiveTable` is a letter in its inbox, handled one at a time,
in order, by the table's one owner task: a connection's message (an action, a lobby change, a
summary closed), a connection joining or parting, an event from another process (heard by
``web.listener.follow``), a timer (the turn clock, the away grace, the pause after a trick, the
lease), and a computer's decision (made by a task of its own, ``web.driver``, whose result comes
back as a letter). Nothing else changes the table's state, so there is no lock and no ordering
rule to keep by hand: two letters that race (a card and the seat being given away, a card and
the clock running out, a card and another process's event) are taken in the order they arrive,
and the later is refused with its code when the first made it stale.

After every letter the owner asks the driver what comes next (:meth:`Driver.next`): a decision
to start, or when to look again (a timer that posts a letter).

The parts it owns, each with one job: the state (``web.state``: the match rebuilt from its
actions, the lobby, the version), the hub (``web.hub``: its connections here and what each is
sent), the sync (``web.sync``: every action and lobby change stored, and the others' taken), the
presence (``web.presence``: the seats this process holds), the teller (``web.listener``: events
published for the other processes) and the driver (``web.driver``: the computers, the clock, the
cover). None calls another: the owner does, in order. The socket protocol lives in
:mod:`~callbreak.web.messages`; the process's copies in :mod:`~callbreak.web.tables`.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeVar

from starlette.websockets import WebSocket

from callbreak.bots.remote import NO_BOTS, BotAddresses
from callbreak.web.accesslog import room_event
from callbreak.web.actions import TableAction
from callbreak.web.backend import OWNER, Backend, Event, Look
from callbreak.web.driver import COMPUTER_TURN, Decided, Driver, Move
from callbreak.web.http import LOG
from callbreak.web.hub import ROOM_VIEW, VIEW, Hub
from callbreak.web.listener import Teller, follow
from callbreak.web.metrics import DETACHED, Metrics
from callbreak.web.model import COMPUTER, FINISHED, PLAYING, StaleAction, TableData
from callbreak.web.presence import Presence
from callbreak.web.reactions import REACTIONS
from callbreak.web.searches import Searches
from callbreak.web.standings import rate_finished
from callbreak.web.state import TableState
from callbreak.web.sync import Sync
from callbreak.web.tasks import LEASE_SECONDS, spawn

__all__ = ["LiveTable"]

T = TypeVar("T")
RENEW = LEASE_SECONDS / 3
"""How often the lease is renewed while this process drives the table, and the longest a
table goes without its owner looking at it while anyone is connected."""
STORE_PAUSES = (0.1, 0.2, 0.4, 0.8, 1.0)
"""Pauses before the driver tries the store again while it fails (the last one repeated)."""

_Letter = tuple[Callable[[], Awaitable[Any]], "asyncio.Future[Any] | None"]


class LiveTable:
    """One process's live copy of a match or a room, and its one owner: every change goes
    through :meth:`ask` or :meth:`post`, handled in order."""

    def __init__(
        self,
        data: TableData,
        backend: Backend,
        bots: BotAddresses = NO_BOTS,
        metrics: Metrics = DETACHED,
        searches: Searches | None = None,
    ) -> None:
        self.backend = backend
        self.metrics = metrics
        """The app's figures (``web.metrics``): actions, their latency, computers' decisions."""
        self.searches = Searches() if searches is None else searches
        """Where the computers' searches run: the process's, shared fairly by its tables."""
        self.client: str | None = None
        """Who the table's searches count against (``web.searches``): the address that created
        it, or for a table this process did not create, its first seated socket's here."""
        self.state = TableState(data, bots)
        self.hub = Hub(self.state)
        self.sync = Sync(self.state, self.hub, backend)
        self.presence = Presence(self.state, self.hub, backend)
        self.teller = Teller(self.state.id, backend)
        self.driver = Driver(self.state, self.hub, self.searches, metrics)
        self.used = 0.0
        """When the process's tables last handed this one out or found it in use (their clock)."""
        self.inbox: deque[_Letter] = deque()
        self.owner: asyncio.Task[None] | None = None
        """The task that handles the letters, while there are any."""
        self.listening: asyncio.Task[None] | None = None
        """The task that hears the other processes (a shared store only), while anyone is
        connected here."""
        self.deciding: tuple[Move, asyncio.Task[None]] | None = None
        """The decision being made, and its task."""
        self.timer: asyncio.TimerHandle | None = None
        """When the owner looks at the table next (a letter then)."""
        self.leased_at = -LEASE_SECONDS
        """When this process last took or renewed the lease (the loop's clock), while it drives
        the table; -LEASE_SECONDS when it does not."""
        self.refused_at = -LEASE_SECONDS
        """When another process was last found holding the lease: asked again only a
        :data:`RENEW` later (or once a look finds it free), not at every letter."""
        self.store_tries = 0
        """How many times in a row the driver found the store out of reach."""
        self.halted = False
        """The process drains: the table is driven here no more."""

    @property
    def id(self) -> str:
        """The match id, or the room's code."""
        return self.state.id

    def claim(self, client: str) -> None:
        """Count the table's searches against ``client`` unless a client is known already."""
        if self.client is None:
            self.client = client

    # --- the inbox ----------------------------------------------------------------------------

    async def ask(self, work: Callable[[], Awaitable[T]]) -> T:
        """Hand ``work`` to the owner, and wait for its result (or its exception): it runs
        after every letter before it, and before any after it."""
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._put((work, future))
        return await future

    def post(self, work: Callable[[], Awaitable[Any]]) -> None:
        """Hand ``work`` to the owner without waiting for it (an event heard, a timer, a
        decision made); its failure goes to the log."""
        self._put((work, None))

    def _put(self, letter: _Letter) -> None:
        self.inbox.append(letter)
        if self.owner is None:
            self.owner = spawn(self._own())

    async def _own(self) -> None:
        """Handle the letters in order, then look at what the table needs next."""
        try:
            while self.inbox:
                work, future = self.inbox.popleft()
                try:
                    result = await work()
                except Exception as error:
                    if future is None:
                        LOG.exception("table %s: a change failed", self.id)
                    elif not future.done():
                        future.set_exception(error)
                else:
                    if future is not None and not future.done():
                        future.set_result(result)
                await self._drive()
        finally:
            self.owner = None
            if self.inbox:  # cancelled with letters left (the loop closing): they are answered
                for _, future in self.inbox:
                    if future is not None and not future.done():
                        future.cancel()
                self.inbox.clear()

    # --- what callers ask ---------------------------------------------------------------------

    async def join(
        self,
        websocket: WebSocket,
        token: str | None,
        fresh: bool = False,
        client: str | None = None,
    ) -> int | None:
        """Take a connection with the seat ``token`` holds (None: a spectator), welcome it and
        send it the table; ``fresh``: the room is caught up to the store first (a lobby change
        through another process may have moved the token's seat). A seated connection's
        ``client`` (its address) is whom the table's searches count against unless the table
        knows already (:meth:`claim`). The seat it was given."""
        return await self.ask(lambda: self._join(websocket, token, fresh, client))

    async def part(self, websocket: WebSocket) -> None:
        """Forget a connection that went away."""
        await self.ask(lambda: self._part(websocket))

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
        its token holds ``seat`` in this copy (and the store refuses it on a lobby revision
        another process has moved past)."""
        await self.ask(lambda: self._act(seat, action, version, faults, by))

    async def change(self, change: Callable[[TableData], T]) -> T:
        """Make a lobby change (``change`` edits a fresh copy of the room and returns what the
        caller needs), stored and then shown."""
        return await self.ask(lambda: self._change(change))

    async def catch_up(self) -> None:
        """Take the changes other processes stored, and show them here."""
        await self.ask(self._catch_up)

    async def refresh(self) -> None:
        """Say again which seats this process holds, and read who is present anywhere."""
        await self.ask(self.presence.refresh)

    async def seen(self, seat: int, deals: int) -> None:
        """The person in ``seat`` closed the summary of the first ``deals`` scored deals."""

        async def seen() -> None:
            state = self.state
            if seat not in state.seen or deals > state.seen[seat]:
                await self._announce({"type": "seen", "seat": seat, "deals": deals})

        await self.ask(seen)

    async def react(self, seat: int, reaction: str) -> None:
        """The person in ``seat`` reacted (``web.reactions``): shown to everyone at the table,
        here and in the other processes; nothing is stored."""
        event = {"type": "reaction", "seat": seat, "reaction": reaction}
        await self.ask(lambda: self._announce(event))

    def looked(self, look: Look | None, held: Mapping[int, int], at: float) -> None:
        """What the process's look at the store (``web.looks``: every table served here at
        once, every few seconds) found of this table, having said that this process holds
        ``held`` connections of each seat, from ``at`` (the loop's clock): a letter only for
        what differs from this copy. Not a letter itself: it reads and posts, nothing more."""
        state = self.state
        if look is None or (look.rev, look.version) != (state.data.rev, state.data.version):
            # An event lost (pub/sub may drop one), or the store lost the table: caught up, or
            # the table written back (an action being stored makes it differ too: a look then
            # finds nothing new).
            self.post(self._caught_up)
        now = self.hub.counts()
        if now != dict(held):
            # Connections came or went during the look, whose fields may have landed after
            # their own: counted again, in order with them.
            changed = sorted(now.keys() ^ held.keys() | {s for s in now if now[s] != held.get(s)})
            self.post(lambda: self._count(changed))
        elif look is not None and look.present != state.present:
            self.post(lambda: self._hear({"type": "presence"}))  # a process gone: away seats
        if look is None:
            return
        if look.driver == OWNER:
            if self.leased_at > at - LEASE_SECONDS:  # driven here, and renewed by the look
                self.leased_at = max(self.leased_at, at)
        elif look.driver is None:
            self.refused_at = -LEASE_SECONDS
            if not self.halted:
                self.post(self._look)  # the driver takes the lease (its holder gave it up)
        else:
            self.refused_at = max(self.refused_at, at)

    def in_use(self) -> bool:
        """Whether anything here depends on this copy now: a socket is connected, a letter is
        being handled, a decision made, the other processes heard, or an event the store
        refused still being told. Such a table is never let go of."""
        busy = self.owner is not None or self.deciding is not None or self.listening is not None
        return busy or self.teller.telling() or bool(self.hub.connections)

    def halt(self) -> None:
        """The process drains: stop driving the table here, for good."""
        self.halted = True
        self._stop()

    # --- the letters --------------------------------------------------------------------------

    async def _join(
        self, websocket: WebSocket, token: str | None, fresh: bool, client: str | None
    ) -> int | None:
        if fresh:
            await self._catch_up()
        seat = self.hub.add(websocket, token)
        if seat is not None and client is not None:
            self.claim(client)
        if not await self._count([seat]):
            await self.hub.send(ROOM_VIEW, websocket)
            await self.hub.send(VIEW, websocket)
        if self.backend.shared and self.listening is None:
            self.listening = spawn(self._listen())
        return seat

    async def _part(self, websocket: WebSocket) -> None:
        connection = self.hub.remove(websocket)
        if connection is None:
            return
        await self._count([connection.seat])
        if not self.hub.connections:
            self._stop()

    async def _act(
        self,
        seat: int,
        action: TableAction,
        version: object,
        faults: Sequence[dict[str, Any]],
        by: WebSocket | None,
    ) -> None:
        started = time.perf_counter()
        state = self.state
        if by is not None and not self.hub.holds(by, seat):
            raise StaleAction("seat_changed")
        step = state.act(seat, action, version, list(faults))
        try:
            await self.sync.append(step)
        except StaleAction:
            # Another action or lobby change came first (another process's): every
            # connection here is shown the table it now is, not only the one refused.
            await self._show_anew()
            raise
        finally:
            if state.pending is step:
                # Not stored (the store failed, or the table is gone): the copy as it was,
                # and what was held back meanwhile is shown now.
                state.rebuild(state.data)
                if self.hub.owed:
                    await self.hub.send(VIEW)
            state.thinking = None
        # Rebuilt from the store (it held the action already), or a new deal given a person
        # the computer's seat they took over: the seats whose connections moved are counted.
        await self._recount()
        await self._announce({"type": "action", "version": state.version})
        self.metrics.acted(action, started, state.id, state.status)
        if step.status == FINISHED:
            await self._rate()

    async def _rate(self) -> None:
        """The match ended with an action stored here: a pool's table is rated now, once
        (``web.standings.rate_finished``: the store rates a match once, whichever process
        and however many ask). A store out of reach leaves it to the people's next status
        poll (``web.pools``), which asks again."""
        try:
            if await rate_finished(self.backend, self.state.data):
                room_event(self.id, "rated")
        except self.backend.failures:
            LOG.warning("table %s: the rating waits for the store", self.id)

    async def _change(self, change: Callable[[TableData], T]) -> T:
        result = await self.sync.change(change)
        await self._announce({"type": "lobby"})
        return result

    async def _catch_up(self) -> None:
        if await self.sync.catch_up():
            await self._show_anew()

    async def _heard(self, event: Event) -> None:
        """An event from another process: an action or a lobby change is read from the store,
        never from the message; anything else is taken as it comes."""
        if event.get("type") in ("action", "lobby"):
            await self._caught_up()
            return
        try:
            await self._hear(event)
        except self.backend.failures:  # read again at the next look
            LOG.warning("table %s could not hear an event: the store does not answer", self.id)

    async def _caught_up(self) -> None:
        """Catch up, a store out of reach left to the next event or look."""
        try:
            await self._catch_up()
        except self.backend.failures:
            LOG.warning("table %s could not catch up: the store does not answer", self.id)

    async def _take(self, decided: Decided) -> None:
        """A decision made: taken on the version it was made on, unless the table moved on."""
        if self.deciding is not None and self.deciding[0].version == decided.version:
            self.deciding = None
        if self.state.version != decided.version:
            self.state.thinking = None  # the table moved on meanwhile (a person first)
            return
        if (decided.by == COMPUTER_TURN) != (self.state.seats[decided.seat].kind == COMPUTER):
            # The seat changed hands on this version (a person took the computer's seat over
            # from this deal): whoever plays it now decides, not the one that began.
            self.state.thinking = None
            return
        try:
            await self._act(decided.seat, decided.action, decided.version, decided.faults, None)
        except StaleAction:
            return  # a person (or another process) moved first: the driver looks again
        except self.backend.failures:
            LOG.warning("table %s waits for the store to answer", self.id)
            self.leased_at = -LEASE_SECONDS  # leased and read again first
            return
        if decided.covered is not None:
            self.metrics.covers.labels(decided.covered).inc()
            room_event(self.id, "covered", seat=decided.seat, reason=decided.covered)
        for event in decided.after:
            await self._announce(event)

    async def _said(self, event: Event, version: int) -> None:
        """An event of a decision being made (a computer thinking, a bot's fault), shown while
        the table is still at the version the decision is for."""
        if self.state.version == version and self.state.pending is None:
            await self._announce(event)

    async def _look(self) -> None:
        """A timer's letter: nothing of its own; the owner looks at the table after it."""

    # --- what the owner does ------------------------------------------------------------------

    async def _announce(self, event: Event) -> None:
        """Show a change here, then tell the other processes of it (never raises for the
        store refusing the publish: the change is stored, or needs no storing)."""
        try:
            await self._hear(event)
        finally:
            await self.teller.tell(event)

    async def _hear(self, event: Event) -> None:
        """Take a change (made here, or heard from another process) into the state, and show
        it to this process's sockets."""
        state, kind = self.state, event.get("type")
        if kind == "thinking":
            state.thinking = event.get("seat")
            state.stood_in = bool(event.get("preparing"))
        if kind == "seen":
            seat, deals = event.get("seat"), event.get("deals")
            if isinstance(seat, int) and isinstance(deals, int):
                state.seen[seat] = max(state.seen.get(seat, deals), deals)
        if kind in ("presence", "lobby"):
            try:
                if kind == "lobby" and state.is_room:
                    await self._recount()
                state.present = await self.backend.presence(state.id)
            except self.backend.failures:
                # Who is connected is read again at the next refresh; the change itself is
                # stored, and is shown now.
                LOG.warning("table %s could not read who is connected", state.id)
        if kind == "reaction":
            # Heard from another process too: passed on only as the preset it must be.
            seat, reaction = event.get("seat"), event.get("reaction")
            if seat in range(4) and reaction in REACTIONS:
                await self.hub.send({"type": "reaction", "seat": seat, "reaction": reaction})
            return
        if kind == "notice":
            # The words in English, and what happened as data for a page in another language.
            extra = {key: event[key] for key in ("cover", "fault") if key in event}
            await self.hub.send({"type": "notice", "message": str(event.get("message"))} | extra)
            return
        if kind in ("lobby", "presence") or (kind == "action" and state.status != PLAYING):
            await self.hub.send(ROOM_VIEW)  # a card changes the lobby only as the match ends
        if kind in ("action", "thinking", "lobby", "presence"):
            await self.hub.send(VIEW)

    async def _count(self, seats: Sequence[int | None]) -> bool:
        """Count the connections here of ``seats`` in a room, and tell everyone; whether there
        was anything to count."""
        if not await self.presence.count(seats):
            return False
        await self._announce({"type": "presence"})
        return True

    async def _recount(self) -> None:
        """Count again the seats whose connections a new copy of the room moved."""
        moved, self.sync.moved = self.sync.moved, set()
        await self._count(sorted(moved))

    async def _show_anew(self) -> None:
        """Show this process's connections the table as this copy now has it (its lobby sent
        only when that changed: ``Hub.send``)."""
        if not self.hub.connections:
            return
        if self.state.is_room:
            await self._recount()  # a lobby change stored by another process
            await self.hub.send(ROOM_VIEW)
        await self.hub.send(VIEW)

    async def _listen(self) -> None:
        try:
            await follow(
                self.id, self.hub, self.backend, lambda event: self.post(lambda: self._heard(event))
            )
        finally:
            if self.listening is asyncio.current_task():
                self.listening = None

    # --- the driver ---------------------------------------------------------------------------

    async def _drive(self) -> None:
        """After every letter: where this process drives the table (its lease), start the
        decision that is due, or set the timer for the next look."""
        if self.halted or not self.hub.connections:
            self._stop()
            return
        loop = asyncio.get_running_loop()
        try:
            if self.backend.shared and loop.time() - self.leased_at >= RENEW:
                # Another process drives it: asked again a RENEW after it last said so (every
                # letter asked once, at every action of the table), or when a look finds the
                # lease free.
                refused = loop.time() - self.refused_at < RENEW
                if refused or not await self.backend.lease(self.id, OWNER, LEASE_SECONDS):
                    if not refused:
                        self.refused_at = loop.time()
                    self._stop_deciding()
                    self._wake_in(RENEW - (loop.time() - self.refused_at))
                    return
                self.leased_at = loop.time()
                await self._catch_up()  # just leased: this copy may be behind the last holder's
            self.store_tries = 0
        except self.backend.failures:
            # The store out of reach past its retries: the table goes on as soon as it answers
            # (leased and read again first), not when a clock runs out.
            if not self.store_tries:
                LOG.warning("table %s waits for the store to answer", self.id)
            self.leased_at = -LEASE_SECONDS
            self._wake_in(STORE_PAUSES[min(self.store_tries, len(STORE_PAUSES) - 1)])
            self.store_tries += 1
            return
        move = self.driver.next(loop.time())
        if isinstance(move, float):
            self._stop_deciding()  # nothing to decide now (a person came back first)
            self._wake_in(move)
            return
        if self.deciding is None or self.deciding[0] != move:
            self._stop_deciding()
            self.deciding = (move, spawn(self._decide(move)))
        self._wake_in(RENEW)

    async def _decide(self, move: Move) -> None:
        """A decision's task: what it came to goes to the inbox."""

        def say(event: Event, version: int) -> None:
            self.post(lambda: self._said(event, version))

        try:
            decided = await self.driver.decide(move, self.client or self.id, say)
        except Exception:  # ours: the log says why, and the driver looks again at the next look
            LOG.exception("table %s: a decision failed", self.id)
            decided = None
        if decided is None:
            self.post(self._forget(move))
        else:
            self.post(lambda: self._take(decided))

    def _forget(self, move: Move) -> Callable[[], Awaitable[None]]:
        async def forget() -> None:
            if self.deciding is not None and self.deciding[0] == move:
                self.deciding = None

        return forget

    def _wake_in(self, seconds: float) -> None:
        if self.timer is not None:
            self.timer.cancel()
        loop = asyncio.get_running_loop()
        self.timer = loop.call_later(max(seconds, 0.0), self.post, self._look)

    def _stop_deciding(self) -> None:
        if self.deciding is not None:
            self.deciding[1].cancel()
            self.deciding = None

    def _stop(self) -> None:
        """Nobody here is connected any more, or the process drains: no decision, no timer,
        no listening; the lease is taken again first if the table is driven here again."""
        self._stop_deciding()
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.listening is not None:
            self.listening.cancel()
            self.listening = None
        self.leased_at = -LEASE_SECONDS
