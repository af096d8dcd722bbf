"""People's ratings in a pool: every finished public match rates its people once.

The model is OpenSkill's Plackett-Luce (:func:`model`), the one the leagues use, with the
same parameters; only its drift differs, because people change between matches and a league's
entrants do not (``docs/public.md``). A match is four places, one a seat: a person, or a
computer of a level, which counts as a player of that level's fixed rating (:data:`COMPUTERS`,
measured by the project's leagues) and is never moved by a result. Equal totals share a place
(``Match.places``) and are rated as a tie; a person who left the match for good is rated last,
whatever their seat scored, tied with any other who left.

Rating is a pure function: :func:`rate` takes the ratings before and a match's
:class:`Outcome` and gives an :class:`Update` that carries the match's id, the ratings it was
computed from and the ratings after. :func:`apply` adds an update to a pool's :class:`Book`
exactly once: an update of a match the book has rated already changes nothing, and one computed
from ratings the book no longer holds is refused (:class:`StaleUpdateError`), so that two
processes seeing the same end cannot rate a match twice or undo each other's work. A store
makes it atomic by doing :func:`settle` (read, rate, apply) in one transaction.

>>> book = Book("strict")
>>> outcome = Outcome(
...     "m1", "strict",
...     (Person("ann"), Computer("expert"), Computer("advanced"), Person("bo")),
...     places=(1, 2, 3, 4),
... )
>>> book = settle(book, outcome)
>>> book.rating("ann").matches, book.rating("ann").provisional, book.rating("ann").mu > 25
(1, True, True)
>>> settle(book, outcome) == book  # the same match again: nothing changes
True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from types import MappingProxyType

from openskill.models import PlackettLuce

from callbreak.errors import CallbreakError

__all__ = [
    "BETA",
    "COMPUTERS",
    "DRIFT",
    "MU",
    "PROVISIONAL_MATCHES",
    "SIGMA",
    "Book",
    "Computer",
    "Outcome",
    "Person",
    "PoolRating",
    "RatingError",
    "Seat",
    "StaleUpdateError",
    "Update",
    "apply",
    "model",
    "rate",
    "settle",
]

# OpenSkill's own defaults, named here once so that the leagues and the pools share them.
MU = 25.0
"""A new player's mean."""
SIGMA = MU / 3
"""A new player's deviation."""
BETA = SIGMA / 2
"""The spread of one match's performance around a player's skill."""
DRIFT = MU / 300
"""OpenSkill's tau: how much a person's deviation widens before each match, so that a rating
keeps following a person who improves (or gets worse) instead of freezing."""

PROVISIONAL_MATCHES = 10
"""A rating is provisional until its person has this many rated matches in the pool."""

COMPUTERS: Mapping[str, tuple[float, float]] = MappingProxyType(
    {
        "random": (-23.3, 5.3),
        "beginner": (12.3, 4.0),
        "intermediate": (20.7, 4.0),
        "advanced": (41.4, 3.9),
        "learned": (47.7, 3.9),
        "expert": (51.2, 4.0),
    }
)
"""Each computer level's fixed rating (mean, deviation): the mean, over the two leaderboard
leagues (``leagues/levels-strict`` and ``leagues/levels-bhoos``, docs/strength.md), of the
level's OpenSkill rating there, rounded to a tenth. The leagues rate on the same scale a new
person starts on (every entrant began at :data:`MU`), so a newcomer is taken for a little more
than an intermediate player. The expert of those leagues searched at ``time=0.01``: the expert at a
table, at its full budget, is stronger than its fixed rating says."""


class RatingError(CallbreakError):
    """An outcome that cannot be rated: a bad seat, place or level, or another pool's update."""


class StaleUpdateError(RatingError):
    """An update computed from ratings the book no longer holds: rate the match again."""


def model(*, drift: float = DRIFT) -> PlackettLuce:
    """OpenSkill's Plackett-Luce model with the project's parameters; ``drift`` is its tau."""
    return PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, tau=drift)


@dataclasses.dataclass(frozen=True)
class PoolRating:
    """A person's rating in one pool, with the matches it rests on."""

    mu: float = MU
    sigma: float = SIGMA
    matches: int = 0
    """Rated matches in the pool, left ones included."""
    left: int = 0
    """Of those, the matches the person left for good (rated as last place)."""

    @property
    def ordinal(self) -> float:
        """The rating a leaderboard ranks by: OpenSkill's ordinal, mean less three deviations,
        so that a person ranks by what they have shown for sure, not by a lucky first run."""
        return self.mu - 3 * self.sigma

    @property
    def provisional(self) -> bool:
        """Whether the rating rests on too few matches to rank (fewer than 10)."""
        return self.matches < PROVISIONAL_MATCHES


NEW = PoolRating()
"""The rating of a person the pool has never rated."""


@dataclasses.dataclass(frozen=True)
class Person:
    """A seat held by a person, known by their profile's id."""

    profile: str


@dataclasses.dataclass(frozen=True)
class Computer:
    """A seat held by a computer of a level with a fixed rating (:data:`COMPUTERS`)."""

    level: str


Seat = Person | Computer


@dataclasses.dataclass(frozen=True)
class Outcome:
    """A finished public match as the ratings see it: who held each seat and its place."""

    match_id: str
    pool: str
    seats: tuple[Seat, ...]
    """Each seat's player, by seat: the person rated for the seat, or its computer."""
    places: tuple[int, ...]
    """Each seat's place, 1 the best, equal totals sharing (``Match.places()``)."""
    left: frozenset[int] = frozenset()
    """The seats whose person left the match for good: rated last, whatever the seat scored."""

    def __post_init__(self) -> None:
        if not self.match_id:
            raise RatingError("an outcome needs its match's id")
        if len(self.seats) != 4 or len(self.places) != 4:
            raise RatingError(
                f"a match has 4 seats, not {len(self.seats)} players and {len(self.places)} places"
            )
        if sorted(self.places) != _shared_places(self.places):
            raise RatingError(
                f"places {list(self.places)} are not places of a match (1 the best, equal "
                "places shared, such as 1 2 2 4)"
            )
        profiles = [seat.profile for seat in self.seats if isinstance(seat, Person)]
        if len(set(profiles)) != len(profiles):
            raise RatingError("a person holds one seat of a match, not two")
        for seat in self.seats:
            if isinstance(seat, Computer) and seat.level not in COMPUTERS:
                known = ", ".join(COMPUTERS)
                raise RatingError(f"no fixed rating for level {seat.level!r}: levels are {known}")
        for seat_number in self.left:
            if seat_number not in range(4) or not isinstance(self.seats[seat_number], Person):
                raise RatingError(f"only a person's seat can be left, not seat {seat_number}")

    def ranks(self) -> list[float]:
        """Each seat's rank for the model: its place, or after every place if it was left."""
        return [5.0 if seat in self.left else place for seat, place in enumerate(self.places)]


def _shared_places(places: Sequence[int]) -> list[int]:
    """The places that ``places``' order gives, equal ones sharing (1 2 2 4, never 1 2 2 3)."""
    ordered = sorted(places)
    return [ordered.index(place) + 1 for place in ordered]


@dataclasses.dataclass(frozen=True)
class Update:
    """The ratings one match gives its people, with the ratings it was computed from."""

    match_id: str
    pool: str
    before: Mapping[str, PoolRating]
    """Each rated person's rating before the match (:data:`NEW` for a first match)."""
    after: Mapping[str, PoolRating]
    """Each rated person's rating after it."""


@dataclasses.dataclass(frozen=True)
class Book:
    """A pool's ratings and the matches already rated in it."""

    pool: str
    ratings: Mapping[str, PoolRating] = dataclasses.field(default_factory=dict)
    rated: frozenset[str] = frozenset()
    """The ids of the matches rated: a match in here is never rated again."""

    def rating(self, profile: str) -> PoolRating:
        """A person's rating in the pool (:data:`NEW` if they have none yet)."""
        return self.ratings.get(profile, NEW)


def rate(before: Mapping[str, PoolRating], outcome: Outcome) -> Update:
    """The ratings ``outcome`` gives its people, from their ratings ``before`` (a person who
    is not in it is new). Computers count at their fixed ratings and are not moved."""
    plackett_luce = model()
    teams = []
    for seat in outcome.seats:
        if isinstance(seat, Person):
            held = before.get(seat.profile, NEW)
            teams.append([plackett_luce.rating(mu=held.mu, sigma=held.sigma)])
        else:
            mu, sigma = COMPUTERS[seat.level]
            teams.append([plackett_luce.rating(mu=mu, sigma=sigma)])
    rated = plackett_luce.rate(teams, ranks=outcome.ranks())
    was: dict[str, PoolRating] = {}
    now: dict[str, PoolRating] = {}
    for number, (seat, team) in enumerate(zip(outcome.seats, rated, strict=True)):
        if isinstance(seat, Computer):
            continue  # a fixed rating: what the model says of it is dropped
        held = before.get(seat.profile, NEW)
        was[seat.profile] = held
        now[seat.profile] = PoolRating(
            mu=team[0].mu,
            sigma=team[0].sigma,
            matches=held.matches + 1,
            left=held.left + (number in outcome.left),
        )
    return Update(outcome.match_id, outcome.pool, MappingProxyType(was), MappingProxyType(now))


def apply(book: Book, update: Update) -> Book:
    """``book`` with ``update`` applied once: unchanged if its match is rated already.

    Raises :class:`StaleUpdateError` if a person's rating in the book is no longer the one the
    update was computed from (another match was rated in between): rate the match again from
    the book, as :func:`settle` does.
    """
    if update.pool != book.pool:
        raise RatingError(f"an update of pool {update.pool!r} cannot go in pool {book.pool!r}")
    if update.match_id in book.rated:
        return book
    for profile, held in update.before.items():
        if book.rating(profile) != held:
            raise StaleUpdateError(
                f"match {update.match_id}'s update was computed from a rating of {profile!r} "
                "that has changed since: rate it again"
            )
    ratings = {**book.ratings, **update.after}
    return Book(book.pool, MappingProxyType(ratings), book.rated | {update.match_id})


def settle(book: Book, outcome: Outcome) -> Book:
    """``book`` with ``outcome`` rated in it, once: what a store does in one transaction."""
    if outcome.match_id in book.rated:
        return book
    return apply(book, rate(book.ratings, outcome))
