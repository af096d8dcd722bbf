"""The access log: one JSON line per HTTP request, per socket and per room event.

Lines go to the logger ``callbreak.access`` at INFO; ``callbreak serve --log-json`` writes them
(and the server's own errors) to stderr, one JSON object a line (:class:`JsonLines`). A line
never holds a token, a header, a query string, a request or answer body, a name a person typed,
nor any card: only the route's template and the path (whose ids and codes are no secret on
their own: a match needs its token, docs/deploy.md), the status, the time taken and the
client's address as the limits count it. ``tests/test_accesslog.py`` plays a room and a match
and finds none of the tokens used in any line.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from starlette.routing import BaseRoute, Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from callbreak.web.limits import address_of

__all__ = ["ACCESS", "JsonLines", "Logged", "room_event", "route_of"]

ACCESS = logging.getLogger("callbreak.access")
OTHER_ROUTE = "other"
"""The route of a request no route matched (a 404): one label and one word for every such path."""


def room_event(table_id: str, event: str, **fields: int | str | None) -> None:
    """Log one room (or match) event: ``joined``, ``left``, ``started``, ``finished``,
    ``covered``, ``rated`` or ``taken_over``, with fields of numbers and fixed words only (a
    seat, a reason, a status)."""
    if ACCESS.isEnabledFor(logging.INFO):
        ACCESS.info(
            "room %s", event, extra={"fields": {"table": table_id, "event": event} | fields}
        )


def route_of(routes: Sequence[BaseRoute], scope: Scope) -> str:
    """The template of the route a request goes to (``/api/rooms/{code}``), or
    :data:`OTHER_ROUTE`: a label never holds a path a visitor chose."""
    for route in routes:
        matched, _ = route.matches(scope)
        if matched == Match.FULL:
            path = getattr(route, "path", None)
            return path if isinstance(path, str) and path else OTHER_ROUTE
    return OTHER_ROUTE


class JsonLines(logging.Formatter):
    """Each record as one JSON object: time, level, logger, message, and the access log's
    fields; an exception's trace as one string field (still one line)."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as a line of JSON."""
        line: dict[str, Any] = {
            "time": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        fields = getattr(record, "fields", None)  # set by this module's own calls only
        if isinstance(fields, dict):
            line.update(fields)
        if record.exc_info:
            line["trace"] = self.formatException(record.exc_info)
        return json.dumps(line, separators=(",", ":"))


class Logged:
    """ASGI middleware: each HTTP request counted by route template, method and status
    (``Metrics.requests``) and logged as one line when it is answered; each socket logged when
    it ends, with its close code."""

    def __init__(
        self, app: ASGIApp, count: Callable[[str, str, str], None], routes: Sequence[BaseRoute]
    ) -> None:
        self.app, self.count, self.routes = app, count, routes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve the request, noting its answer."""
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status: int | None = None

        def noting(message: Message) -> Awaitable[None]:
            # A plain function handing on send's own awaitable: a socket's every message goes
            # through here, and a coroutine of ours around each cost the loop (py-spy).
            nonlocal status
            kind = message["type"]
            if kind == "websocket.send":
                return send(message)
            if kind in ("http.response.start", "websocket.http.response.start"):
                status = int(message["status"])
            elif kind == "websocket.close":
                status = int(message.get("code", 1000))
            return send(message)

        async def hearing() -> Message:
            nonlocal status
            message = await receive()
            if message["type"] == "websocket.disconnect" and status is None:
                status = int(message.get("code", 1005))  # the client closed it
            return message

        try:
            await self.app(scope, hearing if kind == "websocket" else receive, noting)
        finally:
            route = route_of(self.routes, scope)
            method = str(scope.get("method", "GET")) if kind == "http" else "WS"
            if kind == "http":
                self.count(route, method, str(status or 500))
            if ACCESS.isEnabledFor(logging.INFO):
                fields = {
                    "event": "http" if kind == "http" else "socket",
                    "method": method,
                    "route": route,
                    # The path only: a query string is never read by this app, so whatever a
                    # client puts there is not written down either.
                    "path": str(scope.get("path", ""))[:200],
                    "status": status,
                    "ms": round(1000 * (time.perf_counter() - started), 1),
                    "client": address_of(scope),
                }
                ACCESS.info("%s %s", method, route, extra={"fields": fields})
