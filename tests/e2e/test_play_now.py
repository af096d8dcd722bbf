"""Play now in real headless Chromium, by touch at 390×844 (docs/public.md, *Pools*): two
people press *Play now* (the first is asked a name, the second's browser knows one) and meet at
one table with two computers; a third presses it while the first deal is played and takes a
computer's seat from the next deal, watching until then and shown nothing of that seat's hand
before it; a reaction shows on the sender's badge in the other browsers. Screenshots of the
start page, the wait, the seat taken over and the reactions at 360×740 and 844×390.

Every state a page receives is checked against the server's table: no card of another seat's
hand, and none of the taken-over seat's before the person's first deal. The pools' clock is
the server's, moved on by the test when it wants the table to start (no test waits on the
pool's real wait)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from callbreak.web.app import create_app
from callbreak.web.pools import Pool
from tests.e2e.table import turn
from tests.fairness import hidden_cards_seen
from tests.helpers import FAST, running

PHONE = {"width": 390, "height": 844}
SHOTS = ({"width": 360, "height": 740}, {"width": 844, "height": 390})
WAIT = 60.0
POOL = Pool("strict", "strict(deals=2)", 60, "random", WAIT, "fast")
QUIET = Pool("bhoos", "bhoos", 60, "random", WAIT, "fast")
"""A pool nobody plays in: its wait goes on for as long as the test looks at it."""


class Clock:
    """The pools' clock: the wall clock, moved on by ``ahead`` seconds when the test says."""

    def __init__(self) -> None:
        self.ahead = 0.0

    def __call__(self) -> float:
        return time.time() + self.ahead


@pytest.fixture(scope="module")
def public(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """An app of its own with one pool (two deals, fast computers, a minute's wait the test
    cuts short), served on a free loopback port."""
    pools = (POOL, QUIET)
    app = create_app(tmp_path_factory.mktemp("now") / "db.sqlite", limits=FAST, pools=pools)
    clock = Clock()
    app.state.pools.clock = clock
    with running(app, log_level="warning") as url:
        yield {"url": url, "app": app, "clock": clock}


class Person:
    """One browser at 390×844 by touch, its socket frames recorded."""

    def __init__(self, browser: Any, base: str, name: str | None = None) -> None:
        self.context = browser.new_context(
            viewport=PHONE, has_touch=True, is_mobile=True, reduced_motion="reduce"
        )
        script = "localStorage.setItem('callbreak:pause', 'off');"
        if name:  # a browser that played before: it knows the name, Play now asks nothing
            script += f"localStorage.setItem('callbreak:name', {json.dumps(name)});"
        self.context.add_init_script(script)
        self.context.set_default_timeout(20_000)
        self.page = self.context.new_page()
        self.frames: list[str] = []
        self.page.on(
            "websocket", lambda ws: ws.on("framereceived", lambda f: self.frames.append(f))
        )
        self.base = base

    def play_now(self, pool: str | None = None) -> None:
        """Press Play now on the start page, or open it for ``pool``."""
        if pool is not None:
            self.page.goto(f"{self.base}/#/now/{pool}")
            return
        self.page.goto(self.base + "/#/")
        self.page.locator("a.play-now").tap()

    def make_player(self) -> dict[str, Any]:
        """Press Play now in the pool nobody plays in and stop waiting: the player it made, as
        this browser keeps it."""
        self.play_now("bhoos")
        self.page.locator(".now-wait").wait_for()
        self.page.locator("button.cancel").tap()
        self.page.wait_for_url("**/#/")  # off the list, and back at the start page
        return dict(self.page.evaluate("JSON.parse(localStorage.getItem('callbreak:player'))"))

    def room(self) -> str:
        """The room the page went to once seated."""
        self.page.wait_for_url("**/#/room/*", timeout=30_000)
        return self.page.url.rsplit("/", 1)[1]

    def seat(self, code: str) -> int:
        entry = self.page.evaluate(f"JSON.parse(localStorage.getItem('callbreak:room:{code}'))")
        return int(entry["seat"])

    def step(self) -> str | None:
        """Do by touch what the page asks now: close a summary, make the lowest call, or play
        the first legal card (a tap lifts it, a second tap plays it)."""
        page = self.page
        now = turn(page)
        try:
            if now == "dialog":
                page.locator("dialog.result[open] button.primary").tap(timeout=3_000)
            elif now == "call":
                page.locator(".calling:not([hidden]) button.call").first.tap(timeout=3_000)
            elif now == "play":
                page.locator(".hand.active .card.playable:not(.gone)").first.tap(timeout=3_000)
                page.locator(".hand .card.lifted").first.tap(timeout=3_000)
            else:
                return None
        except PlaywrightTimeout:
            return None  # the page moved on meanwhile: asked again
        return now

    def shoot(self, screens: Path, name: str) -> None:
        """Screenshots at 360×740 and 844×390, then back to 390×844."""
        for size in SHOTS:
            self.page.set_viewport_size(size)
            self.page.wait_for_timeout(250)  # the layout settles (the hand is placed anew)
            shot = screens / f"now-{name}-{size['width']}x{size['height']}.png"
            self.page.screenshot(path=str(shot))
            assert self.page.evaluate(
                "document.documentElement.scrollWidth <= document.documentElement.clientWidth"
            ), f"{name} scrolls sideways at {size}"
        self.page.set_viewport_size(PHONE)


def fair(table: Any, person: Person, seat: int, since: int = 0) -> None:
    data = table.state.data
    leaks = hidden_cards_seen(person.frames, seat, data.rules, data.seed, data.actions, since)
    assert leaks == [], f"seat {seat} was sent {leaks[:5]}"


def test_play_now_seats_strangers_and_a_third_takes_a_computers_seat(
    browser: Any, public: dict[str, Any], screens: Path
) -> None:
    base, app = public["url"], public["app"]
    asha = Person(browser, base)
    bina = Person(browser, base, name="Bina")
    dev = Person(browser, base)
    try:
        asha.page.goto(base + "/#/")
        asha.shoot(screens, "start")
        asha.play_now()
        # A browser that knows no name is asked one (and a picture), once.
        asha.page.fill("#player-name", "Asha")
        asha.page.locator(".avatar-choice:has(input[value='lotus'])").tap()
        asha.page.locator("form.player-form button[type=submit]").tap()
        asha.page.locator(".now-wait .now-seconds").wait_for()
        asha.shoot(screens, "wait")
        bina.play_now()  # one tap: this browser knows her name
        bina.page.locator(".now-wait").wait_for()
        assert bina.page.locator("#player-name").count() == 0
        waiting = [p for p, _ in app.state.store.waiting("strict")]
        assert len(waiting) == 2
        public["clock"].ahead += WAIT  # the pool's wait is over: the two sit down together
        code = asha.room()
        assert bina.room() == code
        table = app.state.tables.live[code]
        kinds = [seat.kind for seat in table.state.data.seats]
        assert sorted(kinds) == ["computer", "computer", "person", "person"]
        seats = {asha.seat(code): asha, bina.seat(code): bina}
        for person in seats.values():
            person.page.locator(".board .seat").first.wait_for()
        # At a table of strangers the first person seated has no creator's powers; the badges
        # carry the people's pictures.
        assert asha.page.locator(".seat-controls").count() == 0
        asha.page.locator(".seat img.picture[src$='avatar-lotus.svg']").first.wait_for()

        # The first deal begins; a third person presses Play now and takes a computer's seat
        # from the next deal.
        deadline = time.monotonic() + 60
        while not table.state.match.deal.actions:
            assert time.monotonic() < deadline, "the first deal did not begin"
            if not any(person.step() for person in seats.values()):
                asha.page.wait_for_timeout(50)
        dev.play_now()
        dev.page.fill("#player-name", "Dev")
        dev.page.locator("form.player-form button[type=submit]").tap()
        assert dev.room() == code
        dev_seat = dev.seat(code)
        assert table.state.data.seats[dev_seat].since == 1
        dev.page.wait_for_function(
            "() => /seat from deal 2/.test(document.querySelector('.watching')?.textContent || '')"
        )
        assert dev.page.locator(".hand .card").count() == 0
        dev.shoot(screens, "arriving")

        # The first deal played out by touch; Dev's hand is dealt to him with the second.
        deadline = time.monotonic() + 240
        while len(table.state.match.deals) < 2 or dev.page.locator(".hand .card").count() == 0:
            assert time.monotonic() < deadline, "the second deal did not reach Dev"
            if not any(person.step() for person in seats.values()):
                asha.page.wait_for_timeout(50)
        dev.page.locator(".seat.mine").wait_for()
        hand = set(dev.page.locator(".hand .card").evaluate_all("e => e.map(c => c.dataset.card)"))
        assert hand <= {str(card) for card in table.state.match.deals[1].hands[dev_seat]}

        # A reaction by touch: on Asha's badge in Bina's and Dev's browsers (the first deal's
        # summary closed first).
        for person in (asha, bina, dev):
            if turn(person.page) == "dialog":
                person.step()
        asha_seat = asha.seat(code)
        asha.page.locator("button.react-button").tap()
        asha.page.locator(".reactions:not([hidden]) button[data-reaction='thumbs']").wait_for()
        asha.shoot(screens, "reactions")
        asha.page.locator(".reactions button[data-reaction='thumbs']").tap()
        for other in (bina, dev):
            bubble = other.page.locator(f".seat[data-seat='{asha_seat}'] .reaction-bubble")
            bubble.wait_for()
            assert bubble.get_attribute("data-reaction") == "thumbs"
            assert bubble.locator("svg").count() == 1 and bubble.inner_text() == "Thumbs up"
        bina.shoot(screens, "reaction-shown")
        # Muted at Dev's table: the next reaction shows nowhere on his page.
        dev.page.locator("button.react-button").tap()
        dev.page.locator(".reactions .mute").tap()
        dev.page.locator(".reactions button[data-reaction='well_played']").tap()
        bina.page.locator(f".seat[data-seat='{dev_seat}'] .reaction-bubble").wait_for()
        bina.page.locator("button.react-button").tap()
        bina.page.locator(".reactions button[data-reaction='good_luck']").tap()
        asha.page.locator(".reaction-bubble", has_text="Good luck!").wait_for()
        assert dev.page.locator(".reaction-bubble", has_text="Good luck!").count() == 0

        # The others learn a person's name and picture, never their profile's public id.
        ids = {
            p.page.evaluate("JSON.parse(localStorage.getItem('callbreak:player')).id")
            for p in (asha, bina, dev)
        }
        for person in (asha, bina, dev):
            assert not any(i in frame for i in ids for frame in person.frames)
        for seat, person in seats.items():
            fair(table, person, seat)
        fair(table, dev, dev_seat, since=1)
        # Before his first deal Dev was sent no hand at all.
        states = [m for m in map(json.loads, dev.frames) if m["type"] == "state"]
        early = [m for m in states if m["state"]["seat"] is None]
        assert early and all(m["state"]["hand"] == [] for m in early)
    finally:
        for person in (asha, bina, dev):
            person.context.close()


def test_a_wait_left_from_the_page_takes_the_person_off_the_list(
    browser: Any, public: dict[str, Any]
) -> None:
    base, app = public["url"], public["app"]
    eli = Person(browser, base, name="Eli")
    try:
        eli.play_now("bhoos")
        eli.page.locator(".now-wait").wait_for()
        deadline = time.monotonic() + 10
        while not app.state.store.waiting("bhoos"):  # the join on its way to the server
            assert time.monotonic() < deadline, "Play now put nobody on the list"
            time.sleep(0.05)
        eli.page.locator("button.cancel").tap()
        eli.page.wait_for_url("**/#/")
        deadline = time.monotonic() + 10
        while app.state.store.waiting("bhoos"):
            assert time.monotonic() < deadline, "still waiting after Stop waiting"
            time.sleep(0.05)
    finally:
        eli.context.close()


@pytest.mark.parametrize("lang", ["ne", "hi"])
def test_play_now_in_nepali_and_hindi(
    browser: Any, public: dict[str, Any], screens: Path, lang: str
) -> None:
    """The start page's Play now, the name asked and the wait in the page's language, at
    360×740 and 844×390 (screenshots), nothing scrolling sideways."""
    base = public["url"]
    person = Person(browser, base)
    person.context.add_init_script(f"localStorage.setItem('callbreak:lang', {json.dumps(lang)})")
    try:
        person.page.goto(base + "/#/")
        person.shoot(screens, f"start-{lang}")
        person.page.goto(base + "/#/now/bhoos")
        person.page.locator("#player-name").wait_for()
        person.shoot(screens, f"name-{lang}")
        person.page.fill("#player-name", "सीता")
        person.page.locator("form.player-form button[type=submit]").tap()
        person.page.locator(".now-wait").wait_for()
        person.shoot(screens, f"wait-{lang}")
        words = person.page.locator(".now-page").inner_text()
        assert "Waiting" not in words and "Stop waiting" not in words  # no English left
        person.page.locator("button.cancel").tap()
        person.page.wait_for_url("**/#/")
    finally:
        person.context.close()


def test_the_history_file_carries_the_player(browser: Any, public: dict[str, Any]) -> None:
    """The player made by Play now goes with the history's export, and a browser that has none
    takes it from the import (the file checked field by field, as every entry is)."""
    base = public["url"]
    one = Person(browser, base, name="Fay")
    other = Person(browser, base)
    try:
        made = one.make_player()
        assert made["name"] == "Fay" and len(made["token"]) >= 43
        one.page.goto(base + "/#/history")
        with one.page.expect_download() as download:
            one.page.get_by_role("button", name="Export history").tap()
        saved = Path(download.value.path()).read_text(encoding="utf-8")
        exported = json.loads(saved)
        assert exported["player"] == {
            "id": made["id"],
            "token": made["token"],
            "name": "Fay",
            "avatar": made["avatar"],
        }
        other.page.goto(base + "/#/history")
        for bad in ({"id": made["id"]}, {**exported["player"], "avatar": "../x"}):
            told = _import(other, {**exported, "player": bad})
            assert "nothing was imported" in told, told
            assert other.page.evaluate("localStorage.getItem('callbreak:player')") is None
        _import(other, exported)
        taken = other.page.evaluate("JSON.parse(localStorage.getItem('callbreak:player'))")
        assert taken == made
    finally:
        for person in (one, other):
            person.context.close()


def _import(person: Person, data: dict[str, Any]) -> str:
    """Import ``data`` as the history file; what the page says of it. The page draws its view
    again once the import is done: the message of the import before (or the empty one) goes,
    and this one's comes, so that nothing is read before this import has run."""
    page = person.page
    before = page.locator(".move-message").element_handle()
    with page.expect_file_chooser() as chooser:
        page.get_by_role("button", name="Import history").tap()
    file = {"name": "h.json", "mimeType": "application/json", "buffer": json.dumps(data).encode()}
    chooser.value.set_files(files=[file])
    page.wait_for_function("old => !old.isConnected", arg=before)
    message = page.locator(".move-message")
    message.wait_for()
    page.wait_for_function("() => document.querySelector('.move-message')?.textContent")
    return str(message.inner_text())


def test_one_player_for_play_now_the_challenge_and_the_profiles_page(
    browser: Any, public: dict[str, Any], screens: Path
) -> None:
    """A browser keeps one player (static/player.js): the one Play now made is the profile's
    page's, the daily challenge's and the leaderboard's, none of which asks for another; and
    the one made on the challenge page is the one Play now plays as, with no name asked."""
    base = public["url"]
    gita = Person(browser, base, name="Gita")
    hari = Person(browser, base)
    try:
        made = gita.make_player()
        gita.page.goto(base + "/#/player")
        gita.page.wait_for_url(f"**/#/player/{made['id']}")
        gita.page.locator(".player-head h1", has_text="Gita").wait_for()
        gita.page.screenshot(path=str(screens / "now-then-profile-390x844.png"), full_page=True)
        gita.page.goto(base + "/#/challenge")
        gita.page.locator(".attempt button.primary").wait_for()
        assert gita.page.locator(".player-form").count() == 0
        gita.page.screenshot(path=str(screens / "now-then-challenge-390x844.png"), full_page=True)
        gita.page.goto(base + "/#/leaderboard")
        gita.page.locator(".your-place").wait_for()
        assert "no rated match" in gita.page.locator(".your-place").inner_text()  # hers
        assert gita.page.evaluate("JSON.parse(localStorage.getItem('callbreak:player'))") == made

        hari.page.goto(base + "/#/challenge")
        hari.page.locator(".player-form").wait_for()
        hari.page.fill("#player-name", "Hari")
        hari.page.locator(".player-form button[type=submit]").tap()
        hari.page.locator(".attempt button.primary").wait_for()
        hari.play_now("bhoos")
        hari.page.locator(".now-wait").wait_for()
        assert hari.page.locator(".player-form").count() == 0
        assert "Hari" in hari.page.locator(".now-who").inner_text()
        hari.page.locator("button.cancel").tap()
        hari.page.wait_for_url("**/#/")
    finally:
        for person in (gita, hari):
            person.context.close()
