"""Call Break for learning agents: a PettingZoo AEC environment, a Gymnasium single-agent
environment and an OpenSpiel game (``callbreak.env.openspiel``), exact to every rule profile.

They need the ``rl`` extra: ``pip install 'callbreak[rl]'``. Importing this package also makes
the ``policy`` player level (a policy trained with these environments, see
:mod:`callbreak.env.policy`) known to player specs.
"""

from __future__ import annotations

from callbreak.env.aec import AGENTS, env, raw_env
from callbreak.env.gym import SingleAgentEnv, single_agent
from callbreak.env.table import CALLS, CARD_BASE, CLAIM, LAYOUT, NUM_ACTIONS, OBS_SIZE, EnvError
from callbreak.players import register

__all__ = [
    "AGENTS",
    "CALLS",
    "CARD_BASE",
    "CLAIM",
    "LAYOUT",
    "NUM_ACTIONS",
    "OBS_SIZE",
    "EnvError",
    "SingleAgentEnv",
    "env",
    "raw_env",
    "single_agent",
]

register("policy", "callbreak.env.policy:PolicyPlayer")
