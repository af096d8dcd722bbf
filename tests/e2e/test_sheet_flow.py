"""The scoresheet in a real browser: a table playing with real cards keeps score on the page."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

NAMES = ["Asha", "Bikash", "Chandra", "Dipa"]


def enter_deal(page: Page, calls: list[int], tricks: list[int], button: str) -> None:
    """Fill in one deal's calls and tricks by their labels and press the save button."""
    for name, call in zip(NAMES, calls, strict=True):
        page.get_by_label(f"{name}'s call", exact=True).fill(str(call))
    for name, taken in zip(NAMES, tricks, strict=True):
        page.get_by_label(f"{name}'s tricks", exact=True).fill(str(taken))
    page.get_by_role("button", name=button, exact=True).click()


def row_scores(page: Page, number: int) -> list[str]:
    """The points shown in the score table's row for deal ``number``."""
    return page.locator(f'tr[data-deal="{number}"] td .points').all_inner_texts()


def footer(page: Page, kind: str) -> list[str]:
    """The totals ('total') or places ('places') row, without its heading."""
    return page.locator(f"tfoot tr.{kind} td").all_inner_texts()


def test_the_scoresheet_flow(page: Page, base_url: str, screens: Path) -> None:
    page.goto(f"{base_url}/#/sheet")
    expect(page.get_by_role("heading", name="New scoresheet")).to_be_visible()

    # Starting a sheet: a missing name is refused with its message.
    for index, name in enumerate(NAMES[:3], 1):
        page.get_by_label(f"Player {index}", exact=True).fill(name)
    page.get_by_label("Rules", exact=True).select_option("strict")
    expect(page.locator("#sheet-profile-summary")).to_contain_text("calls 2–13")
    page.get_by_role("button", name="Start the scoresheet").click()
    expect(page.get_by_role("alert")).to_have_text("Player 4's name is empty.")
    # The server's own check, worded by the page: names differ whatever their case.
    page.get_by_label("Player 4", exact=True).fill(NAMES[0].lower())
    page.get_by_role("button", name="Start the scoresheet").click()
    expect(page.get_by_role("alert")).to_have_text(
        f"Two players are called {NAMES[0].lower()}: each name must differ."
    )
    page.get_by_label("Player 4", exact=True).fill(NAMES[3])
    page.get_by_role("button", name="Start the scoresheet").click()
    expect(
        page.get_by_role("heading", name="Scoresheet: Asha, Bikash, Chandra, Dipa")
    ).to_be_visible()
    sheet_id = page.url.rsplit("/", 1)[1]
    expect(page.locator(".sheet-state")).to_have_text("Deal 1 of 5 is next.")

    # Deal 1 by keyboard alone: the first call has the focus, all calls come before the tricks,
    # and Enter saves. This is the scoring example of the rules.
    expect(page.get_by_label("Asha's call", exact=True)).to_be_focused()
    for value in ["3", "4", "2", "3", "5", "3", "2"]:
        page.keyboard.type(value)
        page.keyboard.press("Tab")
    expect(page.get_by_label("Dipa's tricks", exact=True)).to_be_focused()
    page.keyboard.type("3")
    expect(page.locator(".sheet-count")).to_have_text("Calls total 12; tricks total 13.")
    page.keyboard.press("Enter")
    expect(page.locator('tr[data-deal="1"]')).to_be_visible()
    assert row_scores(page, 1) == ["3.2", "−4.0", "2.0", "3.0"]
    expect(page.get_by_label("Asha's call", exact=True)).to_be_focused()

    # Impossible entries show their message and change nothing.
    enter_deal(page, [1, 3, 4, 2], [2, 3, 5, 3], "Add deal 2")
    expect(page.get_by_role("alert")).to_have_text(
        "Asha's call of 1 is out of range: calls are 2–13."
    )
    enter_deal(page, [2, 3, 4, 2], [2, 3, 5, 2], "Add deal 2")
    expect(page.get_by_role("alert")).to_have_text(
        "The tricks total 12, but every deal has exactly 13 tricks."
    )
    expect(page.locator("tbody tr[data-deal]")).to_have_count(1)
    enter_deal(page, [2, 3, 4, 2], [2, 3, 5, 3], "Add deal 2")
    expect(page.locator('tr[data-deal="2"]')).to_be_visible()
    expect(page.get_by_role("alert")).to_have_text("")
    enter_deal(page, [4, 2, 2, 3], [4, 2, 4, 3], "Add deal 3")
    expect(page.locator('tr[data-deal="3"]')).to_be_visible()
    assert footer(page, "total") == ["9.2", "1.0", "8.3", "8.1"]

    # Correcting deal 1: it is loaded into the form, then saved in place.
    page.get_by_role("button", name="Edit deal 1").click()
    expect(page.get_by_role("heading", name="Correct deal 1")).to_be_visible()
    expect(page.get_by_label("Bikash's call", exact=True)).to_have_value("4")
    expect(page.get_by_label("Asha's tricks", exact=True)).to_have_value("5")
    page.get_by_label("Asha's tricks", exact=True).fill("4")  # 4 + 3 + 2 + 3 = 12
    page.get_by_role("button", name="Save deal 1").click()
    expect(page.get_by_role("alert")).to_have_text(
        "The tricks total 12, but every deal has exactly 13 tricks."
    )
    assert row_scores(page, 1) == ["3.2", "−4.0", "2.0", "3.0"]
    page.get_by_label("Bikash's tricks", exact=True).fill("4")
    page.get_by_role("button", name="Save deal 1").click()
    expect(page.get_by_role("heading", name="Deal 4")).to_be_visible()
    assert row_scores(page, 1) == ["3.1", "4.0", "2.0", "3.0"]
    assert footer(page, "total") == ["9.1", "9.0", "8.3", "8.1"]
    assert footer(page, "places") == ["1st", "2nd", "3rd", "4th"]

    # A reload draws the same sheet from the server, and keeps a deal whose calls are entered.
    for name in NAMES:
        page.get_by_label(f"{name}'s call", exact=True).fill("3")
    table = page.locator("table.sheet-table").inner_text()
    page.reload()
    expect(page.locator('tr[data-deal="3"]')).to_be_visible()
    assert page.locator("table.sheet-table").inner_text() == table
    for name in NAMES:
        expect(page.get_by_label(f"{name}'s call", exact=True)).to_have_value("3")

    # At phone width everything fits without scrolling sideways.
    page.set_viewport_size({"width": 390, "height": 844})
    expect(page.get_by_role("button", name="Add deal 4")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.evaluate(
        "[...document.querySelectorAll('.sheet-scroll')].every(e => e.scrollWidth <= e.clientWidth)"
    )
    page.screenshot(path=str(screens / "sheet-phone.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})

    for name, taken in zip(NAMES, [3, 3, 3, 4], strict=True):
        page.get_by_label(f"{name}'s tricks", exact=True).fill(str(taken))
    page.get_by_role("button", name="Add deal 4").click()
    expect(page.locator('tr[data-deal="4"]')).to_be_visible()
    assert footer(page, "total") == ["12.1", "12.0", "11.3", "11.2"]

    # Deleting the last deal asks first.
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Delete deal 4").click()
    expect(page.locator('tr[data-deal="4"]')).to_have_count(0)
    assert footer(page, "total") == ["9.1", "9.0", "8.3", "8.1"]

    enter_deal(page, [2, 2, 2, 2], [2, 2, 2, 7], "Add deal 4")
    expect(page.locator('tr[data-deal="4"]')).to_be_visible()
    enter_deal(page, [2, 2, 3, 5], [2, 3, 3, 5], "Add deal 5")
    expect(page.locator(".sheet-state")).to_have_text("The match is over: all 5 deals are played.")
    expect(page.locator(".sheet-result")).to_have_text("Dipa wins.")
    assert footer(page, "total") == ["13.1", "13.1", "13.3", "15.6"]
    assert footer(page, "places") == ["3rd (shared)", "3rd (shared)", "2nd", "1st"]
    expect(page.locator("form.sheet-entry")).to_have_count(0)
    page.screenshot(path=str(screens / "sheet-desktop.png"), full_page=True)

    # The export links download the sheet.
    with page.expect_download() as download:
        page.get_by_role("link", name="Download CSV").click()
    assert download.value.suggested_filename == f"callbreak-sheet-{sheet_id}.csv"
    text = Path(download.value.path()).read_text(encoding="utf-8-sig")
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0][:4] == ["Deal", "Asha call", "Asha tricks", "Asha score"]
    assert rows[1] == ["1", "3", "4", "3.1", "4", "4", "4.0", "2", "2", "2.0", "3", "3", "3.0"]
    assert rows[-2] == ["Total", "", "", "13.1", "", "", "13.1", "", "", "13.3", "", "", "15.6"]
    assert rows[-1] == ["Place", "", "", "3", "", "", "3", "", "", "2", "", "", "1"]
    with page.expect_download() as download:
        page.get_by_role("link", name="Download JSON").click()
    assert download.value.suggested_filename == f"callbreak-sheet-{sheet_id}.json"
    data: Any = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert (data["format"], data["version"], data["rules"]) == ("callbreak-scoresheet", 1, "strict")
    assert data["players"] == NAMES
    assert len(data["deals"]) == 5
    assert (data["totals"], data["places"]) == (["13.1", "13.1", "13.3", "15.6"], [3, 3, 2, 1])

    # A finished sheet can still be corrected, and the list of sheets leads back to it.
    page.get_by_role("button", name="Edit deal 5").click()
    expect(page.get_by_role("heading", name="Correct deal 5")).to_be_visible()
    page.get_by_role("button", name="Cancel").click()
    expect(page.locator("form.sheet-entry")).to_have_count(0)
    page.get_by_role("link", name="All scoresheets").click()
    row = page.locator(f'tr[data-sheet="{sheet_id}"]')
    expect(row).to_contain_text("finished, 5 deals")
    expect(row).to_contain_text("Dipa: 15.6, 1st")
    row.get_by_role("link", name="Open the scoresheet of Asha, Bikash, Chandra, Dipa").click()
    expect(page.locator(".sheet-result")).to_have_text("Dipa wins.")

    # Another browser holds no token for it: the sheet does not open there, nor is it listed.
    stranger = page.context.browser.new_context()
    other = stranger.new_page()
    other.goto(f"{base_url}/#/sheet/{sheet_id}")
    expect(other.get_by_text("This browser holds no key to this scoresheet.")).to_be_visible()
    other.goto(f"{base_url}/#/sheet")
    expect(other.get_by_text("No scoresheet yet.")).to_be_visible()
    expect(other.locator(f'tr[data-sheet="{sheet_id}"]')).to_have_count(0)
    stranger.close()


def test_changed_rules_are_checked_and_shown(page: Page, base_url: str) -> None:
    page.goto(f"{base_url}/#/sheet")
    for index, name in enumerate(NAMES, 1):
        page.get_by_label(f"Player {index}", exact=True).fill(name)
    page.get_by_label("Rules", exact=True).select_option("pagat")
    expect(page.locator("#sheet-profile-summary")).to_contain_text("open-ended")
    page.get_by_text("Change the rules").click()
    page.get_by_label("Changes to the profile").fill("deals=0")
    page.get_by_role("button", name="Start the scoresheet").click()
    expect(page.get_by_role("alert")).to_have_text("Bad rules: deals must be 1-1000 or open, not 0")
    page.get_by_label("Changes to the profile").fill("deals=10, eight_wins=true")
    page.get_by_role("button", name="Start the scoresheet").click()
    expect(page.locator(".sheet-state")).to_have_text("Deal 1 of 10 is next.")
    expect(page.get_by_text("Rules: Pagat (changed)")).to_be_visible()
    # Pagat's lowest call is 2, and a made call of 8 or more (here 9 of 9) wins at once.
    enter_deal(page, [1, 2, 2, 2], [9, 2, 1, 1], "Add deal 1")
    expect(page.get_by_role("alert")).to_have_text(
        "Asha's call of 1 is out of range: calls are 2–13."
    )
    enter_deal(page, [9, 2, 2, 2], [9, 2, 1, 1], "Add deal 1")
    expect(page.locator(".sheet-state")).to_have_text(
        "The match is over: Asha made a call of 9, which wins at once."
    )
    expect(page.locator(".sheet-result")).to_have_text("Asha wins.")
    assert footer(page, "total") == ["13.0", "2.0", "−2.0", "−2.0"]
