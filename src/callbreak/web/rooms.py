"""The rooms' HTTP API: create, join, seat a computer, move, start, leave (see docs/rooms.md).

Requests for a seat carry its token as ``Authorization: Bearer T``. Creating, joining and
looking rooms up are limited per address by the app's ``web.limits.RateLimits``, so that nobody
can fill a server with rooms or try codes quickly.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TypeVar

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from callbreak.refusals import Refusal, read_object
from callbreak.web.accesslog import room_event
from callbreak.web.export import record_of, replay_data
from callbreak.web.http import LOG, bearer, check_bots
from callbreak.web.limits import DEFAULT, Limits, address_of
from callbreak.web.model import (
    DEFAULT_COVER,
    DEFAULT_TURN_SECONDS,
    FINISHED,
    STOPPED,
    TableData,
    fill,
    join,
    leave,
    move,
    open_seat,
    start,
)
from callbreak.web.reviews import Reviews
from callbreak.web.standings import rate_finished
from callbreak.web.state import replay
from callbreak.web.tables import LiveTable, Tables
from callbreak.web.view import lobby_json

__all__ = ["routes"]

T = TypeVar("T")


def routes(tables: Tables, limits: Limits = DEFAULT, reviews: Reviews | None = None) -> list[Route]:
    """The ``/api/rooms`` routes over ``tables``; ``limits`` say which remote bots may sit;
    ``reviews`` review a finished room for a seat (none: the room's review is not found)."""

    async def room(request: Request) -> LiveTable:
        table = await tables.get(request.path_params["code"].upper())
        if table is None or not table.state.is_room:
            raise Refusal("no_such_room")
        await table.catch_up()  # another process may have changed it
        return table

    def as_creator(request: Request, change: Callable[[TableData], T]) -> Callable[[TableData], T]:
        """``change``, made only when the request's token holds seat 0 in the very copy of
        the room it changes (a check on an earlier copy could be a lobby change behind)."""
        token = bearer(request, "seat")

        def checked(data: TableData) -> T:
            if data.public is not None:
                # The server seats a pool's table: its seat 0 is a stranger like the others.
                raise Refusal("public_table")
            if _holder(data, token) != 0:
                raise Refusal("creator_only")
            return change(data)

        return checked

    async def create(request: Request) -> Response:
        body = await read_object(request)
        rules = body.get("rules", "strict")
        if not isinstance(rules, str):
            raise Refusal("rules_not_text")
        seats = body.get("seats", [None, None, None])
        if not isinstance(seats, list) or len(seats) != 3:
            raise Refusal("seats_list")
        if "seed" in body:
            # Whoever chose the seed would know every hand: the server draws it, and the
            # record shows it once the match is over.
            raise Refusal("room_seed")
        cover = body.get("cover", DEFAULT_COVER)
        await check_bots([*seats, cover], limits.bots)
        table, token = await tables.create_room(
            rules,
            body.get("name"),
            seats,
            address_of(request.scope),  # whom its computers' searches count against
            turn_seconds=body.get("turn_seconds", DEFAULT_TURN_SECONDS),
            cover=cover,
            speed=body.get("speed", "normal"),
        )
        room_event(table.id, "created", seat=0)
        return JSONResponse({"room": table.id, "seat": 0, "token": token}, 201)

    async def lobby(request: Request) -> Response:
        table = await room(request)
        await table.refresh()
        return JSONResponse(lobby_json(table.state))

    async def join_room(request: Request) -> Response:
        table = await room(request)
        name = (await read_object(request)).get("name")
        seat, token = await table.change(lambda data: join(data, name))
        room_event(table.id, "joined", seat=seat)
        return JSONResponse({"seat": seat, "token": token})

    async def seat_change(request: Request) -> Response:
        table = await room(request)
        bearer(request, "seat")
        body = await read_object(request)
        seat = _seat_number(request.path_params["seat"])
        if body.get("open") is True:
            await table.change(as_creator(request, lambda data: open_seat(data, seat)))
        elif "level" in body:
            await check_bots([body["level"]], limits.bots)
            await table.change(as_creator(request, lambda data: fill(data, seat, body["level"])))
        else:
            raise Refusal("seat_change")
        return JSONResponse(lobby_json(table.state))

    async def move_seats(request: Request) -> Response:
        table = await room(request)
        bearer(request, "seat")
        body = await read_object(request)
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
        token = bearer(request, "seat")
        # The seat is looked up in the copy the change is made on: a move in between must not
        # make another person leave.
        seat = await table.change(lambda data: _left(data, token))
        room_event(table.id, "left", seat=seat)
        if table.state.data.public is not None:
            # The last person at a pool's table gone: it is played no further, so it is rated
            # now (web.standings); a store out of reach leaves it to their next status poll.
            try:
                await rate_finished(table.backend, table.state.data)
            except table.backend.failures:
                LOG.warning("table %s: the rating waits for the store", table.id)
        return JSONResponse(lobby_json(table.state))

    async def record(request: Request) -> Response:
        table = await room(request)
        text = json.dumps(record_of(table.state), indent=1)
        disposition = f'attachment; filename="callbreak-room-{table.id}.json"'
        return Response(
            text, media_type="application/json", headers={"Content-Disposition": disposition}
        )

    async def replay(request: Request) -> Response:
        table = await room(request)
        data = record_of(table.state)
        return JSONResponse(replay_data(data, table.state.data.name_keys_in(0)))

    async def review(request: Request) -> Response:
        # Only the seat the request's token holds now, and only once the match is over: the
        # review's hindsight reads every hand (web.reviews).
        table = await room(request)
        seat = _holder(table.state.data, bearer(request, "seat"))
        if reviews is None:
            raise Refusal("not_found")
        if table.state.data.status not in (FINISHED, STOPPED):
            raise Refusal("review_playing")
        # A code is free again once its room is gone: the room's creation tells two apart.
        key = (f"room:{table.id}@{table.state.data.created}", seat)
        if request.method == "POST":
            return JSONResponse(reviews.start(key, record_of(table.state), seat))
        return JSONResponse(reviews.status(key))

    return [
        Route("/api/rooms", create, methods=["POST"]),
        Route("/api/rooms/{code}", lobby, methods=["GET"]),
        Route("/api/rooms/{code}/join", join_room, methods=["POST"]),
        Route("/api/rooms/{code}/seats/{seat}", seat_change, methods=["POST"]),
        Route("/api/rooms/{code}/move", move_seats, methods=["POST"]),
        Route("/api/rooms/{code}/start", start_room, methods=["POST"]),
        Route("/api/rooms/{code}/leave", leave_room, methods=["POST"]),
        Route("/api/rooms/{code}/record", record, methods=["GET"]),
        Route("/api/rooms/{code}/replay", replay, methods=["GET"]),
        Route("/api/rooms/{code}/review", review, methods=["GET", "POST"]),
    ]


def _left(data: TableData, token: str) -> int:
    """The token's holder leaves this copy of the room; the seat they left (a seat taken over
    from a computer goes back to it before the person's first deal: the deal is read)."""
    seat = _holder(data, token)
    deal = len(replay(data).deals) - 1 if data.seats[seat].since else 0
    leave(data, seat, deal)
    return seat


def _holder(data: TableData, token: str) -> int:
    """The seat ``token`` holds in this copy of the room; 401 when none."""
    seat = data.seat_of(token)
    if seat is None:
        raise Refusal("not_seated")
    return seat


def _seat_number(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or not 0 <= int(text) <= 3:
        raise Refusal("bad_seat", seat=text)
    return int(text)
