"""A table's state: one path for an action (checked once, taken once, pending until stored),
refusals that change nothing, the table's stop as an action, the one replay of stored actions,
and a hub that shows nothing of an action until it is stored."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from callbreak.errors import CallbreakError
from callbreak.game import Call, Deal, Play
from callbreak.web.actions import Stop, decode, encode
from callbreak.web.hub import VIEW, Hub
from callbreak.web.model import FINISHED, LOBBY, PLAYING, STOPPED, StaleAction, new_match
from callbreak.web.state import TableState, replay

pytestmark = pytest.mark.anyio


def match_state(rules: str = "strict", seed: str = "7") -> TableState:
    return TableState(new_match(rules, "Asha", ["random"] * 3, seed, {"speed": "instant"}))


def step(state: TableState, action: Any) -> None:
    """Take ``action`` for the seat to act, as stored at once."""
    turn = state.match.deal.turn
    assert turn is not None
    state.commit(state.act(turn, action, state.version, []))


def call_round(state: TableState) -> None:
    """Take the calls (the highest each, or a redeal claim) until the cards are played."""
    while not state.match.deal.legal_cards():
        step(state, state.match.deal.legal_actions()[-1])


def play_deal(state: TableState) -> None:
    """Play until one more deal is scored (or the match is over)."""
    played = len(state.match.played_deals())
    while len(state.match.played_deals()) == played and not state.match.is_over:
        step(state, state.match.deal.legal_actions()[-1])


def test_an_action_is_checked_once_and_taken_once(monkeypatch: pytest.MonkeyPatch) -> None:
    state = match_state()
    call_round(state)
    checked = []
    original = Deal.play_refusal  # the engine's one check of a card (game.Deal.play)

    def counted(deal: Deal, card: Any) -> Any:
        checked.append(card)
        return original(deal, card)

    monkeypatch.setattr(Deal, "play_refusal", counted)
    seat, card = state.match.deal.turn, min(state.match.deal.legal_cards())
    assert seat is not None
    pending = state.act(seat, Play(card), state.version, [])
    assert checked == [card]  # the engine's own check, once; nothing tried and taken back
    version = state.version
    assert state.pending is pending and pending.version == version  # taken, not yet stored
    assert list(state.match.deal.trick.cards)[-1] == card
    state.commit(pending)
    assert state.pending is None and state.version == version + 1
    assert state.data.actions[-1] == f"p{card}"
    assert checked == [card]


def test_a_refused_action_changes_nothing_and_says_why() -> None:
    state = match_state()
    with pytest.raises(CallbreakError, match="version"):
        state.act(0, Call(3), None, [])
    turn = state.match.deal.turn
    assert turn is not None
    other = (turn + 1) % 4
    with pytest.raises(CallbreakError, match="turn, not yours"):
        state.act(other, Call(3), 0, [])
    with pytest.raises(StaleAction):
        state.act(turn, Call(3), 1, [])
    with pytest.raises(CallbreakError, match="calls run from"):
        state.act(turn, Call(99), 0, [])
    call_round(state)
    deal = state.match.deal
    while not (illegal := [c for c in deal.held(deal.turn or 0) if c not in deal.legal_cards()]):
        step(state, Play(min(deal.legal_cards())))  # until a seat must follow a suit it holds
    turn = deal.turn
    assert turn is not None
    before = (state.version, len(deal.actions), deal.held(turn))
    with pytest.raises(CallbreakError) as refused:
        state.act(turn, Play(illegal[0]), state.version, [])
    assert str(refused.value) == deal.explain(illegal[0])  # the page's words, as before
    with pytest.raises(CallbreakError, match="creator can end"):
        state.act(1, Stop(), state.version, [])
    with pytest.raises(CallbreakError, match="between deals"):
        state.act(0, Stop(), state.version, [])
    assert (state.version, len(deal.actions), deal.held(turn)) == before
    assert state.pending is None


def test_a_lobby_takes_no_action() -> None:
    state = match_state()
    state.data.status = LOBBY
    with pytest.raises(CallbreakError, match="not started"):
        state.act(0, Call(3), 0, [])


def test_the_table_stops_an_open_ended_match_with_an_action() -> None:
    state = match_state(rules="pagat")
    assert state.match.rules.deals is None
    while not state.match.played_deals():
        play_deal(state)
    assert state.can_stop
    stop = state.act(0, Stop(), state.version, [])
    assert stop.code == "s" and stop.status == STOPPED and state.match.is_over
    state.commit(stop)
    assert state.status == STOPPED and state.data.actions[-1] == "s"
    again = replay(state.data)  # the one replay takes the stop as any other action
    assert again.is_over and again.stopped and again.totals() == state.match.totals()
    assert decode(encode(Stop())) == Stop()


def test_the_last_action_finishes_the_match_and_replays_the_same() -> None:
    state = match_state(rules="strict(deals=1)")
    play_deal(state)
    assert state.status == FINISHED and state.data.deadline is None
    assert replay(state.data).totals() == state.match.totals()
    caught_up = match_state(rules="strict(deals=1)")
    assert caught_up.extend(state.data) and caught_up.match.totals() == state.match.totals()
    assert not caught_up.extend(state.data)  # nothing new


class Socket:
    """A socket that keeps what it is sent."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def send_text(self, text: str) -> None:
        self.sent.append(json.loads(text))


async def test_nothing_of_an_action_is_shown_until_it_is_stored() -> None:
    state = match_state()
    assert state.status == PLAYING
    hub = Hub(state)
    socket: Any = Socket()
    hub.add(socket, None)
    await hub.send(VIEW)
    await asyncio.sleep(0)
    assert [m["type"] for m in socket.sent] == ["welcome", "state"]
    turn = state.match.deal.turn
    assert turn is not None
    pending = state.act(turn, Call(3), 0, [])
    await hub.send(VIEW)  # a view asked for while the action is being stored: held back
    await hub.send(VIEW, socket)
    await asyncio.sleep(0)
    assert len(socket.sent) == 2 and hub.owed
    state.commit(pending)
    await hub.send(VIEW)
    await asyncio.sleep(0)
    assert socket.sent[-1]["type"] == "state" and socket.sent[-1]["state"]["version"] == 1
    assert not hub.owed
    for connection in hub.connections.values():
        connection.writer.cancel()
