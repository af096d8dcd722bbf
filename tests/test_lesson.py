"""The *Learn to play* lesson's shipped steps (static/lesson.json) still meet their duties.

The page guides the person through one fixed deal: the call and each card, and the duty that
card meets. The deal is the server's own (a match made as ``POST /api/matches`` makes it, with
the file's seed and beginner computers), so a change of the rules or of the beginner's play can
move it off the file's path: these tests replay the file through the table the server keeps
(``TableState``) and fail then (``python benchmarks/lesson.py`` writes a new file).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from callbreak.cards import parse_card
from callbreak.game import Call, Play
from callbreak.rules import duties
from callbreak.web.actions import encode, take
from callbreak.web.model import new_match
from callbreak.web.state import TableState
from callbreak.web.view import seat_view

LESSON = Path(__file__).parent.parent / "src/callbreak/web/static/lesson.json"
TAUGHT = {"no_spade_lead", "follow", "beat", "trump", "overtrump", "free"}
"""The duties the issue asks the lesson to meet in play: the first-lead rule, follow suit,
overtake, trump, overtrump, the free discard."""


@pytest.fixture(scope="module")
def lesson() -> dict[str, Any]:
    found: dict[str, Any] = json.loads(LESSON.read_text())
    return found


def fresh(lesson: dict[str, Any], actions: tuple[str, ...] | list[str] = ()) -> TableState:
    """The lesson's table as the server makes it, with ``actions`` taken (a table rebuilt from
    the store, as after a reload the server no longer held in memory)."""
    data = new_match(
        lesson["rules"], None, lesson["opponents"], lesson["seed"], {"speed": lesson["speed"]}
    )
    data.actions = list(actions)
    return TableState(data)


def to_person(state: TableState, actions: list[str]) -> None:
    """The computers' decisions until seat 0's turn, kept in ``actions``."""
    while not state.match.is_over and state.seating.turn != 0:
        decision = state.seating.step()
        actions.append(encode(decision.action))


def kind_now(state: TableState) -> str:
    """The duty seat 0 meets now, worked out here from the rules (not from the script)."""
    deal = state.match.deal
    steps = duties(
        deal.held(0).mask, [int(c) for c in deal.trick.cards], not deal.tricks, deal.rules
    )
    if len(steps) > 1:
        return {"beat_spade_lead": "beat"}.get(steps[-1].kind, steps[-1].kind)
    return "free" if deal.trick.cards else "lead"


def replay(lesson: dict[str, Any], rebuild_at: int | None = None) -> tuple[TableState, set[str]]:
    """Play the file's call and cards on the server's table; the table and the duties met with
    something forbidden by them (the free discard forbids nothing)."""
    actions: list[str] = []
    state = fresh(lesson)
    to_person(state, actions)
    assert state.match.deal.legal_calls() and lesson["call"] in state.match.deal.legal_calls()
    take(state.seating, Call(lesson["call"]))
    actions.append(encode(Call(lesson["call"])))
    met: set[str] = set()
    for number, step in enumerate(lesson["steps"]):
        if number == rebuild_at:
            state = fresh(lesson, actions)
        to_person(state, actions)
        assert not state.match.is_over, f"the deal ended before step {number + 1}"
        card = parse_card(step["card"])
        view = seat_view(state, 0)
        assert step["card"] in view["legal"], f"step {number + 1}: {card} is not legal"
        kind = kind_now(state)
        assert kind == step["duty"], f"step {number + 1}: {card} meets {kind}, not {step['duty']}"
        if view["duties"] or kind == "free":
            met.add(kind)
        take(state.seating, Play(card))
        actions.append(encode(Play(card)))
    to_person(state, actions)
    return state, met


def test_the_steps_meet_every_duty_taught(lesson: dict[str, Any]) -> None:
    state, met = replay(lesson)
    assert state.match.is_over
    assert len(lesson["steps"]) == 13
    assert met >= TAUGHT
    assert set(lesson["taught"]) == TAUGHT


def test_a_table_rebuilt_mid_lesson_plays_the_same_deal(lesson: dict[str, Any]) -> None:
    # A reload the server's memory no longer holds rebuilds the table from its actions, with
    # new computer players: the beginner's card depends only on what it sees, so the lesson
    # goes on along the same path.
    state, met = replay(lesson, rebuild_at=6)
    assert state.match.is_over and met >= TAUGHT


def test_the_person_leads_and_calls_first(lesson: dict[str, Any]) -> None:
    state = fresh(lesson)
    assert state.match.deal.dealer == 3 and state.match.deal.turn == 0
    assert lesson["steps"][0]["duty"] == "no_spade_lead"


def test_the_file_names_only_the_persons_own_cards(lesson: dict[str, Any]) -> None:
    # The page is sent the file whole, before and during the deal: it holds seat 0's hand and
    # nothing of the other seats' (their hands follow from the published seed alone, as any
    # seed a person types gives the deals it gives).
    state = fresh(lesson)
    assert {step["card"] for step in lesson["steps"]} == {str(c) for c in state.match.deal.held(0)}
