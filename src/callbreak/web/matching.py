"""The pools, and who sits down together: the matching decision, a pure function of who waits
since when, the computers' seats on offer and the time now (the caller's clock, so that a test
moves it).

A table starts as soon as four people wait, the four who waited longest; a person left over
takes a computer's seat at a table of the pool being played (an :class:`Offer`, from its next
deal) when there is one; fewer start together once the longest waiting of them has waited
``wait`` seconds, computers in the empty seats. Nothing else decides: no ratings (a pool of a
few people must seat them within seconds, not look for equals), no addresses.

A pool (:class:`Pool`) is named by the operator (``callbreak serve --pools``, read by
:func:`parse_pools` without loading the web app): its rules, turn clock, the computers that
fill its empty seats and its wait.

>>> waiting = [Waiter("a", 0.0), Waiter("b", 1.0), Waiter("c", 2.0), Waiter("d", 3.0),
...            Waiter("e", 4.0)]
>>> [[w.profile for w in group] for group in tables(waiting, now=5.0, wait=8.0)]
[['a', 'b', 'c', 'd']]
>>> [[w.profile for w in group] for group in tables(waiting[4:], now=12.0, wait=8.0)]
[['e']]
>>> next_look(waiting[4:], now=5.0, wait=8.0)
12.0
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from callbreak.errors import CallbreakError
from callbreak.rules import Rules

__all__ = [
    "DEFAULT_POOLS",
    "DEFAULT_WAIT",
    "SEATS",
    "Decision",
    "Offer",
    "Pool",
    "Waiter",
    "decide",
    "next_look",
    "parse_pools",
    "tables",
]

SEATS = 4
DEFAULT_WAIT = 8.0
"""Seconds a person waits for others before a table starts with computers in the empty seats:
the few seconds every Call Break app's *Play now* takes, long enough for a second person who
pressed at about the same time to be seated with them."""


@dataclasses.dataclass(frozen=True)
class Pool:
    """A pool: its name, its rules, the turn clock, the computers that fill empty seats and how
    long a person waits for others before they do."""

    name: str
    rules: str
    turn_seconds: int = 20
    computers: str = "learned"
    """The level of the computers in the seats nobody took: the learned player, as strong as
    the computers people meet anywhere (the rooms' cover), at a tenth of a millisecond a
    decision (docs/strength.md, *The learned player*)."""
    wait: float = DEFAULT_WAIT
    speed: str = "normal"
    """The computers' pace at the pool's tables (``model.SPEEDS``): tests and the benchmark
    play faster."""


DEFAULT_POOLS = (Pool("strict", "strict"), Pool("bhoos", "bhoos"))


def parse_pools(text: str) -> tuple[Pool, ...]:
    """Pools from ``PROFILE[:SECONDS],...`` (``strict,bhoos:20``): each named by its rules
    profile, 20 s a turn unless given; a ValueError saying what is accepted otherwise."""
    pools = []
    for part in text.split(","):
        name, _, seconds = part.strip().partition(":")
        try:
            Rules.parse(name)
            clock = int(seconds) if seconds else 20
        except (CallbreakError, ValueError) as error:
            raise ValueError(
                f"a pool is PROFILE[:SECONDS], such as bhoos:20; not {part!r}"
            ) from error
        if not name.isidentifier() or not 5 <= clock <= 600:
            raise ValueError(f"a pool is a profile's name and 5-600 s a turn; not {part!r}")
        pools.append(Pool(name, name, clock))
    if len({pool.name for pool in pools}) != len(pools):
        raise ValueError(f"each pool once: {text!r}")
    return tuple(pools)


@dataclasses.dataclass(frozen=True, order=True)
class Waiter:
    """A person on a pool's waiting list: since when (seconds, the clock of the list)."""

    profile: str
    since: float


def _order(waiter: Waiter) -> tuple[float, str]:
    return waiter.since, waiter.profile


@dataclasses.dataclass(frozen=True)
class Offer:
    """A computer's seat a person may take at a table of the pool being played: its room, the
    seat, and the people who sit there already (nobody takes a second seat at a table)."""

    room: str
    seat: int
    people: frozenset[str] = frozenset()


@dataclasses.dataclass(frozen=True)
class Decision:
    """Who sits down now: new tables, and people taking computers' seats (``Offer``)."""

    tables: list[list[Waiter]]
    takeovers: list[tuple[Waiter, Offer]]


def decide(
    waiting: Sequence[Waiter],
    offers: Sequence[Offer],
    now: float,
    wait: float = DEFAULT_WAIT,
) -> Decision:
    """Who sits down now: every four who waited longest at a new table; each other person,
    longest waiting first, in the first of ``offers`` (in the caller's order of preference)
    not yet given and at a table where they do not sit; the rest together at a new table
    once the longest waiting of them has waited ``wait`` seconds. Each person once (a
    profile listed twice counts once), each offer once.

    >>> offer = Offer("ROOM", 2, frozenset({"a"}))
    >>> found = decide([Waiter("a", 0.0), Waiter("b", 1.0)], [offer], now=2.0, wait=8.0)
    >>> [(w.profile, o.room, o.seat) for w, o in found.takeovers], found.tables
    ([('b', 'ROOM', 2)], [])
    """
    seen: set[str] = set()
    ordered: list[Waiter] = []
    for waiter in sorted(waiting, key=_order):
        if waiter.profile not in seen:
            seen.add(waiter.profile)
            ordered.append(waiter)
    groups = [ordered[i : i + SEATS] for i in range(0, len(ordered) - SEATS + 1, SEATS)]
    rest: list[Waiter] = []
    takeovers: list[tuple[Waiter, Offer]] = []
    free = list(offers)
    sitting = {offer.room: set(offer.people) for offer in offers}
    for waiter in ordered[len(groups) * SEATS :]:
        found = next((o for o in free if waiter.profile not in sitting[o.room]), None)
        if found is None:
            rest.append(waiter)
            continue
        free.remove(found)
        sitting[found.room].add(waiter.profile)
        takeovers.append((waiter, found))
    if rest and now - rest[0].since >= wait:
        groups.append(rest)
    return Decision(groups, takeovers)


def tables(waiting: Sequence[Waiter], now: float, wait: float = DEFAULT_WAIT) -> list[list[Waiter]]:
    """The tables to start now from ``waiting`` when no computer's seat is offered: every four
    who waited longest, then the rest together once the longest waiting of them has waited
    ``wait`` seconds (:func:`decide`)."""
    return decide(waiting, (), now, wait).tables


def next_look(waiting: Sequence[Waiter], now: float, wait: float = DEFAULT_WAIT) -> float | None:
    """When the decision changes next without anyone joining or leaving: the moment the longest
    waiting of those a full table leaves over has waited ``wait`` (None: nobody left over)."""
    groups = tables(waiting, now, wait)
    seated = {waiter.profile for group in groups for waiter in group}
    rest = sorted((w for w in waiting if w.profile not in seated), key=_order)
    if not rest:
        return None
    return max(now, rest[0].since + wait)
