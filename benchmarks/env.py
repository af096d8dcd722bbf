"""AEC environment steps per second with random masked actions, on one core.

Run: ``python benchmarks/env.py [--seconds S] [--rules R]``. The loop is PettingZoo's
own: ``agent_iter``, ``last`` (the observation dict with its action mask), a uniformly random
legal action drawn from the mask, ``step``; a finished match is followed by ``reset``. A step
is one call or card; the dead steps that close a match are counted too (PettingZoo counts
them). ``env()`` is ``raw_env`` itself, with its own order checks (``docs/env.md``). Steps per
second of the process's CPU time are printed too: on a machine shared with other work they
say more than the wall clock.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from callbreak.env import env
from callbreak.players import kernel


def measure(rules: str, seconds: float, seed: int) -> tuple[float, float, int]:
    """Steps per wall-clock second, steps per second of this process's CPU time, and the
    matches played, in about ``seconds``."""
    table = env(rules=rules)
    kernel.legal(0, -1, -1, -1, True, 0)  # load the compiled legality before the clock starts
    rng = random.Random(seed)
    steps = matches = 0
    start = time.perf_counter()
    cpu = time.process_time()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        table.reset(seed=seed + matches)
        for _agent in table.agent_iter():
            observation, _reward, terminated, truncated, _info = table.last()
            if terminated or truncated:
                table.step(None)
            else:
                legal = np.flatnonzero(observation["action_mask"])
                table.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
        matches += 1
    wall = time.perf_counter() - start
    return steps / wall, steps / (time.process_time() - cpu), matches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rules", default="strict")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rate, cpu_rate, matches = measure(args.rules, args.seconds, args.seed)
    print(
        f"env {args.rules}: {rate:,.0f} steps/s, {cpu_rate:,.0f} steps per CPU second "
        f"({matches} matches)"
    )


if __name__ == "__main__":
    main()
