"""The table a phone player keeps (issue 42): every finished trick stays up its chosen time
whoever won it and whatever the server sends meanwhile, measured in the page's own clock."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.table import new_match

# Each finished trick as the page shows it, timed by the page's clock (performance.now): when
# its winning card is marked, how many cards were up then, and when the first of them starts to
# leave (an animation that fades it out) or the trick is emptied, with the cards still up then.
HELD = """
window.__held = [];
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
        open = { start: performance.now(), cards: cards(), mine: slot === '0' };
        window.__held.push(open);
      }
      if (record.type === 'childList' && record.removedNodes.length && target.classList &&
          target.classList.contains('trick')) end('emptied');
    }
  }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['class'] });
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


@pytest.mark.parametrize(
    ("speed", "pause"),
    [("instant", "normal"), ("fast", "long"), ("normal", "short"), ("slow", "normal")],
)
def test_a_trick_a_computer_won_stays_up_its_time(
    browser: Any, base_url: str, screens: Path, speed: str, pause: str
) -> None:
    ctx = touch_context(browser, 390, 844, pause)
    ctx.add_init_script(HELD)
    page = ctx.new_page()
    wanted = 3 if speed in ("instant", "fast") else 2
    try:
        match = new_match(page, base_url, rules="strict(deals=1)", speed=speed)
        page.goto(f"{base_url}/#/play/{match}")
        page.wait_for_selector(".hand .card")
        for _ in range(3_000):
            held = page.evaluate("window.__held")
            theirs = [h for h in held if not h["mine"] and "end" in h]
            if len(theirs) >= wanted:
                break
            now = page.evaluate(ACT)
            if now == "call":
                page.locator(".calling button.call").first.tap(timeout=3_000)
            elif now == "play":
                page.locator(".hand.active .card.playable:not(.gone)").first.tap(timeout=3_000)
            page.wait_for_timeout(30)
        page.screenshot(path=str(screens / f"held-{speed}-{pause}.png"))
    finally:
        ctx.close()
    theirs = [h for h in held if not h["mine"] and "end" in h]
    assert len(theirs) >= wanted, held
    chosen = PAUSE_MS[pause]
    for trick in theirs:
        up = trick["end"] - trick["start"]
        assert trick["cards"] == 4 and trick["cardsAtEnd"] == 4 and trick["winnerAtEnd"], trick
        assert abs(up - chosen) <= 100, f"a trick stayed up {up:.0f} ms, not {chosen}: {held}"
