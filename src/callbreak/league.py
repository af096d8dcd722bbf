"""Leagues: every entrant against every other in duplicate sets, with ratings.

A league file (TOML) names the entrants, each a label and a player spec (a level with options,
or a remote bot's address), and the rules::

    name = "levels"          # optional: the file's name without .toml
    rules = "strict"         # a profile or one-string rules
    sets = 100               # per pair; callbreak league --sets overrides it
    seed = 1
    bot_budget = 1.5         # remote bots' seconds per round, 0 for none

    [[entrant]]
    label = "random"
    spec = "random"

    [[entrant]]
    label = "my bot"
    spec = "http://10.0.0.7:7000"

Each pair plays the arena's duplicate sets both ways: set ``i`` of X against Y is the arena's
set ``i`` of X as A against three Ys (with the Ys' own baseline), and of Y as A against three
Xs. Every pair's set ``i`` is played on the same deals, so all comparisons share them. The pair's
*edge* on a set is the mean of X's arena difference and the negative of Y's, in points per
five-deal match: its mean over the sets, with a 95% interval, is the duplicate paired mean.

The ratings come from OpenSkill (Plackett-Luce, a model for multi-player results, with the
parameters of :func:`callbreak.ratings.model` and no drift). For each
set, each field of three copies of an entrant Y and each seat, everyone who played that seat
against that field on those deals (Y itself in the baseline, every other entrant as A) took
part in one game with the same cards and opponents, ranked by their totals; the games are
rated in a fixed order (set, field, seat), so the ratings depend only on the results.

Finished sets are kept in a SQLite file as they finish, keyed by the rules, seed, bots' budget,
the two specs and the set's index: a league stopped and started again plays only the sets it
lacks, and a bigger ``sets`` adds sets to those played. Labels can change freely; a changed spec
is a new player with no sets. A remote bot is known by its address only: a different bot at
the same address needs a new results file.
"""

from __future__ import annotations

import dataclasses
import html
import json
import math
import sqlite3
import statistics
import tomllib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from callbreak.arena import (
    ArenaError,
    SetResult,
    SetTask,
    check_budget,
    check_rules,
    check_spec,
    confidence_interval,
    format_time,
    run_sets,
)
from callbreak.errors import CallbreakError
from callbreak.ratings import model as ratings_model
from callbreak.workers import WorkerError, open_runner

__all__ = [
    "Entrant",
    "League",
    "LeagueError",
    "Pair",
    "Rating",
    "ResultsStore",
    "Standings",
    "load_league",
    "parse_league",
    "rate",
    "run_league",
]

Key = tuple[str, str, int]
"""A finished set: A's label, B's label, the set's index."""

TOP_KEYS = ("name", "rules", "sets", "seed", "bot_budget", "entrant")
ENTRANT_KEYS = ("label", "spec")
Z95 = 1.959964


class LeagueError(CallbreakError):
    """A league file that cannot be run, or results that cannot be kept."""


@dataclasses.dataclass(frozen=True)
class Entrant:
    """One player of a league: its label and its spec as the arena reads it."""

    label: str
    spec: str


@dataclasses.dataclass(frozen=True)
class League:
    """A league as its file describes it."""

    name: str
    entrants: tuple[Entrant, ...]
    rules: str = "strict"
    sets: int = 100
    seed: int = 1
    bot_budget: float = 1.5

    def pairs(self) -> list[tuple[Entrant, Entrant]]:
        """Every pair of entrants, in the file's order."""
        return [(x, y) for i, x in enumerate(self.entrants) for y in self.entrants[i + 1 :]]

    def tasks(self, sets: int | None = None) -> list[tuple[Key, SetTask]]:
        """Every arena set of the league, by set index, each pair's both ways together."""
        found = []
        for index in range(self.sets if sets is None else sets):
            for x, y in self.pairs():
                for a, b in ((x, y), (y, x)):
                    task = SetTask(
                        index, a.spec, (b.spec,) * 4, self.rules, self.seed, False, self.bot_budget
                    )
                    found.append(((a.label, b.label, index), task))
        return found


# --- the league file ---------------------------------------------------------------------------


def load_league(path: str | Path) -> League:
    """The league of a TOML file; LeagueError says what is wrong with it, naming the file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise LeagueError(f"cannot read the league file {path}: {error}") from None
    return parse_league(text, str(path), name=path.stem)


def parse_league(text: str, source: str = "league file", *, name: str = "league") -> League:
    """The league of a TOML text (``source`` names it in errors).

    >>> league = parse_league('rules = "bhoos"\\n[[entrant]]\\nlabel = "r"\\nspec = "random"\\n'
    ...                       '[[entrant]]\\nlabel = "b"\\nspec = "Beginner"\\n')
    >>> [(e.label, e.spec) for e in league.entrants], league.rules, league.sets
    ([('r', 'random'), ('b', 'beginner')], 'bhoos', 100)
    """

    def fail(message: str) -> LeagueError:
        return LeagueError(f"{source}: {message}")

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise fail(f"not valid TOML: {error}") from None
    unknown = [key for key in data if key not in TOP_KEYS]
    if unknown:
        raise fail(f"unknown key {unknown[0]!r} (a league file has {', '.join(TOP_KEYS)})")
    title = data.get("name", name)
    if not isinstance(title, str) or not title.strip():
        raise fail(f"name must be a text, not {title!r}")
    rules_text = data.get("rules", "strict")
    if not isinstance(rules_text, str):
        raise fail(f"rules must be a profile or one-string rules in quotes, not {rules_text!r}")
    try:
        rules = str(check_rules(rules_text))
    except ArenaError as error:
        raise fail(f"rules: {error}") from None
    sets = _whole(data.get("sets", 100), "sets", 1, fail)
    seed = _whole(data.get("seed", 1), "seed", 0, fail)
    budget = data.get("bot_budget", 1.5)
    if isinstance(budget, bool) or not isinstance(budget, int | float):
        raise fail(f"bot_budget must be a number of seconds, not {budget!r}")
    try:
        check_budget(float(budget))
    except ArenaError as error:
        raise fail(str(error)) from None
    entrants = _entrants(data.get("entrant", []), fail)
    return League(title.strip(), entrants, rules, sets, seed, float(budget))


def _whole(value: object, key: str, least: int, fail: Callable[[str], LeagueError]) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise fail(f"{key} must be a whole number, {least} or more, not {value!r}")
    if key == "sets" and value > 1_000_000:
        raise fail(f"sets must be at most 1,000,000, not {value}")
    return value


def _entrants(tables: object, fail: Callable[[str], LeagueError]) -> tuple[Entrant, ...]:
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise fail("entrants are [[entrant]] tables, each with a label and a spec")
    found: list[Entrant] = []
    where: dict[str, int] = {}
    specs: dict[str, str] = {}
    for number, table in enumerate(tables, 1):
        unknown = [key for key in table if key not in ENTRANT_KEYS]
        if unknown:
            raise fail(f"entrant {number}: unknown key {unknown[0]!r} (give label and spec)")
        label, spec = table.get("label"), table.get("spec")
        if not isinstance(label, str) or not label.strip():
            raise fail(f'entrant {number}: give its label as a text, e.g. label = "expert"')
        label = label.strip()
        if label in where:
            raise fail(f"duplicate label {label!r}: entrants {where[label]} and {number} use it")
        if not isinstance(spec, str):
            raise fail(f'entrant {label!r}: give its spec as a text, e.g. spec = "expert"')
        try:
            canonical = str(check_spec(spec))
        except ArenaError as error:
            raise fail(f"entrant {label!r}: {error}") from None
        if canonical in specs:
            raise fail(
                f"entrants {specs[canonical]!r} and {label!r} are the same player, {canonical}"
            )
        where[label] = number
        specs[canonical] = label
        found.append(Entrant(label, canonical))
    if len(found) < 2:
        raise fail(f"a league needs two entrants or more, not {len(found)}")
    return tuple(found)


# --- finished sets, kept ----------------------------------------------------------------------


class ResultsStore:
    """Finished sets in a SQLite file, written as each set finishes."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(self.path)
            self.db.execute(
                "CREATE TABLE IF NOT EXISTS sets (rules TEXT NOT NULL, seed INTEGER NOT NULL, "
                "bot_budget REAL NOT NULL, a TEXT NOT NULL, b TEXT NOT NULL, "
                "set_index INTEGER NOT NULL, result TEXT NOT NULL, "
                "PRIMARY KEY (rules, seed, bot_budget, a, b, set_index))"
            )
            self.db.commit()
        except (OSError, sqlite3.Error) as error:
            raise LeagueError(f"cannot keep results in {self.path}: {error}") from None

    def load(self, league: League, sets: int) -> dict[Key, SetResult]:
        """The league's finished sets with an index below ``sets``, by labels and index."""
        labels = {entrant.spec: entrant.label for entrant in league.entrants}
        try:
            rows = self.db.execute(
                "SELECT a, b, set_index, result FROM sets "
                "WHERE rules = ? AND seed = ? AND bot_budget = ? AND set_index < ?",
                (league.rules, league.seed, league.bot_budget, sets),
            ).fetchall()
            found = {}
            for a, b, index, text in rows:
                if a in labels and b in labels:
                    found[(labels[a], labels[b], index)] = SetResult.from_json(json.loads(text))
        except (sqlite3.Error, ValueError, KeyError, TypeError) as error:
            raise LeagueError(f"cannot read the results in {self.path}: {error}") from None
        return found

    def add(self, task: SetTask, result: SetResult) -> None:
        """Keep a finished set."""
        try:
            self.db.execute(
                "INSERT OR REPLACE INTO sets VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    task.rules,
                    task.seed,
                    task.bot_budget,
                    task.a,
                    task.b[0],
                    task.index,
                    json.dumps(result.to_json()),
                ),
            )
            self.db.commit()
        except sqlite3.Error as error:
            raise LeagueError(f"cannot keep results in {self.path}: {error}") from None

    def close(self) -> None:
        """Close the file."""
        self.db.close()


# --- ratings and pairs -------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Rating:
    """An entrant's rating (OpenSkill's mean and deviation) and its figures."""

    label: str
    spec: str
    mu: float
    sigma: float
    games: int
    """Rated games: seats of a set against one field."""
    edge: float
    """The mean of its pairs' edges, in points per match (NaN before any pair has a set)."""
    calls_made: float | None
    move_time_mean: float | None
    faults: int

    @property
    def interval(self) -> tuple[float, float]:
        """The rating's 95% interval."""
        return (self.mu - Z95 * self.sigma, self.mu + Z95 * self.sigma)


@dataclasses.dataclass(frozen=True)
class Pair:
    """Two entrants' duplicate comparison: X's edge over Y, both ways on the same deals."""

    x: str
    y: str
    sets: int
    """Sets played both ways."""
    mean: float
    ci95: tuple[float, float]
    x_as_a: float
    """The arena's mean difference of X as A against three Ys, over its sets."""
    y_as_a: float
    x_first_share: float
    """X's share of first places as A against three Ys."""


@dataclasses.dataclass(frozen=True)
class Standings:
    """The result of a league: ratings best first, and every pair."""

    league: League
    sets: int
    """Sets per pair asked for."""
    played: int
    """Arena sets finished (each pair plays two per set)."""
    ratings: tuple[Rating, ...]
    pairs: tuple[Pair, ...]
    command: str = ""
    interrupted: bool = False
    error: str | None = None

    @property
    def complete(self) -> bool:
        """Whether every set of every pair was played."""
        return self.played == self.sets * len(self.league.pairs()) * 2

    def to_json(self) -> dict[str, Any]:
        """The standings as JSON."""
        league = self.league
        return {
            "name": league.name,
            "rules": league.rules,
            "seed": league.seed,
            "bot_budget": league.bot_budget,
            "sets": self.sets,
            "arena_sets_played": self.played,
            "complete": self.complete,
            "ratings": [
                {
                    "label": r.label,
                    "spec": r.spec,
                    "mu": _round(r.mu),
                    "sigma": _round(r.sigma),
                    "interval95": [_round(r.interval[0]), _round(r.interval[1])],
                    "games": r.games,
                    "edge": _round(r.edge),
                    "calls_made": _round(r.calls_made),
                    "move_time_mean": _round(r.move_time_mean, 6),
                    "faults": r.faults,
                }
                for r in self.ratings
            ],
            "pairs": [
                {
                    "x": p.x,
                    "y": p.y,
                    "sets": p.sets,
                    "mean": _round(p.mean),
                    "ci95": [_round(p.ci95[0]), _round(p.ci95[1])],
                    "x_as_a": _round(p.x_as_a),
                    "y_as_a": _round(p.y_as_a),
                    "x_first_share": _round(p.x_first_share),
                }
                for p in self.pairs
            ],
            "command": self.command,
            "interrupted": self.interrupted,
            "error": self.error,
        }

    def to_markdown(self, chart: str | None = "ratings.svg") -> str:
        """The standings as a Markdown page (with the chart's image when it is named)."""
        league = self.league
        lines = [f"# League: {league.name}", ""]
        state = "" if self.complete else " (not complete: the figures cover the sets played)"
        lines.append(
            f"Rules `{league.rules}`, seed {league.seed}, {self.sets} sets per pair, each played "
            f"both ways: {self.played} arena sets of five matches{state}."
        )
        if self.command:
            lines += ["", f"Command: `{self.command}`"]
        if self.error:
            lines += ["", f"Stopped: {self.error}"]
        lines += [
            "",
            "Ratings: OpenSkill's Plackett-Luce mean (mu) with its 95% interval, from one game "
            "per set, field and seat. Edge: the mean of the entrant's duplicate edges over its "
            "opponents, in points per five-deal match.",
            "",
            "| rank | entrant | spec | rating | 95% interval | edge | calls made | "
            "decision time | faults |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        for rank, r in enumerate(self.ratings, 1):
            low, high = r.interval
            lines.append(
                f"| {rank} | {_cell(r.label)} | `{_cell(r.spec)}` | {r.mu:.2f} | "
                f"{low:.2f} to {high:.2f} | {_signed(r.edge)} | {_percent(r.calls_made)} | "
                f"{_millis(r.move_time_mean)} | {r.faults} |"
            )
        if chart:
            lines += ["", f"![Ratings with their 95% intervals]({chart})"]
        lines += [
            "",
            "## Pairs",
            "",
            "X's edge over Y: the mean over sets of X's arena difference against three Ys and "
            "the negative of Y's against three Xs, on the same deals, in points per match.",
            "",
            "| X | Y | sets | X's edge | 95% CI | X as A | Y as A | X first as A |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        for p in self.pairs:
            low, high = p.ci95
            interval = f"{_signed(low)} to {_signed(high)}" if p.sets > 1 else "-"
            lines.append(
                f"| {_cell(p.x)} | {_cell(p.y)} | {p.sets} | {_signed(p.mean)} | {interval} | "
                f"{_signed(p.x_as_a)} | {_signed(p.y_as_a)} | {_percent(p.x_first_share)} |"
            )
        return "\n".join(lines) + "\n"

    def to_svg(self) -> str:
        """A chart of the ratings with their 95% intervals, best at the top (SVG)."""
        return ratings_chart(self.league.name, self.ratings)

    def write(self, folder: str | Path) -> list[Path]:
        """Write league.json, league.md and ratings.svg into ``folder``; returns their paths."""
        folder = Path(folder)
        files = {
            "league.json": json.dumps(self.to_json(), indent=1) + "\n",
            "league.md": self.to_markdown("ratings.svg"),
            "ratings.svg": self.to_svg(),
        }
        written = []
        try:
            folder.mkdir(parents=True, exist_ok=True)
            for name, text in files.items():
                (folder / name).write_text(text, encoding="utf-8")
                written.append(folder / name)
        except OSError as error:
            raise LeagueError(f"cannot write the standings into {folder}: {error}") from None
        return written


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None or not math.isfinite(value) else round(value, digits)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _signed(value: float) -> str:
    return "-" if not math.isfinite(value) else f"{value:+.2f}"


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _millis(value: float | None) -> str:
    # One unit down the column, never the exponent form.
    return format_time(value, "ms")


def rate(league: League, results: Mapping[Key, SetResult]) -> tuple[Rating, ...]:
    """The entrants' ratings from the finished sets, best first."""
    # No drift: the players do not change during a league, so nothing should widen their sigma.
    model = ratings_model(drift=0.0)
    labels = [entrant.label for entrant in league.entrants]
    ratings = {label: model.rating(name=label) for label in labels}
    games = dict.fromkeys(labels, 0)
    for index in sorted({key[2] for key in results}):
        for field in labels:
            rivals = [
                (x, results[(x, field, index)]) for x in labels if (x, field, index) in results
            ]
            if not rivals:
                continue
            for seat in range(4):
                # The field's own baseline in this seat scores 0; each rival its difference.
                players = [field, *(x for x, _ in rivals)]
                scores = [0.0, *(result.diffs[seat] for _, result in rivals)]
                rated = model.rate([[ratings[p]] for p in players], scores=scores)
                for player, team in zip(players, rated, strict=True):
                    ratings[player] = team[0]
                    games[player] += 1
    pairs = pair_results(league, results)
    found = []
    for entrant in league.entrants:
        label = entrant.label
        edges = [p.mean if p.x == label else -p.mean for p in pairs if label in (p.x, p.y)]
        edges = [edge for edge in edges if math.isfinite(edge)]
        calls: list[bool] = []
        times: list[float] = []
        faults = 0
        for (a, b, _), result in results.items():
            for side, stats in ((a, result.a), (b, result.b)):
                if side == label:
                    calls += stats.made
                    times += stats.times
                    faults += stats.faults
        found.append(
            Rating(
                label,
                entrant.spec,
                ratings[label].mu,
                ratings[label].sigma,
                games[label],
                statistics.fmean(edges) if edges else math.nan,
                statistics.fmean(calls) if calls else None,
                statistics.fmean(times) if times else None,
                faults,
            )
        )
    order = {label: number for number, label in enumerate(labels)}
    found.sort(key=lambda r: (-r.mu, order[r.label]))
    return tuple(found)


def pair_results(league: League, results: Mapping[Key, SetResult]) -> list[Pair]:
    """Every pair's duplicate edge over the sets it played both ways, in the file's order."""
    found = []
    for x, y in league.pairs():
        ways = {
            index: (result, results.get((y.label, x.label, index)))
            for (a, b, index), result in results.items()
            if (a, b) == (x.label, y.label)
        }
        edges = [(r.diff - back.diff) / 2 for _, (r, back) in sorted(ways.items()) if back]
        x_as_a = [r.diff for (a, b, _), r in results.items() if (a, b) == (x.label, y.label)]
        y_as_a = [r.diff for (a, b, _), r in results.items() if (a, b) == (y.label, x.label)]
        firsts = [r.first_share for (a, b, _), r in results.items() if (a, b) == (x.label, y.label)]
        found.append(
            Pair(
                x.label,
                y.label,
                len(edges),
                statistics.fmean(edges) if edges else math.nan,
                confidence_interval(edges),
                statistics.fmean(x_as_a) if x_as_a else math.nan,
                statistics.fmean(y_as_a) if y_as_a else math.nan,
                statistics.fmean(firsts) if firsts else math.nan,
            )
        )
    return found


def standings(
    league: League,
    results: Mapping[Key, SetResult],
    sets: int,
    *,
    command: str = "",
    interrupted: bool = False,
    error: str | None = None,
) -> Standings:
    """The standings of the finished sets; pairs are turned so that X is rated above Y."""
    ratings = rate(league, results)
    rank = {r.label: number for number, r in enumerate(ratings)}
    pairs = []
    for pair in pair_results(league, results):
        if rank[pair.y] < rank[pair.x]:
            pair = _turned(pair, results)
        pairs.append(pair)
    pairs.sort(key=lambda p: (rank[p.x], rank[p.y]))
    return Standings(league, sets, len(results), ratings, tuple(pairs), command, interrupted, error)


def _turned(pair: Pair, results: Mapping[Key, SetResult]) -> Pair:
    firsts = [r.first_share for (a, b, _), r in results.items() if (a, b) == (pair.y, pair.x)]
    low, high = pair.ci95
    return Pair(
        pair.y,
        pair.x,
        pair.sets,
        -pair.mean,
        (-high, -low),
        pair.y_as_a,
        pair.x_as_a,
        statistics.fmean(firsts) if firsts else math.nan,
    )


# --- the chart ---------------------------------------------------------------------------------


def ratings_chart(title: str, ratings: Sequence[Rating]) -> str:
    """An SVG chart: one row per entrant, its rating as a dot on its 95% interval."""
    row, top, left, width, right = 30, 56, 200, 420, 90
    height = top + row * len(ratings) + 56
    lows = [r.interval[0] for r in ratings] or [0.0]
    highs = [r.interval[1] for r in ratings] or [1.0]
    ticks = _ticks(min(lows), max(highs))
    start, end = ticks[0], ticks[-1]

    def x(value: float) -> float:
        return left + (value - start) / (end - start) * width

    total = left + width + right
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{total}" height="{height}" '
        f'viewBox="0 0 {total} {height}" font-family="sans-serif" font-size="13">',
        f'<rect width="{total}" height="{height}" fill="white"/>',
        f'<text x="{total / 2}" y="24" text-anchor="middle" font-size="15" font-weight="bold">'
        f"{html.escape(title)}: ratings with their 95% intervals</text>",
    ]
    axis = top + row * len(ratings) + 6
    for tick in ticks:
        parts.append(
            f'<line x1="{x(tick):.1f}" y1="{top - 8}" x2="{x(tick):.1f}" y2="{axis}" '
            f'stroke="#ddd"/>'
        )
        parts.append(
            f'<text x="{x(tick):.1f}" y="{axis + 18}" text-anchor="middle" fill="#555">'
            f"{tick:g}</text>"
        )
    for number, rating in enumerate(ratings):
        y = top + row * number + row / 2
        low, high = rating.interval
        parts += [
            f'<text x="{left - 12}" y="{y + 4:.1f}" text-anchor="end">'
            f"{html.escape(rating.label)}</text>",
            f'<line x1="{x(low):.1f}" y1="{y:.1f}" x2="{x(high):.1f}" y2="{y:.1f}" '
            f'stroke="#2a6fb0" stroke-width="3"/>',
            f'<circle cx="{x(rating.mu):.1f}" cy="{y:.1f}" r="5" fill="#c0392b"/>',
            f'<text x="{left + width + 10}" y="{y + 4:.1f}" fill="#333">'
            f"{rating.mu:.1f} ± {Z95 * rating.sigma:.1f}</text>",
        ]
    parts.append(
        f'<text x="{left + width / 2}" y="{axis + 36}" text-anchor="middle" fill="#555">'
        "rating (OpenSkill's mu); the bar is its 95% interval</text>"
    )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _ticks(low: float, high: float) -> list[float]:
    """Round tick values covering ``low`` to ``high``: about five of them."""
    if not high > low:
        low, high = low - 1, high + 1
    raw = (high - low) / 5
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.floor(low / step) * step
    count = math.ceil((high - first) / step - 1e-9)
    return [round(first + i * step, 10) for i in range(count + 1)]


# --- running -----------------------------------------------------------------------------------


def run_league(
    league: League,
    store: ResultsStore,
    *,
    sets: int | None = None,
    workers: int | None = None,
    ray: str | None = None,
    on_start: Callable[[int, int], None] | None = None,
    on_set: Callable[[Key, SetResult], None] | None = None,
    command: str = "",
) -> Standings:
    """Play the league's sets that ``store`` lacks and return the standings of all of them.

    ``on_start(to_play, kept)`` is called once the plan is known, ``on_set(key, result)`` as
    each arena set finishes (it is kept in the store first). Ctrl-C (KeyboardInterrupt) stops
    the league with the standings of the sets finished; a failure (a remote bot gone away)
    stops it the same way, with the reason in ``error``. ``workers`` and ``ray`` are the
    arena's (see :func:`callbreak.arena.compare`).
    """
    sets = league.sets if sets is None else sets
    if not 1 <= sets <= 1_000_000:
        raise LeagueError(f"sets must be 1 to 1,000,000, not {sets}")
    results = store.load(league, sets)
    plan = [(key, task) for key, task in league.tasks(sets) if key not in results]
    if on_start is not None:
        on_start(len(plan), len(results))
    keys = {task: key for key, task in plan}
    interrupted, failure = False, None
    if plan:
        try:
            # Sets with a remote bot never overlap (run_sets sees to it); the others may.
            with open_runner(workers=workers, ray=ray) as runner:
                for task, result in run_sets(runner, [task for _, task in plan]):
                    key = keys[task]
                    store.add(task, result)
                    results[key] = result
                    if on_set is not None:
                        on_set(key, result)
        except KeyboardInterrupt:
            interrupted = True
        except WorkerError as error:
            if not any(key in results for key in keys.values()):
                raise LeagueError(str(error)) from None  # Ray missing or out of reach
            interrupted, failure = True, str(error)
        except LeagueError:
            raise
        except CallbreakError as error:
            interrupted, failure = True, str(error)
    return standings(league, results, sets, command=command, interrupted=interrupted, error=failure)
