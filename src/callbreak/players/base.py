"""The Player interface: what a player is asked, what it may answer, and what a host notes.

A player receives only its own seat's :class:`~callbreak.game.Observation`: its hand, the
calls, the tricks so far, the scores. It answers with a call or a card. Like python-chess's
``engine.play(board, limit)``, a host may give one decision a time limit. Players that want to
follow the game as it happens may also define ``inform(event)``. Seating players and driving a
match is :mod:`callbreak.seating`'s job.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Protocol, runtime_checkable

from callbreak.cards import Card
from callbreak.errors import CallbreakError
from callbreak.game import Action, Call, ClaimRedeal, Observation, Play

__all__ = ["Event", "Fault", "Player", "PlayerError", "ShownEveryHand", "decide", "substitute"]


class PlayerError(CallbreakError):
    """A player answered with something the rules do not allow, or failed to answer."""


class ShownEveryHand:
    """A player for measuring only that sees every hand (the oracle, the seer): a host that
    chooses to (:class:`callbreak.seating.Seating` with ``reveal_to_oracles``, the arena's)
    calls ``see`` with the four hands before each of its decisions; anywhere else it refuses
    to play."""

    omniscient = True
    """Marks the player a host must show every hand to (see ``see``)."""

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


@runtime_checkable
class Player(Protocol):
    """A computer (or remote) player of one seat.

    ``time`` is the most seconds this one decision may take, when a host limits it (a bot
    server spending a round's budget); a player with a budget of its own uses the smaller.
    """

    def call(self, observation: Observation, *, time: float | None = None) -> int:
        """The number of tricks to call."""
        ...

    def play(self, observation: Observation, *, time: float | None = None) -> Card:
        """The card to play; it must be in ``observation.legal_cards``."""
        ...


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


def decide(player: Player, observation: Observation, *, time: float | None = None) -> Action:
    """Ask ``player`` for its action in ``observation`` and check it against the rules.

    ``time`` limits this decision; it is passed on only when given, so that a player written
    without the parameter still plays where nobody limits it.
    """
    limit = {} if time is None else {"time": time}
    if observation.may_claim_redeal:
        wants = getattr(player, "claim_redeal", None)
        if wants is not None and wants(observation):
            return ClaimRedeal()
    if observation.legal_calls:
        value = player.call(observation, **limit)
        if isinstance(value, bool) or not isinstance(value, int):
            raise PlayerError(f"{_name(player)} called {value!r}, not a whole number")
        if value not in observation.legal_calls:
            low, high = observation.legal_calls[0], observation.legal_calls[-1]
            raise PlayerError(f"{_name(player)} called {value}; calls run {low}-{high}")
        return Call(value)
    card = player.play(observation, **limit)
    if not isinstance(card, int) or card not in observation.legal_cards:
        shown = card.pretty() if isinstance(card, Card) else repr(card)
        raise PlayerError(
            f"{_name(player)} played {shown}; legal: {observation.legal_cards.pretty()}"
        )
    return Play(Card(card))


def substitute(observation: Observation) -> Call | Play:
    """What a host plays for a seat whose player failed: the lowest call, or the lowest legal
    card (spades last, so that a substitute never wastes a trump)."""
    if observation.legal_calls:
        return Call(observation.legal_calls[0])
    return Play(min(observation.legal_cards, key=lambda c: (c.rank, c.suit == 0, c.suit)))


def _name(player: Player) -> str:
    return str(getattr(player, "spec", type(player).__name__))
