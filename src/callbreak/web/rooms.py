"""The rooms' HTTP API: create, join, seat a computer, move, start, leave (see docs/rooms.md).

Requests for a seat carry its token as ``Authorization: Bearer T``. Creating, joining and
looking rooms up are limited per address by the app's ``web.limits.RateLimits``, so that nobody
can fill a server with rooms or try codes quickly.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from callbreak.web.accesslog import room_event
from callbreak.web.export import replay_data
from callbreak.web.http import BadRequest, answered, bearer, check_bots, read_json
from callbreak.web.limits import DEFAULT, Limits
from callbreak.web.model import (
    DEFAULT_COVER,
    DEFAULT_TURN_SECONDS,
    RoomError,
    TableData,
    fill,
    join,
    leave,
    move,
    open_seat,
    start,
)
from callbreak.web.tables import Table, Tables
from callbreak.web.view import lobby_json

__all__ = ["routes"]

T = TypeVar("T")


def routes(tables: Tables, limits: Limits = DEFAULT) -> list[Route]:
    """The ``/api/rooms`` routes over ``tables``; ``limits`` say which remote bots may sit."""

    async def room(request: Request) -> Table:
        table = await tables.get(request.path_params["code"].upper())
        if table is None or not table.state.is_room:
            raise RoomError("no such room", 404)
        await table.catch_up()  # another process may have changed it
        return table

    def as_creator(request: Request, change: Callable[[TableData], T]) -> Callable[[TableData], T]:
        """``change``, made only when the request's token holds seat 0 in the very copy of
        the room it changes (a check on an earlier copy could be a lobby change behind)."""
        token = bearer(request, "your seat token")

        def checked(data: TableData) -> T:
            if _holder(data, token) != 0:
                raise RoomError("only the room's creator can do that", 403)
            return change(data)

        return checked

    async def body_of(request: Request) -> dict[str, Any]:
        body = await read_json(request)
        if not isinstance(body, dict):
            raise BadRequest("the body must be a JSON object")
        return body

    async def create(request: Request) -> Response:
        body = await body_of(request)
        rules = body.get("rules", "strict")
        if not isinstance(rules, str):
            raise BadRequest("rules must be text, such as 'strict' or 'classic(deals=10)'")
        seats = body.get("seats", [None, None, None])
        if not isinstance(seats, list) or len(seats) != 3:
            raise BadRequest("seats lists seats 1-3: null for a person, or a computer level")
        if "seed" in body:
            # Whoever chose the seed would know every hand: the server draws it, and the
            # record shows it once the match is over.
            raise BadRequest("a room's deals are drawn by the server: leave out the seed")
        cover = body.get("cover", DEFAULT_COVER)
        await check_bots([*seats, cover], limits.bots)
        table, token = await tables.create_room(
            rules,
            body.get("name"),
            seats,
            turn_seconds=body.get("turn_seconds", DEFAULT_TURN_SECONDS),
            cover=cover,
            speed=body.get("speed", "normal"),
        )
        room_event(table.id, "created", seat=0)
        return JSONResponse({"room": table.id, "seat": 0, "token": token}, 201)

    async def lobby(request: Request) -> Response:
        table = await room(request)
        await table.refresh_presence()
        return JSONResponse(lobby_json(table.state))

    async def join_room(request: Request) -> Response:
        table = await room(request)
        name = (await body_of(request)).get("name")
        seat, token = await table.change(lambda data: join(data, name))
        room_event(table.id, "joined", seat=seat)
        return JSONResponse({"seat": seat, "token": token})

    async def seat_change(request: Request) -> Response:
        table = await room(request)
        bearer(request, "your seat token")
        body = await body_of(request)
        seat = _seat_number(request.path_params["seat"])
        if body.get("open") is True:
            await table.change(as_creator(request, lambda data: open_seat(data, seat)))
        elif "level" in body:
            await check_bots([body["level"]], limits.bots)
            await table.change(as_creator(request, lambda data: fill(data, seat, body["level"])))
        else:
            raise BadRequest('send {"level": "expert"} to seat a computer or {"open": true}')
        return JSONResponse(lobby_json(table.state))

    async def move_seats(request: Request) -> Response:
        table = await room(request)
        bearer(request, "your seat token")
        body = await body_of(request)
        await table.change(
            as_creator(request, lambda data: move(data, body.get("from"), body.get("to")))
        )
        return JSONResponse(lobby_json(table.state))

    async def start_room(request: Request) -> Response:
        table = await room(request)
        await table.change(as_creator(request, start))
        room_event(table.id, "started")
        return JSONResponse(lobby_json(table.state))

    async def leave_room(request: Request) -> Response:
        table = await room(request)
        token = bearer(request, "your seat token")
        # The seat is looked up in the copy the change is made on: a move in between must not
        # make another person leave.
        seat = await table.change(lambda data: _left(data, token))
        room_event(table.id, "left", seat=seat)
        return JSONResponse(lobby_json(table.state))

    async def record(request: Request) -> Response:
        table = await room(request)
        text = json.dumps(table.record(), indent=1)
        disposition = f'attachment; filename="callbreak-room-{table.id}.json"'
        return Response(
            text, media_type="application/json", headers={"Content-Disposition": disposition}
        )

    async def replay(request: Request) -> Response:
        table = await room(request)
        data = table.record()
        return JSONResponse(replay_data(data, table.state.data.name_keys))

    return [
        Route("/api/rooms", answered(create), methods=["POST"]),
        Route("/api/rooms/{code}", answered(lobby), methods=["GET"]),
        Route("/api/rooms/{code}/join", answered(join_room), methods=["POST"]),
        Route("/api/rooms/{code}/seats/{seat}", answered(seat_change), methods=["POST"]),
        Route("/api/rooms/{code}/move", answered(move_seats), methods=["POST"]),
        Route("/api/rooms/{code}/start", answered(start_room), methods=["POST"]),
        Route("/api/rooms/{code}/leave", answered(leave_room), methods=["POST"]),
        Route("/api/rooms/{code}/record", answered(record), methods=["GET"]),
        Route("/api/rooms/{code}/replay", answered(replay), methods=["GET"]),
    ]


def _left(data: TableData, token: str) -> int:
    """The token's holder leaves this copy of the room; the seat they left."""
    seat = _holder(data, token)
    leave(data, seat)
    return seat


def _holder(data: TableData, token: str) -> int:
    """The seat ``token`` holds in this copy of the room; 401 when none."""
    seat = data.seat_of(token)
    if seat is None:
        raise RoomError("that token holds no seat in this room", 401)
    return seat


def _seat_number(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or not 0 <= int(text) <= 3:
        raise RoomError(f"a seat is 0-3, not {text!r}")
    return int(text)
