"""AEC environment steps per second with random masked actions, on one core.

Run: ``python benchmarks/env.py [--seconds S] [--rules R] [--raw]``. The loop is PettingZoo's
own: ``agent_iter``, ``last`` (the observation dict with its action mask), a uniformly random
legal action drawn from the mask, ``step``; a finished match is followed by ``reset``. A step
is one call or card; the dead steps that close a match are counted too (PettingZoo counts
them). ``--raw`` measures ``raw_env`` without PettingZoo's order-enforcing wrapper.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from callbreak.env import env, raw_env
from callbreak.players import kernel


def measure(rules: str, seconds: float, raw: bool, seed: int) -> tuple[float, int]:
    """Steps per second and matches played in about ``seconds``."""
    table = raw_env(rules=rules) if raw else env(rules=rules)
    kernel.legal(0, -1, -1, -1, True, 0)  # load the compiled legality before the clock starts
    rng = random.Random(seed)
    steps = matches = 0
    start = time.perf_counter()
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
    return steps / (time.perf_counter() - start), matches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rules", default="strict")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--raw", action="store_true", help="raw_env, without the wrapper")
    args = parser.parse_args()
    rate, matches = measure(args.rules, args.seconds, args.raw, args.seed)
    kind = "raw_env" if args.raw else "env"
    print(f"{kind} {args.rules}: {rate:,.0f} steps/s ({matches} matches)")


if __name__ == "__main__":
    main()
