"""Leagues: the file's mistakes, the ratings of clearly ranked players, resuming, the reports,
a remote bot entrant on Ray, and the command."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from callbreak.bots.server import create_app
from callbreak.game import Observation
from callbreak.league import (
    League,
    LeagueError,
    ResultsStore,
    Standings,
    load_league,
    parse_league,
    run_league,
)
from callbreak.players import LEVELS, register
from callbreak.players.simple import BeginnerPlayer
from tests.helpers import running

ENTRANTS = """
[[entrant]]
label = "random"
spec = "random"

[[entrant]]
label = "beginner"
spec = "beginner"

[[entrant]]
label = "intermediate"
spec = "intermediate"
"""


class Overcaller(BeginnerPlayer):
    """Plays like the beginner but calls ``extra`` tricks more than it would: the more extra,
    the more calls fail, the worse it scores (a clearly ranked family of players)."""

    def __init__(self, extra: int = 0, seed: int | None = None) -> None:
        super().__init__(seed)
        self.extra = extra
        self.spec = f"overcaller(extra={extra})"

    def call(self, observation: Observation, *, time: float | None = None) -> int:
        wanted = super().call(observation) + self.extra
        return min(wanted, observation.legal_calls[-1])


@pytest.fixture
def overcaller() -> Iterator[str]:
    """The level 'overcaller', registered for one test only."""
    register("overcaller", Overcaller)
    yield "overcaller"
    del LEVELS["overcaller"]


def league_of(text: str) -> League:
    return parse_league(text, "test.toml", name="test")


# --- the file ----------------------------------------------------------------------------------


def test_a_league_file_read(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(f'rules = "classic"\nsets = 7\nseed = 3\nbot_budget = 0\n{ENTRANTS}')
    league = load_league(path)
    assert league.name == "mine" and league.rules == str(league.rules) and league.sets == 7
    assert [e.label for e in league.entrants] == ["random", "beginner", "intermediate"]
    assert league.seed == 3 and league.bot_budget == 0.0
    assert len(league.pairs()) == 3 and len(league.tasks()) == 7 * 3 * 2


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (ENTRANTS.replace('spec = "beginner"', 'spec = "wizard"'), "entrant 'beginner': player "),
        (ENTRANTS.replace('spec = "beginner"', 'spec = "expert(speed=2)"'), "unknown option"),
        (ENTRANTS.replace('"beginner"\nspec', '"random"\nspec'), "duplicate label 'random'"),
        (ENTRANTS.replace('spec = "beginner"', 'spec = "beginner("'), "entrant 'beginner'"),
        ('rules = "bridge"\n' + ENTRANTS, "rules: unknown profile 'bridge'"),
        ('rules = "strict(deals=zero)"\n' + ENTRANTS, "rules: "),
        ("rules = 5\n" + ENTRANTS, "rules must be a profile"),
        ("sets = 0\n" + ENTRANTS, "sets must be a whole number, 1 or more, not 0"),
        ("sets = true\n" + ENTRANTS, "sets must be a whole number"),
        ("bot_budget = -1\n" + ENTRANTS, "bots' budget per round is 0"),
        ("colour = 'red'\n" + ENTRANTS, "unknown key 'colour'"),
        (ENTRANTS + "\ncolour = 'red'\n", "entrant 3: unknown key 'colour'"),
        ('rules = "strict\n' + ENTRANTS, "not valid TOML: "),
        ("[[entrant]]\nlabel = 'x'\nspec = 'random'\n", "two entrants or more, not 1"),
        ("[[entrant]]\nspec = 'random'\n", "entrant 1: give its label"),
        (ENTRANTS.replace('spec = "beginner"', 'spec = "random"'), "the same player, random"),
        ("entrant = 3\n", "entrants are [[entrant]] tables"),
    ],
)
def test_league_file_mistakes_get_one_clear_message(text: str, words: str) -> None:
    with pytest.raises(LeagueError) as caught:
        league_of(text)
    message = str(caught.value)
    assert message.startswith("test.toml: ") and words in message
    assert "\n" not in message


def test_cli_league_file_mistake_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(ENTRANTS.replace('"beginner"\nspec', '"random"\nspec'))
    result = subprocess.run(
        [sys.executable, "-m", "callbreak", "league", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "duplicate label 'random'" in result.stderr
    missing = subprocess.run(
        [sys.executable, "-m", "callbreak", "league", str(tmp_path / "none.toml")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1
    assert "cannot read the league file" in missing.stderr


# --- ratings -----------------------------------------------------------------------------------


@pytest.mark.slow
def test_ratings_order_clearly_ranked_players(overcaller: str, tmp_path: Path) -> None:
    text = "sets = 4\nseed = 2\n" + "".join(
        f'[[entrant]]\nlabel = "+{extra}"\nspec = "overcaller(extra={extra})"\n'
        for extra in (3, 0, 6, 1)
    )
    league = league_of(text)
    standings = run_league(league, ResultsStore(tmp_path / "r.sqlite"), workers=1)
    assert [r.label for r in standings.ratings] == ["+0", "+1", "+3", "+6"]
    best, worst = standings.ratings[0], standings.ratings[-1]
    assert best.interval[0] > worst.interval[1]  # clearly apart, not only in order
    assert all(r.games == 4 * 4 * 4 for r in standings.ratings)  # sets, fields, seats
    assert all(p.ci95[0] > 0 for p in standings.pairs)  # X is rated above Y, and better
    assert all(p.sets == 4 for p in standings.pairs)


# --- resuming ----------------------------------------------------------------------------------


@pytest.mark.slow
def test_resume_plays_only_the_missing_sets(tmp_path: Path) -> None:
    # One-deal matches: what is checked is which sets are played, and that they add up.
    league = league_of('sets = 3\nseed = 4\nrules = "strict(deals=1)"\n' + ENTRANTS)
    fresh = run_league(league, ResultsStore(tmp_path / "fresh.sqlite"), workers=1)
    assert fresh.complete and fresh.played == 3 * 3 * 2

    store = ResultsStore(tmp_path / "kept.sqlite")
    played: list[tuple[str, str, int]] = []

    def stop_after_five(key: tuple[str, str, int], _result: object) -> None:
        played.append(key)
        if len(played) == 5:
            raise KeyboardInterrupt

    stopped = run_league(league, store, workers=1, on_set=stop_after_five)
    assert stopped.interrupted and stopped.played == 5 and not stopped.complete

    plans: list[tuple[int, int]] = []
    again: list[tuple[str, str, int]] = []
    resumed = run_league(
        league,
        store,
        workers=1,
        on_start=lambda to_play, kept: plans.append((to_play, kept)),
        on_set=lambda key, _result: again.append(key),
    )
    assert plans == [(18 - 5, 5)]
    assert not set(again) & set(played) and len(again) == 13
    assert resumed.complete and not resumed.interrupted
    assert _figures(resumed) == _figures(fresh)

    # More sets later: only the new ones are played.
    more: list[tuple[str, str, int]] = []
    run_league(league, store, sets=4, workers=1, on_set=lambda key, _r: more.append(key))
    assert sorted({index for _, _, index in more}) == [3] and len(more) == 6


def _figures(standings: Standings) -> dict[str, Any]:
    """The standings' JSON without what depends on the clock or the command."""
    data = standings.to_json()
    for rating in data["ratings"]:
        del rating["move_time_mean"]
    del data["command"], data["interrupted"]
    return data


def test_a_changed_spec_is_a_new_player(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path / "r.sqlite")
    league = league_of("sets = 1\n" + ENTRANTS)
    run_league(league, store, workers=1)
    changed = league_of(
        "sets = 1\n" + ENTRANTS.replace('spec = "random"', 'spec = "random(seed=1)"')
    )
    plans: list[tuple[int, int]] = []
    run_league(changed, store, workers=1, on_start=lambda n, k: plans.append((n, k)))
    assert plans == [(4, 2)]  # the beginner-intermediate pair is kept, random's pairs are new


# --- reports -----------------------------------------------------------------------------------


@pytest.mark.slow
def test_reports_json_markdown_and_svg(tmp_path: Path) -> None:
    league = league_of('name = "tiny <league>"\nsets = 2\n' + ENTRANTS)
    standings = run_league(league, ResultsStore(tmp_path / "r.sqlite"), workers=1, command="x")
    paths = standings.write(tmp_path / "out")
    assert [p.name for p in paths] == ["league.json", "league.md", "ratings.svg"]
    data = json.loads(paths[0].read_text())
    assert data["name"] == "tiny <league>" and data["complete"] and data["command"] == "x"
    assert [r["label"] for r in data["ratings"]][-1] == "random"
    assert len(data["pairs"]) == 3 and all(len(p["ci95"]) == 2 for p in data["pairs"])
    page = paths[1].read_text()
    assert "| 1 | " in page and "## Pairs" in page and "![Ratings" in page
    svg = ElementTree.fromstring(paths[2].read_text())  # well-formed, the label escaped
    texts = [t.text or "" for t in svg.iter("{http://www.w3.org/2000/svg}text")]
    assert any("tiny <league>" in t for t in texts) and "random" in texts


# --- remote bots and Ray -----------------------------------------------------------------------


def test_a_remote_bot_entrant_on_ray_gives_the_local_result(local_ray: str, tmp_path: Path) -> None:
    with running(create_app("beginner")) as address:
        text = (
            'sets = 1\nbot_budget = 0\nrules = "bhoos(deals=1)"\n'
            '[[entrant]]\nlabel = "bot"\n'
            f'spec = "{address}"\n'
            '[[entrant]]\nlabel = "random"\nspec = "random"\n'
            '[[entrant]]\nlabel = "random 5"\nspec = "random(seed=5)"\n'
        )
        league = league_of(text)
        local = run_league(league, ResultsStore(tmp_path / "local.sqlite"), workers=1)
        on_ray = run_league(league, ResultsStore(tmp_path / "ray.sqlite"), ray="local")
    assert on_ray.complete and not on_ray.error
    assert _figures(on_ray) == _figures(local)
    assert [r.faults for r in on_ray.ratings] == [0, 0, 0]


@pytest.mark.ray
def test_cli_league_on_a_local_ray_then_resumed(tmp_path: Path) -> None:
    path = tmp_path / "tiny.toml"
    path.write_text("sets = 1\n" + ENTRANTS.replace('"intermediate"', '"random(seed=3)"'))
    command = [sys.executable, "-m", "callbreak", "league", str(path)]
    first = subprocess.run(
        [*command, "--ray", "--workers", "1"], capture_output=True, text=True, timeout=300
    )
    assert first.returncode == 0, first.stderr
    assert "Traceback" not in first.stderr
    folder = tmp_path / "tiny"
    assert sorted(p.name for p in folder.iterdir()) == [
        "league.json",
        "league.md",
        "ratings.svg",
        "results.sqlite",
    ]
    report = json.loads((folder / "league.json").read_text())
    assert report["complete"] and report["arena_sets_played"] == 6
    again = subprocess.run(
        [*command, "--workers", "1"], capture_output=True, text=True, timeout=120
    )
    assert again.returncode == 0, again.stderr
    assert "6 arena sets kept from before" in again.stderr
    resumed = json.loads((folder / "league.json").read_text())
    assert resumed["ratings"][0]["mu"] == report["ratings"][0]["mu"]
