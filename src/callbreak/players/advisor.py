"""Hints for a person: which call or card the expert would choose, and why.

>>> from callbreak.game import Match
>>> match = Match("classic", seed=4)
>>> advice = advise(match.observation(match.deal.turn), time=0.1, seed=1)
>>> advice.kind, advice.best.action in range(1, 14)
('call', True)
"""

from __future__ import annotations

import dataclasses
from typing import Literal

from callbreak.cards import Card
from callbreak.errors import CallbreakError
from callbreak.game import Observation
from callbreak.players.expert import ExpertPlayer

__all__ = ["Advice", "Option", "advise"]


@dataclasses.dataclass(frozen=True)
class Option:
    """One call or card with its expected score for this deal, in points."""

    action: int | Card
    value: float | None
    """None for a card that is the only legal one: there is nothing to weigh."""
    distribution: tuple[float, ...] = ()
    """For calls: the chance of taking 0, 1, ... 13 tricks when making this call."""

    @property
    def expected_tricks(self) -> float | None:
        """The mean of the trick distribution, for calls."""
        if not self.distribution:
            return None
        return sum(tricks * p for tricks, p in enumerate(self.distribution))


@dataclasses.dataclass(frozen=True)
class Advice:
    """The options of one decision, best first."""

    kind: Literal["call", "play"]
    options: tuple[Option, ...]

    @property
    def best(self) -> Option:
        """The option the expert would choose."""
        return self.options[0]

    def summary(self) -> str:
        """One line for a person: 'about 4 tricks; calling 3 is safer: expected +2.9'."""
        best = self.best
        if self.kind == "call":
            assert isinstance(best.action, int)
            tricks = best.expected_tricks or 0.0
            advice = f"about {tricks:.0f} trick{'' if round(tricks) == 1 else 's'}; "
            if best.action < round(tricks):
                advice += f"calling {best.action} is safer"
            elif best.action > round(tricks):
                advice += f"calling {best.action} is worth the risk"
            else:
                advice += f"call {best.action}"
            return f"{advice}: expected {best.value or 0.0:+.1f}"
        assert isinstance(best.action, Card)
        if len(self.options) == 1:
            return f"play {best.action.pretty()}: the only legal card"
        runner_up = self.options[1]
        assert isinstance(runner_up.action, Card)
        return (
            f"play {best.action.pretty()}: expected {best.value or 0.0:+.1f} this deal"
            f" ({runner_up.action.pretty()} {runner_up.value or 0.0:+.1f})"
        )


def advise(observation: Observation, *, time: float = 0.5, seed: int | None = None) -> Advice:
    """Rank the legal calls or cards of the seat to act, with their expected scores."""
    # The flat search weighs every card in the same worlds, so the values a person sees
    # compare, and the best has the highest; the tree ranks by visits, and a card it tried
    # less may show a higher mean by chance.
    expert = ExpertPlayer(time=time, seed=seed, search="flat")
    if observation.legal_calls:
        ranked_calls = expert.rank_calls(observation)
        return Advice(
            "call",
            tuple(Option(call, value, tuple(dist)) for call, value, dist in ranked_calls),
        )
    if observation.legal_cards:
        if len(observation.legal_cards) == 1:
            only = next(iter(observation.legal_cards))
            return Advice("play", (Option(only, None),))
        return Advice(
            "play", tuple(Option(card, value) for card, value in expert.rank_cards(observation))
        )
    raise CallbreakError("this seat has nothing to decide now")
