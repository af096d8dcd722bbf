"""Train a small policy for Call Break with the action mask, then measure it in the arena.

The policy is a two-layer numpy network (:class:`callbreak.env.policy.Network`) trained by
self-play in the PettingZoo environment: all four seats act with the same policy, sampling
from its masked softmax, one deal per episode, and each seat's decisions are reinforced by the
deal's score in points (REINFORCE with a learned value baseline, an entropy bonus and Adam,
written out in numpy below: no deep-learning library, CPU only). The weights go to
``--out`` (a ``NAME.npz`` file); the ``policy(weights=NAME)`` player spec plays them, and the
arena compares that player with ``random`` on duplicate sets.

Run (from the repository, after ``pip install -e '.[rl]'``)::

    python examples/train_policy.py --minutes 4 --out policies/default.npz --arena-sets 200

``--arena-sets 0`` skips the arena; ``--arena-only`` measures weights written before;
``--updates N`` trains for exactly N updates (the same weights on any machine) instead of a
time; ``--against SPEC`` names the arena's other player.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

from callbreak.arena import compare
from callbreak.env import NUM_ACTIONS, raw_env
from callbreak.env.policy import Network, register

register()  # the "policy" level, here and in the arena's workers (which import this file)


class Adam:
    """Adam over a network's parameters."""

    def __init__(self, params: dict[str, np.ndarray], lr: float) -> None:
        self.lr = lr
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}
        self.t = 0

    def step(self, params: dict[str, np.ndarray], grads: dict[str, np.ndarray]) -> None:
        self.t += 1
        for key, grad in grads.items():
            self.m[key] = 0.9 * self.m[key] + 0.1 * grad
            self.v[key] = 0.999 * self.v[key] + 0.001 * grad * grad
            m_hat = self.m[key] / (1 - 0.9**self.t)
            v_hat = self.v[key] / (1 - 0.999**self.t)
            params[key] -= self.lr * m_hat / (np.sqrt(v_hat) + 1e-8)


def play_deals(
    env: raw_env, network: Network, deals: int, rng: np.random.Generator, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
    """Self-play ``deals`` one-deal episodes; each decision with its seat's deal score."""
    observations, masks, actions, returns = [], [], [], []
    total = 0.0
    for episode in range(deals):
        env.reset(seed=seed + episode)
        taken: dict[str, list[int]] = {agent: [] for agent in env.possible_agents}
        scores = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            observation, reward, terminated, truncated, _ = env.last()
            scores[agent] += reward
            if terminated or truncated:
                env.step(None)
                continue
            vector, mask = observation["observation"], observation["action_mask"]
            logits = network.logits(vector[None, :], mask[None, :])[0]
            probs = np.exp(logits - logits.max())
            cumulative = np.cumsum(probs)
            action = int(np.searchsorted(cumulative, rng.random() * cumulative[-1], "right"))
            action = min(action, NUM_ACTIONS - 1)
            if not mask[action]:  # rounding at the edge of a zero-probability action
                action = int(np.argmax(logits))
            taken[agent].append(len(actions))
            observations.append(vector)
            masks.append(mask)
            actions.append(action)
            returns.append(0.0)
            env.step(action)
        for agent, indices in taken.items():
            for index in indices:
                returns[index] = scores[agent]
        total += sum(scores.values()) / 4
    return (
        np.array(observations, dtype=np.float32),
        np.array(masks, dtype=np.int8),
        np.array(actions, dtype=np.int64),
        np.array(returns, dtype=np.float32) / 10,
        total / deals,
    )


def gradients(
    network: Network,
    observations: np.ndarray,
    masks: np.ndarray,
    actions: np.ndarray,
    returns: np.ndarray,
    entropy: float = 0.01,
    value_weight: float = 0.5,
) -> dict[str, np.ndarray]:
    """The gradients of the policy-gradient loss with a value baseline and entropy bonus."""
    p = network.params
    n = len(actions)
    hidden = network.hidden(observations)
    logits = network.logits(observations, masks)
    logits -= logits.max(axis=1, keepdims=True)
    probs = np.exp(logits)
    probs /= probs.sum(axis=1, keepdims=True)
    value = (hidden @ p["wv"] + p["bv"])[:, 0]
    advantage = returns - value
    advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-6)
    log_probs = np.where(masks > 0, np.log(np.maximum(probs, 1e-12)), 0.0)
    entropies = -(probs * log_probs).sum(axis=1, keepdims=True)
    d_logits = probs.copy()
    d_logits[np.arange(n), actions] -= 1
    d_logits *= advantage[:, None]
    d_logits += entropy * probs * (log_probs + entropies)  # minus the entropy's gradient
    d_logits = np.where(masks > 0, d_logits, 0.0) / n
    d_value = (value_weight * (value - returns) / n)[:, None]
    d_hidden = d_logits @ p["w2"].T + d_value @ p["wv"].T
    d_pre = d_hidden * (1 - hidden * hidden)
    return {
        "w1": (observations.T @ d_pre).astype(np.float32),
        "b1": d_pre.sum(axis=0).astype(np.float32),
        "w2": (hidden.T @ d_logits).astype(np.float32),
        "b2": d_logits.sum(axis=0).astype(np.float32),
        "wv": (hidden.T @ d_value).astype(np.float32),
        "bv": d_value.sum(axis=0).astype(np.float32),
    }


def train(args: argparse.Namespace) -> None:
    """Self-play training for ``args.minutes``; writes the weights to ``args.out``."""
    env = raw_env(rules=args.rules, deals=1)
    network = Network(hidden=args.hidden, seed=args.seed)
    optimiser = Adam(network.params, args.lr)
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    update = 0
    seed = args.seed * 10_000_000
    while (
        update < args.updates if args.updates else time.perf_counter() - start < args.minutes * 60
    ):
        batch = play_deals(env, network, args.batch, rng, seed)
        seed += args.batch
        optimiser.step(network.params, gradients(network, *batch[:4]))
        update += 1
        if update % 50 == 0:
            minutes = (time.perf_counter() - start) / 60
            print(
                f"{minutes:5.1f} min, update {update}, {update * args.batch} deals: "
                f"mean score per seat and deal {batch[4]:+.2f} points",
                flush=True,
            )
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    network.save(out)
    print(f"wrote {out} after {update * args.batch} self-play deals")


def arena(args: argparse.Namespace) -> None:
    """Compare ``policy(weights=NAME)`` with ``args.against`` on duplicate sets."""
    out = Path(args.out).resolve()
    os.environ["CALLBREAK_POLICIES"] = str(out.parent)  # the arena's workers inherit it
    spec = f"policy(weights={out.stem})"
    sets, workers = args.arena_sets, args.workers
    result = compare(spec, args.against, rules=args.rules, sets=sets, seed=1, workers=workers)
    low, high = result.ci95
    print(
        f"{spec} vs {args.against}, {args.rules}, {result.sets} sets: "
        f"mean diff {result.mean_diff:+.2f} points per match (95% CI {low:+.2f} to {high:+.2f}), "
        f"first {100 * result.a_first_share:.1f}%, calls made {result.a_stats['calls_made']}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="strict")
    parser.add_argument("--minutes", type=float, default=4.0, help="training time")
    parser.add_argument("--updates", type=int, default=0, help="stop after N updates instead")
    parser.add_argument("--batch", type=int, default=32, help="self-play deals per update")
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default="policies/mine.npz", help="where to write NAME.npz")
    parser.add_argument("--arena-sets", type=int, default=100, help="0: no arena")
    parser.add_argument("--against", default="random", help="the arena's B player spec")
    parser.add_argument("--arena-only", action="store_true", help="measure --out, no training")
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args()
    if not args.arena_only:
        train(args)
    if args.arena_sets:
        arena(args)


if __name__ == "__main__":
    main()
