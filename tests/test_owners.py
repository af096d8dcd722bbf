"""Owners of what was made before owners: an old database opens, its matches and sheets are held
by nobody until ``callbreak adopt`` gives them tokens, and the tokens file it writes opens them."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from callbreak.game import Match
from callbreak.seating import play_match
from callbreak.web.actions import encode
from callbreak.web.app import create_app
from callbreak.web.owners import TOKENS_FORMAT, read_held, tokens_file
from callbreak.web.retention import Retention

NAMES = ["Ann", "Bob", "Cy", "Dee"]
SHEET = {
    "version": 1,
    "names": NAMES,
    "rules": "strict",
    "created": 1_700_000_000.0,
    "deals": [{"calls": [3, 4, 2, 3], "tricks": [5, 3, 2, 3]}],
}


def old_database(path: Path) -> None:
    """A database as a server before owners (and before rooms) left it: a finished match in
    the old ``matches`` table and a scoresheet in a ``sheets`` table without tokens."""
    match = Match("strict(deals=1)", seed=4)
    play_match(match, ["random"] * 4)
    actions = [encode(action) for deal in match.deals for action in deal.actions]
    db = sqlite3.connect(path)
    db.executescript(
        """
        CREATE TABLE matches (id TEXT PRIMARY KEY, names TEXT, levels TEXT, settings TEXT,
            rules TEXT, seed TEXT, status TEXT, actions TEXT, created REAL, updated REAL);
        CREATE TABLE sheets (id TEXT PRIMARY KEY, created REAL NOT NULL, updated REAL NOT NULL,
            data TEXT NOT NULL);
        """
    )
    db.execute(
        "INSERT INTO matches VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            "oldmatch",
            json.dumps(["Asha", "Bikash", "Chandra", "Dipa"]),
            json.dumps([None, "random", "random", "random"]),
            json.dumps({"speed": "normal", "auto_forced": False}),
            "strict(deals=1)",
            "4",
            "finished",
            json.dumps(actions),
            1_700_000_000.0,
            1_700_000_100.0,
        ),
    )
    db.execute(
        "INSERT INTO sheets VALUES (?, ?, ?, ?)",
        ("oldsheet", 1_700_000_000.0, 1_700_000_000.0, json.dumps(SHEET)),
    )
    db.commit()
    db.close()


def adopt(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "callbreak", "adopt", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def listed(client: TestClient, tokens: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The ids of the matches and the sheets the history lists for a tokens file."""
    pairs = {
        key: [{"id": e["id"], "token": e["token"]} for e in tokens[key]]
        for key in ("matches", "sheets")
    }
    matches = client.post("/api/matches/mine", json={"matches": pairs["matches"]}).json()
    sheets = client.post("/api/sheets/mine", json={"sheets": pairs["sheets"]}).json()
    return [m["id"] for m in matches], [s["id"] for s in sheets]


def test_adopt_gives_old_matches_and_sheets_owners(tmp_path: Path) -> None:
    database = tmp_path / "old.db"
    old_database(database)
    # The old database opens, and nobody holds its match or its sheet. (Its rows are years
    # old: kept for ever here, or the first start's sweep would remove them as past their time,
    # as docs/deploy.md says of an upgrade.)
    keep = Retention(finished=None, lobbies=None, unfinished=None)
    with TestClient(create_app(database, retention=keep)) as client:
        guess = {"id": "oldmatch", "token": "x" * 43}
        assert client.post("/api/matches/mine", json={"matches": [guess]}).json() == []
        headers = {"Authorization": "Bearer " + "x" * 43}
        assert client.get("/api/sheets/oldsheet", headers=headers).status_code == 404
        assert client.get("/api/matches/oldmatch/record", headers=headers).status_code == 404

    out = tmp_path / "tokens.json"
    result = adopt("--db", str(database), "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert "1 match(es) and 1 scoresheet(s)" in result.stderr and "History" in result.stderr
    assert stat.S_IMODE(out.stat().st_mode) == 0o600  # the file opens them: its owner's only
    tokens = json.loads(out.read_text())
    assert tokens["format"] == TOKENS_FORMAT and tokens["version"] == 1
    assert [e["id"] for e in tokens["matches"]] == ["oldmatch"]
    assert [e["id"] for e in tokens["sheets"]] == ["oldsheet"]
    assert tokens["rooms"] == []
    assert tokens["matches"][0]["since"] == 1_700_000_000_000
    # Only hashes are stored.
    with sqlite3.connect(database) as db:
        stored = " ".join(str(row) for row in db.execute("SELECT * FROM tables, sheets"))
    assert tokens["matches"][0]["token"] not in stored
    assert tokens["sheets"][0]["token"] not in stored

    # Adopting again gives nothing new, and the first tokens still open both.
    again = adopt("--db", str(database))
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout) | {"matches": [], "sheets": []} == json.loads(again.stdout)
    with TestClient(create_app(database, retention=keep)) as client:
        assert listed(client, tokens) == (["oldmatch"], ["oldsheet"])
        match_key = {"Authorization": f"Bearer {tokens['matches'][0]['token']}"}
        record = client.get("/api/matches/oldmatch/record", headers=match_key).json()
        assert record["players"] == ["Asha", "Bikash", "Chandra", "Dipa"]
        assert len(record["deals"]) == 1
        sheet_key = {"Authorization": f"Bearer {tokens['sheets'][0]['token']}"}
        sheet = client.get("/api/sheets/oldsheet", headers=sheet_key).json()
        assert sheet["names"] == NAMES and sheet["totals"] == ["3.2", "-4.0", "2.0", "3.0"]
        # A new sheet is made with its own token; adopting leaves it alone.
        made = client.post("/api/sheets", json={"names": NAMES, "rules": "strict"}).json()
    third = json.loads(adopt("--db", str(database)).stdout)
    assert third["sheets"] == [] and made["token"]


def test_adopt_refuses_a_bad_path_in_one_line(tmp_path: Path) -> None:
    missing = adopt("--db", str(tmp_path / "nowhere" / "x.db"))
    assert missing.returncode == 2 and missing.stdout == ""
    assert (
        missing.stderr.strip()
        == f"callbreak adopt: there is no database at {tmp_path}/nowhere/x.db"
    )
    assert not (tmp_path / "nowhere").exists()
    garbage = tmp_path / "garbage.db"
    garbage.write_text("not a database at all" * 100)
    broken = adopt("--db", str(garbage))
    assert broken.returncode == 2 and "Traceback" not in broken.stderr
    assert broken.stderr.startswith("callbreak adopt: cannot use the database at")
    assert len(broken.stderr.strip().splitlines()) == 1
    # An --out that cannot be written: no token is made (which nobody could then hold).
    database = tmp_path / "old.db"
    old_database(database)
    unwritable = adopt("--db", str(database), "--out", str(tmp_path / "no" / "such" / "t.json"))
    assert unwritable.returncode == 2 and "cannot write" in unwritable.stderr
    assert len(unwritable.stderr.strip().splitlines()) == 1
    later = json.loads(adopt("--db", str(database)).stdout)
    assert [e["id"] for e in later["matches"]] == ["oldmatch"]


def test_the_tokens_file_and_what_a_request_may_hold() -> None:
    now = time.time()
    made = tokens_file([("m", "t1", now)], [("s", "t2", 1.5)])
    assert made == {
        "format": "callbreak-tokens",
        "version": 1,
        "matches": [{"id": "m", "token": "t1", "since": round(now * 1000)}],
        "rooms": [],
        "sheets": [{"id": "s", "token": "t2", "since": 1500}],
    }
    body = {
        "matches": [{"id": "a", "token": "t"}, {"id": "a", "token": "t"}, {"id": "b", "token": "u"}]
    }
    assert read_held(body, "matches") == [("a", "t"), ("b", "u")]
    assert read_held({}, "rooms") == []
    with pytest.raises(ValueError, match="at most 500"):
        read_held({"rooms": [{"id": "a", "token": "t"}] * 501}, "rooms")


def test_a_table_named_with_many_tokens_is_loaded_once() -> None:
    """Found by a probe: one id named with 500 wrong tokens cost 500 loads of it (0.5 s of CPU
    a request on Redis). Each id is loaded once, and every token is still checked."""
    from callbreak.web.model import claim, new_match, new_room
    from callbreak.web.owners import held_matches, held_rooms

    match = new_match("strict", "Ann", ["random"] * 3, "7", {})
    mine = claim(match, 0)
    room = new_room("strict", "Ann", [None, "random", "random"])
    creator = claim(room, 0)
    stored = {match.id: match, room.id: room}
    loads: list[str] = []

    class Counted:
        async def load(self, table_id: str, known: Any = None) -> Any:
            loads.append(table_id)
            return stored.get(table_id)

    wrong = [(match.id, f"wrong{i}") for i in range(499)]
    held = asyncio.run(held_matches(Counted(), [*wrong, (match.id, mine)]))  # type: ignore[arg-type]
    assert held == [match]
    assert loads == [match.id]
    loads.clear()
    named = [(room.id.lower(), f"wrong{i}") for i in range(499)] + [(room.id, creator)]
    assert asyncio.run(held_rooms(Counted(), named)) == [(room, 0)]  # type: ignore[arg-type]
    assert loads == [room.id]
