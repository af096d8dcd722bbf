"""The Gymnasium single-agent environment: one seat learns, our players hold the others.

The other seats are player specs (``"intermediate"``, ``"expert(time=0.2)"``, a remote bot's
address), seated and asked through :mod:`callbreak.seating` on the engine's observation of
their seat, so they play exactly as they do in the arena. A step takes the agent's action and
lets the other seats play until the agent's next turn or the end of the match.

>>> from callbreak.env import single_agent
>>> game = single_agent(seat=2, opponents="random", rules="strict", deals=1)
>>> observation, info = game.reset(seed=1)
>>> bool((observation["action_mask"] == info["action_mask"]).all())
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

import gymnasium
import numpy as np
from gymnasium import spaces

from callbreak.env.aec import check_common, observation_space, render_table
from callbreak.env.episode import Episode, Seeds, episode_rules, place_rewards
from callbreak.env.table import NUM_ACTIONS, EnvError
from callbreak.errors import CallbreakError
from callbreak.record import Record
from callbreak.rules import Rules
from callbreak.seating import PlayerSpec

__all__ = ["ILLEGAL", "ILLEGAL_PENALTY", "SingleAgentEnv", "single_agent"]

ILLEGAL = ("penalty", "raise", "random")
"""What a step does with an action the rules forbid: nothing but a reward of
:data:`ILLEGAL_PENALTY`, with ``info["illegal"]`` set to the rule it breaks (the default: code
that samples actions without the mask, such as Gymnasium's ``check_env``, can step the game
and learn to keep to the mask); raise the rule's error; or play a uniformly random legal
action instead and say so in ``info["illegal"]``. The mask is the way to avoid all three."""

ILLEGAL_PENALTY = -1.0
"""The reward of an illegal action under ``illegal="penalty"``, in points (a deal's score is
some points either way, so a refused action costs as much as a trick's worth of a call)."""

Observation = dict[str, np.ndarray]


class LegalDiscrete(spaces.Discrete):
    """``Discrete(66)`` whose ``sample()`` without a mask draws a legal action of the agent's
    current position, so that code written for plain Gymnasium spaces (its own ``check_env``
    among it) steps the game with legal actions; any other action is an error."""

    def __init__(self, n: int, legal: Callable[[], np.ndarray]) -> None:
        super().__init__(n)
        self._legal = legal

    def sample(self, mask: Any = None, probability: Any = None) -> np.int64:
        """A uniformly random legal action (or as Discrete.sample with a mask given)."""
        if mask is None and probability is None:
            legal = self._legal()
            if legal.any():
                mask = legal
        return super().sample(mask=mask, probability=probability)


class SingleAgentEnv(gymnasium.Env[Observation, np.int64]):
    """Call Break from one seat against three of our players (see :func:`single_agent`)."""

    # Gymnasium declares metadata an instance variable of Env; ruff would have a ClassVar.
    metadata: dict[str, Any] = {"render_modes": ["ansi"]}  # noqa: RUF012

    def __init__(
        self,
        seat: int = 0,
        opponents: str | Sequence[str] = "intermediate",
        rules: str | Rules = "strict",
        deals: int | None = None,
        reward: str = "deal",
        render_mode: str | None = None,
        bot_budget: float = 1.5,
        illegal: str = "penalty",
    ) -> None:
        check_common(reward, render_mode)
        if illegal not in ILLEGAL:
            raise EnvError(f"illegal must be 'penalty', 'raise' or 'random', not {illegal!r}")
        self.illegal = illegal
        if isinstance(seat, bool) or seat not in range(4):
            raise EnvError(f"seat must be 0-3, not {seat!r}")
        self.seat = seat
        specs = [opponents] if isinstance(opponents, str) else list(opponents)
        if len(specs) not in (1, 3):
            raise EnvError(f"give one opponent spec or three (one per other seat), not {specs!r}")
        try:
            parsed = [PlayerSpec.parse(spec) for spec in specs]
        except CallbreakError as error:
            raise EnvError(f"opponents: {error}") from None
        others = parsed * 3 if len(parsed) == 1 else parsed
        self.occupants: list[PlayerSpec | None] = list(others)
        self.occupants.insert(seat, None)
        self.rules, self.deals = episode_rules(rules, deals)
        self.reward = reward
        self.render_mode = render_mode
        self.bot_budget = bot_budget
        # Gymnasium types Dict spaces as Space[dict[str, Any]], wider than these observations.
        self.observation_space = cast(
            spaces.Space[Observation], observation_space(self.rules, self.deals)
        )
        self.action_space = LegalDiscrete(NUM_ACTIONS, self._mask)
        self._seeds = Seeds()
        self._episode: Episode | None = None

    @property
    def episode(self) -> Episode:
        """The episode in progress; EnvError before the first reset."""
        if self._episode is None:
            raise EnvError("call reset() before using the environment")
        return self._episode

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """Start a new match (the match of ``seed`` when given) and play up to the agent's
        first turn."""
        super().reset(seed=seed)
        if self._episode is not None:
            self._episode.close()
        self._episode = Episode(
            self.rules, self.deals, self._seeds.next(seed), self.occupants,
            bot_budget=self.bot_budget,
        )  # fmt: skip
        self._others()
        return self._observe(), self._info()

    def step(self, action: Any) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        """Take the agent's action, then the other seats' until its next turn or the end."""
        episode = self.episode
        table = episode.table
        if table.over:
            raise EnvError("the match is over: call reset() to start another")
        problem = None if self.illegal == "raise" else table.problem(action)
        if problem is not None and self.illegal == "penalty":
            info = self._info()
            info["illegal"] = problem
            return self._observe(), ILLEGAL_PENALTY, False, False, info
        if problem is not None:
            action = int(self.np_random.choice(table.legal_actions()))
        episode.act(action)
        reward = self._reward()
        reward += self._others()
        if table.over and self.reward == "match":
            reward = place_rewards(table.places())[self.seat]
        info = self._info()
        if problem is not None:
            info["illegal"] = problem
        return self._observe(), reward, table.over, False, info

    def _reward(self) -> float:
        scores = self.episode.table.deal_scores
        if self.reward == "deal" and scores is not None:
            return scores[self.seat] / 10
        return 0.0

    def _others(self) -> float:
        episode = self.episode
        table = episode.table
        reward = 0.0
        while not table.over and table.turn != self.seat:
            episode.decide()
            reward += self._reward()
        return reward

    def _mask(self) -> np.ndarray:
        if self._episode is None or self._episode.table.turn != self.seat:
            return np.zeros(NUM_ACTIONS, dtype=np.int8)
        return self._episode.table.mask()

    def _observe(self) -> Observation:
        table = self.episode.table
        seat = self.seat
        return {"observation": table.obs[seat].copy(), "action_mask": table.mask_of(seat)}

    def _info(self) -> dict[str, Any]:
        table = self.episode.table
        info: dict[str, Any] = {"action_mask": self._observe()["action_mask"]}
        info["totals"] = [total / 10 for total in table.totals]
        if table.over:
            info["places"] = table.places()
        return info

    def action_masks(self) -> np.ndarray:
        """The legal actions as a boolean vector (the name sb3-contrib's MaskablePPO reads)."""
        return self._observe()["action_mask"].astype(bool)

    def render(self) -> str | None:
        """The table as text (a spectator's view: every hand is shown)."""
        if self.render_mode is None:
            return None
        return render_table(self.episode, self.rules)

    def record(self) -> Record:
        """The game record of the match so far (``callbreak check`` replays it)."""
        return self.episode.record()

    def close(self) -> None:
        """Close the other seats' players (remote bots' connections)."""
        if self._episode is not None:
            self._episode.close()


def single_agent(
    seat: int = 0,
    opponents: str | Sequence[str] = "intermediate",
    rules: str | Rules = "strict",
    deals: int | None = None,
    reward: str = "deal",
    render_mode: str | None = None,
    bot_budget: float = 1.5,
    illegal: str = "penalty",
) -> SingleAgentEnv:
    """A Gymnasium environment for ``seat`` against ``opponents`` (one spec for the three
    other seats, or three specs in seat order); ``bot_budget`` is a remote bot's seconds per
    round, ``illegal`` see :data:`ILLEGAL`; the other arguments as for ``env``."""
    return SingleAgentEnv(seat, opponents, rules, deals, reward, render_mode, bot_budget, illegal)
