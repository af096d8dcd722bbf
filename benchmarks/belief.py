"""How much the expert's belief knows: the probability it gives the true holder of each card.

Run: ``python benchmarks/belief.py RECORD_DIR [--deals N] [--worlds W] [--temperatures 1,2]
[--extra SPEC]``.
At every card decision of every seat in the records' deals (each seat's view, rebuilt from the
record: only its own hand and the public plays), the expert's sampler draws ``W`` worlds with
each kind of inference: the rules alone (``inference=rules``), the calls (``calls``, the
expert's default until 2026-12-02) and the calls and plays (``plays``, at each temperature; the
default since then is 2). For every card the seat
cannot see, the share of worlds that put it in the hand that really holds it is the belief's
mass on the truth; the script prints its mean per trick (1-13) for each kind. With three other
hands a uniform guess gives about 1/3 at the first trick. A second table gives the share of the
``W`` worlds that are distinct after the resampling by weight: a belief that piles its weight
on a few worlds is sharp but searches only those.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from callbreak.players.expert import ExpertPlayer
from callbreak.players.knowledge import Knowledge
from callbreak.record import load
from callbreak.seating import make_player


def views(folder: str, deals: int) -> list[tuple[object, list[int]]]:
    """(a seat's observation at a card decision, the true hands then) for the first deals."""
    found: list[tuple[object, list[int]]] = []
    used = 0
    for path in sorted(Path(folder).glob("*.json")):
        record = load(str(path))
        rules = record.parsed_rules()
        for deal_record in record.deals:
            if used >= deals or len(deal_record.tricks) < 13:
                continue
            used += 1
            deal = deal_record.deal_after_calls(rules)  # the calls in calling order
            for trick in deal_record.tricks:
                for card in trick:
                    seat = deal.turn
                    assert seat is not None
                    if len(deal.legal_cards()) > 1:
                        truth = [deal.held(s).mask for s in range(4)]
                        found.append((deal.observation(seat), truth))
                    deal.play(card)
    return found


def mass_on_truth(worlds: np.ndarray, truth: list[int], unseen: int) -> float:
    """Mean over the unseen cards of the share of worlds giving each to its true holder."""
    shares = []
    rest = unseen
    while rest:
        card = (rest & -rest).bit_length() - 1
        rest &= rest - 1
        holder = next(s for s in range(4) if truth[s] >> card & 1)
        shares.append(float(np.mean((worlds[:, holder] >> card) & 1)))
    return float(np.mean(shares)) if shares else 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder")
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--worlds", type=int, default=2000)
    parser.add_argument("--pool", type=int, default=3)
    parser.add_argument("--temperatures", default="1")
    parser.add_argument(
        "--extra", action="append", default=[], help="another expert spec to measure"
    )
    args = parser.parse_args()
    kinds: list[tuple[str, ExpertPlayer]] = [
        ("rules", ExpertPlayer(seed=1, inference="rules", pool=args.pool)),
        ("calls", ExpertPlayer(seed=1, inference="calls", pool=args.pool)),
    ]
    for text in args.temperatures.split(","):
        temperature = float(text)
        player = ExpertPlayer(
            seed=1, inference="plays", play_temperature=temperature, pool=args.pool
        )
        kinds.append((f"plays T={temperature:g}", player))
    for spec in args.extra:
        built = make_player(spec)
        assert isinstance(built, ExpertPlayer)
        kinds.append((spec, built))
    table: dict[str, list[list[float]]] = {name: [[] for _ in range(13)] for name, _ in kinds}
    distinct: dict[str, list[list[float]]] = {name: [[] for _ in range(13)] for name, _ in kinds}
    found = views(args.folder, args.deals)
    for seen, truth in found:
        knowledge = Knowledge.from_observation(seen)  # type: ignore[arg-type]
        trick = len(seen.tricks)  # type: ignore[attr-defined]
        for name, player in kinds:
            worlds = player._worlds(seen, knowledge, args.worlds)  # type: ignore[arg-type]
            table[name][trick].append(mass_on_truth(worlds, truth, knowledge.unseen))
            distinct[name][trick].append(len(np.unique(worlds, axis=0)) / len(worlds))
    print(f"{len(found)} decisions from {args.deals} deals of {args.folder}, {args.worlds} worlds")
    names = [name for name, _ in kinds]
    print("\nMass on the true holder")
    print_table(table, names, len(found))
    print("\nShare of the worlds that are distinct")
    print_table(distinct, names, len(found))


def print_table(table: dict[str, list[list[float]]], names: list[str], decisions: int) -> None:
    """A markdown table: one row per trick and one for all, one column per kind."""
    print("| trick | decisions | " + " | ".join(names) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in names) + " |")
    for trick in range(13):
        counts = len(table[names[0]][trick])
        if not counts:
            continue
        cells = [f"{np.mean(table[name][trick]):.3f}" for name in names]
        print(f"| {trick + 1} | {counts} | " + " | ".join(cells) + " |")
    cells = [f"{np.mean([v for row in table[name] for v in row]):.3f}" for name in names]
    print("| all | " + str(decisions) + " | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
