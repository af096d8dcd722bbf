"""Profiles without an account: who a person is in public play (docs/public.md, *Profiles*).

A profile is a display name (``names.check_name``, as every name), an avatar from the set drawn
in ``static/avatar-*.svg`` (:data:`AVATARS`), and a token of 256 random bits that the browser
keeps: the server stores only its hash (``model.hash_token``), so a stolen store gives no
profile away. The token is the profile's only key (``Authorization: Bearer TOKEN``); the
public id (:data:`ID_BYTES` random bits, never derived from the token) names the profile on
leaderboards and its public page, and opens nothing.

The HTTP API (``/api/players``: the rules' profiles have ``/api/profiles``):
``POST /api/players`` makes one; ``GET /api/players/me`` and ``POST /api/players/me`` read and
change one's own by its token; ``GET /api/players/{id}`` is a profile's public page's data.
Making profiles is limited per address with the other creations (``web.limits``).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Sequence
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from callbreak.names import check_name
from callbreak.ratings import PoolRating
from callbreak.refusals import Refusal, read_object
from callbreak.web.backend import Backend, Profile
from callbreak.web.http import bearer
from callbreak.web.model import hash_token, new_token

__all__ = ["AVATARS", "ID_BYTES", "new_profile", "public_json", "routes", "signed_in"]

AVATARS = ("sun", "moon", "mountain", "lotus", "kite", "drum")
"""The avatars a profile may have, each drawn in ``static/avatar-NAME.svg``."""
ID_BYTES = 9
"""A public id's random bytes: 72 bits, 12 characters, too many to guess a profile's page."""


def check_avatar(value: object) -> str:
    """An avatar of :data:`AVATARS`; a Refusal (``avatar``) otherwise."""
    if not isinstance(value, str) or value not in AVATARS:
        raise Refusal("avatar", avatars=list(AVATARS))
    return value


def new_profile(name: object, avatar: object, now: float) -> tuple[Profile, str]:
    """A profile to store and its token (given to the person once, never stored); a Refusal
    for a bad name or avatar, before anything is made."""
    clean, picture = check_name(name), check_avatar(avatar)
    token = new_token()
    profile = {
        "id": secrets.token_urlsafe(ID_BYTES),
        "token": hash_token(token),
        "name": clean,
        "avatar": picture,
        "created": now,
        "updated": now,
    }
    return profile, token


def public_json(profile: Profile) -> dict[str, Any]:
    """What anyone may see of a profile: never its token, nor its token's hash."""
    return {
        "id": profile["id"],
        "name": profile["name"],
        "avatar": profile["avatar"],
        "created": profile["created"],
    }


def rating_json(rating: PoolRating, rank: int | None) -> dict[str, Any]:
    """A person's rating in a pool as the pages show it."""
    return {
        "mu": round(rating.mu, 3),
        "sigma": round(rating.sigma, 3),
        "rating": round(rating.ordinal, 2),
        "matches": rating.matches,
        "left": rating.left,
        "provisional": rating.provisional,
        "rank": rank,
    }


async def signed_in(backend: Backend, request: Request) -> Profile:
    """The profile whose token the request carries (``Authorization: Bearer``); a Refusal:
    401 ``token_needed`` without one, 401 ``not_a_player`` for a token of no profile."""
    token = bearer(request, "player")
    profile = await backend.profile_of(hash_token(token))
    if profile is None:
        raise Refusal("not_a_player")
    return profile


def routes(backend: Backend, pools: Sequence[str]) -> list[Route]:
    """The ``/api/players`` routes; a profile's page shows its ratings in ``pools``."""

    async def ratings(profile_id: str) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for pool in pools:
            rating = await backend.rating(pool, profile_id)
            if rating is not None:
                found[pool] = rating_json(rating, await backend.rank(pool, profile_id))
        return found

    async def create(request: Request) -> Response:
        body = await read_object(request)
        profile, token = new_profile(body.get("name"), body.get("avatar", AVATARS[0]), time.time())
        await backend.create_profile(profile)
        return JSONResponse(public_json(profile) | {"token": token}, 201)

    async def mine(request: Request) -> Response:
        profile = await signed_in(backend, request)
        if request.method == "POST":
            body = await read_object(request)
            # Both checked before either is stored: a bad avatar leaves the name as it was.
            name = check_name(body.get("name", profile["name"]))
            avatar = check_avatar(body.get("avatar", profile["avatar"]))
            if not await backend.update_profile(profile["id"], name, avatar):
                raise Refusal("not_a_player")
            profile = profile | {"name": name, "avatar": avatar}
        return JSONResponse(public_json(profile) | {"ratings": await ratings(profile["id"])})

    async def page(request: Request) -> Response:
        profile = await backend.profile(request.path_params["id"])
        if profile is None:
            raise Refusal("no_such_player")
        return JSONResponse(public_json(profile) | {"ratings": await ratings(profile["id"])})

    return [
        Route("/api/players", create, methods=["POST"]),
        Route("/api/players/me", mine, methods=["GET", "POST"]),
        Route("/api/players/{id}", page, methods=["GET"]),
    ]
