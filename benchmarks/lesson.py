"""Find the deal of the *Learn to play* lesson and write its steps for the page.

Run: ``python benchmarks/lesson.py [--seeds N] [--paths N] [--out PATH]``. The lesson is a real
match through the API (``docs/web.md``, *Learn to play*): one deal of the ``strict`` profile
against three ``beginner`` computers (gentle, and a pure function of what they see: the same
seat's card again for the same view, whatever was rebuilt in between) with a fixed seed, so
that the deal is the same every time. This script tries seeds ``lesson-1``, ``lesson-2``, ... in
which the person (seat 0) leads the first trick and calls first, and random paths of the
person's cards, until one path meets every duty the lesson teaches (:data:`TAUGHT`) in play.
The call is the advisor's (the hint's) best call for that hand. It writes the seed, the call
and each of the person's cards with the duty it meets to ``static/lesson.json``, which the page
guides by; ``tests/test_lesson.py`` replays the file through the server's own table and checks
that every step still meets its duty, so a change of the rules or of the beginner's play that
breaks the lesson fails there (run this again then, and commit the new file).

It prints the seed found, the paths tried, and the steps.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

from callbreak.game import Call, Play
from callbreak.players.advisor import advise
from callbreak.rules import duties
from callbreak.web.actions import take
from callbreak.web.model import new_match
from callbreak.web.state import TableState

RULES = "strict(deals=1)"
OPPONENTS = ["beginner", "beginner", "beginner"]
SPEED = "normal"
TAUGHT = ("no_spade_lead", "follow", "beat", "trump", "overtrump", "free")
"""The duties the lesson must meet, each at least once: the profile's first-lead rule, follow
suit, overtake (beat the highest card of the led suit), trump, overtrump, and the free discard
(no card of the led suit and no spade: any card)."""
OUT = Path(__file__).resolve().parent.parent / "src/callbreak/web/static/lesson.json"


def table(seed: str) -> TableState:
    """The lesson's table as the server makes it (``Tables.create_match``), before any action."""
    data = new_match(RULES, None, OPPONENTS, seed, {"speed": SPEED, "auto_forced": False})
    return TableState(data)


def step_kind(state: TableState) -> str:
    """The duty the person (seat 0, to play) meets now, as the lesson names it: the last duty
    that narrows the hand (``rules.duties``), ``free`` when following with no duty at all,
    ``lead`` for a lead with no duty."""
    deal = state.match.deal
    hand = deal.held(0).mask
    trick = deal.trick.cards
    steps = duties(hand, [int(card) for card in trick], not deal.tricks, deal.rules)
    if len(steps) > 1:
        kind = steps[-1].kind
        return "beat" if kind == "beat_spade_lead" else kind
    return "free" if trick else "lead"


def computers(state: TableState) -> None:
    """Let the computers act until it is the person's turn or the match is over."""
    seating = state.seating
    while not state.match.is_over and seating.turn != 0:
        seating.step()


def walk(seed: str, call: int, choose: Any) -> tuple[TableState, list[dict[str, Any]]]:
    """Play the lesson's deal from ``seed`` with the person calling ``call`` and choosing each
    card by ``choose(state, legal)``; the table at the end and the person's steps."""
    state = table(seed)
    computers(state)
    take(state.seating, Call(call))
    steps: list[dict[str, Any]] = []
    while True:
        computers(state)
        if state.match.is_over:
            return state, steps
        legal = sorted(state.match.deal.legal_cards(), key=int)
        kind = step_kind(state)
        card = choose(state, legal, kind)
        # Whether the duty forbade anything: a duty met with nothing forbidden teaches nothing.
        shown = bool(state.match.deal.forbidden()) or kind == "free"
        steps.append({"card": str(card), "duty": kind, "shown": shown})
        take(state.seating, Play(card))


def met(steps: list[dict[str, Any]]) -> set[str]:
    """The taught duties met by ``steps`` with something forbidden by them (the free discard
    forbids nothing: it is met by being free)."""
    return {step["duty"] for step in steps if step["shown"]} & set(TAUGHT)


def search(seeds: int, paths: int) -> dict[str, Any] | None:
    """The first seed and path that meets every taught duty, as the page's lesson."""
    tried = 0
    for number in range(1, seeds + 1):
        seed = f"lesson-{number}"
        state = table(seed)
        deal = state.match.deal
        # The person leads the first trick (the first-lead rule is theirs to meet) and calls
        # first; the hand must hold spades and other cards for that rule to bind.
        if deal.dealer != 3:
            continue
        spades = sum(1 for card in deal.held(0) if card.suit == 0)
        if not 1 <= spades <= 4:
            continue
        observation = state.match.observation(0)
        call = int(advise(observation, time=1.0, seed=0).best.action)
        rng = random.Random(number)
        for _ in range(paths):
            tried += 1
            _, steps = walk(seed, call, lambda state, legal, kind, rng=rng: rng.choice(legal))
            if met(steps) == set(TAUGHT):
                print(f"seed {seed}: call {call}, after {tried} paths", file=sys.stderr)
                return {"seed": seed, "call": call, "steps": steps}
    print(f"no lesson found after {tried} paths", file=sys.stderr)
    return None


def lesson_json(found: dict[str, Any]) -> dict[str, Any]:
    """The file the page reads: the match to create and the person's steps."""
    return {
        "rules": RULES,
        "opponents": OPPONENTS,
        "speed": SPEED,
        "seed": found["seed"],
        "call": found["call"],
        "steps": [{"card": step["card"], "duty": step["duty"]} for step in found["steps"]],
        "taught": list(TAUGHT),
    }


def main() -> None:
    """Search, print and write the lesson."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=400)
    parser.add_argument("--paths", type=int, default=60)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    found = search(args.seeds, args.paths)
    if found is None:
        raise SystemExit(1)
    lesson = lesson_json(found)
    for number, step in enumerate(lesson["steps"], 1):
        print(f"{number:2} {step['card']} {step['duty']}")
    args.out.write_text(json.dumps(lesson, indent=1) + "\n")
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
