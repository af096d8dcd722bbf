"""The SQLite store's grouped appends (``web.store.Appends``): several tables' actions in one
transaction off the event loop, each answered only once committed, checked as one at a time."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path

import pytest

from callbreak.web import store as store_module
from callbreak.web.backend import LocalBackend
from callbreak.web.model import PLAYING, Step, TableData, new_room
from callbreak.web.store import Appends, Store

pytestmark = pytest.mark.anyio


def step(version: int, code: str = "x") -> Step:
    """An action on ``version`` (the store keeps its code as it is)."""
    return Step(version, f"{code}{version}", [], PLAYING, None)


def rooms(store: Store, count: int) -> list[TableData]:
    """``count`` stored rooms, none of whose actions are taken yet."""
    made = []
    for _ in range(count):
        data = new_room("strict", "Asha", ["random", "random", "random"])
        store.create(data)
        made.append(data)
    return made


def actions(store: Store, table: TableData) -> list[str]:
    loaded = store.load(table.id)
    assert loaded is not None
    return loaded.actions


async def grouped(
    appends: Appends, store: Store, items: list[tuple[str, int, Step]]
) -> list[bool | BaseException]:
    """The answers to ``items`` submitted while the store is held, so that the writer takes
    them all in one group once it is let go."""
    with store._lock:
        futures = [appends.submit(*item) for item in items]
    return list(await asyncio.gather(*futures, return_exceptions=True))


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "db.sqlite")


async def test_appends_of_several_tables_are_stored_in_one_transaction(store: Store) -> None:
    appends = Appends(store)
    a, b, c = rooms(store, 3)
    answers = await grouped(appends, store, [(t.id, t.rev, step(0)) for t in (a, b, c)])
    assert answers == [True, True, True]
    assert appends.groups == 1
    assert [actions(store, t) for t in (a, b, c)] == [["x0"], ["x0"], ["x0"]]
    appends.close()


async def test_a_stale_append_in_a_group_is_refused_alone(store: Store) -> None:
    appends = Appends(store)
    a, b, c, d = rooms(store, 4)
    answers = await grouped(
        appends,
        store,
        [
            (a.id, a.rev, step(0)),
            (b.id, b.rev, step(3)),  # a version the match is not at
            (c.id, c.rev + 1, step(0)),  # a lobby revision that is not the room's
            ("nobody", 0, step(0)),  # a table that is not stored
            (d.id, d.rev, step(0)),
        ],
    )
    # What the store answers one append at a time, as before grouping.
    assert answers == [True, False, False, False, True]
    assert appends.groups == 1
    assert [actions(store, t) for t in (a, b, c, d)] == [["x0"], [], [], ["x0"]]
    assert store.append(b.id, b.rev, step(3)) is False
    assert store.append(b.id, b.rev, step(0)) is True
    appends.close()


async def test_a_failing_append_fails_alone(store: Store) -> None:
    """An append that fails once its action's row is written (its table's row refused, as a
    disk error would) takes back its own rows and none of its group's."""
    appends = Appends(store)
    a, b, c = rooms(store, 3)
    with store._lock:  # the action inserted, then its table's update fails, for b only
        store._connection.execute(
            f"CREATE TEMP TRIGGER failing BEFORE UPDATE ON tables WHEN NEW.id = '{b.id}' "
            "BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END"
        )
    answers = await grouped(appends, store, [(t.id, t.rev, step(0)) for t in (a, b, c)])
    assert answers[0] is True and answers[2] is True
    assert isinstance(answers[1], sqlite3.Error)
    assert [actions(store, t) for t in (a, b, c)] == [["x0"], [], ["x0"]]
    appends.close()


async def test_a_failure_that_ends_the_transaction_fails_the_whole_group(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failure after which SQLite has rolled the whole transaction back (a full disk): no
    append of the group is stored, and each is answered with the error."""
    appends = Appends(store)
    a, b, c = rooms(store, 3)
    append = store_module._append

    def failing(db: sqlite3.Connection, table_id: str, rev: int, taken: Step) -> bool:
        if table_id == b.id:
            db.rollback()  # as SQLite does on SQLITE_FULL
            raise sqlite3.OperationalError("database or disk is full")
        return append(db, table_id, rev, taken)

    monkeypatch.setattr(store_module, "_append", failing)
    answers = await grouped(appends, store, [(t.id, t.rev, step(0)) for t in (a, b, c)])
    assert all(isinstance(answer, sqlite3.OperationalError) for answer in answers)
    assert [actions(store, t) for t in (a, b, c)] == [[], [], []]
    appends.close()


async def test_an_append_is_answered_only_once_its_transaction_is_committed(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    appends = Appends(store)
    (a,) = rooms(store, 1)
    committing, go = threading.Event(), threading.Event()
    commit = store._commit

    def held(db: sqlite3.Connection) -> None:
        committing.set()
        go.wait(10)
        commit(db)

    monkeypatch.setattr(store, "_commit", held)
    answer = asyncio.ensure_future(appends.append(a.id, a.rev, step(0)))
    assert await asyncio.to_thread(committing.wait, 10)
    # The group is written, not committed: its caller has not heard, and a reader of the file
    # (another connection) does not see the action yet.
    await asyncio.sleep(0.05)
    assert not answer.done()
    reader = sqlite3.connect(store.path)
    assert reader.execute("SELECT COUNT(*) FROM actions").fetchone() == (0,)
    go.set()
    assert await answer is True
    assert reader.execute("SELECT COUNT(*) FROM actions").fetchone() == (1,)
    reader.close()
    appends.close()


async def test_a_commit_that_fails_stores_nothing_and_fails_its_whole_group(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    appends = Appends(store)
    a, b = rooms(store, 2)
    commit = store._commit

    def crash(db: sqlite3.Connection) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(store, "_commit", crash)
    answers = await grouped(appends, store, [(t.id, t.rev, step(0)) for t in (a, b)])
    assert all(isinstance(answer, sqlite3.OperationalError) for answer in answers)
    assert [actions(store, t) for t in (a, b)] == [[], []]
    # Rolled back whole: the same actions are stored once the store works again.
    monkeypatch.setattr(store, "_commit", commit)
    answers = await grouped(appends, store, [(t.id, t.rev, step(0)) for t in (a, b)])
    assert answers == [True, True]
    assert [actions(store, t) for t in (a, b)] == [["x0"], ["x0"]]
    appends.close()


async def test_the_appends_of_one_table_are_stored_in_the_order_made(store: Store) -> None:
    appends = Appends(store)
    a, b = rooms(store, 2)
    items = [(a.id, a.rev, step(v)) for v in range(3)] + [(b.id, b.rev, step(0))]
    assert await grouped(appends, store, items) == [True, True, True, True]
    assert actions(store, a) == ["x0", "x1", "x2"]
    # Made out of order, the later version is refused: it was made first, on a version the
    # match was not at yet.
    answers = await grouped(appends, store, [(b.id, b.rev, step(2)), (b.id, b.rev, step(1))])
    assert answers == [False, True]
    assert actions(store, b) == ["x0", "x1"]
    appends.close()


async def test_closing_stores_what_is_queued_and_refuses_what_comes_after(store: Store) -> None:
    appends = Appends(store)
    (a,) = rooms(store, 1)
    with store._lock:
        queued = appends.submit(a.id, a.rev, step(0))
        closing = asyncio.ensure_future(asyncio.to_thread(appends.close))
        await asyncio.sleep(0.05)
    await closing
    assert queued.result() is True
    with pytest.raises(sqlite3.ProgrammingError):
        await appends.append(a.id, a.rev, step(1))
    assert actions(store, a) == ["x0"]


async def test_the_local_backend_groups_its_appends(store: Store) -> None:
    backend = LocalBackend(store)
    a, b = rooms(store, 2)
    stored = await asyncio.gather(*(backend.append(t.id, t.rev, step(0)) for t in (a, b)))
    assert stored == [True, True]
    assert await backend.append(a.id, a.rev, step(0)) is False  # stale: version 0 is taken
    assert backend.appends.groups >= 1
    await backend.close()


def test_an_append_stores_the_status_and_the_deadline_to_the_last_digit(store: Store) -> None:
    (a,) = rooms(store, 1)
    deadline = 1_765_000_000.1234567
    assert store.append(a.id, a.rev, Step(0, "x0", [], PLAYING, deadline))
    loaded = store.load(a.id)
    assert loaded is not None
    assert (loaded.status, loaded.deadline) == (PLAYING, deadline)
    assert store.append(a.id, a.rev, Step(1, "x1", [], PLAYING, None))
    loaded = store.load(a.id)
    assert loaded is not None and loaded.deadline is None
    assert loaded.updated >= a.updated


async def test_an_append_given_up_before_the_writer_takes_it_is_not_stored(store: Store) -> None:
    appends = Appends(store)
    (a,) = rooms(store, 1)
    with store._lock:
        given_up = appends.submit(a.id, a.rev, step(0, "gone"))
        given_up.cancel()
        kept = appends.submit(a.id, a.rev, step(0))
    assert await kept is True
    assert actions(store, a) == ["x0"]
    appends.close()
