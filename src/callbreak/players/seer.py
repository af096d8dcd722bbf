"""The expert shown the true deal in a share of its worlds: how sharp must its belief be?

For measuring only, like the oracle (:mod:`callbreak.players.oracle`). The expert guesses the
hidden hands: it samples worlds consistent with what it has seen and weighs them by the calls
and plays. The oracle sees them and searches differently. The seer is the expert itself, with
every option of the expert, except that a share ``truth`` of the worlds it draws (for its calls
and for its cards) is replaced by the true deal. So ``truth=1`` is the expert's own search
with a perfect belief (it separates what the oracle gains by its search from what it gains by
seeing the cards), ``truth=0`` is the expert exactly, and the shares between say how much of a
sharper belief the expert could turn into points. A share ``w`` of true worlds puts at least
``w`` of the belief's mass on each hidden card's true holder (``benchmarks/belief.py``
measures that mass for the expert's own inference). With ``truth_in=calls`` (or ``cards``) it
is shown the true deal for its calls only (or its cards only): at a call no inference has more
to go on than the hand and the calls heard, so the two halves split the value of seeing the
cards into what a call could never know and what the plays could reveal.

Only a host that shows it the hands (the arena, through ``see``) can seat it.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar, Literal, get_args

import numpy as np

from callbreak.game import Observation
from callbreak.players.base import ShownEveryHand
from callbreak.players.expert import ExpertOptions, ExpertPlayer
from callbreak.players.ismcts import options_signature
from callbreak.players.knowledge import Knowledge

__all__ = ["TRUTH_IN", "SeerOptions", "SeerPlayer"]

TruthIn = Literal["all", "calls", "cards"]
TRUTH_IN = get_args(TruthIn)
"""Where the seer's worlds hold the true deal: for its calls and its cards, or only one."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class SeerOptions(ExpertOptions):
    """The expert's options, and how much of the truth the seer is shown."""

    truth: float = 1.0
    """The share of its worlds that are the true deal."""
    truth_in: TruthIn = "all"

    SHOWN: ClassVar[tuple[str, ...]] = ("time", "truth")

    def __post_init__(self) -> None:
        super().__post_init__()
        if not 0 <= self.truth <= 1:
            raise ValueError(f"truth must be a share from 0 to 1, not {self.truth}")


class SeerPlayer(ShownEveryHand, ExpertPlayer):
    """The expert with a share ``truth`` of its worlds replaced by the true deal (for
    measuring only)."""

    OPTIONS: ClassVar[type[ExpertOptions]] = SeerOptions
    NAME: ClassVar[str] = "seer"
    options: SeerOptions

    def _worlds(self, observation: Observation, knowledge: Knowledge, count: int) -> np.ndarray:
        """The expert's ``count`` worlds with a share ``truth`` of them the true deal, at
        places drawn at random (the expert's leading worlds must stay a fair sample)."""
        hands = self._true_deal(observation, "seer")
        calling = bool(observation.legal_calls)
        if self.options.truth_in == ("cards" if calling else "calls"):
            return super()._worlds(observation, knowledge, count)
        shown = round(self.options.truth * count)
        true_deal = np.array([hands], dtype=np.int64)
        if shown == count:  # nothing to guess: the expert's sampling and weighing are skipped
            return np.repeat(true_deal, count, axis=0)
        worlds = super()._worlds(observation, knowledge, count)
        if shown:
            worlds[self.rng.sample(range(count), shown)] = true_deal
        return worlds


SeerPlayer.__signature__ = options_signature(SeerOptions)  # type: ignore[attr-defined]
