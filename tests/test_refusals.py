"""Refusals as codes with arguments (``callbreak.refusals``): the one list of codes is the one the
docs list and the pages word, and the one exception handler answers every error with its code."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.testclient import TestClient

from callbreak.errors import CallbreakError, IllegalPlayError, InvalidRulesError
from callbreak.refusals import LOBBY, WORDS, Refusal, check_text, handler, read_json, read_object

ROOT = Path(__file__).parent.parent
STATIC = ROOT / "src" / "callbreak" / "web" / "static"
ROW = re.compile(r"^\| `(\w+)` \| (\d{3}) \|", re.MULTILINE)


def listed(page: str) -> dict[str, int]:
    """The codes a page of the docs lists in its tables of refusals, with their statuses."""
    return {code: int(status) for code, status in ROW.findall((ROOT / "docs" / page).read_text())}


def test_the_docs_list_every_code_with_its_status() -> None:
    rooms, web = listed("rooms.md"), listed("web.md")
    assert rooms == {code: status for code, (status, _) in LOBBY.items()}
    assert web == {code: status for code, (status, _) in WORDS.items() if code not in LOBBY}


@pytest.mark.parametrize("lang", ["en", "ne", "hi"])
def test_every_language_words_every_code(lang: str) -> None:
    text = (STATIC / f"lang-{lang}.js").read_text()
    assert set(re.findall(r'^  "refusal\.(\w+)":', text, re.MULTILINE)) == set(WORDS)


def test_the_pages_never_read_the_servers_english() -> None:
    """No page compares or matches a server's words: they key on the code."""
    for path in STATIC.glob("*.js"):
        text = path.read_text()
        if not path.name.startswith("lang-"):  # the catalogues word them, of course
            assert '"no such' not in text, path.name
        assert not re.search(r"\.message\s*===|\.message\)\.startsWith|SERVER_MESSAGES", text)


def refused(error: Exception) -> tuple[int, object]:
    """How an app with the one handler answers a route that raises ``error``."""

    async def route(_request: Request) -> Response:
        raise error

    app = Starlette(routes=[Route("/", route)], exception_handlers={CallbreakError: handler})
    answer = TestClient(app).get("/")
    return answer.status_code, answer.json()


def test_a_refusal_is_answered_with_its_status_code_and_arguments() -> None:
    assert refused(Refusal("seat_taken", seat=2)) == (
        409,
        {"error": "seat 2 is taken: open it first", "code": "seat_taken", "args": {"seat": 2}},
    )
    assert refused(Refusal("no_such_room")) == (
        404,
        {"error": "no such room", "code": "no_such_room", "args": {}},
    )


def test_the_packages_other_errors_are_answered_by_a_code_too() -> None:
    status, body = refused(InvalidRulesError("unknown profile 'snap'"))
    assert (status, body) == (
        400,
        {
            "error": "unknown profile 'snap'",
            "code": "bad_rules",
            "args": {"detail": "unknown profile 'snap'"},
        },
    )
    assert refused(IllegalPlayError("illegal 4H"))[1]["code"] == "illegal_play"  # type: ignore[index]
    assert refused(CallbreakError("no"))[1] == {
        "error": "no",
        "code": "refused",
        "args": {"detail": "no"},
    }


def test_every_code_words_its_arguments() -> None:
    """Each code's English words are made from the arguments its raisers give."""
    samples = {
        "rate": {"seconds": 3},
        "token_needed": {"held": "sheet"},
        "unknown_level": {"level": "grandmaster", "levels": ["random", "expert"]},
        "level_option": {"level": "expert", "option": "depth", "options": [["time", [0.1, 2]]]},
        "speed": {"speed": "warp", "speeds": ["slow", "fast"]},
        "sheet_won": {"winners": [{"name": "Ann", "call": 9}]},
        "sheet_correction": {"deal": 2, "winners": [{"name": "Ann", "call": 8}]},
        "entries_list": {"field": "calls"},
        "call_not_whole": {"name": "Ann", "value": "2"},
        "tricks_range": {"name": "Ann", "value": 14},
        "avatar": {"avatars": ["sun", "moon"]},
        "no_such_pool": {"pools": ["strict", "bhoos"]},
        "reaction": {"reactions": ["thumbs", "heart"]},
    }
    assert str(Refusal("rate")).startswith("too many connections")
    assert str(Refusal("token_needed", held="sheet")).startswith("this needs the scoresheet's")
    assert str(Refusal("level_option", **samples["level_option"])) == (
        "expert takes only time 0.1-2 here, not 'depth'"
    )
    for code, (_, words) in WORDS.items():
        args = samples.get(code)
        if args is None:
            assert isinstance(words, str), code
            args = dict.fromkeys(re.findall(r"(?<!\{)\{(\w+)", words), 1)
        assert str(Refusal(code, **args)), code


def test_the_body_reader_refuses_by_code() -> None:
    async def route(request: Request) -> Response:
        await read_object(request)
        return Response("ok")

    app = Starlette(
        routes=[Route("/", route, methods=["POST"])], exception_handlers={CallbreakError: handler}
    )
    client = TestClient(app)
    codes = [
        client.post("/", content=b"[]", headers={"content-type": "application/json"}),
        client.post("/", content=b"{", headers={"content-type": "application/json"}),
        client.post("/", content=b"{}", headers={"content-type": "text/plain"}),
        client.post("/", content=b"x" * 70_000, headers={"content-type": "application/json"}),
    ]
    assert [(a.status_code, a.json()["code"]) for a in codes] == [
        (400, "body_not_object"),
        (400, "body_not_json"),
        (400, "body_type"),
        (413, "body_too_large"),
    ]
    ok = client.post("/", content=b"{}", headers={"content-type": "application/json"})
    assert ok.text == "ok"


def nested(depth: int, inner: Any) -> Any:
    """``inner`` at the bottom of ``depth`` lists and objects, built without recursion."""
    value = inner
    for level in range(depth):
        value = [value] if level % 2 else {"a": value}
    return value


def test_the_text_check_walks_any_depth_the_parser_took() -> None:
    # As deep as json.loads goes, the check must not give up on the way down (a RecursionError
    # there was a 500 for a body of about 960 levels, and a socket dropped with no close code).
    deep = sys.getrecursionlimit() + 100
    check_text(nested(deep, "fine"))
    with pytest.raises(Refusal) as refused:
        check_text(nested(deep, "\ud800"))
    assert refused.value.code == "surrogate"


def body_app() -> TestClient:
    async def route(request: Request) -> Response:
        await read_json(request)
        return Response("ok")

    app = Starlette(
        routes=[Route("/", route, methods=["POST"])], exception_handlers={CallbreakError: handler}
    )
    return TestClient(app)


def test_a_body_of_any_depth_is_read_or_refused_by_code() -> None:
    client = body_app()
    for depth in range(1, sys.getrecursionlimit() + 50):
        text = "[" * depth + "]" * depth
        answer = client.post(
            "/", content=text.encode(), headers={"content-type": "application/json"}
        )
        assert answer.status_code in (200, 400), (depth, answer.text)
        assert answer.status_code == 200 or answer.json()["code"] == "body_not_json", depth


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_not_json(constant: str) -> None:
    # json.loads takes them, but no answer can carry them back (a refusal that quotes the value
    # was a 500) and a browser's JSON.parse refuses them.
    client = body_app()
    answer = client.post(
        "/",
        content=f'{{"x": [1, {constant}]}}'.encode(),
        headers={"content-type": "application/json"},
    )
    assert (answer.status_code, answer.json()["code"]) == (400, "body_not_json")
