"""The warm-up loads every compiled kernel function the players call from Python."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from callbreak.players import PlayerError
from callbreak.warmup import needs_kernel

PLAYERS = Path(__file__).parent.parent / "src" / "callbreak" / "players"

# In a fresh process (this one has compiled kernel functions in other tests already): warm up,
# then list the kernel's compiled functions that have machine code for some signature.
PROBE = """
import json
from numba.core.registry import CPUDispatcher
from callbreak.players import kernel
from callbreak.warmup import warm_up
warm_up()
dispatchers = {  # the parallel ones are wrapped (kernel.interruptible)
    name: value if isinstance(value, CPUDispatcher) else getattr(value, "__wrapped__", value)
    for name, value in vars(kernel).items()
}
print(json.dumps({
    name: bool(value.signatures)
    for name, value in dispatchers.items() if isinstance(value, CPUDispatcher)
}))
"""


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


def test_warm_up_compiles_every_kernel_function_the_players_call() -> None:
    result = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=600, check=True
    )
    compiled = json.loads(result.stdout.splitlines()[-1])
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

# In a fresh process on the cache other tests left: when the warm-up's first search decision
# starts, the stand-in's functions must have machine code already (loaded or compiled first),
# and the search's not yet.
ORDER = """
import json
from callbreak.players import kernel
from callbreak.players.expert import ExpertPlayer
from callbreak.warmup import warm_up
from callbreak.warmup import _dispatcher
seen = {}
original = ExpertPlayer.rank_calls
def rank_calls(self, observation, **limits):
    if not seen:
        names = ("choose", "hand_strength", "simulate", "evaluate")
        seen.update({name: bool(_dispatcher(getattr(kernel, name)).signatures) for name in names})
    return original(self, observation, **limits)
ExpertPlayer.rank_calls = rank_calls
warm_up()
print(json.dumps(seen))
"""


def test_the_warm_up_readies_the_stand_in_before_the_search() -> None:
    result = subprocess.run(
        [sys.executable, "-c", ORDER], capture_output=True, text=True, timeout=600, check=True
    )
    seen = json.loads(result.stdout.splitlines()[-1])
    assert seen == {"choose": True, "hand_strength": True, "simulate": False, "evaluate": False}


class Searcher:
    kernel_functions = ("evaluate", "legal")  # evaluate is faked below; legal is compiled


class FakeDispatcher:
    def __init__(self) -> None:
        self.signatures: list[object] = []


def test_ready_waits_for_a_search_player_only_while_the_warm_up_compiles(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from callbreak import warmup
    from callbreak.players import kernel

    kernel.legal(1, 0, 0, 0, False, 0)
    compiling = FakeDispatcher()
    monkeypatch.setattr(kernel, "evaluate", compiling)
    assert warmup.ready(Searcher(), grace=0.05)  # no warm-up runs: decide (and compile) as before
    monkeypatch.setattr(warmup, "preparing", lambda: True)
    assert not warmup.ready(Searcher(), grace=0.05)  # still compiling: the stand-in decides
    assert warmup.ready(object(), grace=0.05)  # a player without a search never waits
    compiling.signatures.append("(int64,)")
    assert warmup.ready(Searcher(), grace=0.05)


def test_ready_waits_up_to_its_grace_for_a_load_in_progress(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import threading

    from callbreak import warmup
    from callbreak.players import kernel

    kernel.legal(1, 0, 0, 0, False, 0)
    loading = FakeDispatcher()
    monkeypatch.setattr(kernel, "evaluate", loading)
    monkeypatch.setattr(warmup, "preparing", lambda: True)
    threading.Timer(0.2, loading.signatures.append, ["(int64,)"]).start()
    assert warmup.ready(Searcher(), grace=5.0)


def test_each_search_player_names_the_kernel_functions_it_calls() -> None:
    from numba.core.registry import CPUDispatcher

    from callbreak.players import kernel
    from callbreak.players.expert import ExpertPlayer
    from callbreak.players.ismcts import IsmctsPlayer
    from callbreak.players.oracle import OraclePlayer

    def dispatcher(name: str) -> bool:
        value = getattr(kernel, name)  # a dispatcher, or one wrapped by kernel.interruptible
        return isinstance(value, CPUDispatcher) or isinstance(
            getattr(value, "__wrapped__", None), CPUDispatcher
        )

    for module, player in (
        ("expert", ExpertPlayer()),
        ("ismcts", IsmctsPlayer()),
        ("oracle", OraclePlayer()),
    ):
        text = (PLAYERS / f"{module}.py").read_text()
        called = {name for name in re.findall(r"\bkernel\.(\w+)\(", text) if dispatcher(name)}
        assert called == set(player.kernel_functions), module
    plays = ExpertPlayer(inference="plays").kernel_functions
    assert set(plays) - set(ExpertPlayer().kernel_functions) == {"play_log_likelihoods"}
