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
