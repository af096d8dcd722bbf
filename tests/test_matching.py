"""The pools' matching decision (``web.matching``): four who waited longest sit down at once,
fewer once the longest waiting of them has waited the pool's wait; nobody twice, no table over
four; the clock is the caller's."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from callbreak.web.matching import SEATS, Waiter, next_look, tables


def names(groups: list[list[Waiter]]) -> list[list[str]]:
    return [[waiter.profile for waiter in group] for group in groups]


def test_four_sit_down_at_once_the_longest_waiting_first() -> None:
    waiting = [
        Waiter(name, since) for name, since in zip("edcba", [5.0, 4.0, 3.0, 2.0, 1.0], strict=True)
    ]
    assert names(tables(waiting, now=6.0, wait=8.0)) == [["a", "b", "c", "d"]]


def test_fewer_sit_down_after_the_wait_and_not_before() -> None:
    waiting = [Waiter("a", 0.0), Waiter("b", 3.0)]
    assert tables(waiting, now=7.9, wait=8.0) == []
    assert names(tables(waiting, now=8.0, wait=8.0)) == [["a", "b"]]
    assert next_look(waiting, now=1.0, wait=8.0) == 8.0
    assert next_look(waiting, now=9.0, wait=8.0) is None  # all seated by that decision
    assert next_look([], now=1.0) is None


def test_a_profile_listed_twice_sits_once() -> None:
    waiting = [Waiter("a", 0.0), Waiter("a", 1.0), Waiter("b", 2.0), Waiter("c", 3.0)]
    assert names(tables(waiting, now=100.0, wait=8.0)) == [["a", "b", "c"]]


@given(
    st.lists(st.tuples(st.sampled_from("abcdefghijklmnop"), st.floats(0, 100)), max_size=40),
    st.floats(0, 200),
    st.floats(0, 20),
)
def test_everyone_sits_at_most_once_at_most_four_a_table(
    entries: list[tuple[str, float]], now: float, wait: float
) -> None:
    waiting = [Waiter(name, since) for name, since in entries]
    groups = tables(waiting, now, wait)
    seated = [waiter.profile for group in groups for waiter in group]
    assert len(seated) == len(set(seated))
    assert all(1 <= len(group) <= SEATS for group in groups)
    assert all(len(group) == SEATS for group in groups[:-1])
    people = {name for name, _ in entries}
    # Whoever is left over is fewer than a table, and none of them has waited out the wait.
    left = people - set(seated)
    assert len(left) < SEATS
    firsts = {name: min(s for n, s in entries if n == name) for name in left}
    assert all(now - since < wait for since in firsts.values())
