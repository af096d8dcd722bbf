"""/healthz and /readyz (web.health): alive from the event loop alone, ready only when the
store answers, the computers can decide and the process is not shutting down; and the drain
that a shutdown begins with (web.drain): nothing new is taken meanwhile."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from callbreak import warmup
from callbreak.web.app import create_app
from callbreak.web.drain import RESTARTING
from callbreak.web.limits import Limits
from tests.helpers import FAST, redis_process

LOCAL = ("127.0.0.1", 40000)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path / "db.sqlite", limits=FAST)) as client:
        yield client


def test_alive_and_ready_on_sqlite(client: TestClient) -> None:
    alive = client.get("/healthz")
    assert alive.status_code == 200 and alive.json() == {"status": "alive"}
    assert alive.headers["cache-control"] == "no-store"
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.json() == {"status": "ready"}


def test_not_ready_while_the_computers_are_loading(client: TestClient) -> None:
    """A first start compiles the players: until the stand-in can decide, nobody is sent here."""
    warmup._warming.set()
    warmup._stand_in_ready.clear()
    try:
        answer = client.get("/readyz")
        assert answer.status_code == 503
        assert answer.json() == {
            "status": "not ready",
            "reason": "the computer players are loading",
        }
        warmup._stand_in_ready.set()  # the stand-in is ready: the searching levels may wait
        assert client.get("/readyz").status_code == 200
    finally:
        warmup._warming.clear()
        warmup._stand_in_ready.clear()
    assert client.get("/healthz").status_code == 200


@pytest.mark.redis
def test_readiness_follows_redis_and_health_never_asks_it(tmp_path: Path) -> None:
    """Redis stopped: /readyz is 503 with a reason that names no host, /healthz stays 200, and
    the failed PING is counted as a store error."""
    with redis_process() as (server, url):
        app = create_app(tmp_path / "db.sqlite", url, FAST, metrics_from=["127.0.0.1"])
        client = TestClient(app, client=LOCAL)
        with client:
            assert client.get("/readyz").json() == {"status": "ready"}
            os.kill(server.pid, signal.SIGSTOP)  # it answers nothing, as a hung machine
            try:
                answer = _poll(client, lambda a: a.status_code == 503)
                assert answer.json() == {
                    "status": "not ready",
                    "reason": "the store does not answer",
                }
                assert "127.0.0.1" not in answer.text and url not in answer.text
                assert client.get("/healthz").status_code == 200
                errors = _samples(client.get("/metrics").text, "callbreak_store_errors_total")
                assert errors.get((("operation", "ping"),), 0) >= 1
            finally:
                os.kill(server.pid, signal.SIGCONT)
            _poll(client, lambda a: a.status_code == 200)  # back with Redis
            server.terminate()  # and gone: refused connections, not silence
            server.wait(10)
            answer = _poll(client, lambda a: a.status_code == 503)
            assert answer.json()["reason"] == "the store does not answer"
            assert client.get("/healthz").status_code == 200


def test_a_draining_process_takes_nothing_new(client: TestClient) -> None:
    """Once the shutdown's drain has begun: /readyz 503 at once, every change (a new match,
    room or scoresheet, a join, a seat, a scoresheet entry) 503 "restarting", a new socket
    closed with 1012; what is already there still answers, the reads sent as POST included."""
    made = client.post("/api/matches", json={"opponents": ["random"] * 3, "speed": "instant"})
    assert made.status_code == 201
    room = client.post("/api/rooms", json={"name": "Asha"}).json()
    sheet = client.post("/api/sheets", json={"names": ["A", "B", "C", "D"]})
    assert sheet.status_code == 201, sheet.text
    client.portal.call(client.app.state.drain.start)  # type: ignore[attr-defined,union-attr]
    ready = client.get("/readyz")
    assert ready.status_code == 503 and ready.json()["reason"] == "the server is restarting"
    changes = [
        ("POST", "/api/matches"),
        ("POST", "/api/rooms"),
        ("POST", f"/api/rooms/{room['room']}/join"),
        ("POST", f"/api/rooms/{room['room']}/seats/1"),
        ("POST", f"/api/rooms/{room['room']}/start"),
        ("POST", "/api/sheets"),
        ("PUT", f"/api/sheets/{sheet.json()['id']}/deals/1"),
        ("DELETE", f"/api/sheets/{sheet.json()['id']}/deals/1"),
    ]
    for method, path in changes:
        answer = client.request(method, path, json={})
        assert answer.status_code == 503, path
        assert answer.json() == {
            "error": "the server is restarting: reconnect",
            "code": "restarting",
            "args": {},
        }
        assert answer.headers["retry-after"] and answer.headers["x-frame-options"] == "DENY"
    address = f"/ws/matches/{made.json()['id']}"
    with client.websocket_connect(address) as socket, pytest.raises(WebSocketDisconnect) as closed:
        socket.receive_json()
    assert closed.value.code == RESTARTING
    assert client.get("/healthz").status_code == 200
    assert client.get("/api/profiles").status_code == 200
    assert client.get(f"/api/rooms/{room['room']}").status_code == 200
    held = [{"id": made.json()["id"], "token": made.json()["token"]}]
    checked = client.post("/api/sheets/check", json={"names": ["A", "B", "C", "D"]})
    assert checked.status_code == 200, checked.text  # a check stores nothing: answered
    mine = client.post("/api/matches/mine", json={"matches": held})
    assert mine.status_code == 200 and len(mine.json()) == 1, mine.text


def test_probes_have_their_own_limit(tmp_path: Path) -> None:
    """A load balancer's polling never uses up the requests of the people at its address, and
    the probes are still limited: nobody can make /readyz ask the store without end."""
    limits = Limits(probes_per_minute=60, probe_burst=5, requests_per_minute=60, request_burst=3)
    with TestClient(create_app(tmp_path / "db.sqlite", limits=limits)) as client:
        for _ in range(5):
            assert client.get("/readyz").status_code == 200
        refused = client.get("/healthz")
        assert refused.status_code == 429 and refused.json()["code"] == "rate"
        assert client.get("/api/profiles").status_code == 200  # people's requests: untouched


# --- helpers ---------------------------------------------------------------------------------


def _poll(client: TestClient, wanted: Any, seconds: float = 20.0) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        answer = client.get("/readyz")
        if wanted(answer):
            return answer
        assert time.monotonic() < deadline, answer.text
        time.sleep(0.2)


def _samples(text: str, name: str) -> dict[tuple[tuple[str, str], ...], float]:
    found: dict[tuple[tuple[str, str], ...], float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name:
                found[tuple(sorted(sample.labels.items()))] = sample.value
    return found
