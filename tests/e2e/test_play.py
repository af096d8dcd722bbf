"""Playing in real headless Chromium: a whole match by clicking, an illegal card refused with
its reason, a reload mid-deal, the history's replay, screenshots, and a check that the socket
never brings another seat's hidden cards to the browser."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from callbreak.cards import parse_card
from tests.e2e.table import TOKENS, TURN, cards_shown, hold, step, turn

CARD = re.compile(r'"([2-9TJQKA][SHDC])"')
PLAYED: dict[str, Any] = {}
"""The match the whole-match test played, and the storage of the browser that played it."""


def start_match(page: Any, base_url: str, rules: str = "strict", level: str = "random") -> str:
    """Fill the new-match form and start; return the match id."""
    page.goto(base_url + "/#/")
    page.fill("#name", "Asha")
    page.select_option("#profile", rules)
    for index in range(3):
        page.select_option(f"#opponent-{index}", level)
    page.click("summary")  # more options
    page.select_option("#speed", "instant")
    page.click("text=Start the match")
    page.wait_for_url(re.compile(r"#/play/"))
    page.wait_for_selector(".hand .card")
    return str(page.url.split("#/play/")[1])


def my_turn(page: Any) -> str:
    """'dialog', 'call', 'play' or 'over', once the page asks one of them."""
    return str(page.wait_for_function(TURN).json_value())


def test_a_whole_match_by_clicking(browser: Any, base_url: str, server: Any, screens: Path) -> None:
    """Five deals from the new-match form to "Match over", each card and call clicked, every
    summary closed; nothing the browser received or shows is another seat's hidden card.
    Under reduced motion (the cards' travel has tests of its own: test_table_ui, test_table_feel),
    which leaves no animation to wait for."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, reduced_motion="reduce")
    context.add_init_script("localStorage.setItem('callbreak:pause', 'off')")
    page = context.new_page()
    page.set_default_timeout(20_000)
    try:
        whole_match_by_clicking(page, base_url, server, screens)
    finally:
        context.close()


def whole_match_by_clicking(page: Any, base_url: str, server: Any, screens: Path) -> None:
    """The whole match of ``test_a_whole_match_by_clicking`` in ``page``."""
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(payload)))
    match_id = start_match(page, base_url, rules="classic")
    tables = server["app"].state.tables
    shot_taken = False
    for _ in range(400):
        turn = my_turn(page)
        if turn == "dialog":
            button = page.locator("dialog.result[open] button.primary")
            if button.inner_text() == "Close":
                button.click()
                break
            button.click()
        elif turn == "over":
            break
        elif turn == "call":
            page.locator(".calling:not([hidden]) button.call").first.click()
        else:
            if not shot_taken and page.locator(".trick .card").count() >= 2:
                page.screenshot(path=str(screens / "table-desktop.png"))
                shot_taken = True
            page.locator(".hand.active .card.playable:not(.gone)").first.click()
        page.wait_for_timeout(30)
    page.wait_for_selector("text=Match over")
    assert page.locator(".scores tbody tr").count() == 6  # five deals and the total
    page.screenshot(path=str(screens / "table-final.png"))
    table = tables.live[match_id]
    assert table.state.match.is_over and len(table.state.match.played_deals()) == 5
    # The browser that played it holds its token: the history test looks back from there.
    PLAYED.update(id=match_id, storage=page.context.storage_state())
    # Every card the browser received is the person's own or was played face up.
    for frame in frames:
        message = json.loads(frame)
        if message["type"] != "state":
            continue
        state = message["state"]
        hand = set(state["hand"])
        public = set(state["trick"]["cards"]) | set((state["last_trick"] or {}).get("cards", []))
        for text in CARD.findall(frame):
            assert text in hand or text in public, f"{text} should not reach the browser"
    _assert_no_hidden_cards_in_page(page, table)


def _assert_no_hidden_cards_in_page(page: Any, table: Any) -> None:
    html = page.content()
    held_by_others = set()
    for seat in range(1, 4):
        held_by_others |= {str(card) for card in table.state.match.deal.held(seat)}
    for text in re.findall(r'data-card="([2-9TJQKA][SHDC])"', html):
        assert text not in held_by_others


def test_an_illegal_card_is_refused_with_its_reason(page: Any, base_url: str) -> None:
    start_match(page, base_url, rules="strict")
    for _ in range(2_000):
        illegal = page.locator(".hand.active .card.illegal")
        if turn(page) == "play" and illegal.count():
            card = illegal.first
            reason = card.get_attribute("title")
            before = page.locator(".hand .card:not(.gone)").count()
            # A person can click it: it is only marked aria-disabled (Playwright's own
            # actionability check would refuse it, hence force).
            card.click(force=True)
            note = page.locator(".status-box .note:not([hidden])")
            assert reason and note.inner_text() == reason
            assert reason.startswith(("Must ", "Lead a non-spade"))
            assert page.locator(".hand .card:not(.gone)").count() == before
            return
        if step(page) == "over":
            break
    pytest.fail("no illegal card came up")


def test_reload_mid_deal_resumes(page: Any, base_url: str) -> None:
    match_id = start_match(page, base_url, rules="online")
    assert my_turn(page) == "call"
    page.locator(".calling button.call").nth(1).click()
    while my_turn(page) != "play":
        page.wait_for_timeout(50)
    page.locator(".hand.active .card.playable:not(.gone)").first.click()
    # The card has left the hand, and it is the person's turn again: the table waits for them.
    # A function, not an expression: the pages' CSP forbids the eval an expression needs.
    page.wait_for_function(
        "() => document.querySelectorAll('.hand .card:not(.gone)').length === 12"
    )
    assert my_turn(page) == "play"
    # The hand is ready for the lead while the finished trick still stays up: the table is
    # read once that trick has gone to its winner.
    page.wait_for_function("() => !document.querySelector('.trick .card.winner')")
    hand = page.locator(".hand .card:not(.gone)").evaluate_all(
        "cards => cards.map(c => c.dataset.card)"
    )
    on_table = page.locator(".trick .card").evaluate_all("cards => cards.map(c => c.dataset.card)")
    my_line = page.locator(".seat.mine .line").inner_text()
    page.reload()
    page.wait_for_selector(".hand.active")
    assert page.url.endswith(match_id)
    assert (
        page.locator(".hand .card:not(.gone)").evaluate_all(
            "cards => cards.map(c => c.dataset.card)"
        )
        == hand
    )
    assert (
        page.locator(".trick .card").evaluate_all("cards => cards.map(c => c.dataset.card)")
        == on_table
    )
    assert page.locator(".seat.mine .line").inner_text() == my_line


def test_keyboard_play_and_accessible_names(page: Any, base_url: str) -> None:
    start_match(page, base_url, rules="classic")
    assert my_turn(page) == "call"
    first_call = page.locator(".calling button.call").first
    assert first_call.get_attribute("aria-label") == "Call 1"
    first_call.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")  # calls 2
    while my_turn(page) != "play":
        page.wait_for_timeout(50)
    names = page.locator(".hand .card").evaluate_all(
        "cards => cards.map(c => c.getAttribute('aria-label'))"
    )
    assert all(
        re.match(
            r"(Two|Three|Four|Five|Six|Seven|Eight|Nine|Ten|Jack|Queen|King|Ace)"
            r" of (spades|hearts|diamonds|clubs)",
            n,
        )
        for n in names
    )
    page.locator(".hand .card[tabindex='0']").focus()
    playable = page.locator(".hand.active .card.playable:not(.gone)").count()
    before = page.locator(".hand .card:not(.gone)").count()
    # Walk to a playable card with the arrow keys and play it with Enter.
    for _ in range(before):
        focused = page.evaluate("document.activeElement.className")
        if "illegal" not in focused:
            break
        page.keyboard.press("ArrowRight")
    assert playable >= 1
    page.keyboard.press("Enter")
    page.wait_for_function(
        f"() => document.querySelectorAll('.hand .card:not(.gone)').length === {before - 1}"
    )


def test_history_replays_a_finished_match(browser: Any, base_url: str, server: Any) -> None:
    assert PLAYED, "the whole-match test leaves a finished match"
    tables = server["app"].state.tables
    finished = PLAYED["id"]
    assert tables.live[finished].state.match.is_over
    # Another browser holds nothing: its history lists nobody's matches, and the match's pages
    # do not open in it.
    stranger = browser.new_context()
    other = stranger.new_page()
    other.goto(base_url + "/#/history")
    other.wait_for_selector("text=No match yet.")
    assert other.locator(f"tr[data-match='{finished}']").count() == 0
    for page_hash in (f"#/replay/{finished}", f"#/play/{finished}"):
        other.goto(f"{base_url}/{page_hash}")
        other.wait_for_selector("text=This browser holds no key to this match.")
    stranger.close()
    # The browser that played it lists it, replays it and downloads its record.
    context = browser.new_context(storage_state=PLAYED["storage"])
    page = context.new_page()
    page.goto(base_url + "/#/history")
    row = page.locator(f"tr[data-match='{finished}']")
    assert "finished" in row.inner_text()
    row.locator("text=Replay").click()
    page.wait_for_selector(".replay .trick")
    assert cards_shown(page) == 52
    page.click("button[aria-label='Next trick']")
    assert page.locator(".replay .trick .card").count() == 4
    assert page.locator(".replay .trick .card.winner").count() == 1
    assert cards_shown(page) == 48
    page.click("button[aria-label='Back a card']")
    assert page.locator(".replay .trick .card").count() == 3
    page.select_option(".replay .deal-pick", "4")
    assert page.locator(".replay .deal-pick option:checked").inner_text() == "Deal 5/5"
    with page.expect_download() as download:
        page.locator("text=Download record").first.click()
    assert download.value.suggested_filename == f"callbreak-{finished}.json"
    record = json.loads(Path(download.value.path()).read_text())
    assert record["format"] == "callbreak-record" and len(record["deals"]) >= 5
    # The history's own link downloads the same record.
    page.goto(base_url + "/#/history")
    with page.expect_download() as again:
        page.locator(f"tr[data-match='{finished}'] >> text=Record").click()
    assert json.loads(Path(again.value.path()).read_text()) == record
    context.close()


def test_phone_width_screenshot(browser: Any, base_url: str, screens: Path) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    try:
        start_match(page, base_url, rules="strict")
        turn = my_turn(page)
        if turn == "call":
            page.screenshot(path=str(screens / "table-phone-call.png"), full_page=True)
            page.locator(".calling:not([hidden]) button.call").first.click()
        while my_turn(page) != "play":
            page.wait_for_timeout(50)
        page.screenshot(path=str(screens / "table-phone.png"), full_page=True)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the page is {width}px wide at phone width"
    finally:
        context.close()


def test_hand_is_sorted_by_suit(page: Any, base_url: str) -> None:
    start_match(page, base_url, rules="strict")
    cards = page.locator(".hand .card").evaluate_all("cards => cards.map(c => c.dataset.card)")
    suits = [parse_card(c).suit for c in cards]
    order = [s for i, s in enumerate(suits) if i == 0 or suits[i - 1] != s]
    assert len(order) == len(set(order)), "each suit in one group"


def test_a_deal_against_the_expert(page: Any, base_url: str) -> None:
    """The expert plays in the browser too (a one-deal match, a short budget, to keep CI quick)."""
    created = page.request.post(
        base_url + "/api/matches",
        data=json.dumps(
            {
                "rules": "strict(deals=1)",
                "opponents": ["expert(time=0.02)"] * 3,
                "speed": "instant",
                "name": "Asha",
            }
        ),
        headers={"content-type": "application/json"},
    )
    assert created.status == 201
    TOKENS[created.json()["id"]] = created.json()["token"]
    hold(page.context, "match", created.json()["id"])
    page.goto(f"{base_url}/#/play/{created.json()['id']}")
    for _ in range(100):
        turn = my_turn(page)
        if turn in ("over", "dialog"):
            break
        if turn == "call":
            page.locator(".calling:not([hidden]) button.call").first.click()
        else:
            page.locator(".hand.active .card.playable:not(.gone)").first.click()
        page.wait_for_timeout(30)
    page.wait_for_selector("text=Match over")
    assert page.locator(".seat .level").first.inner_text().strip() == "Expert"
