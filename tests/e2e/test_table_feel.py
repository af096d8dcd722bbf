"""What the table does besides drawing: its sounds (off until turned on, made in the page, nothing
downloaded), the ring of a room's turn clock running down, and a new deal dealt card by card."""

from __future__ import annotations

import re
from typing import Any

from tests.e2e.table import context, new_match, play_until, step, turn
from tests.e2e.test_rooms import create_room

HEARD = "async () => (await import('/static/sound.js')).heard"


def test_sound_is_off_until_turned_on_and_made_in_the_page(
    browser: Any, base_url: str, server: Any
) -> None:
    ctx = context(browser, "390")
    page = ctx.new_page()
    requests: list[tuple[str, str]] = []
    page.on("request", lambda request: requests.append((request.url, request.resource_type)))
    try:
        match = new_match(page, base_url, rules="strict(deals=2)")
        page.goto(f"{base_url}/#/play/{match}")
        page.wait_for_selector(".hand .card")
        # Off by default: two tricks are played in silence.
        deal = server["app"].state.tables.live[match].state.match.deal
        for _ in range(2_000):
            if len(deal.tricks) >= 2:
                break
            step(page)
        assert len(deal.tricks) >= 2
        assert page.evaluate(HEARD) == []
        # Turned on in the settings, and remembered.
        page.locator(".settings-button").click()
        page.locator("#set-sound").check()
        page.keyboard.press("Escape")
        assert page.evaluate("localStorage.getItem('callbreak:sound')") == "on"
        play_until(page, "dialog")
        heard = page.evaluate(HEARD)
        page.reload()
        page.wait_for_selector(".hand")
        assert page.evaluate("async () => (await import('/static/sound.js')).enabled()")
    finally:
        ctx.close()
    # Cards laid, tricks taken, the person's turn, and the deal's call made or broken.
    assert "card" in heard and "turn" in heard
    assert {"won", "trick"} & set(heard)
    assert {"made", "broken"} & set(heard)
    # Every sound was made in the page: nothing but the app's own files and API was fetched.
    assert all(url.startswith(base_url) for url, _kind in requests), requests
    assert not [url for url, kind in requests if kind == "media"]
    assert not [url for url, _ in requests if re.search(r"\.(mp3|ogg|wav|m4a|webm)\b", url)]


# Every call of Element.animate: which element moved, and after what delay.
ANIMATIONS = """
window.__animated = [];
const animate = Element.prototype.animate;
Element.prototype.animate = function (frames, options) {
  window.__animated.push({
    card: this.dataset ? this.dataset.card || null : null,
    hand: Boolean(this.closest(".hand")),
    fan: Boolean(this.closest(".fan")),
    delay: (options && options.delay) || 0,
  });
  return animate.call(this, frames, options);
};
"""


def test_a_new_deal_is_dealt_card_by_card(browser: Any, base_url: str) -> None:
    ctx = context(browser, "1366", motion=True)
    ctx.add_init_script(ANIMATIONS)
    page = ctx.new_page()
    try:
        # Slow computers have not called yet when the page opens: it shows a fresh deal.
        match = new_match(page, base_url, rules="strict(deals=1)", speed="slow")
        page.goto(f"{base_url}/#/play/{match}")
        page.wait_for_function(
            "() => window.__animated.filter((a) => a.hand).length >= 13", timeout=10_000
        )
        moved = page.evaluate("window.__animated")
        hand = page.locator(".hand .card").evaluate_all("cards => cards.map(c => c.dataset.card)")
    finally:
        ctx.close()
    dealt = [move for move in moved if move["hand"]]
    # Each of the 13 cards of the hand came once, one after the other; so did the others' backs.
    assert sorted(move["card"] for move in dealt[:13]) == sorted(hand)
    delays = [move["delay"] for move in dealt[:13]]
    assert delays == sorted(delays) and len(set(delays)) == 13
    assert len([move for move in moved if move["fan"]]) >= 3 * 13


RING = """() => [...document.querySelectorAll('.seat .avatar.clocked')].map((avatar) => ({
  seat: avatar.closest('.seat').dataset.seat,
  left: Number(getComputedStyle(avatar).getPropertyValue('--left')),
  ring: getComputedStyle(avatar, '::before').backgroundImage,
}))"""


def test_the_turn_clock_ring_runs_down(browser: Any, base_url: str) -> None:
    ctx = context(browser, "390")
    page = ctx.new_page()
    try:
        code, _token = create_room(
            base_url,
            page,
            rules="strict(deals=1)",
            seats=["random", "random", "random"],
            turn_seconds=15,
            speed="instant",
        )
        page.goto(f"{base_url}/#/room/{code}")
        page.click("text=Start the match")
        page.wait_for_selector(".hand .card")
        for _ in range(500):
            if turn(page) in ("call", "play"):
                break
            page.wait_for_timeout(20)
        assert turn(page) in ("call", "play"), "the person's turn never came"
        page.wait_for_function(f"() => ({RING})().length === 1")
        first = page.evaluate(RING)
        line = page.locator(".turn-clock")
        assert line.is_visible()
        seconds = int(re.search(r"\d+", line.inner_text()).group())  # type: ignore[union-attr]
        page.wait_for_timeout(1_500)
        later = page.evaluate(RING)
        seconds_later = int(re.search(r"\d+", line.inner_text()).group())  # type: ignore[union-attr]
    finally:
        ctx.close()
    # The ring is on the person's own seat, drawn as a conic gradient, and shrinks with time.
    assert first[0]["seat"] == "0" and later[0]["seat"] == "0"
    assert "conic-gradient" in first[0]["ring"]
    assert 0 < later[0]["left"] < first[0]["left"] <= 1
    assert 0 < seconds_later < seconds <= 15
