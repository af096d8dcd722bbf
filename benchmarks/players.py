"""Decisions per second of each player level, and the expert's search speed and decision times.

Run: ``python benchmarks/players.py [--matches N] [--time T] [--rules R] [--options O]``. Each
level plays whole matches in seat 0 against three intermediate players; every decision of seat
0 is timed. For the expert it also prints the median and 95th percentile of its decision times
at the given budget (the default budget is 1.0 s per decision), with its default options or the
given ones (``--options "inference=calls, search=flat"``), and the playouts per second of the
flat search when it is the one timed (the default tree counts iterations, not playouts).
"""

from __future__ import annotations

import argparse
import statistics

from callbreak.game import Match
from callbreak.players import PlayerError
from callbreak.players.expert import ExpertPlayer
from callbreak.seating import make_player, play_match
from callbreak.warmup import warm_up


def time_level(spec: str, matches: int, rules: str) -> list[float]:
    """Seat 0's decision times over ``matches`` matches."""
    times: list[float] = []
    for index in range(matches):
        player = make_player(spec.format(seed=index))
        field = [make_player(f"intermediate(seed={index * 3 + k})") for k in range(3)]
        result = play_match(Match(rules, seed=f"bench/{index}"), [player, *field])
        times += result.times[0]
    return times


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
    args = parser.parse_args()
    if args.options:
        try:  # a bad option is one clear error before anything is timed
            make_player(f"expert(time={args.time}, {args.options})")
        except PlayerError as error:
            parser.error(f"--options: {error}")
    print(f"warm-up (loading the compiled kernel): {warm_up():.1f} s, not counted below")
    for level in ("random", "beginner", "intermediate"):
        times = time_level(f"{level}(seed={{seed}})", args.matches * 5, args.rules)
        print(f"{level}: {len(times) / sum(times):.0f} decisions/s")
    expert_search(args.matches, args.time, args.rules, args.options)


if __name__ == "__main__":
    main()
