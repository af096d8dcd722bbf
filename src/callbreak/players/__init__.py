"""Computer players from random to expert, built from one spec string.

>>> player = make_player("intermediate(seed=3)")
>>> player.spec
'intermediate(seed=3)'
>>> make_player("grandmaster")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
callbreak.players.base.PlayerError: unknown player 'grandmaster': players are random, ...
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from callbreak.players.base import Event, Player, PlayerError, decide, play_match
from callbreak.spec import SpecError, parse_spec

__all__ = [
    "LEVELS",
    "Event",
    "Player",
    "PlayerError",
    "decide",
    "make_player",
    "play_match",
]


def _random(**options: Any) -> Player:
    from callbreak.players.simple import RandomPlayer

    return RandomPlayer(**options)


def _beginner(**options: Any) -> Player:
    from callbreak.players.simple import BeginnerPlayer

    return BeginnerPlayer(**options)


def _intermediate(**options: Any) -> Player:
    from callbreak.players.simple import IntermediatePlayer

    return IntermediatePlayer(**options)


def _expert(**options: Any) -> Player:
    from callbreak.players.expert import ExpertPlayer

    return ExpertPlayer(**options)


LEVELS: dict[str, Callable[..., Player]] = {
    "random": _random,
    "beginner": _beginner,
    "intermediate": _intermediate,
    "expert": _expert,
}

_OPTIONS = {
    "random": {"seed"},
    "beginner": {"seed"},
    "intermediate": {"seed"},
    "expert": {
        "time", "seed", "threads", "rollouts", "eps", "solve_below", "rival_weight",
        "win_weight", "call_spread",
    },
}  # fmt: skip


def make_player(spec: str) -> Player:
    """A player from its spec: 'random', 'beginner', 'intermediate', 'expert(time=0.5, seed=7)'."""
    try:
        name, options = parse_spec(spec, "player", "'expert' or 'expert(time=0.5, seed=7)'")
    except SpecError as error:
        raise PlayerError(str(error)) from None
    name = name.lower()
    if name not in LEVELS:
        raise PlayerError(f"unknown player {name!r}: players are {', '.join(LEVELS)}")
    for key in options:
        if key not in _OPTIONS[name]:
            known = ", ".join(sorted(_OPTIONS[name]))
            raise PlayerError(f"unknown option {key!r} for {name}: options are {known}")
    try:
        return LEVELS[name](**options)
    except (TypeError, ValueError) as error:
        raise PlayerError(f"bad option in {spec!r}: {error}") from None
