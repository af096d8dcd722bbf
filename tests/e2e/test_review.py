"""The review in real Chromium: a finished match reviewed from its table's end (its progress,
then the accuracy and the three costliest decisions), a costliest decision followed into the
replay at that very moment with its line (the choice, the best, the points lost, the
hindsight); on a phone and on a desktop. A match in play is refused, and two browsers asking
for one match's review at once start one review."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.table import TOKENS, context, finish, hold, new_match, play_until, sideways

REVIEWED = 180_000
"""How long (ms) a page waits for a review: the first one also starts the review's process,
which loads the compiled kernel (seconds on a warm cache, half a minute on a cold one)."""


SEED = "review-3"
"""The deals of the reviewed matches: with it the random players' cards, the person's (the
lowest call, the first legal card) and so the review are the same every run, and that review
has mistakes to link to (a person who plays well would leave the list empty)."""


def finished_match(page: Any, base_url: str) -> str:
    """A one-deal match against random players, played to its end through its socket."""
    page.goto(f"{base_url}/#/history")
    body = {"rules": "strict(deals=1)", "name": "Asha", "opponents": ["random"] * 3}
    answer = page.request.post(
        f"{base_url}/api/matches",
        data=json.dumps(body | {"speed": "instant", "seed": SEED}),
        headers={"content-type": "application/json"},
    )
    assert answer.status == 201, answer.text()
    match_id = str(answer.json()["id"])
    TOKENS[match_id] = str(answer.json()["token"])
    hold(page.context, "match", match_id)
    finish(base_url, match_id)
    return match_id


# Every line of words the review panel shows, in order (a page's watch, started before a press).
WATCH_WORDS = """() => {
  window.__words = [];
  new MutationObserver(() => {
    const words = document.querySelector('.review-panel .review-words');
    if (words && window.__words[window.__words.length - 1] !== words.textContent) {
      window.__words.push(words.textContent);
    }
  }).observe(document.body, { subtree: true, childList: true, characterData: true });
}"""


@pytest.mark.parametrize("width", ["390", "1366"])
def test_a_finished_match_is_reviewed_and_a_mistake_opens_in_the_replay(
    browser: Any, base_url: str, screens: Path, width: str
) -> None:
    home = context(browser, width)
    page = home.new_page()
    match_id = finished_match(page, base_url)
    page.goto(f"{base_url}/#/play/{match_id}")
    play_until(page, "over")  # the final summary closed: the table's end shows
    panel = page.locator(".after .review-panel")
    page.evaluate(WATCH_WORDS)
    panel.get_by_role("button", name="Review my play").click()
    summary = panel.locator(".review-summary")
    summary.wait_for(timeout=REVIEWED)
    assert sideways(page) == 0
    # From the press: "Starting", then the server's queue place or the decisions reviewed
    # (issue 42, item 9), never a queue that the server did not say.
    words = page.evaluate("window.__words")
    assert words and words[0] == "Starting the review…", words
    for said in words[1:]:
        assert re.fullmatch(
            r"Waiting for the server: your review is number \d+ in the queue…"
            r"|Reviewed \d+ of \d+ decisions…",
            said,
        ), words
    page.screenshot(path=str(screens / f"review-summary-{width}.png"))
    accuracy = summary.locator(".accuracy").inner_text()
    assert re.fullmatch(r"\d{1,3}% accuracy", " ".join(accuracy.split())), accuracy
    links = summary.locator(".costliest a")
    assert 1 <= links.count() <= 3
    # The costliest call and the costliest card (the seed's review has both), each followed.
    for kind in ("called", "played"):
        summary_link = links.filter(has_text=f"you {kind}").first
        line = " ".join(summary_link.inner_text().split())
        made = re.search(r"you (?:called|played) (\S+), best (\S+)", line)
        assert made is not None, line
        assert re.search(r"(Inaccuracy|Mistake|Blunder) ", line), line
        href = str(summary_link.get_attribute("href"))
        at = re.fullmatch(rf"#/replay/{match_id}\?deal=(\d+)&step=(\d+)", href)
        assert at is not None, href
        summary_link.click()
        page.wait_for_url(re.compile(re.escape(href) + "$"))
        moment = page.locator(".replay .review-line")
        moment.wait_for()
        said = " ".join(moment.inner_text().split())
        if kind == "called":  # before the first card, with the call made and the best
            assert at[2] == "0", href
            assert f"You called {made[1]}; best {made[2]}:" in said, said
            assert page.locator(".replay .trick .card").count() == 0
        else:  # the card is the last one on the board; the line says it, the best, hindsight
            assert f"You played {made[1]}; best {made[2]}:" in said, said
            assert "Hindsight, every hand known: best" in said, said
            trick = page.locator(".replay .trick .card").evaluate_all(
                "cards => cards.map((card) => card.dataset.card)"
            )
            assert trick[-1].replace("T", "10")[:-1] == made[1][:-1], (trick, made[1])
        assert re.search(r"\d\.\d\d points lost", said), said
        page.screenshot(path=str(screens / f"review-replay-{width}-{kind}.png"))
        # One card on, and the line is gone: the next card is another seat's (in this seed's match).
        page.keyboard.press("ArrowRight")
        page.wait_for_function(
            "() => !document.querySelector('.replay .review-line')"
            " || !document.querySelector('.replay .review-line').isConnected"
        )
        page.go_back()
        summary.wait_for()
    home.close()


def test_a_match_in_play_is_refused_and_two_browsers_start_one_review(
    browser: Any, base_url: str, server: dict[str, Any], screens: Path
) -> None:
    one, two = context(browser, "390"), context(browser, "390", lang="ne")
    page = one.new_page()
    page.goto(f"{base_url}/#/history")
    playing = new_match(page, base_url, rules="strict(deals=1)")
    answer = page.request.post(
        f"{base_url}/api/matches/{playing}/review",
        headers={"authorization": f"Bearer {TOKENS[playing]}"},
    )
    assert answer.status == 409 and answer.json()["code"] == "review_playing"
    match_id = finished_match(page, base_url)
    other = two.new_page()
    other.goto(f"{base_url}/#/history")
    other.evaluate(
        "([id, token]) => localStorage.setItem(`callbreak:match:${id}`,"
        " JSON.stringify({token, since: 1}))",
        [match_id, TOKENS[match_id]],
    )
    reviews = server["app"].state.reviews  # type: ignore[attr-defined]
    before = reviews.started
    # Both open the match's review from History at once.
    for tab in (page, other):
        tab.goto(f"{base_url}/#/history")
        tab.reload()  # the page was there already: drawn again with the match now held
        tab.locator(f"tr[data-match='{match_id}'] a.review-link").click()
    for tab in (page, other):
        tab.locator(".review-summary").wait_for(timeout=REVIEWED)
    assert reviews.started == before + 1
    assert sideways(other) == 0
    other.screenshot(path=str(screens / "review-page-390-ne.png"))
    texts = [tab.locator(".review-summary .accuracy strong").inner_text() for tab in (page, other)]
    digits = str.maketrans("०१२३४५६७८९", "0123456789")
    assert texts[0] == texts[1].translate(digits)  # one review, in each page's digits
    one.close()
    two.close()


# width, height, language: a small phone, the phones of the other languages, a phone on its side
LOOKS = [(360, 740, "en"), (390, 844, "ne"), (390, 844, "hi"), (844, 390, "en")]


def test_the_review_fits_a_phone_in_every_language_and_on_its_side(
    browser: Any, base_url: str, screens: Path
) -> None:
    maker = context(browser, "390")
    page = maker.new_page()
    match_id = finished_match(page, base_url)
    path = f"{base_url}/api/matches/{match_id}/review"
    headers = {"authorization": f"Bearer {TOKENS[match_id]}"}
    state = page.request.post(path, headers=headers).json()["state"]
    for _ in range(REVIEWED // 100):
        if state == "done":
            break
        page.wait_for_timeout(100)
        state = page.request.get(path, headers=headers).json()["state"]
    maker.close()
    for width, height, lang in LOOKS:
        made = browser.new_context(
            viewport={"width": width, "height": height}, is_mobile=True, has_touch=True
        )
        made.add_init_script(
            f"localStorage.setItem('callbreak:lang', '{lang}');"
            f"localStorage.setItem('callbreak:match:{match_id}',"
            f" JSON.stringify({{token: '{TOKENS[match_id]}', since: 1}}));"
        )
        made.set_default_timeout(20_000)
        look = made.new_page()
        size = f"{width}x{height}-{lang}"
        # The table's end: the kept review shown at once, where the hand was.
        look.goto(f"{base_url}/#/play/{match_id}")
        play_until(look, "over")
        look.locator(".after .review-summary").wait_for()
        assert sideways(look) == 0, size
        look.screenshot(path=str(screens / f"review-table-{size}.png"))
        look.goto(f"{base_url}/#/review/{match_id}")
        look.locator(".review-summary").wait_for()
        assert sideways(look) == 0, size
        look.screenshot(path=str(screens / f"review-page-{size}.png"))
        look.locator(".costliest a").first.click()
        line = look.locator(".replay .review-line")
        line.wait_for()
        assert sideways(look) == 0, size
        # The line is on the screen whole, over nothing of the hand or the step buttons.
        box = line.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height, size
        for below in (".replay .hand", ".replay .steps button"):
            other = look.locator(below).first.bounding_box()
            assert other is not None
            overlap_x = min(box["x"] + box["width"], other["x"] + other["width"]) - max(
                box["x"], other["x"]
            )
            overlap_y = min(box["y"] + box["height"], other["y"] + other["height"]) - max(
                box["y"], other["y"]
            )
            assert overlap_x <= 0 or overlap_y <= 0, (size, below, box, other)
        look.screenshot(path=str(screens / f"review-replay-{size}.png"))
        made.close()


def test_a_finished_room_is_reviewed_for_the_seat_this_browser_holds(
    browser: Any, base_url: str, screens: Path
) -> None:
    from tests.e2e.test_rooms import create_room

    home = context(browser, "390")
    page = home.new_page()
    code, _ = create_room(
        base_url, page, rules="strict(deals=1)", seats=["random"] * 3, speed="instant"
    )
    page.goto(f"{base_url}/#/room/{code}")
    page.locator(".seat-row.mine[data-seat='0']").wait_for()
    page.click("text=Start the match")
    play_until(page, "over")
    page.locator(".after .review-panel button.review-start").click()
    page.locator(".after .review-summary").wait_for(timeout=REVIEWED)
    assert sideways(page) == 0
    page.screenshot(path=str(screens / "review-room-390.png"))
    # History offers the finished room's review; the replay shows the seat's call at its start.
    page.goto(f"{base_url}/#/history")
    page.locator(f"tr[data-room='{code}'] a.review-link").wait_for()
    page.goto(f"{base_url}/#/replay/room/{code}?deal=1&step=0")
    said = " ".join(page.locator(".replay .review-line").inner_text().split())
    assert re.fullmatch(r"(Good|Inaccuracy|Mistake|Blunder) You called \S+[;:] .*", said), said
    home.close()


def test_a_queued_review_shows_its_place_then_its_decisions_from_the_first(
    browser: Any, base_url: str
) -> None:
    """Issue 39 (and 42, item 9): the panel says where in the server's queue a review waits,
    then its decisions from 0 as soon as a process has begun on it, never "Starting the
    review…" the while. The server's answers are played to the page (web.reviews's own are
    tested in tests/test_reviews.py)."""
    home = context(browser, "390")
    match_id = "queued-review"
    TOKENS[match_id] = "t" * 43
    hold(home, "match", match_id)
    answers = [
        {"state": "none"},
        {"state": "waiting", "place": 2, "done": 0, "total": 0},
        {"state": "waiting", "place": 1, "done": 0, "total": 0},
        {"state": "running", "done": 0, "total": 14},
        {"state": "running", "done": 5, "total": 14},
    ]
    asked: list[str] = []

    def answer(route: Any) -> None:
        asked.append(route.request.method)
        body = answers[min(len(asked) - 1, len(answers) - 1)]
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))

    page = home.new_page()
    page.route(f"**/api/matches/{match_id}/review", answer)
    page.goto(f"{base_url}/#/review/{match_id}")
    for expected in (
        "Waiting for the server: your review is number 2 in the queue…",
        "Waiting for the server: your review is number 1 in the queue…",
        "Reviewed 0 of 14 decisions…",
        "Reviewed 5 of 14 decisions…",
    ):
        page.wait_for_function(
            "(text) => document.querySelector('.review-panel .review-words')?.textContent === text",
            arg=expected,
        )
    assert asked[:2] == ["GET", "POST"] and set(asked[2:]) == {"GET"}, asked
    assert page.locator(".review-panel progress").get_attribute("max") == "14"
    assert sideways(page) == 0
    home.close()


def test_a_match_past_the_review_bound_says_so_with_no_button(browser: Any, base_url: str) -> None:
    """A review the server refuses as too long (``review_long``) is worded with its bound, and
    no *Try again* offered: asked again, it would be refused again."""
    home = context(browser, "390")
    match_id = "long-review"
    TOKENS[match_id] = "t" * 43
    hold(home, "match", match_id)
    refused = {
        "error": "...",
        "code": "review_long",
        "args": {"decisions": 420, "max": 150, "deals": 10},
    }

    def answer(route: Any) -> None:
        if route.request.method == "GET":
            route.fulfill(status=200, content_type="application/json", body='{"state": "none"}')
        else:
            route.fulfill(status=400, content_type="application/json", body=json.dumps(refused))

    page = home.new_page()
    page.route(f"**/api/matches/{match_id}/review", answer)
    page.goto(f"{base_url}/#/review/{match_id}")
    said = page.locator(".review-panel p.error")
    said.wait_for()
    assert " ".join(said.inner_text().split()) == (
        "This match has 420 of your decisions to review; a review here takes at most 150 "
        "(about 10 deals)."
    )
    assert page.locator(".review-panel button").count() == 0
    home.close()
