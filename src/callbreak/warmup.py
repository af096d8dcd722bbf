"""Load the search's compiled kernel before anyone waits on it.

numba compiles each kernel function at its first call and keeps the machine code in a cache on
disk. On a fresh install compiling them all takes about half a minute of CPU on the 2-core
project machine (30-43 s for this warm-up; ``benchmarks/compile.py``, ``docs/benchmarks.md``),
and even from the cache loading them takes a moment (0.7 s). A person at a browser table or a
remote host counting a bot's time budget should pay neither, so servers (and the arena's
workers, whose decision times are reported) warm up first.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable

from callbreak.players import Player
from callbreak.seating import PlayerSpec

NO_KERNEL = frozenset({"random"})
"""Levels that never call the kernel."""


_warming = threading.Event()


def preparing() -> bool:
    """Whether this process is loading (or, on a fresh install, compiling) the kernel now: a
    page says so rather than only "thinking" while a computer's first decision waits on it."""
    return _warming.is_set()


def warm_up() -> float:
    """Play one short seeded deal with two small experts (one inferring from plays), a small
    IS-MCTS player and an advanced player, which calls every kernel function the players call
    (calling, world sampling, playouts, the exact solver, the card policy, the model of play,
    the tree search); return the seconds it took."""
    _warming.set()
    try:
        return _play_warm_up()
    finally:
        _warming.clear()


def _play_warm_up() -> float:
    from callbreak.game import Match
    from callbreak.players.expert import ExpertPlayer
    from callbreak.players.ismcts import IsmctsPlayer
    from callbreak.players.simple import AdvancedPlayer
    from callbreak.seating import play_match

    started = time.perf_counter()
    match = Match("strict(deals=1)", seed="warm-up")
    # In the order a first match against the browser's default opponents (three experts) needs
    # them: the default expert calls first and leads the first trick, so its calls' search and
    # then its cards' are ready before the rest (the model of play, IS-MCTS, the solver).
    players: list[Player] = [
        ExpertPlayer(time=0.02, seed=0, deadline=False),
        ExpertPlayer(time=0.02, seed=1, deadline=False, inference="plays"),
        IsmctsPlayer(time=0.02, seed=2, deadline=False),
        AdvancedPlayer(seed=3),
    ]
    first = match.deal.turn or 0  # the first to call; the default expert (players[0]) sits there
    play_match(match, players[-first:] + players[:-first])
    return time.perf_counter() - started


def needs_kernel(specs: Iterable[str | PlayerSpec]) -> bool:
    """Whether any of these player specs uses the compiled kernel (remote bots do not)."""
    parsed = [PlayerSpec.parse(spec) for spec in specs]
    return any(not spec.remote and spec.name not in NO_KERNEL for spec in parsed)
