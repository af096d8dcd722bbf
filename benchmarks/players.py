"""Decisions per second of each player level, and the expert's search speed and decision times.

Run: ``python benchmarks/players.py [--matches N] [--time T] [--rules R] [--options O]
[--levels L,...]``. Each
level plays whole matches in seat 0 against three intermediate players; every decision of seat
0 is timed. For the learned player it prints the median and 95th percentile of its decision
times (forced cards included, as a table sees them, and without them; wall clock, and CPU
time, which a loaded machine does not stretch) and its memory: the
weights' arrays and what building the first one added to the process's resident memory
(the model is read once per process and shared by every learned seat).
For the expert it also prints the median and 95th percentile of its decision times
at the given budget (the default budget is 1.0 s per decision), with its default options or the
given ones (``--options "inference=calls, search=flat"``), and the playouts per second of the
flat search when it is the one timed (the default tree counts iterations, not playouts).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time
from collections.abc import Callable
from typing import TypeVar

import numpy as np

from callbreak.cards import Card
from callbreak.game import Match, Observation
from callbreak.players import Player, PlayerError
from callbreak.players.encoding import CARD_BASE, NUM_ACTIONS, encode
from callbreak.players.expert import ExpertPlayer
from callbreak.players.learned import LearnedPlayer, features
from callbreak.seating import make_player, play_match
from callbreak.warmup import warm_up

T = TypeVar("T")


def time_level(spec: str, matches: int, rules: str) -> list[float]:
    """Seat 0's decision times over ``matches`` matches."""
    times: list[float] = []
    for index in range(matches):
        player = make_player(spec.format(seed=index))
        field = [make_player(f"intermediate(seed={index * 3 + k})") for k in range(3)]
        result = play_match(Match(rules, seed=f"bench/{index}"), [player, *field])
        times += result.times[0]
    return times


def _percentiles(times: list[float]) -> str:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"median {statistics.median(ordered) * 1000:.3f} ms, 95th percentile {p95 * 1000:.3f} ms"


class Timed(Player):
    """A player whose every decision is timed here, forced cards apart."""

    def __init__(self, player: Player) -> None:
        self.player = player
        self.times: list[float] = []
        self.chosen: list[float] = []
        self.cpu: list[float] = []
        """CPU seconds of each decision (this thread's): its cost whatever the machine's load."""
        self.seen: list[Observation] = []

    def _timed(self, decide: Callable[[], T], forced: bool) -> T:
        started, cpu = time.perf_counter(), time.thread_time()
        answer = decide()
        seconds = time.perf_counter() - started
        self.cpu.append(time.thread_time() - cpu)
        self.times.append(seconds)
        if not forced:
            self.chosen.append(seconds)
        return answer

    def call(self, observation: Observation, *, time: float | None = None) -> int:
        return self._timed(lambda: self.player.call(observation), False)

    def play(self, observation: Observation, *, time: float | None = None) -> Card:
        self.seen.append(observation)
        forced = len(observation.legal_cards) == 1
        return self._timed(lambda: self.player.play(observation), forced)


def _resident() -> int:
    """The process's resident memory in bytes now (Linux)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize()


def learned_memory() -> None:
    """What the learned player's model holds, before anything else built one (the warm-up's
    stand-in is a learned player: the model is read once per process)."""
    before = _resident()
    player = make_player("learned")
    grown = _resident() - before
    assert isinstance(player, LearnedPlayer)
    size = sum(array.nbytes for array in player.model.arrays.values())
    print(
        f"learned: weights {size / 1e6:.2f} MB as float32 arrays; building the first player "
        f"added {grown / 1e6:.1f} MB to the process's resident memory"
    )


def learned(matches: int, rules: str) -> None:
    """The learned player's decision times (one process, one thread) and its memory."""
    player = make_player("learned")
    timed = Timed(player)
    for index in range(matches):
        field = [make_player(f"intermediate(seed={index * 3 + k})") for k in range(3)]
        play_match(Match(rules, seed=f"bench/{index}"), [timed, *field])
    print(f"learned decisions: {len(timed.times)}, {_percentiles(timed.times)}")
    print(f"learned decisions' CPU time (this thread's): {_percentiles(timed.cpu)}")
    print(f"learned decisions with a choice: {len(timed.chosen)}, {_percentiles(timed.chosen)}")
    # What a search that asked the network about many positions at once would pay for each
    # (the inputs built from the vectors, then the forward pass), CPU time.
    vectors = np.stack([encode(seen, 5) for seen in timed.seen])
    legal = np.zeros((len(vectors), NUM_ACTIONS), dtype=bool)
    for row, seen in enumerate(timed.seen):
        for card in seen.legal_cards:
            legal[row, CARD_BASE + int(card)] = True
    batch = min(1024, len(vectors))
    started = time.process_time()
    repeats = 20
    for _ in range(repeats):
        player.model.card_logits(features(vectors[:batch], legal[:batch]))
    each = (time.process_time() - started) / repeats / batch
    print(f"learned in batches of {batch} positions: {each * 1e6:.1f} µs CPU a position")


def expert_search(matches: int, budget: float, rules: str, options: str = "") -> None:
    """The expert's playouts per second and decision-time distribution."""
    searches: list[dict[str, float]] = []
    original = ExpertPlayer.rank_cards

    def tracked(self: ExpertPlayer, observation: object, **limit: object) -> object:
        ranked = original(self, observation, **limit)  # type: ignore[arg-type]
        searches.append(dict(self.last_search))
        return ranked

    ExpertPlayer.rank_cards = tracked  # type: ignore[assignment,method-assign]
    try:
        extra = f", {options}" if options else ""
        times = time_level(f"expert(time={budget}, seed={{seed}}{extra})", matches, rules)
    finally:
        ExpertPlayer.rank_cards = original  # type: ignore[method-assign]
    played = [s for s in searches if s.get("playouts")]  # a tree's searches count iterations
    if played:
        rate = sum(s["playouts"] for s in played) / sum(s["seconds"] for s in played)
        print(f"expert playouts: {rate:.0f} playouts/s (each from the decision to the deal's end)")
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    print(
        f"expert(time={budget}{extra}) decisions: {len(times)}, "
        f"median {statistics.median(times):.3f} s, "
        f"95th percentile {p95:.3f} s, max {ordered[-1]:.3f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--time", type=float, default=1.0, help="the expert's budget")
    parser.add_argument("--rules", default="strict")
    parser.add_argument("--options", default="", help="the expert's options, as in its spec")
    parser.add_argument(
        "--levels",
        default="random,beginner,intermediate,learned,expert",
        help="the levels to time, comma-separated (default all)",
    )
    args = parser.parse_args()
    levels = {level.strip() for level in args.levels.split(",")}
    if args.options:
        try:  # a bad option is one clear error before anything is timed
            make_player(f"expert(time={args.time}, {args.options})")
        except PlayerError as error:
            parser.error(f"--options: {error}")
    if "learned" in levels:
        learned_memory()
    print(f"warm-up (loading the compiled kernel): {warm_up():.1f} s, not counted below")
    for level in ("random", "beginner", "intermediate"):
        if level in levels:
            times = time_level(f"{level}(seed={{seed}})", args.matches * 5, args.rules)
            print(f"{level}: {len(times) / sum(times):.0f} decisions/s")
    if "learned" in levels:
        learned(args.matches * 5, args.rules)
    if "expert" in levels:
        expert_search(args.matches, args.time, args.rules, args.options)


if __name__ == "__main__":
    main()
