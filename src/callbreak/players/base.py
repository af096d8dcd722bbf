"""The Player interface, and driving a match with four players.

A player receives only its own seat's :class:`~callbreak.game.Observation`: its hand, the
calls, the tricks so far, the scores. It answers with a call or a card. Players that want to
follow the game as it happens may also define ``inform(event)``.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from callbreak.cards import Card
from callbreak.errors import CallbreakError
from callbreak.game import Action, Call, ClaimRedeal, Match, Observation, Play

__all__ = ["Event", "Player", "PlayerError", "decide", "play_match"]


class PlayerError(CallbreakError):
    """A player answered with something the rules do not allow, or failed to answer."""


@runtime_checkable
class Player(Protocol):
    """A computer (or remote, or human) player of one seat."""

    def call(self, observation: Observation) -> int:
        """The number of tricks to call."""
        ...

    def play(self, observation: Observation) -> Card:
        """The card to play; it must be in ``observation.legal_cards``."""
        ...


@dataclasses.dataclass(frozen=True)
class Event:
    """Something that happened at the table, for players that define ``inform``."""

    kind: str
    """'deal_start', 'call', 'play', 'redeal', 'deal_over' or 'match_over'."""
    seat: int | None
    value: object = None
    deal_index: int = 0


def decide(player: Player, observation: Observation) -> Action:
    """Ask ``player`` for its action in ``observation`` and check it against the rules."""
    if observation.may_claim_redeal:
        wants = getattr(player, "claim_redeal", None)
        if wants is not None and wants(observation):
            return ClaimRedeal()
    if observation.legal_calls:
        value = player.call(observation)
        if isinstance(value, bool) or not isinstance(value, int):
            raise PlayerError(f"{_name(player)} called {value!r}, not a whole number")
        if value not in observation.legal_calls:
            low, high = observation.legal_calls[0], observation.legal_calls[-1]
            raise PlayerError(f"{_name(player)} called {value}; calls run {low}-{high}")
        return Call(value)
    card = player.play(observation)
    if not isinstance(card, int) or card not in observation.legal_cards:
        shown = card.pretty() if isinstance(card, Card) else repr(card)
        raise PlayerError(
            f"{_name(player)} played {shown}; legal: {observation.legal_cards.pretty()}"
        )
    return Play(Card(card))


def _name(player: Player) -> str:
    return str(getattr(player, "spec", type(player).__name__))


def play_match(
    match: Match,
    players: Sequence[Player],
    *,
    on_decision: Callable[[int, Action, float], None] | None = None,
) -> Match:
    """Play ``match`` to its end with ``players[seat]`` deciding for each seat.

    ``on_decision(seat, action, seconds)`` is told of every decision and how long it took.
    An open-ended match stops after as many deals as a five-deal match plays.
    """
    if len(players) != 4:
        raise CallbreakError(f"a match needs 4 players, not {len(players)}")
    announced = -1
    while not match.is_over:
        if match.rules.deals is None and len(match.played_deals()) >= 5 and not match.deal.actions:
            match.stop()
            break
        deal = match.deal
        if len(match.deals) - 1 != announced:
            announced = len(match.deals) - 1
            _inform(players, Event("deal_start", None, None, announced))
        seat = deal.turn
        assert seat is not None
        start = time.perf_counter()
        action = decide(players[seat], match.observation(seat))
        elapsed = time.perf_counter() - start
        deal_index = len(match.deals) - 1
        match.apply(action)
        if on_decision is not None:
            on_decision(seat, action, elapsed)
        _inform(players, _event(seat, action, deal_index))
        if deal.is_over:
            _inform(players, Event("deal_over", None, deal.phase.value, deal_index))
    _inform(players, Event("match_over", None, None, len(match.deals) - 1))
    return match


def _event(seat: int, action: Action, deal_index: int) -> Event:
    if isinstance(action, Call):
        return Event("call", seat, action.value, deal_index)
    if isinstance(action, Play):
        return Event("play", seat, action.card, deal_index)
    return Event("redeal", seat, None, deal_index)


def _inform(players: Sequence[Player], event: Event) -> None:
    for player in players:
        inform = getattr(player, "inform", None)
        if inform is not None:
            inform(event)
