"""A graceful shutdown: hand the rooms over and let the people reconnect elsewhere.

On SIGTERM uvicorn stops listening, closes every WebSocket with code 1012 ("service restart",
RFC 6455's registry: :data:`RESTARTING`), waits for the requests in flight and then runs the
app's lifespan shutdown. ``callbreak serve`` runs :meth:`Drain.start` first, when uvicorn's
shutdown begins (``cli._Server``), so that by the time the sockets close:

- this process takes no new socket and no change (a new match, room or scoresheet, a join, a
  seat change, a scoresheet entry: 503 "the server is restarting" with Retry-After, and
  ``/readyz`` says so: a load balancer sends nobody new). A change taken now could start a
  table's driver again on a process that has just given up its leases; the person's page
  repeats it on the process it reconnects to;
- its tables' drivers (computers, clocks, the cover) are stopped and the leases it holds on
  them given up (each tried again while Redis fails: restarting, or its connections dead after
  a restart), so that the process the people reconnect to takes each room over at once, not
  when the lease would have run out (``tasks.LEASE_SECONDS``).

A browser that sees 1012 reconnects at once without showing an error (``static/table.js``);
behind a load balancer it reaches another process, which serves the same rooms from Redis. The
whole shutdown is bounded by ``--drain-seconds``: what is not done by then is cut off.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from functools import partial

from starlette.types import ASGIApp, Receive, Scope, Send

from callbreak.refusals import Refusal
from callbreak.web.backend import OWNER, retried
from callbreak.web.http import LOG
from callbreak.web.tables import Tables

__all__ = ["RESTARTING", "Drain", "Draining"]

RESTARTING = 1012
"""The close code of every socket when the server shuts down: reconnect (elsewhere)."""
READS = frozenset({"GET", "HEAD", "OPTIONS"})
READ_POSTS = frozenset({"/api/matches/mine", "/api/sheets/mine", "/api/stats"})
"""Requests sent as POST only so that their tokens travel in the body: they read, and are
answered while draining like any other read. So are the scoresheet's checks (a path ending in
``/check``: an entry checked, nothing stored)."""


def changes(scope: Scope) -> bool:
    """Whether an HTTP request may change something (and so is refused while draining)."""
    path = str(scope.get("path", ""))
    reads = path in READ_POSTS or path.endswith("/check")
    return scope.get("method") not in READS and not reads


class Drain:
    """Whether this process is shutting down, and the steps that hand its tables over."""

    def __init__(self, tables: Tables) -> None:
        self.tables = tables
        self.draining = False

    async def start(self) -> None:
        """Take nothing new; stop every table's driver and give up its lease. Bounded by the
        caller (``asyncio.timeout``): a store out of reach must not hold the shutdown up."""
        self.draining = True
        live = list(self.tables.live.values())
        for table in live:
            table.halt()
        backend = self.tables.backend
        if not backend.shared:
            return  # one process: nobody takes a table over
        # Every live table, not only the driven ones: a lease is given up only by its holder,
        # so asking of a table this process does not drive changes nothing. Each is tried
        # again while the store fails (Redis restarting, or its connections found dead after
        # a restart), for as long as the caller's bound allows: giving up a lease twice is
        # giving it up once.
        results = await asyncio.gather(
            *(retried(backend, partial(backend.release, table.id, OWNER)) for table in live),
            return_exceptions=True,
        )
        failed = [result for result in results if isinstance(result, Exception)]
        if failed:
            LOG.warning("%d leases could not be given up at shutdown: %r", len(failed), failed[0])


class Draining:
    """ASGI middleware: while the process drains, a new socket is closed with
    :data:`RESTARTING` and every change is refused with 503 (reads are still answered)."""

    def __init__(self, app: ASGIApp, drain: Drain) -> None:
        self.app, self.drain = app, drain

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on unless the process is shutting down."""
        if not self.drain.draining:
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            if (await receive())["type"] != "websocket.connect":
                return
            await send({"type": "websocket.accept"})
            with contextlib.suppress(Exception):
                await send({"type": "websocket.close", "code": RESTARTING, "reason": "restart"})
            return
        if scope["type"] == "http" and changes(scope):
            body = json.dumps(Refusal("restarting").json()).encode()
            headers = [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"retry-after", b"2"),
            ]
            await send({"type": "http.response.start", "status": 503, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)
