"""How much one address or one connection may ask of the server: token buckets, and the
server's other bounds (the remote bots it may call, the threads that search for hints).

A bucket holds at most ``burst`` tokens and gains ``rate`` a second; each request takes one.
Rooms created and joins are limited per address, messages per connection (docs/rooms.md).
"""

from __future__ import annotations

import dataclasses
import time

from callbreak.bots.remote import NO_BOTS, BotAddresses

__all__ = ["DEFAULT", "Bucket", "Limits", "PerAddress"]


@dataclasses.dataclass(frozen=True)
class Limits:
    """The server's limits; tests that play at machine speed raise the message rate."""

    bots: BotAddresses = NO_BOTS
    """The remote bots that rooms and matches may seat (``callbreak serve --bots``): none
    unless the operator allows addresses, since the server calls them."""
    search_threads: int = 2
    """Threads for the searches of hints and the replays of *Your record*, shared by every
    table of the process (off the event loop)."""
    search_queue: int = 8
    """Such jobs that may wait for a thread; past them the answer is "the server is busy"."""

    joins_per_minute: float = 20.0
    """Rooms created plus joins, per address."""
    join_burst: float = 5.0
    messages_per_second: float = 20.0
    """Socket messages per connection; a person sends a few a minute."""
    message_burst: float = 60.0
    strikes: int = 20
    """Messages over the rate a connection may send before it is closed."""


DEFAULT = Limits()


class Bucket:
    """A token bucket: ``rate`` a second, at most ``burst`` saved up."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self.level, self.stamp = burst, time.monotonic()

    def take(self) -> bool:
        """Whether one more is allowed now (and take it)."""
        now = time.monotonic()
        self.level = min(self.burst, self.level + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.level < 1:
            return False
        self.level -= 1
        return True


class PerAddress:
    """A bucket per address, forgetting addresses idle for ten minutes."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self._buckets: dict[str, Bucket] = {}

    def allow(self, address: str) -> bool:
        """Whether ``address`` may make one more request now."""
        if len(self._buckets) > 100_000:  # forget idle addresses rather than grow forever
            idle = time.monotonic() - 600
            self._buckets = {a: b for a, b in self._buckets.items() if b.stamp > idle}
        bucket = self._buckets.setdefault(address, Bucket(self.rate, self.burst))
        return bucket.take()
