"""Call Break for learning agents: a PettingZoo AEC environment, a Gymnasium single-agent
environment and an OpenSpiel game (``callbreak.env.openspiel``), exact to every rule profile.

They need the ``rl`` extra: ``pip install 'callbreak[rl]'``. A policy trained with them plays
as the ``policy`` player level once :func:`callbreak.env.policy.register` has named it (see
:mod:`callbreak.env.policy`).
"""

from __future__ import annotations

from callbreak.env.aec import AGENTS, env, raw_env
from callbreak.env.gym import SingleAgentEnv, single_agent
from callbreak.env.table import CALLS, CARD_BASE, CLAIM, LAYOUT, NUM_ACTIONS, OBS_SIZE, EnvError

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
