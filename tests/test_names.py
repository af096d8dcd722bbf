"""The one check of a typed name (``callbreak.names``), and what every endpoint that takes a name
or an id does with the inputs of issue 39 (defects 7 and 8): emoji sequences and Devanagari with
its joiners kept as typed, NUL, ESC, the right-to-left override, invisible names and 10 kB
refused by code, a lone UTF-16 surrogate refused by code wherever it comes (a body, a socket's
hello), never a 500, on this process's SQLite and on a real Redis."""

from __future__ import annotations

import json
import sys
import unicodedata
import urllib.parse
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from callbreak.errors import InvalidNameError
from callbreak.names import MAX_NAME, check_name
from callbreak.web.app import create_app
from tests.helpers import FAST

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"  # 👨‍👩‍👧‍👦, 7 code points
RAINBOW = "\U0001f3f3\ufe0f\u200d\U0001f308"  # 🏳️‍🌈: a variation selector, then the joiner
WALES = "\U0001f3f4\U000e0067\U000e0062\U000e0077\U000e006c\U000e0073\U000e007f"  # a tag flag
KSHA = "क्\u200dष"  # the conjunct, its joiner kept (rooms used to drop it: क्ष)
NEPALI = "श्\u200cरी"  # a non-joiner that keeps the virama shown
SKIN = "\U0001f44b\U0001f3fd Asha"  # a wave with a skin tone, then a name

GOOD = [
    (FAMILY, FAMILY),
    (RAINBOW, RAINBOW),
    (WALES, WALES),
    (KSHA, KSHA),
    (NEPALI, NEPALI),
    (SKIN, SKIN),
    ("Zoe\u0308", "Zoë"),  # NFC: the e and its diaeresis are one character
    ("  Ann \u00a0 Lee\n", "Ann Lee"),  # ends trimmed, a run of spaces inside made one
    ("<img src=x onerror=f()>", "<img src=x onerror=f()>"),  # kept as text, shown as text
    ("x" * MAX_NAME, "x" * MAX_NAME),
    ("\U0001fae8", "\U0001fae8"),  # an emoji newer than this Python's tables (Cn here): kept
]
BAD = [  # (typed, the problem, its blanks)
    ("A\x00B", "control", {"char": "U+0000"}),
    ("\x1b[31mRed", "control", {"char": "U+001B"}),
    ("Ann\u202eeoJ", "control", {"char": "U+202E"}),
    ("\u2066Ann\u2069", "control", {"char": "U+2066"}),
    ("Ann\u200bLee", "control", {"char": "U+200B"}),  # a zero-width space: no joiner of a script
    ("Ann\u200d", "control", {"char": "U+200D"}),  # a joiner at the end joins nothing
    ("A\tB", "control", {"char": "U+0009"}),
    ("\ud800", "control", {"char": "U+D800"}),
    ("\u200b\u200b", "empty", {}),  # invisible
    # Unassigned, but reserved as default-ignorable: a browser shows nothing for them, ever.
    ("\u2065\u2065", "empty", {}),
    ("\ufff0", "empty", {}),
    ("\U000e0080", "empty", {}),
    ("Ann\u2065Lee", "control", {"char": "U+2065"}),
    ("Ann\U000e01f0", "control", {"char": "U+E01F0"}),
    # Noncharacters: never characters, in any version of Unicode.
    ("\uffff", "empty", {}),
    ("A\ufdd0", "control", {"char": "U+FDD0"}),
    ("A\U0010fffe", "control", {"char": "U+10FFFE"}),
    # Tags only as a flag's sequence, ended by the cancel tag: without it they hide text.
    (
        "\U0001f3f4" + "".join(chr(0xE0000 + ord(c)) for c in "hidden"),
        "control",
        {"char": "U+E006E"},
    ),
    ("Ann\U000e007f", "control", {"char": "U+E007F"}),
    ("\u3164", "empty", {}),  # the Hangul filler shows nothing
    ("   ", "empty", {}),
    ("", "empty", {}),
    ("x" * (MAX_NAME + 1), "long", {"max": MAX_NAME}),
    ("x" * 10_000, "long", {"max": MAX_NAME}),
    (None, "not_text", {}),
    (7, "not_text", {}),
]


@pytest.mark.parametrize(("typed", "kept"), GOOD)
def test_a_name_is_kept_as_typed_in_nfc(typed: str, kept: str) -> None:
    assert check_name(typed) == kept == unicodedata.normalize("NFC", kept)


@pytest.mark.parametrize(("typed", "problem", "blanks"), BAD)
def test_a_name_that_cannot_be_one_is_refused_never_cut(
    typed: object, problem: str, blanks: dict[str, Any]
) -> None:
    with pytest.raises(InvalidNameError) as refused:
        check_name(typed)
    assert (refused.value.problem, refused.value.blanks) == (problem, blanks)


# --- through every endpoint ------------------------------------------------------------------

SURROGATE = "\ud800"
INPUTS = {  # the inputs, by the code a name with them is refused with (None: kept)
    "family": (FAMILY, None),
    "rainbow": (RAINBOW, None),
    "ksha": (KSHA, None),
    "nepali": (NEPALI, None),
    "nul": ("A\x00B", "control"),
    "esc": ("\x1b[31mRed", "control"),
    "rlo": ("Ann\u202eeoJ", "control"),
    "surrogate": (SURROGATE, "surrogate"),
    "surrogate_in_text": (f"Ann{SURROGATE}", "surrogate"),
    "invisible": ("\u200b\u200b", "empty"),
    "10kB": ("x" * 10_000, "long"),
}


@pytest.fixture(params=["sqlite", "redis"])
def client(request: Any, tmp_path: Path) -> Any:
    """The app on this process's SQLite, or on a real Redis (flushed for each test)."""
    url = None
    if request.param == "redis":
        import redis

        url = request.getfixturevalue("redis_url")
        redis.Redis.from_url(url).flushdb()
    with TestClient(create_app(tmp_path / "db.sqlite", url, FAST, ping_seconds=3600)) as client:
        yield client


def send(client: TestClient, method: str, path: str, body: Any, token: str = "") -> Any:
    """A request whose JSON is written with escapes, as a browser's JSON.stringify writes a lone
    surrogate (``"\\ud800"``), which no UTF-8 encoder would take."""
    headers = {"content-type": "application/json"}
    if token:
        headers["authorization"] = f"Bearer {token}"
    return client.request(method, path, content=json.dumps(body).encode(), headers=headers)


def refused_as(answer: Any, code: str, **args: Any) -> None:
    assert answer.status_code == 400, answer.text
    body = answer.json()
    assert body["code"] == code, body
    for key, value in args.items():
        assert body["args"][key] == value, body


def name_code(problem: str, sheet: bool = False) -> str:
    if problem == "surrogate":
        return "surrogate"
    prefix = "sheet_name_" if sheet else "name_"
    return prefix + {"control": "control", "empty": "empty", "long": "long"}[problem]


@pytest.mark.parametrize("which", list(INPUTS))
def test_every_endpoint_that_takes_a_name(client: TestClient, which: str) -> None:
    """A match's name, a room's creator and joiner, a sheet's players (made and checked): the
    same name kept the same way everywhere, or refused by the same code, and nothing stored."""
    typed, problem = INPUTS[which]
    kept = None if problem else check_name(typed)
    made = send(client, "POST", "/api/matches", {"name": typed, "opponents": ["random"] * 3})
    room = send(client, "POST", "/api/rooms", {"name": typed, "seats": [None, "random", "random"]})
    ok_room = send(client, "POST", "/api/rooms", {"name": "Asha", "seats": [None, "random", None]})
    joined = send(client, "POST", f"/api/rooms/{ok_room.json()['room']}/join", {"name": typed})
    names = [typed, "Bob", "Cy", "Dee"]
    sheet = send(client, "POST", "/api/sheets", {"names": names})
    checked = send(client, "POST", "/api/sheets/check", {"names": names})
    if problem:
        for answer in (made, room, joined):
            refused_as(answer, name_code(problem))
        for answer in (sheet, checked):
            refused_as(answer, name_code(problem, sheet=True))
            if problem != "surrogate":
                assert answer.json()["args"]["seat"] == 1
        return
    assert made.status_code == 201, made.text
    match, token = made.json()["id"], made.json()["token"]
    listed = send(client, "POST", "/api/matches/mine", {"matches": [{"id": match, "token": token}]})
    assert listed.status_code == 200 and listed.json()[0]["names"][0] == kept
    replay = client.get(
        f"/api/matches/{match}/replay", headers={"authorization": f"Bearer {token}"}
    )
    assert replay.status_code == 200 and replay.json()["record"]["players"][0] == kept
    assert room.status_code == 201, room.text
    lobby = client.get(f"/api/rooms/{room.json()['room']}").json()
    assert lobby["seats"][0]["name"] == kept
    assert joined.status_code == 200, joined.text
    lobby = client.get(f"/api/rooms/{ok_room.json()['room']}").json()
    assert lobby["seats"][1]["name"] == kept
    assert sheet.status_code == 201 and sheet.json()["names"][0] == kept
    assert checked.status_code == 200 and checked.json()["names"][0] == kept


IDS = {  # an id or a token as a client may send it, and the code it is refused with (None: unknown)
    "nul": ("a\x00b", None),
    "esc": ("\x1b[31m", None),
    "rlo": ("a\u202eb", None),
    "devanagari": (KSHA, None),
    "surrogate": (SURROGATE, "surrogate"),
    "10kB": ("x" * 10_000, "held"),
}


@pytest.mark.parametrize("which", list(IDS))
def test_every_endpoint_that_takes_an_id_or_a_token(client: TestClient, which: str) -> None:
    """The lists a client holds (matches, sheets, the figures), a match's seed, a path's id and
    a socket's hello: an id or token no table has is simply not found, one too long is refused
    by the lists' code, a lone surrogate by its own code; never a 500, never a dropped socket."""
    given, problem = IDS[which]
    held = [{"id": given, "token": "t"}, {"id": "fine", "token": given}]
    answers = {
        "matches": send(client, "POST", "/api/matches/mine", {"matches": held}),
        "sheets": send(client, "POST", "/api/sheets/mine", {"sheets": held}),
        "stats": send(client, "POST", "/api/stats", {"matches": held, "rooms": held}),
    }
    for key, answer in answers.items():
        if problem is None:
            assert answer.status_code == 200, (key, answer.text)
            assert key == "stats" or answer.json() == [], (key, answer.text)
        elif problem == "held":
            refused_as(answer, "held_id", max=64)
        else:
            refused_as(answer, problem)
    seeded = send(client, "POST", "/api/matches", {"seed": given, "opponents": ["random"] * 3})
    if problem == "surrogate":
        refused_as(seeded, "surrogate")
    elif problem == "held":
        refused_as(seeded, "seed_length")
    else:  # any other text is a seed: it is stored, and read back
        assert seeded.status_code == 201, seeded.text
        made = seeded.json()
        replay = client.get(
            f"/api/matches/{made['id']}/replay",
            headers={"authorization": f"Bearer {made['token']}"},
        )
        assert replay.status_code == 200
    # In a path: percent-escaped as a browser does (a surrogate as the bytes it would be).
    escaped = urllib.parse.quote(given.encode("utf-8", "surrogatepass"), safe="")
    token = {"authorization": "Bearer t"}
    for path in (
        f"/api/matches/{escaped}/replay",
        f"/api/matches/{escaped}/record",
        f"/api/matches/{escaped}/review",
        f"/api/rooms/{escaped}",
        f"/api/rooms/{escaped}/replay",
        f"/api/sheets/{escaped}",
        f"/api/sheets/{escaped}/export.json",
    ):
        assert client.get(path, headers=token).status_code == 404, path
    # A socket's hello: the token refused by code, the socket closed with one.
    made = send(client, "POST", "/api/matches", {"opponents": ["random"] * 3}).json()
    with client.websocket_connect(f"/ws/matches/{made['id']}") as socket:
        socket.send_text(json.dumps({"type": "hello", "token": given}))
        told = socket.receive_json()
        expected = {"surrogate": "surrogate", "held": "message_long"}.get(
            problem or "", "no_such_match"
        )
        assert told["type"] == "error" and told["code"] == expected, told
        closed = socket.receive()
        assert closed["type"] == "websocket.close" and closed["code"] in (4401, 4404)
    room = send(client, "POST", "/api/rooms", {"name": "Asha", "seats": [None, "random", None]})
    with client.websocket_connect(f"/ws/rooms/{room.json()['room']}") as socket:
        socket.send_text(json.dumps({"type": "hello", "token": given}))
        while (told := socket.receive_json())["type"] != "error":
            pass  # the room as a spectator sees it
        expected = {"surrogate": "surrogate", "held": "message_long"}.get(problem or "", "watching")
        assert told["code"] == expected, told
        # Watching, as a socket without a token does; any later message is refused the same.
        socket.send_text(json.dumps({"type": "play", "card": given}))
        while (heard := socket.receive_json())["type"] != "error":
            pass
        then = {"surrogate": "surrogate", "held": "message_long"}.get(problem or "", "spectator")
        assert heard["code"] == then, heard


def strict_json(text: str) -> Any:
    """``text`` read as a browser's JSON.parse reads it: no NaN or Infinity."""

    def refuse(constant: str) -> Any:
        raise ValueError(f"{constant} is no JSON")

    return json.loads(text, parse_constant=refuse)


def test_nan_and_infinity_in_a_body_are_refused_by_code(client: TestClient) -> None:
    """json.loads takes NaN and Infinity; a refusal that quoted them back was a 500."""
    sheet = send(client, "POST", "/api/sheets", {"names": ["A", "B", "C", "D"]}).json()
    nan, inf = float("nan"), float("inf")
    answers = [
        send(client, "POST", "/api/matches", {"speed": nan}),
        send(client, "POST", "/api/rooms", {"name": "Asha", "speed": inf}),
        send(client, "POST", "/api/matches", {"seed": -inf}),
        send(
            client,
            "POST",
            f"/api/sheets/{sheet['id']}/deals/1/check",
            {"calls": [nan, 3, 3, 3], "tricks": [3, 3, 3, 4]},
            sheet["token"],
        ),
    ]
    for answer in answers:
        refused_as(answer, "body_not_json")


def test_a_socket_message_with_nan_is_refused_and_nothing_sent_is_not_json(
    client: TestClient,
) -> None:
    made = send(client, "POST", "/api/matches", {"opponents": ["random"] * 3}).json()
    with client.websocket_connect(f"/ws/matches/{made['id']}") as socket:
        socket.send_text(json.dumps({"type": "hello", "token": made["token"]}))
        heard = [socket.receive_text(), socket.receive_text()]  # welcome, state
        # A seat or a speed is quoted back in its refusal: as NaN, which no page can read.
        for text in (
            '{"type": "call", "value": 3, "seat": NaN}',
            '{"type": "settings", "speed": Infinity}',
        ):
            socket.send_text(text)
            while strict_json(told := socket.receive_text())["type"] != "error":
                heard.append(told)
            assert strict_json(told)["code"] == "message_not_json", told
        for text in heard:
            strict_json(text)


def test_a_hello_of_any_depth_is_answered_and_closed_with_a_code(tmp_path: Path) -> None:
    """A hello as deep as the parser takes was dropped with no close code (its text check ran
    out of stack a few frames deeper than the parser had)."""
    app = create_app(tmp_path / "db.sqlite", None, FAST, ping_seconds=3600)
    with TestClient(app) as client:
        made = send(client, "POST", "/api/matches", {"opponents": ["random"] * 3}).json()
        for depth in range(sys.getrecursionlimit() - 100, sys.getrecursionlimit() + 20):
            with client.websocket_connect(f"/ws/matches/{made['id']}") as socket:
                socket.send_text('{"type": "hello", "x": ' + "[" * depth + "]" * depth + "}")
                told = socket.receive_json()
                assert told["type"] == "error", (depth, told)
                assert told["code"] in ("hello_needed", "message_not_json"), (depth, told)
                assert socket.receive()["code"] == 4401, depth
