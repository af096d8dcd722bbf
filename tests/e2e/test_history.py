"""Moving a history to another device in real Chromium: the tokens of a browser's matches, rooms
and scoresheets exported as a file and imported in a fresh browser, which then shows the same
history, record and sheets; a bad file changes nothing; the file ``callbreak adopt`` writes for
an old database's matches imports the same way."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from callbreak.web.model import new_match as new_match_data
from callbreak.web.owners import adopt
from tests.e2e.table import bearer, context, finish, new_match, new_sheet
from tests.e2e.test_rooms import create_room

NAMES = ["Asha", "Bikash", "Chandra", "Dipa"]


def held_count(page: Any) -> int:
    """How many matches, rooms and sheets the page's browser keeps a token (or a room) for."""
    return int(
        page.evaluate(
            "Object.keys(localStorage).filter((k) => /^callbreak:(match|room|sheet):/.test(k))"
            ".length"
        )
    )


def history_rows(page: Any, base_url: str) -> list[list[str]]:
    """The rows of the history page, as the text of their cells."""
    page.goto(f"{base_url}/#/history")
    # A page already on #/history (create_room leaves it there, then keeps the room's token)
    # is not drawn again by a goto to the same address: reloaded, it draws what is held now.
    page.reload()
    page.wait_for_selector("section.move")
    page.wait_for_load_state("networkidle")
    return list(
        page.locator("table.history tbody tr").evaluate_all(
            "rows => rows.map((row) => [...row.cells].map((cell) => cell.textContent.trim()))"
        )
    )


def text(page: Any, selector: str) -> str:
    """The words of an element, whatever the page's width did to its layout."""
    return " ".join(page.locator(selector).inner_text().split())


def import_file(page: Any, path: Path) -> str:
    """Import a file on the history page; what the page says then."""
    page.wait_for_selector(".move-message", state="attached")
    page.evaluate("document.querySelector('.move-message').textContent = ''")
    page.set_input_files("#import-file", str(path))
    page.wait_for_function("() => document.querySelector('.move-message')?.textContent")
    return str(page.locator(".move-message").inner_text())


def test_export_then_import_in_a_fresh_browser_shows_the_same_history(
    browser: Any, base_url: str, tmp_path: Path, screens: Path
) -> None:
    home = context(browser)
    page = home.new_page()
    # A match started on the new-match page, one played to its end, a room, a scoresheet.
    page.goto(f"{base_url}/#/")
    page.fill("#name", "Asha")
    page.click("text=Start the match")
    page.wait_for_url(re.compile(r"#/play/"))
    started = page.url.split("#/play/")[1]
    page.wait_for_selector(".hand .card")
    finished = new_match(page, base_url, rules="strict(deals=1)")
    finish(base_url, finished)  # through its socket: the history looks only at its end
    code, _token = create_room(base_url, page, seats=[None, "random", "random"])
    sheet = new_sheet(page, base_url, {"names": NAMES, "rules": "strict"})
    entered = page.request.put(
        f"{base_url}/api/sheets/{sheet}/deals/1",
        data=json.dumps({"calls": [3, 4, 2, 2], "tricks": [5, 3, 2, 3]}),
        headers=bearer(sheet),
    )
    assert entered.ok, entered.text()

    rows = history_rows(page, base_url)
    assert len(rows) == 3 and any("finished" in cell for row in rows for cell in row), rows
    page.goto(f"{base_url}/#/record")
    page.wait_for_selector(".record-page .figures")
    figures = text(page, ".record-page")
    assert "1 match finished" in figures  # one, in the singular (issue 29)
    page.goto(f"{base_url}/#/sheet")
    page.wait_for_selector(f"tr[data-sheet='{sheet}']")
    sheets = text(page, ".sheet-list tbody")
    page.goto(f"{base_url}/#/history")
    with page.expect_download() as download:
        page.get_by_role("button", name="Export history").click()
    assert re.fullmatch(
        r"callbreak-history-\d{4}-\d\d-\d\d\.json", download.value.suggested_filename
    )
    exported = tmp_path / "history.json"
    download.value.save_as(exported)
    tokens = json.loads(exported.read_text())
    assert tokens["format"] == "callbreak-tokens" and tokens["version"] == 1
    assert {entry["id"] for entry in tokens["matches"]} == {started, finished}
    assert [entry["id"] for entry in tokens["rooms"]] == [code]
    assert tokens["rooms"][0]["seat"] == 0
    assert [entry["id"] for entry in tokens["sheets"]] == [sheet]
    home.close()

    # Another device: nothing at first; a bad file is refused with one message.
    away = context(browser, "390")
    other = away.new_page()
    assert history_rows(other, base_url) == []
    other.wait_for_selector("text=No match yet.")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    refused = (
        "That file is not a history exported from this app: nothing was imported, nothing changed."
    )
    assert import_file(other, bad) == refused

    # The export imported: the same history, record, sheets; the matches open and play.
    assert import_file(other, exported) == "Imported: 4 new, 0 already here."
    other.screenshot(path=str(screens / "history-imported-390.png"), full_page=True)
    assert history_rows(other, base_url) == rows
    assert held_count(other) == 4
    # A file with one bad entry among good ones changes nothing, and loses nothing held.
    broken = dict(tokens, matches=[*tokens["matches"], {"id": "x", "token": "not a token!"}])
    bad.write_text(json.dumps(broken))
    assert import_file(other, bad) == refused
    wrong_kind = {"format": "callbreak-scoresheet", "version": 1, "matches": []}
    bad.write_text(json.dumps(wrong_kind))
    assert import_file(other, bad) == refused
    assert history_rows(other, base_url) == rows and held_count(other) == 4
    assert import_file(other, exported) == "Imported: 0 new, 4 already here."
    other.goto(f"{base_url}/#/record")
    other.wait_for_selector(".record-page .figures")
    assert text(other, ".record-page") == figures
    other.goto(f"{base_url}/#/sheet")
    other.wait_for_selector(f"tr[data-sheet='{sheet}']")
    assert text(other, ".sheet-list tbody") == sheets
    other.goto(f"{base_url}/#/sheet/{sheet}")
    other.wait_for_selector("tr[data-deal='1']")
    other.goto(f"{base_url}/#/play/{started}")
    other.wait_for_selector(".hand .card")
    other.goto(f"{base_url}/#/room/{code}")
    other.wait_for_selector(".seat-row.mine")
    away.close()


def test_the_file_of_callbreak_adopt_imports(
    browser: Any, base_url: str, server: Any, tmp_path: Path
) -> None:
    """A match stored before matches had owners (no token) is nobody's until ``adopt`` writes
    its token to a file; imported, the history lists it and replays it."""
    app = server["app"]
    old = new_match_data("strict", "Asha", ["random"] * 3, "12", {"speed": "instant"})
    app.state.store.create(old)  # as an old database holds it: seat 0 without a token
    ctx = context(browser)
    page = ctx.new_page()
    page.goto(f"{base_url}/#/play/{old.id}")
    page.wait_for_selector("text=This browser holds no key to this match.")
    tokens = adopt(app.state.store.path)
    assert [entry["id"] for entry in tokens["matches"]] == [old.id]
    path = tmp_path / "adopted.json"
    path.write_text(json.dumps(tokens))
    page.goto(f"{base_url}/#/history")
    assert import_file(page, path) == "Imported: 1 new, 0 already here."
    page.wait_for_selector(f"tr[data-match='{old.id}']")
    page.goto(f"{base_url}/#/play/{old.id}")
    page.wait_for_selector(".hand .card")
    ctx.close()


# Each a tokens file entry with one field wrong; the first is issue 39's: a time no Date holds,
# which the page took and then failed on ("Invalid time value") at every drawing of History.
BAD_ENTRIES = [
    ("rooms", {"id": "ABCDEF", "token": "tok", "seat": 0, "since": 1e20}),
    ("rooms", {"id": "ABCDEF", "token": "tok", "seat": 0, "since": -5}),
    ("rooms", {"id": "ABCDEF", "token": "tok", "seat": 0, "since": "yesterday"}),
    ("rooms", {"id": "ABCDEF", "token": "tok", "seat": 7}),
    ("rooms", {"id": "ABCDEF", "token": "tok", "seat": 0, "left": "yes"}),
    ("rooms", {"id": "abcdef", "token": "tok", "seat": 0}),
    ("matches", {"id": "a-match", "token": "tok", "since": 1e300}),
    ("matches", {"id": "a-match", "token": "not a token"}),
    ("matches", {"id": "a-match", "token": None}),
    ("sheets", {"id": "a sheet", "token": "tok"}),
    ("sheets", {"id": "a-sheet", "token": "tok", "since": 8.64e15 + 1}),
]


def import_by_touch(page: Any, path: Path) -> str:
    """Import a file by a tap on *Import history*; what the page says then."""
    page.wait_for_selector(".move-message", state="attached")
    page.evaluate("document.querySelector('.move-message').textContent = ''")
    with page.expect_file_chooser() as chooser:
        page.get_by_role("button", name="Import history").tap()
    chooser.value.set_files(str(path))
    page.wait_for_function("() => document.querySelector('.move-message')?.textContent")
    return str(page.locator(".move-message").inner_text())


def test_an_import_with_one_bad_field_changes_nothing(
    browser: Any, base_url: str, tmp_path: Path
) -> None:
    ctx = context(browser, "390")
    page = ctx.new_page()
    page.goto(f"{base_url}/#/")
    match = new_match(page, base_url)
    before = history_rows(page, base_url)
    assert len(before) == 1, before
    refused = (
        "That file is not a history exported from this app: nothing was imported, nothing changed."
    )
    path = tmp_path / "bad.json"
    for key, entry in BAD_ENTRIES:
        path.write_text(json.dumps({"format": "callbreak-tokens", "version": 1, key: [entry]}))
        assert import_by_touch(page, path) == refused, entry
        assert held_count(page) == 1, entry
    # Drawn again from what is stored: the one match, nothing of the files.
    assert history_rows(page, base_url) == before
    assert page.locator(f"tr[data-match='{match}']").count() == 1
    ctx.close()


def test_a_bad_entry_kept_is_left_out_and_said_the_rest_drawn(
    browser: Any, base_url: str, tmp_path: Path
) -> None:
    """An entry this browser already keeps wrongly (an import from before its fields were all
    checked): History still draws, says one entry is left out, and keeps Export and Import;
    the export leaves the entry out, so that it imports elsewhere."""
    ctx = context(browser, "390")
    bad = json.dumps(json.dumps({"token": "tok", "seat": 0, "since": 1e20}))
    ctx.add_init_script(f"localStorage.setItem('callbreak:room:ABCDEF', {bad});")
    page = ctx.new_page()
    page.goto(f"{base_url}/#/")
    match = new_match(page, base_url)
    rows = history_rows(page, base_url)
    assert len(rows) == 1 and page.locator(f"tr[data-match='{match}']").count() == 1, rows
    assert text(page, ".skipped") == (
        "1 entry this browser keeps could not be read and is left out."
    )
    with page.expect_download() as download:
        page.get_by_role("button", name="Export history").tap()
    exported = tmp_path / "history.json"
    download.value.save_as(exported)
    tokens = json.loads(exported.read_text())
    assert tokens["rooms"] == [] and [entry["id"] for entry in tokens["matches"]] == [match]
    ctx.close()

    away = context(browser, "390")
    other = away.new_page()
    other.goto(f"{base_url}/#/history")
    assert import_by_touch(other, exported) == "Imported: 1 new, 0 already here."
    assert history_rows(other, base_url) == rows
    assert other.locator(".skipped").count() == 0
    away.close()
