"""Where one server process keeps its matches, rooms and scoresheets: one SQLite file.

A match or room is stored as what rebuilds it exactly (:class:`~callbreak.web.model.TableData`):
its seats, rules, seed and settings in one row, and the actions taken, one row each with the
faults noted on it. An action is appended only on the version it was made on (the number of
actions before it; the pair is the row's key), so two hands can never both play the same
turn. Rebuilding replays the actions through the engine, so a reload, a reconnect or a
restarted server resumes where the match was.

Databases written before rooms existed (a ``matches`` table of one person against three
computers) are read into the new form when the file is opened, and those written before
scoresheets had owners gain the sheets' token column; such matches and sheets have no token
until :meth:`Store.adopt` gives them one (``callbreak adopt``).

The appends of a server's tables are grouped (:class:`Appends`): one writer thread stores
whatever has queued up since its last transaction in one transaction, off the event loop, and
each action's caller hears only once that transaction is committed.

Rows past their retention are deleted by :meth:`Store.expire` and :meth:`Store.expire_sheets`
(:mod:`~callbreak.web.retention`), found through indexes on their status and last change.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import queue
import sqlite3
import threading
import time
from collections.abc import Collection, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from callbreak.ratings import (
    NEW,
    PROVISIONAL_MATCHES,
    Book,
    Outcome,
    Person,
    PoolRating,
    settle,
)
from callbreak.web.model import (
    COMPUTER,
    MATCH,
    PERSON,
    Seat,
    Step,
    TableData,
    hash_token,
    new_token,
)

__all__ = ["GROUP_MOST", "Appends", "Store", "default_path"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    status TEXT NOT NULL,
    rev INTEGER NOT NULL,
    data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS actions (
    table_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    code TEXT NOT NULL,
    faults TEXT,
    PRIMARY KEY (table_id, version)
);
CREATE TABLE IF NOT EXISTS sheets (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    data TEXT NOT NULL,
    token TEXT,
    rev INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS profiles (
    id TEXT PRIMARY KEY,
    token TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    avatar TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS places (
    profile TEXT PRIMARY KEY,
    pool TEXT NOT NULL,
    state TEXT NOT NULL,
    since REAL NOT NULL,
    data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS ratings (
    pool TEXT NOT NULL,
    profile TEXT NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    matches INTEGER NOT NULL,
    left_matches INTEGER NOT NULL,
    ordinal REAL NOT NULL,
    PRIMARY KEY (pool, profile)
);
CREATE TABLE IF NOT EXISTS offers (
    pool TEXT NOT NULL,
    room TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (pool, room)
);
CREATE TABLE IF NOT EXISTS rated (
    pool TEXT NOT NULL,
    match_id TEXT NOT NULL,
    PRIMARY KEY (pool, match_id)
);
CREATE TABLE IF NOT EXISTS rating_changes (
    pool TEXT NOT NULL,
    profile TEXT NOT NULL,
    match_id TEXT NOT NULL,
    at REAL NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    matches INTEGER NOT NULL,
    PRIMARY KEY (pool, profile, match_id)
);
CREATE TABLE IF NOT EXISTS plays (
    profile TEXT NOT NULL,
    match_id TEXT NOT NULL,
    at REAL NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (profile, match_id)
);
CREATE TABLE IF NOT EXISTS secrets (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS attempts (
    day TEXT NOT NULL,
    profile TEXT NOT NULL,
    address TEXT NOT NULL,
    ranked INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (day, profile)
);
CREATE INDEX IF NOT EXISTS tables_by_age ON tables (status, updated);
CREATE INDEX IF NOT EXISTS rating_changes_by_time ON rating_changes (pool, profile, at);
CREATE INDEX IF NOT EXISTS profiles_by_use ON profiles (updated);
CREATE INDEX IF NOT EXISTS attempts_by_address ON attempts (day, address, ranked);
CREATE INDEX IF NOT EXISTS places_by_pool ON places (pool, state, since);
CREATE INDEX IF NOT EXISTS ratings_by_ordinal ON ratings (pool, matches, ordinal);
CREATE INDEX IF NOT EXISTS sheets_by_age ON sheets (updated);
"""
# The two indexes serve the retention's sweeps (``Store.expire``): rows past their time are
# found without reading the others.
# ``profiles.token`` is the hash of the profile's token, as ``sheets.token`` is; ``places`` holds
# each person's one place (waiting in a pool, or seated at a public table: docs/public.md), so
# that a person waits in one pool at once by the table's key; ``rated`` is the ids of the
# matches rated in a pool, whose key makes a second rating of a match fail; ``offers`` the
# tables of a pool started with computers, whose seats a person who joins later may take;
# ``rating_changes``
# each person's rating after each rated match (the profile's chart), ``plays`` what each
# person's finished public matches and daily challenges were (calls made, accuracy), ``secrets``
# the secrets the server made itself (the daily challenge's), ``attempts`` the daily challenge's
# attempts, one per profile and day by the key (``address`` a keyed hash of the address it was
# started from, never the address itself). ``profiles.updated`` is when the profile was last
# used, which its retention counts from.
# ``sheets.token`` is the hash of the sheet's token (model.hash_token); NULL for a sheet made
# before sheets had owners, which only ``callbreak adopt`` opens again.


def default_path() -> Path:
    """The database in the user's data folder: $XDG_DATA_HOME/callbreak/callbreak.db."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "callbreak" / "callbreak.db"


APPENDING = """
CREATE TEMP VIEW IF NOT EXISTS appending
    (table_id, rev, version, code, faults, status, deadline, updated, updated_json)
    AS SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL;
CREATE TEMP TRIGGER IF NOT EXISTS appending INSTEAD OF INSERT ON appending
WHEN (SELECT rev FROM tables WHERE id = NEW.table_id) = NEW.rev
    AND NOT EXISTS (SELECT 1 FROM actions WHERE table_id = NEW.table_id AND version >= NEW.version)
    AND (NEW.version = 0 OR EXISTS (
        SELECT 1 FROM actions WHERE table_id = NEW.table_id AND version = NEW.version - 1))
BEGIN
    INSERT INTO actions VALUES (NEW.table_id, NEW.version, NEW.code, NEW.faults);
    UPDATE tables SET data = json_set(data, '$.status', NEW.status, '$.deadline',
            json(NEW.deadline), '$.updated', json(NEW.updated_json)),
        status = NEW.status, updated = NEW.updated
    WHERE id = NEW.table_id;
END;
"""
"""An action appended by one statement, ``INSERT INTO appending``: stored only on its table's
lobby revision and on the version the match is at (the actions' versions run from 0 without a
gap, so the version is the one after the last, found through the key, not by counting the
table's actions), with the table's status, deadline and time of change set inside SQLite
(``json_set``: the numbers as JSON text, to their last digit), not by decoding and encoding its
data in Python. The appends' writer thread holds the interpreter's lock between SQLite's
calls: one call an append, where the check, the insert, the update and a savepoint to take
back a failed one's rows were six; a statement that fails is taken back whole by SQLite."""


class Store:
    """A SQLite database of matches, rooms and scoresheets, safe to use from several threads."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._connection = sqlite3.connect(str(path), check_same_thread=False)
        self._connection.row_factory = sqlite3.Row
        if str(path) != ":memory:":
            # Every action is a transaction: with a write-ahead log and no sync on each commit
            # an action costs microseconds, not a disk flush; a crash of the process still
            # loses nothing committed (a power cut may lose the last second).
            self._connection.execute("PRAGMA journal_mode=WAL")
            self._connection.execute("PRAGMA synchronous=NORMAL")
        self._lock = threading.Lock()
        with self.transaction() as db:
            db.executescript(SCHEMA)
            _migrate_matches(db)
            _migrate_sheets(db)
            db.executescript(APPENDING)  # this connection's own (TEMP)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """The connection, inside one transaction, for one thread at a time."""
        with self._lock, self._connection:
            yield self._connection

    def close(self) -> None:
        """Close the database."""
        self._connection.close()

    def ping(self) -> None:
        """Return once the database answers a query; raise sqlite3.Error when it does not."""
        with self.transaction() as db:
            db.execute("SELECT 1").fetchone()

    # --- matches and rooms -----------------------------------------------------------------

    def create(self, data: TableData) -> None:
        """Store a new match or room."""
        with self.transaction() as db:
            _insert(db, data)

    def load(self, table_id: str) -> TableData | None:
        """One stored match or room, or None."""
        with self.transaction() as db:
            row = db.execute("SELECT * FROM tables WHERE id = ?", (table_id,)).fetchone()
            return None if row is None else _data(db, row)

    def save(self, data: TableData) -> bool:
        """Store a lobby change made on revision ``data.rev`` (which it then bumps) and on
        ``data.version`` of the match; False, storing nothing, when the stored room has changed
        since (an action too: the change carries the status and the clock, which an action
        moves, and a computer's seat taken over counts its deals from the one being played)."""
        with self.transaction() as db:
            now = time.time()
            changed = db.execute(
                "UPDATE tables SET data = ?, status = ?, rev = ?, updated = ? "
                "WHERE id = ? AND rev = ? "
                "AND (SELECT COUNT(*) FROM actions WHERE table_id = ?) = ?",
                (
                    json.dumps(data.to_json() | {"rev": data.rev + 1, "updated": now}),
                    data.status,
                    data.rev + 1,
                    now,
                    data.id,
                    data.rev,
                    data.id,
                    data.version,
                ),
            ).rowcount
        if changed:
            data.rev += 1
            data.updated = now
        return bool(changed)

    def append(self, table_id: str, rev: int, step: Step) -> bool:
        """Append an action (``step``: made on its version, with the faults noted on it) made
        on lobby revision ``rev``, and set the status and the clock's next deadline; False,
        storing nothing, when the match or the lobby (whose seat is whose) has moved on."""
        with self.transaction() as db:
            return _append(db, table_id, rev, step)

    def append_group(self, appends: Sequence[tuple[str, int, Step]]) -> list[bool | sqlite3.Error]:
        """Several appends (``(table_id, rev, step)``, of any tables) in one transaction, in
        their order: for each, what :meth:`append` would have answered had they been made one
        after the other (a later action of a table sees the earlier ones), or the error that
        failed it alone (its own changes taken back, the others kept). When the commit fails,
        nothing is stored and every one gets its error."""
        answers: list[bool | sqlite3.Error] = []
        with self._lock:
            db = self._connection
            try:
                db.execute("BEGIN")
                for table_id, rev, step in appends:
                    try:
                        answers.append(_append(db, table_id, rev, step))
                    except sqlite3.Error as error:
                        # One statement: SQLite took back its own rows, not the group's,
                        # unless it rolled the whole transaction back (a full disk, an I/O
                        # error), when nothing of the group is stored.
                        if not db.in_transaction:
                            raise
                        answers.append(error)
                self._commit(db)
            except sqlite3.Error as error:
                with contextlib.suppress(sqlite3.Error):
                    db.rollback()
                return [error] * len(appends)
        return answers

    def _commit(self, db: sqlite3.Connection) -> None:
        """Commit the group's transaction (its own method, for a test to fail or hold it)."""
        db.commit()

    def tables(self, kind: str | None = None) -> list[TableData]:
        """Every stored match (or room, or both), the most recently played first."""
        query = "SELECT * FROM tables"
        arguments: tuple[str, ...] = ()
        if kind is not None:
            query += " WHERE kind = ?"
            arguments = (kind,)
        with self.transaction() as db:
            rows = db.execute(query + " ORDER BY updated DESC", arguments).fetchall()
            return [_data(db, row) for row in rows]

    def expire(
        self, cutoffs: Mapping[str, float], keep: Collection[str] = (), limit: int = 500
    ) -> list[str]:
        """Delete at most ``limit`` matches and rooms whose status has a cutoff and whose last
        change came before it, except the ids in ``keep`` (in use); the ids deleted."""
        gone: list[str] = []
        with self.transaction() as db:
            for status, before in cutoffs.items():
                rows = db.execute(
                    "SELECT id FROM tables WHERE status = ? AND updated < ? LIMIT ?",
                    (status, before, limit + len(keep)),
                ).fetchall()
                for row in rows:
                    if row["id"] in keep or len(gone) >= limit:
                        continue
                    # Checked again in the statement itself: nothing can change in between
                    # (one transaction), but the condition says what may be deleted.
                    db.execute(
                        "DELETE FROM tables WHERE id = ? AND status = ? AND updated < ?",
                        (row["id"], status, before),
                    )
                    db.execute("DELETE FROM actions WHERE table_id = ?", (row["id"],))
                    gone.append(row["id"])
        return gone

    # --- scoresheets -----------------------------------------------------------------------

    def create_sheet(self, sheet_id: str, data: dict[str, Any], token: str | None) -> None:
        """Store a new scoresheet, held by the token whose hash is ``token``."""
        now = time.time()
        with self.transaction() as db:
            db.execute(
                "INSERT INTO sheets (id, created, updated, data, token, rev) "
                "VALUES (?, ?, ?, ?, ?, 0)",
                (sheet_id, now, now, json.dumps(data), token),
            )

    def update_sheet(self, sheet_id: str, data: dict[str, Any], rev: int) -> bool:
        """Replace a sheet's data as read at revision ``rev`` (bumped; its token stays);
        False when the sheet changed meanwhile or is gone."""
        with self.transaction() as db:
            changed = db.execute(
                "UPDATE sheets SET data = ?, updated = ?, rev = rev + 1 WHERE id = ? AND rev = ?",
                (json.dumps(data), time.time(), sheet_id, rev),
            ).rowcount
        return bool(changed)

    def sheet(self, sheet_id: str) -> dict[str, Any] | None:
        """One scoresheet (id, times, data, the hash of its token, its revision), or None."""
        with self.transaction() as db:
            row = db.execute("SELECT * FROM sheets WHERE id = ?", (sheet_id,)).fetchone()
        return None if row is None else _sheet_row(row)

    def sheets(self, ids: Sequence[str]) -> list[dict[str, Any]]:
        """The scoresheets of ``ids`` that exist, as :meth:`sheet` gives them, the most
        recently changed first."""
        marks = ", ".join("?" * len(ids))
        with self.transaction() as db:
            rows = db.execute(
                f"SELECT * FROM sheets WHERE id IN ({marks}) ORDER BY updated DESC", tuple(ids)
            ).fetchall()
        return [_sheet_row(row) for row in rows]

    def expire_sheets(self, before: float) -> int:
        """Delete the scoresheets last changed before ``before``; how many."""
        with self.transaction() as db:
            return db.execute("DELETE FROM sheets WHERE updated < ?", (before,)).rowcount

    # --- profiles (web.profiles) -------------------------------------------------------------

    def create_profile(self, profile: dict[str, Any]) -> None:
        """Store a new profile (``id``, ``token``: its token's hash, ``name``, ``avatar``,
        ``created``, ``updated``)."""
        with self.transaction() as db:
            db.execute(
                "INSERT INTO profiles (id, token, name, avatar, created, updated) "
                "VALUES (:id, :token, :name, :avatar, :created, :updated)",
                profile,
            )

    def profile(self, profile_id: str) -> dict[str, Any] | None:
        """One profile by its public id, or None."""
        with self.transaction() as db:
            row = db.execute("SELECT * FROM profiles WHERE id = ?", (profile_id,)).fetchone()
        return None if row is None else dict(row)

    def profile_of(self, token: str) -> dict[str, Any] | None:
        """The profile whose token's hash is ``token``, or None."""
        with self.transaction() as db:
            row = db.execute("SELECT * FROM profiles WHERE token = ?", (token,)).fetchone()
        return None if row is None else dict(row)

    def profiles(self, ids: Sequence[str]) -> list[dict[str, Any]]:
        """The profiles of ``ids`` that exist."""
        marks = ", ".join("?" * len(ids))
        with self.transaction() as db:
            rows = db.execute(f"SELECT * FROM profiles WHERE id IN ({marks})", tuple(ids))
            return [dict(row) for row in rows.fetchall()]

    def update_profile(self, profile_id: str, name: str, avatar: str) -> bool:
        """Change a profile's name and avatar; False when there is no such profile."""
        with self.transaction() as db:
            changed = db.execute(
                "UPDATE profiles SET name = ?, avatar = ?, updated = ? WHERE id = ?",
                (name, avatar, time.time(), profile_id),
            ).rowcount
        return bool(changed)

    # --- pools' waiting lists (web.pools) ----------------------------------------------------

    def wait(self, pool: str, profile: str, since: float, stale: float) -> dict[str, Any]:
        """Put ``profile`` on ``pool``'s waiting list from ``since`` unless it has a place: a
        wait in the same pool stays as it is (a second tab, a second press), a wait in another
        pool moves here, a seat at a table is kept (the person's place is answered) unless it
        is ``over`` (its table ended: ``backend.Place``) or a seating begun before ``stale`` that
        never finished (the process seating it died). The person's place after it."""
        with self.transaction() as db:
            row = db.execute("SELECT * FROM places WHERE profile = ?", (profile,)).fetchone()
            if row is not None:
                place: dict[str, Any] = json.loads(row["data"])
                if row["state"] == "waiting" and row["pool"] == pool:
                    return place
                if row["state"] != "waiting" and not _replaceable(place, stale):
                    return place
            place = {"state": "waiting", "pool": pool, "since": since}
            db.execute(
                "INSERT OR REPLACE INTO places VALUES (?, ?, ?, ?, ?)",
                (profile, pool, "waiting", since, json.dumps(place)),
            )
            return place

    def unwait(self, profile: str) -> dict[str, Any] | None:
        """Take ``profile`` off the waiting list it is on; its place after it (None: nowhere,
        or a seat, which only the table's leave gives up)."""
        with self.transaction() as db:
            db.execute("DELETE FROM places WHERE profile = ? AND state = 'waiting'", (profile,))
            row = db.execute("SELECT data FROM places WHERE profile = ?", (profile,)).fetchone()
        return None if row is None else dict(json.loads(row["data"]))

    def place(self, profile: str) -> dict[str, Any] | None:
        """Where ``profile`` is: waiting in a pool, being seated, seated at a table, or None."""
        with self.transaction() as db:
            row = db.execute("SELECT data FROM places WHERE profile = ?", (profile,)).fetchone()
        return None if row is None else dict(json.loads(row["data"]))

    def waiting(self, pool: str) -> list[tuple[str, float]]:
        """The people waiting in ``pool`` and since when, the longest waiting first."""
        with self.transaction() as db:
            rows = db.execute(
                "SELECT profile, since FROM places WHERE pool = ? AND state = 'waiting' "
                "ORDER BY since, profile",
                (pool,),
            ).fetchall()
        return [(row["profile"], row["since"]) for row in rows]

    def take(self, pool: str, profiles: Sequence[str], at: float) -> bool:
        """Take ``profiles`` off ``pool``'s waiting list to seat them at one table, all or
        none: False, changing nothing, unless every one of them waits there now. Each is then
        being seated (``state`` "seating", from ``at``) until :meth:`placed`."""
        with self.transaction() as db:
            rows = db.execute(
                f"SELECT profile, since FROM places WHERE pool = ? AND state = 'waiting' "
                f"AND profile IN ({', '.join('?' * len(profiles))})",
                (pool, *profiles),
            ).fetchall()
            if len(rows) != len(set(profiles)):
                return False
            for row in rows:
                place = {"state": "seating", "pool": pool, "since": row["since"], "at": at}
                db.execute(
                    "UPDATE places SET state = 'seating', data = ? WHERE profile = ?",
                    (json.dumps(place), row["profile"]),
                )
        return True

    def placed(self, places: Mapping[str, dict[str, Any] | None]) -> None:
        """Set each profile's place (None: it has none any more)."""
        with self.transaction() as db:
            for profile, place in places.items():
                if place is None:
                    db.execute("DELETE FROM places WHERE profile = ?", (profile,))
                else:
                    db.execute(
                        "INSERT OR REPLACE INTO places VALUES (?, ?, ?, ?, ?)",
                        (profile, place["pool"], place["state"], place["since"], json.dumps(place)),
                    )

    def offer(self, pool: str, room: str, at: float) -> None:
        """List ``room`` among ``pool``'s tables with a computer's seat a person may take."""
        with self.transaction() as db:
            db.execute("INSERT OR IGNORE INTO offers VALUES (?, ?, ?)", (pool, room, at))

    def offers(self, pool: str) -> list[str]:
        """The rooms :meth:`offer` listed in ``pool``, the oldest first."""
        with self.transaction() as db:
            rows = db.execute(
                "SELECT room FROM offers WHERE pool = ? ORDER BY at, room", (pool,)
            ).fetchall()
        return [row["room"] for row in rows]

    def withdraw(self, pool: str, room: str) -> None:
        """Take ``room`` off ``pool``'s offers (its computers' seats are taken, or it ended)."""
        with self.transaction() as db:
            db.execute("DELETE FROM offers WHERE pool = ? AND room = ?", (pool, room))

    # --- ratings (callbreak.ratings) ---------------------------------------------------------

    def settle(self, outcome: Outcome) -> bool:
        """Rate a finished public match in its pool once: read its people's ratings, rate, and
        write them with the match's id, in one transaction (the ``rated`` key refuses a second
        rating of the match even so). Whether it was rated now (False: it was already)."""
        with self.transaction() as db:
            db.execute("BEGIN IMMEDIATE")
            seen = db.execute(
                "SELECT 1 FROM rated WHERE pool = ? AND match_id = ?",
                (outcome.pool, outcome.match_id),
            ).fetchone()
            if seen is not None:
                return False
            people = [seat.profile for seat in outcome.seats if isinstance(seat, Person)]
            book = Book(outcome.pool, {p: self._rating(db, outcome.pool, p) for p in people})
            after = settle(book, outcome)
            now = time.time()
            for profile in people:
                held = after.rating(profile)
                db.execute(
                    "INSERT OR REPLACE INTO rating_changes VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (outcome.pool, profile, outcome.match_id, now, held.mu, held.sigma,
                     held.matches),
                )  # fmt: skip
                db.execute(
                    "INSERT OR REPLACE INTO ratings VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        outcome.pool,
                        profile,
                        held.mu,
                        held.sigma,
                        held.matches,
                        held.left,
                        held.ordinal,
                    ),
                )
            db.execute("INSERT INTO rated VALUES (?, ?)", (outcome.pool, outcome.match_id))
        return True

    @staticmethod
    def _rating(db: sqlite3.Connection, pool: str, profile: str) -> PoolRating:
        row = db.execute(
            "SELECT * FROM ratings WHERE pool = ? AND profile = ?", (pool, profile)
        ).fetchone()
        if row is None:
            return NEW
        return PoolRating(row["mu"], row["sigma"], row["matches"], row["left_matches"])

    def rating(self, pool: str, profile: str) -> PoolRating | None:
        """A person's rating in ``pool``, or None when they have no rated match there."""
        with self.transaction() as db:
            held = self._rating(db, pool, profile)
        return None if held is NEW else held

    def leaderboard(self, pool: str, count: int) -> list[tuple[str, PoolRating]]:
        """The ``count`` best ratings of ``pool`` that are not provisional, best first."""
        with self.transaction() as db:
            rows = db.execute(
                "SELECT * FROM ratings WHERE pool = ? AND matches >= ? "
                "ORDER BY ordinal DESC, profile LIMIT ?",
                (pool, PROVISIONAL_MATCHES, count),
            ).fetchall()
        return [
            (
                row["profile"],
                PoolRating(row["mu"], row["sigma"], row["matches"], row["left_matches"]),
            )
            for row in rows
        ]

    def rank(self, pool: str, profile: str) -> int | None:
        """A person's place on ``pool``'s leaderboard (1 the best), None while provisional."""
        with self.transaction() as db:
            held = self._rating(db, pool, profile)
            if held.provisional:
                return None
            (above,) = db.execute(
                "SELECT COUNT(*) FROM ratings WHERE pool = ? AND matches >= ? AND "
                "(ordinal > ? OR (ordinal = ? AND profile < ?))",
                (pool, PROVISIONAL_MATCHES, held.ordinal, held.ordinal, profile),
            ).fetchone()
        return int(above) + 1

    def rating_history(self, pool: str, profile: str, count: int) -> list[dict[str, Any]]:
        """A person's rating after each of their last ``count`` rated matches in ``pool``, the
        oldest first: ``match``, ``at``, ``mu``, ``sigma``, ``matches``."""
        with self.transaction() as db:
            rows = db.execute(
                "SELECT * FROM (SELECT * FROM rating_changes WHERE pool = ? AND profile = ? "
                "ORDER BY at DESC, match_id DESC LIMIT ?) ORDER BY at, match_id",
                (pool, profile, count),
            ).fetchall()
        return [
            {
                "match": row["match_id"],
                "at": row["at"],
                "mu": row["mu"],
                "sigma": row["sigma"],
                "matches": row["matches"],
            }
            for row in rows
        ]

    # --- a person's plays and use (the profile's page; retention) ---------------------------

    def tally(self, profile: str, match_id: str, at: float, play: dict[str, Any]) -> None:
        """Keep what ``profile``'s play of a match was (``play``: calls made, accuracy...),
        replacing what was kept of that match; the profile is used at ``at``."""
        with self.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO plays VALUES (?, ?, ?, ?)",
                (profile, match_id, at, json.dumps(play)),
            )
            db.execute("UPDATE profiles SET updated = MAX(updated, ?) WHERE id = ?", (at, profile))

    def plays(self, profile: str, count: int) -> list[dict[str, Any]]:
        """What was kept of ``profile``'s last ``count`` plays, the most recent first, each
        with its ``match`` and ``at``."""
        with self.transaction() as db:
            rows = db.execute(
                "SELECT * FROM plays WHERE profile = ? ORDER BY at DESC, match_id DESC LIMIT ?",
                (profile, count),
            ).fetchall()
        return [
            json.loads(row["data"]) | {"match": row["match_id"], "at": row["at"]} for row in rows
        ]

    def touch_profile(self, profile: str, at: float) -> None:
        """The profile was used at ``at``: its retention counts from then."""
        with self.transaction() as db:
            db.execute("UPDATE profiles SET updated = MAX(updated, ?) WHERE id = ?", (at, profile))

    def expire_profiles(self, before: float, limit: int = 500) -> list[str]:
        """Delete at most ``limit`` profiles last used before ``before``, with their ratings,
        rating history, plays and places; their ids."""
        with self.transaction() as db:
            ids = [
                row["id"]
                for row in db.execute(
                    "SELECT id FROM profiles WHERE updated < ? LIMIT ?", (before, limit)
                ).fetchall()
            ]
            for table, column in _PROFILE_ROWS:
                db.executemany(f"DELETE FROM {table} WHERE {column} = ?", [(i,) for i in ids])
        return ids

    # --- the daily challenge (web.challenge) -------------------------------------------------

    def secret(self, name: str, made: str) -> str:
        """The secret stored under ``name``, or ``made`` stored now when there is none (the
        first of several processes to store one wins: every one then reads it)."""
        with self.transaction() as db:
            db.execute("INSERT OR IGNORE INTO secrets VALUES (?, ?)", (name, made))
            row = db.execute("SELECT value FROM secrets WHERE name = ?", (name,)).fetchone()
        return str(row["value"])

    def begin_attempt(
        self, attempt: dict[str, Any], per_address: int
    ) -> tuple[dict[str, Any], bool]:
        """Store ``attempt`` (``day``, ``profile``, ``address``, ``ranked``...) unless the
        profile has one that day: that one, and False. A ranked attempt from an address that
        has ``per_address`` ranked attempts that day already is stored unranked (``why``:
        "address"). The attempt stored, and whether it is new."""
        day, profile = attempt["day"], attempt["profile"]
        with self.transaction() as db:
            db.execute("BEGIN IMMEDIATE")
            row = db.execute(
                "SELECT data FROM attempts WHERE day = ? AND profile = ?", (day, profile)
            ).fetchone()
            if row is not None:
                return json.loads(row["data"]), False
            if attempt["ranked"]:
                (count,) = db.execute(
                    "SELECT COUNT(*) FROM attempts WHERE day = ? AND address = ? AND ranked = 1",
                    (day, attempt["address"]),
                ).fetchone()
                if count >= per_address:
                    attempt = attempt | {"ranked": False, "why": "address"}
            db.execute(
                "INSERT INTO attempts VALUES (?, ?, ?, ?, ?)",
                (day, profile, attempt["address"], int(attempt["ranked"]), json.dumps(attempt)),
            )
        return attempt, True

    def attempt(self, day: str, profile: str) -> dict[str, Any] | None:
        """``profile``'s attempt of ``day``, or None."""
        with self.transaction() as db:
            row = db.execute(
                "SELECT data FROM attempts WHERE day = ? AND profile = ?", (day, profile)
            ).fetchone()
        return None if row is None else dict(json.loads(row["data"]))

    def attempts(self, day: str) -> list[dict[str, Any]]:
        """Every attempt of ``day``."""
        with self.transaction() as db:
            rows = db.execute("SELECT data FROM attempts WHERE day = ?", (day,)).fetchall()
        return [json.loads(row["data"]) for row in rows]

    def update_attempt(
        self, day: str, profile: str, changes: Mapping[str, Any]
    ) -> dict[str, Any] | None:
        """``changes`` made to ``profile``'s attempt of ``day``; the attempt after them, or
        None when there is none."""
        with self.transaction() as db:
            row = db.execute(
                "SELECT data FROM attempts WHERE day = ? AND profile = ?", (day, profile)
            ).fetchone()
            if row is None:
                return None
            attempt = dict(json.loads(row["data"])) | dict(changes)
            db.execute(
                "UPDATE attempts SET data = ? WHERE day = ? AND profile = ?",
                (json.dumps(attempt), day, profile),
            )
        return attempt

    def expire_attempts(self, before: str) -> int:
        """Delete the attempts of the days before ``before`` (``YYYY-MM-DD``); how many."""
        with self.transaction() as db:
            return db.execute("DELETE FROM attempts WHERE day < ?", (before,)).rowcount

    # --- owners ----------------------------------------------------------------------------

    def adopt(self) -> tuple[list[tuple[str, str, float]], list[tuple[str, str, float]]]:
        """Give every match and scoresheet that has no owner (made before they had owners) a
        new token; the (id, token, created) of each match and each sheet given one."""
        matches: list[tuple[str, str, float]] = []
        sheets: list[tuple[str, str, float]] = []
        with self.transaction() as db:
            rows = db.execute(
                "SELECT id, created FROM tables WHERE kind = ? "
                "AND json_extract(data, '$.seats[0].token') IS NULL",
                (MATCH,),
            ).fetchall()
            for row in rows:
                token = new_token()
                # Only the token is written, into the row as it is now: a server still playing
                # the match meanwhile loses nothing.
                changed = db.execute(
                    "UPDATE tables SET data = json_set(data, '$.seats[0].token', ?) "
                    "WHERE id = ? AND json_extract(data, '$.seats[0].token') IS NULL",
                    (hash_token(token), row["id"]),
                ).rowcount
                if changed:  # not when another adopt got there first
                    matches.append((row["id"], token, row["created"]))
            for row in db.execute("SELECT id, created FROM sheets WHERE token IS NULL").fetchall():
                token = new_token()
                changed = db.execute(
                    "UPDATE sheets SET token = ? WHERE id = ? AND token IS NULL",
                    (hash_token(token), row["id"]),
                ).rowcount
                if changed:
                    sheets.append((row["id"], token, row["created"]))
        return matches, sheets


_PROFILE_ROWS = (
    ("profiles", "id"),
    ("ratings", "profile"),
    ("rating_changes", "profile"),
    ("plays", "profile"),
    ("places", "profile"),
)
"""The rows of a profile, deleted with it (its attempts go with their day)."""


def _replaceable(place: Mapping[str, Any], stale: float) -> bool:
    """Whether a person's seat may give way to a new wait: its table is over, or its seating
    began before ``stale`` and never finished."""
    if place.get("over"):
        return True
    return place.get("state") == "seating" and float(place.get("at", 0.0)) < stale


def _append(db: sqlite3.Connection, table_id: str, rev: int, step: Step) -> bool:
    """:meth:`Store.append` inside a transaction the caller holds: one statement
    (:data:`APPENDING`), which SQLite takes back whole when it fails."""
    before = db.total_changes
    now = time.time()
    db.execute(
        "INSERT INTO appending VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            table_id,
            rev,
            step.version,
            step.code,
            json.dumps(step.faults) if step.faults else None,
            step.status,
            json.dumps(step.deadline),
            now,
            json.dumps(now),
        ),
    )
    return db.total_changes != before  # the action and its table's row, or nothing


GROUP_MOST = 256
"""Appends stored in one transaction at most: a group is committed within a few milliseconds,
however many tables are waiting."""


class Appends:
    """The appends of a process's tables, grouped: a writer thread takes every append queued
    while the store was busy (its last transaction, or another caller) and stores them in one
    transaction (:meth:`Store.append_group`), off the event loop. An append's caller resumes
    only once its transaction is committed, with what :meth:`Store.append` would have
    answered: the version and revision are checked in the transaction as ever, so a stale
    action is refused exactly as before; a failure fails only the appends it concerns. The
    appends of one table are stored in the order they were made (one queue, one writer)."""

    def __init__(self, store: Store, most: int = GROUP_MOST) -> None:
        self.store, self.most = store, most
        self.groups = 0
        """Transactions committed or tried so far (a group's size is appends / groups)."""
        self._queue: queue.SimpleQueue[_Queued | None] = queue.SimpleQueue()
        self._writer: threading.Thread | None = None
        self._closed = False
        self._start = threading.Lock()

    def submit(self, table_id: str, rev: int, step: Step) -> asyncio.Future[bool]:
        """Queue an append (on the running event loop); its future is done once the append's
        transaction is committed (or failed). One cancelled before the writer takes it is not
        stored."""
        # An asyncio future, answered by one call into the loop per group: a
        # concurrent.futures.Future each (a Condition made, then chained to the loop) cost the
        # loop more than the append it took off it.
        loop = asyncio.get_running_loop()
        future: asyncio.Future[bool] = loop.create_future()
        with self._start:
            if self._closed:
                future.set_exception(sqlite3.ProgrammingError("the store is closed"))
                return future
            if self._writer is None:  # started at the first append: most stores never have one
                self._writer = threading.Thread(target=self._write, name="appends", daemon=True)
                self._writer.start()
            self._queue.put((table_id, rev, step, loop, future))
        return future

    async def append(self, table_id: str, rev: int, step: Step) -> bool:
        """:meth:`Store.append`, grouped with the other tables' and awaited."""
        return await self.submit(table_id, rev, step)

    def _write(self) -> None:
        while True:
            first = self._queue.get()
            if first is None:
                return
            taken, stop = [first], False
            # Under the store's lock, so that whatever queued while it was held (this thread's
            # last transaction, or another caller's) joins this group.
            with self.store._lock:
                while len(taken) < self.most:
                    try:
                        more = self._queue.get_nowait()
                    except queue.Empty:
                        break
                    if more is None:
                        stop = True
                        break
                    taken.append(more)
            # Read across threads, and at worst late: one cancelled just after is stored, as
            # one cancelled once taken is.
            group = [item for item in taken if not item[4].cancelled()]
            if group:
                answers = self.store.append_group([item[:3] for item in group])
                self.groups += 1
                loops: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[bool], Any]]]
                loops = {}
                for item, answer in zip(group, answers, strict=True):
                    loops.setdefault(item[3], []).append((item[4], answer))
                for loop, answered in loops.items():
                    with contextlib.suppress(RuntimeError):  # a loop closed meanwhile
                        loop.call_soon_threadsafe(_answer, answered)
            if stop:
                return

    def close(self) -> None:
        """Store what is queued, then stop the writer; later appends fail (the store closed)."""
        with self._start:
            self._closed = True
            writer = self._writer
            self._queue.put(None)
        if writer is not None:
            writer.join()


_Queued = tuple[str, int, Step, asyncio.AbstractEventLoop, "asyncio.Future[bool]"]
"""An append waiting for the writer: its table, revision and step, and the loop and future
of the caller who waits for it."""


def _answer(answered: list[tuple[asyncio.Future[bool], bool | sqlite3.Error]]) -> None:
    """On the callers' loop: resume each caller of a committed (or failed) group."""
    for future, answer in answered:
        if future.done():  # cancelled meanwhile
            continue
        if isinstance(answer, bool):
            future.set_result(answer)
        else:
            future.set_exception(answer)


def _insert(db: sqlite3.Connection, data: TableData) -> None:
    db.execute(
        "INSERT INTO tables VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            data.id,
            data.kind,
            data.created,
            data.updated,
            data.status,
            data.rev,
            json.dumps(data.to_json()),
        ),
    )
    db.executemany(
        "INSERT INTO actions VALUES (?, ?, ?, ?)",
        [
            (
                data.id,
                version,
                code,
                json.dumps(data.faults[version]) if version in data.faults else None,
            )
            for version, code in enumerate(data.actions)
        ],
    )


def _data(db: sqlite3.Connection, row: sqlite3.Row) -> TableData:
    actions, faults = [], {}
    for version, code, noted in db.execute(
        "SELECT version, code, faults FROM actions WHERE table_id = ? ORDER BY version",
        (row["id"],),
    ):
        actions.append(code)
        if noted is not None:
            faults[version] = json.loads(noted)
    return TableData.from_json(json.loads(row["data"]), actions, faults)


def _sheet_row(row: sqlite3.Row) -> dict[str, Any]:
    return {
        "id": row["id"],
        "created": row["created"],
        "updated": row["updated"],
        "data": json.loads(row["data"]),
        "token": row["token"],
        "rev": row["rev"],
    }


def _migrate_sheets(db: sqlite3.Connection) -> None:
    """Give the sheets of a database from before sheets had owners their token column (NULL:
    nobody holds them until ``callbreak adopt``), and those from before a sheet was changed
    only on the revision it was read at their revision, once."""
    columns = {row["name"] for row in db.execute("PRAGMA table_info(sheets)")}
    if "token" not in columns:
        db.execute("ALTER TABLE sheets ADD COLUMN token TEXT")
    if "rev" not in columns:
        db.execute("ALTER TABLE sheets ADD COLUMN rev INTEGER NOT NULL DEFAULT 0")


def _migrate_matches(db: sqlite3.Connection) -> None:
    """Read the matches of a database from before rooms (one person in seat 0 against three
    computers) into the tables, once."""
    exists = db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'matches'"
    ).fetchone()
    if exists is None:
        return
    for row in db.execute("SELECT * FROM matches").fetchall():
        if db.execute("SELECT 1 FROM tables WHERE id = ?", (row["id"],)).fetchone():
            continue
        names, levels = json.loads(row["names"]), json.loads(row["levels"])
        seats = [
            Seat(PERSON, name) if level is None else Seat(COMPUTER, name, level)
            for name, level in zip(names, levels, strict=True)
        ]
        settings = json.loads(row["settings"]) | {"turn_seconds": 0, "cover": None}
        data = TableData(
            id=row["id"],
            kind=MATCH,
            rules=row["rules"],
            seed=row["seed"],
            seats=seats,
            settings=settings,
            status=row["status"],
            actions=json.loads(row["actions"]),
            created=row["created"],
            updated=row["updated"],
        )
        _insert(db, data)
