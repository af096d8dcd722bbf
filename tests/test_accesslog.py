"""The access log (web.accesslog): one JSON line per request, socket and room event, and never
a token, an Authorization header, a name typed or a card in any of them."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from pathlib import Path
from typing import Any

import pytest

from callbreak.web.accesslog import JsonLines
from callbreak.web.app import create_app
from callbreak.web.client import Client, http
from tests.helpers import FAST, running

pytestmark = pytest.mark.anyio
CARD = re.compile(r"\b[2-9TJQKA][SHDC]\b")


async def test_a_room_and_a_match_leave_no_token_in_the_log(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="callbreak.access")
    app = create_app(tmp_path / "db.sqlite", limits=FAST)
    tokens: list[str] = []
    with running(app) as base:
        status, made = http(
            "POST",
            f"{base}/api/rooms",
            {
                "name": "Asha Secretname",
                "rules": "strict(deals=1)",
                "seats": [None, "random", "random"],
                "turn_seconds": 0,
                "speed": "instant",
                "cover": "random",
            },
        )
        assert status == 201
        code, creator = made["room"], made["token"]
        status, joined = http("POST", f"{base}/api/rooms/{code}/join", {"name": "Bikash"})
        tokens += [creator, joined["token"]]
        assert http("POST", f"{base}/api/rooms/{code}/start", token=creator)[0] == 200
        asha = await Client.open(base, code, creator)
        bikash = await Client.open(base, code, joined["token"])
        await bikash.close()
        # Bikash leaves for good: the cover plays for him from now on.
        assert http("POST", f"{base}/api/rooms/{code}/leave", token=joined["token"])[0] == 200
        while await asha.my_turn(timeout=60) is not None:
            assert asha.state is not None
            await asha.act(asha.state)
        await asha.close()
        assert http("GET", f"{base}/api/rooms/{code}/record")[0] == 200

        status, match = http("POST", f"{base}/api/matches", {"opponents": ["random"] * 3})
        tokens.append(match["token"])
        player = await Client.open(base, match["id"], match["token"], kind="matches")
        await player.close()
        status, _ = http("GET", f"{base}/api/matches/{match['id']}/record", token=match["token"])
        assert status == 200
        await asyncio.sleep(0.2)  # the last socket's line is written as it closes

    formatter = JsonLines()
    lines = [formatter.format(r) for r in caplog.records if r.name == "callbreak.access"]
    for line in lines:
        assert "\n" not in line
        for token in tokens:
            assert token not in line and token[:12] not in line
        assert "bearer" not in line.lower() and "authorization" not in line.lower()
        assert "Secretname" not in line  # what people type is theirs
        assert not CARD.search(line.replace(code, "")), line  # no card, hidden or not
    entries = [json.loads(line) for line in lines]
    events = {entry["event"] for entry in entries}
    assert {"http", "socket", "created", "joined", "started", "left", "covered", "finished"} <= (
        events
    )
    join = next(e for e in entries if e["event"] == "http" and e["route"].endswith("/join"))
    assert join == join | {
        "method": "POST",
        "route": "/api/rooms/{code}/join",
        "path": f"/api/rooms/{code}/join",
        "status": 200,
        "client": "127.0.0.1",
    }
    covered = next(e for e in entries if e["event"] == "covered")
    assert covered["table"] == code and covered["seat"] == 1 and covered["reason"] == "away"
    finished = [e for e in entries if e["event"] == "finished"]
    assert [e["table"] for e in finished] == [code]
    sockets = [e for e in entries if e["event"] == "socket"]
    assert {e["route"] for e in sockets} == {"/ws/rooms/{code}", "/ws/matches/{id}"}


def test_a_line_with_a_failure_is_still_one_line() -> None:
    try:
        raise ValueError("boom")
    except ValueError:
        record = logging.LogRecord("callbreak.web", logging.ERROR, "x", 1, "failed", (), None)
        import sys

        record.exc_info = sys.exc_info()
    line = JsonLines().format(record)
    parsed: dict[str, Any] = json.loads(line)
    assert "\n" not in line and parsed["level"] == "error" and "boom" in parsed["trace"]
