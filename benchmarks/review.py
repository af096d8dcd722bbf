"""The review's figures: its noise for one decision, its speed, and whether it orders the levels.

    PYTHONPATH=src python benchmarks/review.py noise [--runs 10] [--time S]
    taskset -c 0 env PYTHONPATH=src python benchmarks/review.py speed [--time S]
    PYTHONPATH=src python benchmarks/review.py skill [--matches 4] [--time S] [--out FILE]

``noise`` reviews one call and one card of a fixed match with ``--runs`` seeds and prints the
spread of their points lost. ``speed`` times the review of one seat of a whole 5-deal match
(hindsight included). ``skill`` plays matches with the four levels below the expert at the
table, each level in each seat in turn, and the expert itself, and prints each level's mean
points lost per match with a 95% interval (docs/review.md).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import statistics
import time as clock

from callbreak.game import Match
from callbreak.record import Record
from callbreak.review import DEFAULT_TIME, review
from callbreak.seating import Seating, play_match

LEVELS = ("random", "beginner", "intermediate", "advanced")


def _record(seed: int, players: list[str]) -> Record:
    return play_match(Match("strict", seed=seed), players).record()


def _truncated(seed: int, actions: int, player: str = "intermediate") -> Record:
    seating = Seating(Match("strict", seed=seed), [player] * 4)
    for _ in range(actions):
        seating.step()
    seating.close()
    return dataclasses.replace(seating.result().record(), unfinished=True)


def noise(runs: int, time: float) -> None:
    # Seat 0 of match 8's first deal played by random players (whose cards are often not the
    # expert's): its call, and its cards of tricks 1-5.
    record = _truncated(8, 4 + 4 * 5, "random")
    lost: dict[str, list[float]] = {}
    for seed in range(runs):
        result = review(record, 0, time=time, seed=seed, hindsight=False)
        for decision in result.decisions:
            name = "call" if decision.trick is None else f"trick {decision.trick}"
            lost.setdefault(f"{name} ({decision.made})", []).append(decision.lost)
    for name, values in lost.items():
        print(
            f"{name}: mean {statistics.mean(values):.3f}, sd {statistics.stdev(values):.3f}, "
            f"min {min(values):.3f}, max {max(values):.3f} over {runs} seeds"
        )


def speed(time: float) -> None:
    record = _record(1, ["intermediate"] * 4)
    review(_truncated(2, 8), 0, time=0.05)  # the kernel loaded before the clock starts
    started = clock.perf_counter()
    result = review(record, 0, time=time)
    seconds = clock.perf_counter() - started
    print(f"{len(result.decisions)} decisions reviewed in {seconds:.1f} s (time={time})")


def _interval(values: list[float]) -> str:
    mean = statistics.mean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return f"{mean:.2f} [{mean - half:.2f}, {mean + half:.2f}]"


def skill(matches: int, time: float, out: str | None) -> None:
    # Match m seats the four levels below the expert, level (seat + m) % 4 in each seat, and a
    # second match on the same seed (the same deals) seats four experts; each level's seat is
    # reviewed. A step between two neighbouring levels is the mean over matches of their
    # difference on the same deals (paired), so the deals' own luck cancels out of its interval.
    lost: dict[str, list[float]] = {level: [] for level in (*LEVELS, "expert")}
    for match in range(matches):
        players = [LEVELS[(seat + match) % 4] for seat in range(4)]
        record = _record(100 + match, players)
        for seat, level in enumerate(players):
            lost[level].append(review(record, seat, time=time, hindsight=False).summary.lost)
        expert = _record(100 + match, ["expert(time=0.3)"] * 4)
        lost["expert"].append(review(expert, match % 4, time=time, hindsight=False).summary.lost)
        print(f"match {match + 1}/{matches}", flush=True)
        if out:
            with open(out, "w") as file:
                json.dump({"time": time, "first_seed": 100, "lost": lost}, file, indent=1)
    print("| level | matches | points lost per match, mean [95% interval] |")
    print("| --- | --- | --- |")
    for level, values in lost.items():
        print(f"| {level} | {len(values)} | {_interval(values)} |")
    print()
    print("| step | paired difference per match, mean [95% interval] |")
    print("| --- | --- |")
    names = list(lost)
    for better, worse in zip(names[1:], names, strict=False):
        steps = [a - b for a, b in zip(lost[worse], lost[better], strict=True)]
        print(f"| {worse} − {better} | {_interval(steps)} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("noise", "speed", "skill"))
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--matches", type=int, default=4)
    parser.add_argument("--time", type=float, default=DEFAULT_TIME)
    parser.add_argument("--out", help="skill: write every match's figures to this JSON file")
    args = parser.parse_args()
    if args.what == "noise":
        noise(args.runs, args.time)
    elif args.what == "speed":
        speed(args.time)
    else:
        skill(args.matches, args.time, args.out)


if __name__ == "__main__":
    main()
