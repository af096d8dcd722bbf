"""How long the server keeps what it stores, and the upkeep that a long-running server does on
its own: tables nobody uses leave memory, and data past its time leaves the store.

What is kept, counted from a table's last change (an action, a lobby change):

- a **finished** match or room (or one ended between deals), and a scoresheet: 30 days. Its
  page offers the record and the replay, History lists it and *Your record* counts it; a month
  covers looking back at last week's games, and a person who wants one for longer downloads
  its record (History, *Export*).
- a **lobby** nobody started: 1 day. A room is made to be played within the hour; a lobby left
  overnight was abandoned, and its code goes back to the pool of free codes.
- an **unfinished** match or room: 7 days. A paused match against the computer, or a room its
  people left, is resumed within days or not at all; a week lets a person come back after a
  weekend away.

Public play (docs/public.md) keeps, besides:

- a **profile**, with its ratings, their history and its plays: 1 year from its last use (made,
  changed, a match or a daily challenge played). Ratings are what a person comes back for, and
  a profile is its token alone: one removed cannot be had back; a year away is a person gone.
- the daily challenge's **standings** (a day's attempts): 90 days after the day's close. The
  standings of the last weeks are looked at; the profile keeps each attempt's calls made and
  accuracy for as long as it is kept.

``callbreak serve --keep-finished 30d --keep-lobbies 1d --keep-unfinished 7d --keep-profiles 52w
--keep-standings 90d`` sets them (``never`` keeps that kind for ever). A table with a
connection open in some process is never removed, however old its last change
(docs/deploy.md, *Retention*).
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import logging
import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from callbreak.web.collector import Collector

if TYPE_CHECKING:  # the command line reads the durations without loading the web app
    from callbreak.web.backend import Backend
    from callbreak.web.metrics import Metrics

__all__ = [
    "DEFAULT_RETENTION",
    "EVICT_EVERY",
    "EXPIRE_EVERY",
    "Retention",
    "expire_public",
    "parse_duration",
    "upkeep",
]

LOG = logging.getLogger("callbreak.web")
DAY = 86_400.0
UNITS = {"s": 1.0, "m": 60.0, "h": 3_600.0, "d": DAY, "w": 7 * DAY}
EVICT_EVERY = 15.0
"""Seconds between two looks for tables to let go of (``Tables.evict``): a table leaves memory
at most this long after its time."""
EXPIRE_EVERY = 600.0
"""Seconds between two sweeps of the store for data past its time: one indexed query in
SQLite, one short script per stored table in Redis (whose keys also expire on their own)."""


def parse_duration(text: str) -> float | None:
    """Seconds in ``text`` (``30d``, ``12h``, ``90m``, ``45s``, ``2w``; ``never``: None);
    ValueError saying what is accepted otherwise.

    >>> parse_duration("30d"), parse_duration("90m"), parse_duration("never")
    (2592000.0, 5400.0, None)
    """
    cleaned = text.strip().lower()
    if cleaned == "never":
        return None
    found = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([smhdw])", cleaned)
    if found is None or float(found[1]) <= 0:
        raise ValueError(
            f"a duration is a number and a unit (s, m, h, d or w), such as 30d or 12h, or "
            f"never; not {text!r}"
        )
    return float(found[1]) * UNITS[found[2]]


@dataclasses.dataclass(frozen=True)
class Retention:
    """How long each kind of stored table is kept after its last change, in seconds (None: for
    ever)."""

    finished: float | None = 30 * DAY
    """Finished and ended matches and rooms, and scoresheets."""
    lobbies: float | None = 1 * DAY
    """Rooms never started."""
    unfinished: float | None = 7 * DAY
    """Matches and rooms being played."""
    profiles: float | None = 364 * DAY
    """Profiles, from their last use, with their ratings, rating history and plays."""
    standings: float | None = 90 * DAY
    """The daily challenge's attempts, from the close of their day."""

    def keep(self, status: str) -> float | None:
        """How long a table of ``status`` is kept after its last change (None: for ever)."""
        from callbreak.web.model import LOBBY, PLAYING  # the app's, loaded only when serving

        if status == LOBBY:
            return self.lobbies
        if status == PLAYING:
            return self.unfinished
        return self.finished

    def cutoffs(self, now: float) -> dict[str, float]:
        """By status, the last change before which a table is past its time at ``now``."""
        from callbreak.web.model import STATUSES

        found: dict[str, float] = {}
        for status in STATUSES:
            seconds = self.keep(status)
            if seconds is not None:
                found[status] = now - seconds
        return found


DEFAULT_RETENTION = Retention()


class Kept(Protocol):
    """What the upkeep needs of a process's tables (``web.tables.Tables``)."""

    backend: Backend
    metrics: Metrics

    async def expire(self, retention: Retention, now: float) -> list[str]:
        """Remove the stored tables past their time at ``now``, never one in use here."""

    def evict(self) -> list[str]:
        """Let go of the tables nobody uses."""


async def expire_public(backend: Backend, retention: Retention, now: float) -> None:
    """Remove the profiles unused past their time and the standings of the days past theirs,
    at ``now``."""
    if retention.profiles is not None:
        await backend.expire_profiles(now - retention.profiles)
    if retention.standings is not None:
        # A day's standings are kept from its close, the start of the next day: the days
        # that closed before ``now - standings`` are gone.
        closed = datetime.datetime.fromtimestamp(now - retention.standings, datetime.UTC).date()
        await backend.expire_attempts(closed.isoformat())


async def upkeep(
    tables: Kept,
    retention: Retention,
    clock: Callable[[], float] = time.time,
    evict_every: float = EVICT_EVERY,
    expire_every: float = EXPIRE_EVERY,
    collector: Collector | None = None,
) -> None:
    """Run for as long as the server does: let go of idle tables every ``evict_every``
    seconds (and make the full garbage collections, ``collector``), and remove data past its
    time every ``expire_every`` (once at the start). Every process of a Redis deployment runs
    it: each step is safe to run twice at once."""
    loop = asyncio.get_running_loop()
    collector = collector or Collector()
    expired_at = -expire_every
    while True:
        if loop.time() - expired_at >= expire_every:
            expired_at = loop.time()
            try:
                await tables.expire(retention, clock())
                finished = retention.finished
                if finished is not None:
                    await tables.backend.expire_sheets(clock() - finished)
                await expire_public(tables.backend, retention, clock())
            except Exception:  # the store out of reach: tried again at the next sweep
                LOG.exception("could not remove the data past its time")
        try:
            # What the tables let go of and their closed sockets leave behind in reference
            # cycles (the WebSocket library's parser and compression state among them: about
            # 200 kB a room) is freed only by a full collection: benchmarks/rooms.py measured
            # the heap 59% above its size before 200 rooms, 90 s after they ended, without
            # one. web.collector says when one is due (a pause that grows with the rooms).
            pause = collector.look(bool(tables.evict()))
            if pause is not None:
                tables.metrics.collections.observe(pause)
        except Exception:  # a bug: the log says so, and the next look tries again
            LOG.exception("could not let go of idle tables")
        await asyncio.sleep(evict_every)
