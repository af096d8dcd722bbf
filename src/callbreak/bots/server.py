"""Serve one of our players as a bot that speaks the Bhoos protocol.

Each request carries everything the seat may know, so the server keeps no game state: it
rebuilds the seat's observation from the body (:mod:`callbreak.bots.protocol`), asks the player,
and answers. Bad requests get a 400 with a JSON error, as the web app's refusals are
(:mod:`callbreak.refusals`: the same body reader and exception handler); the server keeps
serving whatever comes.
"""

from __future__ import annotations

import threading
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from callbreak.bots.protocol import ProtocolError, card_text, observation_from_body
from callbreak.game import Call, Observation, Play
from callbreak.players.timing import share
from callbreak.refusals import HANDLERS, Refusal, read_json
from callbreak.rules import BHOOS, Rules
from callbreak.seating import decide, make_player

__all__ = ["create_app", "serve"]

# Each request left in the round keeps this much for the network and the host's own clock, and
# of the rest the decisions spend at most this part (the searches' clocks stop them a little
# late at worst).
SHARE_USED = 0.6
NETWORK_MARGIN = 0.03


class _Bot:
    """A player behind a lock (one decision at a time), limited per request by its share of
    the round's remaining time: forced cards take nothing, calls and early cards with real
    choices the most (:func:`callbreak.players.timing.share`)."""

    def __init__(self, spec: str) -> None:
        self.player = make_player(spec)
        self.lock = threading.Lock()

    def decide(self, observation: Observation, time_left_ms: float, decisions_left: int) -> Any:
        usable = max(0.0, time_left_ms / 1000 - NETWORK_MARGIN * max(decisions_left, 1))
        limit = max(0.01, share(observation, usable * SHARE_USED))
        with self.lock:
            action = decide(self.player, observation, time=limit).action
        if isinstance(action, Call):
            return action.value
        assert isinstance(action, Play)  # the protocol has no redeal claim to offer
        return card_text(action.card)


def create_app(spec: str, rules: Rules = BHOOS) -> Starlette:
    """The ASGI app of a bot playing as ``spec`` under ``rules``."""
    bot = _Bot(spec)

    async def hi(_request: Request) -> JSONResponse:
        return JSONResponse({"value": "hello"})

    async def decide(request: Request, kind: str) -> JSONResponse:
        # The protocol's hosts need not say the body's type: any body is read as JSON.
        body = await read_json(request, json_only=False)
        try:
            observation = observation_from_body(body, kind, rules)
        except ProtocolError as error:
            raise Refusal("protocol", detail=str(error)) from None
        budget = body["timeBudget"]
        left = 14 if kind == "bid" else len(observation.hand)
        try:
            value = await run_in_threadpool(bot.decide, observation, budget, left)
        except Exception as error:  # the player failed; say so and keep serving
            raise Refusal("bot_failed", detail=f"{type(error).__name__}: {error}") from None
        return JSONResponse({"value": value})

    async def bid(request: Request) -> JSONResponse:
        return await decide(request, "bid")

    async def play(request: Request) -> JSONResponse:
        return await decide(request, "play")

    return Starlette(
        routes=[
            Route("/hi", hi, methods=["GET"]),
            Route("/bid", bid, methods=["POST"]),
            Route("/play", play, methods=["POST"]),
        ],
        exception_handlers=HANDLERS,
    )


def serve(spec: str, host: str = "127.0.0.1", port: int = 7000, rules: Rules = BHOOS) -> None:
    """Serve ``spec`` on ``host:port`` until interrupted."""
    import uvicorn

    app = create_app(spec, rules)
    print(f"serving {spec} as a Bhoos-protocol bot on http://{host}:{port} ({rules})", flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
