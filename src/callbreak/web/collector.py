"""Python's full garbage collections, made when a server of many live tables can afford them.

A full collection walks every object the collector tracks, and nothing else runs meanwhile: no
table of the process moves. A live room holds about a thousand of them (its four sockets'
coroutines, closures and buffers, mostly), so at 1,000 rooms a full collection takes 300-600 ms
on the project's machine; and Python starts one by itself whenever the objects that outlived the
young generations grew by a quarter since the last, which while rooms fill a server (a start, a
restart that brings everyone back) is every few seconds: `benchmarks/rooms.py` measured 14 of
them in a minute of 1,000 rooms filling one process, and a 95th percentile of 261 ms from an
action to every person's state where the run without them had 20 ms (docs/benchmarks.md).

So a serving process turns Python's own full collections off (:func:`take_over`) and makes them
on the upkeep's schedule (:class:`Collector`): after tables were let go of (their closed
sockets leave reference cycles behind, about 200 kB a room, which only a full collection
frees), at most once every :data:`FULL_EVERY` seconds, and every :data:`FULL_AT_LEAST` seconds
whatever happened, for the cycles anything else leaves. The young generations stay Python's:
they are small, and a table's short-lived objects die there.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

__all__ = ["FULL_AT_LEAST", "FULL_EVERY", "Collector", "take_over"]

FULL_EVERY = 60.0
"""Seconds at least between two full collections: at 1,000 rooms a pause of about half a second
a minute, under 1% of the time, against one every few seconds while the rooms fill."""
FULL_AT_LEAST = 600.0
"""Seconds at most between two full collections, whether or not a table was let go of."""
NEVER = 2**31 - 1
"""A threshold of the oldest generation that Python's own count never reaches."""


def take_over() -> None:
    """Leave this process's full collections to a :class:`Collector`: Python makes the young
    generations' as before, never a full one by itself. For a serving process only (`callbreak
    serve`): a library or a test that makes an app leaves the process's collector alone."""
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, NEVER)


class Collector:
    """When the upkeep makes a full collection: :meth:`look` at every one of its looks."""

    def __init__(
        self,
        every: float = FULL_EVERY,
        at_least: float = FULL_AT_LEAST,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.every = every
        self.at_least = at_least
        self.clock = clock
        self.last = clock()
        self.owed = False
        """Whether tables were let go of since the last full collection."""

    def look(self, let_go: bool) -> float | None:
        """Make a full collection if one is due (``let_go``: tables were let go of since the
        last look); the seconds it took, or None when none was made."""
        self.owed = self.owed or let_go
        since = self.clock() - self.last
        if since < self.every or (not self.owed and since < self.at_least):
            return None
        started = time.perf_counter()
        gc.collect()
        self.last = self.clock()
        self.owed = False
        return time.perf_counter() - started
