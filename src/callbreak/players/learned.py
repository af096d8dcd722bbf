"""The learned player: the expert's search distilled into a small network read in numpy.

A network trained on the expert's self-play (:mod:`callbreak.selfplay`, trained by
:mod:`callbreak.train`, ``callbreak train``) reads the seat's observation vector
(:func:`callbreak.players.encoding.encode` of its :class:`~callbreak.game.Observation`, nothing
else) with a few facts derived from it (:func:`features`: the cards still out, which of the
hand's cards are masters, which beat the trick's winner, the calls still to make) and gives two
heads:

- **calls**: the distribution of the tricks the hand will take (0-13); the player calls what
  maximises the expected score under it, per the rules' scoring (and, in the last deal, the
  chance of finishing first, as the expert weighs it: :func:`calling.best_call`);
- **cards**: a policy over the 52 cards, masked to the legal ones; the player plays the most
  likely card (or draws one, with ``temperature`` above 0, from ``seed``).

The forward pass is two hidden layers in numpy, a fraction of a millisecond: no compile, no
search. The weights are an ``.npz`` of arrays shipped in the package (``weights/learned.npz``);
``weights=NAME`` reads ``NAME.npz`` from the folder named by ``$CALLBREAK_WEIGHTS`` instead, so
that a newly trained model can be measured before it is shipped. A file that is missing, not an
``.npz``, of another format or of the wrong shapes is refused with one :class:`PlayerError`.

>>> from callbreak.game import Match
>>> match = Match("strict", seed=3)
>>> player = LearnedPlayer(seed=1)
>>> match.deal.turn is not None and player.call(match.observation(match.deal.turn)) in range(2, 14)
True
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from callbreak import npzfile
from callbreak.cards import Card
from callbreak.game import Observation
from callbreak.players.base import Player, PlayerError
from callbreak.players.calling import best_call
from callbreak.players.encoding import (
    CALLS_AT,
    CARD_BASE,
    CLAIM,
    HAND,
    LEADER,
    NUM_ACTIONS,
    OBS_SIZE,
    PLAYED,
    TRICK,
    WON,
    encode,
)

__all__ = [
    "FEATURES",
    "FORMAT",
    "SHIPPED",
    "LearnedPlayer",
    "Model",
    "features",
    "find_weights",
    "load_model",
]

FORMAT = 1
"""The version of the weights file's layout; a file of another is refused."""
SHIPPED = Path(__file__).parent / "weights"
"""The folder of the weights shipped with the package."""
FOLDER_VARIABLE = "CALLBREAK_WEIGHTS"
"""The environment variable naming a folder of other weights (``weights=NAME``)."""
OPEN_ENDED_DEALS = 5
"""The deals the observation's deal block counts in an open-ended match (``seating``'s)."""
TRICK_SLOTS = 14
"""The calls head's outcomes: 0-13 tricks."""

_SUIT = np.arange(52) // 13
_RANK = np.arange(52) % 13
_TRICKS = np.arange(TRICK_SLOTS, dtype=np.float32)


# --- what the network reads --------------------------------------------------------------------


def features(obs: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """The network's input for a batch: the observation vectors ``obs`` (N x ``OBS_SIZE``) and
    the legal actions ``legal`` (N x ``NUM_ACTIONS``), with facts a seat could work out from
    them that a small network would otherwise have to learn: the cards still out, for each card
    of the hand the cards out that beat it in its suit (none: a master), the trick's winning
    card and whether each card beats it, the calls still to make. N x :data:`FEATURES`."""
    n = len(obs)
    obs = np.asarray(obs, dtype=np.float32)
    hand = obs[:, HAND : HAND + 52]
    gone = obs[:, PLAYED : PLAYED + 4 * 52].reshape(n, 4, 52).sum(axis=1)
    trick = obs[:, TRICK : TRICK + 4 * 52].reshape(n, 4, 52)
    out_there = np.clip(1 - hand - gone, 0, 1)
    by_suit = out_there.reshape(n, 4, 13)
    # the cards out above each rank of its suit: a reversed cumulative sum, less the card itself
    above = (np.cumsum(by_suit[:, :, ::-1], axis=2)[:, :, ::-1] - by_suit).reshape(n, 52)
    masters = hand * (above == 0)
    on_trick = trick.sum(axis=1)
    leader = obs[:, LEADER : LEADER + 4]
    led_cards = np.einsum("ns,nsc->nc", leader, trick)  # the card the leader put down, if any
    led_suit = led_cards.reshape(n, 4, 13).sum(axis=2)
    spades_on = on_trick[:, :13]
    trumped = spades_on.any(axis=1)
    led_on = np.einsum("ns,nsr->nr", led_suit, on_trick.reshape(n, 4, 13))
    ranks = np.where(trumped[:, None], spades_on, led_on)
    top = np.where(ranks.any(axis=1), 12 - np.argmax(ranks[:, ::-1], axis=1), -1)
    suit = np.where(trumped, 0, np.argmax(led_suit, axis=1))
    winning = np.zeros((n, 52), dtype=np.float32)
    rows = np.flatnonzero(top >= 0)
    winning[rows, suit[rows] * 13 + top[rows]] = 1
    winner = np.einsum("nsc,nc->ns", trick, winning)
    same = _SUIT[None, :] == suit[:, None]
    beats = (same & (_RANK[None, :] > top[:, None])) | (
        (_SUIT[None, :] == 0) & (suit != 0)[:, None]
    )
    beats = beats & (top >= 0)[:, None]
    calls = obs[:, CALLS_AT : CALLS_AT + 4 * 14].reshape(n, 4, 14) @ _TRICKS
    won = obs[:, WON : WON + 4 * 14].reshape(n, 4, 14) @ _TRICKS
    need = np.clip(calls - won, 0, None) * (calls > 0)
    made = ((won >= calls) & (calls > 0)).astype(np.float32)
    parts = [
        obs,
        out_there,
        hand * above / 12,
        masters,
        hand * beats,
        winning,
        winner,
        led_suit,
        calls / 13,
        won / 13,
        need / 13,
        made,
        hand.reshape(n, 4, 13).sum(axis=2) / 13,
        by_suit.sum(axis=2) / 13,
        np.asarray(legal, dtype=np.float32),
    ]
    return np.concatenate(parts, axis=1, dtype=np.float32)


FEATURES = OBS_SIZE + 5 * 52 + 8 * 4 + NUM_ACTIONS
"""The width of :func:`features`."""


# --- the network -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Model:
    """The network's arrays: ``x -> relu(x @ w1 + b1) -> relu(. @ w2 + b2)`` then the cards head
    (``wp``, ``bp``: 52 logits) and the calls head (``wt``, ``bt``: 14 logits of 0-13 tricks)."""

    arrays: dict[str, np.ndarray]
    meta: dict[str, Any]

    def trunk(self, x: np.ndarray) -> np.ndarray:
        """The last hidden layer for a batch of :func:`features`."""
        a = self.arrays
        hidden = np.maximum(x @ a["w1"] + a["b1"], 0)
        out: np.ndarray = np.maximum(hidden @ a["w2"] + a["b2"], 0)
        return out

    def card_logits(self, x: np.ndarray) -> np.ndarray:
        """The cards head: 52 logits per row (not yet masked)."""
        out: np.ndarray = self.trunk(x) @ self.arrays["wp"] + self.arrays["bp"]
        return out

    def trick_chances(self, x: np.ndarray) -> np.ndarray:
        """The calls head: the chance of 0-13 tricks per row."""
        logits = self.trunk(x) @ self.arrays["wt"] + self.arrays["bt"]
        logits = logits - logits.max(axis=1, keepdims=True)
        chances: np.ndarray = np.exp(logits)
        out: np.ndarray = chances / chances.sum(axis=1, keepdims=True)
        return out


SHAPES = {
    "w1": ("features", "hidden"),
    "b1": ("hidden",),
    "w2": ("hidden", "hidden"),
    "b2": ("hidden",),
    "wp": ("hidden", 52),
    "bp": (52,),
    "wt": ("hidden", TRICK_SLOTS),
    "bt": (TRICK_SLOTS,),
}
"""Every array of a weights file and its shape (``hidden`` is the file's own width)."""


def find_weights(name: str) -> Path:
    """The weights file of ``name``: ``default`` is the shipped ``learned.npz``; another name is
    ``NAME.npz`` in ``$CALLBREAK_WEIGHTS`` (then among the shipped). PlayerError when missing."""
    if not isinstance(name, str) or not name.replace("_", "").replace("-", "").isalnum():
        raise PlayerError(f"weights must be a name such as 'default', not {name!r}")
    file = "learned.npz" if name == "default" else f"{name}.npz"
    folders = [Path(os.environ[FOLDER_VARIABLE])] if os.environ.get(FOLDER_VARIABLE) else []
    folders.append(SHIPPED)
    for folder in folders:
        if (folder / file).is_file():
            return folder / file
    where = " or ".join(str(folder) for folder in folders)
    raise PlayerError(f"the learned player's weights {name!r} are missing: no {file} in {where}")


@lru_cache(maxsize=8)
def _load(path: str, stamp: tuple[int, int]) -> Model:
    """A weights file read once per process (per path and its size and time of writing)."""
    try:
        members, meta = npzfile.read(path)
    except npzfile.NpzError as error:
        raise PlayerError(f"the learned player's weights {path} cannot be read: {error}") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        found = meta.get("format") if isinstance(meta, dict) else None
        raise PlayerError(
            f"the learned player's weights {path} are of format {found}, not {FORMAT}"
        )
    hidden = members["b1"].shape[0] if "b1" in members and members["b1"].ndim == 1 else 0
    sizes: dict[str | int, int] = {"features": FEATURES, "hidden": hidden}
    arrays = {}
    for key, shape in SHAPES.items():
        want = tuple(sizes.get(part, part) for part in shape)
        array = members.get(key)
        if array is None or array.shape != want or not np.isfinite(array).all():
            raise PlayerError(
                f"the learned player's weights {path} are corrupt: {key} missing, not finite or"
                f" not of shape {want}"
            )
        arrays[key] = array.astype(np.float32)
    return Model(arrays, meta)


def load_model(path: str | os.PathLike[str]) -> Model:
    """The model in a weights file; PlayerError for one missing, corrupt or of another format."""
    try:
        status = os.stat(path)
    except OSError as error:
        raise PlayerError(f"the learned player's weights {path} cannot be read: {error}") from None
    return _load(os.fspath(path), (status.st_size, status.st_mtime_ns))


# --- the player --------------------------------------------------------------------------------


class LearnedPlayer(Player):
    """Calls and plays by the learned network (see the module's docstring)."""

    def __init__(
        self, weights: str = "default", temperature: float = 0.0, seed: int | None = None
    ) -> None:
        if not 0 <= temperature <= 10:
            raise PlayerError(f"temperature must be 0 to 10, not {temperature!r}")
        self.model = load_model(find_weights(weights))
        self.temperature = float(temperature)
        self.seed = seed
        self.rng = random.Random(seed)
        options = [f"weights={weights}"] if weights != "default" else []
        if temperature:
            options.append(f"temperature={temperature}")
        if seed is not None:
            options.append(f"seed={seed}")
        self.spec = f"learned({', '.join(options)})" if options else "learned"

    def _input(self, observation: Observation, legal: np.ndarray) -> np.ndarray:
        vector = encode(observation, observation.rules.deals or OPEN_ENDED_DEALS)
        return features(vector[None, :], legal[None, :])

    def distribution(self, observation: Observation) -> list[float]:
        """The chance of the hand taking 0-13 tricks, at a calling turn."""
        legal = np.zeros(NUM_ACTIONS, dtype=bool)
        for value in observation.legal_calls:
            legal[value - 1] = True
        legal[CLAIM] = observation.may_claim_redeal
        chances = self.model.trick_chances(self._input(observation, legal))[0]
        return [float(p) for p in chances]

    def call(self, observation: Observation, *, time: float | None = None) -> int:
        """The legal call of the best expected score under the calls head's distribution."""
        chosen, _ = best_call(self.distribution(observation), observation)
        legal = observation.legal_calls
        if chosen in legal:
            return chosen
        return min(legal, key=lambda value: (abs(value - chosen), value))

    def claim_redeal(self, observation: Observation) -> bool:
        """A spadeless hand asks for a new deal unless it expects three tricks (the expert's
        rule, with the calls head's expectation)."""
        chances = self.distribution(observation)
        return sum(tricks * p for tricks, p in enumerate(chances)) < 3

    def card_chances(self, observation: Observation) -> dict[Card, float]:
        """The cards head's policy over the legal cards."""
        legal = np.zeros(NUM_ACTIONS, dtype=bool)
        cards = list(observation.legal_cards)
        for card in cards:
            legal[CARD_BASE + int(card)] = True
        logits = self.model.card_logits(self._input(observation, legal))[0]
        chosen = np.array([logits[int(card)] for card in cards], dtype=np.float64)
        chosen = np.exp(chosen - chosen.max())
        chosen /= chosen.sum()
        return {card: float(p) for card, p in zip(cards, chosen, strict=True)}

    def play(self, observation: Observation, *, time: float | None = None) -> Card:
        """The most likely legal card, or one drawn from the policy (``temperature`` > 0)."""
        legal = observation.legal_cards
        if len(legal) == 1:
            return next(iter(legal))
        chances = self.card_chances(observation)
        cards = sorted(chances, key=int)
        if not self.temperature:
            return max(cards, key=lambda card: (chances[card], -int(card)))
        weights = [chances[card] ** (1 / self.temperature) for card in cards]
        return self.rng.choices(cards, weights=weights)[0]
