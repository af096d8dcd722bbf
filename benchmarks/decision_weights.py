"""The mean weight of a card decision by cards in hand (``timing.EXPECTED_PLAY_WEIGHT``).

Run: ``python benchmarks/decision_weights.py RECORD_DIR [RECORD_DIR ...]``. Every card decision
of every seat in the records is weighed by ``timing.play_weight`` with its number of real
choices (classes of legal cards that play differently, as the expert groups them).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from callbreak.players import kernel
from callbreak.players.knowledge import Knowledge
from callbreak.players.timing import play_weight
from callbreak.record import load


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+")
    args = parser.parse_args()
    weights: list[list[float]] = [[] for _ in range(14)]
    classes = np.empty(kernel.MAX_CLASSES, dtype=np.int64)
    for folder in args.folders:
        for path in sorted(Path(folder).glob("*.json")):
            record = load(str(path))
            rules = record.parsed_rules()
            for deal_record in record.deals:
                if len(deal_record.tricks) < 13:
                    continue
                deal = deal_record.deal_after_calls(rules)  # the calls in calling order
                for trick in deal_record.tricks:
                    for card in trick:
                        seat = deal.turn
                        assert seat is not None
                        seen = deal.observation(seat)
                        done = Knowledge.from_observation(seen).done
                        hand = seen.hand.mask
                        count = kernel.play_classes(hand, seen.legal_cards.mask, done, classes)
                        weights[len(seen.hand)].append(play_weight(len(seen.hand), count))
                        deal.play(card)
    print(f"{sum(map(len, weights))} card decisions")
    means = [float(np.mean(row)) if row else 0.0 for row in weights]
    print("EXPECTED_PLAY_WEIGHT = (" + ", ".join(f"{m:.2f}" for m in means) + ")")


if __name__ == "__main__":
    main()
