"""Fixtures shared by several test modules: one local Ray for the whole run."""

from __future__ import annotations

import os
from collections.abc import Iterator

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
