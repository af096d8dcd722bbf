"""web.collector: a serving process's full garbage collections, on the upkeep's schedule."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from callbreak.web.collector import NEVER, Collector, take_over


@pytest.fixture
def collector_taken_over() -> Iterator[None]:
    """:func:`take_over` for one test, the test process's thresholds given back after."""
    thresholds = gc.get_threshold()
    take_over()
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Cycle:
    """An object that refers to itself: freed only by a collection."""

    def __init__(self) -> None:
        self.me = self


def test_take_over_leaves_the_young_generations_and_stops_the_full_ones() -> None:
    before = gc.get_threshold()
    try:
        take_over()
        assert gc.get_threshold() == (before[0], before[1], NEVER)
    finally:
        gc.set_threshold(*before)


def test_a_full_collection_after_tables_were_let_go_of_at_most_once_a_while() -> None:
    clock = Clock()
    collector = Collector(every=60, at_least=600, clock=clock)
    clock.now += 10
    assert collector.look(True) is None  # owed, but the last was 10 s ago
    clock.now += 49
    assert collector.look(False) is None
    clock.now += 1
    pause = collector.look(False)  # still owed from the first look
    assert pause is not None and pause >= 0
    clock.now += 300
    assert collector.look(False) is None  # nothing let go of since, under at_least
    clock.now += 300
    assert collector.look(False) is not None  # at_least passed
    clock.now += 60
    assert collector.look(True) is not None


def test_its_collection_frees_what_python_no_longer_would(collector_taken_over: None) -> None:
    clock = Clock()
    collector = Collector(every=60, clock=clock)
    gc.collect()
    cycles = [Cycle() for _ in range(1000)]
    alive = weakref.ref(cycles[0])
    # Old enough to reach the oldest generation, then dropped: no young collection frees them.
    gc.collect(1)
    gc.collect(1)
    del cycles
    for _ in range(20):
        gc.collect(1)
    assert alive() is not None
    assert collector.look(True) is None
    assert alive() is not None
    clock.now += 60
    assert collector.look(False) is not None
    assert alive() is None
