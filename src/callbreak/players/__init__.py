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

import importlib
import inspect
from collections.abc import Callable

from callbreak.players.base import Event, Player, PlayerError, decide, play_match
from callbreak.spec import SpecError, parse_spec

__all__ = [
    "LEVELS",
    "Event",
    "Player",
    "PlayerError",
    "decide",
    "is_remote",
    "make_player",
    "play_match",
    "register",
]


# Each level is a class whose constructor takes the spec's options as keyword arguments; the
# classes are imported on first use, so that listing the levels does not load numba.
LEVELS: dict[str, str] = {
    "random": "callbreak.players.simple:RandomPlayer",
    "beginner": "callbreak.players.simple:BeginnerPlayer",
    "intermediate": "callbreak.players.simple:IntermediatePlayer",
    "expert": "callbreak.players.expert:ExpertPlayer",
}


def register(name: str, factory: str | Callable[..., Player]) -> None:
    """Make ``name`` a player spec: ``factory`` is a class (or 'module:Class') taking options."""
    LEVELS[name.lower()] = factory  # type: ignore[assignment]


def _factory(name: str) -> Callable[..., Player]:
    target: str | Callable[..., Player] = LEVELS[name]
    if isinstance(target, str):
        module, _, attribute = target.partition(":")
        target = getattr(importlib.import_module(module), attribute)
    return target  # type: ignore[return-value]


def is_remote(spec: str) -> bool:
    """Whether a spec is the address of a remote bot rather than one of our levels."""
    return spec.startswith(("http://", "https://"))


def make_player(spec: str, *, bot_budget: float = 1.5) -> Player:
    """A player from its spec: 'random', 'beginner', 'intermediate', 'expert(time=0.5, seed=7)',
    or the address of a remote bot, 'http://127.0.0.1:7000', given ``bot_budget`` seconds per
    round (0 for no limit). A remote bot must answer ``GET /hi`` before it is seated."""
    if isinstance(spec, str) and is_remote(spec):
        from callbreak.bots.remote import RemotePlayer

        remote = RemotePlayer(spec, budget=bot_budget)
        remote.ready()
        return remote
    try:
        name, options = parse_spec(spec, "player", "'expert' or 'expert(time=0.5, seed=7)'")
    except SpecError as error:
        raise PlayerError(str(error)) from None
    name = name.lower()
    if name not in LEVELS:
        raise PlayerError(f"unknown player {name!r}: players are {', '.join(LEVELS)}")
    factory = _factory(name)
    known = [
        parameter.name
        for parameter in inspect.signature(factory).parameters.values()
        if parameter.kind in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY)
    ]
    for key in options:
        if key not in known:
            raise PlayerError(
                f"unknown option {key!r} for {name}: options are {', '.join(sorted(known))}"
            )
    try:
        return factory(**options)
    except (TypeError, ValueError) as error:
        raise PlayerError(f"bad option in {spec!r}: {error}") from None
