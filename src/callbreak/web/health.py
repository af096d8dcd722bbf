"""Is the process alive, and is it ready for people: ``GET /healthz`` and ``GET /readyz``.

``/healthz`` answers 200 ``{"status": "alive"}`` from the event loop alone: it touches no store,
so a load balancer or a service manager that restarts a process on its failure never restarts
one for a store that is down (a restart would not bring Redis back). ``/readyz`` answers 200
``{"status": "ready"}`` when the process can serve a table now: the store answers (a SQLite
query, a Redis PING, within ``STORE_SECONDS``), the computers can decide without waiting for a
first start's compiler (``warmup.serving``), and the process is not shutting down; otherwise 503
``{"status": "not ready", "reason": ...}``: a load balancer sends nobody new there meanwhile.

Both are polled, so both are cheap: the readiness found is kept ``KEEP_SECONDS``, so that
however often anyone asks, the store is asked at most once in that time; their rate limit is a
class of its own (``web.limits``, *probes*).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from callbreak.warmup import serving
from callbreak.web.backend import Backend
from callbreak.web.http import LOG
from callbreak.web.metrics import Metrics
from callbreak.web.store import Store

__all__ = ["Health"]

STORE_SECONDS = 1.0
"""How long the store may take to answer before the process counts as not ready."""
KEEP_SECONDS = 1.0
"""How long a readiness found is given again without asking the store."""
CACHE_CONTROL = {"Cache-Control": "no-store"}


class Health:
    """The two probes of one app."""

    def __init__(
        self, backend: Backend, store: Store, draining: Callable[[], bool], metrics: Metrics
    ) -> None:
        self.backend = backend
        self.store = store
        self.metrics = metrics
        self.draining = draining
        self._found: tuple[float, str | None] | None = None
        self._asking = asyncio.Lock()

    async def reason(self) -> str | None:
        """Why the process is not ready (None: it is)."""
        if self.draining():
            return "the server is restarting"  # never cached: a load balancer hears at once
        if not serving():
            return "the computer players are loading"
        loop = asyncio.get_running_loop()
        async with self._asking:  # one question to the store at a time, whoever polls
            if self._found is not None and loop.time() - self._found[0] < KEEP_SECONDS:
                return self._found[1]
            reason = await self._store_reason()
            self._found = (loop.time(), reason)
            return reason

    async def _store_reason(self) -> str | None:
        try:
            await asyncio.wait_for(self.backend.ping(), STORE_SECONDS)
            if self.backend.shared:  # the sheets kept in SQLite before they moved to Redis
                await asyncio.wait_for(_sqlite_ping(self.store), STORE_SECONDS)
        except TimeoutError:  # a failure is counted by the backend (web.metrics.Metered)
            self.metrics.store_errors.labels("ping").inc()
            return "the store does not answer"
        except Exception as error:  # which and why goes to the log, not to whoever polls
            LOG.warning("readiness: the store failed: %r", error)
            return "the store does not answer"
        return None

    def routes(self) -> list[Route]:
        """``/healthz`` and ``/readyz``."""

        async def alive(_request: Request) -> JSONResponse:
            return JSONResponse({"status": "alive"}, headers=CACHE_CONTROL)

        async def ready(_request: Request) -> JSONResponse:
            reason = await self.reason()
            body: dict[str, Any] = {"status": "ready"}
            if reason is not None:
                body = {"status": "not ready", "reason": reason}
            return JSONResponse(body, 200 if reason is None else 503, headers=CACHE_CONTROL)

        return [Route("/healthz", alive), Route("/readyz", ready)]


async def _sqlite_ping(store: Store) -> None:
    def query() -> None:
        with store.transaction() as db:
            db.execute("SELECT 1").fetchone()

    await asyncio.to_thread(query)
