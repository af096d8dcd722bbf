"""Call Break: the rules in every profile, game records, and computer players.

>>> from callbreak import Match, Rules
>>> match = Match(Rules.parse("classic"), seed=3)
>>> len(match.deal.hands)
4
"""

from callbreak.cards import Card, CardSet, Rank, Suit, parse_card, parse_cards
from callbreak.errors import (
    CallbreakError,
    IllegalCallError,
    IllegalPlayError,
    InvalidCardError,
    InvalidRulesError,
    RecordError,
)
from callbreak.game import Deal, Match, Observation, Phase, Trick
from callbreak.rules import PROFILES, Rules, format_tenths, score_deal

__version__ = "0.1.0"

__all__ = [
    "PROFILES",
    "CallbreakError",
    "Card",
    "CardSet",
    "Deal",
    "IllegalCallError",
    "IllegalPlayError",
    "InvalidCardError",
    "InvalidRulesError",
    "Match",
    "Observation",
    "Phase",
    "Rank",
    "RecordError",
    "Rules",
    "Suit",
    "Trick",
    "__version__",
    "format_tenths",
    "parse_card",
    "parse_cards",
    "score_deal",
]
