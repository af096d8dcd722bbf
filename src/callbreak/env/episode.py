"""One episode: a seeded match stepped on a :class:`~callbreak.env.table.Table`, and the same
match in the engine, driven through :mod:`callbreak.seating`.

The table answers every step; the engine's :class:`~callbreak.game.Match` receives the same
actions through :meth:`Seating.apply <callbreak.seating.Seating.apply>` when someone needs it:
a seat's player (the other seats of the single-agent environment decide through
:meth:`Seating.decide <callbreak.seating.Seating.decide>` on the engine's observation), the
match itself, or its game record. Deals come from the match seed exactly as the engine deals
them, so both hold the same cards.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from callbreak.env.table import (
    EnvError,
    Table,
    action_of,
    deal_hands,
    engine_action,
    first_dealer,
)
from callbreak.errors import CallbreakError
from callbreak.game import Match
from callbreak.players import Player
from callbreak.record import Record
from callbreak.rules import Rules
from callbreak.seating import OPEN_ENDED_DEALS, PlayerSpec, Seating, derive_seed

__all__ = ["REWARDS", "Episode", "Seeds", "episode_rules", "place_rewards"]

REWARDS = ("deal", "match")


def episode_rules(rules: str | Rules, deals: int | None) -> tuple[Rules, int]:
    """The rules of an episode's match and how many played deals it lasts.

    ``deals`` replaces a profile's number of deals; an open-ended profile (pagat) keeps its
    rules and the episode stops the match after ``deals`` deals (by default as many as a
    five-deal match, as :func:`callbreak.seating.play_match` does).

    >>> [(str(r), n) for r, n in (episode_rules("strict", 1), episode_rules("pagat", None))]
    [('strict(deals=1)', 1), ('pagat', 5)]
    """
    try:
        parsed = Rules.load(rules)
    except CallbreakError:
        raise
    except Exception as error:
        raise EnvError(f"rules must be a profile name or one-string rules: {error}") from None
    if deals is not None and (
        isinstance(deals, bool) or not isinstance(deals, int) or not 1 <= deals <= 1000
    ):
        raise EnvError(f"deals must be a whole number 1-1000 or None, not {deals!r}")
    if parsed.deals is None:
        return parsed, deals or OPEN_ENDED_DEALS
    if deals is not None and deals != parsed.deals:
        parsed = parsed.replace(deals=deals)
    assert parsed.deals is not None
    return parsed, parsed.deals


def place_rewards(places: Sequence[int]) -> list[float]:
    """The ``reward="match"`` rewards: (seats placed below - seats placed above) / 3, so 1 for
    an outright first, -1 for an outright last, and equal places share.

    >>> place_rewards([1, 2, 2, 4])
    [1.0, 0.0, 0.0, -1.0]
    """
    return [
        (sum(other > mine for other in places) - sum(other < mine for other in places)) / 3
        for mine in places
    ]


class Seeds:
    """Match seeds for successive episodes: ``reset(seed=s)`` plays the match of seed ``s``,
    the resets after it without a seed the matches of seeds derived from ``s``."""

    def __init__(self) -> None:
        self.base: int | None = None
        self.count = 0

    def next(self, seed: int | None) -> int:
        """The match seed of the next episode."""
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, int):
                raise EnvError(f"a seed is a whole number, not {seed!r}")
            self.base, self.count = seed, 0
        if self.base is None:
            self.base, self.count = secrets.randbits(48), 0
        self.count += 1
        return self.base if self.count == 1 else derive_seed(self.base, "episode", self.count - 1)


class Episode:
    """A seeded match on a table, with the engine's match and seats behind it."""

    def __init__(
        self,
        rules: Rules,
        deals: int,
        seed: int,
        occupants: Sequence[Player | PlayerSpec | str | None] = (None, None, None, None),
        *,
        bot_budget: float = 1.5,
    ) -> None:
        self.seed = seed
        self.match = Match(rules, seed=seed)
        self.seating = Seating(self.match, occupants, bot_budget=bot_budget)
        self.table = Table(rules, deals)
        self.table.next_dealer = first_dealer(seed)
        self._pending: list[int] = []
        self._deal()

    def _deal(self) -> None:
        table = self.table
        if table.needs_deal and not table.over:
            dealer = table.next_dealer
            table.start(deal_hands(self.seed, table.played, table.redeals, dealer), dealer)

    def act(self, action: int) -> None:
        """Take ``action`` for the seat to act (the table checks it), dealing on when a deal
        ends; the engine receives it at the next :meth:`sync`."""
        self.table.apply(action)
        self._pending.append(int(action))
        self._deal()

    def sync(self) -> Seating:
        """The seating with every action taken so far applied to the engine's match (which
        checks each of them again)."""
        seating = self.seating
        if self._pending:
            for action in self._pending:
                seating.apply(engine_action(action))
            self._pending.clear()
        if self.table.over and not self.match.is_over:
            seating.stop()  # an open-ended profile: the episode's deals are played
        return seating

    def decide(self) -> int:
        """The decision of the player in the seat to act (through the seating), applied."""
        seating = self.sync()
        decision = seating.decide()
        action = action_of(decision.action)
        self.table.apply(action)
        seating.apply(decision.action, decision)
        self._deal()
        return action

    def record(self) -> Record:
        """The game record of the match so far."""
        return self.sync().result().record()

    def close(self) -> None:
        """Close the players the seating built (remote bots' connections)."""
        self.seating.close()
