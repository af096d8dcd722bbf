"""The review's figures: its noise for one decision, its speed, and whether it orders the levels.

    PYTHONPATH=src python benchmarks/review.py noise [--runs 10] [--time S]
    taskset -c 0 env PYTHONPATH=src python benchmarks/review.py speed [--time S]
    PYTHONPATH=src python -m callbreak arena 'expert(time=0.3)' random beginner intermediate \\
        advanced --rules strict --sets 20 --seed 31 --records DIR
    PYTHONPATH=src python benchmarks/review.py skill --records DIR [--out FILE] [--jobs N] \\
        [--sets N] [--a-label NAME] [--a-seats one|all] [--records DIR2 --a-label NAME2 ...]

``noise`` reviews one call and one card of a fixed match with ``--runs`` seeds and prints the
spread of their points lost. ``speed`` times the review of one seat of a whole 5-deal match
(hindsight included). ``skill`` reviews the arena's records: each level's seat of every set's
baseline (the four levels below the expert at one table) and the expert's seat of one of the
set's matches on the same deals, and prints each level's mean points lost per match and each
step between neighbouring levels, paired by set, with 95% intervals, and the same for the
accuracy (docs/review.md). ``--out`` keeps every decision's points lost and options' values,
so a run stopped is resumed, and the accuracy can be recomputed from it. The records' A need
not be the expert: ``--a-label`` names it, ``--a-seats all`` reviews its seat in all four of a
set's a-matches, and a further ``--records DIR2 --a-label NAME2`` (an arena of another A
against the same levels, seed and sets) adds its A's seats as a row after the first's, paired
with it by set on the same deals (the levels' rows come from the first folder).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import itertools
import json
import math
import statistics
import time as clock
from pathlib import Path
from typing import Any

from callbreak.game import Match
from callbreak.record import Record, load
from callbreak.review import DEFAULT_TIME, accuracy, review
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


Seat = dict[str, Any]
"""One seat-match reviewed, as --out keeps it: its points lost and every decision as
[kind ("c" or "p"), points lost, [each option's value, best first]], so that any accuracy can
be computed from it later without reviewing again."""


def _reviewed(job: tuple[str, int, float]) -> Seat:
    path, seat, time = job
    result = review(load(path), seat, time=time, hindsight=False)
    decisions = [
        [d.kind[0], round(d.lost, 4), [round(o.value, 4) for o in d.options]]
        for d in result.decisions
    ]
    return {"lost": result.summary.lost, "decisions": decisions}


def _accuracy(seat: Seat) -> float:
    # review.accuracy, from the stored decisions (a decision's stake: its options' spread).
    decisions = seat["decisions"]
    return accuracy([d[1] for d in decisions], [max(d[2]) - min(d[2]) for d in decisions])


def _former_accuracy(seat: Seat) -> float:
    # The accuracy before issue 43, for comparison: the mean over the decisions with more than
    # one option of 100·exp(-points lost), every decision counting the same.
    chosen = [d[1] for d in seat["decisions"] if len(d[2]) > 1]
    return statistics.mean(100 * math.exp(-lost) for lost in chosen) if chosen else 100.0


def _ranks(values: list[float]) -> list[float]:
    """Each value's rank from 1, ties given their mean rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for k in range(start, end + 1):
            ranks[order[k]] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def _complete(folder: str) -> set[str]:
    """The sets whose five records are all written (the arena writes a3 last)."""
    ends = "-baseline.json"
    names = {path.name[: -len(ends)] for path in Path(folder).glob(f"*{ends}")}
    return {name for name in names if (Path(folder) / f"{name}-a3.json").exists()}


def skill(
    arenas: list[tuple[str, str]],
    time: float,
    out: str | None,
    jobs: int,
    first: int | None,
    all_a_seats: bool = False,
) -> None:
    # The records of `callbreak arena 'expert(time=0.3)' random beginner intermediate advanced
    # --records`: each set's baseline seats the four levels (seat s plays LEVELS[s]), and its
    # match a{s} the expert (A) in seat s and the levels in the others, on the same deals.
    # Every level's seat of the baseline and of the three a-matches it plays in is reviewed
    # (four matches a set), and A's seat of one a-match (a{set % 4}), or of all four. A level's
    # figure for a set is the mean of its matches there; a step between neighbouring levels is
    # the mean over sets of their difference on the same deals (paired), so the deals' luck
    # cancels out. ``arenas`` are (records folder, what its A is): the levels are the first's;
    # a further arena (another A, the same seed and levels) adds only its A's seats, whose
    # records --out names "A/set-match".
    sets = sorted(set.intersection(*(_complete(folder) for folder, _ in arenas)))[:first]
    if not sets:
        names = ", ".join(folder for folder, _ in arenas)
        raise SystemExit(f"no complete arena records (*-baseline.json ... *-a3.json) in {names}")
    folders = {"": arenas[0][0]} | {a: folder for folder, a in arenas[1:]}  # by record prefix
    wanted: dict[str, list[tuple[str, int]]] = {}  # "set:level" -> its (record, seat)s
    for number, name in enumerate(sets):
        for match in ("baseline", "a0", "a1", "a2", "a3"):
            for seat, level in enumerate(LEVELS):
                if match != f"a{seat}":
                    wanted.setdefault(f"{name}:{level}", []).append((f"{name}-{match}", seat))
        seats = range(4) if all_a_seats else [number % 4]
        for prefix, (_, a) in zip(folders, arenas, strict=True):
            named = f"{prefix}/{name}" if prefix else name
            wanted[f"{name}:{a}"] = [(f"{named}-a{s}", s) for s in seats]
    done: dict[str, Seat] = {}  # "record:seat" -> its figures; kept in --out, read back
    if out and Path(out).exists():
        kept = json.loads(Path(out).read_text())
        if kept.get("time") != time:
            raise SystemExit(f"{out} holds reviews at time={kept.get('time')}, not {time}")
        done = kept.get("reviews", {})
    todo = sorted(
        {pair for pairs in wanted.values() for pair in pairs}
        - {(key.rsplit(":", 1)[0], int(key.rsplit(":", 1)[1])) for key in done}
    )
    work = []
    for record, seat in todo:
        prefix, _, base = record.rpartition("/")
        work.append((f"{folders[prefix]}/{base}.json", seat, time))
    with concurrent.futures.ProcessPoolExecutor(jobs) as pool:
        answers = zip(todo, pool.map(_reviewed, work), strict=True)
        for count, ((record, seat), figures) in enumerate(answers, 1):
            done[f"{record}:{seat}"] = figures
            print(f"review {count}/{len(todo)}", flush=True)
            if out:
                Path(out).write_text(json.dumps({"time": time, "reviews": done}))
    print(f"{len(sets)} sets, {len(done)} seats reviewed at time={time}")
    # How closely each accuracy follows the points lost, seat-match by seat-match: the rank
    # correlation (Spearman's) over every seat-match of these sets; -1 is the same order.
    seats = [done[f"{record}:{seat}"] for pairs in wanted.values() for record, seat in pairs]
    lost_ranks = _ranks([float(seat["lost"]) for seat in seats])
    for name, of in (("accuracy", _accuracy), ("former accuracy", _former_accuracy)):
        rho = statistics.correlation(lost_ranks, _ranks([of(seat) for seat in seats]))
        print(
            f"rank correlation of points lost and {name} over {len(seats)} seat-matches: {rho:.3f}"
        )
    # Each figure with its sign: a step is the worse level's less the better's for the points
    # lost, the better's less the worse's for the accuracy, so that the ladder's order is > 0.
    figures = {
        "points lost": (lambda seat: float(seat["lost"]), 1),
        "accuracy": (_accuracy, -1),
        "former accuracy": (_former_accuracy, -1),
    }
    for title, (figure, sign) in figures.items():
        per_set = {
            level: [
                statistics.mean(
                    figure(done[f"{record}:{seat}"]) for record, seat in wanted[f"{name}:{level}"]
                )
                for name in sets
            ]
            for level in (*LEVELS, *(a for _, a in arenas))
        }
        print()
        print(f"| level | sets | {title} per match, mean [95% interval] |")
        print("| --- | --- | --- |")
        for level, values in per_set.items():
            print(f"| {level} | {len(values)} | {_interval(values)} |")
        print()
        print(f"| step | {title}: paired difference per match, mean [95% interval] |")
        print("| --- | --- |")
        for worse, better in itertools.pairwise(per_set):
            pairs = zip(per_set[worse], per_set[better], strict=True)
            steps = [sign * (a - b) for a, b in pairs]
            names = (worse, better) if sign > 0 else (better, worse)
            print(f"| {names[0]} − {names[1]} | {_interval(steps)} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("noise", "speed", "skill"))
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument(
        "--records", action="append", help="skill: the folder of the arena's records (repeatable)"
    )
    parser.add_argument(
        "--a-label", action="append", help="skill: what each --records' A is (default: expert)"
    )
    parser.add_argument(
        "--a-seats",
        choices=("one", "all"),
        default="one",
        help="skill: review A's seat in one a-match a set (default) or in all four",
    )
    parser.add_argument("--jobs", type=int, default=1, help="skill: processes reviewing at once")
    parser.add_argument("--time", type=float, default=DEFAULT_TIME)
    parser.add_argument("--out", help="skill: write every match's figures to this JSON file")
    parser.add_argument("--sets", type=int, help="skill: only the first N complete sets")
    args = parser.parse_args()
    if args.what == "noise":
        noise(args.runs, args.time)
    elif args.what == "speed":
        speed(args.time)
    else:
        if not args.records:
            parser.error("skill needs --records DIR (the arena's records; see docs/review.md)")
        labels = args.a_label or ["expert"] * len(args.records)
        if len(labels) != len(args.records) or len(set(labels) | set(LEVELS)) != len(labels) + 4:
            parser.error("skill needs one distinct --a-label per --records, none a level's name")
        arenas = list(zip(args.records, labels, strict=True))
        skill(arenas, args.time, args.out, args.jobs, args.sets, args.a_seats == "all")


if __name__ == "__main__":
    main()
