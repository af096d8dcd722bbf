"""Learn to play (issue 42): the lesson offered on the start page and played to its end by
touch at 360x740 in English, in Nepali and in Hindi (the page reloaded on the way, which is
how a lesson resumes), each step's guide worded in the page's language from the duty the
server sends, the lesson's card ringed, another legal card and an illegal one refused with
their words, the call taught from the hint; once done, or skipped, the start page offers it no
more.
Screenshots of the guide at 360x740, 390x844 and 844x390 go to tests/e2e/screens."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.table import WIDTHS

LESSON = json.loads(
    (Path(__file__).parent.parent.parent / "src/callbreak/web/static/lesson.json").read_text()
)
# The guide waits for its step before the person taps: each step its own number.
STEP = ".lesson-guide[data-step='{step}']"
WORDS = """async (lang) => (await import(`/static/lang-${lang}.js`)).default"""
# What the status box and the guide say, and whether any of the guide's text is cut.
SAID = """() => ({
  note: document.querySelector('.note:not([hidden])')?.textContent || '',
  guide: document.querySelector('.lesson-guide')?.textContent || '',
  cut: [...document.querySelectorAll('.lesson-guide p, .lesson-guide button')]
    .filter((e) => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1)
    .map((e) => e.textContent),
  scroll: document.documentElement.scrollHeight - document.documentElement.clientHeight,
})"""
WIDE = {"width": 1366, "height": 768}
RESUMED_AT = 6
"""The step at which the page is loaded again (the lesson resumes where it was)."""


def phone(browser: Any, size: dict[str, int], progress: str | None = None) -> Any:
    """A touch context at ``size`` whose computers play at once (the lesson's own pace is the
    normal one), no service worker (the lesson file is the test's), no finished trick's pause."""
    made = browser.new_context(
        viewport=size,
        is_mobile=size["width"] < 700,
        has_touch=True,
        reduced_motion="reduce",
        service_workers="block",
    )
    made.add_init_script("localStorage.setItem('callbreak:pause', 'off');")
    if progress is not None:
        made.add_init_script(f"localStorage.setItem('callbreak:lesson', {json.dumps(progress)});")
    made.route(
        "**/static/lesson.json",
        lambda route: route.fulfill(json={**LESSON, "speed": "instant"}),
    )
    made.set_default_timeout(20_000)
    return made


@pytest.mark.parametrize("lang", ["en", "ne", "hi"])
def test_the_lesson_played_to_its_end(
    browser: Any, base_url: str, screens: Path, lang: str
) -> None:
    context = phone(browser, WIDTHS["360"])
    context.add_init_script(f"localStorage.setItem('callbreak:lang', {json.dumps(lang)});")
    page = context.new_page()
    problems: list[str] = []

    def look(where: str) -> dict[str, Any]:
        said: dict[str, Any] = page.evaluate(SAID)
        if said["cut"]:
            problems.append(f"{where}: cut {said['cut']}")
        if said["scroll"] > 0:
            problems.append(f"{where}: the page scrolls by {said['scroll']} px")
        return said

    try:
        page.goto(base_url + "/#/")
        words: dict[str, Any] = page.evaluate(WORDS, lang)
        offer = page.locator(".lesson-offer")
        offer.wait_for()
        assert words["lesson.offerTitle"] in offer.inner_text()
        # The offer leaves the form's button in sight on the phone.
        start = page.locator(".new-match button.primary").bounding_box()
        assert start is not None and start["y"] + start["height"] <= 740
        page.screenshot(path=str(screens / f"lesson-offer-360-{lang}.png"))
        offer.locator("a.button").tap()

        # The call: the hint counts the hand, and only the lesson's call is taken.
        page.locator(STEP.format(step="call")).wait_for()
        page.locator(".calling:not([hidden]) button.call").first.wait_for()
        assert words["lesson.callAsk"] in look("call")["guide"]
        page.locator(".calling button.hint-call").tap()
        page.wait_for_function(
            "() => /[\\d०-९]/.test(document.querySelector('.lesson-guide').textContent)"
            " && document.querySelector('.calling .call.suggested')"
        )
        page.screenshot(path=str(screens / f"lesson-360-{lang}-call.png"))
        wrong = next(c for c in range(2, 14) if c != LESSON["call"])
        page.locator(f".calling button.call[data-call='{wrong}']").tap()
        assert words["lesson.callThis"].split("{call}")[0] in look("call")["note"]
        page.locator(f".calling button.call[data-call='{LESSON['call']}']").tap()

        refused = {"illegal": False, "other": False}
        for number, step in enumerate(LESSON["steps"]):
            if number == RESUMED_AT:
                page.reload()  # how a lesson resumes: where it was
            guide = page.locator(STEP.format(step=number))
            guide.wait_for()
            page.locator(".hand.active").wait_for()
            said = look(f"step {number + 1}")
            kind = step["duty"]
            assert said["guide"].startswith(words[f"lesson.kind.{kind}"]), (number, said["guide"])
            if lang != "en":  # no English word (card ranks are single letters)
                assert not re.search("[A-Za-z]{2,}", said["guide"]), (lang, said["guide"])
            card = page.locator(f".hand .card[data-card='{step['card']}']")
            assert "lesson-card" in (card.get_attribute("class") or "")
            page.screenshot(path=str(screens / f"lesson-360-{lang}-{number + 1:02}-{kind}.png"))
            if not refused["illegal"] and kind in ("follow", "trump"):
                # A card the duty forbids: the table's own refusal, the duty in words.
                illegal = page.locator(".hand.active .card:not(.playable):not(.gone)").first
                illegal.tap(force=True)  # aria-disabled: Playwright would wait for it
                note = look("illegal")["note"]
                assert note and note in said["guide"], (note, said["guide"])
                refused["illegal"] = True
            others = page.locator(
                f".hand.active .card.playable:not(.gone):not([data-card='{step['card']}'])"
            )
            if not refused["other"] and others.count():
                # Another legal card: lifted, then refused by the lesson when tapped again.
                others.first.tap()
                others.first.tap()
                assert words["lesson.playThis"].split("{card}")[0] in look("other")["note"]
                refused["other"] = True
            card.tap()  # lifted
            card.tap()  # played
            page.wait_for_function(f'() => !document.querySelector("{STEP.format(step=number)}")')
        assert refused == {"illegal": True, "other": True}

        # The end, and the start page offers the lesson no more.
        page.locator(STEP.format(step="done")).wait_for()
        page.locator("dialog.result[open] button.primary").tap()
        assert look("done")["guide"].startswith(words["lesson.doneTitle"])
        page.screenshot(path=str(screens / f"lesson-360-{lang}-done.png"))
        page.locator(".after a.button.primary").tap()
        page.locator(".new-match").wait_for()
        assert page.locator(".lesson-offer").count() == 0
        # How to play still opens it: a new lesson, from its call.
        page.locator(".how-to summary").tap()
        page.locator(".how-to a[href='#/lesson']").tap()
        page.locator(STEP.format(step="call")).wait_for()
        assert problems == []
    finally:
        context.close()


def test_the_lesson_is_skipped_for_good(browser: Any, base_url: str) -> None:
    """Its offer's *No thanks*, or the guide's ✕ during the lesson: the start page offers it no
    more, after a reload too; *How to play* still opens it."""
    for how in ("offer", "guide"):
        context = phone(browser, WIDTHS["360"])
        page = context.new_page()
        try:
            page.goto(base_url + "/#/")
            offer = page.locator(".lesson-offer")
            offer.wait_for()
            if how == "offer":
                offer.locator("button.lesson-skip").tap()
            else:
                offer.locator("a.button").tap()
                page.locator(STEP.format(step="call")).wait_for()
                page.locator(".lesson-guide button.lesson-leave").tap()
            page.locator(".new-match").wait_for()
            assert offer.count() == 0, how
            page.reload()
            page.locator(".new-match").wait_for()
            assert offer.count() == 0, how
            page.locator(".how-to summary").tap()
            page.locator(".how-to a[href='#/lesson']").tap()
            page.locator(STEP.format(step="call")).wait_for()
        finally:
            context.close()


def test_the_guide_at_each_phone_size(browser: Any, base_url: str, screens: Path) -> None:
    """The guide of a lesson resumed at 390x844, 844x390 and on a desktop's screen (its
    progress in the storage)."""
    for size in ({"width": 390, "height": 844}, {"width": 844, "height": 390}, WIDE):
        made = browser.new_context(service_workers="block")
        body = {key: LESSON[key] for key in ("rules", "opponents", "seed")} | {"speed": "instant"}
        answer = made.request.post(
            base_url + "/api/matches",
            data=json.dumps(body),
            headers={"content-type": "application/json"},
        )
        made_match = answer.json()
        made.close()
        progress = json.dumps({"id": made_match["id"], "token": made_match["token"]})
        context = phone(browser, size, progress)
        page = context.new_page()
        try:
            page.goto(base_url + "/#/lesson")
            page.locator(STEP.format(step="call")).wait_for()
            page.locator(".calling button.hint-call").tap()
            page.locator(".calling .call.suggested").wait_for()
            name = f"{size['width']}x{size['height']}"
            page.screenshot(path=str(screens / f"lesson-{name}-en-call.png"))
            page.locator(f".calling button.call[data-call='{LESSON['call']}']").tap()
            page.locator(STEP.format(step=0)).wait_for()
            page.locator(".hand.active").wait_for()
            said = page.evaluate(SAID)
            page.screenshot(path=str(screens / f"lesson-{name}-en-first-lead.png"))
            assert said["cut"] == [] and said["scroll"] <= 0, said
        finally:
            context.close()
