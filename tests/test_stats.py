"""A person's figures: counted from replayed matches, grouped by rules and opponents."""

from __future__ import annotations

from callbreak.game import Match
from callbreak.rules import format_tenths, made
from callbreak.seating import play_match
from callbreak.web.actions import encode
from callbreak.web.model import FINISHED, join, new_match, new_room, start
from callbreak.web.stats import FRIENDS, MIXED, Game, figures, game_of, opponents_of, replay


def played(rules: str, seed: int) -> Match:
    match = Match(rules, seed=seed)
    play_match(match, ["random"] * 4)
    return match


def test_figures_count_what_the_seat_did() -> None:
    one, two = played("classic(deals=2)", 1), played("strict(deals=3)", 2)
    lines = figures([Game(one, 1, "classic", "random"), Game(two, 1, "strict", "expert")])
    total = lines["total"]
    deals = [*one.played_deals(), *two.played_deals()]
    assert total["matches"] == 2 and total["unfinished"] == 0 and total["deals"] == 5
    assert total["first"] == (one.places()[1] == 1) + (two.places()[1] == 1)
    rules = [one.rules] * 2 + [two.rules] * 3
    calls = [made(r, d.calls[1] or 0, d.won[1]) for r, d in zip(rules, deals, strict=True)]
    assert total["made"] == sum(calls)
    points = sum(d.scores()[1] for d in deals)
    assert total["average"] == format_tenths(round(points / 5))
    assert [line["key"] for line in lines["by_rules"]] == ["classic", "strict"]
    assert [line["key"] for line in lines["by_level"]] == ["expert", "random"]


def test_an_unfinished_match_counts_its_scored_deals_only() -> None:
    match = Match("classic", seed=4)
    lines = figures([Game(match, 0, "classic", "random")])
    assert lines["total"] == {
        "matches": 0,
        "first": 0,
        "unfinished": 1,
        "deals": 0,
        "made": 0,
        "average": None,
    }


def test_opponents_and_stored_tables() -> None:
    data = new_match("strict(deals=1)", "Asha", ["expert", "expert(time=1)", "expert"], "9", {})
    assert opponents_of(data, 0) == "expert"
    data.seats[2].level = "random"
    assert opponents_of(data, 0) == MIXED
    room = new_room("classic(deals=1)", "Asha", [None, "random", "random"], seed="3")
    join(room, "Bikash")
    start(room)
    assert opponents_of(room, 0) == FRIENDS
    assert game_of(room, 2) is None  # a computer's seat: nobody's record
    match = Match(room.rules, seed=room.seed)
    play_match(match, ["random"] * 4)
    room.actions = [encode(action) for deal in match.deals for action in deal.actions]
    room.status = FINISHED
    game = game_of(room, 1)
    assert game is not None and game.match.is_over and game.profile == "classic"
    assert replay(room).totals() == match.totals()
