"""Computer players from random to expert: the levels, and building one from its options.

Player specs as people write them (``expert(time=0.5, seed=7)``, a remote bot's address) are
read by :mod:`callbreak.seating`; this package knows the levels.

>>> build_player("intermediate", {"seed": 3}).spec
'intermediate(seed=3)'
>>> build_player("grandmaster", {})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
callbreak.players.base.PlayerError: unknown player 'grandmaster': players are random, ...
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Mapping

from callbreak.players.base import Event, Fault, Player, PlayerError, substitute

__all__ = [
    "DESCRIPTIONS",
    "LEVELS",
    "MEASURING",
    "MENU",
    "Event",
    "Fault",
    "Player",
    "PlayerError",
    "build_player",
    "check_options",
    "level_options",
    "register",
    "substitute",
]

Factory = Callable[..., Player]

# Each level is a class whose constructor takes the spec's options as keyword arguments; the
# classes are imported on first use, so that listing the levels does not load numba.
LEVELS: dict[str, str | Factory] = {
    "random": "callbreak.players.simple:RandomPlayer",
    "beginner": "callbreak.players.simple:BeginnerPlayer",
    "intermediate": "callbreak.players.simple:IntermediatePlayer",
    "advanced": "callbreak.players.simple:AdvancedPlayer",
    "expert": "callbreak.players.expert:ExpertPlayer",
    "ismcts": "callbreak.players.ismcts:IsmctsPlayer",
    "learned": "callbreak.players.learned:LearnedPlayer",
}


MEASURING: dict[str, str | Factory] = {
    "oracle": "callbreak.players.oracle:OraclePlayer",
    "seer": "callbreak.players.seer:SeerPlayer",
    "casual": "callbreak.players.simple:CasualPlayer",
}
"""Players for measuring only, never offered as opponents (no menu lists them): ``oracle``
sees every hand when a host shows them (the arena does); ``seer`` is the expert with a share
``truth`` of its worlds replaced by the true deal (shown the same way); ``casual`` is the
policy player with a person's weaknesses as options (``memory``, ``voids``, ``calls``,
``optimism``), the levels' common ground; with none (``casual``) it is the advanced level of
before 2026-12-01."""


DESCRIPTIONS = {
    "random": "plays any legal card",
    "beginner": "forgets the cards gone and hopes for more tricks than its hand holds",
    "intermediate": "remembers the high cards and calls hopefully",
    "advanced": "remembers every card and void and calls a little hopefully",
    "expert": "searches thousands of possible deals, reading every call and card",
    "ismcts": "a tree search over what it cannot see (information-set MCTS)",
    "learned": "plays as the expert taught it, deciding in a blink",
}
"""One line about each level, for menus."""

MENU = ("random", "beginner", "intermediate", "advanced", "learned", "expert")
"""The levels a menu offers as opponents: the ladder, each step clearly stronger (see
docs/strength.md; ``learned``, the expert's play learned into a network, decides in a fraction
of a millisecond and stands between ``advanced`` and the expert). ``ismcts`` is a level too, the
expert's sparring partner."""


def register(name: str, factory: str | Factory) -> None:
    """Make ``name`` a level: ``factory`` is a class (or 'module:Class') taking options."""
    LEVELS[name.lower()] = factory


def _factory(name: str) -> Factory:
    try:
        target = LEVELS[name] if name in LEVELS else MEASURING[name]
    except KeyError:
        raise PlayerError(f"unknown player {name!r}: players are {', '.join(LEVELS)}") from None
    if isinstance(target, str):
        module, _, attribute = target.partition(":")
        loaded: Factory = getattr(importlib.import_module(module), attribute)
        return loaded
    return target


def level_options(name: str) -> list[str]:
    """The options the level ``name`` takes; PlayerError for an unknown level."""
    return [
        parameter.name
        for parameter in inspect.signature(_factory(name)).parameters.values()
        if parameter.kind in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY)
    ]


def check_options(name: str, options: Mapping[str, object]) -> None:
    """Raise PlayerError unless ``name`` is a level that takes every one of ``options``."""
    known = level_options(name)
    for key in options:
        if key not in known:
            raise PlayerError(
                f"unknown option {key!r} for {name}: options are {', '.join(sorted(known))}"
            )


# What a spec's value must be for each annotated parameter type of a level's constructor (the
# annotations are text here): a wrong type would otherwise fail deep inside the search, or in
# the compiled kernel, with a traceback instead of one clear error.
_KINDS: dict[str, tuple[tuple[type, ...], str]] = {
    "float": ((int, float), "a number"),
    "int": ((int,), "a whole number"),
    "int | None": ((int,), "a whole number"),
    "bool": ((bool,), "true or false"),
    "str": ((str,), "a word"),
}


def _check_types(name: str, options: Mapping[str, object], text: str | None) -> None:
    """Raise PlayerError for an option whose value is not of its parameter's type."""
    parameters = inspect.signature(_factory(name)).parameters
    for key, value in options.items():
        annotation = parameters[key].annotation
        kinds, words = _KINDS.get(annotation if isinstance(annotation, str) else "", ((), ""))
        wrong = isinstance(value, bool) and bool not in kinds  # a bool is an int to Python
        if kinds and (wrong or not isinstance(value, kinds)):
            raise PlayerError(
                f"bad option in {text or name!r}: {key} must be {words}, not {value!r}"
            )


def build_player(name: str, options: Mapping[str, object], text: str | None = None) -> Player:
    """A player of level ``name`` with ``options``; PlayerError names what is wrong (quoting
    ``text``, the spec as written, when given)."""
    check_options(name, options)
    _check_types(name, options, text)
    try:
        return _factory(name)(**options)
    except (TypeError, ValueError) as error:
        raise PlayerError(f"bad option in {text or name!r}: {error}") from None
