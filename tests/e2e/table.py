"""What the browser tests share to play at the table: a browser context at a given size and
language, a match made through the API, and one step of play (whatever the page asks now)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from playwright.sync_api import TimeoutError as PlaywrightTimeout

WIDTHS = {
    "360": {"width": 360, "height": 740},
    "390": {"width": 390, "height": 844},
    "768": {"width": 768, "height": 1024},
    "1366": {"width": 1366, "height": 850},
}
LONG_NAME = "Bhagyalaxmi Shrestha-Rai"  # 24 characters, the most the new-match form takes
assert len(LONG_NAME) == 24

# What a page asks of its person now: the result dialog, a call, a card, or nothing (the match
# over, or someone else's turn, or a card still travelling).
TURN = """() => {
  if (document.querySelector('dialog.result[open]')) return 'dialog';
  if (document.querySelector('.play-page[data-over]')) return 'over';
  if (document.querySelector('.calling:not([hidden]) button.call')) return 'call';
  if (document.querySelector('.hand.active .card.playable:not(.gone)')) return 'play';
  return null;
}"""


TOKENS: dict[str, str] = {}
"""The token of each match and sheet these tests made through the API, by id."""


def context(
    browser: Any,
    width: str = "1366",
    lang: str = "en",
    pause: str = "off",
    motion: bool = False,
    held: Sequence[tuple[str, str]] = (),
    **options: Any,
) -> Any:
    """A fresh browser context (its own storage) at one of the WIDTHS, in a language, with the
    finished trick's pause and motion as asked (off by default, to keep the tests quick),
    holding the tokens of the ``held`` (kind, id) pairs ("match" or "sheet")."""
    made = browser.new_context(
        viewport=WIDTHS[width],
        reduced_motion="no-preference" if motion else "reduce",
        is_mobile=int(width) < 700,
        has_touch=int(width) < 700,
        **options,
    )
    made.add_init_script(
        f"localStorage.setItem('callbreak:lang', {json.dumps(lang)});"
        f"localStorage.setItem('callbreak:pause', {json.dumps(pause)});"
    )
    for kind, table_id in held:
        hold(made, kind, table_id)
    made.set_default_timeout(20_000)
    return made


def hold(browser_context: Any, kind: str, table_id: str) -> None:
    """Keep the token of a match or sheet in the context's storage, as the page that made it
    does (common.js): the page opens it, and the history lists it, only then."""
    key = json.dumps(f"callbreak:{kind}:{table_id}")
    entry = json.dumps(json.dumps({"token": TOKENS[table_id], "since": 1}))
    script = f"localStorage.setItem({key}, {entry});"
    browser_context.add_init_script(script)  # for the pages loaded from now on
    for page in browser_context.pages:  # and those loaded already (a new hash loads nothing)
        if page.url.startswith("http"):
            page.evaluate(script)


def new_match(
    page: Any,
    base_url: str,
    rules: str = "strict",
    name: str = "Asha",
    level: str = "random",
    speed: str = "instant",
    seed: str | None = None,
) -> str:
    """A match against three computers made through the API (its hands and the computers'
    choices from ``seed``, when given), held by the page's context; its id (its token in
    TOKENS)."""
    body: dict[str, Any] = {"rules": rules, "name": name, "opponents": [level] * 3, "speed": speed}
    if seed is not None:
        body["seed"] = seed
    answer = page.request.post(
        base_url + "/api/matches",
        data=json.dumps(body),
        headers={"content-type": "application/json"},
    )
    assert answer.status == 201, answer.text()
    match_id = str(answer.json()["id"])
    TOKENS[match_id] = str(answer.json()["token"])
    hold(page.context, "match", match_id)
    return match_id


def new_sheet(page: Any, base_url: str, body: dict[str, Any]) -> str:
    """A scoresheet made through the API, held by the page's context; its id."""
    answer = page.request.post(
        f"{base_url}/api/sheets",
        data=json.dumps(body),
        headers={"content-type": "application/json"},
    )
    assert answer.status == 201, answer.text()
    sheet_id = str(answer.json()["id"])
    TOKENS[sheet_id] = str(answer.json()["token"])
    hold(page.context, "sheet", sheet_id)
    return sheet_id


def bearer(table_id: str) -> dict[str, str]:
    """The JSON content type and the token of a match or sheet these tests made."""
    return {"content-type": "application/json", "authorization": f"Bearer {TOKENS[table_id]}"}


def turn(page: Any) -> str | None:
    """What the page asks now: 'dialog', 'over', 'call', 'play' or None."""
    return page.evaluate(TURN)  # type: ignore[no-any-return]


def step(page: Any, close_dialogs: bool = True, asked: str | None = "?") -> str | None:
    """Do what the page asks now (close a summary, call the lowest, play the first legal
    card), or what it `asked` when the caller read it; return what that was. A page that moved
    on meanwhile is simply asked again."""
    now = turn(page) if asked == "?" else asked
    try:
        if now == "dialog" and close_dialogs:
            page.locator("dialog.result[open] button.primary").click(timeout=3_000)
        elif now == "call":
            page.locator(".calling:not([hidden]) button.call").first.click(timeout=3_000)
        elif now == "play":
            page.locator(".hand.active .card.playable:not(.gone)").first.click(timeout=3_000)
        else:
            page.wait_for_timeout(20)
    except PlaywrightTimeout:
        return None
    return now


def play_until(page: Any, done: str, limit: int = 2_000) -> None:
    """Step until the page asks `done` ('dialog', 'over', 'call', 'play')."""
    for _ in range(limit):
        # What the page asks is read once: a summary that opens meanwhile is not closed unseen.
        now = turn(page)
        if now == done:
            return
        step(page, asked=now)
    status = page.locator(".status-box").all_inner_texts()
    raise AssertionError(f"the page never asked for {done!r} at {page.url}; it says {status}")


def sideways(page: Any) -> int:
    """How far the page scrolls sideways (0 when it fits its viewport)."""
    return int(
        page.evaluate(
            "Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)"
            " - document.documentElement.clientWidth"
        )
    )


def finish(base_url: str, match_id: str) -> None:
    """Play a match these tests made to its end through its socket, as a quick person would
    (the lowest call, the first legal card), with no page open."""
    play_deals(base_url, match_id)


def play_deals(base_url: str, match_id: str, deals: int | None = None) -> None:
    """Play ``deals`` deals of a match these tests made (None: to its end) through its socket,
    as a quick person would (the lowest call, the first legal card), with no page open; with
    ``deals``, each deal's summary is taken as seen, so that the next deal is dealt."""
    play_to(base_url, match_id, deals=deals)


def play_to(
    base_url: str,
    match_id: str,
    deals: int | None = None,
    tricks: int | None = None,
    room_token: str | None = None,
) -> None:
    """Play a match these tests made through its socket, as a quick person would (the lowest
    call, the first legal card), with no page open: to its end, or until ``deals`` deals are
    scored (each deal's summary taken as seen, so that the next deal is dealt), or until
    ``tricks`` tricks of the deal in play are taken (the page then opens at its next trick).
    With ``room_token``, ``match_id`` is a room's code and the seat that token holds plays."""
    from websockets.sync.client import connect

    kind = "rooms" if room_token else "matches"
    address = base_url.replace("http://", "ws://") + f"/ws/{kind}/{match_id}"
    with connect(address) as socket:
        socket.send(json.dumps({"type": "hello", "token": room_token or TOKENS[match_id]}))
        if deals is not None:
            socket.send(json.dumps({"type": "seen", "deals": 99}))
        for _ in range(5_000):
            message = json.loads(socket.recv(timeout=20))
            if message.get("type") != "state":
                continue
            state = message["state"]
            if state["match_over"] or (deals is not None and len(state["results"]) >= deals):
                return
            if tricks is not None and state["tricks_played"] >= tricks:
                return
            if state["turn"] != state["seat"]:
                continue
            if state["legal_calls"]:
                action = {"type": "call", "value": state["legal_calls"][0]}
            elif state["legal"]:
                action = {"type": "play", "card": state["legal"][0]}
            else:
                continue
            socket.send(json.dumps({**action, "version": state["version"]}))
    what = "end" if deals is None and tricks is None else f"reach {deals} deals, {tricks} tricks"
    raise AssertionError(f"match {match_id} did not {what}")


def cards_shown(page: Any) -> int:
    """The cards a replay shows still held: the bottom seat's hand and the others' suit lines."""
    hand = page.locator(".replay .hand .card:not(.gone)").count()
    ranks = page.locator(".replay .held .ranks b").all_inner_texts()
    return int(hand) + len([rank for rank in ranks if rank != "—"])
