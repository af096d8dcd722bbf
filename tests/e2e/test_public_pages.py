"""Public play's pages in Chromium (issue 44 items 4 and 5): the daily challenge (today's
commitment, a person's attempt begun on the page and played on the table page, today's and
yesterday's standings), the leaderboards (provisional ratings hidden, the person's own place)
and a profile's page (its rating history drawn as a chart, matches played and left, calls made,
accuracy), reached from the start page by touch at 360x740, 390x844 and 844x390 and by mouse at
1366x768, in English, Nepali and Hindi: nothing scrolls sideways, and every page is
screenshotted for a person to look at (tests/e2e/screens)."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

import pytest

from callbreak.ratings import Computer, Outcome, Person
from callbreak.web.model import hash_token
from tests.e2e.table import play_until, sideways

SIZES = [(360, 740), (390, 844), (844, 390), (1366, 768)]
LANGS = ["en", "ne", "hi"]
ME = {"id": "e2e-me-0001", "token": "e2e-token-of-the-person", "name": "Asha", "avatar": "lotus"}
PEOPLE = [
    ("e2e-p-01", "भाग्यलक्ष्मी श्रेष्ठ-राई", "sun"),  # a long name in Devanagari
    ("e2e-p-02", "Bhagyalaxmi Shrestha-Rai", "moon"),  # 24 characters, the most
    ("e2e-p-03", "Chandra", "mountain"),
    ("e2e-p-04", "Dipa", "kite"),
    ("e2e-p-05", "Esha", "drum"),
    ("e2e-p-06", "Gopal", "sun"),
]


@pytest.fixture(scope="module")
def public(server: dict[str, Any]) -> dict[str, Any]:
    """Public play as a person finds it after some days: profiles with ratings over many
    matches, today's and yesterday's attempts played, this person's among them."""
    app = server["app"]
    store = app.state.store
    daily = app.state.challenge
    today = daily.today()
    yesterday = today - datetime.timedelta(days=1)
    people = [(ME["id"], ME["name"], ME["avatar"]), *PEOPLE]
    for number, (profile, name, avatar) in enumerate(people):
        if store.profile(profile) is None:
            token = ME["token"] if profile == ME["id"] else f"token-{profile}"
            person = {"id": profile, "token": hash_token(token), "name": name, "avatar": avatar}
            store.create_profile(person | {"created": 1.7e9, "updated": 1.7e9})
        # Ratings over matches won and lost against the computer: a line that moves.
        # The last one's rating is provisional: never on the leaderboard.
        for match in range(4 if number == len(PEOPLE) else 12 + 2 * number):
            place = 1 + (match * (number + 1)) % 4
            places = tuple([place] + [p for p in (1, 2, 3, 4) if p != place])
            computers = [Computer(level) for level in ("intermediate", "beginner", "random")]
            seats = (Person(profile), *computers)
            store.settle(Outcome(f"e2e-{profile}-{match}", "strict", seats, places))
    for day in (yesterday, today):
        closes = daily.closes(day)
        for number, (profile, _, _) in enumerate(people):
            attempt = {
                "day": day.isoformat(), "profile": profile, "address": f"a{number}",
                "ranked": number != 5, "why": None if number != 5 else "provisional",
                "match": f"e2e-none-{number}", "token": "x", "started": closes - 86_000,
                "state": "finished", "total": 420 - 37 * number + (day == today) * 11,
                "deals": 5, "made": 5 - number % 3, "ended": closes - 85_000 + number,
                "accuracy": round(91.4 - 3.3 * number, 1),
            }  # fmt: skip
            store.begin_attempt(attempt, 10)
            if day == yesterday:  # counted on the profile's page: its day has closed
                play = {"deals": 5, "made": attempt["made"], "total": attempt["total"],
                        "accuracy": attempt["accuracy"], "challenge": day.isoformat(),
                        "shown": closes}  # fmt: skip
                store.tally(profile, f"challenge:{day.isoformat()}", closes - 85_000, play)
    return {"today": today, "yesterday": yesterday}


def context(browser: Any, lang: str, width: int, height: int, player: dict[str, Any] | None) -> Any:
    """A browser at a size, in a language, touch below 900 px, with this person's profile."""
    phone = width < 900
    made = browser.new_context(
        viewport={"width": width, "height": height}, is_mobile=phone, has_touch=phone,
        reduced_motion="reduce",
    )  # fmt: skip
    script = f"localStorage.setItem('callbreak:lang', {json.dumps(lang)});"
    if player is not None:
        script += f"localStorage.setItem('callbreak:player', {json.dumps(json.dumps(player))});"
    made.add_init_script(script)
    made.set_default_timeout(20_000)
    return made


def press(page: Any, locator: Any, phone: bool) -> None:
    """A tap on a touch screen, a click with a mouse."""
    if phone:
        locator.tap()
    else:
        locator.click()


CUT = """() => [...document.querySelectorAll('.public-page *')]
  .filter((e) => e.getClientRects().length && getComputedStyle(e).overflowX !== 'auto')
  .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
  .map((e) => e.outerHTML.slice(0, 80))"""


def looks(page: Any, screens: Path, name: str) -> None:
    """The page fits its width (nothing sideways, nothing past the right edge), and its
    screenshot is kept."""
    assert page.evaluate(CUT) == [], name
    assert sideways(page) <= 0, name
    page.screenshot(path=str(screens / f"{name}.png"), full_page=True)


@pytest.mark.parametrize("lang", LANGS)
def test_the_public_pages_from_the_start_page_at_every_size(
    browser: Any, base_url: str, screens: Path, public: dict[str, Any], lang: str
) -> None:
    today = public["today"].isoformat()
    for width, height in SIZES:
        phone = width < 900
        made = context(browser, lang, width, height, ME)
        page = made.new_page()
        size = f"{lang}-{width}x{height}"
        try:
            page.goto(f"{base_url}/#/")
            links = page.locator(".public-links")
            links.scroll_into_view_if_needed()
            assert sideways(page) <= 0
            links.screenshot(path=str(screens / f"start-links-{size}.png"))
            press(page, page.locator("a.public-link[href='#/challenge']"), phone)
            page.wait_for_selector(".challenge-page table.standings")
            # Today's standings are shown to a person who has played: their own row marked.
            tables = page.locator("table.standings")
            assert tables.count() == 2  # today's and yesterday's
            mine = page.locator("table.standings").first.locator("tr.mine")
            assert mine.count() == 1 and ME["name"] in mine.inner_text()
            assert page.locator(".attempt .figure").count() == 3
            assert today in page.evaluate("document.documentElement.innerHTML") or lang != "en"
            looks(page, screens, f"challenge-{size}")
            # A person of the standings: their page, with its chart.
            press(page, page.locator("table.standings").first.locator("a.person").first, phone)
            page.wait_for_selector("svg.rating-chart polyline")
            points = page.locator("svg.rating-chart polyline").first.get_attribute("points")
            assert points is not None and len(points.split()) >= 8
            assert page.locator(".player-page .figure").count() == 4
            looks(page, screens, f"player-{size}")
            # The leaderboards, from the start page.
            page.goto(f"{base_url}/#/")
            press(page, page.locator("a.public-link[href='#/leaderboard']"), phone)
            page.wait_for_selector(".leaderboard-page table.standings")
            rows = page.locator(".leaderboard-page table.standings tbody tr")
            assert rows.count() >= 6
            assert page.locator(".leaderboard-page tr.mine").count() == 1
            assert page.locator(".leaderboard-page .your-place").inner_text()
            looks(page, screens, f"leaderboard-{size}")
            # The person's own page, from the start page.
            page.goto(f"{base_url}/#/")
            press(page, page.locator("a.public-link[href^='#/player']"), phone)
            page.wait_for_selector(".player-page svg.rating-chart polyline")
            assert ME["name"] in page.locator(".player-head h1").inner_text()
            looks(page, screens, f"me-{size}")
        finally:
            made.close()


def test_a_new_person_makes_a_player_and_plays_the_challenge_on_the_table_page(
    browser: Any, base_url: str, screens: Path, public: dict[str, Any]
) -> None:
    """From the challenge page by touch: make a player, begin the attempt, play it on the
    table page to its end, and find the result and today's standings back on the challenge
    page; a second attempt is not offered."""
    made = context(browser, "en", 390, 844, None)
    made.add_init_script(
        "localStorage.setItem('callbreak:new', JSON.stringify({speed: 'instant'}));"
        "localStorage.setItem('callbreak:pause', 'off');"
    )
    page = made.new_page()
    try:
        page.goto(f"{base_url}/#/challenge")
        page.wait_for_selector(".player-form")
        assert page.locator(".challenge-page table.standings").count() == 1  # yesterday's only
        looks(page, screens, "challenge-new-en-390x844")
        page.locator("#player-name").fill("Tara")
        page.locator(".avatar-choice").nth(3).tap()
        page.locator(".player-form button.primary").tap()
        start = page.locator(".attempt button.primary")
        start.wait_for()
        start.tap()
        page.wait_for_url("**/#/play/**")
        page.wait_for_selector(".hand")
        assert page.locator(".hint-button").count() == 1
        assert page.locator(".hint-button").is_hidden()  # no hints in the challenge
        page.wait_for_selector(".calling button.call")
        assert page.locator(".calling .hint-call").count() == 0
        page.screenshot(path=str(screens / "challenge-table-en-390x844.png"))
        play_until(page, "over", limit=20_000)  # the experts, on a loaded machine
        page.goto(f"{base_url}/#/challenge")
        page.wait_for_selector(".attempt .figure")
        assert page.locator(".attempt button.primary").count() == 0
        page.wait_for_selector(".challenge-page table.standings >> nth=1")
        looks(page, screens, "challenge-played-en-390x844")
        kept = page.evaluate("JSON.parse(localStorage.getItem('callbreak:player'))")
        assert kept["name"] == "Tara" and kept["avatar"] == "lotus"
    finally:
        made.close()
