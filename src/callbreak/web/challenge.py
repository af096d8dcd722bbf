"""The daily challenge, served (docs/public.md, *The daily challenge*): each day (UTC) the same
five deals for everyone against three experts, one attempt per profile, the deals' commitment
published when the day opens and their seed when it closes, and the day's standings.

The deals are ``callbreak.challenge``'s: the day's seed is HMAC-SHA256 of the day under the
challenge's secret (the operator's, ``callbreak serve --challenge-secret FILE``, or one the
server makes once and keeps in the store: :meth:`Challenge.secret`), and an attempt is a match
against the computer (``Tables.create_match``) on the day's match seed, marked a challenge in
its settings (``settings["challenge"]``: its day and profile).

**Nobody sees a deal before playing it.** An attempt's match is a match like any other: its
socket sends the person their own seat's view alone, its record and replay hold only the deals
played out (``web.export``), and only its token opens them, which only the attempt's profile is
given. On top of that, while its day is open (:meth:`Challenge.sealed`), the match's seed (which
deals every card of the day) is left out of everything the app answers of it, its record and
History's list, and hints are refused (they would be an expert playing the seat). The standings
(totals and accuracies, which say something of the deals) are shown before the close only to a
profile that has played all the deals; the figures of a profile's page count a challenge only
once its day has closed (``web.career``). So until the close, a profile that has not played
receives nothing that depends on the deals: only the commitment, which hides them.

**Many profiles.** A profile costs nothing, so the standings rank an attempt only when its
profile has :data:`SEASONED` rated public matches played to their end behind it when it starts
(a match left costs seconds), and only the first :data:`PER_ADDRESS` such attempts started from
one address that day (the address kept as a keyed hash, never itself). Every profile may still
play, once; an attempt that does not rank says why.

A process looks at the attempts of today and yesterday every :data:`LOOK_EVERY` seconds when it
holds the challenge's lease: an attempt whose match is over is settled (its total, deals and
calls made written once: :meth:`Challenge.settle`, which a person's own poll does too), and a
finished one is reviewed (``web.reviews``, one at a time, queued behind nobody's own review:
the accuracy beside the total in the standings).
"""

from __future__ import annotations

import asyncio
import datetime
import hashlib
import hmac
import logging
import secrets
import time
from collections.abc import Callable, Sequence
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from callbreak import challenge
from callbreak.ratings import PROVISIONAL_MATCHES
from callbreak.refusals import Refusal, read_object
from callbreak.rules import format_tenths
from callbreak.web.backend import OWNER, Backend, Profile
from callbreak.web.career import play_of
from callbreak.web.export import record_of
from callbreak.web.limits import address_of
from callbreak.web.model import FINISHED, STOPPED, TableData, read_settings
from callbreak.web.profiles import public_json, signed_in
from callbreak.web.reviews import Reviews
from callbreak.web.state import TableState
from callbreak.web.tables import Tables

__all__ = [
    "LAST_START",
    "LOOK_EVERY",
    "OPPONENTS",
    "PER_ADDRESS",
    "SEASONED",
    "Challenge",
    "routes",
]

LOG = logging.getLogger("callbreak.web")
OPPONENTS = "expert(time=0.1, threads=1)"
"""The three experts: a tenth of the default budget on one thread. The searches of every
attempt go through the process's fair queue (``web.searches``), so their cost is the server's:
at most 21 s of one core an attempt (210 decisions of 0.1 s, the forced and the last ones
cheaper; ``benchmarks/challenge.py``), well under the pace of the table (0.9 s a computer's
card at the normal speed), and docs/strength.md measured the expert at a tenth of its budget
all but level with its default (the default ahead by +0.41, -0.03 to +0.85, a match)."""
LAST_START = 30 * 60.0
"""No attempt starts in the last 30 minutes of a day: a match of five deals takes about ten,
and an attempt finished after the close (when the seed is out) does not rank."""
LOOK_EVERY = 10.0
"""Seconds between two looks at the attempts by the process holding the challenge's lease."""
LEASE_SECONDS = 30.0
REVIEW_TRIES = 3
"""Reviews of an attempt made before it is left without an accuracy (a review that fails
three times would fail again: it must not take a review process every look)."""
SEASONED = PROVISIONAL_MATCHES
"""Rated public matches (in any pool, played to their end: not left) a profile needs behind it
for its attempt to rank: a fresh profile costs hours of play, not a click."""
PER_ADDRESS = 1
"""Ranked attempts one address may start a day."""
STANDINGS_SIZE = 100
"""Attempts the standings list at most (and the person's own)."""
SECRET_NAME = "challenge"
DAY_SECONDS = 86_400.0

PLAYING, DONE, ENDED = "playing", "finished", "stopped"
"""An attempt's state: being played, played to its end, or ended early (the person stopped)."""


class Challenge:
    """One process's part in the daily challenge: attempts begun and settled, standings, and
    the reviews of finished attempts while it holds the lease."""

    def __init__(
        self,
        backend: Backend,
        tables: Tables,
        reviews: Reviews,
        pools: Sequence[str] = (),
        *,
        clock: Callable[[], float] = time.time,
        opponents: str = OPPONENTS,
        seasoned: int = SEASONED,
    ) -> None:
        self.backend = backend
        self.tables = tables
        self.reviews = reviews
        self.pools = list(pools)
        self.clock = clock
        """Wall-clock seconds: when days open and close."""
        self.opponents = opponents
        self.seasoned = seasoned
        self.per_address = PER_ADDRESS
        self._secret: bytes | None = None
        self._failing = False
        self._failures: dict[str, int] = {}
        """Reviews that failed, by attempt's match (this process's own: a review runs here)."""

    def use(self, secret: bytes) -> None:
        """Deal from the operator's ``secret`` (``callbreak serve --challenge-secret``), not
        from one the server keeps in the store; before the app serves. A ValueError for a
        secret too short to keep the seeds from being guessed."""
        if len(secret) < challenge.MIN_SECRET_BYTES:
            raise ValueError(
                f"the challenge's secret has {len(secret)} bytes; it needs at least "
                f"{challenge.MIN_SECRET_BYTES}"
            )
        self._secret = secret

    async def secret(self) -> bytes:
        """The challenge's secret: the operator's, or the one kept in the store (made by the
        first process that needed it)."""
        if self._secret is None:
            made = secrets.token_hex(32)
            self._secret = (await self.backend.secret(SECRET_NAME, made)).encode()
        return self._secret

    def today(self) -> datetime.date:
        """The day open now (UTC)."""
        return datetime.datetime.fromtimestamp(self.clock(), datetime.UTC).date()

    def closes(self, day: datetime.date) -> float:
        """When ``day`` closes (and its seed is shown): the next day's midnight, UTC."""
        return challenge.day_start(day).timestamp() + DAY_SECONDS

    def closed(self, day: datetime.date) -> bool:
        """Whether ``day`` has closed."""
        return self.clock() >= self.closes(day)

    def sealed(self, data: TableData) -> bool:
        """Whether ``data`` is a challenge's match whose day is still open: then nothing of its
        seed is shown."""
        marked = data.settings.get("challenge")
        if not isinstance(marked, dict):
            return False
        return not self.closed(challenge.parse_day(str(marked["day"])))

    async def day_json(self, day: datetime.date) -> dict[str, Any]:
        """What anyone may see of ``day`` now: its commitment, its seed once it has closed, when
        it opens, closes and stops starting attempts; a Refusal before it opens."""
        try:
            shown = challenge.published(await self.secret(), day, datetime_of(self.clock()))
        except challenge.ChallengeError:
            raise Refusal("challenge_not_open", day=day.isoformat()) from None
        closes = self.closes(day)
        return {
            "day": day.isoformat(),
            "commitment": shown.commitment,
            "seed": shown.seed,
            "opens": closes - DAY_SECONDS,
            "closes": closes,
            "starts_until": closes - LAST_START,
            "rules": challenge.RULES,
            "opponents": self.opponents,
        }

    # --- attempts ----------------------------------------------------------------------------

    async def begin(
        self, profile: Profile, address: str, settings: dict[str, Any]
    ) -> tuple[dict[str, Any], bool]:
        """Today's attempt of ``profile``: begun now (its match made), or the one it is
        playing; ``challenge_played`` once it has played, ``challenge_closing`` too near the
        close. Whether it began now."""
        day, now = self.today(), self.clock()
        held = await self.backend.attempt(day.isoformat(), profile["id"])
        if held is not None:
            return self._resumed(await self.settle(held)), False
        if now >= self.closes(day) - LAST_START:
            minutes = max(1, round((self.closes(day) - now) / 60))
            raise Refusal("challenge_closing", minutes=minutes)
        secret = await self.secret()
        seed = challenge.day_seed(secret, day)
        table, token = await self.tables.create_match(
            challenge.RULES,
            profile["name"],
            [self.opponents] * 3,
            challenge.match_seed(day, seed),
            settings | {"challenge": {"day": day.isoformat(), "profile": profile["id"]}},
            address,
        )
        seasoned = await self._seasoned(profile["id"])
        attempt = {
            "day": day.isoformat(),
            "profile": profile["id"],
            "address": hmac.new(
                secret, f"{day.isoformat()}|{address}".encode(), hashlib.sha256
            ).hexdigest()[:32],
            "ranked": seasoned,
            "why": None if seasoned else "provisional",
            "match": table.id,
            "token": token,
            "started": now,
            "state": PLAYING,
            "total": None,
            "deals": 0,
            "made": 0,
            "ended": None,
            "accuracy": None,
        }
        kept, made = await self.backend.begin_attempt(attempt, self.per_address)
        await self.backend.touch_profile(profile["id"], now)
        if not made:
            # Another tab or process began it first: that one is the attempt, this match is
            # never played (nobody holds its token; it leaves with the unfinished tables).
            return self._resumed(await self.settle(kept)), False
        return kept, True

    def _resumed(self, attempt: dict[str, Any]) -> dict[str, Any]:
        """An attempt asked to begin again: itself while it is being played (a reload, a
        second tab), a refusal once it is over: one attempt a day."""
        if attempt["state"] != PLAYING:
            raise Refusal("challenge_played", day=attempt["day"])
        return attempt

    async def _seasoned(self, profile: str) -> bool:
        """Whether ``profile`` has :data:`SEASONED` rated public matches played to their end:
        one left for good is rated the moment its table is left (``web.standings``), so it
        costs seconds, not a match's play."""
        matches = 0
        for pool in self.pools:
            rating = await self.backend.rating(pool, profile)
            matches += 0 if rating is None else rating.matches - rating.left
        return matches >= self.seasoned

    async def settle(self, attempt: dict[str, Any]) -> dict[str, Any]:
        """``attempt`` with its result once its match is over: its state, total, deals played
        and calls made, written once (every process that settles it writes the same), and the
        play kept for the profile's page, shown from the day's close."""
        if attempt["state"] != PLAYING:
            return attempt
        data = await self.backend.load(attempt["match"])
        if data is None or data.status not in (FINISHED, STOPPED):
            return attempt
        match = TableState(data).match
        play = play_of(match, 0)
        changes = {
            "state": DONE if data.status == FINISHED else ENDED,
            "total": play["total"],
            "deals": play["deals"],
            "made": play["made"],
            # As stored; never later than now: the process that stored the last action may
            # have a clock a little ahead of this one (and a test's clock is days behind).
            "ended": min(data.updated, self.clock()),
        }
        settled = await self.backend.update_attempt(attempt["day"], attempt["profile"], changes)
        if settled is None:  # its day's standings are gone: nothing to keep
            return attempt | changes
        await self._tally(settled)
        return settled

    async def _tally(self, attempt: dict[str, Any]) -> None:
        day = challenge.parse_day(attempt["day"])
        play = {
            "deals": attempt["deals"],
            "made": attempt["made"],
            "total": attempt["total"],
            "accuracy": attempt["accuracy"],
            "challenge": attempt["day"],
            "shown": self.closes(day),
        }
        at = float(attempt["ended"] or attempt["started"])
        await self.backend.tally(attempt["profile"], f"challenge:{attempt['day']}", at, play)

    async def review(self, attempt: dict[str, Any]) -> bool:
        """Ask for the review of a finished attempt that has no accuracy yet (queued, never
        waited for); when it is done, its accuracy is written. Whether this attempt is done
        with (reviewed, or given up on after :data:`REVIEW_TRIES` failures)."""
        if attempt["state"] != DONE or attempt["accuracy"] is not None:
            return True
        if self._failures.get(attempt["match"], 0) >= REVIEW_TRIES:
            return True  # its standings show no accuracy
        data = await self.backend.load(attempt["match"])
        if data is None:
            return True  # gone with its retention: never reviewed
        key = (f"{data.id}@{data.created}", 0)  # as the match's own review (web.app)
        try:
            status = self.reviews.status(key)
            if status["state"] == "none":
                status = self.reviews.start(key, record_of(TableState(data)), 0)
        except Refusal as refused:
            if refused.code == "review_failed":  # said once: counted, then made again
                self._failures[attempt["match"]] = self._failures.get(attempt["match"], 0) + 1
            return False  # failed, or the reviews are full: tried again at the next look
        if status["state"] != "done":
            return False
        summary = status["review"]["summary"]
        changes = {"accuracy": summary["accuracy"], "lost": summary["lost"]}
        reviewed = await self.backend.update_attempt(attempt["day"], attempt["profile"], changes)
        if reviewed is not None:
            await self._tally(reviewed)
        return True

    async def mine(self, profile: Profile) -> dict[str, Any] | None:
        """``profile``'s attempt of today, settled, or None."""
        held = await self.backend.attempt(self.today().isoformat(), profile["id"])
        return None if held is None else await self.settle(held)

    # --- standings ---------------------------------------------------------------------------

    async def standings(self, day: datetime.date, viewer: Profile | None) -> dict[str, Any]:
        """``day``'s standings as ``viewer`` may see them: the attempts that rank, by total
        (the accuracy beside it, the earlier finish first on a tie), and the viewer's own. Before
        the close only to a profile that has played the day's deals to the end; to anyone else
        then only how many have played."""
        await self.day_json(day)  # refused before the day opens
        attempts = await self.backend.attempts(day.isoformat())
        own = next((a for a in attempts if viewer and a["profile"] == viewer["id"]), None)
        if own is not None:
            attempts.remove(own)
            own = await self.settle(own)
            attempts.append(own)
        closed = self.closed(day)
        answer: dict[str, Any] = {"day": day.isoformat(), "closed": closed}
        if not closed and (own is None or own["state"] != DONE):
            return answer | {"shown": False, "entrants": len(attempts)}
        closes = self.closes(day)
        ranking = sorted(
            (
                a
                for a in attempts
                if a["ranked"] and a["state"] == DONE and float(a["ended"]) < closes
            ),
            key=lambda a: (-a["total"], -_accuracy(a), a["ended"], a["profile"]),
        )
        shown = ranking[:STANDINGS_SIZE]
        found = {p["id"]: p for p in await self.backend.profiles([a["profile"] for a in shown])}
        rows = [
            public_json(found[a["profile"]]) | _result(a) | {"place": place}
            for place, a in enumerate(shown, 1)
            if a["profile"] in found
        ]
        answer |= {"shown": True, "entrants": len(attempts), "ranked": len(ranking), "rows": rows}
        if own is not None and viewer is not None:
            place = next(
                (n for n, a in enumerate(ranking, 1) if a["profile"] == own["profile"]), None
            )
            why = own["why"] if not own["ranked"] else None
            if own["ranked"] and own["state"] == DONE and place is None:
                why = "late"  # finished after the close
            answer["you"] = public_json(viewer) | _result(own) | {"place": place, "why": why}
        return answer

    # --- the look ----------------------------------------------------------------------------

    async def run(self) -> None:
        """Every :data:`LOOK_EVERY` seconds, settle and review the attempts of today and
        yesterday while this process holds the challenge's lease; until cancelled."""
        while True:
            try:
                await self.look()
                self._failing = False
            except asyncio.CancelledError:
                raise
            except Exception:
                if not self._failing:  # once a failing spell, not every look
                    LOG.exception("the look at the daily challenge failed")
                self._failing = True
            await asyncio.sleep(LOOK_EVERY)

    async def look(self) -> int:
        """One look, if this process holds the lease: the attempts settled now."""
        if not await self.backend.lease("challenge", OWNER, LEASE_SECONDS):
            return 0
        today = self.today()
        settled = 0
        reviewing = True
        for day in (today - datetime.timedelta(days=1), today):
            for attempt in await self.backend.attempts(day.isoformat()):
                if attempt["state"] == PLAYING:
                    attempt = await self.settle(attempt)
                    settled += attempt["state"] != PLAYING
                # One review at a time from here: the others wait for the next looks, and the
                # people asking for their own reviews find room in the queue.
                if reviewing:
                    reviewing = await self.review(attempt)
        return settled


def datetime_of(seconds: float) -> datetime.datetime:
    """Wall-clock seconds as an aware time (UTC)."""
    return datetime.datetime.fromtimestamp(seconds, datetime.UTC)


def _accuracy(attempt: dict[str, Any]) -> float:
    """An attempt's accuracy as its standings order it: one not reviewed (yet) after any."""
    accuracy = attempt["accuracy"]
    return -1.0 if accuracy is None else float(accuracy)


def _result(attempt: dict[str, Any]) -> dict[str, Any]:
    """What the standings show of an attempt."""
    total = attempt["total"]
    return {
        "state": attempt["state"],
        "total": None if total is None else format_tenths(total),
        "deals": attempt["deals"],
        "made": attempt["made"],
        "accuracy": attempt["accuracy"],
        "ended": attempt["ended"],
    }


def attempt_json(attempt: dict[str, Any]) -> dict[str, Any]:
    """A person's own attempt, as their page sees it: with its match and the match's token."""
    return {
        "day": attempt["day"],
        "match": attempt["match"],
        "token": attempt["token"],
        "ranked": attempt["ranked"],
        "why": attempt["why"],
        "started": attempt["started"],
    } | _result(attempt)


def routes(daily: Challenge) -> list[Route]:
    """``/api/challenge``: today's challenge, a day's commitment and seed, a day's standings,
    and a person's attempt (their profile's token as ``Authorization: Bearer``)."""
    backend = daily.backend

    async def viewer(request: Request) -> Profile | None:
        if not request.headers.get("authorization"):
            return None
        return await signed_in(backend, request)

    def day_of(request: Request) -> datetime.date:
        text = request.path_params["day"]
        try:
            return challenge.parse_day(text)
        except challenge.ChallengeError:
            raise Refusal("challenge_day", day=text[:20]) from None

    async def today(request: Request) -> Response:
        person = await viewer(request)
        day = daily.today()
        answer = await daily.day_json(day)
        answer["previous"] = await daily.day_json(day - datetime.timedelta(days=1))
        mine = None if person is None else await daily.mine(person)
        answer["you"] = None if mine is None else attempt_json(mine)
        return JSONResponse(answer)

    async def one_day(request: Request) -> Response:
        return JSONResponse(await daily.day_json(day_of(request)))

    async def standings(request: Request) -> Response:
        return JSONResponse(await daily.standings(day_of(request), await viewer(request)))

    async def play(request: Request) -> Response:
        person = await signed_in(backend, request)
        settings = read_settings(await read_object(request), {})
        attempt, made = await daily.begin(person, address_of(request.scope), settings)
        return JSONResponse(attempt_json(attempt), 201 if made else 200)

    return [
        Route("/api/challenge", today, methods=["GET"]),
        Route("/api/challenge/play", play, methods=["POST"]),
        Route("/api/challenge/days/{day}", one_day, methods=["GET"]),
        Route("/api/challenge/days/{day}/standings", standings, methods=["GET"]),
    ]
