"""A person's career in public play, for their profile's page (docs/public.md, *The profile's
page*): each pool's rating after every rated match (the chart), the matches played and left,
and what their plays were: calls made, and the review's accuracy of their daily challenges.

What a play was is kept once its match is over (:func:`play_of`, ``Backend.tally``: by the
rating of a pool's table, ``web.standings``, and by the daily challenge, ``web.challenge``),
with the time from which anyone may see it (``shown``): none for a public match, which was
played in public; the close of its day for a daily challenge, whose deals nobody may learn of
before then, not even through a total or an accuracy on a page. ``GET
/api/players/{id}/career`` answers what may be shown now, to anyone: a profile's public id
opens nothing more.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from callbreak.game import Match, Phase
from callbreak.ratings import PoolRating
from callbreak.refusals import Refusal
from callbreak.web.backend import Backend
from callbreak.web.profiles import public_json, rating_json

__all__ = ["HISTORY", "PLAYS", "figures", "play_of", "routes"]

HISTORY = 200
"""Ratings a chart shows at most: the last 200 rated matches of a pool."""
PLAYS = 500
"""Plays the figures are made of at most: the last 500."""


def play_of(match: Match, seat: int, since: int = 0) -> dict[str, Any]:
    """What the play of ``seat``'s person in ``match`` was: the deals they played out (from the
    deal of index ``since``, where they took a computer's seat over), the calls they made in
    them, and the seat's total (in tenths) and place, which the seat keeps whoever played it."""
    played = [deal for deal in match.deals[since:] if deal.phase is Phase.OVER]
    made = sum(1 for deal in played if deal.won[seat] >= (deal.calls[seat] or 0))
    return {
        "deals": len(played),
        "made": made,
        "total": match.totals()[seat],
        "place": match.places()[seat],
    }


def figures(plays: Sequence[dict[str, Any]], now: float) -> dict[str, Any]:
    """The figures of the plays that may be shown at ``now`` (those ``shown`` from then on, or
    at once): deals played, calls made, and the mean accuracy of those reviewed (None when none
    was)."""
    shown = [play for play in plays if play.get("shown") is None or float(play["shown"]) <= now]
    deals = sum(int(play.get("deals", 0)) for play in shown)
    made = sum(int(play.get("made", 0)) for play in shown)
    reviewed = [float(play["accuracy"]) for play in shown if play.get("accuracy") is not None]
    return {
        "deals": deals,
        "calls_made": made,
        "accuracy": round(sum(reviewed) / len(reviewed), 1) if reviewed else None,
        "reviewed": len(reviewed),
        "challenges": sum(1 for play in shown if play.get("challenge")),
    }


def routes(
    backend: Backend, pools: Sequence[str], clock: Callable[[], float] = time.time
) -> list[Route]:
    """``GET /api/players/{id}/career``: a profile's ratings in ``pools`` with their history,
    and the figures of its plays that may be shown at ``clock()``."""

    async def career(request: Request) -> Response:
        profile = await backend.profile(request.path_params["id"])
        if profile is None:
            raise Refusal("no_such_player")
        found: dict[str, Any] = {}
        for pool in pools:
            rating = await backend.rating(pool, profile["id"])
            if rating is None:
                continue
            history = await backend.rating_history(pool, profile["id"], HISTORY)
            found[pool] = rating_json(rating, await backend.rank(pool, profile["id"])) | {
                "history": [
                    {
                        "at": change["at"],
                        "rating": round(PoolRating(change["mu"], change["sigma"]).ordinal, 2),
                        "matches": change["matches"],
                    }
                    for change in history
                ]
            }
        plays = await backend.plays(profile["id"], PLAYS)
        answer = public_json(profile) | {"ratings": found, "figures": figures(plays, clock())}
        return JSONResponse(answer)

    return [Route("/api/players/{id}/career", career, methods=["GET"])]
