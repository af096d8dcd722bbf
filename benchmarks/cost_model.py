"""The IS-MCTS player's cost model: CPU seconds per iteration against the cards left to play.

Run: ``NUMBA_NUM_THREADS=1 python benchmarks/cost_model.py [--positions N]``. Positions are
taken from seeded matches of four intermediates (every card decision of seat 0); at each, one
tree runs a fixed number of iterations and its CPU time (``time.process_time``, so that other
work on a shared machine counts less) is divided by the iterations. A least-squares line
``seconds = a + b * cards_left`` is printed: ``a`` and ``b`` are the constants of
``callbreak.players.ismcts``.

With ``--worlds``, the cost of an iteration over worlds the expert drew (``search=tree``) is
set against a dealt one's at the same positions, and so is the cost of an iteration over the
drawn worlds whose playouts play the other seats by the model of play (``playouts=model``):
that ratio is ``kernel.MODEL_PLAYOUT_COST``.

With ``--compare SPEC [SPEC ...]``, each player decides at the same positions in turn and the
CPU seconds per decision of each are printed: players given the same ``time`` should spend
about the same.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from callbreak.game import Match
from callbreak.players import kernel
from callbreak.players.knowledge import Knowledge, position
from callbreak.seating import make_player
from callbreak.warmup import warm_up


def positions(count: int, rules: str) -> list[object]:
    """Observations of seat 0 at its card decisions, from seeded intermediate matches."""
    found: list[object] = []
    index = 0
    while len(found) < count:
        match = Match(rules, seed=f"cost/{index}")
        players = [make_player(f"intermediate(seed={s})") for s in range(4)]
        while not match.is_over and len(found) < count:
            seat = match.deal.turn
            assert seat is not None
            seen = match.observation(seat)
            if seat == 0 and not seen.legal_calls and len(seen.legal_cards) > 1:
                found.append(seen)
            if seen.legal_calls:
                match.call(players[seat].call(seen))
            else:
                match.play(players[seat].play(seen))
        index += 1
    return found


def iteration_seconds(seen: object, iterations: int) -> tuple[int, float]:
    """Cards left and CPU seconds per iteration of one tree at this position."""
    knowledge = Knowledge.from_observation(seen)  # type: ignore[arg-type]
    rules = seen.rules  # type: ignore[attr-defined]
    started = time.process_time()
    kernel.ismcts(
        kernel.new_trees(1, iterations + 2),
        kernel.seed_state(1),
        iterations,
        position(seen, knowledge),  # type: ignore[arg-type]
        knowledge.allowed_array(),
        knowledge.sizes_array(),
        np.zeros((0, 4), dtype=np.int64),  # fresh uniform worlds, as the IS-MCTS player deals
        kernel.scoring_of(rules),
        kernel.Playouts(0.1, kernel.NO_MODEL, 0),
        0.7,
    )
    return sum(knowledge.sizes), (time.process_time() - started) / iterations


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=120)
    parser.add_argument("--iterations", type=int, default=20_000)
    parser.add_argument("--rules", default="strict")
    parser.add_argument(
        "--compare", nargs="+", metavar="SPEC", help="CPU per decision of these players instead"
    )
    parser.add_argument(
        "--worlds",
        action="store_true",
        help="the cost of an iteration over drawn worlds (expert(search=tree)) against a dealt one",
    )
    args = parser.parse_args()
    warm_up()
    if args.compare:
        compare_players(args.compare, args.positions, args.rules)
        return
    if args.worlds:
        drawn_worlds(positions(args.positions, args.rules), args.iterations)
        return
    found = positions(args.positions, args.rules)
    rows = [iteration_seconds(seen, args.iterations) for seen in found]
    cards = np.array([r[0] for r in rows], dtype=float)
    seconds = np.array([r[1] for r in rows])
    design = np.stack([np.ones_like(cards), cards], axis=1)
    (a, b), *_ = np.linalg.lstsq(design, seconds, rcond=None)
    print(f"{len(rows)} positions, {args.iterations} iterations each ({args.rules})")
    for low in range(0, 52, 8):
        part = seconds[(cards >= low) & (cards < low + 8)]
        if len(part):
            print(f"  {low:2d}-{low + 7:2d} cards left: {part.mean() * 1e6:.2f} us per iteration")
    print(f"fit: seconds per iteration = {a:.3g} + {b:.3g} * cards left")


def drawn_worlds(found: list[object], iterations: int) -> None:
    """CPU per iteration and card left of one tree dealing fresh worlds (the IS-MCTS player),
    of one over 3,000 worlds drawn by the expert (``search=tree``) and of one over the same
    worlds playing the others by the model of play, and the ratios."""
    import random

    from callbreak.players.expert import ExpertPlayer
    from callbreak.players.inference import PLAY_WEIGHTS
    from callbreak.players.ismcts import NO_WORLDS, Growth, grow_trees

    # The worlds of the measured ratio (docs/benchmarks.md): weighted by the calls, the
    # expert's default when it was measured.
    expert = ExpertPlayer(time=0.1, threads=1, deadline=False, seed=1, inference="calls")
    dealt: list[float] = []
    drawn: list[float] = []
    modelled: list[float] = []
    for seen in found:
        knowledge = Knowledge.from_observation(seen)  # type: ignore[arg-type]
        cards = sum(knowledge.sizes)
        worlds = expert._worlds(seen, knowledge, 3000)  # type: ignore[arg-type]
        runs = (
            (NO_WORLDS, kernel.NO_MODEL, dealt),
            (worlds, kernel.NO_MODEL, drawn),
            (worlds, PLAY_WEIGHTS, modelled),
        )
        for pool, model, out in runs:
            started = time.process_time()
            grow_trees(
                seen,  # type: ignore[arg-type]
                knowledge,
                Growth(iterations=iterations, threads=1, eps=0.1, exploration=0.7),
                random.Random(1),
                worlds=pool,
                model=model,
            )
            out.append((time.process_time() - started) / iterations / cards)
    print(f"{len(found)} positions, {iterations} iterations each")
    print(f"  dealt worlds: {np.mean(dealt) * 1e9:.0f} ns per iteration and card left")
    print(f"  drawn worlds: {np.mean(drawn) * 1e9:.0f} ns per iteration and card left")
    print(f"  ratio: {np.mean(drawn) / np.mean(dealt):.2f}")
    tree_ratio = np.mean(modelled) / np.mean(drawn)
    print(f"  drawn worlds, the others by the model: {np.mean(modelled) * 1e9:.0f} ns")
    print(f"  ratio to drawn worlds (expert.MODEL_TREE_COST): {tree_ratio:.2f}")
    # Whole playouts from the first lead (the flat search's and the calls' cost per card).
    rules = found[0].rules  # type: ignore[attr-defined]
    flags, scoring = kernel.flags_of(rules), kernel.scoring_of(rules)
    before_calls = Match(rules, seed=1).observation(0)
    deals = expert._worlds(before_calls, Knowledge.from_observation(before_calls), 400)
    calls = np.full((len(deals), 4), 3, dtype=np.int64)
    seconds = []
    for model, mask in ((kernel.NO_MODEL, 0), (PLAY_WEIGHTS, 0b1110)):
        started = time.process_time()
        kernel.simulate(deals, 0, calls, flags, scoring, 20, kernel.Playouts(0.1, model, mask), 1)
        seconds.append((time.process_time() - started) / (len(deals) * 20 * 52))
    print(f"  playouts from the first lead: {seconds[0] * 1e9:.0f} ns per card by the policy,")
    print(f"    {seconds[1] * 1e9:.0f} ns with the others by the model")
    print(f"  ratio (kernel.MODEL_PLAYOUT_COST): {seconds[1] / seconds[0]:.2f}")


def compare_players(specs: list[str], count: int, rules: str) -> None:
    """CPU seconds per searched decision of each player at the same positions, the players
    taking turns at each position (so that a busy machine slows them alike)."""
    from callbreak.seating import make_player

    players = [make_player(spec) for spec in specs]
    totals = [0.0 for _ in specs]
    seen_count = 0
    for seen in positions(count, rules):
        for index, player in enumerate(players):
            started = time.process_time()
            player.play(seen)  # type: ignore[arg-type]
            totals[index] += time.process_time() - started
        seen_count += 1
    for spec, total in zip(specs, totals, strict=True):
        print(
            f"{spec}: {total / seen_count * 1000:.1f} ms CPU per decision ({seen_count} positions)"
        )


if __name__ == "__main__":
    main()
