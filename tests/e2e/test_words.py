"""Languages to the end (issue 29): dates and numbers from Intl in each language, plurals by each
language's rules, the computers and a person who gave no name worded by the page in its own
language, the covered seat's notices, and the start page at phone and desktop sizes (Start the
match in sight, no level description cut)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.table import context, new_match, play_until

# What each language calls the computers (name.computer.0-2) and a person who gave no name.
SEATED = {
    "en": ["You", "Bikash", "Chandra", "Dipa"],
    "ne": ["तपाईं", "विकास", "चन्द्र", "दीपा"],
    "hi": ["आप", "अमित", "सुनीता", "राहुल"],
}


def helpers(page: Any, lang: str, code: str) -> Any:
    """What the check ``code`` of ``_CALLS`` gives with the page's own helpers (the module
    i18n.js the pages use) in the language ``lang``."""
    return page.evaluate(
        """async ([lang, code]) => {
          const i18n = await import("/static/i18n.js");
          i18n.setLang(lang);
          return JSON.parse(JSON.stringify(CALLS[code](i18n)));
        }""".replace("CALLS", _CALLS),
        [lang, code],
    )


# Each check as a function of the module (the page's CSP allows no eval of text).
_CALLS = """({
  date: (i) => i.formatDate(Date.UTC(2026, 11, 2, 8, 5) / 1000),
  dateMay: (i) => i.formatDate(Date.UTC(2027, 4, 17, 21, 30) / 1000),
  numbers: (i) => [
    i.num(-4.1), i.num("-4.1"), i.num(13), i.num(0.42, { style: "percent" }),
    i.num("281474976710655"),
  ],
  plurals: (i) => [0, 1, 2, 5].map((n) => i.tn("history.playingDeals", n)),
  deals: (i) => [1, 2].map((n) => i.tn("rule.deals", n)),
  unfinished: (i) => [1, 3].map((n) => i.tn("record.unfinished", n)),
  cover: (i) => [
    i.t("notice.coverTimeout", { name: "Asha", what: i.t("notice.theCard", { card: "8♠" }) }),
    i.t("notice.coverAway", { name: "Asha", what: i.t("notice.aCall", { call: 3 }) }),
    i.t("notice.botFault", { name: "Asha", what: i.t("notice.theCard", { card: "8♠" }) }),
  ],
  names: (i) => i.seatNames(
    ["You", "Bikash", "Chandra", "Dipa", "Asha"],
    ["you", "computer.0", "computer.1", "computer.2", null],
  ),
})"""


@pytest.fixture
def blank(browser: Any, base_url: str) -> Any:
    """A page of the app at UTC, for the helpers of i18n.js."""
    made = browser.new_context(timezone_id="UTC")
    page = made.new_page()
    page.goto(f"{base_url}/#/history")
    page.wait_for_selector("header nav")
    yield page
    made.close()


def test_dates_and_numbers_come_from_intl_in_the_chosen_language(blank: Any) -> None:
    """Nepali dates once read "Dec २, २०२६": the month is the language's too. Chromium has no
    Nepali calendar words, so its numbers come from Intl and its months from the catalogue."""
    assert helpers(blank, "en", "date") == "Dec 2, 2026, 08:05"
    assert helpers(blank, "ne", "date") == "२०२६ डिसेम्बर २, ०८:०५"
    assert helpers(blank, "hi", "date") == "२ दिस॰ २०२६, ०८:०५"
    assert helpers(blank, "ne", "dateMay") == "२०२७ मे १७, २१:३०"
    assert helpers(blank, "en", "numbers") == ["−4.1", "−4.1", "13", "42%", "281474976710655"]
    assert helpers(blank, "ne", "numbers") == ["−४.१", "−४.१", "१३", "४२%", "२८१४७४९७६७१०६५५"]
    assert helpers(blank, "hi", "numbers") == ["−४.१", "−४.१", "१३", "४२%", "२८१४७४९७६७१०६५५"]


def test_counts_take_each_languages_plural_forms(blank: Any) -> None:
    """Hindi once said "१ बाजियाँ हो चुकीं" for one deal."""
    assert helpers(blank, "en", "plurals") == [
        "playing, 0 deals done",
        "playing, 1 deal done",
        "playing, 2 deals done",
        "playing, 5 deals done",
    ]
    # Hindi's rules (CLDR) take the singular for 0 and 1.
    assert helpers(blank, "hi", "plurals") == [
        "चल रहा है, ० बाजी हो चुकी",
        "चल रहा है, १ बाजी हो चुकी",
        "चल रहा है, २ बाजियाँ हो चुकीं",
        "चल रहा है, ५ बाजियाँ हो चुकीं",
    ]
    assert helpers(blank, "ne", "plurals") == [
        "चलिरहेको, ० बाजी सकिए",
        "चलिरहेको, १ बाजी सकियो",
        "चलिरहेको, २ बाजी सकिए",
        "चलिरहेको, ५ बाजी सकिए",
    ]
    assert helpers(blank, "hi", "deals") == ["१ बाजी", "२ बाजियाँ"]
    assert helpers(blank, "en", "deals") == ["1 deal", "2 deals"]
    one, three = helpers(blank, "en", "unfinished")
    assert one.startswith("1 match is not finished: its") and "3 matches are" in three


def test_a_covered_seats_card_is_played_and_its_call_made(blank: Any) -> None:
    """The notices once said "the computer made the 8♠"."""
    timeout, away, fault = helpers(blank, "en", "cover")
    assert timeout == "Asha's turn clock ran out, so the computer played the 8♠."
    assert away == "Asha is not at the table, so the computer made a call of 3."
    assert fault == "Asha's bot did not answer in time, so the computer played the 8♠ for it."
    timeout, away, fault = helpers(blank, "ne", "cover")
    assert "कम्प्युटरले 8♠ खेल्यो" in timeout and "कम्प्युटरले ३ को कल गर्‍यो" in away
    assert "कम्प्युटरले 8♠ खेल्यो" in fault
    timeout, away, fault = helpers(blank, "hi", "cover")
    assert "कंप्यूटर ने 8♠ चला" in timeout and "कंप्यूटर ने ३ की कॉल की" in away
    assert "कंप्यूटर ने 8♠ चला" in fault


def test_names_the_server_leaves_to_the_page(blank: Any) -> None:
    for lang, names in SEATED.items():
        assert helpers(blank, lang, "names") == [*names, "Asha"]


def seat_names(page: Any) -> list[str]:
    """The names on the table's badges, by seat."""
    page.wait_for_selector(".seat[data-seat] strong")
    found = page.evaluate(
        """() => [...document.querySelectorAll('.seat[data-seat]')]
          .sort((a, b) => a.dataset.seat - b.dataset.seat)
          .map((seat) => seat.querySelector('strong').textContent)"""
    )
    return list(found)


def replay_names(page: Any) -> list[str]:
    """The names over the replay's four hands, by seat."""
    page.wait_for_selector(".replay .seat[aria-label]")
    seats = page.locator(".replay .seat").all()
    named = {
        int(str(seat.get_attribute("data-seat"))): seat.get_attribute("aria-label")
        for seat in seats
    }
    return [str(named[seat]) for seat in range(4)]


def test_a_tables_names_are_in_the_pages_language(browser: Any, base_url: str) -> None:
    """The computers and a person who gave no name, on the table, the history and the replay,
    each in the language of the page that shows them: the same match, three languages."""
    ctx = context(browser, "390", lang="hi")
    page = ctx.new_page()
    try:
        page.goto(f"{base_url}/#/")
        page.wait_for_selector("#name")
        match = new_match(page, base_url, rules="strict(deals=2)", name="")
        page.goto(f"{base_url}/#/play/{match}")
        assert seat_names(page) == SEATED["hi"]
        play_until(page, "dialog")  # one deal played: its summary
        page.goto(f"{base_url}/#/history")
        row = page.locator(f"tr[data-match='{match}']")
        row.wait_for()
        text = row.inner_text()
        assert "चल रहा है, १ बाजी हो चुकी" in text and "बाजियाँ" not in text
        assert all(name in text for name in SEATED["hi"])
        assert re.search(r"[०-९]{1,2} \S+ [०-९]{4}, [०-९]{2}:[०-९]{2}", text), text
        assert not re.search(r"[0-9A-Za-z]", text.replace("Asha", "")), text
        for lang in ("ne", "en"):
            page.select_option("#lang", lang)
            page.wait_for_function("(lang) => document.documentElement.lang === lang", arg=lang)
            row = page.locator(f"tr[data-match='{match}']")
            row.wait_for()
            listed = row.inner_text()
            assert all(name in listed for name in SEATED[lang]), listed
            assert not any(name in listed for name in SEATED["hi"]), listed
        page.goto(f"{base_url}/#/replay/{match}")
        assert replay_names(page) == SEATED["en"]
        # The replay fills a phone's screen as the table does (the site's header makes way):
        # the language is chosen on another page.
        page.goto(f"{base_url}/#/history")
        page.select_option("#lang", "ne")
        page.wait_for_function("() => document.documentElement.lang === 'ne'")
        page.goto(f"{base_url}/#/replay/{match}")
        assert replay_names(page) == SEATED["ne"]
        page.goto(f"{base_url}/#/play/{match}")
        assert seat_names(page) == SEATED["ne"]
    finally:
        ctx.close()


# --- the start page -------------------------------------------------------------------------------

SIZES = [(360, 740), (390, 844), (844, 390), (1366, 768)]

START_PAGE = """() => {
  const button = document.querySelector('.new-match button.primary');
  const box = button.getBoundingClientRect();
  const centre = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
  const about = [...document.querySelectorAll('.level-about span')].map((span) => {
    const rect = span.getBoundingClientRect();
    return {
      level: span.dataset.level, text: span.textContent,
      fits: span.scrollWidth <= span.clientWidth
        && span.parentElement.scrollWidth <= span.parentElement.clientWidth,
      ellipsis: [span, span.parentElement]
        .some((element) => getComputedStyle(element).textOverflow === 'ellipsis'),
      shown: rect.width > 0 && rect.height > 0 && getComputedStyle(span).visibility === 'visible',
    };
  });
  // The level a menu shows is its name only, and the name fits in the menu.
  const canvas = document.createElement('canvas').getContext('2d');
  const picked = '.new-match select[id^="opponent-"], .new-match select[id^="room-"]';
  const menus = [...document.querySelectorAll(picked)].map((select) => {
    const style = getComputedStyle(select);
    canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const text = select.selectedOptions[0].textContent;
    const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
    const room = select.clientWidth - padding - 16; // the arrow's room
    return { id: select.id, text, fits: canvas.measureText(text).width <= room };
  });
  // The button's strip hides the fields passing under it: opaque, as wide as its panel.
  // (The room form's button is not sticky: null there.)
  const start = button.closest('.start');
  const strip = start && start.getBoundingClientRect();
  const panel = start && start.closest('.panel').getBoundingClientRect();
  const hides = start && getComputedStyle(start).backgroundColor === 'rgb(255, 255, 255)'
    && Math.abs(strip.left - panel.left) < 1 && Math.abs(strip.right - panel.right) < 1;
  return {
    hides,
    inside: box.top >= 0 && box.left >= 0 && box.bottom <= innerHeight && box.right <= innerWidth,
    covered: centre !== button && !button.contains(centre),
    about, menus, sideways: document.documentElement.scrollWidth - innerWidth,
  };
}"""


def long_descriptions(page: Any) -> dict[str, str]:
    """The catalogue's full description of each level, in the page's language."""
    return dict(
        page.evaluate(
            """async () => {
              const i18n = await import('/static/i18n.js');
              const levels = [
                'random', 'beginner', 'intermediate', 'advanced', 'learned', 'expert',
              ];
              const long = (level) => [level, i18n.t(`level.${level}.long`)];
              return Object.fromEntries(levels.map(long));
            }"""
        )
    )


@pytest.mark.parametrize("lang", ["en", "ne", "hi"])
def test_the_start_page_shows_start_and_every_level_in_full(
    browser: Any, base_url: str, screens: Path, lang: str
) -> None:
    """At 360x740 Start the match was below the fold, and the levels' descriptions were cut
    ("Expert: searches thousands of po…") at every width."""
    for width, height in SIZES:
        phone = width < 900
        made = browser.new_context(
            viewport={"width": width, "height": height}, is_mobile=phone, has_touch=phone
        )
        made.add_init_script(f"localStorage.setItem('callbreak:lang', {json.dumps(lang)})")
        page = made.new_page()
        try:
            page.goto(f"{base_url}/#/")
            page.wait_for_selector("#opponent-2")
            full = long_descriptions(page)
            where = f"{lang} at {width}x{height}"
            seen = page.evaluate(START_PAGE)
            assert seen["inside"] and not seen["covered"], (where, seen)
            assert seen["hides"], where
            assert seen["sideways"] <= 0, where
            assert [a["text"] for a in seen["about"]] == [full["expert"]], (where, seen)
            assert all(a["fits"] and a["shown"] and not a["ellipsis"] for a in seen["about"])
            assert all(menu["fits"] for menu in seen["menus"]), (where, seen["menus"])
            page.screenshot(path=str(screens / f"start-{lang}-{width}x{height}.png"))
            # Other levels: each chosen level said once, in full, in the order of the seats.
            page.select_option("#opponent-1", "beginner")
            page.select_option("#opponent-2", "advanced")
            seen = page.evaluate(START_PAGE)
            assert [a["level"] for a in seen["about"]] == ["expert", "beginner", "advanced"]
            assert [a["text"] for a in seen["about"]] == [
                full["expert"],
                full["beginner"],
                full["advanced"],
            ]
            assert all(a["fits"] and a["shown"] and not a["ellipsis"] for a in seen["about"])
            assert seen["inside"] and not seen["covered"], (where, seen)
            # The room form: its computer seats and the cover, likewise.
            page.goto(f"{base_url}/#/friends")
            page.wait_for_selector("#room-cover")
            page.select_option("#room-seat-1", "expert")
            seen = page.evaluate(START_PAGE)
            assert [a["text"] for a in seen["about"]] == [full["expert"], full["learned"]]
            assert all(a["fits"] and a["shown"] and not a["ellipsis"] for a in seen["about"])
            assert all(menu["fits"] for menu in seen["menus"]), (where, seen["menus"])
        finally:
            made.close()


def test_starting_with_no_name_stores_none(browser: Any, base_url: str, server: Any) -> None:
    """The form sends no default name: the match is stored with none, and worded when shown."""
    ctx = context(browser, "360", lang="ne")
    page = ctx.new_page()
    try:
        page.goto(f"{base_url}/#/")
        page.wait_for_selector("#name")
        assert page.get_attribute("#name", "placeholder") == "तपाईं"
        page.fill("#name", "")
        for index in range(3):
            page.select_option(f"#opponent-{index}", "random")
        page.locator(".new-match .start button").click()
        page.wait_for_url(re.compile(r"#/play/"))
        match = page.url.split("#/play/")[1]
        assert seat_names(page)[0] == "तपाईं"
        assert server["app"].state.store.load(match).seats[0].name is None
    finally:
        ctx.close()
