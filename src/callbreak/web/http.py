"""Small helpers shared by the web app's JSON endpoints."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse

from callbreak.bots.remote import BotAddresses
from callbreak.errors import CallbreakError
from callbreak.seating import is_remote

__all__ = ["MAX_BODY_BYTES", "BadRequest", "check_bots", "error", "read_json"]

MAX_BODY_BYTES = 64_000


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


def error(message: str, status: int = 400) -> JSONResponse:
    """A JSON error answer: ``{"error": message}``."""
    return JSONResponse({"error": message}, status)


async def check_bots(specs: Iterable[object], bots: BotAddresses) -> None:
    """Refuse (BadRequest) a remote bot among ``specs`` at an address ``bots`` do not allow,
    before anything is stored; the other specs are ``model.check_level``'s to read."""
    for spec in specs:
        if isinstance(spec, str) and is_remote(spec):
            try:
                await run_in_threadpool(bots.check, spec.strip())  # it may resolve a name
            except CallbreakError as error:
                raise BadRequest(str(error)) from None
