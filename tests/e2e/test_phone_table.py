"""The table a phone player keeps (issue 42): every finished trick stays up its chosen time
whoever won it and whatever the server sends meanwhile, measured in the page's own clock."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.table import bearer, finish, hold, new_match, new_sheet, play_deals, play_to

SHEET_NAMES = ["Asha", "Bikash", "Chandra", "Dipa"]

# Each finished trick as the page shows it, timed by the page's clock (performance.now): when
# its winning card is marked, how many cards were up then, and when the first of them starts to
# leave (an animation that fades it out) or the trick is emptied, with the cards still up then.
HELD = """
window.__held = [];
window.__at = null;
(() => {
  let open = null;
  const cards = () => document.querySelectorAll('.trick .card').length;
  const end = (how) => {
    if (!open || open.end !== undefined) return;
    open.end = performance.now();
    open.how = how;
    open.cardsAtEnd = cards();
    open.winnerAtEnd = Boolean(document.querySelector('.trick .card.winner'));
  };
  new MutationObserver((records) => {
    for (const record of records) {
      const target = record.target;
      if (record.type === 'attributes' && target.classList.contains('winner') &&
          target.closest('.trick') && (!open || open.end !== undefined)) {
        const slot = (target.className.match(/slot-(\\d)/) || [])[1];
        open = { start: performance.now(), cards: cards(), mine: slot === '0', at: window.__at };
        window.__held.push(open);
      }
      if (record.type === 'childList' && record.removedNodes.length && target.classList &&
          target.classList.contains('trick')) end('emptied');
    }
  }).observe(document, {
    subtree: true, childList: true, attributes: true, attributeFilter: ['class'],
  });
  const animate = Element.prototype.animate;
  Element.prototype.animate = function (frames, options) {
    const last = Array.isArray(frames) ? frames[frames.length - 1] : null;
    if (last && last.opacity === 0 && this.closest && this.closest('.trick')) end('leaves');
    return animate.call(this, frames, options);
  };
})();
"""

# The person acts only when no finished trick is up: the pause is then the page's own.
ACT = """() => {
  if (document.querySelector('.trick .card.winner')) return null;
  if (document.querySelector('dialog.result[open]')) return 'dialog';
  if (document.querySelector('.calling:not([hidden]) button.call')) return 'call';
  if (document.querySelector('.hand.active .card.playable:not(.gone)')) return 'play';
  return null;
}"""

PAUSE_MS = {"short": 600, "normal": 1200, "long": 2400}


def touch_context(browser: Any, width: int, height: int, pause: str, motion: bool = True) -> Any:
    """A phone's context (touch, one-tap play, so a tap plays) in English with the trick's
    pause `pause`."""
    made = browser.new_context(
        viewport={"width": width, "height": height},
        has_touch=True,
        is_mobile=True,
        reduced_motion="no-preference" if motion else "reduce",
    )
    made.add_init_script(
        "localStorage.setItem('callbreak:lang', 'en');"
        f"localStorage.setItem('callbreak:pause', {json.dumps(pause)});"
        "localStorage.setItem('callbreak:onetap', 'on');"
    )
    made.set_default_timeout(20_000)
    return made


# Each speed of the computers with a pause of the finished trick: every speed, and each pause.
SPEED_PAUSES = [("instant", "normal"), ("fast", "long"), ("normal", "short"), ("slow", "normal")]
TIMED_SEED = "42-timed"
"""A deal in which the computers win a trick at each of the SPEED_PAUSES in turn."""


def settle(page: Any, speed: str, pause: str) -> None:
    """Choose the computers' speed and the finished trick's pause in the table's Settings."""
    page.locator(".settings-button").tap()
    sheet = page.locator("dialog.settings-dialog[open]")
    sheet.locator("#set-speed").select_option(speed)
    sheet.locator("#set-pause").select_option(pause)
    sheet.locator(".sheet-body > button.primary").tap()
    sheet.wait_for(state="detached")


def test_a_trick_a_computer_won_stays_up_its_time_at_every_speed(
    browser: Any, base_url: str, screens: Path
) -> None:
    """One deal, the speed and the pause changed in Settings on the person's turn: the next
    trick a computer wins at each speed stays up its pause, its four cards and its winner
    marked all the while."""
    ctx = touch_context(browser, 390, 844, "normal")
    ctx.add_init_script(HELD)
    page = ctx.new_page()
    try:
        match = new_match(page, base_url, rules="strict(deals=1)", seed=TIMED_SEED)
        page.goto(f"{base_url}/#/play/{match}")
        page.wait_for_selector(".hand .card")
        for speed, pause in SPEED_PAUSES:
            chosen = False
            for _ in range(3_000):
                held = page.evaluate("window.__held")
                if [
                    h
                    for h in held
                    if h["at"] == f"{speed}-{pause}" and not h["mine"] and "end" in h
                ]:
                    break
                now = page.evaluate(ACT)
                if now in ("call", "play") and not chosen:
                    settle(page, speed, pause)
                    page.evaluate("(at) => { window.__at = at; }", f"{speed}-{pause}")
                    chosen = True
                elif now == "call":
                    page.locator(".calling button.call").first.tap(timeout=3_000)
                elif now == "play":
                    page.locator(".hand.active .card.playable:not(.gone)").first.tap(timeout=3_000)
                elif now == "dialog":
                    break  # the deal is over
                page.wait_for_timeout(30)
            page.screenshot(path=str(screens / f"held-{speed}-{pause}.png"))
    finally:
        ctx.close()
    for speed, pause in SPEED_PAUSES:
        theirs = [h for h in held if h["at"] == f"{speed}-{pause}" and not h["mine"] and "end" in h]
        assert theirs, f"no trick won by a computer at {speed} ({pause}): {held}"
        chosen_ms = PAUSE_MS[pause]
        for trick in theirs:
            up = trick["end"] - trick["start"]
            assert trick["cards"] == 4 and trick["cardsAtEnd"] == 4 and trick["winnerAtEnd"], trick
            assert abs(up - chosen_ms) <= 100, (
                f"at {speed}, a trick stayed up {up:.0f} ms, not {chosen_ms}: {trick}"
            )


# Each unplayable card of the hand: its suit's ink and its own paper as the page styles them,
# the box of its corner index, and points of it that nothing covers (nor a neighbour's shadow:
# every point 12 px round each one is the card's too), away from its border.
UNPLAYABLE = """() => [...document.querySelectorAll('.hand .card.illegal:not(.gone)')]
  .map((card) => {
  const r = card.getBoundingClientRect();
  // Asked once a point: the points round one point are those of its neighbours (3 px apart).
  const owned = new Map();
  const own = (x, y) => {
    const key = `${Math.round(x)} ${Math.round(y)}`;
    if (!owned.has(key)) {
      const at = document.elementFromPoint(x, y);
      owned.set(key, Boolean(at && at.closest('.card') === card));
    }
    return owned.get(key);
  };
  const round = [[0, 0], [12, 0], [-12, 0], [0, 12], [0, -12], [9, 9], [-9, 9], [9, -9], [-9, -9]];
  const clear = (x, y) => round
    .every(([dx, dy]) => own(x + dx, y + dy));
  const points = [];
  for (let x = r.left + 4; x < r.right - 4; x += 3) {
    for (let y = r.top + 4; y < r.bottom - 4; y += 3) {
      if (clear(x, y)) points.push([Math.round(x), Math.round(y)]);
    }
  }
  const corner = card.querySelector('.corner').getBoundingClientRect();
  const index = [];
  for (let x = corner.left; x < corner.right; x += 1) {
    for (let y = corner.top; y < corner.bottom; y += 1) index.push([Math.round(x), Math.round(y)]);
  }
  return { code: card.dataset.card, paper: getComputedStyle(card).backgroundColor, points, index };
})"""

# Pixels of a PNG at each list of points, decoded once by the browser in a blank page of its own.
PIXELS = """async ([png, lists]) => {
  const blob = await (await fetch('data:image/png;base64,' + png)).blob();
  const bitmap = await createImageBitmap(blob);
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const context = canvas.getContext('2d');
  context.drawImage(bitmap, 0, 0);
  const data = context.getImageData(0, 0, bitmap.width, bitmap.height).data;
  return lists.map((points) => points.map(([x, y]) => {
    const i = (y * bitmap.width + x) * 4;
    return [data[i], data[i + 1], data[i + 2]];
  }));
}"""

# The suits' inks (style.css: --red, and the cards' near-black).
INK = {"H": (192, 38, 45), "D": (192, 38, 45), "S": (17, 17, 17), "C": (17, 17, 17)}


def rgb(css: str) -> tuple[int, int, int]:
    """A computed CSS colour "rgb(r, g, b)" as numbers."""
    parts = css[css.index("(") + 1 : css.index(")")].split(",")
    return (int(float(parts[0])), int(float(parts[1])), int(float(parts[2])))


def off_line(pixel: list[int], a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    """How far a colour is from the colours between `a` and `b` (antialiased ink on paper)."""
    ab = [b[i] - a[i] for i in range(3)]
    ap = [pixel[i] - a[i] for i in range(3)]
    length = sum(v * v for v in ab) or 1
    share = max(0.0, min(1.0, sum(ab[i] * ap[i] for i in range(3)) / length))
    return float(sum((ap[i] - share * ab[i]) ** 2 for i in range(3)) ** 0.5)


@pytest.mark.parametrize(
    "size", [(360, 740, True), (390, 844, True), (844, 390, True), (1366, 768, False)]
)
def test_unplayable_cards_keep_their_colours(
    browser: Any, base_url: str, screens: Path, size: tuple[int, int, bool]
) -> None:
    width, height, touch = size
    made = browser.new_context(
        viewport={"width": width, "height": height},
        has_touch=touch,
        is_mobile=touch,
        reduced_motion="reduce",
    )
    made.add_init_script(
        "localStorage.setItem('callbreak:lang', 'en');"
        "localStorage.setItem('callbreak:pause', 'off');"
        "localStorage.setItem('callbreak:onetap', 'on');"
    )
    made.set_default_timeout(20_000)
    page = made.new_page()
    blank = made.new_page()
    checked = 0
    try:
        match = new_match(page, base_url, rules="strict(deals=1)", seed=f"unplayable-{width}")
        page.goto(f"{base_url}/#/play/{match}")
        page.wait_for_selector(".hand .card")
        for _ in range(2_000):
            if checked >= 2 or page.locator("dialog.result[open]").count():
                break
            now = page.evaluate(ACT)
            if now == "play" and page.locator(".hand.active .card.illegal").count():
                page.wait_for_timeout(200)  # the cards' rise (a transition) is over
                cards = page.evaluate(UNPLAYABLE)
                name = f"unplayable-{width}x{height}-{checked}.png"
                shot = page.screenshot(path=str(screens / name))
                png = base64.b64encode(shot).decode()
                lists = [card[part] for card in cards for part in ("index", "points")]
                sampled = iter(blank.evaluate(PIXELS, [png, lists]))
                for card in cards:
                    paper = rgb(card["paper"])
                    ink = INK[card["code"][1]]
                    index, pixels = next(sampled), next(sampled)
                    # The index's inkiest pixel is the suit's ink.
                    inkiest = max(index, key=lambda p: off_line(p, paper, paper))
                    miss = max(abs(inkiest[i] - ink[i]) for i in range(3))
                    assert miss <= 40, (card["code"], inkiest)
                    assert card["points"], f"{card['code']}: no part of it is uncovered"
                    through = [p for p in pixels if off_line(p, paper, ink) > 30]
                    assert not through, f"{card['code']} shows another colour: {through[:5]}"
                checked += 1
            if now == "call":
                page.locator(".calling button.call").first.tap() if touch else page.locator(
                    ".calling button.call"
                ).first.click()
            elif now == "play":
                card = page.locator(".hand.active .card.playable:not(.gone)").first
                card.tap() if touch else card.click()
            page.wait_for_timeout(30)
    finally:
        made.close()
    assert checked, "the hand never held a card it could not play"


# While a deal's summary is open: its title, the table's title, and the hand's cards still held
# (none, the deal being over), each time anything changes.
SUMMARY = """
window.__summary = [];
new MutationObserver(() => {
  const dialog = document.querySelector('dialog.result[open]');
  if (!dialog) return;
  window.__summary.push({
    title: (dialog.querySelector('h2') || {}).textContent,
    table: (document.querySelector('.table-title') || {}).textContent,
    held: document.querySelectorAll('.hand .card:not(.gone)').length,
  });
}).observe(document, { subtree: true, childList: true, attributes: true });
"""


@pytest.mark.parametrize("motion", [True, False])
def test_the_summary_comes_before_the_next_deal(
    browser: Any, base_url: str, screens: Path, motion: bool
) -> None:
    ctx = touch_context(browser, 360, 740, "short", motion=motion)
    ctx.add_init_script(SUMMARY)
    page = ctx.new_page()
    try:
        match = new_match(page, base_url, rules="strict(deals=2)", seed="summary")
        # Twelve tricks played through the socket: the page opens for the deal's last one.
        play_to(base_url, match, tricks=12)
        page.goto(f"{base_url}/#/play/{match}")
        page.wait_for_selector(".hand .card")
        for _ in range(3_000):
            if page.locator("dialog.result[open]").count():
                break
            now = page.evaluate(ACT)
            if now == "call":
                page.locator(".calling button.call").first.tap(timeout=3_000)
            elif now == "play":
                page.locator(".hand.active .card.playable:not(.gone)").first.tap(timeout=3_000)
            page.wait_for_timeout(30)
        page.wait_for_timeout(1_500)  # the summary stays: nothing is dealt behind it
        page.screenshot(path=str(screens / f"summary-first-{'motion' if motion else 'still'}.png"))
        seen = page.evaluate("window.__summary")
        # One order everywhere: the summary's tricks/call under each score are the badges'.
        pills = page.evaluate(
            "() => [0, 1, 2, 3].map((seat) =>"
            " document.querySelector(`.seat[data-seat='${seat}'] .pill`).textContent)"
        )
        details = page.locator("dialog.result[open] tr.latest .detail").all_inner_texts()
        page.locator("dialog.result[open] button.primary").tap()
        # Closed, the next deal is dealt.
        page.wait_for_function(
            "() => document.querySelectorAll('.hand .card:not(.gone)').length === 13"
        )
        title = page.locator(".table-title").inner_text()
    finally:
        ctx.close()
    assert seen
    for moment in seen:
        assert "Deal 1" in moment["title"], moment
        assert moment["table"].startswith("Deal 1 of 2"), moment
        assert moment["held"] == 0, moment
    assert title.startswith("Deal 2 of 2")
    assert details == pills, (details, pills)


def my_turn_with_choice(page: Any) -> None:
    """Play (by one tap each, lifting first) until it is the person's turn to play with two or
    more playable cards."""
    for _ in range(3_000):
        if page.locator(".hand.active .card.playable:not(.gone)").count() >= 2:
            return
        now = page.evaluate(ACT)
        if now == "call":
            page.locator(".calling button.call").first.tap(timeout=3_000)
        elif now == "play":
            card = page.locator(".hand.active .card.playable:not(.gone)").first
            card.tap(timeout=3_000)
            card.tap(timeout=3_000)
        page.wait_for_timeout(30)
    raise AssertionError("never two playable cards")


# Where each playable card of the hand is drawn (its top), which is lifted, and the background
# of any card a pointer is over.
HAND = """() => ({
  tops: [...document.querySelectorAll('.hand .card.playable:not(.gone)')]
    .map((card) => [card.dataset.card, card.getBoundingClientRect().top,
      card.classList.contains('lifted')]),
  hovered: [...document.querySelectorAll('.hand .card:hover')].map((card) =>
    [card.dataset.card, getComputedStyle(card).backgroundColor,
      card.classList.contains('illegal')]),
  paper: getComputedStyle(document.querySelector('.hand .card:not(.illegal):not(:hover)'))
    .backgroundColor,
  note: (document.querySelector('.note:not([hidden])') || {}).textContent || null,
})"""


@pytest.mark.parametrize("size", [(360, 740), (390, 844), (844, 390)])
def test_a_lifted_card_is_clearly_raised_and_says_tap_again(
    browser: Any, base_url: str, screens: Path, size: tuple[int, int]
) -> None:
    width, height = size
    ctx = touch_context(browser, width, height, "off", motion=False)
    ctx.add_init_script("localStorage.setItem('callbreak:onetap', 'off')")
    page = ctx.new_page()
    try:
        match = new_match(page, base_url, rules="strict(deals=1)", speed="instant")
        page.goto(f"{base_url}/#/play/{match}")
        page.wait_for_selector(".hand .card")
        my_turn_with_choice(page)
        card = page.locator(".hand.active .card.playable:not(.gone)").first
        code = card.get_attribute("data-card")
        card.tap()
        page.wait_for_timeout(300)  # the rise (a transition) is over
        lifted = page.evaluate(HAND)
        page.screenshot(path=str(screens / f"lifted-{width}x{height}.png"))
        page.locator(f".hand .card.lifted[data-card='{code}']").tap()
        page.locator(f".hand .card.gone[data-card='{code}']").wait_for(state="attached")
        page.wait_for_timeout(300)
        after = page.evaluate(HAND)
    finally:
        ctx.close()
    mine = [top for card, top, up in lifted["tops"] if up]
    others = [top for card, top, up in lifted["tops"] if not up]
    assert len(mine) == 1 and others, lifted
    assert min(others) - mine[0] >= 14, f"lifted only {min(others) - mine[0]:.1f} px: {lifted}"
    rank = "10" if code[0] == "T" else code[0]
    note = lifted["note"] or ""
    assert rank in note and "tap it again to play it" in note, lifted
    assert after["note"] is None or "tap it again" not in after["note"], after
    # A finger leaves no hover tint on the card now under it.
    for hovered in after["hovered"] + lifted["hovered"]:
        assert hovered[2] or hovered[1] == lifted["paper"], (hovered, lifted["paper"])


# Every status line shown, and every line of what seat 1 does on its badge as drawn (visible).
WATCH_SEAT = """
window.__said = { status: [], badge: [] };
new MutationObserver(() => {
  const status = document.querySelector('.status');
  const doing = document.querySelector(".seat[data-seat='1'] .doing");
  const said = window.__said;
  if (status && status.textContent && said.status[said.status.length - 1] !== status.textContent) {
    said.status.push(status.textContent);
  }
  if (doing) {
    const text = doing.innerText.trim();
    const turn = doing.closest('.seat').classList.contains('turn');
    const last = said.badge[said.badge.length - 1];
    if (!last || last[0] !== text || last[1] !== turn) said.badge.push([text, turn]);
  }
}).observe(document, { subtree: true, childList: true, characterData: true });
"""


def test_a_dropped_person_is_said_on_the_badge_and_the_status_line(
    browser: Any, base_url: str, screens: Path
) -> None:
    from tests.e2e.test_phone import room_with_bikash

    ctx = touch_context(browser, 390, 844, "off", motion=False)
    ctx.add_init_script(WATCH_SEAT)
    page = ctx.new_page()
    try:
        code, _tokens = room_with_bikash(page, base_url, turn_seconds=60)
        page.goto(f"{base_url}/#/room/{code}")
        page.locator(".hand .card").first.wait_for()
        page.locator(".seat[data-seat='1'] .covered").wait_for(state="attached")
        for _ in range(3_000):
            said = page.evaluate("window.__said")
            if any("Bikash is away" in text for text in said["status"]) and len(said["badge"]) >= 3:
                break
            now = page.evaluate(ACT)
            if now == "call":
                page.locator(".calling button.call").first.tap(timeout=3_000)
            elif now == "play":
                page.locator(".hand.active .card.playable:not(.gone)").first.tap(timeout=3_000)
            page.wait_for_timeout(30)
        page.screenshot(path=str(screens / "dropped-390x844.png"))
    finally:
        ctx.close()
    assert "Bikash is away: the computer plays for them." in said["status"], said["status"]
    assert not [text for text in said["status"] if "Bikash is thinking" in text]
    assert not [text for text in said["status"] if "Bikash to" in text]
    # On the badge, in words a person sees, on his turn (lit) and off it.
    assert said["badge"] and all("computer" in text for text, _turn in said["badge"]), said["badge"]
    assert any(turn for _text, turn in said["badge"]), said["badge"]


# Every piece of text shown (an element with words of its own, drawn as a box) that its box
# cuts: wider than its box (scrollWidth > clientWidth), or spilling out of a box that clips.
CUT = r"""(where) => {
  const cut = [];
  const seen = new Set();
  const scope = document.querySelector('dialog[open]') || document.querySelector(where) ||
    document.body;
  for (const element of scope.querySelectorAll('*')) {
    if (!element.getClientRects().length || element.closest('.sr-only')) continue;
    const own = [...element.childNodes]
      .some((node) => node.nodeType === 3 && node.textContent.trim());
    if (!own) continue;
    let box = element;
    while (box && getComputedStyle(box).display === 'inline') box = box.parentElement;
    // A box of a pixel is a word for a screen reader only (a tool's label on a phone).
    if (!box || seen.has(box) || box.clientWidth <= 1) continue;
    seen.add(box);
    if (box.scrollWidth > box.clientWidth + 1) {
      cut.push(`${box.className || box.tagName}: "${box.textContent.trim().slice(0, 40)}"` +
        ` ${box.scrollWidth} > ${box.clientWidth}`);
    }
  }
  // And no word broken over two lines ("Chandr" / "a", "(2–" / "13)?").
  const walker = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || !parent.getClientRects().length || parent.closest('.sr-only')) continue;
    for (const match of node.textContent.matchAll(/\S{2,}/g)) {
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
      if (tops.size > 1) cut.push(`${parent.className || parent.tagName}: "${match[0]}" broken`);
    }
  }
  return cut;
}"""

# Each mark on a badge's initial (the dealer's "D", Nepali and Hindi "बाँ") whose letters' ink, as
# the font draws it (its canvas metrics from the text's baseline), comes within a pixel of its
# circle's edge or goes past it.
MARKS = r"""() => {
  const spilt = [];
  const canvas = document.createElement('canvas').getContext('2d');
  for (const mark of document.querySelectorAll('.seat .avatar .mark')) {
    if (!mark.getClientRects().length || !mark.textContent.trim()) continue;
    const box = mark.getBoundingClientRect();
    const style = getComputedStyle(mark);
    canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const metrics = canvas.measureText(mark.textContent);
    const range = document.createRange();
    range.selectNodeContents(mark);
    const text = range.getBoundingClientRect();
    const baseline = text.top + metrics.fontBoundingBoxAscent;
    const ink = {
      top: baseline - metrics.actualBoundingBoxAscent,
      bottom: baseline + metrics.actualBoundingBoxDescent,
      left: text.left - metrics.actualBoundingBoxLeft,
      right: text.left + metrics.actualBoundingBoxRight,
    };
    if (ink.top < box.top + 1 || ink.bottom > box.bottom - 1 || ink.left < box.left + 1 ||
        ink.right > box.right - 1) {
      const at = (r) => [r.top, r.bottom, r.left, r.right].map(Math.round).join(' ');
      spilt.push(`mark "${mark.textContent}": ink ${at(ink)} in its circle ${at(box)}`);
    }
  }
  return spilt;
}"""

# Badges drawn closer than 4 px to each other (or over each other).
APART = """() => {
  const boxes = [...document.querySelectorAll('.seat')]
    .filter((seat) => seat.getClientRects().length)
    .map((seat) => [seat.querySelector('strong')?.textContent, seat.getBoundingClientRect()]);
  const close = [];
  for (const [i, [a, r]] of boxes.entries()) {
    for (const [b, q] of boxes.slice(i + 1)) {
      const gap = Math.max(q.left - r.right, r.left - q.right, q.top - r.bottom, r.top - q.bottom);
      if (gap < 4) close.push(`badges ${a} and ${b} ${gap.toFixed(1)} px apart`);
    }
  }
  return close;
}"""

# Every word a badge's line of what its seat does may say in play (badges.js drawSeats), with
# the turn clock beside it where one may stand there (a person's turn), put in each badge in
# turn: those cut. The words come from the page's own catalogue in its language; each line is
# put back after.
SAYINGS = r"""async () => {
  const { t } = await import('/static/i18n.js');
  const says = {
    mine: [['table.yourTurn', 'turn', true], ['table.pausedShort', 'paused', false],
      ['table.coveredShort', 'stood-in', true]],
    other: [['table.thinking', 'thinking', false], ['table.toPlay', 'turn', true],
      ['table.toCall', 'turn', true], ['table.away', 'away', false],
      ['table.coveredShort', 'stood-in', true], ['table.openShort', 'stood-in', false],
      ['table.pausedShort', 'paused', false]],
  };
  const seconds = t('table.seconds', { seconds: 30 });
  const span = (className, textContent) =>
    Object.assign(document.createElement('span'), { className, textContent });
  const cut = [];
  for (const seat of document.querySelectorAll('.seat')) {
    const doing = seat.querySelector('.doing');
    if (!doing || !seat.getClientRects().length) continue;
    const kept = [...doing.childNodes];
    const [keptClass, keptSeat] = [doing.className, seat.className];
    const name = seat.querySelector('strong')?.textContent;
    for (const [key, kind, clocked] of says[seat.classList.contains('mine') ? 'mine' : 'other']) {
      for (const clock of clocked ? [false, true] : [false]) {
        const parts = [span('what', t(key)), ...(clock ? [span('clock', seconds)] : [])];
        doing.className = `doing ${kind}`;
        seat.classList.toggle('stood-in', kind === 'stood-in');
        doing.replaceChildren(...parts);
        const over = [doing, ...parts]
          .find((box) => box.getClientRects().length && box.scrollWidth > box.clientWidth + 1);
        if (over) {
          const sizes = `${over.scrollWidth} > ${over.clientWidth}`;
          cut.push(`${name}'s badge: "${doing.textContent}" ${sizes}`);
        }
      }
    }
    [doing.className, seat.className] = [keptClass, keptSeat];
    doing.replaceChildren(...kept);
  }
  return cut;
}"""

LABEL_SIZES = {
    "360x740": (360, 740, True),
    "390x844": (390, 844, True),
    "412x915": (412, 915, True),
    "844x390": (844, 390, True),
    "640x360": (640, 360, True),
    "1366x768": (1366, 768, False),
}
SHARED_SEED = "476"
"""A one-deal match whose totals, played as tests.e2e.table.finish plays, share first and third
place: four "(shared)" places, the longest words of a match's end."""


@pytest.fixture(scope="module")
def tables(browser: Any, base_url: str) -> dict[str, str]:
    """What test_no_label_is_cut looks at, made once for every size and language: a match with
    its first deal scored (a page that opens it shows its summary) and the second waiting for
    the person's call, a match played to its end with places shared, a scoresheet with no deal
    and one with a deal."""
    made = browser.new_context()
    page = made.new_page()
    try:
        dealt = new_match(page, base_url, rules="strict(deals=2)", seed="labels")
        play_deals(base_url, dealt, 1)
        over = new_match(page, base_url, rules="strict(deals=1)", seed=SHARED_SEED)
        finish(base_url, over)
        empty = new_sheet(page, base_url, {"names": SHEET_NAMES, "rules": "strict"})
        sheet = new_sheet(page, base_url, {"names": SHEET_NAMES, "rules": "strict"})
        entered = page.request.put(
            f"{base_url}/api/sheets/{sheet}/deals/1",
            data=json.dumps({"calls": [3, 4, 2, 2], "tricks": [5, 3, 2, 3]}),
            headers=bearer(sheet),
        )
        assert entered.ok, entered.text()
    finally:
        made.close()
    return {"dealt": dealt, "over": over, "empty": empty, "sheet": sheet}


# To a page of the app in a language, as the language chooser goes there (the page drawn again,
# not loaded), with no deal's summary seen yet in this browser.
VISIT = """([address, lang]) => {
  for (const key of Object.keys(localStorage)) {
    if (key.startsWith('callbreak:seen:')) localStorage.removeItem(key);
  }
  history.replaceState(null, '', address);
  const chooser = document.getElementById('lang');
  chooser.value = lang;
  chooser.dispatchEvent(new Event('change'));
}"""


@pytest.mark.parametrize("size", list(LABEL_SIZES))
def test_no_label_is_cut(
    browser: Any, base_url: str, screens: Path, tables: dict[str, str], size: str
) -> None:
    """At each size, in English, Nepali and Hindi (chosen in one page): no text of the deal's
    summary, the table, its settings and scores sheets, the last trick, the match's end and the
    scoresheet is cut or has a word broken over two lines; no mark spills out of its circle, no
    two badges touch, and every word a badge may say fits it."""
    width, height, touch = LABEL_SIZES[size]
    made = browser.new_context(
        viewport={"width": width, "height": height},
        has_touch=touch,
        is_mobile=touch,
        reduced_motion="reduce",
    )
    made.add_init_script(
        "localStorage.setItem('callbreak:lang', 'en');"
        "localStorage.setItem('callbreak:pause', 'off');"
    )
    for kind, table in (
        ("match", "dealt"),
        ("match", "over"),
        ("sheet", "empty"),
        ("sheet", "sheet"),
    ):
        hold(made, kind, tables[table])
    made.set_default_timeout(20_000)
    page = made.new_page()
    cut: list[str] = []
    lang = "en"

    def look(state: str, where: str = ".play-page", badges: bool = False) -> None:
        page.wait_for_timeout(100)
        found = page.evaluate(CUT, where) + page.evaluate(MARKS)
        if badges:
            found += page.evaluate(APART) + page.evaluate(SAYINGS)
        cut.extend(f"{lang} {state}: {text}" for text in found)
        page.screenshot(path=str(screens / f"labels-{size}-{lang}-{state}.png"))

    def press(selector: str) -> None:
        locator = page.locator(selector).first
        locator.tap() if touch else locator.click()

    def visit(address: str) -> None:
        page.evaluate(VISIT, [address, lang])
        page.wait_for_function("(lang) => document.documentElement.lang === lang", arg=lang)

    try:
        page.goto(f"{base_url}/#/")
        page.locator("nav.choice").wait_for()
        for lang in ("en", "ne", "hi"):
            visit(f"#/play/{tables['dealt']}")
            page.locator("dialog.result[open]").wait_for()
            look("summary")
            press("dialog.result[open] button.primary")
            page.locator(".calling:not([hidden]) button.call").first.wait_for()
            look("table", badges=True)
            press(".settings-button")
            page.locator("dialog.settings-dialog[open]").wait_for()
            look("settings")
            # Its Close in sight, however tall the sheet.
            close = page.locator("dialog.settings-dialog[open] .sheet-body > button.primary")
            box = close.bounding_box()
            if not (box and box["y"] >= 0 and box["y"] + box["height"] <= height):
                cut.append(f"{lang} settings: Close off the screen at {box}")
            page.keyboard.press("Escape")
            if page.locator(".scores-button").is_visible():
                press(".scores-button")
                page.locator("dialog.scores-dialog[open]").wait_for()
                look("scores")
                page.keyboard.press("Escape")
            press(".last-trick")
            page.locator(".peek:not([hidden])").wait_for()
            look("last-trick", ".peek")
            visit(f"#/play/{tables['over']}")
            page.locator("dialog.result[open]").wait_for()
            places = page.locator("dialog.result[open] ol.places .place").all_inner_texts()
            assert len(set(places)) == 2, f"seed {SHARED_SEED} shares no longer: {places}"
            look("over-summary")
            press("dialog.result[open] button.primary")
            page.locator(".play-page[data-over]").wait_for()
            look("over")
            cut.extend(f"{lang} over: {text}" for text in page.evaluate(APART))
            visit(f"#/sheet/{tables['empty']}")
            page.locator(".sheet-table").wait_for()
            look("sheet-empty", "main")
            # No standing before any deal (four "1st (shared)" say nothing).
            assert page.locator(".sheet-table tr.places").count() == 0
            visit(f"#/sheet/{tables['sheet']}")
            page.locator(".sheet-table tbody tr[data-deal]").wait_for()
            look("sheet", "main")
    finally:
        made.close()
    assert not cut, "\n".join(cut)


# Where the words of each tab of the start page sit in their tab: the distance of their
# middle from the tab's middle, across and down.
TABS = """() => [...document.querySelectorAll('nav.choice a')].map((tab) => {
  const range = document.createRange();
  range.selectNodeContents(tab);
  const words = range.getBoundingClientRect();
  const box = tab.getBoundingClientRect();
  return [tab.textContent, Math.abs((words.left + words.right - box.left - box.right) / 2),
    Math.abs((words.top + words.bottom - box.top - box.bottom) / 2)];
})"""


@pytest.mark.parametrize("size", [(360, 740), (390, 844), (844, 390)])
def test_no_page_opens_the_keyboard_and_the_start_tabs_are_centred(
    browser: Any, base_url: str, screens: Path, size: tuple[int, int]
) -> None:
    """The start page (both tabs), a new scoresheet and a scoresheet in play, in English,
    Nepali and Hindi, each language loaded afresh (a query of its own) in one browser."""
    width, height = size
    made = browser.new_context(
        viewport={"width": width, "height": height}, has_touch=True, is_mobile=True
    )
    page = made.new_page()
    focused = {}
    tabs = []
    try:
        sheet = new_sheet(page, base_url, {"names": SHEET_NAMES, "rules": "strict"})
        page.goto(f"{base_url}/static/icon.svg")  # on the origin: its storage
        for lang in ("en", "ne", "hi"):
            page.evaluate("(lang) => localStorage.setItem('callbreak:lang', lang)", lang)
            for address in ("#/", "#/friends", "#/sheet", f"#/sheet/{sheet}"):
                page.goto(f"{base_url}/?{lang}{address}")
                page.locator("form button[type=submit], form button.primary").first.wait_for()
                page.wait_for_timeout(200)
                focused[lang + address] = page.evaluate("document.activeElement.tagName")
                if address in ("#/", "#/friends"):
                    tabs += page.evaluate(TABS)
                    page.screenshot(path=str(screens / f"start-{width}x{height}-{lang}.png"))
    finally:
        made.close()
    # No field takes the focus on load: a phone's keyboard would open over the form.
    assert set(focused.values()) == {"BODY"}, focused
    for text, across, down in tabs:
        assert across <= 2 and down <= 2, (text, across, down)


# The browser's share sheet, screen wake lock and vibration, stubbed: each call recorded.
STUBS = """
window.__device = { shared: [], locks: [], released: 0, buzzes: [] };
navigator.share = async (data) => { window.__device.shared.push(data); };
Object.defineProperty(navigator, 'wakeLock', { configurable: true, value: {
  request: async (kind) => {
    window.__device.locks.push(kind);
    return { release: async () => { window.__device.released++; }, addEventListener() {} };
  },
} });
navigator.vibrate = (pattern) => { window.__device.buzzes.push(pattern); return true; };
"""


def test_a_room_shares_its_link_keeps_the_screen_awake_and_buzzes_on_your_turn(
    browser: Any, base_url: str, screens: Path
) -> None:
    from tests.e2e.test_rooms import create_room

    ctx = touch_context(browser, 390, 844, "off", motion=False)
    ctx.add_init_script(STUBS)
    page = ctx.new_page()
    try:
        code, _token = create_room(
            base_url,
            page,
            rules="strict(deals=1)",
            seats=["random", "random", "random"],
            turn_seconds=0,
            speed="instant",
        )
        page.goto(f"{base_url}/#/room/{code}")
        page.locator("button.share").tap()
        page.wait_for_function("() => window.__device.shared.length === 1")
        assert page.evaluate("window.__device.locks") == []  # not before the match
        page.screenshot(path=str(screens / "room-share-390x844.png"))
        page.click("text=Start the match")
        page.locator(".hand .card").first.wait_for()
        page.wait_for_function("() => window.__device.locks.length >= 1")
        for _ in range(2_000):
            if page.evaluate("window.__device.buzzes.length"):
                break
            page.wait_for_timeout(30)
        page.locator(".settings-button").tap()
        vibrate_setting = page.locator("#set-vibrate").is_checked()
        device = page.evaluate("window.__device")
        page.goto(f"{base_url}/#/")  # leaving the room lets the screen sleep
        page.wait_for_function("() => window.__device.released >= 1")
    finally:
        ctx.close()
    assert device["shared"][0]["url"].endswith(f"#/room/{code}"), device["shared"]
    assert code in device["shared"][0]["text"]
    assert device["locks"][0] == "screen"
    assert device["buzzes"] and vibrate_setting  # on by default on a touch screen


def test_without_a_share_sheet_the_room_has_copy_only(browser: Any, base_url: str) -> None:
    from tests.e2e.test_rooms import create_room

    ctx = touch_context(browser, 390, 844, "off", motion=False)
    page = ctx.new_page()
    try:
        code, _token = create_room(base_url, page, seats=["random", "random", "random"])
        page.goto(f"{base_url}/#/room/{code}")
        page.locator("button.copy").wait_for()
        shares = page.locator("button.share").count()
        has_share = page.evaluate("typeof navigator.share === 'function'")
    finally:
        ctx.close()
    assert shares == (1 if has_share else 0)
