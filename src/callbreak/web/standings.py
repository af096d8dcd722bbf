"""Ratings of finished public matches, and the pools' leaderboards (docs/public.md, *Ratings*).

A pool's table (``web.pools``) carries its pool and each seat's profile in its settings
(``settings["public"]``). Once it is finished, :func:`rate_finished` reads who held each seat
and the places from the stored table and has the backend rate it (``Backend.settle``: once per
match, whichever process and however many see the end). A seat whose person left for good is
rated last, whoever played it afterwards; a computer's seat counts at its level's fixed rating;
a computer's seat a person took over rates them only if they played at least half the deals
(:func:`rated_for`).

The leaderboard of a pool (``GET /api/pools/{pool}/leaderboard``) lists the ratings that are not
provisional, best first, with each profile's public name and avatar; a request carrying a
profile's token is answered that person's place too.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from callbreak.ratings import Computer, Outcome, Person
from callbreak.refusals import Refusal
from callbreak.seating import PlayerSpec
from callbreak.web.backend import Backend
from callbreak.web.career import play_of
from callbreak.web.model import FINISHED, PERSON, PLAYING, Seat, TableData
from callbreak.web.profiles import public_json, rating_json, signed_in
from callbreak.web.state import replay

__all__ = [
    "BOARD_SIZE",
    "abandoned",
    "match_id",
    "outcome_of",
    "rate_finished",
    "rated_for",
    "routes",
]

BOARD_SIZE = 100
"""Ratings a leaderboard lists at most."""


def match_id(data: TableData) -> str:
    """The id a table's match is rated under: its code with its creation, since a room's code
    is free again once its room is gone."""
    return f"{data.id}@{data.created!r}"


def outcome_of(data: TableData) -> Outcome | None:
    """A finished pool's table as the ratings see it, or one every person left
    (:func:`abandoned`); None for any other table (a room of friends, a match against the
    computer, a table still being played or ended early).

    A seat a person took over from a computer (``Seat.since``) rates that person when they
    played at least half of the match's scored deals (:func:`rated_for`); otherwise the seat
    counts as its computer and the person is not rated for the match: the seat's score is
    mostly the computer's play, which must not make or cost a rating."""
    public = data.public
    if public is None or not (data.status == FINISHED or abandoned(data)):
        return None
    match = replay(data)
    scored = [index for index, deal in enumerate(match.deals) if not deal.thrown_in]
    profiles = public["profiles"]
    seats: list[Person | Computer] = []
    left: set[int] = set()
    for number, seat in enumerate(data.seats):
        profile = profiles[number]
        if profile is not None and rated_for(seat, scored):
            seats.append(Person(profile))
            # Left for good, or given to a computer since: the person is rated last.
            if seat.left or seat.kind != PERSON:
                left.add(number)
        else:
            seats.append(Computer(PlayerSpec.parse(seat.level or "").name))
    places = tuple(match.places())
    return Outcome(match_id(data), str(public["pool"]), tuple(seats), places, frozenset(left))


def abandoned(data: TableData) -> bool:
    """Whether ``data`` is a pool's table being played that every person at it has left for
    good: a table nobody is at is not driven, so it is played no further, and its people are
    rated now, last (a match left counts as last place, whatever the seat scores after)."""
    public = data.public
    if public is None or data.status != PLAYING:
        return False
    profiles = public["profiles"]
    people = [seat for seat, profile in zip(data.seats, profiles, strict=True) if profile]
    return bool(people) and all(seat.left for seat in people)


def rated_for(seat: Seat, scored: Sequence[int]) -> bool:
    """Whether the person in ``seat`` is rated for the match whose scored deals have the
    indexes ``scored``: always, unless they took the seat over from a computer and played
    fewer than half of those deals."""
    if not seat.since:
        return True
    theirs = sum(1 for index in scored if index >= seat.since)
    return 2 * theirs >= len(scored) > 0


async def rate_finished(backend: Backend, data: TableData) -> bool:
    """Rate ``data``'s match if it is a finished pool's table, or one every person left;
    whether this call rated it (False: neither, or some process rated it already). The live
    table calls it once it has stored the action that ends the match (``web.live``), the
    rooms' leave once a person has left (``web.rooms``); the pools' status poll calls it too,
    so that a match whose rating failed there (the store out of reach, the process gone) is
    rated at the next poll of one of its people."""
    outcome = outcome_of(data)
    if outcome is None:
        return False
    rated = await backend.settle(outcome)
    await tally_table(backend, data, outcome)
    return rated


async def tally_table(backend: Backend, data: TableData, outcome: Outcome) -> None:
    """Keep each person's play of a rated table for their profile's page (``web.career``):
    told by every process that sees the end, the same each time."""
    match = replay(data)
    for seat, person in enumerate(outcome.seats):
        if isinstance(person, Person):
            theirs = play_of(match, seat, data.seats[seat].since)
            play = theirs | {"pool": outcome.pool, "left": seat in outcome.left}
            await backend.tally(person.profile, outcome.match_id, data.updated, play)


def routes(backend: Backend, pools: Collection[str]) -> list[Route]:
    """``GET /api/pools/{pool}/leaderboard`` for each pool of ``pools``."""

    async def leaderboard(request: Request) -> Response:
        pool = request.path_params["pool"]
        if pool not in pools:
            raise Refusal("no_such_pool", pools=list(pools))
        board = await backend.leaderboard(pool, BOARD_SIZE)
        found = {p["id"]: p for p in await backend.profiles([profile for profile, _ in board])}
        rows = [
            public_json(found[profile]) | rating_json(rating, place)
            for place, (profile, rating) in enumerate(board, 1)
            if profile in found
        ]
        answer: dict[str, object] = {"pool": pool, "ratings": rows}
        if request.headers.get("authorization"):
            me = await signed_in(backend, request)
            mine = await backend.rating(pool, me["id"])
            rank = await backend.rank(pool, me["id"])
            answer["you"] = None if mine is None else public_json(me) | rating_json(mine, rank)
        return JSONResponse(answer)

    return [Route("/api/pools/{pool}/leaderboard", leaderboard, methods=["GET"])]
