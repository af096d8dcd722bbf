"""What the server does, for Prometheus: ``GET /metrics`` in its text format.

Each app has its own :class:`Metrics` with its own registry (never ``prometheus_client``'s
global one), so that a test or a benchmark can make several apps in one process and read each
alone. Labels take only values from small fixed sets (a route's template, never its path; a
level's name, never a remote bot's address; a store operation's name), so that no visitor can
make the server keep a new series per request.

Who may read it: nobody unless ``callbreak serve --metrics NETWORKS`` names the scraper's
address (docs/deploy.md, *Metrics*): the figures say how busy the server is and which levels
people choose, which is the operator's business, and the page is served on the public port.
"""

from __future__ import annotations

import functools
import ipaddress
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from starlette.requests import Request
from starlette.responses import Response

from callbreak.errors import CallbreakError
from callbreak.game import Call, ClaimRedeal, Play
from callbreak.refusals import Refusal, answer
from callbreak.seating import PlayerSpec
from callbreak.web.accesslog import room_event
from callbreak.web.actions import Stop
from callbreak.web.backend import Backend
from callbreak.web.model import FINISHED, STOPPED

if TYPE_CHECKING:
    from starlette.types import Scope

__all__ = [
    "DETACHED",
    "Metered",
    "Metrics",
    "Networks",
    "action_kind",
    "endpoint",
    "level_label",
]

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
"""An action to every state queued: milliseconds on one process, tens of them on Redis."""
DECISION_BUCKETS = (0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0)
"""A computer's decision: the casual levels in milliseconds, the expert up to its 2 s."""

COLLECTION_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
"""A full garbage collection: milliseconds on an idle server, half a second at 1,000 rooms."""
WAIT_BUCKETS = (0.5, 1.0, 2.0, 4.0, 6.0, 8.0, 9.0, 10.0, 12.0, 15.0, 20.0, 30.0, 60.0)
"""A pool's wait to a seat: at once when four wait, about the pool's wait (8 s) otherwise."""


class Metrics:
    """The app's figures, in a registry of their own."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.sockets = Gauge("callbreak_sockets_open", "WebSockets open now", registry=r)
        self.tables = Gauge(
            "callbreak_tables_live",
            "Matches and rooms with a connection in this process",
            ["kind"],
            registry=r,
        )
        self.actions = Counter(
            "callbreak_actions", "Actions stored and applied, by kind", ["kind"], registry=r
        )
        self.latency = Histogram(
            "callbreak_action_broadcast_seconds",
            "From an action taken to every connection's new state queued",
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.store_errors = Counter(
            "callbreak_store_errors",
            "Failures of the store (SQLite or Redis), by operation",
            ["operation"],
            registry=r,
        )
        self.decisions = Histogram(
            "callbreak_computer_decision_seconds",
            "Computer players' decisions, by level",
            ["level"],
            buckets=DECISION_BUCKETS,
            registry=r,
        )
        self.stand_ins = Counter(
            "callbreak_stand_in_decisions",
            "Decisions the stand-in made for a searching computer still being compiled",
            registry=r,
        )
        self.covers = Counter(
            "callbreak_cover_decisions",
            "Decisions the cover made for a person, by reason (away, timeout)",
            ["reason"],
            registry=r,
        )
        self.pool_waiting = Gauge(
            "callbreak_pool_waiting",
            "People waiting in a pool, at the last look of the process deciding for it",
            ["pool"],
            registry=r,
        )
        self.pool_wait = Histogram(
            "callbreak_pool_wait_seconds",
            "From joining a pool to a seat at a table",
            ["pool"],
            buckets=WAIT_BUCKETS,
            registry=r,
        )
        self.pool_tables = Counter(
            "callbreak_pool_tables_started",
            "Tables a pool started, by the people seated at the start (1-4)",
            ["pool", "people"],
            registry=r,
        )
        self.pool_takeovers = Counter(
            "callbreak_pool_seats_taken_over",
            "Computers' seats taken by people who joined a pool later (from the next deal)",
            ["pool"],
            registry=r,
        )
        self.collections = Histogram(
            "callbreak_full_collection_seconds",
            "Full garbage collections (web.collector): no table of the process moves meanwhile",
            buckets=COLLECTION_BUCKETS,
            registry=r,
        )
        self.requests = Counter(
            "callbreak_http_requests",
            "HTTP requests answered, by route template, method and status",
            ["route", "method", "status"],
            registry=r,
        )

    def count_tables(self, kinds: Callable[[], Iterable[str]]) -> None:
        """Read the live tables' kinds (``"match"``, ``"room"``) from ``kinds`` at each
        scrape: nothing to keep in step as tables come and go."""
        for kind in ("match", "room"):
            self.tables.labels(kind).set_function(
                lambda kind=kind: float(sum(1 for k in kinds() if k == kind))  # type: ignore[misc]
            )

    def requested(self, route: str, method: str, status: str) -> None:
        """An HTTP request to ``route`` was answered with ``status`` (``web.accesslog``)."""
        self.requests.labels(route, method, status).inc()

    def acted(self, action: object, started: float, table_id: str, status: str) -> None:
        """An action was stored and every connection's state queued (``started``: when it was
        taken, ``time.perf_counter``), leaving its table in ``status``: the access log hears
        of the match it ended."""
        self.actions.labels(action_kind(action)).inc()
        self.latency.observe(time.perf_counter() - started)
        if status in (FINISHED, STOPPED):
            room_event(table_id, "finished", status=status)

    def decided(self, level: str | None, seconds: float) -> None:
        """A computer of ``level`` (its spec) decided in ``seconds``."""
        self.decisions.labels(level_label(level)).observe(seconds)

    def text(self) -> bytes:
        """The figures in Prometheus' text format."""
        return generate_latest(self.registry)


DETACHED = Metrics()
"""Figures nobody reads: for a table made outside an app (tests, scripts)."""


def action_kind(action: object) -> str:
    """call, play, redeal or stop."""
    if isinstance(action, Stop):
        return "stop"
    if isinstance(action, Call):
        return "call"
    if isinstance(action, Play):
        return "play"
    return "redeal" if isinstance(action, ClaimRedeal) else "other"


@functools.lru_cache(maxsize=256)
def level_label(level: str | None) -> str:
    """A computer's level as a label: the level's name, "remote" for any remote bot (whose
    address is the operator's allowed list, not a figure), "other" for what cannot be read.
    Kept for the specs seen last: read once per decision otherwise."""
    if level is None:
        return "other"
    try:
        spec = PlayerSpec.parse(level)
    except CallbreakError:
        return "other"
    return "remote" if spec.remote else spec.name


class Networks:
    """The addresses allowed to read ``/metrics`` (``callbreak serve --metrics``)."""

    def __init__(self, networks: Iterable[str] = ()) -> None:
        self.networks = [ipaddress.ip_network(text.strip(), strict=False) for text in networks]

    def __bool__(self) -> bool:
        return bool(self.networks)

    def allow(self, scope: Scope) -> bool:
        """Whether the request's client (as the limits count it: the peer, or the client a
        trusted proxy names) is in one of the networks."""
        client = scope.get("client")
        if not client:
            return False
        try:
            address = ipaddress.ip_address(str(client[0]))
        except ValueError:
            return False
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        return any(address in network for network in self.networks)


def endpoint(metrics: Metrics, allowed: Networks) -> Callable[[Request], Any]:
    """``GET /metrics``: the figures for an allowed address, 404 for anyone else (the same
    answer as a server without metrics: nothing to learn by asking)."""

    async def serve(request: Request) -> Response:
        if not allowed.allow(request.scope):
            return answer(Refusal("not_found"))
        return Response(metrics.text(), media_type=CONTENT_TYPE_LATEST)

    return serve


OPERATIONS = {
    "create": "create",
    "load": "load",
    "save": "save",
    "append": "append",
    "tables": "tables",
    "publish": "publish",
    "set_presence": "presence",
    "presence": "presence",
    "lease": "lease",
    "release": "lease",
    "look": "look",
    "restore": "restore",
    "expire": "expire",
    "expire_sheets": "expire",
    "ping": "ping",
    "create_sheet": "sheet",
    "sheet": "sheet",
    "sheets": "sheet",
    "update_sheet": "sheet",
    "create_profile": "profile",
    "profile": "profile",
    "profile_of": "profile",
    "profiles": "profile",
    "update_profile": "profile",
    "wait": "pool",
    "unwait": "pool",
    "place": "pool",
    "waiting": "pool",
    "take": "pool",
    "placed": "pool",
    "offer": "pool",
    "offers": "pool",
    "withdraw": "pool",
    "settle": "rating",
    "rating": "rating",
    "leaderboard": "rating",
    "rank": "rating",
    "rating_history": "rating",
    "tally": "profile",
    "plays": "profile",
    "touch_profile": "profile",
    "expire_profiles": "expire",
    "secret": "challenge",
    "begin_attempt": "challenge",
    "attempt": "challenge",
    "attempts": "challenge",
    "update_attempt": "challenge",
    "expire_attempts": "expire",
}
"""The backend's methods whose failures are counted, each under its operation's label
(``callbreak_store_errors_total{operation}``, docs/deploy.md); any other passes through."""


class Metered:
    """A backend that counts its failures by operation, doing nothing else differently: each
    method of :data:`OPERATIONS` is the wrapped backend's own, counted when it raises one of
    the backend's ``failures``; everything else (``shared``, ``events``, ``close``...) is the
    wrapped backend's as it is. One wrapper for every method, so that a method added to the
    store's interface needs no wrapper of its own."""

    def __init__(self, backend: Backend, metrics: Metrics) -> None:
        self.inner = backend
        self.metrics = metrics

    def __getattr__(self, name: str) -> Any:
        """The wrapped backend's attribute, a method of :data:`OPERATIONS` counted (made once
        per method, then kept on the wrapper)."""
        value = getattr(self.inner, name)
        operation = OPERATIONS.get(name)
        if operation is None:
            return value
        failures, errors = self.inner.failures, self.metrics.store_errors

        @functools.wraps(value)
        async def counted(*args: Any, **kwargs: Any) -> Any:
            try:
                return await value(*args, **kwargs)
            except failures:
                errors.labels(operation).inc()
                raise

        setattr(self, name, counted)
        return counted
