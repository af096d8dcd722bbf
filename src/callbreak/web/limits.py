"""How much one address or one connection may ask of the server, and the server's other
bounds (the remote bots it may call, the threads that search for hints, the computers' searches
at once).

Every request and every socket is counted against the address it comes from, in one class:

- **lookups**: anything that names a room, a match or a scoresheet by its code or id (a room's
  lobby, record and replay, a socket opened to a table): slows anyone trying codes;
- **creations**: matches, rooms, scoresheets and profiles created, joins of rooms and of pools
  (a pool's joins are limited per profile too: ``web.pools``), daily challenges begun;
- **requests**: everything else (the page, static files, lists, figures);
- **probes**: ``/healthz``, ``/readyz`` and ``/metrics``, which a load balancer and Prometheus
  poll: a class of their own, so that polling never uses up the requests of the people behind
  the same address, nor people's requests make a process look down; still limited, as anyone can
  reach them (``/readyz`` asks the store at most once a second however often it is asked).

Each class is a token bucket per address (``rate`` a second, at most ``burst`` saved up); a
request over its class's rate is answered 429 with ``Retry-After``. An address also has at most
``sockets`` sockets open at once; one more is closed with code 4429. The address is the peer's,
or the one a trusted proxy names (``callbreak serve --proxies``; uvicorn rewrites the peer
before this app sees it). IPv6 addresses count by their /64, which one home or one machine
usually holds whole. Socket messages are limited per connection (``web.messages``). Limits
are kept by each process on its own (docs/deploy.md).
"""

from __future__ import annotations

import dataclasses
import ipaddress
import json
import math
import re
import time
from typing import TYPE_CHECKING

from callbreak.bots.remote import NO_BOTS, BotAddresses
from callbreak.refusals import Refusal

if TYPE_CHECKING:  # the command line reads the defaults without loading the web app
    from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = [
    "CLOSED",
    "CREATION",
    "DEFAULT",
    "LOOKUP",
    "MAX_ADDRESSES",
    "PROBE",
    "REQUEST",
    "Bucket",
    "Limits",
    "PerAddress",
    "RateLimits",
    "address_of",
    "kind_of",
]


@dataclasses.dataclass(frozen=True)
class Limits:
    """The server's limits; tests that play at machine speed raise them.

    The defaults let one household behind one address (four people, each on a phone, with a
    history of rooms) play without meeting them, and make trying room codes hopeless."""

    bots: BotAddresses = NO_BOTS
    """The remote bots that rooms and matches may seat (``callbreak serve --bots``): none
    unless the operator allows addresses, since the server calls them."""
    search_threads: int = 2
    """Threads for the searches of hints and the replays of *Your record*, shared by every
    table of the process (off the event loop)."""
    search_queue: int = 8
    """Such jobs that may wait for a thread; past them the answer is "the server is busy"."""
    searches: int = 2
    """Computers' searches that may run at once in the process (``web.searches``, ``callbreak
    serve --searches``): one a core of the 2-core machine the defaults are for; more only divide
    the cores between more tables. The rest wait their turn, fairly between tables."""
    client_searches: int = 1
    """Such searches that may run at once for the tables one client (address) created
    (``--client-searches``): below ``searches``, so that another client always finds a thread."""
    reviews: int = 1
    """Processes for the reviews of finished matches (``web.reviews``, ``callbreak serve
    --reviews``): a review is a minute of CPU, which the tables being played must not wait on."""
    review_queue: int = 1
    """Reviews that may wait for a process (``--reviews`` sets it to as many as run); past
    them the answer is ``review_busy``."""
    review_time: float = 0.3
    """Seconds of search per decision reviewed (``callbreak review --time``'s default)."""

    creations_per_minute: float = 20.0
    """Matches, rooms and scoresheets created plus joins, per address."""
    creation_burst: float = 10.0
    lookups_per_minute: float = 60.0
    """Requests and sockets that name a room, match or scoresheet, per address."""
    lookup_burst: float = 120.0
    requests_per_minute: float = 600.0
    """Every other request (pages, static files, lists), per address."""
    request_burst: float = 300.0
    probes_per_minute: float = 240.0
    """Health, readiness and metrics requests per address: a load balancer polling every
    second, with a second one and Prometheus behind the same address, stays under it."""
    probe_burst: float = 60.0
    pool_joins_per_minute: float = 12.0
    """Joins of a pool per profile (``web.pools``), on top of the address's creations: a
    person presses *Play now* a few times an hour; a script joining and leaving to look at the
    waiting lists is slowed."""
    pool_join_burst: float = 6.0
    reactions_per_minute: float = 12.0
    """Reactions at a table per person (``web.reactions``: their profile at a table of
    strangers, their seat elsewhere): a reaction every few seconds, not a stream."""
    reaction_burst: float = 4.0
    address_reactions_per_minute: float = 40.0
    """Reactions per address: a household of four people reacting at once stays under it."""
    address_reaction_burst: float = 12.0
    sockets: int = 20
    """Sockets open at once per address."""
    messages_per_second: float = 20.0
    """Socket messages per connection; a person sends a few a minute."""
    message_burst: float = 60.0
    strikes: int = 20
    """Messages over the rate a connection may send before it is closed."""


DEFAULT = Limits()

LOOKUP, CREATION, REQUEST, PROBE = "lookup", "creation", "request", "probe"
PROBES = frozenset({"/healthz", "/readyz", "/metrics"})
CREATIONS = re.compile(
    r"/api/(matches|rooms|sheets|players)|/api/(rooms|pools)/[^/]+/join|/api/challenge/play"
)
LOOKUPS = re.compile(r"/(api|ws)/(rooms|matches|sheets)/[^/]+(/.*)?")
CLOSED = 4429
"""The close code of a socket over the limits (also used for a flood of messages)."""


class Bucket:
    """A token bucket: ``rate`` a second, at most ``burst`` saved up."""

    __slots__ = ("burst", "level", "rate", "stamp")  # one per active address: kept small

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self.level, self.stamp = burst, time.monotonic()

    def take(self) -> bool:
        """Whether one more is allowed now (and take it)."""
        now = time.monotonic()
        self.level = min(self.burst, self.level + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.level < 1:
            return False
        self.level -= 1
        return True

    def wait(self) -> float:
        """Seconds until one more is allowed (after a refused ``take``)."""
        return max(0.0, (1 - self.level) / self.rate) if self.rate > 0 else math.inf

    def full(self, now: float) -> bool:
        """Whether it has filled up again: then it is the same as a new bucket."""
        return self.level + (now - self.stamp) * self.rate >= self.burst


MAX_ADDRESSES = 50_000
"""Addresses whose buckets one class of limits keeps at most (a few MB). Below it a bucket is
forgotten only once it has filled up again (the same as a new one), which keeps the addresses
active in the last minutes (a bucket refills within 2 minutes at the defaults); past it the
least recently active are forgotten too, and start again with a full bucket: only a client
with tens of thousands of addresses at once gains from that, and each of its addresses
already has a burst of its own."""


class PerAddress:
    """A bucket per address, forgetting the buckets that have filled up again (and, past
    ``MAX_ADDRESSES``, the least recently active)."""

    def __init__(self, rate: float, burst: float, most: int = MAX_ADDRESSES) -> None:
        self.rate, self.burst = rate, burst
        self.most = most
        self._buckets: dict[str, Bucket] = {}
        self._tidy_at = min(10_000, most)

    def take(self, address: str) -> float:
        """0 when ``address`` may make one more request now (counted), else seconds to wait."""
        if address not in self._buckets and len(self._buckets) >= self._tidy_at:
            # A full bucket behaves as a new one: forgetting it changes nothing, and keeps
            # the table to the addresses active in the last minutes. Tidied when the table has
            # doubled, so that many active addresses cost no more than once each.
            now = time.monotonic()
            kept = {a: b for a, b in self._buckets.items() if not b.full(now)}
            if len(kept) >= self.most:
                recent = sorted(kept.items(), key=lambda item: item[1].stamp)[-self.most // 2 :]
                kept = dict(recent)
            self._buckets = kept
            self._tidy_at = min(max(10_000, 2 * len(kept)), self.most)
        bucket = self._buckets.setdefault(address, Bucket(self.rate, self.burst))
        return 0.0 if bucket.take() else bucket.wait()

    def give_back(self, address: str) -> None:
        """Hand back the one just counted for ``address`` (what it was counted for was
        refused by another limit)."""
        bucket = self._buckets.get(address)
        if bucket is not None:
            bucket.level = min(bucket.burst, bucket.level + 1)

    def allow(self, address: str) -> bool:
        """Whether ``address`` may make one more request now (and count it)."""
        return self.take(address) == 0.0


def address_of(scope: Scope) -> str:
    """Who a request counts against: its peer's address (IPv6 by its /64)."""
    client = scope.get("client")
    host = str(client[0]) if client else "unknown"
    try:
        parsed = ipaddress.ip_address(host)
    except ValueError:
        return host  # a test client's name, a Unix socket
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:  # a dual-stack socket's IPv4 peer
            return str(parsed.ipv4_mapped)
        if parsed.is_loopback:
            return str(parsed)
        return str(ipaddress.ip_network(f"{parsed}/64", strict=False))
    return str(parsed)


def kind_of(scope: Scope) -> str:
    """The class of limits a request or socket is counted in."""
    path = str(scope.get("path", ""))
    if path in PROBES:
        return PROBE
    if scope["type"] == "http" and scope.get("method") == "POST" and CREATIONS.fullmatch(path):
        return CREATION
    if LOOKUPS.fullmatch(path):
        return LOOKUP
    return REQUEST


class RateLimits:
    """ASGI middleware: every request and socket counted against its address's limits."""

    def __init__(self, app: ASGIApp, limits: Limits = DEFAULT) -> None:
        self.app, self.limits = app, limits
        self.buckets = {
            LOOKUP: PerAddress(limits.lookups_per_minute / 60, limits.lookup_burst),
            CREATION: PerAddress(limits.creations_per_minute / 60, limits.creation_burst),
            REQUEST: PerAddress(limits.requests_per_minute / 60, limits.request_burst),
            PROBE: PerAddress(limits.probes_per_minute / 60, limits.probe_burst),
        }
        self.sockets: dict[str, int] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on, or answer it 429 (a socket: close it with 4429)."""
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        address = address_of(scope)
        wait = self.buckets[kind_of(scope)].take(address)
        if scope["type"] == "http":
            if wait:
                await _too_many(send, wait)
            else:
                await self.app(scope, receive, send)
            return
        if wait or self.sockets.get(address, 0) >= self.limits.sockets:
            await _refuse(receive, send, wait)
            return
        self.sockets[address] = self.sockets.get(address, 0) + 1
        try:
            await self.app(scope, receive, send)
        finally:
            left = self.sockets.pop(address) - 1
            if left:
                self.sockets[address] = left


def _seconds(wait: float) -> int:
    return max(1, math.ceil(min(wait, 86_400)))


async def _too_many(send: Send, wait: float) -> None:
    seconds = _seconds(wait)
    body = json.dumps(Refusal("rate", seconds=seconds).json()).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"retry-after", str(seconds).encode()),
    ]
    await send({"type": "http.response.start", "status": 429, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _refuse(receive: Receive, send: Send, wait: float) -> None:
    """Accept a socket only to say why it is closed (too many connections, or a wait of
    ``wait`` seconds): a page sees the code and the words."""
    if (await receive())["type"] != "websocket.connect":
        return
    refused = Refusal("rate", seconds=_seconds(wait)) if wait else Refusal("rate")
    text = str(refused)
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.send", "text": json.dumps(refused.message())})
    await send({"type": "websocket.close", "code": CLOSED, "reason": text[:120]})
