"""Quick play: the pools, their waiting lists, and the tables they start (docs/public.md, *Pools*).

A pool (:class:`Pool`) is a rules profile with a turn clock, named by the operator (by default
``strict`` and ``bhoos`` at 20 s a turn: :data:`DEFAULT_POOLS`). A person with a profile
(``web.profiles``) joins one; the waiting lists live in the backend, so that people joining
through any process meet: a person waits in one pool at once, and joining again (a second tab,
a second press) is the same wait (``Backend.wait``, atomic in SQLite and in Redis).

Each process runs :meth:`Pools.run`; the one that holds a pool's lease (``Backend.lease``,
renewed each look) makes the pool's decisions (``web.matching``: four who wait, or fewer with
computers after the wait), takes the people off the list all or none (``Backend.take``), and
starts their table: a room made by ``Tables.create_room`` whose lobby change seats them and
starts it (:func:`_seat_people`, one call into a live table). Each person's place then holds
the room's code, their seat and its token, which their status poll answers (to them alone: it
needs their profile's token).

A table started with computers is offered (``Backend.offer``) to the people who join later: a
person a full table leaves over takes a computer's seat there (:meth:`Pools._take_over`, the
other call into a live table: a lobby change whose deal the store checks), from the deal not
yet begun. Rating the match at its end is ``web.standings``'s, called by the live table.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from callbreak.game import Match
from callbreak.refusals import Refusal
from callbreak.web.accesslog import room_event
from callbreak.web.backend import OWNER, Backend, Place, Profile
from callbreak.web.limits import DEFAULT, Limits, PerAddress
from callbreak.web.matching import DEFAULT_POOLS, SEATS, Offer, Pool, Waiter, decide, parse_pools
from callbreak.web.metrics import DETACHED, Metrics
from callbreak.web.model import (
    COMPUTER,
    DEFAULT_COVER,
    FINISHED,
    PLAYING,
    STOPPED,
    TableData,
    join,
    start,
    take_over,
)
from callbreak.web.profiles import signed_in
from callbreak.web.standings import abandoned, rate_finished
from callbreak.web.state import replay
from callbreak.web.tables import LiveTable, Tables

__all__ = [
    "DEFAULT_POOLS",
    "LOOK_EVERY",
    "Pool",
    "Pools",
    "first_free_deal",
    "parse_pools",
    "routes",
]

LOG = logging.getLogger("callbreak.web")
LOOK_EVERY = 0.5
"""Seconds between two looks at the waiting lists by the process holding a pool's lease: a
person who joins through another process waits at most this long past the decision."""
LEASE_SECONDS = 3.0
"""A pool's lease: another process makes the decisions this long after the holder stopped."""
SEATING_SECONDS = 30.0
"""A seating not finished in this long (the process seating it died) gives way to a new join."""


class Pools:
    """One process's part in quick play: joins, leaves and places, and the decisions of the
    pools whose lease it holds."""

    def __init__(
        self,
        backend: Backend,
        tables: Tables,
        pools: Sequence[Pool] = DEFAULT_POOLS,
        limits: Limits = DEFAULT,
        metrics: Metrics = DETACHED,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.backend = backend
        self.tables = tables
        self.pools = {pool.name: pool for pool in pools}
        self.metrics = metrics
        self.clock = clock or time.time
        """Wall-clock seconds: the waiting lists' times, compared across processes."""
        self.joins = PerAddress(limits.pool_joins_per_minute / 60, limits.pool_join_burst)
        """Joins per profile (per address they count with the creations: ``web.limits``)."""
        self.poked = asyncio.Event()
        self.paused: Callable[[], bool] = lambda: False
        """Whether to decide nothing now (a process draining hands its tables over: the lease
        then passes to another process within LEASE_SECONDS)."""
        self._failing = False

    def pool(self, name: str) -> Pool:
        """The pool of that name; a Refusal (404) when there is none."""
        found = self.pools.get(name)
        if found is None:
            raise Refusal("no_such_pool", pools=list(self.pools))
        return found

    async def join(self, pool: Pool, profile: str) -> Place:
        """Wait in ``pool`` (once however often asked); the person's place."""
        wait = self.joins.take(profile)
        if wait:
            raise Refusal("joins_rate", seconds=max(1, round(wait + 0.5)))
        await self.status(profile)  # a seat at a table that ended gives way
        now = self.clock()
        place = await self.backend.wait(pool.name, profile, now, now - SEATING_SECONDS)
        self.poked.set()  # four may wait now: decide at once here, not at the next look
        return place

    async def leave(self, profile: str) -> Place | None:
        """Stop waiting; the place left (a seat at a table stays: leave the table for that)."""
        return await self.backend.unwait(profile)

    async def status(self, profile: str) -> Place | None:
        """The person's place; a seat at a table that is over (or that they left) is marked
        ``over``, and the table rated if nobody has yet; a seating that never finished puts
        them back on the list."""
        place = await self.backend.place(profile)
        if place is not None and place["state"] == "seating":
            stale = self.clock() - SEATING_SECONDS
            if float(place["at"]) < stale:
                # The process seating them died: back on the list, where they were.
                return await self.backend.wait(place["pool"], profile, place["since"], stale)
        if place is None or place["state"] != "seated" or place.get("over"):
            return place
        data = await self.backend.load(place["room"])
        if data is None or not _holds(data, place["seat"], profile):
            if data is not None:  # finished, or left by everyone: rated if nobody has yet
                await rate_finished(self.backend, data)
            place = place | {"over": True}
            await self.backend.placed({profile: place})
        return place

    async def run(self) -> None:
        """Look at the pools every :data:`LOOK_EVERY` seconds (at once after a join here),
        deciding for those whose lease this process holds; until cancelled."""
        while True:
            self.poked.clear()
            for pool in self.pools.values():
                if self.paused():
                    break
                try:
                    await self.look(pool)
                    self._failing = False
                except asyncio.CancelledError:
                    raise
                except Exception:
                    # A store out of reach: the next look tries again. Logged once a failing
                    # spell, not twice a second for as long as Redis is away.
                    if not self._failing:
                        LOG.exception("the look at pool %s failed", pool.name)
                    self._failing = True
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(LOOK_EVERY):
                    await self.poked.wait()

    async def look(self, pool: Pool) -> int:
        """One decision for ``pool`` if this process holds its lease: the tables it starts,
        each seated, and the computers' seats people take; how many tables started."""
        if not await self.backend.lease(f"pool:{pool.name}", OWNER, LEASE_SECONDS):
            return 0
        now = self.clock()
        waiting = [
            Waiter(profile, since) for profile, since in await self.backend.waiting(pool.name)
        ]
        self.metrics.pool_waiting.labels(pool.name).set(len(waiting))
        # The tables on offer are read only for people a full table leaves over.
        offers = await self._offers(pool) if len(waiting) % SEATS else []
        decision = decide(waiting, offers, now, pool.wait)
        started = 0
        for group in decision.tables:
            profiles = [waiter.profile for waiter in group]
            if not await self.backend.take(pool.name, profiles, now):
                continue  # someone left (or was seated) meanwhile: decided again next look
            try:
                await self._start(pool, group)
            except Exception:
                await self._put_back(pool, group)
                raise
            started += 1
        for waiter, offer in decision.takeovers:
            await self._take_over(pool, waiter, offer)
        return started

    async def _put_back(self, pool: Pool, group: Sequence[Waiter]) -> None:
        """Back on the list where they were: nobody loses their turn to our failure."""
        await self.backend.placed({waiter.profile: None for waiter in group})
        for waiter in group:
            await self.backend.wait(pool.name, waiter.profile, waiter.since, 0.0)

    async def _start(self, pool: Pool, group: Sequence[Waiter]) -> None:
        """Start the table of ``group`` (taken off the list): a room with computers in the
        empty seats, the people seated and the match started; each person's place then says
        where they sit. A table with computers is offered to the people who join later."""
        found = {p["id"]: p for p in await self.backend.profiles([w.profile for w in group])}
        names = [found[w.profile]["name"] if w.profile in found else None for w in group]
        computers = [pool.computers] * (4 - len(group))
        table, first = await self.tables.create_room(
            pool.rules,
            names[0] or "?",
            [None] * (len(group) - 1) + computers,
            None,
            turn_seconds=pool.turn_seconds,
            cover=DEFAULT_COVER,
            speed=pool.speed,
        )
        profiles = [w.profile for w in group] + [None] * len(computers)
        avatars = [found[w.profile]["avatar"] if w.profile in found else None for w in group]
        public = {
            "pool": pool.name,
            "profiles": profiles,
            "avatars": avatars + [None] * len(computers),
        }
        seats = await _seat_people(table, names[1:], public)
        seats.insert(0, (0, first))
        now = self.clock()
        places: dict[str, Place | None] = {}
        for waiter, (seat, token) in zip(group, seats, strict=True):
            places[waiter.profile] = self._seated(pool, waiter, table.id, seat, token, now)
        await self.backend.placed(places)
        if computers:
            await self.backend.offer(pool.name, table.id, now)
        self.metrics.pool_tables.labels(pool.name, str(len(group))).inc()

    def _seated(
        self, pool: Pool, waiter: Waiter, room: str, seat: int, token: str, now: float
    ) -> Place:
        """A person's place at a seat given now, the wait to it counted."""
        self.metrics.pool_wait.labels(pool.name).observe(max(0.0, now - waiter.since))
        return {
            "state": "seated",
            "pool": pool.name,
            "since": waiter.since,
            "room": room,
            "seat": seat,
            "token": token,
            "at": now,
        }

    async def _offers(self, pool: Pool) -> list[Offer]:
        """The computers' seats a person may take now at the pool's tables being played, the
        best first: a deal not yet begun (taken at once) before a deal being played (taken
        from the next), tables with more people still at them first, then the deal nearest its
        end. A table with nothing left to take (its computers' seats taken, its last deal
        begun, over, gone, or left by every person at it) is withdrawn."""
        found: list[tuple[tuple[int, int, int], Offer]] = []
        for room in await self.backend.offers(pool.name):
            data = await self.backend.load(room)
            offered = None if data is None else _offered(data, pool.name)
            if offered is None:
                await self.backend.withdraw(pool.name, room)
                continue
            rank, people, seats = offered
            found += [(rank, Offer(room, seat, people)) for seat in seats]
        found.sort(key=lambda item: item[0])
        return [offer for _, offer in found]

    async def _take_over(self, pool: Pool, waiter: Waiter, offer: Offer) -> bool:
        """Give ``waiter`` the computer's seat of ``offer`` from the table's next deal (a lobby
        change of the table: its seat, its profile and when the person's deals begin), taken off
        the list first; back on the list where they were if the seat went meanwhile. Whether
        they were seated."""
        if not await self.backend.take(pool.name, [waiter.profile], self.clock()):
            return False  # left (or seated) meanwhile
        try:
            found = await self.backend.profiles([waiter.profile])
            person = found[0] if found else {"id": waiter.profile, "name": "?", "avatar": None}
            table = await self.tables.get(offer.room)
            if table is None:
                raise Refusal("no_such_room")
            token, since = await table.change(
                lambda data: _seize(data, pool.name, offer.seat, person)
            )
        except Refusal:
            # The seat was taken, the table ended or its last deal began meanwhile: this table
            # is looked at again (or withdrawn) at the next look, the person waits as before.
            await self._put_back(pool, [waiter])
            return False
        except Exception:
            await self._put_back(pool, [waiter])
            raise
        now = self.clock()
        place = self._seated(pool, waiter, offer.room, offer.seat, token, now) | {"deal": since}
        await self.backend.placed({waiter.profile: place})
        self.metrics.pool_takeovers.labels(pool.name).inc()
        room_event(offer.room, "taken_over", seat=offer.seat, deal=since + 1)
        return True


def _offered(
    data: TableData, pool: str
) -> tuple[tuple[int, int, int], frozenset[str], list[int]] | None:
    """What a pool's table offers now: its rank among the offers (:meth:`Pools._offers`), the
    people at it and the computers' seats a person may take; None when nothing."""
    public = data.public
    if public is None or public.get("pool") != pool:
        return None
    seats = [seat for seat, info in enumerate(data.seats) if info.kind == COMPUTER]
    if abandoned(data):
        return None  # played no further, and rated already: nobody is sent there
    match = replay(data) if seats else None
    first = None if match is None else first_free_deal(data, match)
    if match is None or first is None:
        return None
    profiles = public["profiles"]
    people = frozenset(p for p in profiles if p is not None)
    # Ranked by the people still at it: those who left are nobody to play with.
    staying = sum(1 for p, info in zip(profiles, data.seats, strict=True) if p and not info.left)
    soon = 0 if first == len(match.deals) - 1 else 1
    return (soon, -staying, -len(match.deal.actions)), people, seats


def first_free_deal(data: TableData, match: Match) -> int | None:
    """The index of the deal from which a person may take a computer's seat of ``data``
    (whose match is ``match``): the deal being played when it has not begun (no action yet),
    else the next one; None when the table is not being played or its last deal has begun."""
    if data.status != PLAYING or match.is_over:
        return None
    index = len(match.deals) - 1
    if not match.deal.actions:
        return index
    deals = match.rules.deals
    if deals is not None and len(match.played_deals()) + 1 >= deals:
        return None
    return index + 1


def _seize(data: TableData, pool: str, seat: int, person: Profile) -> tuple[str, int]:
    """The lobby change of a takeover by ``person`` (a profile), on the table as stored (the
    store refuses it if an action came in between: the deal it counts from is this copy's)."""
    public = data.public
    if public is None or public.get("pool") != pool:
        raise Refusal("no_such_room")
    if person["id"] in public["profiles"]:
        raise Refusal("seat_taken", seat=seat)  # nobody sits twice at one table
    since = first_free_deal(data, replay(data))
    if since is None:
        raise Refusal("room_over")
    token = take_over(data, seat, person["name"], since)
    public["profiles"][seat] = person["id"]
    public.setdefault("avatars", [None] * 4)[seat] = person.get("avatar")
    return token, since


async def _seat_people(
    table: LiveTable, names: Sequence[str | None], public: dict[str, Any]
) -> list[tuple[int, str]]:
    """The one call into a live table: seat ``names`` in the room's open seats, mark it a
    pool's table (``public``: its pool and each seat's profile) and start it, in one lobby
    change (a letter in the table's inbox); each seat and its token."""

    def sit(data: TableData) -> list[tuple[int, str]]:
        seated = [join(data, name or "?") for name in names]
        data.settings["public"] = public
        start(data)
        return seated

    return await table.change(sit)


def _holds(data: TableData, seat: int, profile: str) -> bool:
    """Whether ``profile`` still plays ``seat`` of the pool's table ``data``: the match goes on,
    and they have not left it (nor given back, before their first deal, a seat taken over)."""
    public = data.public
    return (
        data.status not in (FINISHED, STOPPED)
        and not data.seats[seat].left
        and public is not None
        and public["profiles"][seat] == profile
    )


def place_json(place: Place | None, now: float) -> dict[str, Any]:
    """A person's place as their status poll answers it."""
    if place is None:
        return {"state": "none"}
    answer: dict[str, Any] = {key: place[key] for key in ("state", "pool") if key in place}
    # Seated, the wait ended when the seat was given (``at``); waiting, it goes on.
    until = float(place["at"]) if place["state"] == "seated" and "at" in place else now
    answer["waited"] = round(max(0.0, until - float(place["since"])), 1)
    if place["state"] == "seated":
        answer |= {"room": place["room"], "seat": place["seat"], "token": place["token"]}
        answer["over"] = bool(place.get("over"))
        # A computer's seat taken over: the number (from 1) of the person's first deal.
        answer["deal"] = int(place.get("deal", 0)) + 1
    return answer


def routes(pools: Pools) -> list[Route]:
    """``/api/pools``: the pools, and a person's join, leave and place (their profile's token
    as ``Authorization: Bearer``)."""
    backend = pools.backend

    async def listed(_request: Request) -> Response:
        return JSONResponse(
            [
                {"name": p.name, "rules": p.rules, "turn_seconds": p.turn_seconds, "wait": p.wait}
                for p in pools.pools.values()
            ]
        )

    async def joined(request: Request) -> Response:
        pool = pools.pool(request.path_params["pool"])
        profile = await signed_in(backend, request)
        return JSONResponse(place_json(await pools.join(pool, profile["id"]), pools.clock()))

    async def left(request: Request) -> Response:
        pools.pool(request.path_params["pool"])
        profile = await signed_in(backend, request)
        return JSONResponse(place_json(await pools.leave(profile["id"]), pools.clock()))

    async def placed(request: Request) -> Response:
        pools.pool(request.path_params["pool"])
        profile = await signed_in(backend, request)
        return JSONResponse(place_json(await pools.status(profile["id"]), pools.clock()))

    return [
        Route("/api/pools", listed, methods=["GET"]),
        Route("/api/pools/{pool}/join", joined, methods=["POST"]),
        Route("/api/pools/{pool}/leave", left, methods=["POST"]),
        Route("/api/pools/{pool}/place", placed, methods=["GET"]),
    ]
