"""/metrics (web.metrics): read only from the addresses the operator names, in Prometheus'
text format (read back with prometheus_client's own parser), its counters moving as a match is
played, its labels never a path or an address a visitor chose."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families
from starlette.testclient import TestClient

from callbreak.web.app import create_app
from tests.helpers import FAST

LOCAL = ("127.0.0.1", 40000)
Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def samples(client: TestClient) -> Samples:
    """Every sample of /metrics, by name and labels."""
    answer = client.get("/metrics")
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/plain")
    found: Samples = {}
    for family in text_string_to_metric_families(answer.text):
        for sample in family.samples:
            found[sample.name, tuple(sorted(sample.labels.items()))] = sample.value
    return found


def value(found: Samples, name: str, **labels: str) -> float:
    return found.get((name, tuple(sorted(labels.items()))), 0.0)


def test_metrics_answer_only_the_networks_named(tmp_path: Path) -> None:
    """Off unless --metrics names the scraper: the same 404 as for a path that does not exist."""
    closed = TestClient(create_app(tmp_path / "a.sqlite", limits=FAST), client=LOCAL)
    assert closed.get("/metrics").status_code == 404
    app = create_app(tmp_path / "b.sqlite", limits=FAST, metrics_from=["10.0.0.0/8", "::1"])
    assert TestClient(app, client=LOCAL).get("/metrics").status_code == 404
    assert TestClient(app, client=("10.1.2.3", 1)).get("/metrics").status_code == 200
    assert TestClient(app, client=("::1", 1)).get("/metrics").status_code == 200
    with pytest.raises(ValueError):
        create_app(tmp_path / "c.sqlite", metrics_from=["not-a-network"])


def test_the_counters_move_as_a_match_is_played(tmp_path: Path) -> None:
    app = create_app(tmp_path / "db.sqlite", limits=FAST, metrics_from=["127.0.0.1"])
    with TestClient(app, client=LOCAL) as client:
        before = samples(client)
        assert value(before, "callbreak_actions_total", kind="play") == 0
        made = client.post(
            "/api/matches",
            json={"rules": "strict(deals=1)", "opponents": ["random"] * 3, "speed": "instant"},
        ).json()
        with client.websocket_connect(f"/ws/matches/{made['id']}") as socket:
            socket.send_json({"type": "hello", "token": made["token"]})
            during = None
            while True:
                message = socket.receive_json()
                if message["type"] != "state":
                    continue
                state = message["state"]
                if during is None:  # the socket and its match are live now
                    during = samples(client)
                if state["match_over"]:
                    break
                if state["turn"] == state["seat"]:
                    socket.send_json(_first_legal(state))
        after = samples(client)
        client.get("/no/such/path/abc123")
        unknown = samples(client)

    assert during is not None
    assert value(during, "callbreak_sockets_open") == 1
    assert value(during, "callbreak_tables_live", kind="match") == 1
    assert value(during, "callbreak_tables_live", kind="room") == 0
    # One deal: four calls and 52 cards, each counted once, each with its latency.
    assert value(after, "callbreak_actions_total", kind="call") == 4
    assert value(after, "callbreak_actions_total", kind="play") == 52
    assert value(after, "callbreak_action_broadcast_seconds_count") == 56
    assert value(after, "callbreak_action_broadcast_seconds_sum") > 0
    # Three computers decided 3 calls and 39 cards.
    assert value(after, "callbreak_computer_decision_seconds_count", level="random") == 42
    assert value(after, "callbreak_stand_in_decisions_total") == 0
    requests = "callbreak_http_requests_total"
    assert value(after, requests, route="/api/matches", method="POST", status="201") == 1
    assert value(after, requests, route="/metrics", method="GET", status="200") >= 2
    # A path nobody routes is one label for all: a visitor cannot make a series per path.
    assert value(unknown, requests, route="other", method="GET", status="404") == 1
    assert not any("abc123" in str(labels) for _name, labels in unknown)
    assert value(unknown, "callbreak_sockets_open") == 0
    assert not any(name.startswith("python_gc") for name, _ in unknown)  # not the global registry


def test_two_apps_count_apart(tmp_path: Path) -> None:
    """Each app has its own registry: what one counts, the other does not."""
    first = create_app(tmp_path / "a.sqlite", limits=FAST, metrics_from=["127.0.0.1"])
    second = create_app(tmp_path / "b.sqlite", limits=FAST, metrics_from=["127.0.0.1"])
    with TestClient(first, client=LOCAL) as one, TestClient(second, client=LOCAL) as two:
        one.get("/api/profiles")
        route: dict[str, Any] = {"route": "/api/profiles", "method": "GET", "status": "200"}
        assert value(samples(one), "callbreak_http_requests_total", **route) == 1
        assert value(samples(two), "callbreak_http_requests_total", **route) == 0


def _first_legal(state: dict[str, Any]) -> dict[str, Any]:
    if state["legal_calls"]:
        move: dict[str, Any] = {"type": "call", "value": state["legal_calls"][0]}
    else:
        move = {"type": "play", "card": state["legal"][0]}
    return move | {"version": state["version"]}
