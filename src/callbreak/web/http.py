"""Small helpers shared by the web app's JSON endpoints (the one reader of a bearer token, the
bots a request may seat), and what every answer carries."""

from __future__ import annotations

import logging
from collections.abc import Iterable

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from callbreak.bots.remote import BotAddresses
from callbreak.errors import CallbreakError
from callbreak.refusals import Refusal, answer
from callbreak.seating import is_remote

__all__ = ["HEADERS", "Guarded", "bearer", "check_bots"]

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


def bearer(request: Request, held: str) -> str:
    """The token of the request's ``Authorization: Bearer T`` header; a Refusal (401) saying
    that it needs the token of what is ``held`` ("seat", "match", "sheet") when there is none."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Refusal("token_needed", held=held)
    return token.strip()


async def check_bots(specs: Iterable[object], bots: BotAddresses) -> None:
    """Refuse a remote bot among ``specs`` at an address ``bots`` do not allow,
    before anything is stored; the other specs are ``model.check_level``'s to read."""
    for spec in specs:
        if isinstance(spec, str) and is_remote(spec):
            try:
                await run_in_threadpool(bots.check, spec.strip())  # it may resolve a name
            except CallbreakError as error:
                raise Refusal("bot_not_allowed", detail=str(error)) from None


class Guarded:
    """ASGI middleware: the security headers on every answer, and a failure of ours answered
    500 as the refusal ``internal`` (the exception only in the log)."""

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
            await answer(Refusal("internal"))(scope, receive, sending)
