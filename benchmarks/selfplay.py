"""Self-play records: seeded matches of four copies of one player, written as game records.

Run: ``python benchmarks/selfplay.py SPEC --rules R --matches N --out DIR [--workers W]``.
Match ``i`` is seeded ``selfplay/R/i`` and its players ``SPEC`` with seeds derived from it, so
a run can be repeated and extended. The records feed the fits of the models of play and calls
(``benchmarks/fit_play_model.py``, ``benchmarks/fit_call_model.py``) and the belief
measurement (``benchmarks/belief.py``).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
from pathlib import Path

from callbreak.game import Match
from callbreak.record import dumps
from callbreak.seating import PlayerSpec, play_match
from callbreak.warmup import warm_up


def play_one(job: tuple[str, str, int, str]) -> str:
    """Play match ``index`` and write its record; return its path."""
    spec, rules, index, out = job
    path = Path(out) / f"{rules.replace('(', '_').replace(')', '')}-{index:05d}.json"
    if path.exists():
        return str(path)
    match = Match(rules, seed=f"selfplay/{rules}/{index}")
    # Without the clock, as in the arena: the records do not depend on the machine's load.
    seated = PlayerSpec.parse(spec).with_defaults(deadline=False)
    result = play_match(match, [seated] * 4)
    path.write_text(dumps(result.record()))
    return str(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("spec")
    parser.add_argument("--rules", default="strict")
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--out", required=True)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    Path(args.out).mkdir(parents=True, exist_ok=True)
    jobs = [
        (args.spec, args.rules, index, args.out)
        for index in range(args.start, args.start + args.matches)
    ]
    if args.workers == 1:
        warm_up()
        for job in jobs:
            print(play_one(job), flush=True)
        return
    os.environ["NUMBA_NUM_THREADS"] = "1"
    with multiprocessing.get_context("spawn").Pool(args.workers, initializer=warm_up) as pool:
        for path in pool.imap_unordered(play_one, jobs):
            print(path, flush=True)


if __name__ == "__main__":
    main()
