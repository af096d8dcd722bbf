"""The live tables of a server process: a match or room each, its seats and its connections.

A :class:`Table` is one process's copy of a stored match or room (:mod:`~callbreak.web.model`):
the match rebuilt from its actions, the seating (people, computers, the cover that plays for a
person who is away or out of time), and the sockets connected to it, each with its seat or
none (a spectator). Every action goes through :meth:`Table.act`, which appends it to the backend
only on the version it was made on; every lobby change through :meth:`Table.change`. Other
processes serving the same room hear of both through the backend's events and catch up. Who
does what lives elsewhere: the socket protocol in :mod:`~callbreak.web.messages`, the computers'
turns and the clock in :mod:`~callbreak.web.scheduler`, the views in :mod:`~callbreak.web.view`.

:class:`Tables` holds a process's copies: a table nobody uses (no socket, no driver, nothing
being stored) leaves memory after a while and is read from the backend again when asked for.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import weakref
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocket

from callbreak.bots.remote import NO_BOTS, BotAddresses
from callbreak.errors import CallbreakError
from callbreak.game import Action, Call, Match, Play
from callbreak.players import Player
from callbreak.refusals import Refusal
from callbreak.seating import PlayerSpec, Seating, close, derive_seed
from callbreak.warmup import STAND_IN
from callbreak.web import scheduler
from callbreak.web.actions import STOP, decode, encode
from callbreak.web.backend import OWNER, Backend, retried
from callbreak.web.export import record_data
from callbreak.web.hints import Hints
from callbreak.web.http import LOG
from callbreak.web.limits import DEFAULT, Limits
from callbreak.web.metrics import DETACHED, Metrics
from callbreak.web.model import (
    COMPUTER,
    FINISHED,
    LOBBY,
    PERSON,
    PLAYING,
    ROOM,
    STOPPED,
    SUMMARY_SECONDS,
    StaleAction,
    TableData,
    claim,
    new_match,
    new_room,
)
from callbreak.web.retention import Retention
from callbreak.web.view import duty_json, lobby_json, private_view, public_view, seat_view
from callbreak.web.work import Work

__all__ = ["IDLE_FINISHED", "IDLE_UNFINISHED", "MAX_IDLE", "Connection", "Table", "Tables"]

T = TypeVar("T")
OUTBOX_LIMIT = 200
"""Messages waiting for one connection before it counts as stuck and is closed (it reconnects
and gets a fresh snapshot)."""
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


class Connection:
    """One socket with its seat (None: a spectator) and the messages on their way to it, sent
    by a task of its own, so that a slow phone never holds up anyone else's messages."""

    def __init__(self, websocket: WebSocket, seat: int | None, token: str | None = None) -> None:
        self.websocket = websocket
        self.seat = seat
        self.token = token
        """The seat token the connection said hello with: its seat follows the token's."""
        self.outbox: asyncio.Queue[str] = asyncio.Queue()
        self.writer = asyncio.get_running_loop().create_task(_write(websocket, self.outbox))

    def put(self, text: str) -> None:
        """Queue a message; close a connection that stopped taking them."""
        if self.outbox.qsize() >= OUTBOX_LIMIT:
            self.close()
            return
        self.outbox.put_nowait(text)

    async def flush(self, seconds: float = 2.0) -> None:
        """Wait (a little) for the queued messages to go out, before closing on purpose."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.outbox.join(), seconds)

    def close(self) -> None:
        """Stop sending, and close the socket (the client reconnects and resyncs)."""
        self.writer.cancel()

        async def shut() -> None:
            with contextlib.suppress(Exception):
                await self.websocket.close(code=1013)

        asyncio.get_running_loop().create_task(shut())


async def _write(websocket: WebSocket, outbox: asyncio.Queue[str]) -> None:
    """A connection's writer: send what is queued, in order, until cancelled or the socket is
    gone. A function of the socket and the queue, not a method: the cancelled task keeps its
    CancelledError, whose frames would otherwise hold the Connection, and the Connection holds
    the task. That cycle kept every closed socket (its compression buffers included, about
    300 kB) until a full garbage collection, which a busy server seldom runs."""
    while True:
        text = await outbox.get()
        try:
            await websocket.send_text(text)
        except Exception:  # gone: the receiving side notices and forgets the connection
            return
        finally:
            outbox.task_done()


class Table:
    """One process's live copy of a match or a room."""

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
        self.bots = bots
        """The remote bots this process may call: a stored spec of another is never called."""
        self.connections: dict[WebSocket, Connection] = {}
        self.thinking: int | None = None
        self.stood_in = False
        """Whether the stand-in decides for the thinking seat (its search is being prepared)."""
        self.lock = asyncio.Lock()
        self.changed = asyncio.Event()
        """Set whenever the table changes (here or in another process): wakes the driver."""
        self.driver: asyncio.Task[None] | None = None
        self.listener: asyncio.Task[None] | None = None
        self.covers: dict[int, Player] = {}
        self.stand_ins: dict[int, Player] = {}
        self.away_since: dict[int, float] = {}
        self.present: set[int] = set()
        """Seats with a connection open in some process, as last heard."""
        self.seen: dict[int, int] = {}
        """How many scored deals each person's page has shown and had closed, for the seats
        whose page shows summaries (it sent ``seen``)."""
        self.summary_since: dict[int, float] = {}
        """When the driver first found the next deal waiting on a summary, by version."""
        self._private: dict[tuple[int, int, int | None], str] = {}
        """Each seat's own part of the view, as JSON text, for the current version."""
        self._moved: set[int] = set()
        """Seats whose connections here changed with a copy of the room, to be counted again."""
        self.used = 0.0
        """When the process's tables last handed this one out or found it in use (their clock)."""
        self._rebuild(data)

    def _rebuild(self, data: TableData) -> None:
        """Replay the stored actions into a fresh match and seating, and give each connection
        the seat its token holds in this copy (at once, with no await between: an action is
        checked against the seat its connection holds at the copy's revision)."""
        self.data = data
        self.match = Match(data.rules, seed=data.seed, players=tuple(data.names))
        self.faults_by_deal: dict[int, list[dict[str, Any]]] = {}
        self.seating = Seating(
            self.match, self._occupants(), ready=False, substitute_failures=True, bots=self.bots
        )
        for index, code in enumerate(data.actions):
            self._apply_code(code, data.faults.get(index, []))
        for connection in self.connections.values():
            if connection.token is None:
                continue
            seat = data.seat_of(connection.token)
            if seat != connection.seat:
                self._moved.update(s for s in (connection.seat, seat) if s is not None)
                connection.seat = seat
                connection.put(json.dumps({"type": "welcome", "seat": seat}))

    def _occupants(self) -> list[PlayerSpec | None]:
        return [None if level is None else PlayerSpec.parse(level) for level in self.data.levels]

    def _apply_code(self, code: str, faults: Sequence[dict[str, Any]]) -> None:
        deal_index = len(self.match.deals) - 1
        action = decode(code)
        if action == STOP:
            self.seating.stop()
        else:
            assert not isinstance(action, str)
            self.seating.apply(action)
        if faults:
            self.faults_by_deal.setdefault(deal_index, []).extend(faults)

    # --- what the table is ---------------------------------------------------------------------

    @property
    def id(self) -> str:
        """The match id, or the room's code."""
        return self.data.id

    @property
    def names(self) -> list[str]:
        """The seats' names."""
        return self.data.names

    @property
    def levels(self) -> list[str | None]:
        """The computer seats' specs (None for people and open seats)."""
        return self.data.levels

    @property
    def settings(self) -> dict[str, Any]:
        """speed, auto_forced, turn_seconds, cover."""
        return self.data.settings

    @property
    def version(self) -> int:
        """How many actions the match has taken: the state an action or a hint refers to."""
        return self.data.version

    @property
    def status(self) -> str:
        """'lobby', 'playing', 'finished' or 'stopped'."""
        return self.data.status

    @property
    def is_room(self) -> bool:
        """Whether people play each other here (a match is one person and three computers)."""
        return self.data.kind == ROOM

    @property
    def can_stop(self) -> bool:
        """Whether the table may end the match now: between deals of an open-ended match."""
        match = self.match
        return (
            self.status == PLAYING
            and match.rules.deals is None
            and not match.deal.actions
            and bool(match.played_deals())
            and not match.is_over
        )

    def in_use(self) -> bool:
        """Whether anything here depends on this copy now: a socket is connected, the driver or
        the listener runs (a computer's turn, the clock), or an action or a change is being
        stored. Such a table is never let go of."""
        tasks = (self.driver, self.listener)
        return (
            bool(self.connections)
            or self.lock.locked()
            or any(task is not None and not task.done() for task in tasks)
        )

    def covered(self) -> list[int]:
        """The people's seats the cover plays for now: left, or not connected anywhere while
        someone else is at the table (nobody waits for a table nobody is at)."""
        if not self.is_room or self.status != PLAYING:
            return []
        people = [seat for seat, info in enumerate(self.data.seats) if info.kind == PERSON]
        here = [seat for seat in people if seat in self.present and not self.data.seats[seat].left]
        return [
            seat
            for seat in people
            if self.data.seats[seat].left or (seat not in self.present and here)
        ]

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` is shown (a spectator's view for None)."""
        return seat_view(self, seat)

    def lobby(self) -> dict[str, Any]:
        """The room as its lobby shows it: no token, no hand."""
        return lobby_json(self)

    def record(self) -> dict[str, Any]:
        """The game record, safe to give out while the match is being played."""
        return record_data(self.match, self.faults_by_deal)

    # --- changing the table --------------------------------------------------------------------

    async def act(
        self,
        seat: int,
        action: Action | str,
        version: object,
        faults: Sequence[dict[str, Any]] = (),
        by: WebSocket | None = None,
    ) -> None:
        """Take ``action`` (or ``STOP``) for ``seat`` on ``version`` of the table; raises
        CallbreakError saying why when it may not be taken, StaleAction when the table has
        moved on since that version. ``by`` is the connection that sent it: the action is
        taken only while its token holds ``seat`` in this copy."""
        started = time.perf_counter()
        async with self.lock:
            # No reading of the store first: the append below refuses an action on a version
            # or a lobby revision another process has moved past, and this copy then catches
            # up. A connection's seat is set with every copy of the room (_rebuild), so a
            # token's seat here is its seat at this copy's revision, which the append checks.
            if by is not None and not self._holds(by, seat):
                raise StaleAction("seat_changed")
            if type(version) is not int:
                raise Refusal("version_needed")
            if version != self.version:
                raise StaleAction("stale", version=version, now=self.version)
            self._check(seat, action)
            status, deadline = self._after(action)
            code = encode(action)
            if await self._append(version, code, list(faults), status, deadline):
                # Only now, with the action stored, does this copy take it: nothing shown
                # while the backend was asked may mix the new state with the old version.
                self._apply_code(code, faults)
                self.data.actions.append(code)
                if faults:
                    self.data.faults[version] = list(faults)
                self.data.status, self.data.deadline = status, deadline
            self.thinking = None
        await self.notify({"type": "action", "version": self.version})
        self.metrics.acted(action, started, self.id, self.status)

    async def _append(
        self,
        version: int,
        code: str,
        faults: list[dict[str, Any]],
        status: str,
        deadline: float | None,
    ) -> bool:
        """Store an action on ``version``: True when stored (for this copy to take it), False
        when the store holds it already and this copy was rebuilt from there; StaleAction when
        another action or lobby change came first (this copy then takes the store's table)."""

        async def append() -> bool:
            return await self.backend.append(
                self.id, version, self.data.rev, code, faults, status, deadline
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
                fresh.rev == self.data.rev
                and fresh.actions[version : version + 1] == [code]
                and fresh.faults.get(version, []) == faults
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

    async def _restore_if_lost(self, fresh: TableData | None) -> bool:
        """When the store lost this table, or the end of it (Redis restarted without its data,
        or without its last writes), write this copy back, and say so in the log; whether it
        did. A copy is never ahead of the store otherwise: it takes an action only once the
        store has it. A stored table that is not this copy's beginning is another table's
        truth (another process restored a longer copy first): it is taken, never overwritten."""
        if not self.backend.shared:
            return False
        if fresh is not None:
            behind = fresh.version < self.version or fresh.rev < self.data.rev
            if not behind or fresh.actions != self.data.actions[: fresh.version]:
                return False
        restored = await retried(self.backend, lambda: self.backend.restore(self.data))
        if restored:
            LOG.warning(
                "table %s was lost by the store (%s): written back at version %d",
                self.id,
                "all of it" if fresh is None else f"stored at version {fresh.version}",
                self.version,
            )
        return restored

    def _check(self, seat: int, action: Action | str) -> None:
        match = self.match
        if self.status == LOBBY:
            raise Refusal("not_started")
        if match.is_over:
            raise Refusal("match_over")
        if action == STOP:
            if seat != 0:
                raise Refusal("stop_creator")
            if not self.can_stop:
                raise Refusal("stop_between")
            return
        deal = match.deal
        if deal.turn != seat:
            who = deal.turn
            if who is None:
                raise Refusal("nothing_to_do")
            raise Refusal("not_your_turn", name=self.names[who], seat=who)
        if isinstance(action, Play):
            problem = deal.explain(action.card)
            if problem:
                # The duty as data, as the table's view sends it: the page words it.
                duty = deal.forbidden().get(action.card)
                found = None if duty is None else duty_json(duty)
                raise Refusal("illegal_play", detail=problem, duty=found, played=str(action.card))
        elif isinstance(action, Call):
            problem = deal.call_problem(action.value)
            if problem:
                low, high = deal.rules.min_call, deal.rules.max_call
                raise Refusal("illegal_call", detail=problem, low=low, high=high)
        elif not deal.may_claim_redeal():
            raise Refusal("no_redeal")

    def _after(self, action: Action | str) -> tuple[str, float | None]:
        """The status and the next clock after ``action``, tried on the match and taken back
        (python-chess's push and pop)."""
        match = self.match
        if action == STOP:
            match.stop()
        else:
            assert not isinstance(action, str)
            match.apply(action)
        try:
            over = STOPPED if match.stopped else FINISHED
            return (over if match.is_over else PLAYING), next_deadline(self.data, match)
        finally:
            match.undo()

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
                    fresh.deadline = next_deadline(fresh, Match(fresh.rules, seed=fresh.seed))
                # Not tried again on a failure: a save stored although its answer was lost would
                # look like a change made meanwhile, and be made a second time.
                if await self.backend.save(fresh):
                    self._rebuild(fresh)
                    break
            else:
                raise Refusal("too_fast")
        await self.notify({"type": "lobby"})
        return result

    async def catch_up(self) -> None:
        """Take the changes other processes stored since this copy was made, and show them
        to this process's connections (whether or not an event announced them)."""
        async with self.lock:
            moved = await self._catch_up()
        if moved:
            await self._show_anew()

    async def _show_anew(self) -> None:
        """Show this process's connections a copy of the table taken from the store."""
        if not self.connections:
            return
        self.changed.set()
        if self.is_room:
            await self._reseat()  # a lobby change stored by another process
            await self.send({"type": "room", "room": self.lobby()})
        if self.status != LOBBY:
            await self.broadcast()

    async def _catch_up(self) -> bool:
        """Bring this copy up to the stored table; whether anything changed. A table the store
        lost (or lost the end of) is written back from this copy first."""
        if not self.backend.shared:
            return False  # one process: this copy is the only writer
        fresh = await retried(self.backend, lambda: self.backend.load(self.id, known=self.data))
        if await self._restore_if_lost(fresh):
            return False  # the store holds this copy again
        if fresh is None or fresh.version < self.version or fresh.rev < self.data.rev:
            # Lost, and written back first by another process with a longer copy, or not at
            # all (restore refused): the store's table as it is now decides.
            fresh = await retried(self.backend, lambda: self.backend.load(self.id))
        if fresh is None or (fresh.version, fresh.rev) == (self.version, self.data.rev):
            return False
        mine = self.data.actions
        if fresh.actions[: len(mine)] != mine or fresh.seats != self.data.seats:
            self._rebuild(fresh)
            return True
        for index in range(len(mine), len(fresh.actions)):
            self._apply_code(fresh.actions[index], fresh.faults.get(index, []))
        self.data = fresh
        return True

    def cover(self, seat: int) -> Player:
        """The computer that plays for the person in ``seat`` when they are away or out of
        time: the room's cover level, seeded from the match and the seat."""
        spec = self.settings.get("cover") or "intermediate"
        return self._helper(self.covers, "cover", spec, seat)

    def stand_in(self, seat: int) -> Player:
        """The computer that decides for the search player in ``seat`` while a first start is
        still compiling its search (:func:`callbreak.warmup.ready`), seeded like the cover."""
        return self._helper(self.stand_ins, "stand-in", STAND_IN, seat)

    def _helper(self, built: dict[int, Player], role: str, spec: str, seat: int) -> Player:
        player = built.get(seat)
        if player is None:
            seeded = PlayerSpec.parse(spec).with_defaults(
                seed=derive_seed(self.data.seed, role, seat)
            )
            player = seeded.build(ready=False, bots=self.bots)
            built[seat] = player
        return player

    # --- connections ---------------------------------------------------------------------------

    async def join(self, websocket: WebSocket, token: str | None) -> int | None:
        """Take a connection with the seat ``token`` holds in this copy (None: a spectator),
        welcome it, send it the table, count it where people's presence matters (a room), and
        start the table's tasks; the seat it was given."""
        # No await before the connection is kept: from then on every new copy re-seats it.
        seat = self.data.seat_of(token)
        connection = Connection(websocket, seat, token if seat is not None else None)
        self.connections[websocket] = connection
        connection.put(json.dumps({"type": "welcome", "seat": seat}))
        if self.is_room and seat is not None:
            await self._count(seat)  # everyone, this connection included, hears of it
        else:
            if self.is_room:
                await self.send({"type": "room", "room": self.lobby()}, websocket)
            if self.status != LOBBY:
                await self.send({"type": "state", "state": self.view(seat)}, websocket)
        scheduler.start(self)
        return seat

    async def flush(self, websocket: WebSocket) -> None:
        """Let the messages queued for a connection go out."""
        connection = self.connections.get(websocket)
        if connection is not None:
            await connection.flush()

    async def part(self, websocket: WebSocket) -> None:
        """Forget a connection that went away."""
        connection = self.connections.pop(websocket, None)
        if connection is None:
            return
        connection.writer.cancel()
        await self._count(connection.seat)
        if not self.connections:
            scheduler.stop(self)

    async def _count(self, seat: int | None) -> None:
        if seat is None or not self.is_room:
            return
        await self.backend.set_presence(self.id, seat, OWNER, self._held(seat))
        self.present = await self.backend.presence(self.id)
        await self.notify({"type": "presence"})

    def _holds(self, websocket: WebSocket, seat: int) -> bool:
        """Whether the connection's token holds ``seat`` in this copy (its seat is kept in step
        by every copy; the token is asked again all the same, as the store's copy decides)."""
        connection = self.connections.get(websocket)
        return (
            connection is not None
            and connection.seat == seat
            and self.data.seat_of(connection.token) == seat
        )

    def seat_of(self, websocket: WebSocket) -> int | None:
        """The seat a connection plays now (None: a spectator, or not connected)."""
        connection = self.connections.get(websocket)
        return None if connection is None else connection.seat

    async def _reseat(self) -> None:
        """Count again the seats whose connections a copy of the room moved (_rebuild gave
        each connection the seat its token holds: a person moved to another seat, or who
        left, is no longer sent, nor may act for, the seat they said hello to)."""
        moved, self._moved = self._moved, set()
        for seat in sorted(moved):
            await self._count(seat)

    def _held(self, seat: int) -> int:
        return sum(1 for connection in self.connections.values() if connection.seat == seat)

    async def refresh_presence(self) -> None:
        """Say again which seats this process holds (a shared backend forgets after a while)."""
        for seat in {c.seat for c in self.connections.values() if c.seat is not None}:
            await self.backend.set_presence(self.id, seat, OWNER, self._held(seat))
        self.present = await self.backend.presence(self.id)

    async def saw(self, seat: int, deals: object) -> None:
        """The person in ``seat`` closed the summary of the first ``deals`` scored deals: the
        computers need not wait for them before the next deal. A page that shows summaries
        says so at once (``deals`` 0 on a fresh page): only such seats are waited for, never a
        client that shows none (a script, a bot)."""
        if type(deals) is not int or not 0 <= deals <= len(self.match.deals):
            raise Refusal("seen_deals")
        if seat not in self.seen or deals > self.seen[seat]:
            await self.notify({"type": "seen", "seat": seat, "deals": deals})

    def waiting_on_summary(self) -> list[int]:
        """The people at the table who have not closed the last deal's summary, while the next
        deal has not begun (empty otherwise)."""
        match = self.match
        scored = len(match.played_deals())
        if not scored or match.deal.actions or match.is_over or self.status != PLAYING:
            return []
        if self.is_room:
            people = [
                seat
                for seat in sorted(self.present)
                if self.data.seats[seat].kind == PERSON and not self.data.seats[seat].left
            ]
        else:
            people = sorted({c.seat for c in self.connections.values() if c.seat is not None})
        return [seat for seat in people if seat in self.seen and self.seen[seat] < scored]

    async def notify(self, event: dict[str, Any]) -> None:
        """Tell the other processes, wake the driver, and show the change here."""
        await self.backend.publish(self.id, event | {"origin": OWNER})
        await self.hear(event)

    async def hear(self, event: dict[str, Any]) -> None:
        """Show a change (made here, or heard from another process) to this process's sockets."""
        kind = event.get("type")
        if kind == "thinking":
            self.thinking = event.get("seat")
            self.stood_in = bool(event.get("preparing"))
        if kind == "seen":
            seat, deals = event.get("seat"), event.get("deals")
            if isinstance(seat, int) and isinstance(deals, int):
                self.seen[seat] = max(self.seen.get(seat, deals), deals)
        if kind == "lobby" and self.is_room:
            await self._reseat()
        if kind in ("presence", "lobby"):
            self.present = await self.backend.presence(self.id)
        self.changed.set()
        if kind == "notice":
            # The words in English, and what happened as data for a page in another language.
            extra = {key: event[key] for key in ("cover", "fault") if key in event}
            await self.send({"type": "notice", "message": str(event.get("message"))} | extra)
            return
        if kind in ("lobby", "presence") and self.is_room:
            await self.send({"type": "room", "room": self.lobby()})
        if kind in ("action", "thinking", "lobby", "presence") and self.status != LOBBY:
            await self.broadcast()

    async def send(self, message: dict[str, Any], to: WebSocket | None = None) -> None:
        """Send a message to one socket, or to every connection when ``to`` is None."""
        text = json.dumps(message)
        if to is not None and to not in self.connections:  # not joined yet: say it directly
            with contextlib.suppress(Exception):
                await to.send_text(text)
            return
        targets = [self.connections[to]] if to is not None else list(self.connections.values())
        for connection in targets:
            connection.put(text)

    async def broadcast(self) -> None:
        """Send each connection its own seat's view.

        The public part is the same for every seat: it is encoded once, and each seat's own
        part (worked out once per version) is joined to it as text."""
        if not self.connections:
            return
        public = json.dumps(public_view(self))[:-1]  # without its closing brace
        texts: dict[int | None, str] = {}
        for connection in list(self.connections.values()):
            seat = connection.seat
            if seat not in texts:
                # A seat's own part changes only with an action or a lobby change (the start).
                key = (self.version, self.data.rev, seat)
                private = self._private.get(key)
                if private is None:
                    private = json.dumps(private_view(self, seat))[1:]  # without its "{"
                    self._private = {k: v for k, v in self._private.items() if k[:2] == key[:2]}
                    self._private[key] = private
                texts[seat] = '{"type": "state", "state": ' + public + ", " + private + "}"
            connection.put(texts[seat])

    async def tell(self, text: str, kind: str = "error") -> None:
        """Tell every connection something in words (an error, or a notice)."""
        await self.send({"type": kind, "message": text})


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
        self.live: dict[str, Table] = {}
        """The tables held in memory, by id, the least recently used first."""
        self._gone: weakref.WeakValueDictionary[str, Table] = weakref.WeakValueDictionary()
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

    async def get(self, table_id: str) -> Table | None:
        """The table of a stored match or room (rebuilt from its actions), or None."""
        table = self.live.get(table_id) or self._gone.pop(table_id, None)
        if table is None:
            data = await self.backend.load(table_id)
            if data is None:
                return None
            # Another request may have loaded it while this one waited: the first copy wins.
            table = self.live.get(table_id) or self._gone.pop(table_id, None)
            if table is None:
                table = Table(data, self.backend, self.bots, self.metrics)
        return self._hold(table)

    def _hold(self, table: Table) -> Table:
        """Keep ``table`` in memory as its id's copy, the most recently used."""
        self.live.pop(table.id, None)
        self.live[table.id] = table
        table.used = self.clock()
        if len(self.live) > self.max_idle:
            self.evict()
        return table

    def evict(self) -> list[str]:
        """Let go of the tables nobody uses (:meth:`Table.in_use`) once idle for their time, or
        at once past ``max_idle`` of them (the least recently used first); the ids let go of.
        Each is read from the backend again when asked for."""
        now = self.clock()
        idle: list[Table] = []
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

    def _idle_limit(self, table: Table) -> float:
        over = table.status in (FINISHED, STOPPED)
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
    ) -> tuple[Table, str]:
        """Start a match for a person in seat 0 against three computer players; the match and
        seat 0's token, the match's only key.

        The computer players are built first, so that a spec that cannot work is refused
        (CallbreakError) before anything is stored.
        """
        data = new_match(rules, name, opponents, seed, settings)
        token = claim(data, 0)
        table = Table(data, self.backend, self.bots, self.metrics)
        await _build_computers(table)
        await self.backend.create(table.data)
        return self._hold(table), token

    async def create_room(
        self, rules: str, name: object, seats: list[str | None], **settings: Any
    ) -> tuple[Table, str]:
        """A new room in its lobby, and the creator's seat token."""
        data = new_room(rules, name, seats, **settings)
        token = claim(data, 0)
        table = Table(data, self.backend, self.bots, self.metrics)
        await _build_computers(table)
        await self.backend.create(data)
        return self._hold(table), token


def next_deadline(data: TableData, match: Match) -> float | None:
    """When the next decision's clock runs out: a person's turn under a turn clock."""
    seconds = data.turn_seconds
    if not seconds or match.is_over or data.status != PLAYING:
        return None
    seat = match.deal.turn
    if seat is None or data.seats[seat].kind != PERSON:
        return None
    # The first decision after a scored deal: its summary is up first.
    after_summary = (
        len(match.deals) > 1 and not match.deal.actions and not match.deals[-2].thrown_in
    )
    return time.time() + seconds + (SUMMARY_SECONDS if after_summary else 0.0)


async def _build_computers(table: Table) -> None:
    for seat, info in enumerate(table.data.seats):
        if info.kind == COMPUTER:
            try:
                await run_in_threadpool(table.seating.player, seat)
            except CallbreakError:
                # The seating adds a seed to the spec: the error is said again of the spec as
                # the person gave it, which names no seed they never typed.
                if info.level is not None:
                    await run_in_threadpool(_build_as_given, info.level)
                raise
    cover = table.settings.get("cover")
    if table.is_room and cover:
        # The cover is built now too, not first when someone's clock runs out: a spec that
        # cannot be built is refused with the room, never a room that stops at that moment.
        try:
            await run_in_threadpool(table.cover, 0)
        except CallbreakError:
            await run_in_threadpool(_build_as_given, cover)
            raise


def _build_as_given(level: str) -> None:
    close(PlayerSpec.parse(level).build(ready=False))
