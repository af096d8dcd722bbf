"""Load the search's compiled kernel before anyone waits on it.

numba compiles each kernel function at its first call and keeps the machine code in a cache on
disk. On a fresh install compiling them all takes about half a minute of CPU on the 2-core
project machine (30-43 s for this warm-up; ``benchmarks/compile.py``, ``docs/benchmarks.md``),
and even from the cache loading them takes a moment (0.7 s). A person at a browser table or a
remote host counting a bot's time budget should pay neither, so servers (and the arena's
workers, whose decision times are reported) warm up first.

On a fresh install the search levels' functions are ready only half a minute into the warm-up,
while the learned level needs nothing compiled at all (a network read in numpy). So a host where
people wait (the browser app) asks :func:`ready` before a computer's decision: while the warm-up
is still compiling what a search player needs, the learned level stands in for it (and the game
record says so), rather than leave the table waiting for the compiler.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable

from callbreak.game import Observation
from callbreak.players import Player
from callbreak.seating import PlayerSpec

NO_KERNEL = frozenset({"random", "learned"})
"""Levels that never call the kernel (the learned player's network runs in numpy)."""

STAND_IN = "learned"
"""The level that decides for a search player whose compiled functions are not ready yet: the
learned player, the expert's play distilled into a network read in numpy, needs no compile and
plays closer to the expert than the advanced level, which stood in before (docs/strength.md,
*The learned player*)."""
GRACE = 1.0
"""Seconds a decision waits for a search player's functions before the stand-in decides: loading
them from the cache of an earlier start takes about a second, compiling them half a minute."""


_warming = threading.Event()
_compiling = threading.Event()  # a wait in ready() ran out: the kernel is compiled, not loaded
_stand_in_ready = threading.Event()  # the warm-up has made the stand-in's call and first card


def preparing() -> bool:
    """Whether this process is loading (or, on a fresh install, compiling) the kernel now
    (then :func:`ready` may let a stand-in decide)."""
    return _warming.is_set()


def serving() -> bool:
    """Whether every computer can decide now without a wait for the compiler: no warm-up runs,
    or the stand-in that decides for the searching levels meanwhile is ready (a server's
    readiness, ``web.health``)."""
    return not preparing() or _stand_in_ready.is_set()


def warm_up() -> float:
    """Make the stand-in's call and first card (the learned player's weights read), then play
    one short seeded deal with two small experts (one inferring from plays), a small IS-MCTS
    player and the advanced player, which calls every kernel function the players call
    (calling, world sampling, playouts, the exact solver, the card policy, the model of play,
    the tree search); return the seconds it took."""
    _warming.set()
    try:
        return _play_warm_up()
    finally:
        _warming.clear()
        _compiling.clear()


def _play_warm_up() -> float:
    from callbreak.game import Match
    from callbreak.players import build_player
    from callbreak.players.expert import ExpertPlayer
    from callbreak.players.ismcts import IsmctsPlayer
    from callbreak.players.simple import AdvancedPlayer
    from callbreak.seating import play_match

    started = time.perf_counter()
    # First what the stand-in needs (no compile: its weights read): its call and its card.
    stand_in = build_player(STAND_IN, {"seed": 3})
    match = Match("strict(deals=1)", seed="warm-up")
    while match.deal.legal_calls():
        match.call(stand_in.call(match.observation(match.deal.turn or 0)))
    stand_in.play(match.observation(match.deal.turn or 0))
    _stand_in_ready.set()
    advanced = AdvancedPlayer(seed=3)
    match = Match("strict(deals=1)", seed="warm-up")
    # In the order a first match against the browser's default opponents (three experts) needs
    # them: the default expert calls first and leads the first trick, so its calls' search and
    # then its cards' (the model of play, the tree, the solver) are ready before the rest (the
    # flat search the advisor uses, IS-MCTS). The second expert reads calls the other way, so
    # that both readings are compiled.
    players: list[Player] = [
        ExpertPlayer(time=0.02, seed=0, deadline=False),
        ExpertPlayer(time=0.02, seed=1, deadline=False, search="flat", call_likelihood="sound"),
        IsmctsPlayer(time=0.02, seed=2, deadline=False),
        advanced,
    ]
    first = match.deal.turn or 0  # the first to call; the default expert (players[0]) sits there
    play_match(match, players[-first:] + players[:-first])
    return time.perf_counter() - started


def ready(observation: Observation, player: Player | None, grace: float | None = None) -> bool:
    """Whether ``player`` can make the decision of ``observation`` now without waiting on the
    warm-up's compile: always, unless the warm-up runs and a compiled function that decision
    calls (the player's ``kernel_functions``) has no machine code yet after ``grace`` seconds
    (``GRACE``) of waiting. Once a wait has run out the warm-up is compiling, not loading a
    cache, and later decisions do not wait."""
    from callbreak.players import kernel

    if player is None:  # a person's seat: nothing to compile
        return True
    calling = bool(observation.legal_calls) or observation.may_claim_redeal
    names = player.kernel_functions(calling)
    waited_until = time.monotonic() + (GRACE if grace is None else grace)
    while preparing():
        if all(kernel.dispatcher(getattr(kernel, name)).signatures for name in names):
            return True
        if _compiling.is_set() or time.monotonic() >= waited_until:
            _compiling.set()
            return False
        time.sleep(0.05)
    return True


def needs_kernel(specs: Iterable[str | PlayerSpec]) -> bool:
    """Whether any of these player specs uses the compiled kernel (remote bots do not)."""
    parsed = [PlayerSpec.parse(spec) for spec in specs]
    return any(not spec.remote and spec.name not in NO_KERNEL for spec in parsed)
