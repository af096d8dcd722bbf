"""The web app's API and WebSocket, without a browser: matches, fairness, bad messages, resume."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from callbreak.bots.remote import BotAddresses
from callbreak.cards import Card, parse_card
from callbreak.game import Call, Play
from callbreak.players import PlayerError
from callbreak.record import check, from_data
from callbreak.rules import DUTY_TEXTS, format_tenths
from callbreak.seating import PlayerSpec
from callbreak.web.app import create_app
from callbreak.web.http import HEADERS
from callbreak.web.limits import (
    CREATION,
    LOOKUP,
    REQUEST,
    Limits,
    PerAddress,
    address_of,
    kind_of,
)
from callbreak.web.view import display_order, seat_view
from tests.helpers import FAST, Listener, http_reply, parse_tenths, swap_hidden

CARD = re.compile(r'"([2-9TJQKA][SHDC])"')


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    # No pings (web.messages): these tests read a socket's messages in their exact order;
    # tests/test_health.py and test_rooms_processes.py hear the pings.
    return TestClient(create_app(tmp_path / "db.sqlite", limits=FAST, ping_seconds=3600))


NO_SUCH_MATCH = {"type": "error", "message": "no such match", "code": "no_such_match", "args": {}}
"""What a socket hears of a match it may not open: an unknown id and a wrong token alike."""


def new_match(client: TestClient, **body: Any) -> tuple[str, str]:
    """A new match's id and its token."""
    defaults = {"opponents": ["random", "random", "random"], "speed": "instant", "seed": 5}
    answer = client.post("/api/matches", json=defaults | body)
    assert answer.status_code == 201, answer.text
    made = answer.json()
    assert set(made) == {"id", "token"} and len(made["token"]) >= 43
    return str(made["id"]), str(made["token"])


def owner(token: str) -> dict[str, str]:
    """The header that carries a token."""
    return {"Authorization": f"Bearer {token}"}


@contextlib.contextmanager
def match_socket(client: TestClient, match_id: str, token: str) -> Iterator[Any]:
    """The match's socket, past its hello and the welcome to seat 0."""
    with client.websocket_connect(f"/ws/matches/{match_id}") as socket:
        socket.send_json({"type": "hello", "token": token})
        assert socket.receive_json() == {"type": "welcome", "seat": 0}
        yield socket


def my_matches(client: TestClient, *held: tuple[str, str]) -> list[dict[str, Any]]:
    """The history's list of the matches these (id, token) pairs hold."""
    body = {"matches": [{"id": match_id, "token": token} for match_id, token in held]}
    answer = client.post("/api/matches/mine", json=body)
    assert answer.status_code == 200, answer.text
    return list(answer.json())


def receive_state(socket: Any) -> dict[str, Any]:
    """The next state message, past notices (an error fails the test)."""
    message = socket.receive_json()
    while message["type"] == "notice":
        message = socket.receive_json()
    assert message["type"] == "state", message
    return dict(message["state"])


def first_legal(state: dict[str, Any]) -> dict[str, Any]:
    """The person's first legal call or card as a message, for the state's version."""
    if state["legal_calls"]:
        move = {"type": "call", "value": state["legal_calls"][0]}
    else:
        move = {"type": "play", "card": state["legal"][0]}
    return move | {"version": state["version"]}


def wait_for_my_turn(socket: Any, state: dict[str, Any]) -> dict[str, Any]:
    while not state["match_over"] and state["turn"] != state["seat"]:
        state = receive_state(socket)
    return state


# --- the JSON API ----------------------------------------------------------------------------


def test_index_and_static_files(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "/static/app.js" in page.text
    for name in (
        "app.js",
        "common.js",
        "table.js",
        "home.js",
        "history.js",
        "replay.js",
        "style.css",
    ):
        assert client.get(f"/static/{name}").status_code == 200, name


def test_every_language_has_every_key() -> None:
    """The Nepali and Hindi catalogues word everything the English one does, and no more."""
    static = Path(__file__).parent.parent / "src" / "callbreak" / "web" / "static"
    keys = {}
    for lang in ("en", "ne", "hi"):
        text = (static / f"lang-{lang}.js").read_text(encoding="utf-8")
        body = text[text.index("export default {") :]
        found = re.findall(r'^  (?:"([^"]+)"|(\w+)):', body, re.MULTILINE)
        keys[lang] = {quoted or bare for quoted, bare in found}
    assert len(keys["en"]) > 300 and {"history.import", "held.match"} <= keys["en"]
    assert keys["ne"] == keys["en"] and keys["hi"] == keys["en"]


def test_every_key_the_pages_name_is_in_the_catalogue() -> None:
    """Every key a page names as a literal ("replay.played", in t(...), tn(...) or handed on to
    them) is worded in the English catalogue (and so, by the test above, in every language): a
    key dropped from the catalogues while a page still uses it would show as the bare key."""
    static = Path(__file__).parent.parent / "src" / "callbreak" / "web" / "static"
    text = (static / "lang-en.js").read_text(encoding="utf-8")
    body = text[text.index("export default {") :]
    keys = {q or b for q, b in re.findall(r'^  (?:"([^"]+)"|(\w+)):', body, re.MULTILINE)}
    spaces = {key.split(".")[0] for key in keys if "." in key}
    named = set()
    for page in static.glob("*.js"):
        if page.name.startswith("lang-"):
            continue
        for literal in re.findall(r'"([a-z]+\.[A-Za-z0-9.]+)"', page.read_text(encoding="utf-8")):
            if literal.split(".")[0] in spaces and not re.search(r"\.(js|css|html|png)$", literal):
                named.add((page.name, literal))
    assert len(named) > 300
    assert {(page, key) for page, key in named if key not in keys} == set()


def test_every_counted_entry_has_its_plural_forms_in_every_language() -> None:
    """A counted entry ({ one, other }, chosen by Intl.PluralRules through tn) has both forms
    in all three languages, and the same entries are counted in each."""
    static = Path(__file__).parent.parent / "src" / "callbreak" / "web" / "static"
    counted = {}
    for lang in ("en", "ne", "hi"):
        text = (static / f"lang-{lang}.js").read_text(encoding="utf-8")
        body = text[text.index("export default {") :]
        forms = {}
        for key, inline, block in re.findall(
            r'^  "([^"]+)": \{(?:(.*)\},|\n((?:    .*\n)+)  \},)$', body, re.MULTILINE
        ):
            found = re.findall(r"(\w+): \"", inline or block)
            forms[key] = found
        counted[lang] = forms
        assert all(found == ["one", "other"] for found in forms.values()), (lang, forms)
    assert counted["ne"].keys() == counted["en"].keys() == counted["hi"].keys()
    assert {"history.playingDeals", "rule.deals", "record.unfinished"} <= counted["en"].keys()
    # The plain "plural" helper of the English catalogue is gone: every count goes through tn.
    assert "const plural" not in (static / "lang-en.js").read_text(encoding="utf-8")


def test_profiles_and_levels(client: TestClient) -> None:
    profiles = client.get("/api/profiles").json()
    assert [p["name"] for p in profiles] == ["strict", "classic", "online", "pagat", "bhoos"]
    assert all(p["summary"] for p in profiles)
    # Every field as data, for a page to word the summary in its own language.
    strict = profiles[0]["options"]
    assert strict["min_call"] == 2 and strict["deals"] == 5 and strict["no_spade_first_lead"]
    levels = client.get("/api/levels").json()
    assert levels["levels"] == [
        "random",
        "beginner",
        "intermediate",
        "advanced",
        "learned",
        "expert",
    ]
    assert all(levels["descriptions"][level] for level in levels["levels"])


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"rules": "bridge"}, "unknown profile"),
        ({"rules": 5}, "rules must be text"),
        ({"opponents": ["random"]}, "three players"),
        ({"opponents": ["random", "random", "wizard"]}, "levels here are random, beginner,"),
        ({"opponents": ["random", "random", 3]}, "player spec"),
        ({"seed": True}, "seed must be"),
        ({"seed": ""}, "seed must be"),
        ({"speed": "warp"}, "speed must be"),
        ({"auto_forced": "yes"}, "auto_forced"),
        ({"speed": ["fast"]}, "speed must be"),
        (
            {"opponents": ["random", "random", "expert(bogus=1)"]},
            "expert takes only time 0.01-2, threads 1-2 and seed here, not 'bogus'",
        ),
        ({"opponents": ["random", "random", "expert(time=0)"]}, "time must be"),
        # The levels anyone may seat are bounded: no search that holds a core for minutes.
        ({"opponents": ["random", "random", "expert(time=600)"]}, "time must be 0.01-2 here"),
        ({"opponents": ["expert(threads=8)", "random", "random"]}, "threads must be 1-2"),
        ({"opponents": ["random", "ismcts", "random"]}, "not 'ismcts'"),
        ({"opponents": ["random", "oracle", "random"]}, "not 'oracle'"),
        ({"opponents": ["beginner(optimism=3)", "random", "random"]}, "takes only seed"),
        ({"opponents": ["random", "random", "http://127.0.0.1:7000"]}, "calls no remote bot"),
        ({"opponents": ["random", "random", "intermediate("]}, "cannot read the player"),
        ({"opponents": ["random", "random", "https://127.0.0.1:7000"]}, "http://HOST:PORT"),
    ],
)
def test_bad_new_match_requests(client: TestClient, body: dict[str, Any], words: str) -> None:
    answer = client.post("/api/matches", json={"opponents": ["random"] * 3} | body)
    assert answer.status_code == 400 and words in answer.json()["error"]
    # The error quotes the spec as it was given, without a seed the person never typed.
    assert not re.search(r"seed=\d{3,}", answer.json()["error"])
    assert not client.app.state.store.tables()  # type: ignore[attr-defined]


def test_only_json_bodies_are_taken(client: TestClient) -> None:
    """A form or text/plain post, which another site's page could send, is refused."""
    answer = client.post(
        "/api/matches",
        content=b'{"opponents": ["random", "random", "random"]}',
        headers={"content-type": "text/plain"},
    )
    assert answer.status_code == 400 and "Content-Type: application/json" in answer.json()["error"]
    assert not client.app.state.store.tables()  # type: ignore[attr-defined]


def test_another_sites_page_may_not_open_the_socket(client: TestClient) -> None:
    match_id, _token = new_match(client)
    address = f"/ws/matches/{match_id}"
    evil = {"origin": "http://evil.example"}
    with pytest.raises(WebSocketDisconnect), client.websocket_connect(address, headers=evil):
        pass


def test_non_json_and_huge_bodies(client: TestClient) -> None:
    answer = client.post("/api/matches", content=b"{", headers={"content-type": "application/json"})
    assert answer.status_code == 400 and "not JSON" in answer.json()["error"]
    digits = b'{"seed": ' + b"9" * 5000 + b"}"
    answer = client.post(
        "/api/matches", content=digits, headers={"content-type": "application/json"}
    )
    assert answer.status_code == 400 and "not JSON" in answer.json()["error"]
    answer = client.post("/api/matches", content=b" " * 70_000)
    assert answer.status_code == 413 and "over" in answer.json()["error"]
    answer = client.post("/api/matches", json=[1, 2])
    assert answer.status_code == 400


def test_unknown_match(client: TestClient) -> None:
    _id, token = new_match(client)
    assert client.get("/api/matches/nope/record", headers=owner(token)).status_code == 404
    with client.websocket_connect("/ws/matches/nope") as socket:
        socket.send_json({"type": "hello", "token": token})
        assert socket.receive_json() == NO_SUCH_MATCH


# --- playing over the socket -----------------------------------------------------------------


def play_to_the_end(client: TestClient, match_id: str, token: str) -> dict[str, Any]:
    """Play the person's seat with the first legal call and card until the match is over,
    checking on the way that no message carries a card the seat may not see."""
    app_tables = client.app.state.tables  # type: ignore[attr-defined]
    with match_socket(client, match_id, token) as socket:
        state = receive_state(socket)
        while not state["match_over"]:
            state = wait_for_my_turn(socket, state)
            if state["match_over"]:
                break
            socket.send_json(first_legal(state))
            raw = socket.receive_text()
            _assert_only_visible_cards(raw, app_tables.live[match_id])
            assert json.loads(raw)["type"] == "state", raw
            state = json.loads(raw)["state"]
    return state


def _assert_only_visible_cards(raw: str, table: Any) -> None:
    """Every card in a message is the person's own or has been played face up."""
    match = table.state.match
    seat = 0
    visible = set(match.deal.held(seat))
    for deal in match.deals:
        for trick in [*deal.tricks, deal.trick]:
            visible |= set(trick.cards)
    for text in CARD.findall(raw):
        assert parse_card(text) in visible, f"{text} leaked"


def test_a_whole_match_over_the_socket(client: TestClient) -> None:
    match_id, token = new_match(client, rules="classic")
    final = play_to_the_end(client, match_id, token)
    assert final["status"] == "finished" and len(final["results"]) == 5
    assert sorted(final["places"]) == sorted(final["places"])
    listed = my_matches(client, (match_id, token))
    assert listed[0]["id"] == match_id and listed[0]["status"] == "finished"
    record = client.get(f"/api/matches/{match_id}/record", headers=owner(token))
    assert "attachment" in record.headers["content-disposition"]
    result = check(from_data(record.json()))
    assert result.valid and result.to_json()["totals"] == final["totals"]


def test_the_view_holds_only_the_own_hand(client: TestClient) -> None:
    match_id, token = new_match(client, speed="instant")
    table = client.app.state.tables.live[match_id]  # type: ignore[attr-defined]
    with match_socket(client, match_id, token) as socket:
        state = wait_for_my_turn(socket, receive_state(socket))
        raw = json.dumps(state)
        _assert_only_visible_cards(raw, table)
        assert sorted(parse_card(c) for c in state["hand"]) == sorted(
            table.state.match.deal.held(0)
        )


@pytest.mark.parametrize(
    ("message", "words"),
    [
        ("{not json", "not JSON"),
        ("[1, 2]", '"type"'),
        ('{"type": "dance"}', "unknown message type 'dance'"),
        ('{"type": "call", "value": 3, "seat": 2, "version": V}', "you play seat 0, not seat 2"),
        ('{"type": "call", "value": "three", "version": V}', "whole number"),
        ('{"type": "call", "value": 99, "version": V}', "calls run from"),
        ('{"type": "play", "card": "ZZ", "version": V}', "unknown card"),
        ('{"type": "call", "value": 3}', '"version"'),
        ('{"type": "call", "value": 3, "version": "V"}', '"version"'),
        ('{"type": "call", "value": 3, "version": 999}', "earlier state"),
        ('{"type": "settings", "speed": "warp"}', "speed must be"),
        ('{"type": "stop", "version": V}', "open-ended"),
        ("x" * 5000, "too long"),
        ('{"type": "settings", "speed": ["fast"]}', "speed must be"),
        ("[" * 1999 + "]" * 1999, "not JSON"),
    ],
)
def test_bad_messages_get_an_error_and_the_match_goes_on(
    client: TestClient, message: str, words: str
) -> None:
    match_id, token = new_match(client, rules="strict")
    with match_socket(client, match_id, token) as socket:
        state = wait_for_my_turn(socket, receive_state(socket))
        assert state["legal_calls"]
        socket.send_text(
            message.replace("V", str(state["version"])) if "999" not in message else message
        )
        answer = socket.receive_json()
        assert answer["type"] == "error" and words in answer["message"], answer
        if answer.get("stale"):
            assert receive_state(socket) == state  # the state again, nothing played
        socket.send_json(
            {"type": "call", "value": state["legal_calls"][0], "version": state["version"]}
        )
        after = receive_state(socket)
        assert after["calls"][0] == state["legal_calls"][0]


def test_binary_and_illegal_cards_are_refused(client: TestClient) -> None:
    match_id, token = new_match(client, rules="strict", seed=11)
    with match_socket(client, match_id, token) as socket:
        state = wait_for_my_turn(socket, receive_state(socket))
        socket.send_bytes(b"\xff\x00")
        assert socket.receive_json()["type"] == "error"
        socket.send_json({"type": "play", "card": state["hand"][0], "version": state["version"]})
        assert "calls are not all in" in socket.receive_json()["message"]
        socket.send_json(
            {"type": "call", "value": state["legal_calls"][0], "version": state["version"]}
        )
        state = receive_state(socket)
        # Find a turn with an illegal card in hand and try it.
        for _ in range(60):
            state = wait_for_my_turn(socket, state)
            if state["reasons"]:
                card, reason = next(iter(state["reasons"].items()))
                # The same duties as data, for a page that words them in another language.
                assert set(state["duties"]) == set(state["reasons"])
                duty = state["duties"][card]
                words = DUTY_TEXTS[duty["duty"]].split("{")[0]
                assert reason.lower().startswith(words.lower())
                socket.send_json({"type": "play", "card": card, "version": state["version"]})
                answer = socket.receive_json()
                # The duty as data beside the words: the page words it in its language.
                assert answer == {
                    "type": "error",
                    "message": reason,
                    "code": "illegal_play",
                    "args": {"detail": reason, "duty": duty, "played": card},
                }
                socket.send_json({"type": "sync"})
                again = receive_state(socket)
                assert again["hand"] == state["hand"]  # nothing was played
                return
            socket.send_json(
                {"type": "play", "card": state["legal"][0], "version": state["version"]}
            )
            state = receive_state(socket)
    pytest.fail("no illegal card came up")


def test_a_restarted_server_resumes_the_match(tmp_path: Path) -> None:
    database = tmp_path / "db.sqlite"
    first = TestClient(create_app(database))
    match_id, token = new_match(first, seed=9)
    with match_socket(first, match_id, token) as socket:
        state = wait_for_my_turn(socket, receive_state(socket))
        socket.send_json(
            {"type": "call", "value": state["legal_calls"][0], "version": state["version"]}
        )
        state = wait_for_my_turn(socket, receive_state(socket))
        socket.send_json({"type": "play", "card": state["legal"][0], "version": state["version"]})
        state = wait_for_my_turn(socket, receive_state(socket))
    before = {k: state[k] for k in ("hand", "calls", "won", "trick", "version")}
    second = TestClient(create_app(database))
    with match_socket(second, match_id, token) as socket:
        resumed = wait_for_my_turn(socket, receive_state(socket))
    assert {k: resumed[k] for k in before} == before
    # The unfinished match's record holds only complete deals: no hidden hand of the deal in play.
    record = second.get(f"/api/matches/{match_id}/record", headers=owner(token)).json()
    assert record["unfinished"] is True and record["deals"] == []
    assert "seed" not in record  # the seed would rebuild every hidden hand
    assert check(from_data(record)).valid
    listed = my_matches(second, (match_id, token))[0]
    assert listed["seed"] is None and listed["status"] == "playing"


def test_hint_for_the_own_turn(client: TestClient) -> None:
    match_id, token = new_match(client)
    with match_socket(client, match_id, token) as socket:
        state = wait_for_my_turn(socket, receive_state(socket))
        socket.send_json({"type": "hint"})
        hint = socket.receive_json()
        assert hint["type"] == "hint" and hint["kind"] == "call"
        assert "expected" in hint["summary"]
        assert hint["options"][0]["action"] in state["legal_calls"]


def test_settings_are_kept(client: TestClient) -> None:
    match_id, token = new_match(client)
    with match_socket(client, match_id, token) as socket:
        receive_state(socket)
        socket.send_json({"type": "settings", "speed": "fast", "auto_forced": True})
        state = receive_state(socket)
        assert state["settings"] == {"speed": "fast", "auto_forced": True, "challenge": False}


def test_the_last_trick_of_a_deal_stays_up_while_the_next_is_called(client: TestClient) -> None:
    match_id, token = new_match(client, rules="classic")
    table = client.app.state.tables.live[match_id]  # type: ignore[attr-defined]
    with match_socket(client, match_id, token) as socket:
        state = receive_state(socket)
        while not state["results"]:  # watch every state until the first deal is scored
            if state["turn"] == state["seat"]:
                if state["legal_calls"]:
                    socket.send_json(
                        {
                            "type": "call",
                            "value": state["legal_calls"][0],
                            "version": state["version"],
                        }
                    )
                else:
                    socket.send_json(
                        {"type": "play", "card": state["legal"][0], "version": state["version"]}
                    )
            state = receive_state(socket)
    thirteenth = table.state.match.deals[0].tricks[-1]
    assert state["phase"] == "calling" and state["tricks_played"] == 0
    assert state["last_trick"]["cards"] == [str(card) for card in thirteenth.cards]


def test_a_dead_remote_bot_at_the_table_gets_substitutes_and_faults(tmp_path: Path) -> None:
    import socket as sockets

    with sockets.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    allowed = dataclasses.replace(FAST, bots=BotAddresses.parse(f"http://127.0.0.1:{port}"))
    client = TestClient(create_app(tmp_path / "db.sqlite", limits=allowed))
    match_id, token = new_match(client, opponents=[f"http://127.0.0.1:{port}", "random", "random"])
    final = play_to_the_end(client, match_id, token)
    assert final["status"] == "finished"
    record = client.get(f"/api/matches/{match_id}/record", headers=owner(token)).json()
    faults = [fault for deal in record["deals"] for fault in deal.get("faults", [])]
    assert faults and {fault["fault"] for fault in faults} == {"silent"}
    assert {fault["seat"] for fault in faults} == {1}
    # Only the kind of fault: not the connection's error (which tells open ports from closed).
    assert {fault["detail"] for fault in faults} == {"no connection"}
    assert check(from_data(record)).valid


# --- remote bots only where the operator allows them -----------------------------------------


def test_a_remote_bot_is_never_called_unless_the_server_allows_its_address(
    client: TestClient,
) -> None:
    with Listener(http_reply("200 OK", b'{"value": "hello"}')) as bot:
        for opponents in (
            [bot.address, "random", "random"],
            ["random", "random", f"http://localhost:{bot.port}/bid"],
            ["random", "random", f"http://2130706433:{bot.port}"],  # 127.0.0.1 in disguise
        ):
            answer = client.post("/api/matches", json={"opponents": opponents})
            assert answer.status_code == 400, answer.text
            assert answer.json()["error"].startswith("this server calls no remote bot")
        assert not client.app.state.store.tables()  # type: ignore[attr-defined]
    assert bot.connections == 0 and not bot.received


def test_an_allowed_bot_is_played_and_only_the_kind_of_its_faults_is_told(tmp_path: Path) -> None:
    """The bot answers nonsense that carries a secret: the person's socket messages and the
    record say that it answered outside the protocol, never what it answered."""
    secret = b"SECRET-internal-admin-page"
    with Listener(http_reply("200 OK", secret)) as bot:
        allowed = dataclasses.replace(FAST, bots=BotAddresses.parse("127.0.0.1/32"))
        client = TestClient(create_app(tmp_path / "db.sqlite", limits=allowed))
        match_id, token = new_match(
            client, opponents=[bot.address, "random", "random"], rules="strict(deals=1)"
        )
        seen: list[str] = []
        with match_socket(client, match_id, token) as socket:
            while True:
                raw = socket.receive_text()
                seen.append(raw)
                message = json.loads(raw)
                if message["type"] != "state":
                    continue
                state = message["state"]
                if state["match_over"]:
                    break
                if state["turn"] == state["seat"]:
                    socket.send_json(first_legal(state))
        record = client.get(f"/api/matches/{match_id}/record", headers=owner(token)).text
    assert bot.connections > 0 and b"POST /bid" in bot.received  # it was played
    notices = [json.loads(raw) for raw in seen if '"notice"' in raw]
    assert notices and all("an answer outside the protocol" in n["message"] for n in notices)
    assert {n["fault"]["detail"] for n in notices} == {"an answer outside the protocol"}
    assert "SECRET" not in "".join(seen) and "SECRET" not in record
    faults = [f for deal in json.loads(record)["deals"] for f in deal.get("faults", [])]
    assert len(faults) == 14 and {f["fault"] for f in faults} == {"malformed"}


def test_a_bot_that_redirects_is_not_followed(tmp_path: Path) -> None:
    with Listener() as elsewhere:
        moved = http_reply("302 Found", b"", f"Location: {elsewhere.address}/bid")
        with Listener(moved) as bot:
            allowed = dataclasses.replace(FAST, bots=BotAddresses.parse(bot.address))
            client = TestClient(create_app(tmp_path / "db.sqlite", limits=allowed))
            match_id, token = new_match(
                client, opponents=[bot.address, "random", "random"], rules="strict(deals=1)"
            )
            play_to_the_end(client, match_id, token)
        assert bot.connections > 0
    assert elsewhere.connections == 0
    record = client.get(f"/api/matches/{match_id}/record", headers=owner(token)).json()
    faults = [f for deal in record["deals"] for f in deal.get("faults", [])]
    assert faults and {f["detail"] for f in faults} == {"an answer outside the protocol"}


def test_every_address_a_bots_name_resolves_to_must_be_allowed() -> None:
    allowed = BotAddresses.parse("10.0.0.0/8, http://bots.example:7000")

    def resolving(*addresses: str) -> Any:
        return lambda host, port, **_: [(2, 1, 6, "", (a, port)) for a in addresses]

    allowed.check("http://bot.lan:7000", resolving("10.1.1.1", "10.2.2.2"))
    with pytest.raises(PlayerError, match="not allowed on this server"):
        allowed.check("http://bot.lan:7000", resolving("10.1.1.1", "169.254.169.254"))
    with pytest.raises(PlayerError, match="not allowed on this server"):
        allowed.check("http://[::ffff:127.0.0.1]:7000", resolving("::ffff:127.0.0.1"))
    allowed.check("http://BOTS.example:7000/v2", resolving("127.0.0.1"))  # named exactly
    with pytest.raises(PlayerError, match="not allowed"):
        allowed.check("http://bots.example:7001", resolving("127.0.0.1"))
    for bad in ("10.0.0.0/33", "http://bots.example:7000/path", "ftp://x:1", "bots.example"):
        with pytest.raises(PlayerError):
            BotAddresses.parse(bad)


def test_a_bots_fault_is_told_by_its_kind_only() -> None:
    from callbreak.players import Fault
    from callbreak.web.notices import public

    said = {
        ("late", "call"): "no answer in time",
        ("silent", "play"): "no connection",
        ("malformed", "play"): "an answer outside the protocol",
        ("illegal", "call"): "an illegal call",
        ("illegal", "play"): "an illegal card",
    }
    for (kind, action), words in said.items():
        fault = Fault(1, action, kind, "HTTP 500: <html>admin panel of 10.0.0.7</html>", "2")
        assert public(fault) == Fault(1, action, kind, words, "2")
    ours = Fault(0, "call", "timeout", "the turn clock ran out", "2")
    assert public(ours) is ours


def test_a_stored_bot_at_an_address_no_longer_allowed_is_never_connected_to() -> None:
    """The check is made again on every connection (a room stored before the server's
    settings changed, a name that resolves elsewhere since it was checked)."""
    from callbreak.game import Match
    from callbreak.seating import PlayerSpec

    with Listener(http_reply("200 OK", b'{"value": 3}')) as bot:
        player = PlayerSpec.parse(bot.address).build(
            ready=False, bots=BotAddresses.parse("10.0.0.0/8")
        )
        match = Match("strict", seed=1)
        observation = match.observation(match.deal.turn or 0)
        assert player.call(observation) == observation.legal_calls[0]  # the substitute
    assert bot.connections == 0
    assert [f.fault for f in player.faults] == ["silent"]  # type: ignore[attr-defined]


def test_nothing_sent_to_a_seat_changes_with_the_other_seats_hidden_cards(
    client: TestClient,
) -> None:
    """What the match's socket sends to the token's seat, the replay and the record of a match
    in play stay the same, byte for byte, when cards still hidden from the person move between
    the other seats."""
    match_id, token = new_match(client, rules="classic")
    table = client.app.state.tables.live[match_id]  # type: ignore[attr-defined]
    match = table.state.match
    # Into the second deal, to the person's turn (the computers then wait for them).
    while len(match.deals) < 2 or len(match.deal.tricks) < 5 or match.deal.turn != 0:
        deal = match.deal
        action = Call(deal.rules.min_call) if deal.legal_calls() else Play(min(deal.legal_cards()))
        asyncio.run(table.act(deal.turn, action, table.state.version))

    with match_socket(client, match_id, token) as socket:
        first = socket.receive_text()  # the state sent on connecting
        assert json.loads(first)["state"]["hand"]

        def everything_sent() -> list[str]:
            socket.send_json({"type": "sync"})
            return [
                socket.receive_text(),
                json.dumps(seat_view(table.state, 0), sort_keys=True),
                client.get(f"/api/matches/{match_id}/replay", headers=owner(token)).text,
                client.get(f"/api/matches/{match_id}/record", headers=owner(token)).text,
            ]

        before = everything_sent()
        assert before[0] == first
        hidden_before = [match.deal.held(s) for s in range(4)]
        swap_hidden(match.deal, 0)
        assert [match.deal.held(s) for s in range(4)] != hidden_before
        assert match.deal.held(0) == hidden_before[0]
        assert everything_sent() == before


def test_the_replay_gives_the_engines_trick_winners_and_scores(client: TestClient) -> None:
    match_id, token = new_match(client, rules="classic")
    play_to_the_end(client, match_id, token)
    replay = client.get(f"/api/matches/{match_id}/replay", headers=owner(token)).json()
    table = client.app.state.tables.live[match_id]  # type: ignore[attr-defined]
    assert (
        replay["record"]
        == client.get(f"/api/matches/{match_id}/record", headers=owner(token)).json()
    )
    assert replay["winners"] == [
        [trick.winner for trick in deal.tricks] for deal in table.state.match.deals
    ]
    # Each deal's scores as the engine counts them (none for a thrown-in deal), which add up
    # to the match's totals.
    assert replay["scores"] == [
        [format_tenths(points) for points in deal.scores()] if not deal.thrown_in else None
        for deal in table.state.match.deals
    ]
    played = [row for row in replay["scores"] if row is not None]
    # The totals before each deal: nothing before the first, then each deal's scores added.
    assert replay["totals"][0] == ["0.0"] * 4
    for deal, row in enumerate(replay["scores"][:-1]):
        after = [
            parse_tenths(total) + (parse_tenths(row[seat]) if row else 0)
            for seat, total in enumerate(replay["totals"][deal])
        ]
        assert [parse_tenths(total) for total in replay["totals"][deal + 1]] == after
    # The hands as the table shows a hand: the record's, sorted as the table sorts them.
    for deal, hands in zip(table.state.match.deals, replay["hands"], strict=True):
        assert hands == [
            [str(card) for card in sorted(hand, key=display_order)] for hand in deal.hands
        ]
    assert [
        sum(parse_tenths(row[seat]) for row in played) for seat in range(4)
    ] == table.state.match.totals()
    assert client.get("/api/matches/nope/replay", headers=owner(token)).status_code == 404


def test_a_play_hint_names_its_cards(client: TestClient) -> None:
    match_id, token = new_match(client)
    with match_socket(client, match_id, token) as socket:
        state = wait_for_my_turn(socket, receive_state(socket))
        while not state["legal"] or len(state["legal"]) < 2:
            if state["legal_calls"]:
                socket.send_json(
                    {"type": "call", "value": state["legal_calls"][0], "version": state["version"]}
                )
            else:
                socket.send_json(
                    {"type": "play", "card": state["legal"][0], "version": state["version"]}
                )
            state = wait_for_my_turn(socket, receive_state(socket))
        socket.send_json({"type": "hint"})
        hint = socket.receive_json()
        while hint["type"] != "hint":
            hint = socket.receive_json()
    assert hint["kind"] == "play"
    assert {option["action"] for option in hint["options"]} == set(state["legal"])
    assert all(isinstance(parse_card(option["action"]), Card) for option in hint["options"])


# --- the summary between deals ---------------------------------------------------------------


def _play_first_deal(socket: Any, seen: bool) -> dict[str, Any]:
    """Play the person's seat until the first deal is scored; the state then."""
    state = receive_state(socket)
    if seen:
        socket.send_json({"type": "seen", "deals": 0})  # a page that shows summaries
    while not state["results"]:
        if state["turn"] == state["seat"]:
            socket.send_json(first_legal(state))
        state = receive_state(socket)
    return state


def _wait_for(condition: Any, seconds: float = 30.0) -> bool:
    import time

    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


# Seed 5 under classic: a computer calls first in deal 2 (checked below).
def test_the_next_deal_waits_for_the_summary_to_be_closed(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    from callbreak.web import driver

    monkeypatch.setattr(driver, "SUMMARY_SECONDS", 600.0)
    match_id, token = new_match(client, rules="classic")
    table = client.app.state.tables.live[match_id]  # type: ignore[attr-defined]
    with match_socket(client, match_id, token) as socket:
        state = _play_first_deal(socket, seen=True)
        assert state["turn"] != 0 and state["phase"] == "calling"
        version = state["version"]
        # At instant speed a computer would call at once: the driver, asked at any moment of
        # the summary's time on its loop's clock (asyncio's, time.monotonic), moves nothing
        # until that time is up. A clock given, not a sleep that waits for nothing to happen.
        now = time.monotonic()
        for later in (0.0, 1.5, 590.0):
            assert not isinstance(table.driver.next(now + later), driver.Move), later
        assert isinstance(table.driver.next(now + 601.0), driver.Move)
        assert table.state.version == version and table.driver.waiting_on_summary() == [0]
        socket.send_json({"type": "seen", "deals": 1})
        assert _wait_for(lambda: table.state.version > version)
        assert table.state.match.deal.calls[state["turn"]] is not None


def test_the_summary_wait_has_a_timeout(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from callbreak.web import driver

    monkeypatch.setattr(driver, "SUMMARY_SECONDS", 0.5)
    match_id, token = new_match(client, rules="classic")
    table = client.app.state.tables.live[match_id]  # type: ignore[attr-defined]
    with match_socket(client, match_id, token) as socket:
        state = _play_first_deal(socket, seen=True)
        assert _wait_for(lambda: table.state.version > state["version"])  # nobody pressed Continue


def test_a_client_that_shows_no_summary_is_not_waited_for(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from callbreak.web import driver

    monkeypatch.setattr(driver, "SUMMARY_SECONDS", 600.0)
    match_id, token = new_match(client, rules="classic")
    table = client.app.state.tables.live[match_id]  # type: ignore[attr-defined]
    with match_socket(client, match_id, token) as socket:
        state = _play_first_deal(socket, seen=False)
        assert _wait_for(lambda: table.state.version > state["version"])
        socket.send_json({"type": "seen", "deals": "all"})
        error = socket.receive_json()
        while error["type"] != "error":
            error = socket.receive_json()
        assert "deals" in error["message"]


def test_the_view_has_the_rules_as_data(client: TestClient) -> None:
    match_id, token = new_match(client, rules="classic(deals=3)")
    with match_socket(client, match_id, token) as socket:
        state = receive_state(socket)
    assert state["rules"]["options"]["deals"] == 3
    assert state["rules"]["options"]["profile"] == "classic"


def test_a_stand_in_decides_while_a_first_start_prepares_the_search(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the warm-up is still compiling a search player's functions (here: the expert's
    search functions stand for ones with no machine code yet), the learned level decides for
    it at once instead of the table waiting; the record marks each such decision with a
    ``preparing`` fault naming what was played, the view says so while that seat thinks (and
    only then), and the match is valid. Players without a search never wait."""
    import numba

    from callbreak import warmup
    from callbreak.players import kernel

    monkeypatch.setattr(warmup, "preparing", lambda: True)
    monkeypatch.setattr(warmup, "GRACE", 0.05)
    for name in ("simulate", "evaluate"):
        monkeypatch.setattr(kernel, name, numba.njit(lambda x: x))  # never compiled
    match_id, token = new_match(
        client, opponents=["expert(time=0.01)", "random", "random"], rules="strict(deals=1)"
    )
    thinking: dict[int | None, set[bool]] = {}
    with match_socket(client, match_id, token) as socket:
        state = receive_state(socket)
        while not state["match_over"]:
            thinking.setdefault(state["thinking"], set()).add(state["preparing"])
            if state["turn"] == state["seat"]:
                socket.send_json(first_legal(state))
            state = receive_state(socket)
    record = client.get(f"/api/matches/{match_id}/record", headers=owner(token)).json()
    assert check(from_data(record)).valid
    deal = record["deals"][0]
    faults = deal.get("faults", [])
    plays = [card for trick in deal["tricks"] for card in trick if card in deal["hands"][1]]
    # The expert's call and its 13 cards, each decided by the stand-in and marked so.
    assert [f["fault"] for f in faults] == ["preparing"] * 14
    assert {f["seat"] for f in faults} == {1}
    assert [f["substitute"] for f in faults] == [str(deal["calls"][1]), *plays]
    assert "learned" in faults[0]["detail"]
    assert thinking[1] == {True} and thinking[2] == {False} and thinking[None] == {False}


def test_only_the_seat_to_act_is_shown_thinking(client: TestClient) -> None:
    """A copy of the table in another process hears "thinking" but learns of the action by
    catching up, which leaves the flag behind: the view shows it only for the seat to act."""
    match_id, token = new_match(client, opponents=["random", "random", "random"])
    with match_socket(client, match_id, token) as socket:
        wait_for_my_turn(socket, receive_state(socket))  # nothing moves until the person does
        table = client.app.state.tables.live[match_id]  # type: ignore[attr-defined]
        turn = table.state.match.deal.turn
        table.state.thinking, table.state.stood_in = (
            (turn + 1) % 4,
            True,
        )  # left behind by an earlier seat
        view = seat_view(table.state, 0)
        assert view["thinking"] is None and view["preparing"] is False
        table.state.thinking = turn
        assert (
            seat_view(table.state, 0)["thinking"] == turn
            and seat_view(table.state, 0)["preparing"] is True
        )


# --- your record -----------------------------------------------------------------------------


def held(*made: tuple[str, str]) -> list[dict[str, str]]:
    """The (id, token) pairs as a request lists them."""
    return [{"id": table_id, "token": token} for table_id, token in made]


def test_your_record_counts_finished_matches_and_deals(client: TestClient) -> None:
    assert client.post("/api/stats", json={}).json()["total"]["matches"] == 0
    finished = new_match(client, rules="classic")
    final = play_to_the_end(client, *finished)
    unfinished = new_match(client, rules="strict", opponents=["expert", "random", "random"])
    new_match(client, rules="classic")  # not named: not counted
    rooms = [{"id": "ABCDEF", "token": "x" * 43}]
    body = {"matches": held(finished, unfinished, finished), "rooms": rooms}
    figures = client.post("/api/stats", json=body).json()
    total = figures["total"]
    assert total["matches"] == 1 and total["unfinished"] == 1 and total["deals"] == 5
    assert total["first"] == (1 if final["places"][0] == 1 else 0)
    made = sum(
        result["won"][0] >= result["calls"][0] for result in final["results"]
    )  # classic: a call is made with at least as many tricks
    assert total["made"] == made
    average = sum(float(result["scores"][0]) for result in final["results"]) / 5
    assert abs(float(total["average"]) - average) < 0.051
    assert {line["key"] for line in figures["by_rules"]} == {"classic", "strict"}
    assert {line["key"] for line in figures["by_level"]} == {"random", "mixed"}


# --- work for anyone: bounded --------------------------------------------------------------------


def _fake_hints(monkeypatch: pytest.MonkeyPatch, gate: Any = None) -> list[int]:
    """Count the hint searches (each stands for half a second of search; ``gate``, a
    threading.Event, holds each until set)."""
    from callbreak.web import hints

    searched: list[int] = []

    def search(observation: Any, version: int) -> dict[str, Any]:
        searched.append(version)
        if gate is not None:
            assert gate.wait(30)
        return {"type": "hint", "kind": "call", "summary": "", "options": [], "version": version}

    monkeypatch.setattr(hints, "hint_message", search)
    return searched


def test_one_search_per_decision_however_many_hints_are_asked(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    gate = threading.Event()
    searched = _fake_hints(monkeypatch, gate)
    match_id, token = new_match(client)
    with (
        match_socket(client, match_id, token) as first,
        match_socket(client, match_id, token) as second,
    ):
        state = wait_for_my_turn(first, receive_state(first))
        for _ in range(15):  # two pages of the person's, 30 hints on one turn
            first.send_json({"type": "hint"})
            second.send_json({"type": "hint"})
        gate.set()
        answers = []
        for socket in (first, second):
            while len(answers) < 30 and len([a for a in answers if a[0] is socket]) < 15:
                message = socket.receive_json()
                if message["type"] == "hint":
                    answers.append((socket, message))
                assert message["type"] != "error", message
    assert searched == [state["version"]]  # one search; 29 answers without one
    assert {json.dumps(message) for _, message in answers} == {json.dumps(answers[0][1])}


def test_hints_and_figures_past_the_queue_are_told_the_server_is_busy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    gate = threading.Event()
    searched = _fake_hints(monkeypatch, gate)
    one = dataclasses.replace(FAST, search_threads=1, search_queue=0)
    client = TestClient(create_app(tmp_path / "db.sqlite", limits=one))
    first, second = new_match(client), new_match(client)
    with (
        match_socket(client, *first) as busy,
        match_socket(client, *second) as refused,
    ):
        wait_for_my_turn(busy, receive_state(busy))
        wait_for_my_turn(refused, receive_state(refused))
        busy.send_json({"type": "hint"})  # takes the only thread until the gate opens
        while not searched:
            time.sleep(0.01)
        refused.send_json({"type": "hint"})
        error = refused.receive_json()
        assert error == {
            "type": "error",
            "message": "the server is busy: try again in a moment",
            "code": "busy",
            "args": {},
        }
        answer = client.post("/api/stats", json={"matches": held(first)})
        assert answer.status_code == 503 and "busy" in answer.json()["error"]
        answer = client.post("/api/matches/mine", json={"matches": held(first)})
        assert answer.status_code == 503 and "busy" in answer.json()["error"]
        gate.set()
        assert busy.receive_json()["type"] == "hint"
        refused.send_json({"type": "hint"})  # a refused hint was not kept: asked again, it is
        assert refused.receive_json()["type"] == "hint"
    assert client.post("/api/stats", json={"matches": held(first)}).status_code == 200
    assert len(searched) == 2


def test_your_record_counts_a_room_named_many_times_once(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from callbreak.web import app as web_app

    answer = client.post(
        "/api/rooms",
        json={"name": "Asha", "seats": ["random", "random", "random"], "turn_seconds": 0},
    )
    code, token = answer.json()["room"], answer.json()["token"]
    started = client.post(f"/api/rooms/{code}/start", headers={"Authorization": f"Bearer {token}"})
    assert started.status_code == 200
    replayed: list[tuple[str, int]] = []
    game_of = web_app.game_of

    def counted(data: Any, seat: int) -> Any:
        replayed.append((data.id, seat))
        return game_of(data, seat)

    monkeypatch.setattr(web_app, "game_of", counted)
    named = (
        [{"id": code, "token": token}] * 300
        + [{"id": code.lower(), "token": token}] * 100
        + [{"id": code, "token": "x" * 43}] * 99
    )
    figures = client.post("/api/stats", json={"rooms": named}).json()
    assert replayed == [(code, 0)]  # once, at the seat the token holds
    assert figures["total"]["unfinished"] == 1  # the room, from seat 0's side


# --- limits, leaks and headers ---------------------------------------------------------------

STATIC = Path(__file__).parent.parent / "src" / "callbreak" / "web" / "static"
LEAK = "Error 111 connecting to 127.0.0.1:6395. Connection refused."
LEAKED = ("6395", "127.0.0.1", "Error 111", "ConnectionError", "Traceback", "secret")


def assert_secured(answer: Any, what: str) -> None:
    """The answer carries every security header, as the app sets them."""
    for name, value in HEADERS.items():
        assert answer.headers.get(name) == value, f"{what}: {name} is {answer.headers.get(name)}"


def test_every_answer_carries_the_security_headers(client: TestClient) -> None:
    match_id, token = new_match(client)
    sheet = client.post("/api/sheets", json={"names": ["A", "B", "C", "D"]})
    sheet_key = owner(sheet.json()["token"])
    created = client.post("/api/rooms", json={"name": "Asha"}).json()
    answers = {
        "the page": client.get("/"),
        "a bad request": client.post("/api/matches", json={"rules": "bridge"}),
        "no such page": client.get("/nothing-here"),
        "no such match": client.get("/api/matches/nope/record"),
        "no such room": client.get("/api/rooms/ZZZZZZ"),
        "a new match": client.get(f"/api/matches/{match_id}/replay", headers=owner(token)),
        "a match without its token": client.get(f"/api/matches/{match_id}/replay"),
        "the history": client.post("/api/matches/mine", json={"matches": held((match_id, token))}),
        "a new sheet": sheet,
        "its CSV": client.get(f"/api/sheets/{sheet.json()['id']}/export.csv", headers=sheet_key),
        "the sheets": client.post("/api/sheets/mine", json={"sheets": []}),
        "your record": client.post("/api/stats", json={}),
        "a new room": client.get(f"/api/rooms/{created['room']}"),
        "a room's record": client.get(f"/api/rooms/{created['room']}/record"),
        "a wrong method": client.delete("/api/profiles"),
        "a cached file": client.get("/static/app.js", headers={"if-none-match": "*"}),
    }
    for path in ("/api/profiles", "/api/levels", "/api/matches", "/api/sheets", "/api/stats"):
        answers[path] = client.get(path)
    for file in sorted(STATIC.iterdir()):
        answers[file.name] = client.get(f"/static/{file.name}")
        assert answers[file.name].status_code == 200, file.name
    for what, answer in answers.items():
        assert_secured(answer, what)
    assert answers["the page"].headers["content-type"].startswith("text/html")
    assert answers["a cached file"].status_code == 304


def test_the_page_has_no_inline_script_or_style() -> None:
    """What the CSP would block: the browser run (tests/e2e/test_security.py) sees it happen."""
    for file in [STATIC / "index.html", *STATIC.glob("*.js")]:
        text = file.read_text()
        assert not re.search(r"<script(?![^>]*\bsrc=)", text), file.name
        assert not re.search(r"<style|\sstyle=|setAttribute\(\s*[\"']style|\son\w+=", text), (
            file.name
        )


SMALL = Limits(
    creations_per_minute=0.01,
    creation_burst=3,
    lookups_per_minute=0.01,
    lookup_burst=3,
    requests_per_minute=0.01,
    request_burst=3,
    sockets=2,
    messages_per_second=10_000,
    message_burst=10_000,
)


def refused(answer: Any) -> bool:
    """The limits' answer: 429, one JSON error with its code, and when to try again."""
    if answer.status_code != 429:
        return False
    body = answer.json()
    seconds = int(answer.headers["retry-after"])
    assert body == {"error": body["error"], "code": "rate", "args": {"seconds": seconds}}
    assert body["error"].startswith("too many requests from this address: try again in")
    assert int(answer.headers["retry-after"]) >= 1
    assert_secured(answer, "a refusal")
    return True


SHEET = {"names": ["A", "B", "C", "D"]}
KINDS = {
    LOOKUP: [  # anything naming a room, match or sheet: trying codes
        ("GET", "/api/rooms/ABCDEF", None),
        ("GET", "/api/rooms/ABCDEG/record", None),
        ("GET", "/api/rooms/ABCDEH/replay", None),
        ("GET", "/api/matches/nope/replay", None),
        ("GET", "/api/sheets/nope", None),
        ("POST", "/api/rooms/ABCDEF/start", {}),
    ],
    CREATION: [
        ("POST", "/api/matches", {"opponents": ["random"] * 3}),
        ("POST", "/api/rooms", {"name": "Asha"}),
        ("POST", "/api/sheets", SHEET),
        ("POST", "/api/rooms/ABCDEF/join", {"name": "Bikash"}),
    ],
    REQUEST: [
        ("GET", "/", None),
        ("GET", "/static/app.js", None),
        ("GET", "/api/profiles", None),
        ("GET", "/api/matches", None),
        ("POST", "/api/stats", {}),
    ],
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_each_kind_of_request_is_limited_per_address(tmp_path: Path, kind: str) -> None:
    client = TestClient(create_app(tmp_path / "db.sqlite", limits=SMALL))
    answers = [client.request(m, p, json=b) for m, p, b in KINDS[kind] for _ in range(2)]
    limited = [refused(answer) for answer in answers]
    # The burst of 3 is shared by every request of the kind, whatever it names.
    assert limited == [False] * 3 + [True] * (len(answers) - 3)
    # Each kind has its own bucket: the others are untouched.
    for other, requests in KINDS.items():
        if other != kind:
            method, path, body = requests[0]
            assert client.request(method, path, json=body).status_code != 429, other


def test_sockets_are_limited_per_address_and_released_on_close(tmp_path: Path) -> None:
    limits = dataclasses.replace(SMALL, lookup_burst=100, creation_burst=100)
    client = TestClient(create_app(tmp_path / "db.sqlite", limits=limits))
    match_id, token = new_match(client)
    path = f"/ws/matches/{match_id}"
    with (
        match_socket(client, match_id, token) as first,
        match_socket(client, match_id, token) as second,
    ):
        receive_state(first), receive_state(second)
        with client.websocket_connect(path) as third:
            error = third.receive_json()
            assert error["type"] == "error" and error["code"] == "rate"
            assert error["message"].startswith("too many connections from this address")
            with pytest.raises(WebSocketDisconnect) as closed:
                third.receive_json()
            assert closed.value.code == 4429
    with match_socket(client, match_id, token) as again:  # the two closed: room for one more
        assert receive_state(again)["seat"] == 0


def test_opening_sockets_counts_as_looking_tables_up(tmp_path: Path) -> None:
    limits = dataclasses.replace(SMALL, creation_burst=100)
    client = TestClient(create_app(tmp_path / "db.sqlite", limits=limits))
    match_id, token = new_match(client)
    for path in (f"/ws/matches/{match_id}", "/ws/rooms/ABCDEF", "/ws/rooms/ABCDEG"):
        with client.websocket_connect(path) as socket:
            socket.send_json({"type": "hello", "token": token})
            assert socket.receive_json()["type"] in ("state", "error", "welcome")
    with client.websocket_connect(f"/ws/matches/{match_id}") as socket:
        error = socket.receive_json()
        assert error["code"] == "rate" and error["message"].startswith("too many requests")
        with pytest.raises(WebSocketDisconnect) as closed:
            socket.receive_json()
        assert closed.value.code == 4429


@pytest.mark.parametrize(
    ("kind", "method", "path"),
    [
        (LOOKUP, "GET", "/api/rooms/ABC234"),
        (LOOKUP, "POST", "/api/rooms/ABC234/seats/1"),
        (LOOKUP, "PUT", "/api/sheets/x/deals/1"),
        (LOOKUP, "GET", "/api/matches/x/record"),
        (LOOKUP, None, "/ws/rooms/ABC234"),
        (LOOKUP, None, "/ws/matches/x"),
        (CREATION, "POST", "/api/rooms/ABC234/join"),
        (CREATION, "POST", "/api/matches"),
        (CREATION, "POST", "/api/sheets"),
        (CREATION, "POST", "/api/players"),
        (CREATION, "POST", "/api/pools/strict/join"),
        (REQUEST, "POST", "/api/players/me"),
        (REQUEST, "GET", "/api/pools/strict/place"),
        (REQUEST, "POST", "/api/pools/strict/leave"),
        (REQUEST, "GET", "/api/matches"),
        (REQUEST, "GET", "/static/app.js"),
        (REQUEST, None, "/ws/other"),
    ],
)
def test_what_kind_a_request_is(kind: str, method: str | None, path: str) -> None:
    scope = {"type": "websocket", "path": path}
    assert kind_of(scope | ({"type": "http", "method": method} if method else {})) == kind


@pytest.mark.parametrize(
    ("peer", "counted"),
    [
        ("1.2.3.4", "1.2.3.4"),
        ("::ffff:1.2.3.4", "1.2.3.4"),  # an IPv4 peer of a dual-stack socket
        ("2001:db8::1", "2001:db8::/64"),  # a home's or a machine's IPv6 addresses are one
        ("2001:db8::2:3", "2001:db8::/64"),
        ("::1", "::1"),
        ("testclient", "testclient"),
    ],
)
def test_whose_limits_a_request_counts_against(peer: str, counted: str) -> None:
    assert address_of({"type": "http", "client": (peer, 5000)}) == counted


def test_addresses_whose_buckets_filled_up_again_are_forgotten() -> None:
    limit = PerAddress(rate=1e9, burst=2)  # every bucket is full again at once
    for number in range(50_000):
        assert limit.allow(f"10.0.{number // 256}.{number % 256}")
    assert len(limit._buckets) <= 20_000


def test_active_addresses_are_bounded_too() -> None:
    """Past its bound a class forgets the least recently active addresses, even those whose
    buckets have not filled up again; the most recent ones are still counted."""
    limit = PerAddress(rate=1e-9, burst=1, most=1_000)  # no bucket ever fills up again
    for number in range(5_000):
        assert limit.allow(f"10.1.{number // 256}.{number % 256}")
    assert len(limit._buckets) <= 1_000
    assert not limit.allow("10.1.19.135")  # the last one (4999): remembered, still refused


def test_a_failing_store_is_told_as_such_without_its_detail(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    match_id, token = new_match(client)
    backend = client.app.state.backend  # type: ignore[attr-defined]

    tries = []

    async def unreachable(*_args: Any, **_kwargs: Any) -> bool:
        tries.append(1)
        raise ConnectionError(LEAK)

    # Tried again after each pause (short here), then said.
    monkeypatch.setattr("callbreak.web.backend.STORE_RETRY", (0.01, 0.02))
    with match_socket(client, match_id, token) as socket:
        state = wait_for_my_turn(socket, receive_state(socket))
        monkeypatch.setattr(backend, "append", unreachable)
        socket.send_json(first_legal(state))
        raw = socket.receive_text()
        assert json.loads(raw) == {
            "type": "error",
            "message": "the server could not save that; try again",
            "code": "store",
            "args": {},
        }
        assert len(tries) == 3
        # With the table as it is: nothing of the refused action in it.
        again = receive_state(socket)
        assert again["version"] == state["version"] and again["hand"] == state["hand"]
        # Something else of ours fails: said as such, and the table goes on.
        monkeypatch.setattr("callbreak.web.hints.hint_message", _fails)
        socket.send_json({"type": "hint"})
        raw += socket.receive_text()
        assert json.loads(raw[raw.index("}{") + 1 :]) == {
            "type": "error",
            "message": "the server could not do that; try again",
            "code": "internal",
            "args": {},
        }
        assert receive_state(socket)["version"] == state["version"]
        monkeypatch.undo()
        socket.send_json(first_legal(state))
        assert receive_state(socket)["version"] == state["version"] + 1
    assert not any(word in raw for word in LEAKED), raw
    assert LEAK in caplog.text and "secret" in caplog.text  # the detail is in the log


def _fails(*_args: Any) -> Any:
    raise ValueError("secret: /srv/callbreak/hints.py line 12")


def test_an_http_failure_is_answered_without_its_detail(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async def unreachable(*_args: Any, **_kwargs: Any) -> Any:
        raise ConnectionError(LEAK)

    match_id, token = new_match(client)
    monkeypatch.setattr(client.app.state.backend, "load", unreachable)  # type: ignore[attr-defined]
    answer = client.post("/api/matches/mine", json={"matches": held((match_id, token))})
    assert answer.status_code == 500
    assert answer.json() == {
        "error": "the server could not do that; try again",
        "code": "internal",
        "args": {},
    }
    assert not any(word in answer.text for word in LEAKED)
    assert_secured(answer, "a failure")
    assert LEAK in caplog.text


def test_a_computer_that_cannot_be_seated_is_told_without_the_detail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def unreachable(*_args: Any, **_kwargs: Any) -> Any:
        raise ConnectionError(LEAK)

    match_id, token = new_match(TestClient(create_app(tmp_path / "db.sqlite", limits=FAST)))
    # A restarted server builds the computers again, on their first turn: that fails now.
    monkeypatch.setattr(PlayerSpec, "build", unreachable)
    client = TestClient(create_app(tmp_path / "db.sqlite", limits=FAST))
    with match_socket(client, match_id, token) as socket:
        state = receive_state(socket)
        if state["turn"] == 0:
            socket.send_json(first_legal(state))
        message = socket.receive_json()
        while message["type"] != "error":
            message = socket.receive_json()
    assert re.fullmatch(
        r"cannot seat .+: the server could not start that player", message["message"]
    )
    assert LEAK in caplog.text


# --- owners: nothing of another client's -----------------------------------------------------


def test_a_stranger_cannot_open_another_clients_match_socket(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the match's token (none, another match's, a hello that is no hello, or none
    in time) the socket gets one error and is closed: no hand, no play, no watching."""
    from callbreak.web import messages

    monkeypatch.setattr(messages, "HELLO_SECONDS", 0.2)
    match_id, _token = new_match(client)
    _other, stranger = new_match(client)
    table = client.app.state.tables.live[match_id]  # type: ignore[attr-defined]
    version = table.state.version
    attempts: list[tuple[Any, str, int]] = [
        ({"type": "hello", "token": stranger}, "no such match", 4404),
        ({"type": "hello", "token": "x" * 43}, "no such match", 4404),
        ({"type": "hello", "token": 5}, "no such match", 4404),
        ({"type": "hello"}, "a match needs its token", 4401),
        ({"type": "call", "value": 3, "version": version}, "the first message says", 4401),
        (None, "a match needs its token", 4401),  # nothing said in time
    ]
    for hello, words, code in attempts:
        with client.websocket_connect(f"/ws/matches/{match_id}") as socket:
            if hello is not None:
                socket.send_json(hello)
            answer = socket.receive_json()
            assert answer["type"] == "error" and answer["message"].startswith(words), answer
            with pytest.raises(WebSocketDisconnect) as closed:
                socket.receive_json()
            assert closed.value.code == code
    # The same answer for a match that does not exist.
    with client.websocket_connect("/ws/matches/nope") as socket:
        socket.send_json({"type": "hello", "token": stranger})
        assert socket.receive_json() == NO_SUCH_MATCH
    assert table.state.version == version and not table.hub.connections


def test_a_stranger_gets_no_record_or_replay_of_another_clients_match(
    client: TestClient,
) -> None:
    match_id, token = new_match(client)
    _other, stranger = new_match(client)
    for part in ("record", "replay"):
        address = f"/api/matches/{match_id}/{part}"
        assert client.get(address, headers=owner(token)).status_code == 200
        missing = client.get(address)
        assert missing.status_code == 401
        assert "needs the match's token: Authorization: Bearer" in missing.json()["error"]
        for headers in (owner(stranger), owner("x" * 43), {"Authorization": f"Basic {token}"}):
            wrong = client.get(address, headers=headers)
            assert wrong.status_code in (401, 404) and "record" not in wrong.text
        wrong = client.get(address, headers=owner(stranger))
        unknown = client.get(f"/api/matches/nope/{part}", headers=owner(stranger))
        assert (wrong.status_code, wrong.json()) == (unknown.status_code, unknown.json())
        assert wrong.json() == {"error": "no such match", "code": "no_such_match", "args": {}}


def test_the_history_lists_only_the_matches_the_client_holds(client: TestClient) -> None:
    mine = new_match(client, seed=1)
    theirs = new_match(client, seed=2)
    assert [m["id"] for m in my_matches(client, mine)] == [mine[0]]
    both = my_matches(client, theirs, mine)
    assert sorted(m["id"] for m in both) == sorted([theirs[0], mine[0]])
    assert both[0]["updated"] >= both[1]["updated"]  # the most recently played first
    # Another's id with my token, with a made-up token, an unknown id: not listed, alike.
    assert my_matches(client, (theirs[0], mine[1])) == []
    assert my_matches(client, (theirs[0], "x" * 43)) == []
    assert my_matches(client, ("nope", mine[1])) == []
    assert my_matches(client) == []
    # Nothing lists every match any more.
    assert client.get("/api/matches").status_code == 405
    summary = my_matches(client, mine)[0]
    assert "token" not in json.dumps(summary) and mine[1] not in json.dumps(summary)


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ([], "JSON object"),
        ({"matches": "all"}, "must list"),
        ({"matches": [["id", "token"]]}, "must list"),
        ({"matches": [{"id": 5, "token": "t"}]}, "an id of"),
        ({"matches": [{"id": "x" * 65, "token": "t"}]}, "an id of"),
        ({"matches": [{"id": "a", "token": None}]}, "a token of"),
        ({"matches": [{"id": str(n), "token": "t"} for n in range(501)]}, "at most 500"),
    ],
)
def test_what_a_client_holds_is_checked_and_bounded(
    client: TestClient, body: Any, words: str
) -> None:
    for address in ("/api/matches/mine", "/api/stats"):
        answer = client.post(address, json=body)
        assert answer.status_code == 400 and words in answer.json()["error"], answer.text
    rooms = {"rooms": body["matches"]} if isinstance(body, dict) else body
    answer = client.post("/api/stats", json=rooms)
    assert answer.status_code == 400 and words in answer.json()["error"]
    sheets = {"sheets": body["matches"]} if isinstance(body, dict) else body
    answer = client.post("/api/sheets/mine", json=sheets)
    assert answer.status_code == 400 and words in answer.json()["error"]
    # 500 is allowed.
    five_hundred = [{"id": str(n), "token": "t"} for n in range(500)]
    assert client.post("/api/matches/mine", json={"matches": five_hundred}).json() == []


def test_your_record_counts_only_what_the_clients_tokens_hold(client: TestClient) -> None:
    """Another client's match is not counted with my token or none; in a room the seat is the
    one the token holds, whatever seat the client names."""
    from callbreak.game import Match
    from callbreak.seating import play_match
    from callbreak.web.actions import encode
    from callbreak.web.model import Step
    from callbreak.web.stats import figures, game_of

    theirs = new_match(client, rules="strict(deals=1)")
    play_to_the_end(client, *theirs)
    mine = new_match(client)
    nothing = client.post("/api/stats", json={"matches": held((theirs[0], mine[1]))}).json()
    assert nothing == client.post("/api/stats", json={}).json()
    assert nothing["total"]["matches"] == 0 and nothing["total"]["unfinished"] == 0

    # A room the two people played to its end, whose two seats' figures differ (the server
    # draws the deal: two seats may now and then score alike, and then tell nothing apart).
    for _ in range(10):
        made = client.post(
            "/api/rooms",
            json={"name": "Asha", "seats": [None, "random", "random"], "rules": "classic(deals=1)"},
        ).json()
        code, creator = made["room"], made["token"]
        joined = client.post(f"/api/rooms/{code}/join", json={"name": "Bikash"}).json()
        assert joined["seat"] == 1
        assert client.post(f"/api/rooms/{code}/start", headers=owner(creator)).status_code == 200
        store = client.app.state.store  # type: ignore[attr-defined]
        data = store.load(code)
        match = Match(data.rules, seed=data.seed)
        play_match(match, ["random"] * 4)
        codes = [encode(action) for deal in match.deals for action in deal.actions]
        for version, action in enumerate(codes):
            status = "finished" if version == len(codes) - 1 else "playing"
            assert store.append(code, data.rev, Step(version, action, [], status, None))
        data = store.load(code)
        expected = {seat: figures([game_of(data, seat)]) for seat in (0, 1)}  # type: ignore[list-item]
        if expected[0] != expected[1]:
            break
    assert expected[0] != expected[1]
    for token, seat in ((creator, 0), (joined["token"], 1)):
        rooms = [{"id": code.lower(), "token": token, "seat": 1 - seat}]  # the seat is ignored
        assert client.post("/api/stats", json={"rooms": rooms}).json() == expected[seat]
    stranger = [{"id": code, "token": mine[1]}]
    assert client.post("/api/stats", json={"rooms": stranger}).json() == nothing


def test_a_matchs_owner_holds_it_on_every_process_and_a_stranger_on_none(tmp_path: Path) -> None:
    """Two server processes on one Redis: the match made on one opens with its token on the
    other (socket, record, list, figures), and a stranger's token opens it on neither."""
    from tests.helpers import redis_server

    with (
        redis_server() as url,
        TestClient(create_app(tmp_path / "a.sqlite", url, FAST)) as first,
        TestClient(create_app(tmp_path / "b.sqlite", url, FAST)) as second,
    ):
        match_id, token = new_match(first, rules="strict(deals=1)")
        _other, stranger = new_match(second)
        play_to_the_end(second, match_id, token)
        for client in (first, second):
            assert [m["id"] for m in my_matches(client, (match_id, token))] == [match_id]
            assert my_matches(client, (match_id, stranger)) == []
            record = client.get(f"/api/matches/{match_id}/record", headers=owner(token))
            assert record.status_code == 200 and record.json()["deals"]
            refused = client.get(f"/api/matches/{match_id}/record", headers=owner(stranger))
            assert refused.status_code == 404
            mine = client.post("/api/stats", json={"matches": held((match_id, token))}).json()
            theirs = client.post("/api/stats", json={"matches": held((match_id, stranger))})
            assert mine["total"]["matches"] == 1 and theirs.json()["total"]["matches"] == 0
            with client.websocket_connect(f"/ws/matches/{match_id}") as socket:
                socket.send_json({"type": "hello", "token": stranger})
                assert socket.receive_json() == NO_SUCH_MATCH


# --- names the page words in its language ------------------------------------------------------


def test_a_person_who_gives_no_name_is_stored_with_none_and_the_computers_by_key(
    client: TestClient,
) -> None:
    """No default name is stored: the views send the names as records give them and the keys a
    page words in its own language (docs/web.md, *Names the page words*)."""
    match_id, token = new_match(client, name="   ", rules="strict(deals=1)")
    data = client.app.state.store.load(match_id)  # type: ignore[attr-defined]
    assert data.seats[0].name is None
    with match_socket(client, match_id, token) as socket:
        state = receive_state(socket)
    assert state["names"] == ["You", "Bikash", "Chandra", "Dipa"]
    assert state["name_keys"] == ["you", "computer.0", "computer.1", "computer.2"]
    listed = my_matches(client, (match_id, token))[0]
    assert listed["names"] == state["names"] and listed["name_keys"] == state["name_keys"]
    replay = client.get(f"/api/matches/{match_id}/replay", headers=owner(token)).json()
    assert replay["name_keys"] == state["name_keys"]
    # A game record keeps the English names: it is a file for tools, in no page's language.
    record = client.get(f"/api/matches/{match_id}/record", headers=owner(token)).json()
    assert record["players"] == ["You", "Bikash", "Chandra", "Dipa"]
    # A name given is shown as given.
    named, named_token = new_match(client, name="Asha")
    assert my_matches(client, (named, named_token))[0]["name_keys"][0] is None


@pytest.mark.parametrize("word", ["You", "तपाईं", "आप"])
def test_a_match_whose_page_stored_its_word_for_you_reads_as_unnamed(
    client: TestClient, word: str
) -> None:
    """Before names were left to the page, a page stored "you" in its language of the moment
    (an English history then showed "आप"): such a match reads as a person who gave no name."""
    match_id, token = new_match(client, name=word)
    assert my_matches(client, (match_id, token))[0]["name_keys"][0] == "you"


def test_a_rooms_computers_are_keyed_and_its_people_shown_as_they_typed(
    client: TestClient,
) -> None:
    made = client.post(
        "/api/rooms", json={"name": "आप", "seats": [None, "random", None], "rules": "strict"}
    ).json()
    code = made["room"]
    client.post(f"/api/rooms/{code}/join", json={"name": "Bikash"})
    lobby = client.get(f"/api/rooms/{code}").json()
    # In a room a name is always typed, even one that reads "you": shown as typed to everyone.
    assert [seat["name_key"] for seat in lobby["seats"]] == [None, None, "computer.1", None]
    assert [seat["name"] for seat in lobby["seats"]] == ["आप", "Bikash", "Chandra", None]
