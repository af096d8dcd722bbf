"""Rooms in real headless Chromium: four people (four browser contexts) play a whole match through
the invite link while a fifth watches; a person who closes their browser mid-deal is covered by
the computer and gets the seat back from the stored token; a room made from the home page and
its lobby (copy the link, join by code, move, open, seat a computer, leave with a confirmation);
a stale click from a second tab; the history's replay of a room; screenshots at phone and
desktop width.

Every state a page receives is checked against the server's table: no card of another seat's
hand, and none at all for the spectator, in its socket messages or in its page. A name made of
markup shows as typed and runs nothing."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from callbreak.web.view import lobby_json
from tests.e2e.table import cards_shown
from tests.fairness import hidden_cards_seen

# Markup as a name, within the 24 characters every name may hold (callbreak.names).
XSS = "<img src=x onerror=f()>"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 360, "height": 740}

# What a page asks of its person now: the result dialog, a call, a card, or nothing (the match
# over, or someone else's turn).
TURN = """() => {
  if (document.querySelector('dialog.result[open]')) return 'dialog';
  if (/Match over/.test(document.querySelector('.status')?.textContent || '')) return 'over';
  if (document.querySelector('.calling:not([hidden]) button.call')) return 'call';
  if (document.querySelector('.hand.active .card.playable:not(.gone)')) return 'play';
  return null;
}"""


class People:
    """Browser contexts opened by a test, each with its frames and the dialogs that fired."""

    def __init__(self, browser: Any, base_url: str) -> None:
        self.browser = browser
        self.base_url = base_url
        self.contexts: list[Any] = []
        self.frames: dict[Any, list[str]] = {}
        self.dialogs: list[str] = []

    def open(self, viewport: dict[str, int] = DESKTOP, storage: Any = None, **options: Any) -> Any:
        """A new person (their own storage, unless ``storage`` is given) with a blank page."""
        options.setdefault("reduced_motion", "reduce")  # quicker: motion has its own tests
        context = self.browser.new_context(viewport=viewport, storage_state=storage, **options)
        context.add_init_script("localStorage.setItem('callbreak:pause', 'off')")
        self.contexts.append(context)
        return self.page_in(context)

    def page_in(self, context: Any) -> Any:
        """Another tab of ``context``, its socket frames and dialogs recorded."""
        page = context.new_page()
        page.set_default_timeout(20_000)
        frames: list[str] = []
        self.frames[page] = frames
        page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(f)))

        def dialog(d: Any) -> None:
            self.dialogs.append(d.message)
            d.dismiss()

        page.on("dialog", dialog)
        return page

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def people(browser: Any, base_url: str) -> Iterator[People]:
    crowd = People(browser, base_url)
    yield crowd
    crowd.close()


def create_room(base_url: str, page: Any, **body: Any) -> tuple[str, str]:
    """A room made over the API (for rules the form does not offer, such as one deal), its
    token kept in ``page``'s storage as the page itself keeps it; returns code and token."""
    answer = page.request.post(
        base_url + "/api/rooms",
        data=json.dumps({"name": "Asha", **body}),
        headers={"content-type": "application/json"},
    )
    assert answer.status == 201, answer.text()
    room = answer.json()
    page.goto(base_url + "/#/history")
    page.evaluate(
        "([code, entry]) => localStorage.setItem('callbreak:room:' + code, JSON.stringify(entry))",
        [room["room"], {"token": room["token"], "seat": 0, "since": 0}],
    )
    return str(room["room"]), str(room["token"])


def join(page: Any, base_url: str, code: str, name: str) -> int:
    """Open the invite link and join with ``name``; the seat the page says it has."""
    page.goto(f"{base_url}/#/room/{code}")
    page.fill("#join-name", name)
    page.click("form.join button[type=submit]")
    row = page.locator(".seat-row.mine")
    row.wait_for()
    return int(row.get_attribute("data-seat"))


def stored(page: Any, code: str) -> Any:
    """What ``page``'s browser keeps for room ``code``: {token, seat, ...} or None."""
    return page.evaluate(f"JSON.parse(localStorage.getItem('callbreak:room:{code}'))")


def act(page: Any) -> str | None:
    """Do what the page asks now (close a dialog, call, play the first legal card)."""
    turn = page.evaluate(TURN)
    try:
        if turn == "dialog":
            dialog = page.locator("dialog.result[open]")
            assert "null" not in dialog.evaluate(
                "d => [...d.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent)"
            )
            dialog.locator("button.primary").click(timeout=5_000)
        elif turn == "call":
            page.locator(".calling:not([hidden]) button.call").first.click(timeout=5_000)
        elif turn == "play":
            page.locator(".hand.active .card.playable:not(.gone)").first.click(timeout=5_000)
    except PlaywrightTimeout:
        return None  # the page moved on meanwhile: ask again
    return turn


def played_cards(table: Any) -> set[str]:
    """Every card played face up so far in the deals of ``table``."""
    cards = set()
    for deal in list(table.state.match.deals):
        for trick in [*list(deal.tricks), deal.trick]:
            cards |= {str(card) for card in list(trick.cards)}
    return cards


def assert_fair(table: Any, frames: list[str], seat: int | None) -> None:
    data = table.state.data
    leaks = hidden_cards_seen(frames, seat, data.rules, data.seed, data.actions)
    assert leaks == [], f"seat {seat} was sent {leaks[:5]}"


def test_four_people_play_a_room_through_the_invite_link(
    people: People, base_url: str, server: Any, screens: Path
) -> None:
    asha = people.open()
    code, _ = create_room(
        base_url,
        asha,
        rules="strict(deals=1)",
        seats=[None, None, None],
        turn_seconds=0,
        speed="instant",
    )
    asha.goto(f"{base_url}/#/room/{code}")
    asha.wait_for_selector(".seat-row.mine[data-seat='0']")
    assert asha.locator(".room-code").inner_text() == code
    assert asha.input_value("#invite-link").endswith(f"/#/room/{code}")
    bikash = people.open(PHONE, is_mobile=True, has_touch=True)
    chandra = people.open()
    dipa = people.open()
    seats = {0: asha}
    for page, name in ((bikash, "Bikash"), (chandra, "Chandra"), (dipa, XSS)):
        seats[join(page, base_url, code, name)] = page
    assert sorted(seats) == [0, 1, 2, 3] and seats[3] is dipa
    asha.wait_for_function("() => document.querySelectorAll('.seat-row .tag-here').length === 4")
    # The name made of markup is text: in every lobby, as typed, and no image was made of it.
    for page in seats.values():
        assert page.locator(".seat-row[data-seat='3'] strong").inner_text() == XSS
    asha.screenshot(path=str(screens / "room-lobby-desktop.png"), full_page=True)
    bikash.screenshot(path=str(screens / "room-lobby-360.png"), full_page=True)
    assert bikash.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]

    asha.click("text=Start the match")
    for page in seats.values():
        page.locator(".hand .card").first.wait_for()
    watcher = people.open()
    watcher.goto(f"{base_url}/#/room/{code}")
    watcher.wait_for_selector(".board .seat")
    assert "you are watching" in watcher.locator(".lobby-note").inner_text().lower()
    assert watcher.locator("form.join").is_hidden()  # no open seat: nothing to join
    table = server["app"].state.tables.live[code]

    done: set[int] = set()
    shots = False
    deadline = time.monotonic() + 150
    while len(done) < 4:
        assert time.monotonic() < deadline, "the match did not end in time"
        acted = False
        for seat, page in seats.items():
            if seat in done:
                continue
            turn = act(page)
            if turn == "over":
                done.add(seat)
            acted = acted or turn in ("call", "play")
        # The spectator's page holds no hand, only cards played face up.
        on_page = watcher.locator("[data-card]").evaluate_all("e => e.map(c => c.dataset.card)")
        assert watcher.locator(".hand .card").count() == 0
        assert set(on_page) <= played_cards(table), on_page
        if (
            not shots
            and len(table.state.match.deal.tricks) == 3
            and table.state.match.deal.trick.cards
        ):
            asha.screenshot(path=str(screens / "room-table-desktop.png"), full_page=True)
            bikash.screenshot(path=str(screens / "room-table-360.png"), full_page=True)
            watcher.screenshot(path=str(screens / "room-spectator-desktop.png"), full_page=True)
            shots = True
        if not acted:
            asha.wait_for_timeout(30)
    assert table.state.match.is_over
    watcher.wait_for_function(
        "() => /Match over/.test(document.querySelector('.status').textContent)"
    )

    for seat, page in seats.items():
        assert_fair(table, people.frames[page], seat)
        assert "Match over" in page.locator(".status").inner_text()
        assert page.locator(".seat[data-seat='3'] strong").inner_text() == XSS
    assert_fair(table, people.frames[watcher], None)
    # Read as JSON, never matched as text: the server's encoder chooses the spacing (web.wire).
    states = [m for m in map(json.loads, people.frames[watcher]) if m["type"] == "state"]
    assert states and all(m["state"]["hand"] == [] and m["state"]["seat"] is None for m in states)
    assert all(m["state"]["legal"] == [] and m["state"]["legal_calls"] == [] for m in states)
    for page in [*seats.values(), watcher]:
        assert page.locator("img").count() == 0
    assert people.dialogs == []

    # The room is in the history of the people who played it, with its replay and record.
    dipa.goto(f"{base_url}/#/history")
    row = dipa.locator(f"tr[data-room='{code}']")
    assert "finished" in row.inner_text()
    assert row.locator("text=Record").get_attribute("href") == f"/api/rooms/{code}/record"
    row.locator("text=Replay").click()
    dipa.wait_for_selector(".replay .trick")
    assert cards_shown(dipa) == 52
    dipa.click("button[aria-label='Next trick']")
    assert dipa.locator(".replay .trick .card.winner").count() == 1
    assert XSS in dipa.locator(".replay .board").inner_text()
    assert dipa.locator("img").count() == 0 and people.dialogs == []


def test_a_person_who_closes_the_browser_is_covered_and_comes_back(
    people: People, base_url: str, server: Any, screens: Path
) -> None:
    asha = people.open()
    code, _ = create_room(
        base_url,
        asha,
        rules="strict(deals=1)",
        seats=[None, "random", "random"],
        turn_seconds=15,
        speed="instant",
    )
    asha.goto(f"{base_url}/#/room/{code}")
    bikash = people.open()
    assert join(bikash, base_url, code, "Bikash") == 1
    asha.wait_for_function("() => document.querySelectorAll('.seat-row .tag-here').length === 2")
    asha.click("text=Start the match")
    table = server["app"].state.tables.live[code]
    token = stored(bikash, code)["token"]

    # Both play until the second trick is under way, then Bikash's browser goes away.
    deadline = time.monotonic() + 60
    while len(table.state.match.deal.tricks) < 1 or not table.state.match.deal.trick.cards:
        assert time.monotonic() < deadline, "the first trick did not end in time"
        if not (act(asha) or act(bikash)):
            asha.wait_for_timeout(30)
    storage = bikash.context.storage_state()
    bikash.context.close()
    versions_before = table.state.version

    asha.wait_for_function(
        """() => /computer playing for Bikash while away/.test(
             document.querySelector(".seat[data-seat='1']")?.textContent || "")"""
    )
    # The computer plays Bikash's turns while Asha plays hers: within the turn clock, as away.
    deadline = time.monotonic() + 60
    while not any(
        fault["seat"] == 1 and fault["fault"] == "away"
        for index, notes in list(table.state.data.faults.items())
        if index >= versions_before
        for fault in notes
    ):
        assert time.monotonic() < deadline, "nobody played for Bikash"
        if not act(asha):
            asha.wait_for_timeout(50)
    asha.screenshot(path=str(screens / "room-covered-desktop.png"), full_page=True)

    # The link opened again with the stored token (a new browser window, the same storage).
    back = people.open(storage=storage)
    back.goto(f"{base_url}/#/room/{code}")
    back.locator(".hand .card").first.wait_for()
    assert back.locator(".seat.mine strong").inner_text() == "Bikash"
    assert back.locator("form.join").is_hidden()
    assert stored(back, code)["token"] == token
    asha.wait_for_function("() => !document.querySelector(\".seat[data-seat='1'] .covered\")")
    # Bikash's own turn comes and Bikash plays it.
    deadline = time.monotonic() + 60
    while True:
        assert time.monotonic() < deadline, "Bikash's turn did not come"
        version = table.state.version
        turn = act(back)
        if turn in ("call", "play"):
            break
        if not act(asha):
            asha.wait_for_timeout(30)
    deadline = time.monotonic() + 20
    while table.state.version == version:
        assert time.monotonic() < deadline
        back.wait_for_timeout(50)
    assert not table.state.data.faults.get(version), "Bikash's own card, not the computer's"
    assert_fair(table, people.frames[back], 1)
    assert_fair(table, people.frames[asha], 0)


def test_a_room_from_the_home_page_and_its_lobby(
    people: People, base_url: str, server: Any
) -> None:
    asha = people.open(permissions=["clipboard-read", "clipboard-write"])
    asha.goto(f"{base_url}/#/")
    asha.click("nav.choice >> text=With friends")
    asha.fill("#room-name", "Asha")
    asha.select_option("#room-profile", "classic")
    asha.select_option("#room-seat-1", "random")
    asha.select_option("#room-clock", "15")
    asha.select_option("#room-speed", "instant")
    asha.click("text=Create the room")
    asha.wait_for_url(re.compile(r"#/room/[2-9A-Z]{6}$"))
    code = asha.url.rsplit("/", 1)[1]
    asha.wait_for_selector(".seat-row.mine[data-seat='0']")
    lobby = lobby_json(server["app"].state.tables.live[code].state)
    assert lobby["rules"] == "classic" and lobby["turn_seconds"] == 15
    assert [seat["kind"] for seat in lobby["seats"]] == ["person", "open", "computer", "open"]
    asha.click("text=Copy link")
    asha.wait_for_selector("button.copy:text('Copied')")
    assert asha.evaluate("navigator.clipboard.readText()") == f"{base_url}/#/room/{code}"

    # A friend types the code (in small letters) instead of following the link.
    bikash = people.open()
    bikash.goto(f"{base_url}/#/friends")
    bikash.fill("#room-code", code.lower())
    bikash.click("text=Open the room")
    bikash.fill("#join-name", "Bikash")
    bikash.click("form.join button[type=submit]")
    bikash.wait_for_selector(".seat-row.mine[data-seat='1']")

    # The creator moves Bikash down a seat: Bikash's page follows.
    asha.click("[aria-label='Move Bikash down']")
    bikash.wait_for_selector(".seat-row.mine[data-seat='2']")
    assert "seat 3" in bikash.locator(".room-message").inner_text()
    assert stored(bikash, code)["seat"] == 2
    assert asha.locator("[aria-label^='Move Asha']").count() == 0  # seat 1 stays the creator's
    # Seats 1-4 now: Asha, the computer, Bikash, open. A computer in the open seat: the match
    # can start; the first computer's seat opened for a friend: it cannot.
    assert asha.locator("text=Start the match").is_disabled()
    asha.locator(".seat-row[data-seat='3'] button:text('Seat a computer')").click()
    asha.wait_for_selector(".seat-row[data-seat='3'].kind-computer")
    assert asha.locator("text=Start the match").is_enabled()
    asha.locator(".seat-row[data-seat='1'] button:text('Open for a friend')").click()
    asha.wait_for_selector(".seat-row[data-seat='1'].kind-open")
    assert asha.locator("text=Start the match").is_disabled()

    # Leaving asks first; staying changes nothing.
    bikash.click("text=Leave this room for good")
    bikash.click("dialog.confirm >> text=Stay")
    assert bikash.locator(".seat-row.mine").count() == 1
    bikash.click("text=Leave this room for good")
    bikash.click("dialog.confirm >> text=Leave for good")
    bikash.wait_for_selector("form.join:not([hidden])")
    assert bikash.locator(".seat-row.mine").count() == 0
    asha.wait_for_selector(".seat-row[data-seat='2'].kind-open")
    entry = stored(bikash, code)
    assert entry["token"] is None and entry["left"]
    # The lobby as a spectator with an open seat: the history still lists the room.
    bikash.goto(f"{base_url}/#/history")
    assert "waiting to start" in bikash.locator(f"tr[data-room='{code}']").inner_text()
    assert people.dialogs == []


def test_a_stale_click_from_a_second_tab_is_refused(
    people: People, base_url: str, server: Any
) -> None:
    first = people.open()
    code, token = create_room(
        base_url,
        first,
        rules="strict(deals=1)",
        seats=["random", "random", "random"],
        turn_seconds=0,
        speed="instant",
    )
    started = first.request.post(
        f"{base_url}/api/rooms/{code}/start", headers={"authorization": f"Bearer {token}"}
    )
    assert started.ok
    first.goto(f"{base_url}/#/room/{code}")
    first.wait_for_selector(".hand .card")
    table = server["app"].state.tables.live[code]

    # A second tab of the same seat whose messages from the server are held back on demand, as
    # on a slow network.
    second = people.page_in(first.context)
    held: list[str] = []
    holding = {"on": False}
    routes: list[Any] = []

    def route(ws: Any) -> None:
        routes.append(ws)
        upstream = ws.connect_to_server()

        def from_server(message: Any) -> None:
            if holding["on"]:
                held.append(message)
            else:
                ws.send(message)

        upstream.on_message(from_server)

    second.route_web_socket(re.compile(r"/ws/rooms/"), route)
    second.goto(f"{base_url}/#/room/{code}")
    second.wait_for_selector(".calling:not([hidden]) button.call")
    first.wait_for_selector(".calling:not([hidden]) button.call")
    holding["on"] = True
    version = table.state.version
    first.locator(".calling button.call").first.click()
    first.wait_for_selector(".calling[hidden]", state="attached")
    assert table.state.version > version
    second.locator(".calling button.call").last.click()  # on the state before the call
    deadline = time.monotonic() + 20
    while not any(json.loads(message).get("stale") is True for message in held):
        assert time.monotonic() < deadline, "the server did not answer the stale call"
        second.wait_for_timeout(50)
    # Let the held messages through in order (more may come meanwhile), then the rest as usual.
    while held:
        routes[0].send(held.pop(0))
    holding["on"] = False
    # The refusal is said, the fresh state drawn: the call the first tab made, nothing more.
    second.locator(".status-box .note:not([hidden])", has_text="earlier state").wait_for()
    assert (
        second.locator(".seat.mine .line").inner_text()
        == first.locator(".seat.mine .line").inner_text()
    )
    assert not any(
        fault["seat"] == 0 for notes in table.state.data.faults.values() for fault in notes
    )
    # Said briefly: the status goes back to the table's own.
    second.locator(".status-box .note:not([hidden])", has_text="earlier state").wait_for(
        state="detached", timeout=15_000
    )
