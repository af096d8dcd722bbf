"""The PettingZoo AEC environment: four agents, ``seat_0`` to ``seat_3``, one match an episode.

>>> from callbreak.env import env
>>> table = env(rules="classic", deals=1)
>>> table.reset(seed=3)
>>> observation, reward, terminated, truncated, info = table.last()
>>> observation["observation"].shape, int(observation["action_mask"].sum())
((628,), 13)
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces

# PettingZoo ships no py.typed marker (see pyproject's mypy overrides): AECEnv is Any to mypy,
# so the subclass below is checked while its base is not.
from pettingzoo import AECEnv

from callbreak.cards import CardSet
from callbreak.env.episode import REWARDS, Episode, Seeds, episode_rules, place_rewards
from callbreak.env.table import NUM_ACTIONS, OBS_SIZE, PLAYING, EnvError, action_name
from callbreak.game import Phase
from callbreak.players.encoding import TOTALS
from callbreak.record import Record
from callbreak.rules import Rules, format_tenths, score_deal

__all__ = ["AGENTS", "env", "observation_space", "raw_env"]

AGENTS = tuple(f"seat_{seat}" for seat in range(4))


def observation_space(rules: Rules, deals: int) -> spaces.Dict:
    """The observation space of a match of ``deals`` deals under ``rules``."""
    low = np.zeros(OBS_SIZE, dtype=np.float32)
    high = np.ones(OBS_SIZE, dtype=np.float32)
    # The totals (points / 100) are bounded by the best and worst deal scores, every deal.
    scores = [score_deal(rules, c, t) for c in rules.call_range() for t in range(14)]
    low[TOTALS : TOTALS + 4] = deals * min(scores) / 1000
    high[TOTALS : TOTALS + 4] = deals * max(scores) / 1000
    return spaces.Dict(
        {
            "observation": spaces.Box(low, high, (OBS_SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
        }
    )


def check_common(reward: object, render_mode: object) -> None:
    """Raise EnvError for a reward or render mode the environments do not have."""
    if reward not in REWARDS:
        raise EnvError(f"reward must be one of {', '.join(map(repr, REWARDS))}, not {reward!r}")
    if render_mode not in (None, "ansi"):
        raise EnvError(f"render_mode must be None or 'ansi', not {render_mode!r}")


class raw_env(AECEnv):  # type: ignore[misc]  # PettingZoo's AECEnv is untyped (Any)
    """Call Break for four agents: a seeded match per episode (see ``docs/env.md``).

    ``rules`` is a profile or one-string rules; ``deals`` the played deals of an episode (None:
    the profile's, five for an open-ended one); ``reward="deal"`` gives every seat its score in
    points when a deal ends, ``reward="match"`` a reward by place at the end (see
    :func:`~callbreak.env.episode.place_rewards`).
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi"],
        "name": "callbreak_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rules: str | Rules = "strict",
        deals: int | None = None,
        reward: str = "deal",
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        check_common(reward, render_mode)
        self.rules, self.deals = episode_rules(rules, deals)
        self.reward = reward
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        self.observation_spaces = {
            agent: observation_space(self.rules, self.deals) for agent in AGENTS
        }
        self.action_spaces = {agent: spaces.Discrete(NUM_ACTIONS) for agent in AGENTS}
        self._seeds = Seeds()
        self._episode: Episode | None = None
        self._rewarded = False
        # Before the first reset there are no agents; these make that an EnvError, not an
        # AttributeError (PettingZoo's OrderEnforcingWrapper does the same at a cost per step).
        self.agent_selection = ""
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict[str, Any]] = {}

    # --- the PettingZoo interface ----------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space of ``agent`` (the same for all four)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The action space of ``agent``: Discrete(66), calls, cards and the redeal claim."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new match: the match of ``seed`` when given (see ``Seeds``)."""
        if self._episode is not None:
            self._episode.close()
        self._episode = Episode(self.rules, self.deals, self._seeds.next(seed))
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos = {agent: {} for agent in AGENTS}
        self._rewarded = False
        turn = self._episode.table.turn
        assert turn is not None
        self.agent_selection = AGENTS[turn]

    @property
    def episode(self) -> Episode:
        """The episode in progress; EnvError before the first reset."""
        if self._episode is None:
            raise EnvError("call reset() before using the environment")
        return self._episode

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """What ``agent`` may know, and its legal actions (all zero when not its turn)."""
        table = self.episode.table
        seat = _seat(agent)
        return {"observation": table.obs[seat].copy(), "action_mask": table.mask_of(seat)}

    def step(self, action: Any) -> None:
        """Take ``action`` for the agent to act; an action the rules forbid raises
        IllegalCallError or IllegalPlayError naming the rule and the legal actions."""
        episode = self.episode
        agent = self.agent_selection
        if self.terminations.get(agent) or self.truncations.get(agent):
            self._was_dead_step(action)
            return
        if not self.agents:
            raise EnvError("the match is over: call reset() to start another")
        table = episode.table
        episode.act(action)
        self._cumulative_rewards[agent] = 0.0
        scores = table.deal_scores
        if table.over and self.reward == "match":
            self._reward(place_rewards(table.places()))
        elif scores is not None and self.reward == "deal":
            self._reward([score / 10 for score in scores])
        elif self._rewarded:  # most steps: nothing to hand out, nothing to clear
            self.rewards = dict.fromkeys(AGENTS, 0.0)
            self._rewarded = False
        if table.over:
            self.terminations = dict.fromkeys(AGENTS, True)
        else:
            self.agent_selection = AGENTS[table.turn]  # type: ignore[index]  # not over: a turn

    def _reward(self, rewards: list[float]) -> None:
        self.rewards = dict(zip(AGENTS, rewards, strict=True))
        self._rewarded = True
        self._accumulate_rewards()

    def render(self) -> str | None:
        """The table as text (a spectator's view: every hand is shown)."""
        if self.render_mode is None:
            return None
        return render_table(self.episode, self.rules)

    def close(self) -> None:
        """Free the episode's seats."""
        if self._episode is not None:
            self._episode.close()

    def state(self) -> np.ndarray:
        """Every seat's observation, stacked (4 x 628): the whole public state plus each hand."""
        return self.episode.table.obs.copy()

    # --- the engine behind it --------------------------------------------------------------

    def record(self) -> Record:
        """The game record of the match so far (``callbreak check`` replays it)."""
        return self.episode.record()

    def legal_actions(self) -> list[int]:
        """The legal actions of the agent to act."""
        return self.episode.table.legal_actions()


def _seat(agent: str) -> int:
    try:
        return AGENTS.index(agent)
    except ValueError:
        raise EnvError(f"no agent {agent!r}: agents are {', '.join(AGENTS)}") from None


def render_table(episode: Episode, rules: Rules) -> str:
    """The table as text: the deal, calls, tricks won, the trick in progress and the hands."""
    table = episode.table
    lines = [
        f"{rules} deal {table.played + (0 if table.over else 1)}/{table.deals}, "
        f"dealer seat_{table.dealer}, totals "
        + " ".join(format_tenths(total) for total in table.totals)
    ]
    phase = Phase.PLAYING if table.phase == PLAYING else Phase.CALLING
    if table.over:
        lines.append("match over, places " + " ".join(map(str, table.places())))
    for seat in range(4):
        call = table.calls[seat] or "-"
        marker = ">" if table.turn == seat else " "
        lines.append(
            f"{marker} seat_{seat} call {call} won {table.won[seat]}: {CardSet(table.hands[seat])}"
        )
    if table.trick:
        plays = [
            f"seat_{(table.leader + i) & 3} {action_name(13 + card)[5:]}"
            for i, card in enumerate(table.trick)
        ]
        lines.append("trick: " + ", ".join(plays))
    elif not table.over:
        lines.append(f"{phase.value}: seat_{table.turn} to act")
    return "\n".join(lines)


def env(
    rules: str | Rules = "strict",
    deals: int | None = None,
    reward: str = "deal",
    render_mode: str | None = None,
) -> raw_env:
    """The AEC environment. It is ``raw_env`` itself: its own checks refuse what PettingZoo's
    wrappers would (a step or an observation before ``reset``, an action outside the space or
    the mask, an unknown agent) with one clear error each, and PettingZoo's
    ``OrderEnforcingWrapper`` would cost about two fifths of every step (``docs/benchmarks.md``)."""
    return raw_env(rules, deals, reward, render_mode)
