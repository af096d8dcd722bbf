"""The web app: play against the computer or with friends in rooms, look back at matches, keep
score of a table game.

The game runs on the server; a browser talks to it over a WebSocket for play and over a small
JSON API for the rest. The front end is static files in ``static/`` (no build step). Matches
and rooms live in a backend: SQLite in this process by default, or Redis shared by several
processes (``redis_url``).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from callbreak.names import check_name
from callbreak.players import DESCRIPTIONS, MENU
from callbreak.refusals import HANDLERS, Refusal, read_json, read_object
from callbreak.rules import PROFILES, Rules, format_tenths
from callbreak.web import career, messages, rooms, sheets, standings
from callbreak.web import profiles as players
from callbreak.web.accesslog import Logged
from callbreak.web.backend import Backend, LocalBackend
from callbreak.web.challenge import Challenge
from callbreak.web.challenge import routes as challenge_routes
from callbreak.web.drain import Drain, Draining
from callbreak.web.export import record_of, replay_data
from callbreak.web.health import Health
from callbreak.web.http import Guarded, bearer, check_bots
from callbreak.web.limits import DEFAULT, Limits, RateLimits, address_of
from callbreak.web.looks import look
from callbreak.web.messages import PING_SECONDS
from callbreak.web.metrics import Metered, Metrics, Networks, endpoint
from callbreak.web.model import DAMAGED, LOBBY, MATCH, ROOM, SPEEDS, TableData, read_settings
from callbreak.web.owners import held_matches, held_rooms, read_held
from callbreak.web.pools import DEFAULT_POOLS, Pool, Pools
from callbreak.web.pools import routes as pool_routes
from callbreak.web.retention import DEFAULT_RETENTION, Retention, upkeep
from callbreak.web.reviews import Reviews
from callbreak.web.state import TableState, replay
from callbreak.web.stats import figures, game_of
from callbreak.web.store import Store
from callbreak.web.tables import Tables
from callbreak.web.view import level_name, rules_json

__all__ = ["create_app"]

STATIC = Path(__file__).parent / "static"
CLOSE_SECONDS = 1.0
"""How long the app's shutdown waits for the store to close its connections."""
NOT_SHELL = frozenset({"index.html", "manifest.webmanifest", "sw.js"})
"""The static files the service worker does not keep: the page (always from the network, the
offline page when it cannot be reached), the manifest (the browser's own to fetch) and itself;
nor the PNG icons, which only the browser fetches, past the worker, to install the app (the
pages show ``icon.svg``, kept)."""


def create_app(
    db_path: str | os.PathLike[str],
    redis_url: str | None = None,
    limits: Limits = DEFAULT,
    retention: Retention = DEFAULT_RETENTION,
    *,
    metrics_from: Sequence[str] = (),
    ping_seconds: float = PING_SECONDS,
    reviews: Reviews | None = None,
    pools: Sequence[Pool] = DEFAULT_POOLS,
) -> Starlette:
    """The ASGI app. Matches, rooms and scoresheets are kept in the SQLite file ``db_path``;
    with ``redis_url`` they are kept in Redis, shared with every server process that uses the
    same Redis (the file then only gives up the scoresheets it kept before). ``limits`` bound
    what one address or connection may ask (``web.limits``); every answer carries the security
    headers of ``web.http``. ``/metrics`` answers only the addresses of the networks
    ``metrics_from`` (``web.metrics``); every socket hears a ping every ``ping_seconds``
    (``web.messages``). Finished matches and rooms are reviewed by ``reviews`` (by default a
    pool of processes as ``limits`` say, ``web.reviews``). People with a profile
    (``web.profiles``) join ``pools`` for a table with strangers (``web.pools``; none: no quick
    play), rated when it is finished (``web.standings``), and play the daily challenge
    (``app.state.challenge``, ``web.challenge``: its deals from the operator's secret, given to
    its ``use`` before the app serves, or from a secret the server makes and keeps in the store).
    ``app.state.drain`` hands the tables over at shutdown (``web.drain``). While it runs, idle
    tables leave memory and data past ``retention`` leaves the store (``web.retention``)."""
    allowed = Networks(metrics_from)  # a bad network raises ValueError before anything opens
    store = Store(db_path)
    metrics = Metrics()
    stored: Backend = LocalBackend(store)
    if redis_url is not None:
        from callbreak.web.redis_backend import RedisBackend

        stored = RedisBackend(redis_url, retention, sheets_before=store)
    backend = Metered(stored, metrics)
    tables = Tables(backend, limits, metrics)
    metrics.count_tables(
        lambda: [t.state.data.kind for t in list(tables.live.values()) if t.hub.connections]
    )
    drain = Drain(tables)
    reviewing = reviews or Reviews(limits.reviews, limits.review_queue, limits.review_time)
    health = Health(backend, store, lambda: drain.draining, metrics)
    quick = Pools(backend, tables, pools, limits, metrics)
    quick.paused = lambda: drain.draining
    daily = Challenge(backend, tables, reviewing, list(quick.pools))

    async def index(_request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    async def manifest(_request: Request) -> Response:
        # The home-screen app (docs/web.md): read by the browser from index.html's link.
        return FileResponse(
            STATIC / "manifest.webmanifest",
            media_type="application/manifest+json",
            headers={"Cache-Control": "no-cache"},
        )

    async def service_worker(_request: Request) -> Response:
        # From the root, so that it serves every page of the app (a worker's scope is its
        # folder); never from the browser's cache, so that a new release is seen at once.
        return Response(
            worker(), media_type="text/javascript", headers={"Cache-Control": "no-cache"}
        )

    async def profiles(_request: Request) -> JSONResponse:
        return JSONResponse(
            [
                {
                    "name": name,
                    "summary": rules.summary(),
                    "calls": [rules.min_call, rules.max_call],
                    "deals": rules.deals,
                    "options": rules_json(rules)["options"],
                }
                for name, rules in PROFILES.items()
            ]
        )

    async def levels(_request: Request) -> JSONResponse:
        return JSONResponse(
            {
                "levels": list(MENU),
                "descriptions": {level: DESCRIPTIONS[level] for level in MENU},
                "speeds": list(SPEEDS),
            }
        )

    async def new_match(request: Request) -> JSONResponse:
        body = await read_object(request)
        rules = Rules.parse(_text(body.get("rules", "strict"), "rules"))
        # No name, no default: the page words the person's seat in its own language. A name
        # given is checked as every name is, refused rather than cut (names.check_name).
        given = body.get("name")
        blank = given is None or (isinstance(given, str) and not given.strip())
        name = None if blank else check_name(given)
        opponents = body.get("opponents", ["intermediate"] * 3)
        if not isinstance(opponents, list) or len(opponents) != 3:
            raise Refusal("opponents_list")
        for spec in opponents:
            if not isinstance(spec, str) or not spec.strip() or len(spec) > 200:
                raise Refusal("opponent_spec")
        await check_bots(opponents, limits.bots)
        seed = body.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, str))):
            raise Refusal("seed_type")
        if isinstance(seed, str) and (not seed.strip() or len(seed) > 64):
            raise Refusal("seed_length")
        settings = read_settings(body, {})
        table, token = await tables.create_match(
            str(rules),
            name,
            opponents,
            None if seed is None else str(seed),
            settings,
            address_of(request.scope),  # whom its computers' searches count against
        )
        return JSONResponse({"id": table.id, "token": token}, 201)

    async def my_matches(request: Request) -> Response:
        # Only the matches the client names with their tokens: the server lists nobody's.
        pairs = read_held(await read_json(request), "matches")
        held = await held_matches(backend, pairs)
        # Each summary replays its match: on the shared pool, as Your record's figures.
        summaries = await tables.work.run(
            lambda: [_summary(data, daily.sealed(data)) for data in held]
        )
        summaries.sort(key=lambda summary: -summary["updated"])
        return JSONResponse(summaries)

    async def match_of(request: Request) -> tuple[TableData, dict[str, Any]]:
        """The match of the request's id whose token the request carries, as stored (the
        store is ahead of any copy: it takes an action first), and its record; a Refusal
        (404) alike for an unknown id and a wrong token."""
        data, state = await match_state(request)
        record = record_of(state)
        if daily.sealed(data):
            record["seed"] = None  # a challenge's seed deals the whole day: not before its close
        return data, record

    async def match_state(request: Request) -> tuple[TableData, TableState]:
        """:func:`match_of`'s match, replayed: no live table, no seats, no tasks."""
        token = bearer(request, "match")
        data = await backend.load(request.path_params["id"])
        if data is None or data.kind != MATCH or data.seat_of(token) != 0:
            raise Refusal("no_such_match")
        return data, TableState(data)

    async def match_review(request: Request) -> Response:
        # The person's own seat, and only once the match is over: the review's hindsight reads
        # every hand, and even without it a review during play would be advice (web.reviews).
        data, state = await match_state(request)
        if not state.match.is_over:
            raise Refusal("review_playing")
        key = (f"{data.id}@{data.created}", 0)  # an id is never reused, but a code may be
        if request.method == "POST":
            return JSONResponse(reviewing.start(key, record_of(state), 0))
        return JSONResponse(reviewing.status(key))

    async def match_record(request: Request) -> Response:
        data, record = await match_of(request)
        text = json.dumps(record, indent=1)
        disposition = f'attachment; filename="callbreak-{data.id}.json"'
        return Response(
            text, media_type="application/json", headers={"Content-Disposition": disposition}
        )

    async def match_replay(request: Request) -> Response:
        data, record = await match_of(request)
        return JSONResponse(replay_data(record, data.name_keys))

    async def stats(request: Request) -> Response:
        # The matches and rooms the client holds tokens for; in a room, the seat its token
        # holds now (a seat the client names itself would count another person's play).
        body = await read_json(request)
        matches, rooms = read_held(body, "matches"), read_held(body, "rooms")
        stored: list[tuple[TableData, int]] = [
            (data, 0) for data in await held_matches(backend, matches)
        ]
        stored += [
            (data, seat) for data, seat in await held_rooms(backend, rooms) if data.status != LOBBY
        ]

        def work() -> dict[str, Any]:
            games = [game_of(data, seat) for data, seat in stored]
            return figures(game for game in games if game is not None)

        return JSONResponse(await tables.work.run(work))  # Busy (503) when the pool is full

    async def match_socket(socket: WebSocket) -> None:
        table_id = socket.path_params["id"]
        await messages.connect(tables, socket, table_id, MATCH, limits, ping_seconds, drain)

    async def room_socket(socket: WebSocket) -> None:
        code = socket.path_params["code"].upper()
        await messages.connect(tables, socket, code, ROOM, limits, ping_seconds, drain)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # Kept on the app: the task (and through it the loop the tables live on) for whoever
        # looks in from outside the loop, as the tests do.
        loop = asyncio.get_running_loop()
        app.state.upkeep = loop.create_task(upkeep(tables, retention))
        # On a shared store, every table served here is looked at every few seconds, at once.
        looks = loop.create_task(look(tables)) if backend.shared else None
        deciding = loop.create_task(quick.run()) if quick.pools else None
        looking = loop.create_task(daily.run())
        yield
        app.state.upkeep.cancel()
        if looks is not None:
            looks.cancel()
        looking.cancel()
        if deciding is not None:
            deciding.cancel()
        tables.work.close()
        tables.searches.close()
        reviewing.close()
        # Bounded: a store out of reach must not hold up a shutdown past its drain.
        with contextlib.suppress(Exception):
            async with asyncio.timeout(CLOSE_SECONDS):
                await backend.close()

    routes = [
        Route("/", index),
        Route("/manifest.webmanifest", manifest),
        Route("/sw.js", service_worker),
        *health.routes(),
        Route("/metrics", endpoint(metrics, allowed)),
        Route("/api/profiles", profiles),
        Route("/api/levels", levels),
        Route("/api/matches", new_match, methods=["POST"]),
        Route("/api/matches/mine", my_matches, methods=["POST"]),
        Route("/api/matches/{id}/record", match_record),
        Route("/api/matches/{id}/replay", match_replay),
        Route("/api/matches/{id}/review", match_review, methods=["GET", "POST"]),
        Route("/api/stats", stats, methods=["POST"]),
        WebSocketRoute("/ws/matches/{id}", match_socket),
        *rooms.routes(tables, limits, reviewing),
        WebSocketRoute("/ws/rooms/{code}", room_socket),
        *sheets.routes(backend, tables.work),
        *players.routes(backend, list(quick.pools)),
        *pool_routes(quick),
        *standings.routes(backend, list(quick.pools)),
        *career.routes(backend, list(quick.pools), lambda: daily.clock()),
        *challenge_routes(daily),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    # Outermost first: every answer is counted and logged, a refusal of the limits or of a
    # draining process included, and each carries the headers.
    middleware = [
        Middleware(Logged, count=metrics.requested, routes=routes),
        Middleware(Guarded),
        Middleware(Draining, drain=drain),
        Middleware(RateLimits, limits=limits),
    ]
    app = Starlette(
        routes=routes,
        middleware=middleware,
        lifespan=lifespan,
        exception_handlers=HANDLERS,
    )
    app.state.store = store
    app.state.backend = backend
    app.state.tables = tables
    app.state.metrics = metrics
    app.state.drain = drain
    app.state.reviews = reviewing
    app.state.retention = retention
    app.state.pools = quick
    app.state.challenge = daily
    return app


def shell() -> tuple[str, list[str]]:
    """The static shell the service worker keeps: its version (a hash of every static file, so
    that any change of any file makes a new shell) and the addresses of its files."""
    files = sorted(
        path for path in STATIC.iterdir() if path.is_file() and not path.name.startswith(".")
    )
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    urls = [
        f"/static/{path.name}"
        for path in files
        if path.name not in NOT_SHELL and path.suffix != ".png"
    ]
    return digest.hexdigest()[:16], urls


_worker: tuple[tuple[tuple[str, int, int], ...], str] | None = None


def worker() -> str:
    """The service worker's script: ``static/sw.js`` after the constants it reads, VERSION and
    SHELL (:func:`shell`). Made again only when a static file changed (its size or time)."""
    global _worker
    stamp = tuple(
        (path.name, (stat := path.stat()).st_mtime_ns, stat.st_size)
        for path in sorted(STATIC.iterdir())
    )
    if _worker is None or _worker[0] != stamp:
        version, urls = shell()
        head = f"const VERSION = {json.dumps(version)};\nconst SHELL = {json.dumps(urls)};\n\n"
        _worker = (stamp, head + (STATIC / "sw.js").read_text(encoding="utf-8"))
    return _worker[1]


def _text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise Refusal("not_text", field=what)
    return value


def _summary(data: TableData, sealed: bool = False) -> dict[str, Any]:
    """A stored match for the history page (replayed, not kept live); a ``sealed`` one (a
    daily challenge's while its day is open) without its seed."""
    summary = {
        "id": data.id,
        "created": data.created,
        "updated": data.updated,
        "rules": data.rules,
        "names": data.names,
        "name_keys": data.name_keys,
        "levels": [level_name(level) for level in data.levels],
    }
    try:
        match = replay(data)
    except Exception:  # a damaged row must not hide the others
        return summary | {"status": DAMAGED, "deals_played": 0, "totals": None, "places": None}
    over = match.is_over
    return summary | {
        "status": data.status,
        "deals_played": len(match.played_deals()),
        "totals": [format_tenths(t) for t in match.totals()],
        "places": match.places() if over else None,
        # The seed rebuilds every hand, so it is shown only once the match is over.
        "seed": data.seed if over and not sealed else None,
    }
