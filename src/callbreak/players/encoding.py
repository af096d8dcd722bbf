"""What a seat knows, as numbers: the observation vector and the action numbers.

One flat float32 vector (:data:`LAYOUT`) of a seat's :class:`~callbreak.game.Observation`,
and one space of action numbers for calls and cards: ``0``-``12`` call 1-13, ``13 + card`` plays
the card of that index (``suit * 13 + rank - 2``, spades first), ``65`` claims a redeal for a
hand dealt no spade. The learning environments (:mod:`callbreak.env.table`, which keeps the same
vector incrementally for speed), the self-play data (:mod:`callbreak.selfplay`) and the learned
player (:mod:`callbreak.players.learned`) all read the game through it, so it sits here, below
them all, and depends on the core alone.

>>> from callbreak.game import Match
>>> match = Match("strict", seed=3)
>>> vector = encode(match.observation(match.deal.turn), deals=5)
>>> vector.shape == (OBS_SIZE,), int(vector[HAND : HAND + 52].sum())
(True, 13)
"""

from __future__ import annotations

import numpy as np

from callbreak.game import Action, Call, Observation, Phase, Play
from callbreak.rules import Rules

__all__ = [
    "CALLS",
    "CARD_BASE",
    "CLAIM",
    "LAYOUT",
    "NUM_ACTIONS",
    "OBS_SIZE",
    "OFFSET",
    "RULE_FEATURES",
    "action_of",
    "bits",
    "encode",
    "rule_features",
]

CALLS = 13
"""Actions 0-12 call 1-13 tricks."""
CARD_BASE = 13
"""Action ``CARD_BASE + card`` plays the card of that index."""
CLAIM = 65
"""The action that claims a redeal for a hand dealt no spade."""
NUM_ACTIONS = 66


LAYOUT: tuple[tuple[str, int, str], ...] = (
    ("hand", 52, "the cards this seat holds, by card index"),
    ("played", 4 * 52, "cards played this deal, by relative seat (52 per seat)"),
    ("trick", 4 * 52, "cards on the trick in progress, by relative seat"),
    ("calls", 4 * 14, "each relative seat's call, one-hot: 0 not called yet, k called k"),
    ("won", 4 * 14, "tricks won this deal by each relative seat, one-hot 0-13"),
    ("voids", 4 * 4, "relative seat x suit (S H D C): the seat has shown out of the suit"),
    ("totals", 4, "match totals before this deal by relative seat, in points / 100"),
    ("dealer", 4, "the dealer's relative seat, one-hot"),
    ("leader", 4, "the relative seat that leads (led) the trick in progress, one-hot"),
    ("turn", 4, "the relative seat to act, one-hot (all zero once the match is over)"),
    ("phase", 2, "calling, playing (both zero once the match is over)"),
    ("claim", 1, "1 when this seat may now claim a redeal for a spadeless hand"),
    ("deal", 2, "the deal's number / deals in the episode, deals left after it / deals"),
    ("rules", 11, "the profile: see RULE_FEATURES"),
)
"""The observation vector, slice by slice: ``(name, size, meaning)``. Relative seat ``r`` is
the seat ``r`` places after the observer in play order (0 is the observer itself)."""

OFFSET: dict[str, int] = {}
_at = 0
for _name, _size, _meaning in LAYOUT:
    OFFSET[_name] = _at
    _at += _size
OBS_SIZE = _at
"""The observation vector's length."""

RULE_FEATURES = (
    "min_call / 13",
    "max_call / 13",
    "no_spade_first_lead",
    "free_following",
    "forced_low_spade",
    "exact_scoring",
    "bonus_call / 13 (0 without a bonus)",
    "bonus_score / 13",
    "min_total_calls / 52",
    "spadeless_redeal",
    "eight_wins",
)

HAND = OFFSET["hand"]
PLAYED = OFFSET["played"]
TRICK = OFFSET["trick"]
CALLS_AT = OFFSET["calls"]
WON = OFFSET["won"]
VOIDS = OFFSET["voids"]
TOTALS = OFFSET["totals"]
DEALER = OFFSET["dealer"]
LEADER = OFFSET["leader"]
TURN = OFFSET["turn"]
PHASE = OFFSET["phase"]
CLAIM_AT = OFFSET["claim"]
DEAL = OFFSET["deal"]
RULES_AT = OFFSET["rules"]


def bits(mask: int) -> np.ndarray:
    """A 52-bit mask as 52 zeros and ones (uint8), card index order."""
    word = np.array([mask], dtype=np.uint64).view(np.uint8)  # a buffer per call: thread-safe
    out: np.ndarray = np.unpackbits(word, count=52, bitorder="little")
    return out


def rule_features(rules: Rules) -> list[float]:
    """The rules block of the observation (see :data:`RULE_FEATURES`)."""
    return [
        rules.min_call / 13,
        rules.max_call / 13,
        float(rules.no_spade_first_lead),
        float(rules.free_following),
        float(rules.forced_low_spade),
        float(rules.exact_scoring),
        (rules.bonus_call or 0) / 13,
        rules.bonus_score / 13,
        rules.min_total_calls / 52,
        float(rules.spadeless_redeal),
        float(rules.eight_wins),
    ]


def encode(observation: Observation, deals: int) -> np.ndarray:
    """The observation vector of :data:`LAYOUT` built from the engine's ``Observation`` (what
    the seat may know), for a match of ``deals`` played deals.

    It equals what a :class:`Table` keeps for that seat at the same moment (the tests check
    it at every step); a player wrapping a policy uses it to see the game as the policy did.
    """
    out = np.zeros(OBS_SIZE, dtype=np.float32)
    viewer = observation.seat
    out[HAND : HAND + 52] = bits(observation.hand.mask)
    for trick in (*observation.tricks, observation.trick):
        led = -1
        for seat, card in trick.plays():
            rel = (seat - viewer) & 3
            out[PLAYED + 52 * rel + card] = 1
            if led >= 0 and card // 13 != led:
                out[VOIDS + 4 * rel + led] = 1
                if led != 0 and card >= 13:
                    out[VOIDS + 4 * rel] = 1
            if led < 0:
                led = card // 13
    for seat, card in observation.trick.plays():
        out[TRICK + 52 * ((seat - viewer) & 3) + card] = 1
    for seat in range(4):
        rel = (seat - viewer) & 3
        out[CALLS_AT + 14 * rel + (observation.calls[seat] or 0)] = 1
        out[WON + 14 * rel + observation.won[seat]] = 1
        out[TOTALS + rel] = observation.totals[seat] / 1000
    out[DEALER + ((observation.dealer - viewer) & 3)] = 1
    out[LEADER + ((observation.trick.leader - viewer) & 3)] = 1
    if observation.turn is not None and observation.phase in (Phase.CALLING, Phase.PLAYING):
        out[TURN + ((observation.turn - viewer) & 3)] = 1
    if observation.phase is Phase.CALLING:
        out[PHASE] = 1
    elif observation.phase is Phase.PLAYING:
        out[PHASE + 1] = 1
    out[CLAIM_AT] = float(observation.may_claim_redeal)
    number = observation.deal_number
    out[DEAL] = number / deals
    out[DEAL + 1] = max(deals - number, 0) / deals
    features = rule_features(observation.rules)
    out[RULES_AT : RULES_AT + len(features)] = features
    return out


def action_of(action: Action) -> int:
    """The action number of an engine action (a call, a card played, a claim for a redeal)."""
    if isinstance(action, Call):
        return action.value - 1
    if isinstance(action, Play):
        return CARD_BASE + int(action.card)
    return CLAIM
