"""Fit the model of play (``callbreak.players.inference``) on self-play records.

Run: ``python benchmarks/fit_play_model.py RECORD_DIR [RECORD_DIR ...]``. Every play with a
choice (two classes of legal cards or more) of every seat becomes one observation: the
features of each class for the seat's true hand then, and the class it played. The weights of
a softmax over the classes are fitted by maximum likelihood (Newton's method, a little L2);
the script prints them, ready for ``PLAY_WEIGHTS``, with the mean log-likelihood per choice
and how often the model's favourite class is the one played, against a uniform choice and
against the policy alone.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from callbreak.players import kernel
from callbreak.players.inference import play_events
from callbreak.record import load


def choices(folders: list[str]) -> list[tuple[np.ndarray, int]]:
    """(features of each class, index of the class played) for every play with a choice."""
    found: list[tuple[np.ndarray, int]] = []
    classes = np.empty(kernel.MAX_CLASSES, dtype=np.int64)
    features = np.empty((kernel.MAX_CLASSES, len(kernel.PLAY_FEATURES)))
    rng = np.ones(1, dtype=np.uint64)
    for folder in folders:
        for path in sorted(Path(folder).glob("*.json")):
            record = load(str(path))
            rules = record.parsed_rules()
            flags, scoring = kernel.flags_of(rules), kernel.scoring_of(rules)
            for deal_record in record.deals:
                if len(deal_record.tricks) < 13:
                    continue
                deal = deal_record.deal_after_calls(rules)  # the calls in calling order
                plays = [card for trick in deal_record.tricks for card in trick]
                for card in plays[:-1]:  # the last card is forced: stop before it
                    deal.play(card)
                events, won = play_events(deal.observation(0), everyone=True)
                calls = np.array(deal_record.calls, dtype=np.int64)
                for row, row_won in zip(events, won, strict=True):
                    count, chosen = kernel.fill_play_features(
                        int(row[0]),
                        int(row[12]),  # the cards it played from here on: its hand then
                        kernel.State(  # the row's state before the play
                            int(row[1]),
                            int(row[2]),
                            int(row[3]),
                            int(row[4]),
                            int(row[5]),
                            int(row[6]),
                            bool(row[7]),
                            int(row[8]),
                            int(row[9]),
                            int(row[10]),
                        ),
                        calls,
                        row_won,
                        flags,
                        scoring,
                        int(row[11]),
                        classes,
                        features,
                        rng,
                    )
                    if count > 1:
                        assert chosen >= 0
                        found.append((features[:count].copy(), chosen))
    return found


def log_likelihood(weights: np.ndarray, data: list[tuple[np.ndarray, int]]) -> float:
    """Mean log-probability of the class played."""
    total = 0.0
    for x, chosen in data:
        scores = x @ weights
        scores -= scores.max()
        total += scores[chosen] - np.log(np.exp(scores).sum())
    return total / len(data)


def fit(data: list[tuple[np.ndarray, int]], l2: float = 1e-3) -> np.ndarray:
    """Maximum-likelihood weights of the conditional logit (Newton's method)."""
    width = data[0][0].shape[1]
    weights = np.zeros(width)
    for _ in range(30):
        gradient = -l2 * weights * len(data)
        hessian = -l2 * np.eye(width) * len(data)
        for x, chosen in data:
            scores = x @ weights
            p = np.exp(scores - scores.max())
            p /= p.sum()
            mean = p @ x
            gradient += x[chosen] - mean
            hessian -= (x * p[:, None]).T @ x - np.outer(mean, mean)
        step = np.linalg.solve(hessian, gradient)
        weights -= step
        if np.abs(step).max() < 1e-6:
            break
    return weights


def accuracy(weights: np.ndarray, data: list[tuple[np.ndarray, int]]) -> float:
    """Share of choices where the model's most likely class is the one played."""
    return float(np.mean([int(np.argmax(x @ weights)) == chosen for x, chosen in data]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+")
    args = parser.parse_args()
    data = choices(args.folders)
    print(f"{len(data)} choices from {', '.join(args.folders)}")
    uniform = float(np.mean([-np.log(len(x)) for x, _ in data]))
    policy_only = fit([(x[:, :1], c) for x, c in data])
    weights = fit(data)
    print(f"uniform choice: mean log-likelihood {uniform:.4f}")
    policy_data = [(x[:, :1], c) for x, c in data]
    print(
        f"policy alone (weight {policy_only[0]:.3f}): mean log-likelihood "
        f"{log_likelihood(policy_only, policy_data):.4f}, "
        f"favourite played {accuracy(policy_only, policy_data):.1%}"
    )
    print(
        f"all features: mean log-likelihood {log_likelihood(weights, data):.4f}, "
        f"favourite played {accuracy(weights, data):.1%}"
    )
    for name, weight in zip(kernel.PLAY_FEATURES, weights, strict=True):
        print(f"  {name:30s} {weight:+.3f}")
    print("PLAY_WEIGHTS = np.array([" + ", ".join(f"{w:.3f}" for w in weights) + "])")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
