"""Refusals are worded by the page from their code and arguments, never from the server's
English (issue 33): the server words a refusal differently, and the page still says it in its
own words in English, Nepali and Hindi."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from callbreak import refusals
from tests.e2e.table import context

# The catalogues' words for a room with no open seat (static/lang-*.js, refusal.no_open_seat).
NO_OPEN_SEAT = {
    "en": "This room has no open seat.",
    "ne": "यो कोठामा खाली सिट छैन।",
    "hi": "इस कमरे में कोई सीट ख़ाली नहीं है।",
}
REWORDED = "every chair at this table is taken (reworded for the test)"


def post(page: Any, url: str, body: dict[str, Any]) -> Any:
    """A JSON post from ``page``'s browser context."""
    return page.request.post(
        url, data=json.dumps(body), headers={"content-type": "application/json"}
    )


@pytest.mark.parametrize("lang", ["en", "ne", "hi"])
def test_a_reworded_refusal_is_still_worded_by_the_page(
    browser: Any, base_url: str, monkeypatch: pytest.MonkeyPatch, lang: str
) -> None:
    # The server (in this process) now words the refusal otherwise; its code stays.
    status, _ = refusals.WORDS["no_open_seat"]
    monkeypatch.setitem(refusals.WORDS, "no_open_seat", (status, REWORDED))
    ctx = context(browser, lang=lang)
    try:
        page = ctx.new_page()
        made = post(
            page, f"{base_url}/api/rooms", {"name": "Asha", "seats": [None, "random", "random"]}
        )
        assert made.status == 201, made.text()
        code = made.json()["room"]
        # The room's socket, its messages from the server held back once the join form shows: the
        # page goes on believing a seat is open after someone else took it.
        holding = {"on": False}

        def route(ws: Any) -> None:
            upstream = ws.connect_to_server()
            upstream.on_message(lambda message: None if holding["on"] else ws.send(message))

        page.route_web_socket(re.compile(r"/ws/rooms/"), route)
        page.goto(f"{base_url}/#/room/{code}")
        page.wait_for_selector("form.join:not([hidden]) #join-name")
        holding["on"] = True
        taken = post(page, f"{base_url}/api/rooms/{code}/join", {"name": "Bikash"})
        assert taken.ok, taken.text()
        # Joining now is refused by the server, in its new words, with the same code.
        page.fill("#join-name", "Chandra")
        page.click("form.join button[type=submit]")
        problem = page.locator("form.join .error")
        problem.wait_for()
        page.wait_for_function("() => document.querySelector('form.join .error').textContent")
        assert problem.inner_text() == NO_OPEN_SEAT[lang]
        again = post(page, f"{base_url}/api/rooms/{code}/join", {"name": "Dipa"})
        assert again.status == 409
        assert again.json() == {"error": REWORDED, "code": "no_open_seat", "args": {}}
    finally:
        ctx.close()
