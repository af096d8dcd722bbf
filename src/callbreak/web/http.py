"""Small helpers shared by the web app's JSON endpoints, and what every answer carries."""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from callbreak.bots.remote import BotAddresses
from callbreak.errors import CallbreakError
from callbreak.seating import is_remote

__all__ = [
    "COULD_NOT",
    "COULD_NOT_SAVE",
    "HEADERS",
    "MAX_BODY_BYTES",
    "BadRequest",
    "Guarded",
    "answered",
    "bearer",
    "check_bots",
    "error",
    "read_json",
]

MAX_BODY_BYTES = 64_000
COULD_NOT = "the server could not do that; try again"
"""What a client is told of a failure of ours: the detail goes to the log, never to them."""
COULD_NOT_SAVE = "the server could not save that; try again"
"""What a client is told when the store (SQLite, Redis) failed."""
LOG = logging.getLogger("callbreak.web")

# The pages load only the app's own scripts, styles and sockets: no inline script or style, no
# other site, no frame around them (clickjacking), and no Referer, as invite links carry room
# codes. Styles set from scripts through element.style are not inline styles to CSP.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; "
    "object-src 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}


class BadRequest(CallbreakError):
    """A request the API cannot take; answered with ``status`` (400 unless said) and why."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


async def read_json(request: Request) -> Any:
    """The request's JSON body; BadRequest when it is over 64 kB or not JSON."""
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY_BYTES):
        raise BadRequest(f"the body is over {MAX_BODY_BYTES} bytes", 413)
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY_BYTES:
            raise BadRequest(f"the body is over {MAX_BODY_BYTES} bytes", 413)
    # Only a JSON content type: a form or text/plain post from another site's page (which a
    # browser sends without asking) is refused.
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise BadRequest("send the body as JSON, with Content-Type: application/json")
    try:
        return json.loads(body)
    except (ValueError, RecursionError):  # bad JSON or UTF-8, numbers of thousands of digits
        raise BadRequest("the body is not JSON") from None


def bearer(request: Request, what: str) -> str:
    """The token of the request's ``Authorization: Bearer T`` header; BadRequest (401) saying
    that it needs ``what`` (such as "your seat token") when there is none."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise BadRequest(f"this needs {what}: Authorization: Bearer TOKEN", 401)
    return token.strip()


def error(message: str, status: int = 400, code: str | None = None) -> JSONResponse:
    """A JSON error answer: ``{"error": message}``, with ``"code"`` when given."""
    return JSONResponse({"error": message} | ({"code": code} if code else {}), status)


async def check_bots(specs: Iterable[object], bots: BotAddresses) -> None:
    """Refuse (BadRequest) a remote bot among ``specs`` at an address ``bots`` do not allow,
    before anything is stored; the other specs are ``model.check_level``'s to read."""
    for spec in specs:
        if isinstance(spec, str) and is_remote(spec):
            try:
                await run_in_threadpool(bots.check, spec.strip())  # it may resolve a name
            except CallbreakError as error:
                raise BadRequest(str(error)) from None


class Guarded:
    """ASGI middleware: the security headers on every answer, and a failure of ours answered
    500 with :data:`COULD_NOT` (the exception only in the log)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one request through the app, adding the headers."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                message.setdefault("headers", [])
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS.items():
                    headers[name] = value
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception:
            LOG.exception("%s %s failed", scope.get("method"), scope.get("path"))
            if started:  # half an answer is out: only dropping the connection says it failed
                raise
            await error(COULD_NOT, 500, "internal")(scope, receive, sending)


def answered(handler: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Any]:
    """``handler`` with a refusal it raises (BadRequest, or another CallbreakError: 400)
    answered as a JSON error."""

    async def answer(request: Request) -> Response:
        try:
            return await handler(request)
        except BadRequest as problem:
            return error(str(problem), problem.status)
        except CallbreakError as problem:
            return error(str(problem))

    return answer
