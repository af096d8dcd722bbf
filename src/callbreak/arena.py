"""Duplicate matches between players, with confidence intervals.

Luck of the deal swamps skill over a few games, so players are compared on the very same deals.
One *set* is one seeded match of the profile's deals. In each set, player A plays the match once
from each of the four seats against three copies of B, and B plays the same deals from the same
seats against three copies of itself (the baseline). A's result on a set is the mean over the
seats of A's total minus the baseline's total in that seat. The mean of those results over the
sets, with its 95% confidence interval, says how much better A scores than B per match.

>>> result = compare("beginner", "random", rules="strict", sets=2, seed=1, workers=1)
>>> result.sets, result.matches, result.mean_diff > 0
(2, 10, True)
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import statistics
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from callbreak.errors import CallbreakError
from callbreak.game import Match
from callbreak.record import dumps
from callbreak.rules import Rules, made, score_deal
from callbreak.seating import MatchResult, PlayerSpec, close, derive_seed, is_remote, play_match
from callbreak.warmup import needs_kernel, warm_up
from callbreak.workers import Runner, WorkerError, open_runner

__all__ = [
    "ArenaError",
    "ArenaOptions",
    "Result",
    "SetResult",
    "SetTask",
    "compare",
    "play_set",
    "t_quantile",
]


class ArenaError(CallbreakError):
    """Arena settings that cannot work: a bad spec, too few sets, an unwritable folder."""


@dataclasses.dataclass
class SideStats:
    """Calls, tricks and decision times of one side (A, or B in the baseline)."""

    calls: list[int] = dataclasses.field(default_factory=list)
    tricks: list[int] = dataclasses.field(default_factory=list)
    made: list[bool] = dataclasses.field(default_factory=list)
    lost: list[int] = dataclasses.field(default_factory=list)
    """Per deal, the tenths a broken call cost (minus its score; 0 for a made call)."""
    times: list[float] = dataclasses.field(default_factory=list)
    faults: int = 0
    """Remote bots' faults (late, silent, malformed or illegal answers) on this side."""

    def extend(self, other: SideStats) -> None:
        """Add another side's figures to these."""
        self.calls += other.calls
        self.tricks += other.tricks
        self.made += other.made
        self.lost += other.lost
        self.times += other.times
        self.faults += other.faults

    def summary(self) -> dict[str, float | None]:
        """Made-call rate, mean call, mean overtricks on made calls, decision times."""
        rows = zip(self.tricks, self.calls, self.made, strict=True)
        overtricks = [tricks - call for tricks, call, ok in rows if ok]
        return {
            "calls_made": _mean([float(ok) for ok in self.made]),
            "mean_call": _mean([float(c) for c in self.calls]),
            "mean_overtricks": _mean([float(o) for o in overtricks]),
            "broken_loss": _mean([lost / 10 for lost in self.lost]),
            "move_time_mean": _mean(self.times),
            "move_time_p95": _percentile(self.times, 0.95),
            "move_time_max": max(self.times, default=None),
            "faults": float(self.faults),
        }

    def to_json(self) -> dict[str, Any]:
        """The figures as JSON (floats keep every digit)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SideStats:
        """The figures :meth:`to_json` wrote."""
        return cls(
            [int(c) for c in data["calls"]],
            [int(t) for t in data["tricks"]],
            [bool(m) for m in data["made"]],
            [int(x) for x in data.get("lost", [])],  # absent from results kept before it
            [float(t) for t in data["times"]],
            int(data["faults"]),
        )


@dataclasses.dataclass
class SetResult:
    """The outcome of one set."""

    index: int
    diffs: list[float]
    """A's total minus the baseline's total, in points, for A in seats 0-3."""
    first_share: float
    """A's share of first places over its four matches (a shared first counts as a share)."""
    a: SideStats
    b: SideStats
    records: dict[str, str] = dataclasses.field(default_factory=dict)
    """The set's game records by file name, when the task asked for them."""

    @property
    def diff(self) -> float:
        """A's mean paired difference on this set."""
        return sum(self.diffs) / len(self.diffs)

    def to_json(self) -> dict[str, Any]:
        """The set's figures as JSON, without its records."""
        return {
            "index": self.index,
            "diffs": self.diffs,
            "first_share": self.first_share,
            "a": self.a.to_json(),
            "b": self.b.to_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SetResult:
        """The set :meth:`to_json` wrote."""
        return cls(
            int(data["index"]),
            [float(d) for d in data["diffs"]],
            float(data["first_share"]),
            SideStats.from_json(data["a"]),
            SideStats.from_json(data["b"]),
        )


@dataclasses.dataclass(frozen=True)
class Result:
    """The arena's verdict on A against B."""

    a: str
    b: str
    rules: str
    seed: int
    sets: int
    matches: int
    mean_diff: float
    ci95: tuple[float, float]
    a_first_share: float
    a_stats: dict[str, float | None]
    b_stats: dict[str, float | None]
    command: str
    interrupted: bool = False
    error: str | None = None
    """Why the comparison stopped early, when something failed (a remote bot went away)."""
    notes: tuple[str, ...] = ()
    set_diffs: tuple[float, ...] = ()
    """A's mean paired difference on each set, in set order (to pair two comparisons made
    with the same seed)."""
    set_indices: tuple[int, ...] = ()
    """The index of each set in ``set_diffs``: which deals it played. An interrupted run with
    several workers may miss sets in the middle, and ``--first-set`` starts later, so pair two
    comparisons by these, not by position."""

    def to_json(self) -> dict[str, Any]:
        """The JSON report."""
        data: dict[str, Any] = {
            "a": self.a,
            "b": self.b,
            "rules": self.rules,
            "sets": self.sets,
            "matches": self.matches,
            "mean_diff": _round(self.mean_diff),
            "ci95": [_round(self.ci95[0]), _round(self.ci95[1])],  # null until two sets
            "a_first_share": _round(self.a_first_share),
            "a_calls_made": _round(self.a_stats["calls_made"]),
            "b_calls_made": _round(self.b_stats["calls_made"]),
            "a_move_time_p95": _round(self.a_stats["move_time_p95"], 6),
            "b_move_time_p95": _round(self.b_stats["move_time_p95"], 6),
            "a_move_time_max": _round(self.a_stats["move_time_max"], 6),
            "b_move_time_max": _round(self.b_stats["move_time_max"], 6),
            "seed": self.seed,
        }
        for side, stats in (("a", self.a_stats), ("b", self.b_stats)):
            data[f"{side}_faults"] = int(stats["faults"] or 0)
            for key in ("mean_call", "mean_overtricks", "broken_loss", "move_time_mean"):
                data[f"{side}_{key}"] = _round(stats[key], 6 if key.startswith("move") else 4)
        data["command"] = self.command
        data["interrupted"] = self.interrupted
        data["error"] = self.error
        data["notes"] = list(self.notes)
        data["set_diffs"] = [_round(diff) for diff in self.set_diffs]
        data["set_indices"] = list(self.set_indices)
        return data


def time_unit(*seconds: float | None) -> str:
    """The unit in which the longest of ``seconds`` reads best: "s" from a second, "ms" from a
    millisecond, "µs" below; figures compared side by side are written in one unit."""
    known = [value for value in seconds if value is not None and math.isfinite(value)]
    longest = max(known, default=0.0)
    return "s" if longest >= 1 else "ms" if longest >= 1e-3 else "µs"


def format_time(seconds: float | None, unit: str = "ms") -> str:
    """A duration in ``unit`` ("s", "ms" or "µs") to three significant digits, never in the
    exponent form (which wrote 2,641 ms as "2.64e+03 ms", read as less than a mean of 858 ms)."""
    if seconds is None or not math.isfinite(seconds):
        return "-"
    value = seconds * {"s": 1.0, "ms": 1e3, "µs": 1e6}[unit]
    if value == 0:
        return f"0 {unit}"
    decimals = max(0, 2 - math.floor(math.log10(abs(value))))
    return f"{value:,.{decimals}f} {unit}"


def format_times(stats: dict[str, float | None]) -> str:
    """A side's decision times as the arena reports them: the mean, the 95th percentile and the
    longest, in one unit; a mean above the 95th percentile (a few decisions far longer than the
    rest, such as a search's calls among quick forced cards) says so."""
    mean, p95, longest = stats["move_time_mean"], stats["move_time_p95"], stats["move_time_max"]
    if mean is None:
        return "-"
    unit = time_unit(mean, p95)
    text = (
        f"mean {format_time(mean, unit)}, 95th percentile {format_time(p95, unit)}, "
        f"max {format_time(longest, unit)}"
    )
    if p95 is not None and mean > p95:
        text += " (the few longest decisions pull the mean above the 95th percentile)"
    return text


def _round(value: float | None, digits: int = 4) -> float | None:
    # JSON has no infinity or NaN: an interval of fewer than two sets is written as nulls.
    return None if value is None or not math.isfinite(value) else round(value, digits)


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _percentile(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)]


def t_quantile(df: int, p: float = 0.975) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (to about 1e-3)."""
    if df < 1:
        return math.inf
    table = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306}
    if p == 0.975 and df in table:
        return table[df]
    z = statistics.NormalDist().inv_cdf(p)
    # Cornish-Fisher expansion of t around the normal quantile.
    return (
        z
        + (z**3 + z) / (4 * df)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3)
    )


def confidence_interval(values: Sequence[float]) -> tuple[float, float]:
    """The 95% confidence interval of the mean of ``values`` (t-distribution)."""
    if len(values) < 2:
        return (-math.inf, math.inf)
    mean = statistics.fmean(values)
    half = t_quantile(len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
    return (mean - half, mean + half)


# --- specs and seeds -------------------------------------------------------------------------

REPRODUCIBLE = {"deadline": False}
"""Options the arena gives every level that takes them: its results must not depend on how busy
the machine is or how many workers share it, so experts search exactly the amount their
budget's cost model allows, never less because the clock ran out."""


def arena_spec(spec: str | PlayerSpec, seed: int, clock: float | None = None) -> PlayerSpec:
    """The spec with ``seed`` where it has none, and reproducible (see ``REPRODUCIBLE``);
    under a wall clock (``clock`` seconds per decision) the players keep their deadline.

    >>> str(arena_spec("expert(time=0.5)", 4))
    'expert(time=0.5, seed=4, deadline=false)'
    >>> str(arena_spec("expert(time=0.5)", 4, clock=0.1))
    'expert(time=0.5, seed=4)'
    """
    if clock is not None:
        return PlayerSpec.parse(spec).with_defaults(seed=seed)
    return PlayerSpec.parse(spec).with_defaults(seed=seed, **REPRODUCIBLE)


def check_spec(spec: str) -> PlayerSpec:
    """The spec read; ArenaError unless it names a player that can be built (remote
    addresses are contacted only when a set starts)."""
    try:
        parsed = PlayerSpec.parse(spec)
        close(arena_spec(parsed, 0).build(ready=False))
    except CallbreakError as error:
        raise ArenaError(f"player {spec!r}: {error}") from None
    return parsed


# --- one set ---------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class SetTask:
    """One set to play: its index (which names its deals), A, the four B seats, the rules."""

    index: int
    a: str
    b: tuple[str, ...]
    rules: str
    seed: int
    records: bool = False
    """Whether the set's game records come back with its result."""
    bot_budget: float = 1.5
    clock: float | None = None
    """Seconds of wall clock each decision of our players may take (None: the cost models)."""

    def remotes(self) -> set[str]:
        """The remote bots' addresses this set plays with (one set at a time each)."""
        return {spec for spec in (self.a, *self.b) if is_remote(spec)}


def _play(
    task: SetTask,
    specs: Sequence[PlayerSpec],
    name: str,
    sides: Sequence[str],
    records: dict[str, str],
) -> MatchResult:
    match = Match(task.rules, seed=f"arena/{task.seed}/{task.index}", players=tuple(sides))
    # An oracle (for measuring only) is shown every hand here.
    result = play_match(
        match, specs, bot_budget=task.bot_budget, time=task.clock, reveal_to_oracles=True
    )
    if task.records:
        record = dataclasses.replace(result.record(), meta={"arena": name})
        records[f"set{task.index:05d}-{name}.json"] = dumps(record)
    return result


def play_set(task: SetTask) -> SetResult:
    """Play one set: the baseline, then A from each seat."""
    records: dict[str, str] = {}
    b_specs = [
        arena_spec(task.b[s], derive_seed(task.seed, task.index, "b", s), task.clock)
        for s in range(4)
    ]
    baseline = _play(task, b_specs, "baseline", [f"B{s}" for s in range(4)], records)
    b_totals = baseline.match.totals()
    b_stats = _side_stats(baseline, range(4))
    a_stats = SideStats()
    diffs, first = [], 0.0
    for seat in range(4):
        specs = list(b_specs)
        specs[seat] = arena_spec(task.a, derive_seed(task.seed, task.index, "a", seat), task.clock)
        names = [f"B{s}" for s in range(4)]
        names[seat] = "A"
        played = _play(task, specs, f"a{seat}", names, records)
        diffs.append((played.match.totals()[seat] - b_totals[seat]) / 10)
        places = played.match.places()
        if places[seat] == 1:
            first += 1 / places.count(1)
        a_stats.extend(_side_stats(played, [seat]))
    return SetResult(task.index, diffs, first / 4, a_stats, b_stats, records)


def _side_stats(played: MatchResult, seats: Sequence[int] | range) -> SideStats:
    stats = SideStats()
    match = played.match
    for deal in match.played_deals():
        for seat in seats:
            call = deal.calls[seat]
            assert call is not None
            stats.calls.append(call)
            stats.tricks.append(deal.won[seat])
            ok = made(match.rules, call, deal.won[seat])
            stats.made.append(ok)
            stats.lost.append(0 if ok else -score_deal(match.rules, call, deal.won[seat]))
    counts = played.fault_counts()
    for seat in seats:
        stats.times += played.times[seat]
        stats.faults += counts[seat]
    return stats


# --- the whole comparison --------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ArenaOptions:
    """How :func:`compare` plays its sets beyond its local workers, and what it writes and
    tells as it goes (the ``callbreak arena`` options of the same names)."""

    ray: str | None = None
    """Run the sets as Ray tasks: ``"local"`` on a Ray started for the run with ``workers``
    CPUs, or the address of a running cluster (``HOST:PORT``, ``auto``) with at most
    ``workers`` sets at once (default: its CPUs). The result is the same as with local
    workers."""
    clock: float | None = None
    """Hold each decision of our own players to this many seconds of wall clock, as in a
    competition (each worker's players get one core: run with as many workers as cores),
    instead of the cost models that make results independent of the machine's load; the
    results then depend on the machine and on whatever else runs on it."""
    bot_budget: float = 1.5
    """Seconds per round for remote bots (0: no limit)."""
    records: str | os.PathLike[str] | None = None
    """A folder to write every match's game record into."""
    on_set: Callable[[SetResult, Sequence[SetResult]], None] | None = None
    """Called as ``on_set(result, so_far)`` as each set finishes (sets may finish out of
    order; the result does not depend on the order)."""
    command: str = ""
    """The command line the report names."""


def compare(
    a: str,
    b: str | Sequence[str],
    *,
    rules: str = "strict",
    sets: int = 100,
    seed: int = 1,
    first_set: int = 0,
    workers: int | None = None,
    options: ArenaOptions = ArenaOptions(),
) -> Result:
    """Compare player A with player B over ``sets`` duplicate sets.

    The sets are numbered from ``first_set`` (each set's number and the seed name its deals):
    ``first_set=20, sets=20`` plays the 20 sets that follow a run of ``sets=20``, so the two
    runs together are the run of ``sets=40``, and several machines can share one run.

    ``b`` is one spec, or up to four (one per seat; the last one fills the remaining seats).
    Ctrl-C (KeyboardInterrupt) stops the comparison and returns the result of the sets played
    so far. ``options`` say how the sets are played beyond ``workers`` (on Ray, under a clock,
    with a budget for remote bots) and what is written and told as they finish.

    Remote bots (``http://HOST:PORT``) get ``options.bot_budget`` seconds per round, and
    matches are then played one at a time, so no address ever serves two matches at once. One
    address may serve several seats of a match when the bot keeps no state between requests (as
    ``callbreak bot`` does); a bot that keeps the state of one game needs one address per seat:
    give B as four addresses. The result notes any address that plays several seats. On Ray,
    the node that plays a set calls the bot: its address must be reachable from every node.

    With more than one local worker the sets run in spawned processes, which import the
    caller's main module: a script that calls ``compare`` must do so under
    ``if __name__ == "__main__":``. A failure that stops the comparison (a remote bot gone away)
    ends it like Ctrl-C, with the sets played so far and the reason in ``error``.
    """
    ray, clock, bot_budget = options.ray, options.clock, options.bot_budget
    records, on_set = options.records, options.on_set
    b_specs = _b_specs(b)
    everyone = [check_spec(spec) for spec in (a, *b_specs)]
    parsed = check_rules(rules)
    if not 1 <= sets <= 1_000_000:
        raise ArenaError(f"sets must be 1 or more, not {sets}")
    if not 0 <= first_set <= 1_000_000_000:
        raise ArenaError(f"the first set (--first-set) is 0 to 1000000000, not {first_set}")
    if workers is not None and workers < 1:
        raise ArenaError(f"workers must be 1 or more, not {workers}")
    remote = [str(spec) for spec in everyone if spec.remote]
    if remote and ray is None:
        workers = 1
    notes = tuple(
        f"{address} plays several seats of a match: that works only for a bot that keeps no "
        f"state between requests, such as callbreak bot"
        for address in sorted(set(remote))
        if remote.count(address) > 1
    )
    folder = None if records is None else Path(records)
    if folder is not None:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ArenaError(f"cannot create the records folder {folder}: {error}") from None
    check_budget(bot_budget)
    if clock is not None and not (math.isfinite(clock) and 0.01 <= clock <= 600):
        raise ArenaError(f"the clock per decision is 0.01 to 600 seconds, not {clock}")
    tasks = [
        SetTask(i, a, tuple(b_specs), str(parsed), seed, folder is not None, bot_budget, clock)
        for i in range(first_set, first_set + sets)
    ]
    results: list[SetResult] = []
    interrupted = False
    failure = None
    try:
        # Under a clock the sets run in worker processes even for one worker: this process's
        # numba threads may be running already (setting NUMBA_NUM_THREADS here then changed
        # nothing, or stopped the next compile with a RuntimeError).
        clocked = clock is not None
        with (
            _one_thread_each(clocked),
            open_runner(workers=workers, ray=ray, processes=clocked) as runner,
        ):
            for _, played in run_sets(runner, tasks):
                if folder is not None:
                    write_records(folder, played)
                results.append(played)
                if on_set is not None:
                    on_set(played, results)
    except KeyboardInterrupt:
        interrupted = True
    except WorkerError as error:
        if not results:
            raise ArenaError(str(error)) from None  # Ray missing or out of reach
        interrupted, failure = True, str(error)
    except CallbreakError as error:
        interrupted, failure = True, str(error)
    results.sort(key=lambda result: result.index)
    verdict = summarise(a, b_specs, str(parsed), seed, results, options.command, interrupted)
    return dataclasses.replace(verdict, error=failure, notes=notes)


def check_rules(rules: str) -> Rules:
    """The rules of a set; ArenaError for a bad text. An open-ended profile plays five deals."""
    try:
        parsed = Rules.parse(rules)
    except CallbreakError as error:
        raise ArenaError(str(error)) from None
    return parsed.replace(deals=5) if parsed.deals is None else parsed


def check_budget(bot_budget: float) -> None:
    """ArenaError unless ``bot_budget`` is 0 (none) to 3600 seconds."""
    if not math.isfinite(bot_budget) or not 0 <= bot_budget <= 3600:
        raise ArenaError(
            f"the bots' budget per round is 0 (none) to 3600 seconds, not {bot_budget}"
        )


def run_sets(runner: Runner, tasks: Sequence[SetTask]) -> Iterator[tuple[SetTask, SetResult]]:
    """Play ``tasks`` with ``runner``, each set with its result as it finishes.

    Every process that plays loads the compiled kernel first, so that loading it is not
    counted as a player's decision time, and sets with a remote bot never overlap."""
    warm = bool(tasks) and needs_kernel({spec for task in tasks for spec in (task.a, *task.b)})
    return runner.run(play_set, tasks, setup=warm_up if warm else None, keys=SetTask.remotes)


def _b_specs(b: str | Sequence[str]) -> list[str]:
    specs = [b] if isinstance(b, str) else list(b)
    if not 1 <= len(specs) <= 4:
        raise ArenaError(f"give B as one to four specs, not {len(specs)}")
    return specs + [specs[-1]] * (4 - len(specs))


@contextlib.contextmanager
def _one_thread_each(clock: bool) -> Iterator[None]:
    """Under a competition's clock each worker's players get one core: numba's threads set to
    one for the workers started meanwhile (the workers honour NUMBA_NUM_THREADS)."""
    previous = os.environ.get("NUMBA_NUM_THREADS")
    if clock:
        os.environ["NUMBA_NUM_THREADS"] = "1"
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("NUMBA_NUM_THREADS", None)
        else:
            os.environ["NUMBA_NUM_THREADS"] = previous


def write_records(folder: Path, played: SetResult) -> None:
    """Write a set's game records into ``folder`` and let the result forget them."""
    for name, text in played.records.items():
        (folder / name).write_text(text)
    played.records.clear()


def summarise(
    a: str,
    b_specs: Sequence[str],
    rules: str,
    seed: int,
    results: Sequence[SetResult],
    command: str = "",
    interrupted: bool = False,
) -> Result:
    """The Result of the sets played."""
    diffs = [result.diff for result in results]
    a_stats, b_stats = SideStats(), SideStats()
    for result in results:
        a_stats.extend(result.a)
        b_stats.extend(result.b)
    b_name = b_specs[0] if len(set(b_specs)) == 1 else " ".join(b_specs)
    return Result(
        a=a,
        b=b_name,
        rules=rules,
        seed=seed,
        sets=len(results),
        matches=len(results) * 5,
        mean_diff=statistics.fmean(diffs) if diffs else math.nan,
        ci95=confidence_interval(diffs),
        a_first_share=statistics.fmean(r.first_share for r in results) if results else math.nan,
        a_stats=a_stats.summary(),
        b_stats=b_stats.summary(),
        command=command,
        interrupted=interrupted,
        set_diffs=tuple(diffs),
        set_indices=tuple(result.index for result in results),
    )
