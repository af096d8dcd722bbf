"""Every page of the app in real Chromium under the app's Content-Security-Policy: none breaks
it (no inline script or style, nothing from another site), so the policy costs the pages
nothing. Each page listens for ``securitypolicyviolation`` from before its first script, and
the console is read for Chromium's own reports; a page that breaks the policy on purpose shows
that the listening works."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from callbreak.web.http import CSP
from tests.e2e.table import context, finish, new_match, play_to, play_until, step
from tests.e2e.test_rooms import create_room

LISTEN = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(
  `${e.violatedDirective} blocked ${e.blockedURI || "inline"} at ${e.sourceFile}:${e.lineNumber}`));
"""


class Watched:
    """Browser contexts whose pages report every breach of the policy, and every script error."""

    def __init__(self, browser: Any) -> None:
        self.browser = browser
        self.contexts: list[Any] = []
        self.pages: list[Any] = []
        self.breaches: list[str] = []
        self.errors: list[str] = []

    def page(self, **options: Any) -> Any:
        """A page in a fresh context (its own storage)."""
        made = context(self.browser, **options)
        made.add_init_script(LISTEN)
        self.contexts.append(made)
        page = made.new_page()
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.pages.append(page)
        return page

    def _console(self, message: Any) -> None:
        if "Content Security Policy" in message.text or "Content-Security-Policy" in message.text:
            self.breaches.append(message.text)

    def visit(self, page: Any, base_url: str, hash_: str, ready: str) -> None:
        """Go to a page of the app (a new document: the policy is its answer's) and wait."""
        self.collect(page)
        answer = page.goto(f"{base_url}/{hash_}")
        if answer is not None:  # None: only the hash changed, the same document goes on
            assert answer.headers["content-security-policy"] == CSP
        page.wait_for_selector(ready)

    def collect(self, page: Any) -> None:
        """What the page reported so far (a new document starts its own list)."""
        self.breaches += page.evaluate("window.__violations.splice(0)")

    def close(self) -> list[str]:
        """Every breach reported, once the pages have been read."""
        for page in self.pages:
            self.collect(page)
        for made in self.contexts:
            made.close()
        self.pages, self.contexts = [], []
        return self.breaches


@pytest.fixture
def watched(browser: Any) -> Iterator[Watched]:
    pages = Watched(browser)
    yield pages
    pages.close()


def test_every_page_keeps_to_the_content_security_policy(
    watched: Watched, base_url: str, server: Any
) -> None:
    # The home page, its languages, and a match against the computer started from it.
    asha = watched.page(motion=True)
    watched.visit(asha, base_url, "#/", "#name")
    asha.select_option("#lang", "ne")
    asha.wait_for_function("() => document.documentElement.lang === 'ne'")
    asha.select_option("#lang", "en")
    asha.fill("#name", "Asha")
    for index in range(3):
        asha.select_option(f"#opponent-{index}", "random")
    asha.click("summary")  # more options
    asha.select_option("#speed", "instant")
    asha.click("text=Start the match")
    asha.wait_for_url(re.compile(r"#/play/"))
    # The table: a hint, the settings with sound on, cards travelling, the last trick.
    play_until(asha, "call")
    asha.locator(".calling .hint-call").click()
    asha.locator(".calling button.call.suggested").wait_for()
    play_until(asha, "play")
    asha.locator(".hint-button").click()
    asha.locator(".hand .card.suggested").wait_for()
    asha.locator(".settings-button").click()
    asha.wait_for_selector("dialog.settings-dialog[open]")
    asha.keyboard.press("Escape")
    for _ in range(40):
        step(asha)
    if asha.locator(".last-trick").is_enabled():
        asha.locator(".last-trick").click()
    # A one-deal match played to its end through its socket (the table's clicks were made
    # above), its end as the page shows it, then the pages that look back at it.
    finished = new_match(asha, base_url, rules="strict(deals=1)", name="Asha")
    finish(base_url, finished)
    watched.visit(asha, base_url, f"#/play/{finished}", "dialog.result[open]")
    watched.visit(asha, base_url, "#/history", f"tr[data-match='{finished}']")
    watched.visit(asha, base_url, f"#/replay/{finished}", ".replay .board")
    # Its review: asked at once, its progress and then its summary (a first review also starts
    # the review's process).
    watched.visit(asha, base_url, f"#/review/{finished}", ".review-panel")
    asha.locator(".review-summary").wait_for(timeout=180_000)
    watched.visit(asha, base_url, "#/record", ".record-page .figures")

    # A room made from the new-room page; a friend opens the invite link and joins.
    watched.visit(asha, base_url, "#/friends", "#room-name")
    asha.fill("#room-name", "Asha")
    asha.select_option("#room-seat-1", "random")
    asha.select_option("#room-clock", "15")
    asha.click("text=Create the room")
    asha.wait_for_url(re.compile(r"#/room/[2-9A-Z]{6}$"))
    code = asha.url.rsplit("/", 1)[1]
    asha.wait_for_selector(".seat-row.mine[data-seat='0']")
    bikash = watched.page(width="390")
    watched.visit(bikash, base_url, f"#/room/{code}", "#join-name")
    bikash.fill("#join-name", "Bikash")
    bikash.click("form.join button[type=submit]")
    bikash.wait_for_selector(".seat-row.mine")
    asha.locator(".seat-row[data-seat='3'] button:text('Seat a computer')").click()
    asha.click("text=Start the match")
    for page in (asha, bikash):
        page.wait_for_selector(".hand .card")
    # A one-deal room played to its end (made over the API for its rules), and its replay.
    chandra = watched.page()
    short, token = create_room(
        base_url, chandra, rules="strict(deals=1)", seats=["random"] * 3, speed="instant"
    )
    watched.visit(chandra, base_url, f"#/room/{short}", ".seat-row.mine[data-seat='0']")
    chandra.click("text=Start the match")
    chandra.wait_for_selector(".hand .card")
    play_to(base_url, short, room_token=token)
    chandra.wait_for_selector("dialog.result[open]")
    watched.visit(chandra, base_url, f"#/replay/room/{short}", ".replay .board")

    # The scoresheet: a new one, a deal entered, its page.
    dipa = watched.page()
    names = ["Asha", "Bikash", "Chandra", "Dipa"]
    watched.visit(dipa, base_url, "#/sheet", "#sheet-profile-summary")
    for index, name in enumerate(names, 1):
        dipa.get_by_label(f"Player {index}", exact=True).fill(name)
    dipa.get_by_role("button", name="Start the scoresheet").click()
    dipa.wait_for_url(re.compile(r"#/sheet/[\w-]+$"))
    for name, call, taken in zip(names, [3, 4, 2, 3], [5, 3, 2, 3], strict=True):
        dipa.get_by_label(f"{name}'s call", exact=True).fill(str(call))
        dipa.get_by_label(f"{name}'s tricks", exact=True).fill(str(taken))
    dipa.get_by_role("button", name="Add deal 1", exact=True).click()
    dipa.wait_for_selector('tr[data-deal="1"]')
    watched.visit(dipa, base_url, "#/sheet", "#sheet-profile-summary")
    # Pages of what is not there.
    watched.visit(dipa, base_url, "#/room/ZZZZZZ", "h1:text('No such room')")
    watched.visit(dipa, base_url, "#/nothing-here", ".error")
    # The service worker's page when the server cannot be reached (tests/e2e/test_pwa.py shows
    # it in its place), at its own address.
    watched.visit(dipa, base_url, "static/offline.html", "#offline-title:text('No connection')")

    breaches = watched.close()
    assert breaches == [], breaches
    assert watched.errors == [], watched.errors


def test_a_page_that_breaks_the_policy_is_caught(watched: Watched, base_url: str) -> None:
    """The listening works: an inline style and an inline script are reported, and blocked."""
    page = watched.page()
    watched.visit(page, base_url, "#/", "#name")
    page.evaluate(
        """() => {
          document.body.insertAdjacentHTML("beforeend", '<p id="styled" style="color: red">x</p>');
          const script = document.createElement("script");
          script.textContent = "window.__ran = true";
          document.body.append(script);
        }"""
    )
    page.wait_for_function("() => window.__violations.length >= 2")
    assert page.evaluate("window.__ran") is None
    breaches = watched.close()
    assert any(b.startswith("style-src") for b in breaches), breaches
    assert any(b.startswith("script-src") for b in breaches), breaches
