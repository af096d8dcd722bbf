"""The table as a person sees it, at phone, tablet and desktop widths: no page scrolls sideways
(with a 24-character name), the hand stays where it is for the whole deal, the hint
highlights its card, reduced motion turns the motion off, and the Nepali and Hindi pages show
no English. Screenshots of each page at each width go to tests/e2e/screens/ for review."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.table import (
    LONG_NAME,
    WIDTHS,
    bearer,
    context,
    finish,
    new_match,
    new_sheet,
    play_until,
    sideways,
    step,
    turn,
)
from tests.e2e.test_rooms import create_room

NAMES = [LONG_NAME, "Bikash", "Chandra", "Dipa"]


@pytest.fixture(scope="module")
def made(browser: Any, base_url: str, server: Any) -> Iterator[dict[str, Any]]:
    """A finished one-deal match, a two-deal match showing its first deal's summary, and a
    scoresheet with a deal, all under a 24-character name."""
    desk = context(browser)
    page = desk.new_page()
    finished = new_match(page, base_url, rules="strict(deals=1)", name=LONG_NAME)
    finish(base_url, finished)  # through its socket: the pages look only at its end
    summary = new_match(page, base_url, rules="strict(deals=2)", name=LONG_NAME)
    page.goto(f"{base_url}/#/play/{summary}")
    play_until(page, "dialog")
    # Behind the summary the next deal waits for Continue: nobody has called yet.
    deal = server["app"].state.tables.live[summary].state.match.deal
    assert deal.calls == [None] * 4 or all(c is None for c in deal.calls)
    sheet = new_sheet(page, base_url, {"names": NAMES, "rules": "strict"})
    entered = page.request.put(
        f"{base_url}/api/sheets/{sheet}/deals/1",
        data=json.dumps({"calls": [3, 4, 2, 2], "tricks": [5, 3, 2, 3]}),
        headers=bearer(sheet),
    )
    assert entered.ok, entered.text()
    desk.close()
    # The pages of these matches and this sheet open in the browsers that hold their tokens.
    held = [("match", finished), ("match", summary), ("sheet", sheet)]
    yield {"finished": finished, "summary": summary, "sheet": sheet, "held": held}


WIDER = """() => [...document.querySelectorAll("body *")]
  .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
  .map((e) => `${e.tagName}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`)
  .slice(0, 8)"""


def fits(page: Any, what: str) -> None:
    """The page does not scroll sideways (the elements wider than the viewport said if so)."""
    wider = sideways(page)
    assert wider <= 0, f"{what} scrolls sideways by {wider} px: {page.evaluate(WIDER)}"


@pytest.mark.parametrize("width", list(WIDTHS))
def test_no_page_scrolls_sideways(
    browser: Any, base_url: str, made: dict[str, Any], screens: Path, width: str
) -> None:
    ctx = context(browser, width, held=made["held"])
    page = ctx.new_page()
    try:

        def visit(hash_: str, ready: str, name: str) -> None:
            page.goto(f"{base_url}/{hash_}")
            page.wait_for_selector(ready)
            fits(page, f"{name} at {width} px")
            page.screenshot(path=str(screens / f"{name}-{width}.png"), full_page=True)

        visit("#/", "#name", "new-match")
        page.fill("#name", LONG_NAME)
        fits(page, "the new-match page with a long name")
        visit("#/friends", "#room-name", "new-room")
        # The first deal's summary, then the table of the next deal during a trick.
        visit(f"#/play/{made['summary']}", "dialog.result[open]", "deal-summary")
        assert "null" not in page.locator("dialog.result[open]").inner_text()
        page.locator("dialog.result[open] button.primary").click()
        fits(page, f"the next deal's calls at {width} px")
        # A match of its own, played to a trick with cards on the table and a last trick.
        page.goto(f"{base_url}/#/play/{new_match(page, base_url, name=LONG_NAME)}")
        last = page.locator(".last-trick")
        for _ in range(2_000):
            if (
                page.locator(".trick .card").count() >= 1
                and turn(page) == "play"
                and last.is_enabled()
            ):
                break
            if step(page) == "dialog":
                break
        fits(page, f"the table at {width} px")
        page.screenshot(path=str(screens / f"table-{width}.png"), full_page=True)
        # The last trick is a peek beside the trick being played, never over the trick's place.
        last.click()
        peek = page.locator(".peek:not([hidden])")
        peek.wait_for()
        assert page.locator(".peek .card").count() == 4
        shown, trick = page.evaluate(
            """() => [".peek", ".trick"].map((s) => {
                 const r = document.querySelector(s).getBoundingClientRect();
                 return {x: r.x, y: r.y, width: r.width, height: r.height};
               })"""
        )
        assert (
            trick["x"] >= shown["x"] + shown["width"]
            or trick["x"] + trick["width"] <= shown["x"]
            or trick["y"] >= shown["y"] + shown["height"]
            or trick["y"] + trick["height"] <= shown["y"]
        ), f"the peek {shown} covers the trick {trick} at {width} px"
        assert page.locator(".trick").is_visible()
        fits(page, f"the table with its last trick at {width} px")
        page.screenshot(path=str(screens / f"last-trick-{width}.png"), full_page=True)
        page.locator(".settings-button").click()
        page.wait_for_selector("dialog.settings-dialog[open]")
        fits(page, f"the settings at {width} px")
        page.screenshot(path=str(screens / f"settings-{width}.png"))
        page.keyboard.press("Escape")
        # The match-over dialog shows every place.
        visit(f"#/play/{made['finished']}", "dialog.result[open] .places", "match-over")
        places = page.locator("dialog.result[open] .places li")
        assert places.count() == 4
        box = page.locator("dialog.result[open]").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= WIDTHS[width]["width"]
        for index in range(4):
            place = places.nth(index).bounding_box()
            assert place["x"] >= box["x"] and place["x"] + place["width"] <= box["x"] + box["width"]
        visit("#/history", f"tr[data-match='{made['finished']}']", "history")
        visit(f"#/replay/{made['finished']}", ".replay .board", "replay")
        visit(f"#/sheet/{made['sheet']}", "tr[data-deal='1']", "scoresheet")
        visit("#/record", ".record-page .figures", "record")
    finally:
        ctx.close()


RECORDER = """() => {
  // Each change of the hand's place, or of a card's place in it, with the cards laid out.
  window.__moves = [];
  let last = "";
  const look = () => {
    const hand = document.querySelector(".hand");
    if (hand && !hand.hidden) {
      const box = hand.getBoundingClientRect();
      const cards = [...hand.querySelectorAll(".card")];
      const sample = {
        top: Math.round(box.top + scrollY), left: Math.round(box.left),
        height: Math.round(box.height),
        layout: cards.map((c) => c.dataset.card).join(" "),
        places: Object.fromEntries(cards.filter((c) => !c.classList.contains("gone"))
          .map((c) => [c.dataset.card, [c.offsetLeft, c.offsetTop]])),
        animations: document.getAnimations().length,
      };
      const text = JSON.stringify(sample);
      if (text !== last) { window.__moves.push(sample); last = text; }
    }
    requestAnimationFrame(look);
  };
  look();
}"""


SHORT_MS = 600
"""The finished trick's short pause (prefs.js PAUSES)."""


def test_the_hand_stays_put_for_the_whole_deal(browser: Any, base_url: str) -> None:
    """At 1366 and 390 px, with motion, fast computers and a finished trick that stays up a
    moment (short), as a person sees it. The two widths' deals are played side by side, a step
    of each in turn, so that the computers' pace is waited for once. The pages' clocks are
    Playwright's: once a finished trick has been up a frame the rest of its pause passes at
    once (nothing moves while it is up)."""
    contexts, pages = {}, {}
    try:
        for width in ("1366", "390"):
            contexts[width] = context(browser, width, pause="short", motion=True)
            contexts[width].clock.install()
            page = pages[width] = contexts[width].new_page()
            match = new_match(page, base_url, rules="strict(deals=1)", speed="fast")
            page.goto(f"{base_url}/#/play/{match}")
        for page in pages.values():
            page.wait_for_selector(".hand .card")
            page.evaluate(RECORDER)
        tricks_seen = dict.fromkeys(pages, 0)
        playing = set(pages)
        for _ in range(6_000):
            if not playing:
                break
            for width in sorted(playing):
                page = pages[width]
                if step(page) == "dialog":
                    playing.discard(width)
                    continue
                on_table = page.locator(".trick .card").count()
                tricks_seen[width] = max(tricks_seen[width], on_table)
                if page.locator(".trick .card.winner").count():
                    page.clock.fast_forward(SHORT_MS)
        assert not playing, f"the deal did not end at {sorted(playing)}"
        moves = {width: page.evaluate("window.__moves") for width, page in pages.items()}
    finally:
        for made in contexts.values():
            made.close()
    for width in pages:
        assert_the_hand_stayed_put(width, tricks_seen[width], moves[width])


def assert_the_hand_stayed_put(width: str, tricks_seen: int, moves: list[dict[str, Any]]) -> None:
    """What RECORDER saw of a whole deal at ``width``: the hand's box and its cards' places
    never moved, and cards travelled."""
    assert tricks_seen == 4 and len(moves) > 20, (width, tricks_seen, len(moves))
    # The hand's box never moves nor changes size, from the calls to the last trick.
    assert {(m["top"], m["left"], m["height"]) for m in moves} == {
        (moves[0]["top"], moves[0]["left"], moves[0]["height"])
    }, width
    # The hand is laid out once for the deal: a card still held keeps its place from the
    # first trick to the last (a card played leaves its place empty).
    layouts: dict[str, dict[str, set[tuple[int, int]]]] = {}
    for move in moves:
        places = layouts.setdefault(move["layout"], {})
        for card, place in move["places"].items():
            places.setdefault(card, set()).add(tuple(place))
    assert len(layouts) == 1, width
    for layout, places in layouts.items():
        assert len(places) == 13, width
        for card, seen in places.items():
            assert len(seen) == 1, f"{card} moved within the deal at {width} ({layout}): {seen}"
    # Cards travelled (motion is on).
    assert any(m["animations"] for m in moves), width


def test_reduced_motion_turns_motion_off(browser: Any, base_url: str) -> None:
    ctx = context(browser, "1366", pause="short", motion=False)
    page = ctx.new_page()
    try:
        # The computers at once (the page draws their cards one after the other): nothing
        # here waits on their pace.
        match = new_match(page, base_url, rules="strict(deals=1)", speed="instant")
        page.goto(f"{base_url}/#/play/{match}")
        page.wait_for_selector(".hand .card")
        assert page.evaluate("matchMedia('(prefers-reduced-motion: reduce)').matches")
        page.evaluate(RECORDER)
        for _ in range(1_000):
            if step(page) == "dialog" or len(page.evaluate("window.__moves")) > 60:
                break
        moves = page.evaluate("window.__moves")
        durations = page.evaluate(
            """() => [...document.querySelectorAll('.hand .card, .seat, .trick .card')]
                 .map((e) => getComputedStyle(e).transitionDuration)"""
        )
    finally:
        ctx.close()
    assert len(moves) > 10
    assert not any(m["animations"] for m in moves), "something moved under reduced motion"
    assert set(",".join(durations).replace(" ", "").split(",")) == {"0s"}


def test_the_hint_highlights_its_card(browser: Any, base_url: str) -> None:
    ctx = context(browser, "1366")
    page = ctx.new_page()
    frames: list[dict[str, Any]] = []
    page.on(
        "websocket",
        lambda ws: ws.on("framereceived", lambda payload: frames.append(json.loads(payload))),
    )
    try:
        match = new_match(page, base_url, rules="strict(deals=1)", level="intermediate")
        page.goto(f"{base_url}/#/play/{match}")
        play_until(page, "call")
        page.locator(".calling .hint-call").click()
        suggested = page.locator(".calling button.call.suggested")
        suggested.wait_for()
        hint = next(f for f in frames if f["type"] == "hint" and f["kind"] == "call")
        assert suggested.inner_text() == str(hint["options"][0]["action"])
        play_until(page, "play")
        page.locator(".hint-button").click()
        card = page.locator(".hand .card.suggested")
        card.wait_for()
        hint = next(f for f in frames if f["type"] == "hint" and f["kind"] == "play")
        action = hint["options"][0]["action"]
        assert isinstance(action, str) and re.fullmatch(r"[2-9TJQKA][SHDC]", action)
        assert card.get_attribute("data-card") == action
        assert page.locator(".hand .card.suggested").count() == 1
    finally:
        ctx.close()


# Text nodes and the words a page puts in attributes (titles, labels, placeholders).
PAGE_TEXTS = """async () => {
  const texts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    // <code> holds what is typed as it is in every language (rules options: deals=10), and a
    // room's code is random letters and digits (GN3TRY once read as the English "try").
    if (node.parentElement.closest("noscript, script, style, code, .room-code")) continue;
    if (node.textContent.trim()) texts.push(node.textContent.trim());
  }
  for (const element of document.querySelectorAll("[title], [aria-label], [placeholder]")) {
    for (const name of ["title", "aria-label", "placeholder"]) {
      const value = element.getAttribute(name);
      if (value && value.trim()) texts.push(value.trim());
    }
  }
  texts.push(document.title);
  return texts;
}"""

ENGLISH_WORDS = """async () => {
  const en = (await import("/static/lang-en.js")).default;
  const words = new Set();
  for (const entry of Object.values(en)) {
    const text = typeof entry === "function"
      ? (String(entry).match(/(["'`])(?:(?!\\1).)*\\1/g) || []).join(" ") : String(entry);
    for (const word of text.match(/[A-Za-z]{2,}/g) || []) words.add(word.toLowerCase());
  }
  return [...words];
}"""

# Not English but what is printed the same in every language: names of people and the
# computer players, file formats, card ranks ("10" and the court letters are single letters).
ALLOWED = {w.lower() for w in re.findall(r"[A-Za-z]{2,}", " ".join(NAMES))} | {
    "esha",
    "gopal",
    "hari",
    "asha",
    "csv",
    "json",
}


def english_in(page: Any, english: set[str]) -> list[str]:
    """The page's texts that hold a word of the English catalogue, or a Western digit outside
    a card."""
    found = []
    for text in page.evaluate(PAGE_TEXTS):
        words = {w.lower() for w in re.findall(r"[A-Za-z]{2,}", text)} - ALLOWED
        if words & english:
            found.append(text)
    digits = page.evaluate(
        """() => {
          const found = [];
          const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const parent = node.parentElement;
            // A card, and the ranks a replay lists suit by suit, keep their printed ranks, as
            // on a card's face.
            const kept = "noscript, script, style, code, .card, .held .ranks, .room-code";
            if (parent.closest(kept)) continue;
            // A card named in text keeps its printed rank (8♠, 10♥), as on its face.
            const text = node.textContent.replace(/(10|[2-9])[♠♥♦♣]/g, "");
            if (/[0-9]/.test(text)) found.push(node.textContent.trim());
          }
          return found;
        }"""
    )
    return found + [f"digits: {text}" for text in digits if text not in NAMES]


@pytest.mark.parametrize("lang", ["ne", "hi"])
def test_nepali_and_hindi_pages_show_no_english(
    browser: Any, base_url: str, made: dict[str, Any], screens: Path, lang: str
) -> None:
    ctx = context(browser, "390", lang=lang, held=made["held"])
    page = ctx.new_page()
    try:
        page.goto(f"{base_url}/#/")
        page.wait_for_selector("#name")
        english = set(page.evaluate(ENGLISH_WORDS)) - ALLOWED
        assert page.evaluate("document.documentElement.lang") == lang
        problems: dict[str, list[str]] = {}

        def check(name: str) -> None:
            found = english_in(page, english)
            if found:
                problems[name] = found

        page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
        check("new match")
        for hash_, ready, name in [
            ("#/friends", "#room-name", "new room"),
            ("#/history", f"tr[data-match='{made['finished']}']", "history"),
            (f"#/replay/{made['finished']}", ".replay .board", "replay"),
            (f"#/sheet/{made['sheet']}", "tr[data-deal='1']", "scoresheet"),
            ("#/sheet", "form", "new scoresheet"),
            ("#/record", ".record-page .figures", "record"),
            (f"#/play/{made['finished']}", "dialog.result[open] .places", "match over"),
        ]:
            page.goto(f"{base_url}/{hash_}")
            page.wait_for_selector(ready)
            page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
            check(name)
        page.screenshot(path=str(screens / f"match-over-{lang}.png"))
        # A room's lobby, as its creator sees it.
        code, _token = create_room(base_url, page, name="आशा")
        page.goto(f"{base_url}/#/room/{code}")
        page.wait_for_selector(".seat-row.mine")
        check("room lobby")
        page.screenshot(path=str(screens / f"room-lobby-{lang}.png"), full_page=True)
        # A table: the calls, a hint, then cards; an illegal card's duty in words.
        match = new_match(page, base_url, name="आशा", rules="strict(deals=2)")
        page.goto(f"{base_url}/#/play/{match}")
        page.wait_for_selector(".play-page:not([data-over]) .hand .card")
        play_until(page, "call")
        page.locator(".calling .hint-call").click()
        page.locator(".calling button.call.suggested").wait_for()
        check("calling")
        duty = False
        for _ in range(1_000):
            illegal = page.locator(".hand.active .card.illegal")
            if turn(page) == "play" and illegal.count():
                illegal.first.click(force=True)
                page.locator(".status-box .note:not([hidden])").wait_for()
                duty = True
                check("an illegal card")
                page.screenshot(path=str(screens / f"table-{lang}.png"), full_page=True)
                break
            if step(page, close_dialogs=False) == "dialog":
                check("deal summary")
                page.locator("dialog.result[open] button.primary").click()
        assert duty, "no illegal card came up"
        page.locator(".settings-button").click()
        page.wait_for_selector("dialog.settings-dialog[open]")
        check("settings")
        page.keyboard.press("Escape")
        play_until(page, "dialog")
        check("deal summary")
    finally:
        ctx.close()
    assert not problems, problems


def test_how_to_play_follows_the_rules(browser: Any, base_url: str) -> None:
    ctx = context(browser, "390")
    page = ctx.new_page()
    try:
        page.goto(f"{base_url}/#/")
        page.wait_for_selector("#profile")
        how = page.locator("details.how-to")
        how.locator("summary").click()
        assert "After 5 deals" in how.inner_text()
        page.select_option("#profile", "pagat")  # open-ended
        assert "until the table agrees to stop" in how.inner_text()
        assert "After 5 deals" not in how.inner_text()
    finally:
        ctx.close()


def test_connection_lost_is_cleared_on_reconnecting(browser: Any, base_url: str) -> None:
    ctx = context(browser, "1366")
    page = ctx.new_page()
    sockets: list[Any] = []
    frames: list[int] = []

    def route(ws: Any) -> None:
        sockets.append(ws)
        number = len(sockets)
        server = ws.connect_to_server()

        def to_page(message: Any) -> None:
            ws.send(message)
            frames.append(number)

        server.on_message(to_page)

    try:
        page.route_web_socket(re.compile(r"/ws/matches/"), route)
        match = new_match(page, base_url)
        page.goto(f"{base_url}/#/play/{match}")
        page.wait_for_selector(".hand .card")
        note = page.locator(".status-box .note")
        sockets[0].close()
        page.locator(".status-box .note:not([hidden])", has_text="Connection lost").wait_for()
        # Once the page is connected again, the first state it gets finds the note gone.
        page.wait_for_function("() => true")
        for _ in range(200):
            if 2 in frames:
                break
            page.wait_for_timeout(25)
        assert 2 in frames, "the page did not connect again"
        assert note.is_hidden() or "Connection lost" not in note.inner_text()
    finally:
        ctx.close()


# Every text the status line's note shows, kept in window.__notes as it changes.
NOTES_SEEN = """() => {
  window.__notes = [];
  const note = document.querySelector('.status-box .note');
  const kept = () => { if (!note.hidden) window.__notes.push(note.textContent); };
  const what = { attributes: true, childList: true, characterData: true, subtree: true };
  new MutationObserver(kept).observe(note, what);
}"""


def test_a_silent_server_is_left_and_a_restart_reconnects_quietly(
    browser: Any, base_url: str
) -> None:
    """The page hears the server's pings: once a server falls silent (frozen, not closed: the
    socket stays open) for 2.5 intervals it lets the socket go, says "Connection lost" and
    connects again. A socket closed with 1012 (the server restarting) is connected again at
    once, with nothing said; when that fails too (one process, not back yet), the page says
    the server is restarting, not that the connection was lost, and the note goes once back."""
    ctx = context(browser, "1366")
    page = ctx.new_page()
    sockets: list[Any] = []
    frozen: set[int] = set()
    refused: set[int] = set()  # connections closed at once, as a server not back yet would

    def route(ws: Any) -> None:
        sockets.append(ws)
        number = len(sockets)
        if number in refused:
            ws.close()
            return
        server = ws.connect_to_server()

        def to_page(message: Any) -> None:
            if number not in frozen:
                ws.send(message)

        server.on_message(to_page)

    def wait_for_socket(count: int) -> None:
        for _ in range(400):
            if len(sockets) >= count:
                return
            page.wait_for_timeout(25)
        raise AssertionError(f"the page did not connect again ({len(sockets)} sockets)")

    try:
        page.route_web_socket(re.compile(r"/ws/matches/"), route)
        match = new_match(page, base_url)
        page.goto(f"{base_url}/#/play/{match}")
        page.wait_for_selector(".hand .card")
        # Every note the page shows is kept: the reconnection may clear "Connection lost"
        # within a third of a second, sooner than a look at the page might catch it.
        page.evaluate(NOTES_SEEN)
        # The server says it pings every second, then sends nothing more.
        sockets[0].send(json.dumps({"type": "ping", "every": 1}))
        frozen.add(1)
        lost = page.locator(".status-box .note:not([hidden])", has_text="Connection lost")
        # 2.5 s of silence, on a generous deadline
        page.wait_for_function(
            "() => window.__notes.some((text) => text.includes('Connection lost'))", timeout=10_000
        )
        wait_for_socket(2)
        page.wait_for_selector(".hand .card")
        lost.wait_for(state="detached", timeout=10_000)  # connected again: the note goes

        sockets[1].close(code=1012, reason="restart")
        seen = []
        for _ in range(400):
            seen.append(lost.count())
            if len(sockets) >= 3:
                break
            page.wait_for_timeout(10)
        wait_for_socket(3)
        page.wait_for_selector(".hand .card")
        assert not any(seen) and lost.count() == 0, "a restart was shown as a lost connection"

        # A restart on one process: the first connection after the 1012 is refused.
        refused.add(4)
        before = page.evaluate("window.__notes.length")
        sockets[2].close(code=1012, reason="restart")
        wait_for_socket(5)
        restarting = page.locator(
            ".status-box .note:not([hidden])", has_text="The server is restarting"
        )
        page.wait_for_function(
            "() => window.__notes.some((text) => text.includes('The server is restarting'))",
            timeout=10_000,
        )
        notes = page.evaluate("window.__notes")[before:]
        assert not any("Connection lost" in text for text in notes), notes
        page.wait_for_selector(".hand .card")
        restarting.wait_for(state="detached", timeout=10_000)  # back: the note goes
    finally:
        ctx.close()


@pytest.mark.parametrize("lang", ["ne", "hi"])
def test_room_pages_in_nepali_and_hindi_show_no_english(
    browser: Any, base_url: str, screens: Path, lang: str
) -> None:
    """The pages of a room besides its lobby: the join form a friend opening the link sees, a
    code with no room, and the room's table in play with its turn clock."""
    ctx = context(browser, "390", lang=lang)
    page = ctx.new_page()
    friend_ctx = context(browser, "390", lang=lang)
    friend = friend_ctx.new_page()
    problems: dict[str, list[str]] = {}
    try:
        page.goto(f"{base_url}/#/")
        page.wait_for_selector("#name")
        english = set(page.evaluate(ENGLISH_WORDS)) - ALLOWED

        def check(where: Any, name: str) -> None:
            found = english_in(where, english)
            if found:
                problems[name] = found

        code, _token = create_room(
            base_url,
            page,
            name="आशा",
            rules="strict(deals=1)",
            seats=[None, "random", "random"],
            turn_seconds=15,
            speed="instant",
        )
        friend.goto(f"{base_url}/#/room/{code}")
        friend.wait_for_selector("form.join:not([hidden]) #join-name")
        check(friend, "join form")
        friend.goto(f"{base_url}/#/room/ZZZZZZ")
        friend.wait_for_selector(".panel h1")
        check(friend, "no such room")
        # The room filled with a computer, started, and the table at the person's turn.
        page.goto(f"{base_url}/#/room/{code}")
        page.wait_for_selector(".seat-row.mine")
        check(page, "room lobby")
        page.locator(".seat-row[data-seat='1'] select").select_option("random")
        page.locator(".seat-row[data-seat='1'] .seat-computer").click()
        page.wait_for_selector(".seat-row[data-seat='1'].kind-computer")
        page.locator(".lobby-actions button.primary").click()
        play_until(page, "call")
        page.locator(".turn-clock:not([hidden])").wait_for()
        check(page, "room table")
        page.screenshot(path=str(screens / f"room-table-{lang}.png"), full_page=True)
    finally:
        friend_ctx.close()
        ctx.close()
    assert not problems, problems
