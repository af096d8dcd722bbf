"""How far the expert's simulated trick count at call time is from the tricks it then takes.

Run: ``python benchmarks/call_bias.py [--deals N] [--expert SPEC] [--opponent SPEC]``. Each
seeded one-deal match seats the expert in turn in each seat against three copies of the
opponent (strict rules); at its call the mean of the trick distribution it called on is
noted, and at the end of the deal the tricks it took. The difference, averaged over the deals
with its 95% interval, is the bias of the simulation the expert calls on: its playouts play
its own seat by the policy, not by its search, and the other seats by the policy too.
"""

from __future__ import annotations

import argparse
import statistics

from callbreak.game import Call, Match
from callbreak.players.base import decide
from callbreak.players.expert import ExpertPlayer
from callbreak.seating import PlayerSpec, make_player


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--expert", default="expert(time=0.1, threads=1)")
    parser.add_argument("--opponent", default="casual")  # the sound policy player
    args = parser.parse_args()
    if args.deals < 2:
        parser.error("--deals must be 2 or more (the interval needs two)")
    simulated: list[float] = []
    taken: list[int] = []
    for number in range(args.deals):
        match = Match("strict(deals=1)", seed=f"bias-{number}")
        seat = number % 4
        expert = make_player(PlayerSpec.parse(args.expert).with_defaults(seed=number))
        assert isinstance(expert, ExpertPlayer)
        others = {
            s: make_player(PlayerSpec.parse(args.opponent).with_defaults(seed=100 * number + s))
            for s in range(4)
            if s != seat
        }
        while not match.is_over:
            turn = match.deal.turn
            assert turn is not None
            observation = match.observation(turn)
            if turn == seat and observation.legal_calls:
                call, _, distribution = expert.rank_calls(observation)[0]
                simulated.append(sum(t * p for t, p in enumerate(distribution)))
                match.apply(Call(call))
                continue
            match.apply(decide(expert if turn == seat else others[turn], observation))
        taken.append(match.deals[-1].won[seat])
        if (number + 1) % 10 == 0:
            print(
                f"{number + 1} deals: simulated {statistics.mean(simulated):.2f} tricks, "
                f"taken {statistics.mean(taken):.2f}",
                flush=True,
            )
    gaps = [t - s for t, s in zip(taken, simulated, strict=True)]
    half = 1.96 * statistics.stdev(gaps) / len(gaps) ** 0.5
    print(
        f"{args.expert} against three {args.opponent}, {len(gaps)} deals: took "
        f"{statistics.mean(gaps):+.2f} tricks (+-{half:.2f}) more than its simulation gave"
    )


if __name__ == "__main__":
    main()
