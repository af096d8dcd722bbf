"""The table on a phone, a tablet and a desktop: a whole deal against the computer at each size,
played by touch on the touch screens (a tap lifts a card, a second tap plays it) and by clicks
on the desktop, with every state checked as it comes: the page does not scroll, every trick card
and hand card is on the screen, nothing covers a trick card (its centre and its corner index),
every hand card shows at least a fingertip (44×44 px from its corner) and keeps its place for the
whole deal, the badges keep one size with every line inside, the calls and the notes cover no
badge, the clock ring keeps clear of the name; and, within 100 ms of each state message, the
status and the lit badge name the seat to act and no hint outlives its decision. A room nobody
is at says it is paused, why and who can resume it. Screenshots of every state at every size go
to tests/e2e/screens/ (phone-SIZE-STATE.png) for a person to look at.

At 360×740, 390×844 and 844×390 by touch and 1366×768 by mouse (FIRST) the deals and the
replay are played through on the page; at the other sizes the page plays until it has shown
each kind of state, and the rest of the deal is played through the socket (the replay opened
at its last trick). The page's clock is Playwright's: once a finished trick has been looked at,
the rest of its pause passes at once."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from callbreak import refusals
from callbreak.web import cover
from tests.e2e.table import LONG_NAME, finish, hold, new_match, play_to
from tests.e2e.test_rooms import create_room

# width, height, touch
SIZES = {
    "360x740": (360, 740, True),
    "390x844": (390, 844, True),
    "412x915": (412, 915, True),
    "844x390": (844, 390, True),
    "640x360": (640, 360, True),
    "768x1024": (768, 1024, True),
    "1366x768": (1366, 768, False),
}
PHONES = {"360x740", "390x844", "412x915", "844x390", "640x360"}
FIRST = {"360x740", "390x844", "844x390", "1366x768"}
"""The sizes a deal, a room's deal and a replay are played through at, every state checked:
the phones first (by touch), then the desktop (by mouse). At the other sizes each kind of
state is looked at, the rest played through the socket or opened directly."""
NO_SCROLL = set(SIZES)  # the table fits the tablet and the desktop too

# The page's checks (window.__sync, window.__phone), installed before the page's own scripts.
CHECKS = (Path(__file__).parent / "phone.js").read_text(encoding="utf-8")
SHOWN = ".hand .card[data-card='{code}'].chosen, .hand .card[data-card='{code}'].gone"
PAUSE_MS = 600
"""The finished trick's short pause (prefs.js PAUSES), which the played deals keep."""
DEAL_SEED = "phone-1"
"""The deal played at the other sizes (its hands, the computers' cards; the person plays the
first legal card)."""


class Table:
    """One size's page and what its checks found."""

    def __init__(self, page: Any, size: str, screens: Path) -> None:
        self.page = page
        self.size = size
        self.width, self.height, self.touch = SIZES[size]
        self.screens = screens
        self.problems: list[str] = []
        self.sizes: dict[str, set[tuple[int, int]]] = {}
        self.places: dict[str, set[tuple[int, int]]] = {}
        self.shots: set[str] = set()
        self.prefix = ""
        # The page's own checks (window.__sync) of the states before a reload.
        self.checked = 0
        self.wrong: list[str] = []

    def look(
        self, where: str, shot: str | None = None, seen: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """The page's checks as it is now (``seen``: what ``window.__phone.look()`` found, when
        the caller asked already), and a screenshot of a ``shot`` not taken yet."""
        if seen is None:
            seen = self.page.evaluate("() => window.__phone.look()")
        self.problems += [f"{where}: {problem}" for problem in seen["problems"]]
        if self.size in NO_SCROLL and seen["scroll"]["y"] > 0:
            self.problems.append(f"{where}: the page scrolls by {seen['scroll']['y']} px")
        if seen["scroll"]["x"] > 0:
            self.problems.append(f"{where}: the page scrolls sideways by {seen['scroll']['x']} px")
        for position, size in seen["sizes"].items():
            self.sizes.setdefault(position, set()).add(tuple(size))
        for kind, width, height in seen["widths"]:
            # Large trick cards on a phone; hand cards a finger can hit anywhere.
            least = 56 if kind == "trick" and self.size in PHONES else 44
            if width < least or height < 44:
                self.problems.append(f"{where}: a {kind} card of {width:.0f}×{height:.0f} px")
        for card, place in seen["places"].items():
            self.places.setdefault(card, set()).add(tuple(place))
        if shot and shot not in self.shots:
            self.shots.add(shot)
            self.shoot(shot)
        return seen

    def reload(self, jump: Callable[[], None]) -> None:
        """Let ``jump`` move the table on (through the socket), then reload the page there,
        keeping what the page's checks found before."""
        sync = self.page.evaluate("window.__sync")
        self.checked += sync["checked"]
        self.wrong += sync["wrong"]
        jump()
        self.page.reload()
        self.page.locator(".hand .card:not(.gone)").first.wait_for()

    def shoot(self, name: str) -> None:
        self.page.screenshot(path=str(self.screens / f"phone-{self.size}-{self.prefix}{name}.png"))

    def press(self, locator: Any) -> None:
        """A tap on a touch screen, a click on the desktop."""
        if self.touch:
            locator.tap(timeout=3_000)
        else:
            locator.click(timeout=3_000)

    def outside(self) -> None:
        """A tap (or click) on the board's empty top left corner, outside any sheet or peek (and
        far enough from the toolbar that Chromium's touch adjustment finds no button there)."""
        box = self.page.locator(".board").bounding_box()
        x, y = box["x"] + 10, box["y"] + box["height"] * 0.15
        if self.touch:
            self.page.touchscreen.tap(x, y)
        else:
            self.page.mouse.click(x, y)


def asks(page: Any) -> str | None:
    """What the page asks now: 'dialog', 'over', 'call', 'play', 'won' (a trick) or None."""
    return page.evaluate("() => window.__phone.asks()")  # type: ignore[no-any-return]


def played(page: Any, code: str) -> None:
    """Wait until the card `code` left the hand (chosen, or gone to the trick)."""
    page.locator(SHOWN.format(code=code)).first.wait_for(state="attached", timeout=3_000)


def phone_context(browser: Any, size: str, pause: str = "short", clock: bool = False) -> Any:
    """A context at ``size`` in English, reduced motion, the finished trick's ``pause``, and
    the page's checks; with ``clock``, the page's clock is Playwright's, which a test may move
    on (it flows as usual otherwise)."""
    width, height, touch = SIZES[size]
    made = browser.new_context(
        viewport={"width": width, "height": height},
        has_touch=touch,
        is_mobile=touch,
        reduced_motion="reduce",
    )
    if clock:
        made.clock.install()
    made.add_init_script(
        "localStorage.setItem('callbreak:lang', 'en');"
        f"localStorage.setItem('callbreak:pause', {json.dumps(pause)});"
    )
    made.add_init_script(CHECKS)
    made.set_default_timeout(20_000)
    return made


def play_card(table: Table, card: Any) -> None:
    """Play `card`: by touch, a tap lifts it (nothing is played) and a second tap plays it; by
    mouse one click plays it."""
    page = table.page
    version = page.evaluate("window.__sync.latest.version")
    code = card.get_attribute("data-card")
    sent = page.evaluate("window.__sent.length")
    table.press(card)
    if table.touch:
        lifted = page.locator(f".hand .card.lifted[data-card='{code}']")
        lifted.wait_for(timeout=3_000)
        table.look("a card lifted", "lifted")
        # What the page said since the first tap, read just before the second: no play.
        said = page.evaluate("(from) => window.__sent.slice(from)", sent)
        assert "play" not in said, f"a first tap played: {said}"
        assert page.evaluate("window.__sync.latest.version") == version, "a first tap played"
        table.press(lifted)
    played(page, code)


def side_sheets(table: Table) -> None:
    """The settings and (where they are not beside the table) the scores open over the table
    and close with a tap outside."""
    page = table.page
    open_settings(table)
    table.look("settings", "settings")
    assert page.locator("#set-onetap").count() == (1 if table.touch else 0)
    tap_outside_dialog(table, "dialog.settings-dialog")
    scores = page.locator(".scores-button")
    if scores.is_visible():
        table.press(scores)
        page.locator("dialog.scores-dialog[open] .score-table").wait_for()
        rules = page.evaluate("async () => (await import('/static/i18n.js')).t('table.rules')")
        assert rules in page.locator("dialog.scores-dialog[open]").inner_text()
        table.look("scores", "scores")
        tap_outside_dialog(table, "dialog.scores-dialog")
    else:
        assert page.locator(".play-side .score-table").is_visible()


def open_settings(table: Table) -> None:
    # Once, even right after a swipe: the hand lets the browser make no fling of a drag, which
    # would swallow the tap that follows.
    table.press(table.page.locator(".settings-button"))
    table.page.locator("dialog.settings-dialog[open]").wait_for(timeout=3_000)


def tap_outside_dialog(table: Table, selector: str) -> None:
    page = table.page
    box = page.locator(f"{selector}[open]").bounding_box()
    # Above the sheet (it rises from the bottom on a phone), or left of it.
    x, y = (6, 6) if box["y"] > 10 or box["x"] > 10 else (box["x"] + box["width"] / 2, 3)
    if table.touch:
        page.touchscreen.tap(x, y)
    else:
        page.mouse.click(x, y)
    page.locator(f"{selector}[open]").wait_for(state="detached", timeout=3_000)


def last_trick(table: Table) -> None:
    """The last trick: every mini card drawn whole (its own index at its corner), beside the
    trick being played or over the hand, and a tap outside closes it."""
    page = table.page
    table.press(page.locator(".last-trick"))
    page.locator(".peek:not([hidden])").wait_for()
    found = page.evaluate("() => window.__phone.peek()")
    assert page.locator(".peek .card").count() == 4
    table.problems += [f"last trick: {problem}" for problem in found]
    table.shoot("last-trick")
    table.outside()
    page.locator(".peek").wait_for(state="hidden", timeout=3_000)


def refusal(table: Table) -> bool:
    """An illegal card tapped: the duty that forbids it, over the status line only."""
    page = table.page
    illegal = page.locator(".hand.active .card.illegal")
    if not illegal.count():
        return False
    illegal.first.dispatch_event("click")  # as a tap would: dimmed, not disabled
    page.locator(".note.error:not([hidden])").wait_for()
    table.look("a refusal", "refusal")
    page.evaluate("() => document.querySelector('.note').hidden = true")
    return True


def hint(table: Table) -> None:
    """A hint for the card: outlined, and gone once the card is played (the socket's watch)."""
    page = table.page
    table.press(page.locator(".hint-button"))
    page.locator(".hand .card.suggested").wait_for(timeout=10_000)
    page.locator(".note.hint:not([hidden])").wait_for()
    table.look("a hint", "hint")
    # Its words close at a tap outside; the outline on its card stays.
    table.outside()
    page.locator(".note.hint").wait_for(state="hidden", timeout=3_000)
    assert page.locator(".hand .card.suggested").count() == 1


def keyboard_focus(table: Table) -> None:
    """A card focused from the keyboard rises without hiding its neighbour's index."""
    page = table.page
    cards = page.locator(".hand .card:not(.gone)")
    if cards.count() < 3:
        return
    cards.first.focus()
    page.keyboard.press("ArrowRight")
    covered = page.evaluate("() => window.__phone.focus()")
    assert covered == "", f"the focused card hides the index of {covered}"


def swipe_up(table: Table, card: Any) -> None:
    """A drag upwards plays the card at once (touch events through Chromium's protocol)."""
    page = table.page
    code = card.get_attribute("data-card")
    box = card.bounding_box()
    x, y = box["x"] + 12, box["y"] + 20
    cdp = page.context.new_cdp_session(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for step in range(1, 6):
        point = {"x": x, "y": y - step * 10}
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    played(page, code)


def play_a_deal(table: Table, again: str, jump: Callable[[], None] | None = None) -> None:
    """Play the page's one deal to the match's end, by touch or by mouse, looking at every
    state (screenshots of each kind), trying on the way the settings and scores sheets, the
    last trick, a refusal, a hint, the keyboard's focus (desktop), a swipe and one-tap play
    (touch); then the match over, with `again` the link to a new game.

    With ``jump`` (the other sizes), the page plays only until it has shown each kind of state
    (the person to play after 1, 2 and 3 cards, and to lead, besides the above): ``jump``
    then plays the deal through the socket to its last trick, the page is reloaded there (its
    hand's places kept) and the last trick, the summary and the match over are looked at."""
    page = table.page
    plays = 0
    # The keyboard's focus is tried on the desktop.
    done = dict.fromkeys(("sheets", "last", "refusal", "hint", "summary"), False)
    done["focus"] = table.touch
    won_seen = False
    swipe_at, onetap_at = (3, 4) if jump else (5, 6)
    on_tables: set[int] = set()  # how many cards were on the table at the person's turns
    jumped = False
    for _ in range(3_000):
        now = asks(page)
        if now == "won":
            table.look("a trick won", "trick-won")
            won_seen = True
            # Looked at: the rest of the trick's pause passes at once on the page's clock.
            page.clock.fast_forward(PAUSE_MS)
        elif now == "call":
            table.look("calling", "calling")
            if not done["sheets"]:
                side_sheets(table)
                done["sheets"] = True
            table.press(page.locator(".calling:not([hidden]) button.call").first)
            page.locator(".calling").wait_for(state="hidden")
        elif now == "play":
            # The page checks the state the person plays in (100 ms after it is shown) before
            # they play: how many states are checked (assert_all_true) must not hang on how
            # soon the computers' next state overtakes one on a loaded machine.
            page.wait_for_function(
                "() => window.__sync.latest !== null"
                " && window.__sync.checkedVersion === window.__sync.latest.version"
            )
            on_table = page.locator(".trick .card").count()
            on_tables.add(on_table)
            table.look(f"playing with {plays} played", f"trick-{on_table}-cards")
            if not done["last"] and page.locator(".last-trick").is_enabled():
                last_trick(table)
                done["last"] = True
            if not done["refusal"]:
                done["refusal"] = refusal(table)
            if not done["hint"] and plays == 2:
                hint(table)
                done["hint"] = True
            if not done["focus"]:
                keyboard_focus(table)
                done["focus"] = True
            first = page.locator(".hand.active .card.playable:not(.gone)").first
            card = page.locator(f".hand .card[data-card='{first.get_attribute('data-card')}']")
            if table.touch and plays == swipe_at:
                swipe_up(table, card)
            elif table.touch and plays == onetap_at:
                # One-tap play, turned on in the settings: a tap plays at once.
                open_settings(table)
                page.locator("#set-onetap").check()
                tap_outside_dialog(table, "dialog.settings-dialog")
                code = card.get_attribute("data-card")
                table.press(card)
                played(page, code)
                page.evaluate("localStorage.setItem('callbreak:onetap', 'off')")
            else:
                play_card(table, card)
            plays += 1
            # Each place in a trick: following 1, 2 or 3 cards, and leading (the trick before
            # still up, or gone).
            places = {1, 2, 3} <= on_tables and bool(on_tables & {0, 4})
            tried = all(done[k] for k in ("sheets", "last", "refusal", "hint", "focus"))
            if jump and not jumped and places and tried and onetap_at < plays < 12:
                table.reload(jump)
                jumped = True
        elif now == "dialog":
            table.look("the deal's summary", "summary")
            done["summary"] = True
            page.locator("dialog.result[open] button.primary").click()
        elif now == "over":
            page.locator(".after:not([hidden])").wait_for()
            table.look("the match over", "over")
            break
        else:
            page.wait_for_timeout(20)
    assert asks(page) == "over", "the match did not end"
    # A deal that showed each kind of state only late (a room's, dealt at random) is played
    # to its end on the page.
    assert (jumped or plays == 13) and all(done.values()), (plays, done, on_tables)
    assert won_seen, "no finished trick was seen"
    # After the match: no hint, the places and a new game where the hand was.
    assert page.locator(".hint-button").is_hidden()
    assert page.locator(".hand").is_hidden()
    link = page.locator(".after a.button.primary")
    assert link.is_visible() and link.get_attribute("href") == again
    assert page.locator(".after .places li").count() == 4


def assert_all_true(table: Table) -> None:
    """What the page showed was true within 100 ms of each state, and right at every state; each
    card kept its place for the whole deal and each badge its size."""
    sync = table.page.evaluate("window.__sync")
    checked = table.checked + sync["checked"]
    wrong = table.wrong + sync["wrong"]
    assert checked >= 5, (checked, sync)
    assert not wrong, wrong[:10]
    assert not table.problems, table.problems[:15]
    moved = {card: places for card, places in table.places.items() if len(places) > 1}
    assert not moved, moved
    resized = {position: sizes for position, sizes in table.sizes.items() if len(sizes) > 1}
    assert not resized, resized


@pytest.mark.parametrize("size", list(SIZES))
def test_a_whole_deal_at_every_size(browser: Any, base_url: str, screens: Path, size: str) -> None:
    """A match of one deal at each size, every state checked; at the sizes other than FIRST,
    played on the page until each kind of state was looked at, then through the socket to
    its last trick, which the reloaded page plays (``play_a_deal``'s jump)."""
    whole_deal(browser, base_url, screens, size, "en", "Asha")


@pytest.mark.parametrize("size", ["360x740", "844x390"])
@pytest.mark.parametrize("lang", ["ne", "hi"])
def test_a_whole_deal_in_nepali_and_hindi(
    browser: Any, base_url: str, screens: Path, lang: str, size: str
) -> None:
    """The same whole deal by touch, upright and on its side, in Nepali and in Hindi, with the
    longest name a person may give: the same checks at every state."""
    whole_deal(browser, base_url, screens, size, lang, LONG_NAME)


def whole_deal(browser: Any, base_url: str, screens: Path, size: str, lang: str, name: str) -> None:
    """A match of one deal against the computer played to its end at ``size`` in ``lang`` by a
    person called ``name``, every state checked (screenshots prefixed by the language but for
    English)."""
    ctx = phone_context(browser, size, clock=True)
    ctx.add_init_script(f"localStorage.setItem('callbreak:lang', {json.dumps(lang)})")
    page = ctx.new_page()
    table = Table(page, size, screens)
    table.prefix = "" if lang == "en" else f"{lang}-"
    try:
        # A new deal each run where every state is played; a known one where the deal jumps.
        seed = None if size in FIRST else DEAL_SEED
        match = new_match(
            page, base_url, rules="strict(deals=1)", name=name, level="random", seed=seed
        )
        page.goto(f"{base_url}/#/play/{match}")
        page.locator(".hand .card").first.wait_for()
        jump = None if size in FIRST else lambda: play_to(base_url, match, tricks=12)
        play_a_deal(table, "#/", jump)
        assert_all_true(table)
    finally:
        ctx.close()


def room_with_bikash(page: Any, base_url: str, turn_seconds: int) -> tuple[str, dict[str, str]]:
    """A started room of one deal: Asha (its creator, the page's context), Bikash who joined
    (but never opens it), and two computers; its code and the two people's tokens."""
    code, token = create_room(
        base_url,
        page,
        rules="strict(deals=1)",
        seats=[None, "random", "random"],
        turn_seconds=turn_seconds,
        speed="instant",
    )
    joined = page.request.post(
        f"{base_url}/api/rooms/{code}/join",
        data=json.dumps({"name": "Bikash"}),
        headers={"content-type": "application/json"},
    )
    assert joined.ok, joined.text()
    started = page.request.post(
        f"{base_url}/api/rooms/{code}/start", headers={"authorization": f"Bearer {token}"}
    )
    assert started.ok, started.text()
    return code, {"Asha": token, "Bikash": joined.json()["token"]}


@pytest.mark.parametrize("size", list(SIZES))
def test_a_room_deal_by_touch(
    browser: Any, base_url: str, screens: Path, size: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A room's deal at every size (by touch on the touch screens), under a turn clock, with a
    friend who never came (the computer plays for them: a badge of the same size, the long
    words for a screen reader). At the sizes other than FIRST, played on the page until each
    kind of state was looked at, then through the socket to its last trick, which the
    reloaded page plays. The friend is covered at once: how long the room waits for someone
    away is tests/test_rooms.py's."""
    monkeypatch.setattr(cover, "AWAY_GRACE", 0.0)
    ctx = phone_context(browser, size, clock=True)
    page = ctx.new_page()
    table = Table(page, size, screens)
    table.prefix = "room-"
    try:
        code, tokens = room_with_bikash(page, base_url, turn_seconds=60)
        page.goto(f"{base_url}/#/room/{code}")
        page.locator(".hand .card").first.wait_for()
        covered = page.locator(".seat[data-seat='1']")
        covered.locator(".covered").wait_for(state="attached")
        assert "computer playing for Bikash" in covered.text_content()
        assert covered.locator(".mark.stand-in").count() == 1
        jump = None
        if size not in FIRST:
            jump = lambda: play_to(base_url, code, tricks=12, room_token=tokens["Asha"])  # noqa: E731
        play_a_deal(table, "#/friends", jump)
        assert_all_true(table)
    finally:
        ctx.close()


def test_a_room_nobody_is_at_says_it_is_paused(browser: Any, base_url: str, screens: Path) -> None:
    """Its one person never came: the computers play up to that person's turn, and a spectator
    is told the room is paused, why and who can resume it, with no clock run out."""
    ctx = phone_context(browser, "390x844")
    page = ctx.new_page()
    try:
        code, token = create_room(
            base_url,
            page,
            rules="strict(deals=1)",
            seats=["random", "random", "random"],
            turn_seconds=15,
            speed="instant",
        )
        answer = page.request.post(
            f"{base_url}/api/rooms/{code}/start", headers={"authorization": f"Bearer {token}"}
        )
        assert answer.ok, answer.text()
        # A spectator: a browser without the seat's token.
        page.evaluate(f"localStorage.removeItem('callbreak:room:{code}')")
        page.goto(f"{base_url}/#/room/{code}")
        status = page.locator(".status")
        page.wait_for_function(
            "() => /Paused/.test(document.querySelector('.status')?.textContent)"
        )
        text = status.inner_text()
        # One person is waited for: named alone ("when Asha comes back", not "one of them").
        assert "nobody from this room is here" in text and "when Asha comes back" in text, text
        assert page.locator(".seat[data-seat='0'] .doing.paused").is_visible()
        assert page.locator(".seat .clock").count() == 0
        assert page.locator(".turn-clock").is_hidden()
        page.screenshot(path=str(screens / "phone-390x844-paused-room.png"))
    finally:
        ctx.close()


def test_a_room_everyone_left_says_nobody_can_go_on(
    browser: Any, base_url: str, screens: Path
) -> None:
    """Both of its people played and then left it for good: a spectator is told the room is
    paused and that nobody can go on with it, with no clock and no seat "to play"."""
    ctx = phone_context(browser, "390x844")
    page = ctx.new_page()
    try:
        code, seated = room_with_bikash(page, base_url, turn_seconds=15)
        for name, held in seated.items():
            left = page.request.post(
                f"{base_url}/api/rooms/{code}/leave", headers={"authorization": f"Bearer {held}"}
            )
            assert left.ok, (name, left.text())
        page.evaluate(f"localStorage.removeItem('callbreak:room:{code}')")
        page.goto(f"{base_url}/#/room/{code}")
        page.wait_for_function(
            "() => /Paused/.test(document.querySelector('.status')?.textContent)"
        )
        text = page.locator(".status").inner_text()
        assert "everyone who played in this room has left it" in text, text
        assert page.locator(".seat .clock").count() == 0
        assert page.locator(".turn-clock").is_hidden()
        assert page.locator(".seat .doing.paused").count() == 1
        assert not page.get_by_text("to play").count()
        page.screenshot(path=str(screens / "phone-390x844-left-room.png"))
    finally:
        ctx.close()


# The refusals a table's socket may say (the lobby's and the scoresheet's are said elsewhere),
# but those that only pass on English words written elsewhere ({detail}).
TABLE_CODES = [
    code
    for code, (_, words) in (refusals.GENERAL | refusals.MATCH | refusals.TABLE).items()
    if words != "{detail}"
]
# Every word the table shows over its status line, with the longest values it may hold.
NOTES = """async (codes) => {
  const { t } = await import("/static/i18n.js");
  const en = (await import("/static/lang-en.js")).default;
  const name = "Bhagyalaxmi Shrestha-Rai";
  const values = {
    name, card: "10♥", suit: t("suit.H.plural"), call: 13, tricks: "12.5", seconds: 60,
    what: t("notice.aCall", { call: 13 }),
    rule: t("duty.low_spade", { suit: t("suit.H.plural") }), seat: 3, asked: 2, low: 1, high: 13,
    limit: 64000, held: "match", field: "opponents", type: "settings",
  };
  const keys = Object.keys(en).filter((key) => /^(duty|hint)\\./.test(key) ||
    codes.some((code) => key === `refusal.${code}`) ||
    /^notice\\.(cover|botFault)|^table\\.(wait|connectionLost|restarting|notConnected|hintOwnTurn|hintWorking)$/.test(key));
  const note = document.querySelector(".note");
  const problems = [];
  const checked = keys;
  for (const key of checked) {
    note.textContent = t(key, values);
    note.hidden = false;
    if (note.scrollHeight > note.clientHeight + 1) problems.push(note.textContent);
  }
  note.hidden = true;
  return { problems, checked: checked.length };
}"""


@pytest.mark.parametrize("size", ["360x740", "640x360"])
@pytest.mark.parametrize("lang", ["en", "ne", "hi"])
def test_every_note_fits_the_status_line(browser: Any, base_url: str, size: str, lang: str) -> None:
    """A refusal, a notice or a hint covers the status line and nothing more: each fits it,
    in every language, on the narrowest phone upright and on its side."""
    ctx = phone_context(browser, size)
    ctx.add_init_script(f"localStorage.setItem('callbreak:lang', {json.dumps(lang)})")
    page = ctx.new_page()
    try:
        match = new_match(page, base_url, rules="strict(deals=1)", name="Asha")
        page.goto(f"{base_url}/#/play/{match}")
        page.locator(".hand .card").first.wait_for()
        found = page.evaluate(NOTES, TABLE_CODES)
    finally:
        ctx.close()
    assert found["checked"] > 30
    assert not found["problems"], found["problems"]


# The replay's deal (from 0), the cards of it played so far (the bottom hand's gone, the
# others' no longer held) and its status line.
POSITION = """() => {
  const held = [...document.querySelectorAll('.replay .held .ranks b')]
    .filter((b) => b.textContent !== '—');
  const gone = document.querySelectorAll('.replay .hand .card.gone').length;
  return [Number(document.querySelector('.replay .deal-pick').value), gone + 39 - held.length,
    document.querySelector('.replay .status').textContent];
}"""
# Whether the status line shows all it says, and each step button's class, size and bottom.
STEPS = """() => {
  const status = document.querySelector('.replay .status');
  const cut = status.scrollHeight > status.clientHeight + 1 ||
    status.scrollWidth > status.clientWidth + 1;
  const steps = [...document.querySelectorAll('.replay button.step')].map((button) => {
    const r = button.getBoundingClientRect();
    return [button.className, r.width, r.height, r.bottom];
  });
  return { cut, steps };
}"""
# Once `n` cards are on the replay's table (within 20 s): its position (POSITION), how many of
# them are marked the winner, the table's checks and the replay's own (STEPS), in one call.
STEPPED = f"""async (n) => {{
  const end = performance.now() + 20000;
  while (document.querySelectorAll('.replay .trick .card').length !== n) {{
    if (performance.now() > end) return null;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }}
  return {{
    position: ({POSITION})(),
    winners: document.querySelectorAll('.replay .trick .card.winner').length,
    seen: window.__phone.look(),
    steps: ({STEPS})(),
  }};
}}"""


def replay_position(page: Any) -> tuple[int, int, str]:
    """The replay's deal (from 0), the cards of it played so far, and its status line."""
    deal, played, status = page.evaluate(POSITION)
    return int(deal), int(played), str(status)


def replay_look(
    table: Table, where: str, shot: str | None = None, stepped: dict[str, Any] | None = None
) -> None:
    """The table's checks of the page as it is now, and the replay's own: the status line says
    all it has to say, and the step buttons are a fingertip each, along the bottom edge
    (``stepped``: what STEPPED found, when the caller asked already)."""
    table.look(where, shot, stepped and stepped["seen"])
    found = stepped["steps"] if stepped else table.page.evaluate(STEPS)
    if found["cut"]:
        table.problems.append(f"{where}: the status line is cut short")
    for name, width, height, bottom in found["steps"]:
        if width < 44 or height < 44:
            table.problems.append(f"{where}: {name} is {width:.0f}×{height:.0f} px")
        if not table.height - 64 <= bottom <= table.height:
            table.problems.append(f"{where}: {name} ends {bottom:.0f} px down, not at the bottom")


def replay_step(
    table: Table, on_table: int, where: str, shot: str | None = None
) -> tuple[int, int, str, int]:
    """Once ``on_table`` cards are on the replay's table, its looks (``replay_look``), and its
    deal, the cards of it played, its status line and how many cards are marked the winner."""
    stepped = table.page.evaluate(STEPPED, on_table)
    assert stepped is not None, f"{where}: the table never showed {on_table} cards"
    replay_look(table, where, shot, stepped)
    deal, played, status = stepped["position"]
    return int(deal), int(played), str(status), int(stepped["winners"])


def swipe(table: Table, dx: int) -> None:
    """A finger drawn across the board, `dx` px sideways (touch events through Chromium's
    protocol)."""
    page = table.page
    box = page.locator(".replay .board").bounding_box()
    x, y = box["x"] + box["width"] / 2 - dx / 2, box["y"] + box["height"] / 2
    cdp = page.context.new_cdp_session(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for step in range(1, 6):
        point = {"x": x + dx * step / 5, "y": y + step}
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


REPLAYED: dict[str, str] = {}
"""A finished match of two deals, played once through its socket for every replay test."""


def finished_match(page: Any, base_url: str) -> str:
    if "id" not in REPLAYED:
        match = new_match(page, base_url, rules="strict(deals=2)", name=LONG_NAME)
        finish(base_url, match)
        REPLAYED["id"] = match
    hold(page.context, "match", REPLAYED["id"])
    return REPLAYED["id"]


@pytest.mark.parametrize("size", list(SIZES))
def test_the_replay_is_the_table(browser: Any, base_url: str, screens: Path, size: str) -> None:
    """A finished match's replay on the table view, stepped through a whole deal by touch (a
    tap on the step buttons, a swipe across the board) or by the keyboard and the mouse on the
    desktop: at every card the table's checks hold (no scroll, the trick whole and uncovered,
    the hand's cards a fingertip each and in their places for the whole deal), the status
    line is whole, the step buttons are along the bottom edge; stepping on past the deal's
    end goes to the next deal, and back again. At the sizes other than FIRST, the first trick
    is stepped through and the deal's last card, the replay opened at the one before it (as
    a review's link opens it)."""
    ctx = phone_context(browser, size)
    page = ctx.new_page()
    table = Table(page, size, screens)
    table.prefix = "replay-"
    try:
        match = finished_match(page, base_url)
        page.goto(f"{base_url}/#/replay/{match}")
        page.locator(".replay .hand .card").first.wait_for()
        assert replay_position(page)[:2] == (0, 0)
        replay_look(table, "before the first lead", "start")
        forward = page.locator(".replay button.forward-card")
        back = page.locator(".replay button.back-card")
        assert back.is_disabled() and page.locator(".replay button.previous-trick").is_disabled()
        for played in range(1, 53) if size in FIRST else (1, 2, 3, 4, 52):
            if played == 52 and size not in FIRST:
                page.goto(f"{base_url}/#/replay/{match}?deal=1&step=51")
                assert replay_step(table, 3, "card 51")[:2] == (0, 51)
            if table.touch and played == 3:
                swipe(table, -120)  # to the left: on a card
            elif not table.touch and played % 2:
                page.keyboard.press("ArrowRight")
            else:
                table.press(forward)
            on_table = (played - 1) % 4 + 1
            shot = (
                "deal-over"
                if played == 52
                else "trick-won"
                if on_table == 4
                else f"trick-{on_table}-cards"
            )
            deal, shown, status, winners = replay_step(table, on_table, f"card {played}", shot)
            assert (deal, shown) == (0, played), (deal, shown, played)
            if on_table == 4:
                assert winners == 1
                assert "won trick" in status
        assert "the deal is over" in replay_position(page)[2]
        assert page.locator(".replay .seat .points").count() == 4
        moved = {card: places for card, places in table.places.items() if len(places) > 1}
        assert not moved, moved
        # Back a card by a swipe to the right (or the left arrow), on past the end to deal 2.
        if table.touch:
            swipe(table, 120)
        else:
            page.keyboard.press("ArrowLeft")
        page.wait_for_function(
            "() => document.querySelectorAll('.replay .trick .card').length === 3"
        )
        table.press(forward)
        table.press(forward)
        page.wait_for_function("() => document.querySelector('.replay .deal-pick').value === '1'")
        assert replay_position(page)[:2] == (1, 0)
        replay_look(table, "deal 2", "deal-2")
        table.press(back)
        page.wait_for_function("() => document.querySelector('.replay .deal-pick').value === '0'")
        assert replay_position(page)[:2] == (0, 52)
        table.press(page.locator(".replay button.previous-trick"))
        assert replay_position(page)[:2] == (0, 48)
        assert not table.problems, table.problems[:15]
    finally:
        ctx.close()


@pytest.mark.parametrize("lang", ["ne", "hi"])
def test_the_replay_in_every_language(
    browser: Any, base_url: str, screens: Path, lang: str
) -> None:
    """The replay's words in Nepali and Hindi at 360×740, with the longest name a person may
    give: every status line whole, the same checks at every card of a deal."""
    ctx = phone_context(browser, "360x740")
    ctx.add_init_script(f"localStorage.setItem('callbreak:lang', {json.dumps(lang)})")
    page = ctx.new_page()
    table = Table(page, "360x740", screens)
    table.prefix = f"replay-{lang}-"
    try:
        match = finished_match(page, base_url)
        page.goto(f"{base_url}/#/replay/{match}")
        page.locator(".replay .hand .card").first.wait_for()
        replay_look(table, "before the first lead", "start")
        for played in range(1, 53):
            table.press(page.locator(".replay button.forward-card"))
            shot = "deal-over" if played == 52 else None
            assert replay_step(table, (played - 1) % 4 + 1, f"card {played}", shot)[:2] == (
                0,
                played,
            )
        assert not table.problems, table.problems[:15]
    finally:
        ctx.close()


def test_a_reload_mid_deal_keeps_the_hands_places(
    browser: Any, base_url: str, screens: Path
) -> None:
    """Reloaded after two tricks, the page lays the hand out as it was: every card still held
    is where it was, the played ones' places left empty (only this tab remembers them)."""
    ctx = phone_context(browser, "390x844")
    page = ctx.new_page()
    table = Table(page, "390x844", screens)
    try:
        match = new_match(page, base_url, rules="strict(deals=1)", name="Asha", level="random")
        page.goto(f"{base_url}/#/play/{match}")
        page.locator(".hand .card").first.wait_for()
        plays = 0
        for _ in range(2_000):
            now = asks(page)
            if now == "call":
                table.press(page.locator(".calling:not([hidden]) button.call").first)
                page.locator(".calling").wait_for(state="hidden")
            elif now == "play":
                if plays == 2:
                    break
                card = page.locator(".hand.active .card.playable:not(.gone)").first
                page.evaluate("localStorage.setItem('callbreak:onetap', 'on')")
                code = card.get_attribute("data-card")
                table.press(card)
                played(page, code)
                plays += 1
            else:
                page.wait_for_timeout(20)
        assert plays == 2
        before = table.look("before the reload")["places"]
        page.reload()
        page.locator(".hand .card:not(.gone)").first.wait_for()
        page.wait_for_function("() => document.querySelectorAll('.hand .card.gone').length === 2")
        after = table.look("after the reload", "reloaded")["places"]
        assert after == before
        assert not table.problems, table.problems
    finally:
        ctx.close()


def test_a_thrown_in_deal_is_said(browser: Any, base_url: str, screens: Path) -> None:
    """Calls that total less than the rules allow throw the deal in: the page says so and deals
    the new hand, rather than the calls vanishing with no word."""
    ctx = phone_context(browser, "390x844")
    page = ctx.new_page()
    try:
        # 52: no four calls reach it unless all call 13, so the deal is thrown in.
        match = new_match(page, base_url, rules="strict(deals=1, min_total_calls=52)")
        page.goto(f"{base_url}/#/play/{match}")
        page.locator(".calling:not([hidden]) button.call").first.wait_for()
        page.locator(".calling:not([hidden]) button.call").first.tap()
        note = page.locator(".note.info:not([hidden])")
        note.wait_for()
        assert "thrown in and dealt again" in note.inner_text()
        page.screenshot(path=str(screens / "phone-390x844-thrown-in.png"))
        page.locator(".calling:not([hidden]) button.call").first.wait_for()
        assert page.locator(".hand .card:not(.gone)").count() == 13
        assert page.evaluate("window.__sync.latest.thrown_in") == ["min_total_calls"]
    finally:
        ctx.close()


def test_the_keyboard_stays_in_the_hand(browser: Any, base_url: str) -> None:
    """After a call or a card made from the keyboard, the focus is on a card still held (never
    lost to the page), so that the arrow keys go on working."""
    ctx = phone_context(browser, "1366x768")
    page = ctx.new_page()
    try:
        match = new_match(page, base_url, rules="strict(deals=1)")
        page.goto(f"{base_url}/#/play/{match}")
        call = page.locator(".calling:not([hidden]) button.call").first
        call.wait_for()
        call.focus()
        page.keyboard.press("Enter")
        focused = "() => document.activeElement.matches('.hand button.card:not(.gone)')"
        page.wait_for_function(focused)
        page.locator(".hand.active .card.playable").first.wait_for()
        page.locator(".hand.active .card.playable").first.focus()
        page.keyboard.press("Enter")
        page.wait_for_function("() => document.querySelectorAll('.hand .card.gone').length === 1")
        assert page.evaluate(focused)
    finally:
        ctx.close()


def test_an_error_while_a_card_travels_leaves_it_played(browser: Any, base_url: str) -> None:
    """An error that arrives while the person's card is still on its way to the trick (a
    refusal of something else, "too many messages") does not put the card back in the hand."""
    width, height, _touch = SIZES["390x844"]
    ctx = browser.new_context(
        viewport={"width": width, "height": height}, has_touch=True, is_mobile=True
    )  # with motion: the card travels
    ctx.add_init_script("localStorage.setItem('callbreak:lang', 'en');")
    ctx.add_init_script("localStorage.setItem('callbreak:onetap', 'on');")
    ctx.add_init_script(CHECKS)
    ctx.set_default_timeout(20_000)
    page = ctx.new_page()
    try:
        match = new_match(page, base_url, rules="strict(deals=1)")
        page.goto(f"{base_url}/#/play/{match}")
        for _ in range(600):
            now = asks(page)
            if now == "play":
                break
            if now == "call":
                page.locator(".calling:not([hidden]) button.call").first.tap()
            page.wait_for_timeout(20)
        card = page.locator(".hand.active .card.playable").first
        code = card.get_attribute("data-card")
        page.evaluate(
            """() => { const socket = window.__sockets[window.__sockets.length - 1];
              socket.addEventListener('message', (event) => {
                const message = JSON.parse(event.data);
                if (message.type !== 'state' || window.__errored) return;
                window.__errored = true;
                setTimeout(() => socket.dispatchEvent(new MessageEvent('message',
                  { data: JSON.stringify({ type: 'error', message: 'too many messages' }) })), 40);
              }); }"""
        )
        card.tap()
        page.wait_for_function("() => window.__errored === true")
        page.wait_for_timeout(120)  # the error has come, the card still on its way
        assert page.locator(f".hand .card[data-card='{code}']:not(.gone)").count() == 0
    finally:
        ctx.close()
