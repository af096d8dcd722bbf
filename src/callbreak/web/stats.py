"""A person's own figures across their matches against the computer and the rooms where they
held a seat: matches finished, first places, calls made, average score per deal, overall and
by rules and by the opponents' level (the "Your record" page).

The figures come from the stored actions, replayed; nothing is kept apart from the matches.

>>> from callbreak.game import Match
>>> match = Match("strict(deals=1)", seed=3)
>>> lines = figures([Game(match, 0, "strict", "random")])
>>> lines["total"]["deals"], lines["total"]["matches"]
(0, 0)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from callbreak.game import Match
from callbreak.rules import Rules, format_tenths, made
from callbreak.web.model import COMPUTER, PERSON, TableData
from callbreak.web.state import replay
from callbreak.web.view import level_name

__all__ = ["FRIENDS", "MIXED", "Game", "Line", "figures", "game_of", "opponents_of"]

FRIENDS = "people"
"""The opponents' "level" of a room where another person held a seat."""
MIXED = "mixed"
"""The opponents' "level" when the computers at the table are of different levels."""


@dataclasses.dataclass(frozen=True)
class Game:
    """One match from one seat's side: ``profile`` names its rules, ``opponents`` the level."""

    match: Match
    seat: int
    profile: str
    opponents: str


@dataclasses.dataclass
class Line:
    """The figures of a group of games."""

    matches: int = 0
    """Finished matches (stopped open-ended ones included)."""
    first: int = 0
    """Finished matches in first place (shared or not)."""
    unfinished: int = 0
    deals: int = 0
    """Scored deals (in finished and unfinished matches)."""
    made: int = 0
    """Deals whose call the seat made."""
    points: int = 0
    """The seat's points over those deals, in tenths."""

    def add(self, game: Game) -> None:
        """Count ``game`` in."""
        match, seat = game.match, game.seat
        if match.is_over:
            self.matches += 1
            self.first += match.places()[seat] == 1
        else:
            self.unfinished += 1
        for deal in match.played_deals():
            call = deal.calls[seat]
            assert call is not None  # a played deal has every call
            self.deals += 1
            self.made += made(match.rules, call, deal.won[seat])
            self.points += deal.scores()[seat]

    def to_json(self) -> dict[str, Any]:
        """The line for the page; the average per deal in tenths rounded, as a score string."""
        average = None if not self.deals else format_tenths(round(self.points / self.deals))
        return {
            "matches": self.matches,
            "first": self.first,
            "unfinished": self.unfinished,
            "deals": self.deals,
            "made": self.made,
            "average": average,
        }


def figures(games: Iterable[Game]) -> dict[str, Any]:
    """The figures overall, by rules profile and by opponents' level (most played first)."""
    total = Line()
    by_rules: dict[str, Line] = {}
    by_level: dict[str, Line] = {}
    for game in games:
        total.add(game)
        by_rules.setdefault(game.profile, Line()).add(game)
        by_level.setdefault(game.opponents, Line()).add(game)

    def ranked(lines: dict[str, Line]) -> list[dict[str, Any]]:
        def played(item: tuple[str, Line]) -> tuple[int, str]:
            return -(item[1].matches + item[1].unfinished), item[0]

        order = sorted(lines.items(), key=played)
        return [{"key": key} | line.to_json() for key, line in order]

    return {"total": total.to_json(), "by_rules": ranked(by_rules), "by_level": ranked(by_level)}


def opponents_of(data: TableData, seat: int) -> str:
    """The opponents of ``seat`` as one level: a computer level, ``MIXED``, or ``FRIENDS``
    when another person sat at the table."""
    others = [info for index, info in enumerate(data.seats) if index != seat]
    if any(info.kind == PERSON for info in others):
        return FRIENDS
    levels = {level_name(info.level) or MIXED for info in others if info.kind == COMPUTER}
    return levels.pop() if len(levels) == 1 else MIXED


def game_of(data: TableData, seat: int) -> Game | None:
    """The stored table from ``seat``'s side, or None when a person never played that seat
    (an unknown seat, a lobby, a seat a computer holds) or the table cannot be replayed."""
    if not 0 <= seat < len(data.seats) or data.seats[seat].kind != PERSON:
        return None
    try:
        match = replay(data)
        profile = Rules.parse(data.rules).profile
    except Exception:  # a damaged row must not hide the others
        return None
    return Game(match, seat, profile, opponents_of(data, seat))
