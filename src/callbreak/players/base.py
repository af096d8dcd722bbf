"""The Player interface: what a player is asked, what it may answer, and what a host notes.

A player receives only its own seat's :class:`~callbreak.game.Observation`: its hand, the
calls, the tricks so far, the scores. It answers with a call or a card. Like python-chess's
``engine.play(board, limit)``, a host may give one decision a time limit. Players that want to
follow the game as it happens override ``inform(event)``; :class:`Player` declares all a
player may do. Seating players, asking them (``seating.decide``) and driving a match is
:mod:`callbreak.seating`'s job.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, ClassVar

from callbreak.cards import Card
from callbreak.errors import CallbreakError
from callbreak.game import Action, Call, Observation, Play

__all__ = ["Event", "Fault", "Player", "PlayerError", "ShownEveryHand", "substitute"]


class PlayerError(CallbreakError):
    """A player answered with something the rules do not allow, or failed to answer."""


class Player:
    """A computer (or remote) player of one seat: everything a host may ask of it.

    A player must answer ``call`` and ``play``; the rest are capabilities with defaults that do
    nothing, which a player overrides when it has them, and which every host (the match driver
    :class:`callbreak.seating.Seating`, the bot server, the warm-up) calls as they are.

    ``time`` is the most seconds this one decision may take, when a host limits it (a bot
    server spending a round's budget); a player with a budget of its own uses the smaller.
    """

    spec: str = ""
    """The player as a spec (``expert(time=0.5, seed=7)``) that builds it again; empty for a
    player that has none."""
    omniscient: ClassVar[bool] = False
    """Whether the player is for measuring only and must be shown every hand (``see``)."""
    faults: Sequence[Fault] = ()
    """Faults the host noted while asking it (a remote bot's late or illegal answers), in
    order; a host reads what this decision added."""

    def call(self, observation: Observation, *, time: float | None = None) -> int:
        """The number of tricks to call."""
        raise NotImplementedError

    def play(self, observation: Observation, *, time: float | None = None) -> Card:
        """The card to play; it must be in ``observation.legal_cards``."""
        raise NotImplementedError

    def claim_redeal(self, observation: Observation) -> bool:
        """Whether to claim a new deal for a hand dealt no spade (asked only when the rules
        allow it), instead of calling. By default: never."""
        return False

    def inform(self, event: Event) -> None:
        """Something happened at the table (every seat hears every event); for players that
        follow the game as it happens."""

    def see(self, hands: tuple[int, ...]) -> None:
        """Every seat's hand now, as card masks: only an ``omniscient`` player is shown them,
        before each of its decisions, and only by a host that chooses to (the arena's)."""

    def kernel_functions(self, calling: bool) -> tuple[str, ...]:
        """The compiled kernel functions its calls (or its cards) need: a host that is still
        compiling them on a first start may let a simpler level stand in
        (:func:`callbreak.warmup.ready`). None by default."""
        return ()

    def close(self) -> None:
        """Free what the player holds (a remote bot's connection)."""


class ShownEveryHand(Player):
    """A player for measuring only that sees every hand (the oracle, the seer): a host that
    chooses to (:class:`callbreak.seating.Seating` with ``reveal_to_oracles``, the arena's)
    calls ``see`` with the four hands before each of its decisions; anywhere else it refuses
    to play."""

    omniscient: ClassVar[bool] = True

    _hands: tuple[int, ...] | None = None

    def see(self, hands: tuple[int, ...]) -> None:
        """Every seat's hand now, as card masks (the host shows them before each decision)."""
        self._hands = tuple(hands)

    def _true_deal(self, observation: Observation, name: str) -> tuple[int, ...]:
        """The four hands as shown for this decision; PlayerError if no host showed them."""
        hands = self._hands
        if hands is None or hands[observation.seat] != observation.hand.mask:
            raise PlayerError(
                f"the {name} sees every hand: only a host that shows it the hands (the arena) "
                "can seat it"
            )
        return hands


@dataclasses.dataclass(frozen=True)
class Event:
    """Something that happened at the table, for players that define ``inform``."""

    kind: str
    """One of the ``EVENTS``: 'deal_start', 'call', 'play', 'redeal', 'deal_over', 'match_over'."""
    seat: int | None
    value: object = None
    deal_index: int = 0


DEAL_START, CALL, PLAY, REDEAL, DEAL_OVER, MATCH_OVER = EVENTS = (
    "deal_start",
    "call",
    "play",
    "redeal",
    "deal_over",
    "match_over",
)


LATE, SILENT, MALFORMED, ILLEGAL, FAILED, TIMEOUT, AWAY, PREPARING = FAULTS = (
    "late",
    "silent",
    "malformed",
    "illegal",
    "failed",
    "timeout",
    "away",
    "preparing",
)
"""The kinds of fault: a remote bot answered late, not at all, not in the protocol, or with an
illegal call or card; a player of ours raised an error; a person's turn clock ran out, or they
were not at the table (the host's cover played for them); a computer's search was still being
compiled on a first start (a simpler level stood in, :func:`callbreak.warmup.ready`)."""


@dataclasses.dataclass(frozen=True)
class Fault:
    """One decision the host made for a player: it failed to answer properly, a person was away
    or out of time, or its search was not compiled yet; ``substitute`` is what was played."""

    seat: int
    action: str
    """'call' or 'play'."""
    fault: str
    """One of ``FAULTS``."""
    detail: str
    substitute: str
    """What the host played in its place (a call as a number, a card as 'TH')."""

    def to_json(self) -> dict[str, Any]:
        """The fault as it is written in a game record."""
        return {
            "seat": self.seat,
            "action": self.action,
            "fault": self.fault,
            "detail": self.detail,
            "substitute": self.substitute,
        }


def written(action: Action) -> tuple[str, str]:
    """An action as a fault writes it: its kind ('call' or 'play') and the ``substitute`` text (a
    call as a number, a card as 'TH', a claim for a new deal as 'redeal')."""
    if isinstance(action, Play):
        return PLAY, str(action.card)
    if isinstance(action, Call):
        return CALL, str(action.value)
    return CALL, "redeal"


def substitute(observation: Observation) -> Call | Play:
    """What a host plays for a seat whose player failed: the lowest call, or the lowest legal
    card (spades last, so that a substitute never wastes a trump)."""
    if observation.legal_calls:
        return Call(observation.legal_calls[0])
    return Play(min(observation.legal_cards, key=lambda c: (c.rank, c.suit == 0, c.suit)))
