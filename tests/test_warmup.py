"""The warm-up loads every compiled kernel function the players call from Python."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numba
import pytest

from callbreak.game import Match, Observation
from callbreak.players import Player, PlayerError
from callbreak.seating import decide
from callbreak.warmup import needs_kernel

PLAYERS = Path(__file__).parent.parent / "src" / "callbreak" / "players"


def called_from_python() -> set[str]:
    """Kernel functions the players' Python code calls, read from their source."""
    names: set[str] = set()
    for path in PLAYERS.glob("*.py"):
        if path.name == "kernel.py":
            continue
        text = path.read_text()
        names.update(re.findall(r"\bkernel\.(\w+)\(", text))
        for imported in re.findall(r"from callbreak\.players\.kernel import ([\w, ]+)", text):
            names.update(name.strip() for name in imported.split(","))
    return names


# In a fresh process on the cache other tests left (this one has compiled kernel functions in
# other tests already), the warm-up, watched: which of the stand-in's and the search's functions
# had machine code when its first search decision started (the stand-in must be serving; the
# search's functions not compiled yet), and then which of the kernel's compiled functions have
# machine code for some signature.
WARM_UP = """
import json
from callbreak import warmup
from callbreak.players import kernel
from callbreak.players.expert import ExpertPlayer
from callbreak.warmup import warm_up
seen = {}
original = ExpertPlayer.rank_calls
def rank_calls(self, observation, **limits):
    if not seen:
        seen["stand-in ready"] = warmup.serving()
        for name in ("simulate", "evaluate"):
            seen[name] = bool(kernel.dispatcher(getattr(kernel, name)).signatures)
    return original(self, observation, **limits)
ExpertPlayer.rank_calls = rank_calls
warm_up()
dispatchers = {name: kernel.dispatcher(value) for name, value in vars(kernel).items()}
compiled = {
    name: bool(value.signatures) for name, value in dispatchers.items() if value is not None
}
print(json.dumps({"seen": seen, "compiled": compiled}))
"""


@pytest.fixture(scope="module")
def warmed_up() -> dict[str, dict[str, bool]]:
    """What WARM_UP found, in one fresh process for the module's tests (a warm-up loads the
    whole kernel: about ten seconds on a loaded machine)."""
    result = subprocess.run(
        [sys.executable, "-c", WARM_UP], capture_output=True, text=True, timeout=600, check=True
    )
    return json.loads(result.stdout.splitlines()[-1])  # type: ignore[no-any-return]


@pytest.mark.slow
def test_warm_up_compiles_every_kernel_function_the_players_call(
    warmed_up: dict[str, dict[str, bool]],
) -> None:
    compiled = warmed_up["compiled"]
    called = called_from_python() & set(compiled)
    assert {"choose", "simulate", "evaluate", "sample_worlds", "hand_strength"} <= called
    assert {"ismcts", "play_log_likelihoods"} <= called
    assert sorted(name for name in called if not compiled[name]) == []


def test_which_specs_need_the_kernel() -> None:
    assert not needs_kernel(["random", "random(seed=3)"])
    assert not needs_kernel(["http://127.0.0.1:7000"])
    assert needs_kernel(["random", "beginner"])
    assert needs_kernel(["expert(time=0.5)"])
    with pytest.raises(PlayerError):
        needs_kernel(["expert(time="])


# --- the stand-in while a first start compiles --------------------------------------------------


@pytest.mark.slow
def test_the_warm_up_readies_the_stand_in_before_the_search(
    warmed_up: dict[str, dict[str, bool]],
) -> None:
    seen = warmed_up["seen"]
    assert seen == {"stand-in ready": True, "simulate": False, "evaluate": False}


def test_the_stand_in_needs_nothing_compiled() -> None:
    """The learned player reads its network in numpy: it is ready as soon as its weights are."""
    from callbreak.players import build_player
    from callbreak.warmup import STAND_IN

    stand_in = build_player(STAND_IN, {"seed": 1})
    assert stand_in.kernel_functions(True) == stand_in.kernel_functions(False) == ()
    assert not needs_kernel([STAND_IN])


class Searcher(Player):
    def kernel_functions(self, calling: bool) -> tuple[str, ...]:
        return ("hand_strength",) if calling else ("evaluate", "legal")


def a_card_decision() -> Observation:
    match = Match("strict", seed="ready")
    while match.deal.legal_calls():
        match.call(2)
    return match.observation(match.deal.turn or 0)


def test_ready_waits_for_a_search_player_only_while_the_warm_up_compiles(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from callbreak import warmup
    from callbreak.players import kernel

    kernel.legal(1, 0, 0, 0, False, 0)
    kernel.hand_strength(1)
    compiling = numba.njit(lambda x: x + 1)  # a real dispatcher with no machine code yet
    monkeypatch.setattr(kernel, "evaluate", compiling)
    fresh = Match("strict", seed="ready")
    card, call = a_card_decision(), fresh.observation(fresh.deal.turn or 0)
    assert warmup.ready(card, Searcher(), grace=0.05)  # no warm-up: decide (and compile) as before
    monkeypatch.setattr(warmup, "preparing", lambda: True)
    assert warmup.ready(call, Searcher(), grace=0.05)  # its calls need nothing still compiling
    assert not warmup.ready(card, Searcher(), grace=0.05)  # its cards do: the stand-in decides
    assert warmup.ready(card, Player(), grace=0.05)  # a player without a search never waits
    compiling(1)
    assert warmup.ready(card, Searcher(), grace=0.05)


def test_ready_waits_for_a_load_in_progress_once(monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from callbreak import warmup
    from callbreak.players import kernel

    kernel.legal(1, 0, 0, 0, False, 0)
    loading = numba.njit(lambda x: x + 1)
    monkeypatch.setattr(kernel, "evaluate", loading)
    monkeypatch.setattr(warmup, "preparing", lambda: True)
    monkeypatch.setattr(warmup, "_compiling", threading.Event())
    card = a_card_decision()
    threading.Timer(0.2, loading, [1]).start()
    assert warmup.ready(card, Searcher(), grace=30.0)  # compiled (here: loaded) meanwhile
    monkeypatch.setattr(kernel, "evaluate", numba.njit(lambda x: x + 2))
    assert not warmup.ready(card, Searcher(), grace=0.05)  # the wait ran out: compiling
    assert not warmup.ready(card, Searcher(), grace=30.0)  # so the next decision does not wait


def positions() -> list[tuple[Observation, tuple[int, ...]]]:
    """A call, a card early in a deal, and a card the search solves exactly (few cards left),
    each with a choice; with the four hands held then (for the oracle)."""
    from callbreak.players.simple import AdvancedPlayer

    match = Match("strict", seed="positions")
    advanced = AdvancedPlayer(seed=1)
    seen = []
    while not match.deal.is_over and len(seen) < 3:
        observation = match.observation(match.deal.turn or 0)
        wanted = [13, 12, 4][len(seen)]
        has_choice = len(observation.legal_calls or observation.legal_cards) > 1
        if len(observation.hand) == wanted and has_choice:
            seen.append((observation, tuple(match.deal.held(s).mask for s in range(4))))
        match.apply(decide(advanced, observation).action)
    assert len(seen) == 3
    return seen


@pytest.mark.slow
def test_each_search_player_names_the_kernel_functions_its_decisions_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every compiled function a search player's call or card reaches from Python (through
    any module) is among its ``kernel_functions`` for that kind of decision, which
    ``warmup.ready`` checks."""
    import importlib
    import pkgutil

    import callbreak.players as package
    from callbreak.players import kernel
    from callbreak.players.expert import ExpertPlayer
    from callbreak.players.ismcts import IsmctsPlayer
    from callbreak.players.oracle import OraclePlayer

    called: list[str] = []
    compiled = {name for name, value in vars(kernel).items() if kernel.dispatcher(value)}

    def recording(name: str, function: Any) -> Any:
        def call(*args: Any) -> Any:
            called.append(name)
            return function(*args)

        return call

    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"callbreak.players.{info.name}")
        for name, value in list(vars(module).items()):
            if kernel.dispatcher(value) is not None:
                monkeypatch.setattr(module, name, recording(name, value))
    fast = {"time": 0.01, "deadline": False, "seed": 1}
    players = [
        ExpertPlayer(**fast),  # type: ignore[arg-type]
        ExpertPlayer(search="flat", **fast),  # type: ignore[arg-type]
        ExpertPlayer(inference="rules", calls="model", **fast),  # type: ignore[arg-type]
        ExpertPlayer(search="flat", inference="calls", **fast),  # type: ignore[arg-type]
        ExpertPlayer(search="tree", inference="calls", **fast),  # type: ignore[arg-type]
        ExpertPlayer(call_likelihood="sound", **fast),  # type: ignore[arg-type]
        IsmctsPlayer(**fast),  # type: ignore[arg-type]
        OraclePlayer(seed=1, rollouts=2),
    ]
    for player in players:
        for observation, hands in positions():
            if isinstance(player, OraclePlayer):
                player.see(hands)
            called.clear()
            decide(player, observation)
            calling = bool(observation.legal_calls)
            assert called, player.spec
            assert set(called) <= set(player.kernel_functions(calling)), (player.spec, calling)
        for calling in (True, False):
            assert set(player.kernel_functions(calling)) <= compiled
