"""A learned policy as a player: a small numpy network over the environments' observation.

The network reads the observation vector (:data:`callbreak.env.table.LAYOUT`), built here from
the seat's :class:`~callbreak.game.Observation` by :func:`callbreak.env.table.encode` exactly
as the environments built it during training, and scores the 66 actions; illegal actions are
masked out. ``examples/train_policy.py`` trains one and writes its weights; :func:`register`
makes it the level ``policy``, so that specs such as ``policy`` or ``policy(weights=mine,
greedy=false)`` seat it anywhere a player spec goes (the arena, the single-agent
environment's opponents). Registering is explicit, not a side effect of importing, because it
changes the levels every menu lists (the browser's among them) for the whole process.

Weights are ``NAME.npz`` files, looked for in the folder named by the environment variable
``CALLBREAK_POLICIES`` and then among the policies shipped in this package (``default`` is the
example's result, see ``docs/env.md``).
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import numpy as np

from callbreak.cards import Card
from callbreak.env.table import CARD_BASE, CLAIM, NUM_ACTIONS, OBS_SIZE, encode
from callbreak.game import Observation
from callbreak.players import Player, PlayerError
from callbreak.players import register as register_level
from callbreak.seating import OPEN_ENDED_DEALS

__all__ = ["LEVEL", "SHIPPED", "Network", "PolicyPlayer", "find_weights", "register"]

LEVEL = "policy"

SHIPPED = Path(__file__).parent / "policies"
"""The folder of the policies shipped with the package."""


class Network:
    """A two-layer perceptron: observation -> tanh hidden layer -> action logits, and a value."""

    def __init__(self, hidden: int = 128, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        self.params: dict[str, np.ndarray] = {
            "w1": (rng.standard_normal((OBS_SIZE, hidden)) / np.sqrt(OBS_SIZE)).astype(np.float32),
            "b1": np.zeros(hidden, dtype=np.float32),
            "w2": (rng.standard_normal((hidden, NUM_ACTIONS)) * 0.01).astype(np.float32),
            "b2": np.zeros(NUM_ACTIONS, dtype=np.float32),
            "wv": np.zeros((hidden, 1), dtype=np.float32),
            "bv": np.zeros(1, dtype=np.float32),
        }

    def hidden(self, observations: np.ndarray) -> np.ndarray:
        """The hidden layer for a batch of observations."""
        p = self.params
        out: np.ndarray = np.tanh(observations @ p["w1"] + p["b1"])
        return out

    def logits(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Action logits for a batch; illegal actions get -1e9."""
        p = self.params
        out = self.hidden(observations) @ p["w2"] + p["b2"]
        return np.where(masks > 0, out, np.float32(-1e9))

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the weights to an .npz file."""
        halves: dict[str, Any] = {k: v.astype(np.float16) for k, v in self.params.items()}
        np.savez_compressed(path, **halves)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Network:
        """Read weights written by :meth:`save`."""
        with np.load(path) as data:
            params = {key: data[key].astype(np.float32) for key in data.files}
        network = cls.__new__(cls)
        network.params = params
        if params["w1"].shape[0] != OBS_SIZE or params["w2"].shape[1] != NUM_ACTIONS:
            raise PlayerError(f"{path}: weights for another observation or action space")
        return network


def find_weights(name: str) -> Path:
    """The file of the policy ``name``: in ``$CALLBREAK_POLICIES``, else shipped."""
    if not isinstance(name, str) or not name.replace("_", "").replace("-", "").isalnum():
        raise PlayerError(f"weights must be a policy's name such as 'default', not {name!r}")
    folders = (
        [Path(os.environ["CALLBREAK_POLICIES"])] if os.environ.get("CALLBREAK_POLICIES") else []
    )
    folders.append(SHIPPED)
    for folder in folders:
        path = folder / f"{name}.npz"
        if path.is_file():
            return path
    where = " or ".join(str(folder) for folder in folders)
    raise PlayerError(f"no policy {name!r}: no {name}.npz in {where}")


class PolicyPlayer(Player):
    """A player that acts with a trained :class:`Network`: the most likely legal action
    (``greedy``), or one drawn from the policy's probabilities with ``seed``."""

    def __init__(self, weights: str = "default", greedy: bool = True, seed: int | None = None):
        self.network = Network.load(find_weights(weights))
        self.greedy = greedy
        self.rng = random.Random(seed)
        options = [f"weights={weights}"] if weights != "default" else []
        if not greedy:
            options.append("greedy=false")
        if seed is not None:
            options.append(f"seed={seed}")
        self.spec = f"policy({', '.join(options)})" if options else "policy"

    def _choose(self, observation: Observation, mask: np.ndarray) -> int:
        deals = observation.rules.deals or OPEN_ENDED_DEALS
        vector = encode(observation, deals)[None, :]
        logits = self.network.logits(vector, mask[None, :])[0]
        if self.greedy:
            return int(np.argmax(logits))
        weights = np.exp(logits - logits.max())
        return self.rng.choices(range(NUM_ACTIONS), weights=weights.tolist())[0]

    def call(self, observation: Observation, *, time: float | None = None) -> int:
        """The call the policy scores highest among the legal ones."""
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        for value in observation.legal_calls:
            mask[value - 1] = 1
        return self._choose(observation, mask) + 1

    def claim_redeal(self, observation: Observation) -> bool:
        """Whether the policy prefers claiming a redeal to every call."""
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        for value in observation.legal_calls:
            mask[value - 1] = 1
        mask[CLAIM] = 1
        return self._choose(observation, mask) == CLAIM

    def play(self, observation: Observation, *, time: float | None = None) -> Card:
        """The legal card the policy scores highest."""
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        for card in observation.legal_cards:
            mask[CARD_BASE + card] = 1
        return Card(self._choose(observation, mask) - CARD_BASE)


def register(name: str = LEVEL) -> None:
    """Make :class:`PolicyPlayer` the player level ``name`` in this process (a script that runs
    the arena with workers must do it at import, since its workers import it again)."""
    register_level(name, "callbreak.env.policy:PolicyPlayer")
