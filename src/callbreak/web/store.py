"""Where the web app keeps its matches and scoresheets: one SQLite file.

A match is stored as what is needed to rebuild it exactly: its rules, seed, players and the
list of actions taken so far. Rebuilding replays the actions through the engine, so a reload,
a reconnect or a restarted server resumes the match where it was.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["Store", "default_path"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    rules TEXT NOT NULL,
    seed TEXT NOT NULL,
    names TEXT NOT NULL,
    levels TEXT NOT NULL,
    human INTEGER NOT NULL,
    actions TEXT NOT NULL,
    settings TEXT NOT NULL,
    status TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sheets (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    data TEXT NOT NULL
);
"""


def default_path() -> Path:
    """The database in the user's data folder: $XDG_DATA_HOME/callbreak/callbreak.db."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "callbreak" / "callbreak.db"


class Store:
    """A SQLite database of matches and scoresheets, safe to use from several threads."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._connection = sqlite3.connect(str(path), check_same_thread=False)
        self._connection.row_factory = sqlite3.Row
        self._lock = threading.Lock()
        with self.transaction() as db:
            db.executescript(SCHEMA)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """The connection, inside one transaction, for one thread at a time."""
        with self._lock, self._connection:
            yield self._connection

    def close(self) -> None:
        """Close the database."""
        self._connection.close()

    # --- matches -------------------------------------------------------------------------------

    def add_match(
        self,
        match_id: str,
        rules: str,
        seed: str,
        names: list[str],
        levels: list[str | None],
        human: int,
        settings: dict[str, Any],
    ) -> None:
        """Store a new match with no actions yet."""
        now = time.time()
        with self.transaction() as db:
            db.execute(
                "INSERT INTO matches VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    match_id,
                    now,
                    now,
                    rules,
                    seed,
                    json.dumps(names),
                    json.dumps(levels),
                    human,
                    "[]",
                    json.dumps(settings),
                    "playing",
                ),
            )

    def save_match(
        self, match_id: str, actions: list[str], status: str, settings: dict[str, Any]
    ) -> None:
        """Save a match's actions, status and settings."""
        with self.transaction() as db:
            db.execute(
                "UPDATE matches SET actions = ?, status = ?, settings = ?, updated = ? "
                "WHERE id = ?",
                (json.dumps(actions), status, json.dumps(settings), time.time(), match_id),
            )

    def match(self, match_id: str) -> dict[str, Any] | None:
        """One stored match, or None."""
        with self.transaction() as db:
            row = db.execute("SELECT * FROM matches WHERE id = ?", (match_id,)).fetchone()
        return None if row is None else _match_row(row)

    def matches(self) -> list[dict[str, Any]]:
        """Every stored match, the most recently played first."""
        with self.transaction() as db:
            rows = db.execute("SELECT * FROM matches ORDER BY updated DESC").fetchall()
        return [_match_row(row) for row in rows]

    # --- scoresheets ---------------------------------------------------------------------------

    def save_sheet(self, sheet_id: str, data: dict[str, Any]) -> None:
        """Create or replace a scoresheet."""
        now = time.time()
        with self.transaction() as db:
            db.execute(
                "INSERT INTO sheets VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET "
                "data = excluded.data, updated = excluded.updated",
                (sheet_id, now, now, json.dumps(data)),
            )

    def sheet(self, sheet_id: str) -> dict[str, Any] | None:
        """One scoresheet's data, or None."""
        with self.transaction() as db:
            row = db.execute("SELECT data FROM sheets WHERE id = ?", (sheet_id,)).fetchone()
        return None if row is None else dict(json.loads(row["data"]))

    def sheets(self) -> list[dict[str, Any]]:
        """Every scoresheet (id, times, data), the most recently changed first."""
        with self.transaction() as db:
            rows = db.execute("SELECT * FROM sheets ORDER BY updated DESC").fetchall()
        return [
            {
                "id": row["id"],
                "created": row["created"],
                "updated": row["updated"],
                "data": json.loads(row["data"]),
            }
            for row in rows
        ]


def _match_row(row: sqlite3.Row) -> dict[str, Any]:
    return {
        "id": row["id"],
        "created": row["created"],
        "updated": row["updated"],
        "rules": row["rules"],
        "seed": row["seed"],
        "names": json.loads(row["names"]),
        "levels": json.loads(row["levels"]),
        "human": row["human"],
        "actions": json.loads(row["actions"]),
        "settings": json.loads(row["settings"]),
        "status": row["status"],
    }
