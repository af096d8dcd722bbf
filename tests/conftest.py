"""Fixtures shared by several test modules (one local Ray for the whole run, a redis-server per
module, asyncio for the async tests), and the markers of the slow groups: ``e2e`` (the browser
tests), ``redis`` (a real redis-server) and ``ray`` (a local Ray), marked here by what a test
starts, and ``slow`` (the rest of what takes long), marked where the test is defined. The fast
loop for development leaves them out (README, *Run the tests*); CI runs everything."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# Nothing of a test run is reported anywhere.
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"


@pytest.fixture(scope="session")
def local_ray() -> Iterator[str]:
    """A local Ray with two CPUs, started once (about ten seconds) for every test that asks;
    yields its address, which other processes can join. The arena and leagues of this process
    use it when given ``ray="local"``."""
    import ray

    from callbreak.workers import open_runner

    runner = open_runner(workers=2, ray="local")
    try:
        yield str(ray.get_runtime_context().gcs_address)
    finally:
        runner.close()


@pytest.fixture
def anyio_backend() -> str:
    """The async tests run on asyncio, as the server does (uvicorn, the redis client)."""
    return "asyncio"


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    """A real redis-server for one test module (``tests.helpers.redis_server``); a test that
    asks for it is marked ``redis``."""
    from tests.helpers import redis_server

    with redis_server() as url:
        yield url


E2E = Path(__file__).parent / "e2e"
REDIS_MODULES = {"test_store_outages", "test_rooms_processes"}
"""Modules whose every test runs real redis-servers."""
SLOW_SECONDS = 1.5
"""A test that takes this long or more (``pytest --durations``) is marked ``slow`` where it is
defined: it plays matches with the searching players or starts servers and processes."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark each test by what it starts: the browser tests ``e2e``, a test that asks for a
    local Ray ``ray``, one that runs a real redis-server ``redis`` (the ``slow`` ones are marked
    where they are defined)."""
    for item in items:
        path = Path(str(item.path))
        fixtures = getattr(item, "fixturenames", ())
        params = getattr(getattr(item, "callspec", None), "params", {})
        if E2E in path.parents:
            item.add_marker(pytest.mark.e2e)
        if "local_ray" in fixtures:
            item.add_marker(pytest.mark.ray)
        if (
            path.stem in REDIS_MODULES
            or "redis_url" in fixtures
            or params.get("backend") == "redis"
        ):
            item.add_marker(pytest.mark.redis)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """In a run that leaves the slow groups out (the fast loop), name the tests it ran that took
    ``SLOW_SECONDS`` or more: a test that became slow, or a new one, is said rather than
    silently lengthening the fast loop (mark it ``slow`` or make it quicker). A figure, not a
    failure: a loaded machine slows everything, so the load is printed beside it."""
    if "not" not in (config.getoption("markexpr") or ""):
        return
    slow = sorted(
        (report.duration, report.nodeid)
        for report in terminalreporter.stats.get("passed", [])
        if report.when == "call" and report.duration >= SLOW_SECONDS
    )
    if not slow:
        return
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    terminalreporter.section(f"unmarked tests of {SLOW_SECONDS} s or more (load {load:.1f})")
    for seconds, nodeid in reversed(slow):
        terminalreporter.write_line(f"{seconds:6.2f} s  {nodeid}")
