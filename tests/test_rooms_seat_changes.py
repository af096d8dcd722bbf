"""A connection's seat follows the lobby: a person moved to another seat, or who left, is no
longer sent (nor may act for) the seat they held when they connected."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from callbreak.web.app import create_app
from tests.helpers import running
from tests.rooms_client import Client, hidden_cards_seen, http

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def app(tmp_path: Path) -> Any:
    return create_app(tmp_path / "db.sqlite")


@pytest.fixture
def base(app: Any) -> Any:
    with running(app) as address:
        yield address


def fair(app: Any, code: str, client: Client) -> list[str]:
    data = app.state.tables.live[code].data
    return hidden_cards_seen(client.received, client.seat, data.rules, data.seed, data.actions)


async def test_a_moved_person_gets_the_new_seat(app: Any, base: str) -> None:
    status, created = http(
        "POST",
        f"{base}/api/rooms",
        {"name": "Asha", "seats": [None, "random", None], "turn_seconds": 0},
    )
    code, creator = created["room"], created["token"]
    _, bikash_seat = http("POST", f"{base}/api/rooms/{code}/join", {"name": "Bikash"})
    _, chandra_seat = http("POST", f"{base}/api/rooms/{code}/join", {"name": "Chandra"})
    assert (bikash_seat["seat"], chandra_seat["seat"]) == (1, 3)
    bikash = await Client.open(base, code, bikash_seat["token"])
    assert bikash.seat == 1
    status, _ = http("POST", f"{base}/api/rooms/{code}/move", {"from": 1, "to": 3}, creator)
    assert status == 200
    welcome = await bikash.until(lambda m: m["type"] == "welcome")
    assert welcome["seat"] == 3
    bikash.seat = 3
    http("POST", f"{base}/api/rooms/{code}/start", token=creator)
    state = await bikash.until(lambda m: m["type"] == "state")
    assert state["state"]["seat"] == 3
    assert fair(app, code, bikash) == []
    await bikash.close()


async def test_the_creator_cannot_be_moved(base: str) -> None:
    _, created = http("POST", f"{base}/api/rooms", {"name": "Asha", "turn_seconds": 0})
    code, creator = created["room"], created["token"]
    http("POST", f"{base}/api/rooms/{code}/join", {"name": "Bikash"})
    status, answer = http("POST", f"{base}/api/rooms/{code}/move", {"from": 0, "to": 1}, creator)
    assert status == 409 and "creator" in answer["error"]


async def test_a_person_who_left_watches_and_cannot_act(app: Any, base: str) -> None:
    _, created = http(
        "POST",
        f"{base}/api/rooms",
        {"name": "Asha", "seats": [None, "random", "random"], "turn_seconds": 0},
    )
    code, creator = created["room"], created["token"]
    _, joined = http("POST", f"{base}/api/rooms/{code}/join", {"name": "Bikash"})
    http("POST", f"{base}/api/rooms/{code}/start", token=creator)
    bikash = await Client.open(base, code, joined["token"])
    await bikash.until(lambda m: m["type"] == "state")
    http("POST", f"{base}/api/rooms/{code}/leave", token=joined["token"])
    welcome = await bikash.until(lambda m: m["type"] == "welcome")
    assert welcome["seat"] is None
    http("POST", f"{base}/api/rooms/{code}/seats/1", {"open": True}, creator)
    _, dipa = http("POST", f"{base}/api/rooms/{code}/join", {"name": "Dipa"})
    assert dipa["seat"] == 1
    bikash.received.clear()
    bikash.seat = None
    await bikash.send({"type": "sync"})
    state = await bikash.until(lambda m: m["type"] == "state")
    assert state["state"]["seat"] is None and state["state"]["hand"] == []
    await bikash.send({"type": "call", "value": 1, "version": state["state"]["version"]})
    error = await bikash.until(lambda m: m["type"] == "error")
    assert "spectator" in error["message"]
    assert fair(app, code, bikash) == []
    await bikash.close()
