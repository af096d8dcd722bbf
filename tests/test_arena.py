"""The arena: paired duplicate comparisons, reproducible whatever the number of workers."""

from __future__ import annotations

import dataclasses
import io
import json
import math
import os
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from callbreak.arena import (
    ArenaError,
    ArenaOptions,
    SideStats,
    arena_spec,
    compare,
    confidence_interval,
    format_time,
    format_times,
    t_quantile,
    time_unit,
)
from callbreak.cli import _arena_report
from callbreak.game import Observation
from callbreak.players import LEVELS, register
from callbreak.players.simple import CasualPlayer
from callbreak.record import check, load
from tests.ray_processes import descendants


class MinimumCaller(CasualPlayer):
    """Plays like the sound casual player but always calls the least it may."""

    name = "mincaller"

    def call(self, observation: Observation) -> int:
        return observation.legal_calls[0]


@pytest.fixture
def mincaller() -> Iterator[str]:
    """The spec of a minimum caller, registered for one test only."""
    register("mincaller", MinimumCaller)
    yield "mincaller"
    del LEVELS["mincaller"]


@pytest.mark.slow
def test_a_player_against_itself_centres_on_zero() -> None:
    result = compare("random", "random", rules="classic", sets=40, seed=3, workers=1)
    low, high = result.ci95
    assert low < 0 < high
    assert result.sets == 40 and result.matches == 200
    assert 0.1 < result.a_first_share < 0.4


@pytest.mark.slow
def test_always_calling_the_minimum_loses_clearly(mincaller: str) -> None:
    result = compare(mincaller, "casual", rules="strict", sets=30, seed=1, workers=1)
    assert result.ci95[1] < 0
    assert result.a_stats["mean_call"] == 2.0


@pytest.mark.slow
def test_same_seed_same_result_with_one_and_two_workers(tmp_path: Path) -> None:
    """A searching player's sets give the same figures played in this process and spread over
    two: one-deal matches at the expert's least budget (its searches seeded by the set, not
    by the worker), which is what this checks, not its play."""
    one = compare(
        "expert(time=0.01)", "beginner", rules="strict(deals=1)", sets=2, seed=5, workers=1
    )
    two = compare(
        "expert(time=0.01)",
        "beginner",
        rules="strict(deals=1)",
        sets=2,
        seed=5,
        workers=2,
        options=ArenaOptions(records=tmp_path / "records"),
    )
    for key in ("mean_diff", "ci95", "a_first_share", "a_calls_made", "b_calls_made"):
        assert one.to_json()[key] == two.to_json()[key], key
    files = sorted((tmp_path / "records").iterdir())
    assert len(files) == 10  # per set: the baseline and A from four seats
    for path in files:
        assert check(load(str(path))).valid


def test_arena_spec() -> None:
    assert str(arena_spec("intermediate", 4)) == "intermediate(seed=4)"
    assert str(arena_spec("expert(time=0.5)", 4)) == "expert(time=0.5, seed=4, deadline=false)"
    assert str(arena_spec("random(seed=9)", 4)) == "random(seed=9)"
    assert str(arena_spec("http://127.0.0.1:7000", 4)) == "http://127.0.0.1:7000"


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"a": "wizard", "b": "random"}, "unknown player 'wizard'"),
        ({"a": "random", "b": "expert(speed=2)"}, "unknown option 'speed'"),
        ({"a": "random", "b": "random", "rules": "bridge"}, "unknown profile"),
        ({"a": "random", "b": "random", "sets": 0}, "sets must be"),
        ({"a": "random", "b": ["random"] * 5}, "one to four specs"),
    ],
)
def test_bad_settings_are_clear_errors(kwargs: dict[str, object], words: str) -> None:
    with pytest.raises(ArenaError, match=words):
        compare(**kwargs)  # type: ignore[arg-type]


def test_statistics() -> None:
    assert t_quantile(1) == 12.706
    assert abs(t_quantile(30) - 2.042) < 2e-3
    assert abs(t_quantile(200) - 1.972) < 1e-3
    low, high = confidence_interval([1.0, 2.0, 3.0, 4.0])
    assert abs((low + high) / 2 - 2.5) < 1e-12 and abs(high - 2.5 - 3.182 * 1.2910 / 2) < 1e-3
    assert confidence_interval([1.0]) == (-math.inf, math.inf)


@pytest.mark.slow
def test_cli_arena_writes_the_json_report(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "callbreak",
            "arena",
            "beginner",
            "random",
            "--sets",
            "3",
            "--workers",
            "1",
            "--seed",
            "2",
            "--json",
            str(report),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(report.read_text())
    for key in (
        "a",
        "b",
        "rules",
        "sets",
        "matches",
        "mean_diff",
        "ci95",
        "a_first_share",
        "a_calls_made",
        "b_calls_made",
        "a_move_time_p95",
        "b_move_time_p95",
        "seed",
    ):
        assert key in data
    assert data["sets"] == 3 and data["seed"] == 2 and len(data["ci95"]) == 2
    assert "A's mean score difference per match" in result.stdout
    assert "callbreak arena beginner random --sets 3" in result.stdout


def test_cli_arena_bad_spec_is_one_line(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "callbreak", "arena", "wizard", "random", "--sets", "1"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "unknown player" in result.stderr


def test_later_sets_continue_a_run() -> None:
    # Sets 2-3 of a run are the last two of the run of four: the same deals, the same players.
    whole = compare("intermediate", "beginner", sets=4, seed=7, workers=1)
    later = compare("intermediate", "beginner", sets=2, seed=7, workers=1, first_set=2)
    assert whole.set_indices == (0, 1, 2, 3) and later.set_indices == (2, 3)
    assert later.set_diffs == whole.set_diffs[2:]
    assert later.to_json()["set_indices"] == [2, 3]


@pytest.mark.slow
def test_cli_arena_names_the_sets_of_a_later_run() -> None:
    command = ["arena", "beginner", "random", "--sets", "2", "--first-set", "5", "--workers", "1"]
    result = subprocess.run(
        [sys.executable, "-m", "callbreak", *command],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "2 sets (numbers 5 to 6), 10 matches" in result.stdout
    assert "--first-set 5" in result.stdout  # the reproduce line


def test_the_report_names_sets_missing_in_the_middle() -> None:
    # An interrupted run with two workers can finish sets 0, 1 and 3 but not 2: the text says
    # so, so that no one pairs it set by set with a run of sets 0-2.
    result = compare("random", "beginner", sets=4, seed=2, workers=1)
    texts = []
    for indices in ((0, 1, 2, 3), (0, 1, 3), (4, 5, 6, 7)):
        kept = [result.set_diffs[i % 4] for i in indices]
        partial = dataclasses.replace(
            result, sets=len(indices), set_indices=indices, set_diffs=tuple(kept)
        )
        out = io.StringIO()
        _arena_report(Console(file=out, width=200), partial)
        texts.append(out.getvalue())
    assert "4 sets, 20 matches" in texts[0]
    assert "3 sets (numbers 0 to 3 with gaps)" in texts[1]
    assert "4 sets (numbers 4 to 7)," in texts[2]


def test_one_set_writes_valid_json() -> None:
    result = compare("random", "beginner", sets=1, seed=2, workers=1)
    text = json.dumps(result.to_json(), allow_nan=False)
    assert json.loads(text)["ci95"] == [None, None]


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"workers": 0}, "workers must be"),
        ({"options": ArenaOptions(bot_budget=float("inf"))}, "budget per round"),
        ({"options": ArenaOptions(bot_budget=float("nan"))}, "budget per round"),
        ({"first_set": -1}, "first set \\(--first-set\\) is 0 to 1000000000"),
        ({"first_set": 10**9 + 1}, "first set \\(--first-set\\) is 0 to 1000000000"),
    ],
)
def test_bad_numbers(kwargs: dict[str, Any], words: str) -> None:
    with pytest.raises(ArenaError, match=words):
        compare("random", "random", sets=1, **kwargs)


@pytest.mark.slow
def test_a_bot_that_goes_away_ends_the_arena_with_a_report() -> None:
    from callbreak.bots.server import create_app
    from tests.helpers import running

    first_set_done, server_gone = threading.Event(), threading.Event()
    holder: dict[str, Any] = {}

    def after_a_set(_result: object, so_far: Sequence[object]) -> None:
        if len(so_far) == 1:
            first_set_done.set()
            server_gone.wait(60)  # the next set starts only once the bot is down

    with running(create_app("beginner(seed=1)")) as address:
        worker = threading.Thread(
            target=lambda: holder.update(
                result=compare(
                    "random",
                    address,
                    rules="bhoos",
                    sets=3,
                    seed=1,
                    options=ArenaOptions(on_set=after_a_set),
                )
            )
        )
        worker.start()
        first_set_done.wait(120)
    server_gone.set()
    worker.join(120)
    result = holder["result"]
    assert result.sets == 1 and result.interrupted and "cannot reach the bot" in result.error
    assert any("plays several seats" in note for note in result.notes)


def test_report_pairs_sets_and_counts_broken_calls() -> None:
    result = compare("intermediate", "beginner", sets=3, seed=5, workers=1)
    data = result.to_json()
    assert len(data["set_diffs"]) == 3
    assert sum(data["set_diffs"]) / 3 == pytest.approx(data["mean_diff"], abs=1e-3)
    # Broken calls cost something, made ones nothing: the loss is a call's size at most.
    for side in ("a", "b"):
        made = data[f"{side}_calls_made"]
        assert 0 < data[f"{side}_broken_loss"] <= (1 - made) * 13


# --- on Ray ------------------------------------------------------------------------------------

RAY_SETS = dict(a="beginner", b="intermediate", rules="strict", sets=12, seed=3)
TIMED = (
    "a_move_time_p95",
    "b_move_time_p95",
    "a_move_time_mean",
    "b_move_time_mean",
    "a_move_time_max",
    "b_move_time_max",
)


def _figures(result: Any) -> dict[str, Any]:
    """The report's JSON without what depends on the clock or the command."""
    data = dict(result.to_json())
    for key in (*TIMED, "command"):
        del data[key]
    return data


@pytest.fixture(scope="module")
def played_locally(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    """The reference: RAY_SETS played in this process, with its records."""
    folder = tmp_path_factory.mktemp("local-records")
    result = compare(**RAY_SETS, workers=1, options=ArenaOptions(records=folder))  # type: ignore[arg-type]
    return _figures(result), folder


def _same_records(one: Path, other: Path) -> None:
    names = sorted(path.name for path in one.iterdir())
    assert names == sorted(path.name for path in other.iterdir()) and len(names) == 12 * 5
    for name in names:
        assert (one / name).read_bytes() == (other / name).read_bytes(), name


def test_ray_arena_equals_local_workers(
    local_ray: str, played_locally: tuple[dict[str, Any], Path], tmp_path: Path
) -> None:
    figures, records = played_locally
    finished: list[int] = []
    result = compare(
        **RAY_SETS,  # type: ignore[arg-type]
        options=ArenaOptions(
            ray="local",
            records=tmp_path,
            on_set=lambda played, _so_far: finished.append(played.index),
        ),
    )
    assert _figures(result) == figures
    assert sorted(finished) == list(range(12))
    _same_records(records, tmp_path)


def _busy_ray_workers() -> list[int]:
    """Ray worker processes of this test run playing a set now (their title says so)."""
    return [pid for pid, line in descendants().items() if line[:1] == ["ray::play_set"]]


def test_a_killed_ray_worker_set_is_played_again(
    local_ray: str, played_locally: tuple[dict[str, Any], Path], tmp_path: Path
) -> None:
    import os
    import signal
    import time

    figures, records = played_locally
    killed: list[int] = []
    first = threading.Event()

    def kill_one_mid_run() -> None:
        first.wait(300)
        deadline = time.monotonic() + 60
        while not killed and time.monotonic() < deadline:
            for pid in _busy_ray_workers():
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
                break
            time.sleep(0.005)

    killer = threading.Thread(target=kill_one_mid_run, daemon=True)
    killer.start()
    result = compare(
        **RAY_SETS,  # type: ignore[arg-type]
        options=ArenaOptions(
            ray="local", records=tmp_path, on_set=lambda _played, _so_far: first.set()
        ),
    )
    killer.join(60)
    assert killed, "no worker was caught playing a set"
    assert not result.interrupted and result.error is None
    assert _figures(result) == figures
    _same_records(records, tmp_path)


def test_cli_arena_joins_a_running_ray(
    local_ray: str, played_locally: tuple[dict[str, Any], Path], tmp_path: Path
) -> None:
    figures, _ = played_locally
    report = tmp_path / "report.json"
    result = subprocess.run(
        [
            *(sys.executable, "-m", "callbreak", "arena", "beginner", "intermediate"),
            *("--sets", "12", "--seed", "3", "--json", str(report), "--ray", local_ray),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(report.read_text())
    assert {key: data[key] for key in figures} == figures


def test_cli_arena_bad_ray_address_is_one_line() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "callbreak", "arena", "beginner", "random", "--ray", "nowhere"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "not a Ray address: 'nowhere'" in result.stderr


@pytest.mark.slow
def test_a_clocked_arena_with_one_worker_plays_in_a_process_of_its_own() -> None:
    # It once set NUMBA_NUM_THREADS in this process after numba's threads were running: the
    # players kept two threads, and the next compile stopped the run with a RuntimeError.
    import numba

    numba.get_num_threads()
    result = compare(
        "expert(time=0.02, threads=1)", "advanced", rules="strict(deals=1)", sets=1, seed=2,
        workers=1, options=ArenaOptions(clock=0.05),
    )  # fmt: skip
    assert not result.interrupted and result.error is None and result.sets == 1
    assert os.environ.get("NUMBA_NUM_THREADS") != "1"  # this process's environment restored


# --- the decision times as the report writes them -------------------------------------------------


def test_decision_times_are_written_in_one_unit_without_exponents() -> None:
    """An expert's mean of 858 ms and 95th percentile of 2,641 ms once read "mean 858 ms, 95th
    percentile 2.64e+03 ms": a mean seemingly above its 95th percentile."""
    expert = {"move_time_mean": 0.857702, "move_time_p95": 2.641124, "move_time_max": 3.2}
    assert format_times(expert) == "mean 0.858 s, 95th percentile 2.64 s, max 3.20 s"
    quick = {"move_time_mean": 3e-06, "move_time_p95": 5e-06, "move_time_max": 1.1e-05}
    assert format_times(quick) == "mean 3.00 µs, 95th percentile 5.00 µs, max 11.0 µs"
    middling = {"move_time_mean": 0.0347, "move_time_p95": 0.0462, "move_time_max": 0.2}
    assert format_times(middling) == "mean 34.7 ms, 95th percentile 46.2 ms, max 200 ms"
    nothing = {"move_time_mean": None, "move_time_p95": None, "move_time_max": None}
    assert format_times(nothing) == "-"
    for seconds in (2.641124, 1234.5, 1e-9, 0.0009996):
        assert "e" not in format_time(seconds).split()[0]
    assert format_time(2.641124) == "2,641 ms" and format_time(None) == "-"
    assert time_unit(0.5, 2.0) == "s" and time_unit(0.002) == "ms" and time_unit(None) == "µs"


def test_a_mean_above_the_95th_percentile_says_why() -> None:
    """Quick forced cards and a few long searches: the mean above the 95th percentile is said,
    with the longest decision shown."""
    times = [0.001] * 96 + [3.0] * 4
    stats = SideStats(times=times).summary()
    assert stats["move_time_mean"] is not None and stats["move_time_p95"] is not None
    assert stats["move_time_mean"] > stats["move_time_p95"]
    text = format_times(stats)
    assert text.startswith("mean 121 ms, 95th percentile 1.00 ms, max 3,000 ms")
    assert "the few longest decisions pull the mean above the 95th percentile" in text
    assert "pull the mean" not in format_times(SideStats(times=[0.1, 0.2, 0.3]).summary())


def test_the_cli_report_writes_the_times_so() -> None:
    result = compare("random", "random", rules="strict(deals=1)", sets=1, seed=1, workers=1)
    console = Console(file=io.StringIO(), width=400)
    _arena_report(console, result)
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert "decision time mean" in out and "max" in out and "e+" not in out and "e-" not in out
