"""How long the first expert move waits on a fresh install: the kernel compiled from an empty
numba cache, then loaded from the cache it left.

Run: ``python benchmarks/compile.py [--runs N]``. Each measurement is a new Python process with
``NUMBA_CACHE_DIR`` set to a new empty folder (as after ``pip install``), timing from before
``import callbreak`` to the expert's first decision (a call, as in a new match), and then to the
end of the servers' warm-up (every kernel function the levels call). Wall and CPU seconds are
both printed: on a busy machine the CPU seconds are the steadier figure. A second process on the
same cache shows what every later start pays.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

CHILD = """
import json, resource, time
start = time.perf_counter()
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
from callbreak.game import Match
from callbreak.players.expert import ExpertPlayer
match = Match("strict", seed="compile")
seat = match.deal.turn
ExpertPlayer(time=0.02, seed=1, deadline=False).call(match.observation(seat))
first = (time.perf_counter() - start, cpu())
from callbreak.warmup import warm_up
warm_up()
print(json.dumps({"first": first, "all": (time.perf_counter() - start, cpu())}))
"""


def measure(cache: str) -> dict[str, list[float]]:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    out = subprocess.run(
        [sys.executable, "-c", CHILD], env=env, check=True, capture_output=True, text=True
    ).stdout
    result: dict[str, list[float]] = json.loads(out.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1, help="fresh caches to measure")
    args = parser.parse_args()
    for run in range(args.runs):
        with tempfile.TemporaryDirectory() as cache:
            for label in ("empty cache", "cached"):
                figures = measure(cache)
                (first_wall, first_cpu), (all_wall, all_cpu) = figures["first"], figures["all"]
                print(
                    f"run {run + 1}, {label}: first expert call after {first_wall:.1f} s "
                    f"({first_cpu:.1f} s CPU); whole warm-up after {all_wall:.1f} s "
                    f"({all_cpu:.1f} s CPU)",
                    flush=True,
                )


if __name__ == "__main__":
    main()
