"""How far the expert's simulated trick count at call time is from the tricks it then takes.

Run: ``python benchmarks/call_bias.py [--deals N] [--expert SPEC] [--opponent SPEC]
[--rules R]``. Each seeded one-deal match seats the expert in turn in each seat against three
copies of the opponent (strict rules by default); at its call the trick distribution it called
on is noted, and at the end of the deal the tricks it took. The difference from the
distribution's mean, averaged over the deals with its 95% interval, is the bias of the
simulation the expert calls on: its playouts play its own seat by the policy, not by its
search, and the other seats by the policy too.

Its calibration too: the spread of the distribution (the root of its mean variance) against
the spread of the tricks taken about its mean, and the chance it gave of making the call it
made against the share of calls made. A distribution wider than the truth, or one that gives
too small a chance of making the call, makes the expert call lower than it should.
"""

from __future__ import annotations

import argparse
import statistics

from callbreak.errors import CallbreakError
from callbreak.game import Call, Match
from callbreak.players.base import decide
from callbreak.players.expert import ExpertPlayer
from callbreak.rules import Rules, made
from callbreak.seating import PlayerSpec, make_player


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--expert", default="expert(time=0.1, threads=1)")
    parser.add_argument("--opponent", default="casual")  # the sound policy player
    parser.add_argument("--rules", default="strict")
    args = parser.parse_args()
    if args.deals < 2:
        parser.error("--deals must be 2 or more (the interval needs two)")
    try:
        rules = Rules.parse(args.rules).replace(deals=1)
    except CallbreakError as error:
        parser.error(str(error))
    simulated: list[float] = []
    variances: list[float] = []
    chances: list[float] = []
    calls: list[int] = []
    taken: list[int] = []
    for number in range(args.deals):
        match = Match(rules, seed=f"bias-{number}")
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
                mean = sum(t * p for t, p in enumerate(distribution))
                simulated.append(mean)
                variances.append(sum((t - mean) ** 2 * p for t, p in enumerate(distribution)))
                chances.append(sum(p for t, p in enumerate(distribution) if made(rules, call, t)))
                calls.append(call)
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
    spread = statistics.fmean(variances) ** 0.5
    residual = statistics.fmean(gap * gap for gap in gaps) ** 0.5
    kept = [made(rules, c, t) for t, c in zip(taken, calls, strict=True)]
    print(
        f"spread of the simulation {spread:.2f} tricks, of the tricks taken about its mean "
        f"{residual:.2f}; chance of making the call {statistics.fmean(chances):.1%}, calls made "
        f"{statistics.fmean(kept):.1%} (mean call {statistics.fmean(calls):.2f})"
    )


if __name__ == "__main__":
    main()
