"""Where tables live and how the processes that serve them hear of each other's changes.

A backend keeps every match and room (:class:`~callbreak.web.model.TableData`) and every
scoresheet, appends an action only on the version it was made on (so one action at a time per
room, across processes) and changes a sheet only on the revision it was read at,
carries events between the processes serving a room, knows which seats have a connection
somewhere, and gives one process at a time the lease to run a room's computers and clock.

:class:`LocalBackend` is the embedded default: one process, SQLite, events in memory.
:class:`~callbreak.web.redis_backend.RedisBackend` spreads the same over several processes.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import os
import secrets
import socket
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from callbreak.ratings import Outcome, PoolRating
from callbreak.web.model import Step, TableData
from callbreak.web.store import Appends, Store

__all__ = [
    "EXPIRE_BATCH",
    "OWNER",
    "STORED",
    "STORE_RETRY",
    "Backend",
    "LocalBackend",
    "Look",
    "Place",
    "Profile",
    "Sheet",
    "forget",
    "retried",
]

T = TypeVar("T")

OWNER = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
"""This process, as the other processes serving the same rooms know it."""

Event = dict[str, Any]
"""``{"type": "action" | "lobby" | "thinking" | "presence", ...}``: a table changed."""
Profile = dict[str, Any]
"""A stored profile: ``id``, ``token`` (its hash), ``name``, ``avatar``, ``created``,
``updated``."""
Place = dict[str, Any]
"""Where a person is in public play: ``state`` (waiting, seating, seated), ``pool``, ``since``
(when they joined); seated: ``room``, ``seat``, ``token``; ``over`` once that table ended."""
Sheet = dict[str, Any]
"""A stored scoresheet: ``id``, ``created``, ``updated``, ``data``, ``token`` (its hash),
``rev``."""


@dataclasses.dataclass(frozen=True)
class Look:
    """A table as a process's look at the store found it (:meth:`Backend.look`)."""

    rev: int
    """The lobby's revision."""
    version: int
    """The actions stored."""
    present: frozenset[int]
    """The seats with a connection open in some process."""
    driver: str | None
    """The process that holds the lease to run the table's computers and clock, if any."""


Held = Sequence[tuple[str, Mapping[int, int]]]
"""Tables this process serves, each with how many of its connections here play each seat."""


class Backend(Protocol):
    """What a server process needs of the place where tables live."""

    shared: bool
    """Whether other processes write to the same tables (then a table catches up on events)."""
    failures: tuple[type[Exception], ...]
    """The exceptions of the store out of reach or failing (told to people as such)."""

    async def create(self, data: TableData) -> None:
        """Store a new match or room."""

    async def load(self, table_id: str, known: TableData | None = None) -> TableData | None:
        """A stored match or room, or None. ``known`` is a copy this process holds: a backend
        may then read only what was added since (the same answer, read faster)."""

    async def save(self, data: TableData) -> bool:
        """Store a lobby change made on ``data.rev`` (bumped on success) and ``data.version``;
        False when the room changed meanwhile, or an action was stored."""

    async def append(self, table_id: str, rev: int, step: Step) -> bool:
        """Append an action (``step``, made on its version of the match) made on revision
        ``rev`` of the lobby (which decides whose seat is whose); False when either has moved
        on."""

    async def tables(self, kind: str | None = None) -> list[TableData]:
        """Every stored match or room of ``kind`` (both when None), most recent first."""

    async def publish(self, table_id: str, event: Event) -> None:
        """Tell every process serving the table."""

    def events(self, table_id: str) -> contextlib.AbstractAsyncContextManager[asyncio.Queue[Event]]:
        """A queue of the table's events from now on, for as long as the context is open."""

    async def set_presence(self, table_id: str, seat: int, owner: str, count: int) -> None:
        """This process (``owner``) has ``count`` connections open for ``seat``."""

    async def presence(self, table_id: str) -> set[int]:
        """The seats with a connection open in some process."""

    async def lease(self, table_id: str, owner: str, seconds: float) -> bool:
        """Take or renew the lease to run the table's computers and clock; False when another
        process holds it."""

    async def look(self, held: Held, owner: str, seconds: float) -> list[Look | None]:
        """For each table of ``held``, what this process (``owner``) says and asks of it every
        few seconds, for all of them at once (one round trip on a shared store): the seats
        it holds connections for (:meth:`set_presence` of each, the others left as they are),
        the lease renewed for ``seconds`` where ``owner`` holds it (never taken), and the
        table as stored read back, None for a table the store does not have."""

    async def restore(self, data: TableData) -> bool:
        """Write back a process's copy of a table the store lost (all of it, or its last
        actions or lobby change: a Redis restarted without them): only when the stored table
        is missing, or is the copy's beginning on the same lobby revision. Whether it did."""

    async def release(self, table_id: str, owner: str) -> None:
        """Give up the lease if ``owner`` holds it (a process shutting down), so that another
        process takes the table over at once rather than when the lease runs out."""

    async def ping(self) -> None:
        """Return once the store answers; raise one of ``failures`` when it does not
        (readiness: ``web.health``; a table's driver waiting for the store)."""

    async def expire(self, cutoffs: dict[str, float], keep: Collection[str] = ()) -> list[str]:
        """Remove the stored tables whose status has a cutoff and whose last change came before
        it, except those in ``keep`` and those with a connection open in any process; the ids
        removed. Safe to run in several processes at once."""

    async def create_sheet(self, sheet_id: str, data: dict[str, Any], token: str) -> None:
        """Store a new scoresheet held by the token whose hash is ``token``."""

    async def sheet(self, sheet_id: str) -> Sheet | None:
        """One scoresheet (``id``, ``created``, ``updated``, ``data``, ``token``: the hash of
        its token, ``rev``), or None."""

    async def sheets(self, ids: Sequence[str]) -> list[Sheet]:
        """The scoresheets of ``ids`` that exist, the most recently changed first."""

    async def update_sheet(self, sheet_id: str, data: dict[str, Any], rev: int) -> bool:
        """Replace a sheet's data as read at ``rev``; False when it changed meanwhile (another
        request, perhaps through another process) or is gone."""

    async def expire_sheets(self, before: float) -> int:
        """Remove the scoresheets last changed before ``before``; how many."""

    # Public play (docs/public.md): profiles, the pools' waiting lists, ratings.

    async def create_profile(self, profile: Profile) -> None:
        """Store a new profile: ``id`` (public), ``token`` (the hash of its token), ``name``,
        ``avatar``, ``created``, ``updated``."""

    async def profile(self, profile_id: str) -> Profile | None:
        """A profile by its public id, or None."""

    async def profile_of(self, token: str) -> Profile | None:
        """The profile whose token's hash is ``token``, or None."""

    async def profiles(self, ids: Sequence[str]) -> list[Profile]:
        """The profiles of ``ids`` that exist."""

    async def update_profile(self, profile_id: str, name: str, avatar: str) -> bool:
        """Change a profile's name and avatar; False when there is no such profile."""

    async def wait(self, pool: str, profile: str, since: float, stale: float) -> Place:
        """Atomically, put ``profile`` on ``pool``'s waiting list from ``since`` unless it has a
        place already: a wait in this pool stays as it is, a wait in another pool moves here,
        a seat is kept unless it is ``over`` or a seating begun before ``stale``. Its place."""

    async def unwait(self, profile: str) -> Place | None:
        """Take ``profile`` off its waiting list; its place after it (a seat stays)."""

    async def place(self, profile: str) -> Place | None:
        """Where ``profile`` is (``state``: waiting, seating or seated), or None."""

    async def waiting(self, pool: str) -> list[tuple[str, float]]:
        """Who waits in ``pool`` and since when, the longest waiting first."""

    async def take(self, pool: str, profiles: Sequence[str], at: float) -> bool:
        """Atomically take ``profiles`` off ``pool``'s list to seat them together, all or none
        (False unless every one waits there now); each is then "seating" from ``at``."""

    async def placed(self, places: Mapping[str, Place | None]) -> None:
        """Set each profile's place (None: none any more)."""

    async def offer(self, pool: str, room: str, at: float) -> None:
        """List ``room`` among ``pool``'s tables with a computer's seat a person may take."""

    async def offers(self, pool: str) -> list[str]:
        """The rooms listed in ``pool`` by :meth:`offer`, the oldest first."""

    async def withdraw(self, pool: str, room: str) -> None:
        """Take ``room`` off ``pool``'s offers."""

    async def settle(self, outcome: Outcome) -> bool:
        """Rate a finished public match once (``ratings.settle`` in one transaction); whether
        it was rated now (False: some process rated it already)."""

    async def rating(self, pool: str, profile: str) -> PoolRating | None:
        """A person's rating in ``pool``, or None before their first rated match there."""

    async def leaderboard(self, pool: str, count: int) -> list[tuple[str, PoolRating]]:
        """The ``count`` best ratings of ``pool`` that are not provisional, best first."""

    async def rank(self, pool: str, profile: str) -> int | None:
        """A person's place on ``pool``'s leaderboard (1 the best), None while provisional."""

    async def rating_history(self, pool: str, profile: str, count: int) -> list[dict[str, Any]]:
        """A person's rating after each of their last ``count`` rated matches in ``pool`` (each
        written by :meth:`settle`), the oldest first: ``match``, ``at``, ``mu``, ``sigma``,
        ``matches``."""

    # A person's plays, and how long their profile is kept (web.challenge, web.standings).

    async def tally(self, profile: str, match_id: str, at: float, play: dict[str, Any]) -> None:
        """Keep what ``profile``'s play of a match was (calls made, accuracy...), replacing
        what was kept of that match before (so that telling it twice changes nothing); the
        profile counts as used at ``at``."""

    async def plays(self, profile: str, count: int) -> list[dict[str, Any]]:
        """What was kept of ``profile``'s last ``count`` plays, the most recent first, each
        with its ``match`` and ``at``."""

    async def touch_profile(self, profile: str, at: float) -> None:
        """The profile was used at ``at``: its retention counts from then."""

    async def expire_profiles(self, before: float) -> list[str]:
        """Remove the profiles last used before ``before`` with their ratings, rating history,
        plays and places; their ids. Safe to run in several processes at once."""

    # The daily challenge (docs/public.md, *The daily challenge*).

    async def secret(self, name: str, made: str) -> str:
        """The secret kept under ``name``, or ``made`` kept now when there is none: the first
        process to keep one wins, and every process reads the same."""

    async def begin_attempt(
        self, attempt: dict[str, Any], per_address: int
    ) -> tuple[dict[str, Any], bool]:
        """Atomically, keep ``attempt`` (``day``, ``profile``, ``address``, ``ranked``...)
        unless the profile has an attempt that day: then that one, and False. A ranked attempt
        from an ``address`` that has ``per_address`` ranked attempts that day is kept unranked
        (``why``: "address"). The attempt kept, and whether it is new."""

    async def attempt(self, day: str, profile: str) -> dict[str, Any] | None:
        """``profile``'s attempt of ``day`` (``YYYY-MM-DD``), or None."""

    async def attempts(self, day: str) -> list[dict[str, Any]]:
        """Every attempt of ``day``."""

    async def update_attempt(
        self, day: str, profile: str, changes: Mapping[str, Any]
    ) -> dict[str, Any] | None:
        """``changes`` made to ``profile``'s attempt of ``day`` (the other fields stay); the
        attempt after them, or None when there is none."""

    async def expire_attempts(self, before: str) -> int:
        """Remove the attempts of the days before ``before``; how many (Redis forgets them on
        its own: 0)."""

    async def close(self) -> None:
        """Let go of connections and files."""


STORE_RETRY = (0.1, 0.2, 0.4, 0.8, 1.5, 2.0)
"""Pauses between the tries of a store operation that failed (the store out of reach for a
moment: Redis restarting or failing over): about five seconds in all, as long as a person
waits for a card to land before thinking the click was lost."""


async def retried(backend: Backend, work: Callable[[], Awaitable[T]]) -> T:
    """``work()``, tried again after each pause of STORE_RETRY while the store fails; the last
    failure is raised. Only for work that may be done twice (a read, or a write the store checks
    against a version, which refuses the second)."""
    for pause in STORE_RETRY:
        try:
            return await work()
        except backend.failures:
            await asyncio.sleep(pause)
    return await work()


EXPIRE_BATCH = 500
"""Tables deleted by one statement of a sweep, between which the event loop serves others."""


def forget(
    listeners: dict[str, set[asyncio.Queue[Event]]], table_id: str, queue: asyncio.Queue[Event]
) -> None:
    """Stop giving ``queue`` the table's events, and forget the table once nobody listens (a
    process keeps an entry only for the tables it serves now, not every table it ever did)."""
    queues = listeners.get(table_id)
    if queues is not None:
        queues.discard(queue)
        if not queues:
            del listeners[table_id]


STORED = frozenset(
    [
        "create",
        "save",
        "tables",
        "create_sheet",
        "sheet",
        "sheets",
        "update_sheet",
        "expire_sheets",
        "create_profile",
        "profile",
        "profile_of",
        "profiles",
        "update_profile",
        "wait",
        "unwait",
        "place",
        "waiting",
        "take",
        "placed",
        "offer",
        "offers",
        "withdraw",
        "settle",
        "rating",
        "leaderboard",
        "rank",
        "rating_history",
        "tally",
        "plays",
        "touch_profile",
        "secret",
        "begin_attempt",
        "attempt",
        "attempts",
        "update_attempt",
        "expire_attempts",
    ]
)
"""The interface's methods that :class:`LocalBackend` answers with the SQLite store's method of
the same name and arguments (``web.store.Store``: on the event loop, as SQLite answers at
once), rather than spelling each again. The appends are not among them: they are grouped off
the event loop (``web.store.Appends``)."""


class LocalBackend:
    """One process: tables in SQLite, events and presence in memory, the lease always ours."""

    shared = False
    """Whether other processes write to the same tables (then a table catches up on events)."""
    failures: tuple[type[Exception], ...] = (sqlite3.Error, OSError)

    def __init__(self, store: Store) -> None:
        self.store = store
        self.appends = Appends(store)
        self._listeners: dict[str, set[asyncio.Queue[Event]]] = {}
        self._presence: dict[str, dict[int, int]] = {}

    def __getattr__(self, name: str) -> Any:
        """A method of :data:`STORED`: the store's own, answered as the interface's coroutine
        (made once per method, then kept on the backend)."""
        if name not in STORED:
            raise AttributeError(name)
        method = getattr(self.store, name)

        @functools.wraps(method)
        async def stored(*args: Any, **kwargs: Any) -> Any:
            return method(*args, **kwargs)

        setattr(self, name, stored)
        return stored

    async def append(self, table_id: str, rev: int, step: Step) -> bool:
        # On the writer thread, with the other tables' appends of the moment in one
        # transaction; answered once it is committed.
        return await self.appends.append(table_id, rev, step)

    async def load(self, table_id: str, known: TableData | None = None) -> TableData | None:
        return self.store.load(table_id)  # one process: no copy can be behind its own file

    async def expire(self, cutoffs: dict[str, float], keep: Collection[str] = ()) -> list[str]:
        gone: list[str] = []
        while True:
            # In batches, so that a first sweep of a large file never holds up the tables.
            batch = self.store.expire(cutoffs, {*keep, *self._presence}, EXPIRE_BATCH)
            gone += batch
            if len(batch) < EXPIRE_BATCH:
                return gone
            await asyncio.sleep(0)

    async def publish(self, table_id: str, event: Event) -> None:
        for queue in self._listeners.get(table_id, ()):
            queue.put_nowait(event)

    @contextlib.asynccontextmanager
    async def events(self, table_id: str) -> AsyncIterator[asyncio.Queue[Event]]:
        queue: asyncio.Queue[Event] = asyncio.Queue()
        self._listeners.setdefault(table_id, set()).add(queue)
        try:
            yield queue
        finally:
            forget(self._listeners, table_id, queue)

    async def set_presence(self, table_id: str, seat: int, owner: str, count: int) -> None:
        seats = self._presence.setdefault(table_id, {})
        if count:
            seats[seat] = count
        else:
            seats.pop(seat, None)
            if not seats:  # kept only while someone is connected: a table served once is not
                del self._presence[table_id]

    async def presence(self, table_id: str) -> set[int]:
        return set(self._presence.get(table_id, {}))

    async def lease(self, table_id: str, owner: str, seconds: float) -> bool:
        return True

    async def look(self, held: Held, owner: str, seconds: float) -> list[Look | None]:
        found: list[Look | None] = []
        for table_id, seats in held:
            for seat, count in seats.items():
                await self.set_presence(table_id, seat, owner, count)
            data = self.store.load(table_id)
            present = frozenset(self._presence.get(table_id, {}))
            found.append(None if data is None else Look(data.rev, data.version, present, owner))
        return found

    async def restore(self, data: TableData) -> bool:
        return False  # one process owns the file: nothing is lost behind its back

    async def release(self, table_id: str, owner: str) -> None:
        return None  # one process: nobody else would take the table over

    async def ping(self) -> None:
        await asyncio.to_thread(self.store.ping)

    async def expire_profiles(self, before: float) -> list[str]:
        gone: list[str] = []
        while True:  # in batches, as the tables: the loop serves others between them
            batch = self.store.expire_profiles(before, EXPIRE_BATCH)
            gone += batch
            if len(batch) < EXPIRE_BATCH:
                return gone
            await asyncio.sleep(0)

    async def close(self) -> None:
        await asyncio.to_thread(self.appends.close)  # what is queued is stored first
        self.store.close()
