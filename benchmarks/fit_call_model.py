"""Fit the call model (``callbreak.players.calling.CALL_MODEL``) on self-play records.

Run: ``python benchmarks/fit_call_model.py RECORD_DIR [RECORD_DIR ...]``. Every seat of every
played deal is one observation: the call model's features (``CALL_FEATURES``: the hand's
strength, the seat's place in the calling order, the sum of the calls before it) and the
tricks the seat took. The mean is fitted by least squares; the spread around it as a line in
the mean (least squares on the absolute residuals, times sqrt(pi/2)). The script prints the
constants, the mean log-likelihood of the tricks taken under the fitted model and under the
sound casual player's model (a normal curve of spread 0.95 around the hand's strength), and
the spread of one seat's deal score (``DEAL_SCORE_SPREAD``).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np

from callbreak.game import Deal
from callbreak.players.calling import CALL_FEATURES, call_features, normal_distribution
from callbreak.record import load
from callbreak.rules import score_deal


def rows(folders: list[str]) -> tuple[np.ndarray, np.ndarray, list[float]]:
    """Features and tricks taken of every seat of every played deal, and the deal scores."""
    features: list[list[float]] = []
    tricks: list[int] = []
    relative: list[float] = []
    for folder in folders:
        for path in sorted(Path(folder).glob("*.json")):
            record = load(str(path))
            rules = record.parsed_rules()
            for deal_record in record.deals:
                if len(deal_record.tricks) < 13:
                    continue
                deal = Deal(deal_record.hands, deal_record.dealer, rules)
                first = (deal.dealer + 1) % 4
                for k in range(4):
                    seat = (first + k) % 4
                    seen = deal.observation(seat)
                    features.append(call_features(deal.held(seat).mask, seen))
                    deal.call(deal_record.calls[seat])  # type: ignore[arg-type]
                for trick in deal_record.tricks:
                    for card in trick:
                        deal.play(card)
                tricks.extend(deal.won[(first + k) % 4] for k in range(4))
                scores = [
                    score_deal(rules, deal_record.calls[s], deal.won[s])  # type: ignore[arg-type]
                    / 10
                    for s in range(4)
                ]
                relative.extend(scores)
    return np.array(features), np.array(tricks, dtype=float), relative


def mean_log_likelihood(means: np.ndarray, spreads: np.ndarray, tricks: np.ndarray) -> float:
    """Mean log-probability of the tricks taken under the discretised normal curves."""
    total = 0.0
    for mean, spread, taken in zip(means, spreads, tricks, strict=True):
        total += math.log(max(normal_distribution(mean, spread)[int(taken)], 1e-12))
    return total / len(tricks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+")
    args = parser.parse_args()
    x, y, relative = rows(args.folders)
    weights, *_ = np.linalg.lstsq(x, y, rcond=None)
    means = x @ weights
    residuals = np.abs(y - means) * math.sqrt(math.pi / 2)
    line = np.stack([np.ones_like(means), means], axis=1)
    spread, *_ = np.linalg.lstsq(line, residuals, rcond=None)
    spreads = np.maximum(0.5, spread[0] + spread[1] * means)
    print(f"{len(y)} hands from {', '.join(args.folders)}")
    for name, weight in zip(CALL_FEATURES, weights, strict=True):
        print(f"  {name:28s} {weight:+.4f}")
    print(f"spread = {spread[0]:.4f} + {spread[1]:.4f} * mean")
    print(f"residual spread {np.std(y - means):.3f} tricks")
    fitted = mean_log_likelihood(means, spreads, y)
    strength = x[:, 1]
    plain = mean_log_likelihood(strength, np.full_like(strength, 0.95), y)
    print(
        f"mean log-likelihood of the tricks: fitted {fitted:.4f}, the casual player's {plain:.4f}"
    )
    print(f"one seat's deal score: spread {np.std(relative):.3f} points (DEAL_SCORE_SPREAD)")
    print(
        'CALL_MODEL = {"mean": ('
        + ", ".join(f"{w:.4f}" for w in weights)
        + f'), "spread": ({spread[0]:.4f}, {spread[1]:.4f})}}'
    )


if __name__ == "__main__":
    main()
