"""The scoresheet API: a table playing with real cards enters calls and tricks, the app scores."""

from __future__ import annotations

import csv
import io
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from callbreak.web.app import create_app
from callbreak.web.client import http
from callbreak.web.model import hash_token, new_token
from callbreak.web.sheets import MAX_DEALS, Sheet
from callbreak.web.store import Store
from tests.helpers import callbreak_serve, redis_server

NAMES = ["Ann", "Bob", "Cy", "Dee"]
# Ordinary deals that every profile accepts (calls 2-8, tricks totalling 13), none of them
# ending an eight_wins match.
PLAIN = [
    ([3, 4, 2, 3], [5, 3, 2, 3]),
    ([2, 3, 4, 2], [2, 3, 5, 3]),
    ([4, 2, 2, 3], [4, 2, 4, 3]),
    ([3, 3, 3, 3], [3, 4, 3, 3]),
    ([2, 2, 2, 2], [4, 3, 3, 3]),
    ([5, 2, 2, 2], [5, 3, 2, 3]),
    ([2, 5, 2, 2], [2, 5, 3, 3]),
]


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    """The web app on a fresh database file."""
    with TestClient(create_app(tmp_path / "db.sqlite")) as client:
        yield client


TOKENS: dict[str, str] = {}
"""Each sheet's token, as the browser that made it keeps it."""


def new_sheet(client: TestClient, rules: str = "strict", names: list[str] = NAMES) -> str:
    """A new sheet's id (its token kept in TOKENS)."""
    response = client.post("/api/sheets", json={"names": names, "rules": rules})
    assert response.status_code == 201, response.text
    TOKENS[response.json()["id"]] = response.json()["token"]
    return str(response.json()["id"])


def auth(sheet: str) -> dict[str, str]:
    """The header that carries the sheet's token."""
    return {"Authorization": f"Bearer {TOKENS.get(sheet, 'none')}"}


def mine(client: TestClient, *sheets: str) -> list[dict[str, Any]]:
    """The list of the sheets named, each with its token."""
    body = {"sheets": [{"id": sheet, "token": TOKENS[sheet]} for sheet in sheets]}
    response = client.post("/api/sheets/mine", json=body)
    assert response.status_code == 200, response.text
    return list(response.json())


def stored(client: TestClient) -> int:
    """How many sheets the database holds."""
    with client.app.state.store.transaction() as db:  # type: ignore[attr-defined]
        return int(db.execute("SELECT COUNT(*) FROM sheets").fetchone()[0])


def put(client: TestClient, sheet: str, number: int, calls: list[Any], tricks: list[Any]) -> Any:
    """The response to entering (or correcting) deal ``number``."""
    return client.put(
        f"/api/sheets/{sheet}/deals/{number}",
        json={"calls": calls, "tricks": tricks},
        headers=auth(sheet),
    )


def enter(client: TestClient, sheet: str, deals: list[tuple[list[int], list[int]]]) -> Any:
    """Append deals that must be accepted; the sheet after the last."""
    view = None
    for calls, tricks in deals:
        number = len(client.get(f"/api/sheets/{sheet}", headers=auth(sheet)).json()["deals"]) + 1
        response = put(client, sheet, number, calls, tricks)
        assert response.status_code == 200, response.text
        view = response.json()
    return view


def get(client: TestClient, sheet: str) -> Any:
    """The sheet as the API shows it."""
    response = client.get(f"/api/sheets/{sheet}", headers=auth(sheet))
    assert response.status_code == 200, response.text
    return response.json()


def scores(view: Any) -> list[list[str]]:
    """Each deal's scores as text."""
    return [deal["scores"] for deal in view["deals"]]


# --- creating a sheet ----------------------------------------------------------------------------


def test_a_new_sheet_shows_the_players_rules_and_nothing_scored(client: TestClient) -> None:
    response = client.post(
        "/api/sheets", json={"names": [" Ann  Lee ", "Bob", "Cy", "Dee"], "rules": "bhoos"}
    )
    assert response.status_code == 201
    view = response.json()
    TOKENS[view["id"]] = view.pop("token")
    assert view["names"] == ["Ann Lee", "Bob", "Cy", "Dee"]
    assert view["rules"] == "bhoos"
    assert view["calls"] == [1, 8]
    assert view["deals_limit"] == 5
    assert "calls 1-8" in view["summary"]
    assert view["deals"] == []
    assert view["totals"] == ["0.0"] * 4
    assert view["places"] == [1, 1, 1, 1]
    assert (view["over"], view["next_deal"]) == (False, 1)
    assert get(client, view["id"]) == view


def test_rules_take_the_one_string_form(client: TestClient) -> None:
    sheet = new_sheet(client, "classic(deals=10, min_total_calls=10)")
    view = get(client, sheet)
    assert view["rules"] == "classic(min_total_calls=10, deals=10)"
    assert view["deals_limit"] == 10
    assert view["min_total_calls"] == 10


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"names": NAMES[:3], "rules": "strict"}, "Names must list the 4 players in play order"),
        ({"rules": "strict"}, "Names must list the 4 players in play order"),
        ({"names": ["Ann", "  ", "Cy", "Dee"]}, "Player 2's name is empty"),
        ({"names": ["Ann", "Bob", "x" * 25, "Dee"]}, "Player 3's name is over 24 characters"),
        ({"names": [7, "Bob", "Cy", "Dee"]}, "Player 1's name must be text"),
        ({"names": ["Ann", "Bob", "ann", "Dee"]}, "Two players are called ann: each name must"),
        ({"names": NAMES, "rules": "snap"}, "Bad rules: unknown profile 'snap': profiles are"),
        ({"names": NAMES, "rules": "classic("}, "Bad rules: cannot read the rules 'classic('"),
        ({"names": NAMES, "rules": "classic(deals=0)"}, "Bad rules: deals must be 1-1000"),
        ({"names": NAMES, "rules": "classic(trumps=4)"}, "Bad rules: unknown rules option"),
        ({"names": NAMES, "rules": 5}, "Rules must be text"),
        (["Ann", "Bob", "Cy", "Dee"], "the body must be a JSON object"),
    ],
)
def test_an_impossible_sheet_is_refused_and_nothing_stored(
    client: TestClient, body: Any, message: str
) -> None:
    response = client.post("/api/sheets", json=body)
    assert response.status_code == 400
    assert response.json()["error"].startswith(message)
    assert stored(client) == 0


def test_a_body_that_is_not_json_or_too_big_is_refused(client: TestClient) -> None:
    json_type = {"content-type": "application/json"}
    response = client.post("/api/sheets", content=b"{names:", headers=json_type)
    assert (response.status_code, response.json()["error"]) == (400, "the body is not JSON")
    response = client.post("/api/sheets", content=b"{}", headers={"content-type": "text/plain"})
    assert response.status_code == 400 and "Content-Type" in response.json()["error"]
    huge = json.dumps({"names": ["x" * 70_000, "b", "c", "d"]})
    response = client.post("/api/sheets", content=huge)
    assert response.status_code == 413
    assert "over 64000 bytes" in response.json()["error"]
    assert stored(client) == 0


# --- scoring -------------------------------------------------------------------------------------


def test_the_scoring_example_of_the_rules(client: TestClient) -> None:
    sheet = new_sheet(client)
    view = enter(client, sheet, [([3, 4, 2, 3], [5, 3, 2, 3])])
    assert scores(view) == [["3.2", "-4.0", "2.0", "3.0"]]
    assert view["deals"][0]["made"] == [True, False, True, True]
    assert view["totals"] == ["3.2", "-4.0", "2.0", "3.0"]
    assert view["places"] == [1, 4, 3, 2]


def test_overtricks_and_failed_calls_score_exactly(client: TestClient) -> None:
    sheet = new_sheet(client, "classic")
    view = enter(client, sheet, [([3, 3, 5, 2], [3, 5, 4, 1]), ([1, 2, 3, 4], [13, 0, 0, 0])])
    # 3/3 → 3.0, 3/5 → 3.2, 5/4 → −5.0, 2/1 → −2.0; 1/13 → 2.2, 2/0 → −2.0.
    assert scores(view) == [["3.0", "3.2", "-5.0", "-2.0"], ["2.2", "-2.0", "-3.0", "-4.0"]]
    assert view["totals"] == ["5.2", "1.2", "-8.0", "-6.0"]


def test_tenths_add_up_exactly(client: TestClient) -> None:
    sheet = new_sheet(client, "classic(deals=10)")
    view = enter(client, sheet, [([1, 1, 1, 1], [4, 3, 3, 3])] * 10)
    # 10 deals of 0.1 steps: floats would drift (0.1 * 3 != 0.3); integer tenths do not.
    assert view["totals"] == ["13.0", "12.0", "12.0", "12.0"]


def test_pagat_scores_the_call_or_one_more_and_13_for_a_call_of_8_or_more(
    client: TestClient,
) -> None:
    sheet = new_sheet(client, "pagat")
    view = enter(
        client,
        sheet,
        [
            ([4, 4, 4, 4], [4, 5, 3, 1]),
            ([4, 2, 2, 2], [6, 2, 2, 3]),
            ([9, 2, 2, 2], [9, 2, 2, 0]),
            ([9, 2, 2, 2], [10, 3, 0, 0]),
            ([9, 2, 2, 2], [11, 2, 0, 0]),
        ],
    )
    assert scores(view) == [
        ["4.0", "4.0", "-4.0", "-4.0"],  # call 4: 4 or 5 make it, 3 fails, and so does 1
        ["-4.0", "2.0", "2.0", "2.0"],  # 6 on a call of 4 is one too many; 3 on 2 is fine
        ["13.0", "2.0", "2.0", "-2.0"],  # a made call of 9 scores 13
        ["13.0", "2.0", "-2.0", "-2.0"],  # 10 tricks still make 9
        ["-9.0", "2.0", "-2.0", "-2.0"],  # 11 tricks break it
    ]
    assert view["totals"] == ["17.0", "12.0", "-4.0", "-8.0"]


def test_pagat_is_open_ended(client: TestClient) -> None:
    sheet = new_sheet(client, "pagat")
    view = enter(client, sheet, PLAIN)
    assert view["deals_limit"] is None
    assert len(view["deals"]) == 7
    assert (view["over"], view["over_reason"], view["next_deal"]) == (False, None, 8)
    # Places are the standings so far, since the table may stop after any deal.
    assert view["totals"] == ["11.0", "13.0", "13.0", "17.0"]
    assert view["places"] == [4, 2, 2, 1]
    assert "open-ended" in view["summary"]


def test_equal_totals_share_a_place(client: TestClient) -> None:
    sheet = new_sheet(client)
    view = enter(client, sheet, [([4, 3, 3, 2], [5, 3, 3, 2])])
    assert view["totals"] == ["4.1", "3.0", "3.0", "2.0"]
    assert view["places"] == [1, 2, 2, 4]
    view = enter(client, sheet, [([2, 3, 3, 3], [3, 4, 3, 3])])
    assert view["totals"] == ["6.2", "6.1", "6.0", "5.0"]
    view = enter(client, sheet, [([2, 2, 2, 2], [2, 3, 4, 4])])
    assert view["totals"] == ["8.2", "8.2", "8.2", "7.2"]
    assert view["places"] == [1, 1, 1, 4]


# --- impossible entries --------------------------------------------------------------------------

BAD_DEALS = [
    (
        "strict",
        [1, 4, 2, 3],
        [5, 3, 2, 3],
        "Ann's call of 1 is out of range: calls are 2-13 under strict",
    ),
    (
        "strict",
        [3, 14, 2, 3],
        [5, 3, 2, 3],
        "Bob's call of 14 is out of range: calls are 2-13 under strict",
    ),
    (
        "classic",
        [3, 4, 0, 3],
        [5, 3, 2, 3],
        "Cy's call of 0 is out of range: calls are 1-13 under classic",
    ),
    (
        "bhoos",
        [3, 4, 2, 9],
        [5, 3, 2, 3],
        "Dee's call of 9 is out of range: calls are 1-8 under bhoos",
    ),
    (
        "pagat",
        [1, 4, 2, 3],
        [5, 3, 2, 3],
        "Ann's call of 1 is out of range: calls are 2-13 under pagat",
    ),
    ("strict", [None, 4, 2, 3], [5, 3, 2, 3], "Ann's call is missing"),
    ("strict", [3, 2.5, 2, 3], [5, 3, 2, 3], "Bob's call must be a whole number, not 2.5"),
    ("strict", [3, 4, "2", 3], [5, 3, 2, 3], 'Cy\'s call must be a whole number, not "2"'),
    ("strict", [3, 4, 2, True], [5, 3, 2, 3], "Dee's call must be a whole number, not true"),
    ("strict", [3, 4, 2, 3], [5, 3, 2, None], "Dee's tricks are missing"),
    (
        "strict",
        [3, 4, 2, 3],
        [14, 0, 0, 0],
        "Ann's tricks must be a whole number from 0 to 13, not 14",
    ),
    (
        "strict",
        [3, 4, 2, 3],
        [5, -1, 6, 3],
        "Bob's tricks must be a whole number from 0 to 13, not -1",
    ),
    (
        "strict",
        [3, 4, 2, 3],
        [5, 3, 1.5, 3.5],
        "Cy's tricks must be a whole number from 0 to 13, not 1.5",
    ),
    (
        "strict",
        [3, 4, 2, 3],
        [5, 3, 2, 2],
        "The tricks total 12, but every deal has exactly 13 tricks",
    ),
    (
        "strict",
        [3, 4, 2, 3],
        [5, 3, 3, 3],
        "The tricks total 14, but every deal has exactly 13 tricks",
    ),
    ("strict", [3, 4, 2], [5, 3, 2, 3], "Calls must list 4 numbers, one per player in play order"),
    ("strict", [3, 4, 2, 3], "5,3,2,3", "Tricks must list 4 numbers, one per player in play order"),
    (
        "classic(min_total_calls=10)",
        [2, 2, 2, 2],
        [4, 3, 3, 3],
        "The calls total 8, under the 10 these rules require: that deal is thrown in and dealt "
        "again by the same dealer, so it is not scored; enter the calls and tricks of the new "
        "deal",
    ),
]


@pytest.mark.parametrize(("rules", "calls", "tricks", "message"), BAD_DEALS)
def test_each_impossible_deal_gets_its_message_and_changes_nothing(
    client: TestClient, rules: str, calls: list[Any], tricks: Any, message: str
) -> None:
    sheet = new_sheet(client, rules)
    enter(client, sheet, [([3, 3, 3, 4], [3, 3, 3, 4])])
    before = get(client, sheet)
    for number in (2, 1):  # appending a deal, and correcting one
        # The page asks first (the server's check, nothing stored), then sends it.
        body = {"calls": calls, "tricks": tricks}
        url = f"/api/sheets/{sheet}/deals/{number}/check"
        checked = client.post(url, json=body, headers=auth(sheet))
        assert (checked.status_code, checked.json()["error"]) == (400, message)
        response = put(client, sheet, number, calls, tricks)
        assert (response.status_code, response.json()["error"]) == (400, message)
        assert get(client, sheet) == before


def test_checking_a_deal_shows_the_sheet_it_would_make_and_stores_nothing(
    client: TestClient,
) -> None:
    sheet = new_sheet(client)
    before = enter(client, sheet, [([3, 3, 3, 4], [3, 3, 3, 4])])
    good = {"calls": [2, 3, 3, 4], "tricks": [2, 3, 4, 4]}
    response = client.post(f"/api/sheets/{sheet}/deals/2/check", json=good, headers=auth(sheet))
    assert response.status_code == 200, response.text
    assert response.json()["valid"] is True
    assert scores(response.json()["sheet"])[1] == ["2.0", "3.0", "3.1", "4.0"]
    assert get(client, sheet) == before


def test_checking_new_names_is_the_servers_check(client: TestClient) -> None:
    # Case-blind and at most 24 characters, as the sheet keeps them, and nothing stored.
    count = stored(client)
    twice = client.post("/api/sheets/check", json={"names": ["Ann", "ann", "Cy", "Dee"]})
    assert (twice.status_code, twice.json()["error"]) == (
        400,
        "Two players are called ann: each name must differ",
    )
    long = client.post("/api/sheets/check", json={"names": ["A" * 25, "Bob", "Cy", "Dee"]})
    assert long.json()["error"] == "Player 1's name is over 24 characters"
    fine = client.post("/api/sheets/check", json={"names": [" Ann  Lee ", "Bob", "Cy", "Dee"]})
    assert fine.json() == {
        "valid": True,
        "names": ["Ann Lee", "Bob", "Cy", "Dee"],
        "rules": "strict",
    }
    assert stored(client) == count


def test_a_deal_can_total_enough_calls_to_be_played(client: TestClient) -> None:
    sheet = new_sheet(client, "classic(min_total_calls=10)")
    view = enter(client, sheet, [([2, 3, 3, 2], [2, 3, 4, 4])])
    assert scores(view) == [["2.0", "3.0", "3.1", "2.2"]]


def test_whole_numbers_written_as_decimals_are_accepted(client: TestClient) -> None:
    sheet = new_sheet(client)
    view = enter(client, sheet, [([3.0, 4, 2, 3], [5, 3.0, 2, 3])])  # type: ignore[list-item]
    assert view["deals"][0]["calls"] == [3, 4, 2, 3]
    assert view["deals"][0]["tricks"] == [5, 3, 2, 3]


def test_deal_numbers_must_follow_on(client: TestClient) -> None:
    sheet = new_sheet(client)
    enter(client, sheet, PLAIN[:1])
    before = get(client, sheet)
    for number, message in [
        (3, "There is no deal 3: the next deal is deal 2"),
        (0, "There is no deal 0: the next deal is deal 2"),
    ]:
        response = put(client, sheet, number, *PLAIN[1])
        assert (response.status_code, response.json()["error"]) == (400, message)
    response = client.put(
        f"/api/sheets/{sheet}/deals/two", json={"calls": [], "tricks": []}, headers=auth(sheet)
    )
    assert response.json()["error"] == "Deal numbers are whole numbers from 1, not 'two'"
    response = client.put(
        f"/api/sheets/{sheet}/deals/2",
        content=b"[1, 2",
        headers={"content-type": "application/json"} | auth(sheet),
    )
    assert response.json()["error"] == "the body is not JSON"
    response = client.put(
        f"/api/sheets/{sheet}/deals/2", json=[[3, 3, 3, 4], [3, 3, 3, 4]], headers=auth(sheet)
    )
    assert response.json()["error"] == "the body must be a JSON object"
    assert get(client, sheet) == before


def test_no_deal_after_the_last_one(client: TestClient) -> None:
    sheet = new_sheet(client)
    view = enter(client, sheet, PLAIN[:5])
    assert view["over"] is True
    assert view["over_reason"] == "The match is over: all 5 deals are played"
    assert view["next_deal"] is None
    response = put(client, sheet, 6, *PLAIN[5])
    assert response.status_code == 400
    assert response.json()["error"] == (
        "The match is over: all 5 deals are played; no more deals can be entered"
    )
    assert get(client, sheet) == view


def test_an_unknown_sheet_is_404(client: TestClient) -> None:
    missing = {"error": "There is no such scoresheet", "code": "no_such_sheet", "args": {}}
    key = auth(new_sheet(client))
    for response in [
        client.get("/api/sheets/nope", headers=key),
        client.put(
            "/api/sheets/nope/deals/1",
            json={"calls": [3] * 4, "tricks": [3, 3, 3, 4]},
            headers=key,
        ),
        client.delete("/api/sheets/nope/deals/1", headers=key),
        client.get("/api/sheets/nope/export.csv", headers=key),
        client.get("/api/sheets/nope/export.json", headers=key),
    ]:
        assert (response.status_code, response.json()) == (404, missing)


def test_a_stranger_can_neither_read_nor_change_another_clients_sheet(client: TestClient) -> None:
    """Without the sheet's token (none, another sheet's, a made-up one) every request for it is
    refused as for a sheet that does not exist, and the sheet is unchanged."""
    sheet = new_sheet(client)
    enter(client, sheet, PLAIN[:2])
    before = get(client, sheet)
    stranger = {"Authorization": f"Bearer {TOKENS[new_sheet(client)]}"}
    body = {"calls": [3] * 4, "tricks": [3, 3, 3, 4]}
    for headers in ({}, stranger, {"Authorization": "Bearer " + "x" * 43}):
        for response in [
            client.get(f"/api/sheets/{sheet}", headers=headers),
            client.put(f"/api/sheets/{sheet}/deals/3", json=body, headers=headers),
            client.put(f"/api/sheets/{sheet}/deals/1", json=body, headers=headers),
            client.delete(f"/api/sheets/{sheet}/deals/2", headers=headers),
            client.get(f"/api/sheets/{sheet}/export.csv", headers=headers),
            client.get(f"/api/sheets/{sheet}/export.json", headers=headers),
        ]:
            if headers:
                assert (response.status_code, response.json()["code"]) == (404, "no_such_sheet")
            else:
                assert response.status_code == 401
                assert "needs the scoresheet's token" in response.json()["error"]
            assert "Ann" not in response.text
    assert get(client, sheet) == before
    # The list names only what the tokens hold.
    listing = client.post("/api/sheets/mine", json={"sheets": [{"id": sheet, "token": "x"}]})
    assert listing.json() == []
    wrong = [{"id": sheet, "token": stranger["Authorization"][7:]}]
    assert client.post("/api/sheets/mine", json={"sheets": wrong}).json() == []
    assert client.get("/api/sheets").status_code == 405  # nothing lists every sheet


# --- eight_wins ----------------------------------------------------------------------------------


def test_a_made_call_of_eight_ends_the_match_and_wins_it(client: TestClient) -> None:
    sheet = new_sheet(client, "strict(eight_wins=true)")
    view = enter(client, sheet, [([6, 5, 2, 2], [0, 7, 3, 3])])
    assert view["over"] is False
    # A failed call of 8 does not end anything.
    view = enter(client, sheet, [([8, 2, 2, 2], [7, 2, 2, 2])])
    assert (view["over"], view["winners"]) == (False, [])
    response = client.delete(f"/api/sheets/{sheet}/deals/2", headers=auth(sheet))
    assert response.status_code == 200
    view = enter(client, sheet, [([8, 2, 2, 2], [8, 2, 2, 1])])
    assert view["totals"] == ["2.0", "7.2", "4.1", "0.1"]
    assert view["winners"] == [0]
    # Ann wins outright though Bob's total is higher.
    assert view["places"] == [1, 2, 3, 4]
    assert view["over"] is True
    assert view["over_reason"] == "The match is over: Ann made a call of 8, which wins at once"
    response = put(client, sheet, 3, *PLAIN[0])
    assert response.json()["error"] == (
        "The match is over: Ann made a call of 8, which wins at once; no more deals can be entered"
    )
    assert get(client, sheet) == view


def test_a_correction_may_not_end_the_match_before_later_deals(client: TestClient) -> None:
    sheet = new_sheet(client, "pagat(eight_wins=true)")
    view = enter(client, sheet, PLAIN[:3])
    response = put(client, sheet, 2, [2, 8, 2, 2], [2, 9, 1, 1])  # 9 on 8 makes it under pagat
    assert response.status_code == 400
    assert response.json()["error"] == (
        "With this correction the match ends at deal 2 (Bob made a call of 8, which wins at "
        "once), but later deals are entered: delete them first"
    )
    assert get(client, sheet) == view
    # Correcting the last deal that way is fine: the match ends there.
    view = put(client, sheet, 3, [2, 8, 2, 2], [2, 9, 1, 1]).json()
    assert (view["over"], view["winners"], view["places"][1]) == (True, [1], 1)


# --- corrections and deletions -------------------------------------------------------------------


def test_a_past_deal_can_be_corrected(client: TestClient) -> None:
    sheet = new_sheet(client)
    enter(client, sheet, PLAIN[:3])
    before = get(client, sheet)
    response = put(client, sheet, 2, [3, 4, 2, 3], [5, 3, 2, 3])
    assert response.status_code == 200
    view = response.json()
    assert view["deals"][0] == before["deals"][0]
    assert view["deals"][2] == before["deals"][2]
    assert view["deals"][1]["calls"] == [3, 4, 2, 3]
    assert view["deals"][1]["scores"] == ["3.2", "-4.0", "2.0", "3.0"]
    # Totals follow the correction: deal 1 and 3 are unchanged, deal 2 is the example.
    assert view["totals"] == ["10.4", "-6.0", "6.2", "9.0"]
    assert get(client, sheet) == view


def test_a_finished_match_can_still_be_corrected(client: TestClient) -> None:
    sheet = new_sheet(client)
    enter(client, sheet, PLAIN[:5])
    view = put(client, sheet, 5, [3, 4, 2, 3], [5, 3, 2, 3]).json()
    assert view["over"] is True
    assert view["deals"][4]["scores"] == ["3.2", "-4.0", "2.0", "3.0"]


def test_only_the_last_deal_can_be_deleted(client: TestClient) -> None:
    sheet = new_sheet(client)
    response = client.delete(f"/api/sheets/{sheet}/deals/1", headers=auth(sheet))
    assert (response.status_code, response.json()["error"]) == (400, "There is no deal to delete")
    enter(client, sheet, PLAIN[:5])
    before = get(client, sheet)
    response = client.delete(f"/api/sheets/{sheet}/deals/2", headers=auth(sheet))
    assert response.status_code == 400
    assert response.json()["error"] == "Only the last deal (deal 5) can be deleted, not deal 2"
    assert get(client, sheet) == before
    response = client.delete(f"/api/sheets/{sheet}/deals/5", headers=auth(sheet))
    assert response.status_code == 200
    view = response.json()
    assert len(view["deals"]) == 4
    assert (view["over"], view["next_deal"]) == (False, 5)
    assert view["deals"] == before["deals"][:4]
    assert get(client, sheet) == view
    # The match is open again, so a deal 5 can go in.
    assert put(client, sheet, 5, *PLAIN[6]).status_code == 200


# --- storage -------------------------------------------------------------------------------------


def test_a_sheet_survives_a_restart_on_the_same_database(tmp_path: Path) -> None:
    database = tmp_path / "db.sqlite"
    with TestClient(create_app(database)) as first:
        sheet = new_sheet(first, "classic(deals=10)")
        enter(first, sheet, PLAIN[:4])
        put(first, sheet, 2, [3, 4, 2, 3], [5, 3, 2, 3])
        first.delete(f"/api/sheets/{sheet}/deals/4", headers=auth(sheet))
        before = get(first, sheet)
        listed = mine(first, sheet)
    with TestClient(create_app(database)) as second:
        assert get(second, sheet) == before
        assert mine(second, sheet) == listed
        assert len(before["deals"]) == 3
        assert before["deals"][1]["scores"] == ["3.2", "-4.0", "2.0", "3.0"]


def test_the_list_shows_each_sheet_most_recent_first(client: TestClient) -> None:
    first = new_sheet(client)
    second = new_sheet(client, "pagat", ["W", "X", "Y", "Z"])
    enter(client, first, PLAIN[:5])
    listed = mine(client, second, first)
    assert [row["id"] for row in listed] == [first, second]
    assert listed[0]["names"] == NAMES
    assert (listed[0]["deals_played"], listed[0]["over"]) == (5, True)
    assert listed[0]["totals"] == get(client, first)["totals"]
    assert listed[0]["places"] == get(client, first)["places"]
    assert (listed[1]["rules"], listed[1]["deals_played"], listed[1]["over"]) == ("pagat", 0, False)


# --- exports -------------------------------------------------------------------------------------


def test_the_json_export(client: TestClient) -> None:
    sheet = new_sheet(client, "classic(deals=10)", ["Ann", "Bob", "Cy", "राम"])
    enter(client, sheet, [([3, 4, 2, 3], [5, 3, 2, 3]), ([4, 3, 3, 2], [5, 3, 3, 2])])
    response = client.get(f"/api/sheets/{sheet}/export.json", headers=auth(sheet))
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert response.headers["content-disposition"] == (
        f'attachment; filename="callbreak-sheet-{sheet}.json"'
    )
    assert response.json() == {
        "format": "callbreak-scoresheet",
        "version": 1,
        "rules": "classic(deals=10)",
        "players": ["Ann", "Bob", "Cy", "राम"],
        "deals": [
            {
                "calls": [3, 4, 2, 3],
                "tricks": [5, 3, 2, 3],
                "scores": ["3.2", "-4.0", "2.0", "3.0"],
            },
            {"calls": [4, 3, 3, 2], "tricks": [5, 3, 3, 2], "scores": ["4.1", "3.0", "3.0", "2.0"]},
        ],
        "totals": ["7.3", "-1.0", "5.0", "5.0"],
        "places": [1, 4, 2, 2],
    }


def test_the_csv_export(client: TestClient) -> None:
    sheet = new_sheet(client, "strict", ["Ann", "=Bob", "Cy", "राम"])
    enter(client, sheet, [([3, 4, 2, 3], [5, 3, 2, 3]), ([4, 3, 3, 2], [5, 3, 3, 2])])
    response = client.get(f"/api/sheets/{sheet}/export.csv", headers=auth(sheet))
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv")
    assert response.headers["content-disposition"] == (
        f'attachment; filename="callbreak-sheet-{sheet}.csv"'
    )
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows == [
        ["Deal",
         "Ann call", "Ann tricks", "Ann score",
         # A leading '=' would make a spreadsheet run the name as a formula.
         "'=Bob call", "'=Bob tricks", "'=Bob score",
         "Cy call", "Cy tricks", "Cy score",
         "राम call", "राम tricks", "राम score"],
        ["1", "3", "5", "3.2", "4", "3", "-4.0", "2", "2", "2.0", "3", "3", "3.0"],
        ["2", "4", "5", "4.1", "3", "3", "3.0", "3", "3", "3.0", "2", "2", "2.0"],
        ["Total", "", "", "7.3", "", "", "-1.0", "", "", "5.0", "", "", "5.0"],
        ["Place", "", "", "1", "", "", "4", "", "", "2", "", "", "2"],
    ]  # fmt: skip
    # The JSON keeps the name as entered.
    assert (
        client.get(f"/api/sheets/{sheet}/export.json", headers=auth(sheet)).json()["players"][1]
        == "=Bob"
    )


def test_an_empty_sheet_exports_its_header_totals_and_places(client: TestClient) -> None:
    sheet = new_sheet(client)
    text = client.get(f"/api/sheets/{sheet}/export.csv", headers=auth(sheet)).content.decode(
        "utf-8-sig"
    )
    rows = list(csv.reader(io.StringIO(text)))
    assert [row[0] for row in rows] == ["Deal", "Total", "Place"]
    data = client.get(f"/api/sheets/{sheet}/export.json", headers=auth(sheet)).json()
    assert (data["deals"], data["totals"], data["places"]) == ([], ["0.0"] * 4, [1] * 4)


def test_a_sheet_is_changed_only_on_the_revision_it_was_read_at(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite")
    store.create_sheet("s", {"deals": []}, "hash")
    read = store.sheet("s")
    assert read is not None and read["rev"] == 0
    assert store.update_sheet("s", {"deals": [1]}, read["rev"])
    # A second change made on the same read (another request, another process) is refused.
    assert not store.update_sheet("s", {"deals": [2]}, read["rev"])
    again = store.sheet("s")
    assert again is not None and again["data"] == {"deals": [1]} and again["rev"] == 1
    assert not store.update_sheet("gone", {"deals": []}, 0)
    store.close()


def test_every_process_on_one_redis_serves_every_scoresheet(tmp_path: Path) -> None:
    """Two `callbreak serve` processes on one real Redis: a sheet made through one is read,
    changed, listed and exported through the other; a sheet one process kept in its own SQLite
    file before sheets moved to Redis is served by both once it was read there."""
    before = Store(tmp_path / "a" / "serve.db")
    kept = new_token()
    before.create_sheet("kept-before", {"version": 1, "names": NAMES, "rules": "strict",
                                        "created": 1.0, "deals": []}, hash_token(kept))  # fmt: skip
    before.close()
    with (
        redis_server() as url,
        callbreak_serve(tmp_path / "a", "--redis", url) as (_, a),
        callbreak_serve(tmp_path / "b", "--redis", url) as (_, b),
    ):
        status, made = http("POST", f"{a}/api/sheets", {"names": NAMES, "rules": "strict"})
        assert status == 201
        sheet, token = made["id"], made["token"]
        calls, tricks = PLAIN[0]
        status, shown = http(
            "PUT", f"{b}/api/sheets/{sheet}/deals/1", {"calls": calls, "tricks": tricks}, token
        )
        assert status == 200 and len(shown["deals"]) == 1
        calls, tricks = PLAIN[1]
        status, shown = http(
            "PUT", f"{a}/api/sheets/{sheet}/deals/2", {"calls": calls, "tricks": tricks}, token
        )
        assert status == 200 and [d["calls"] for d in shown["deals"]] == [PLAIN[0][0], calls]
        for base in (a, b):
            status, seen = http("GET", f"{base}/api/sheets/{sheet}", token=token)
            assert status == 200 and seen == shown
            status, listed = http(
                "POST", f"{base}/api/sheets/mine", {"sheets": [{"id": sheet, "token": token}]}
            )
            assert status == 200 and [s["id"] for s in listed] == [sheet]
            assert listed[0]["deals_played"] == 2
            status, exported = http("GET", f"{base}/api/sheets/{sheet}/export.json", token=token)
            assert status == 200 and len(exported["deals"]) == 2
            assert http("GET", f"{base}/api/sheets/{sheet}", token="wrong")[0] == 404
        status, shown = http("DELETE", f"{b}/api/sheets/{sheet}/deals/2", token=token)
        assert status == 200 and len(shown["deals"]) == 1
        assert http("GET", f"{a}/api/sheets/{sheet}", token=token)[1] == shown

        # The sheet kept before: only its own process has it until it was read there once.
        assert http("GET", f"{b}/api/sheets/kept-before", token=kept)[0] == 404
        status, old = http("GET", f"{a}/api/sheets/kept-before", token=kept)
        assert status == 200 and old["names"] == NAMES
        assert http("GET", f"{b}/api/sheets/kept-before", token=kept) == (200, old)


# --- the cap, and the work off the loop (issue 39, defect 5) -------------------------------------


def test_a_sheet_past_its_cap_is_refused_by_code(client: TestClient) -> None:
    """An open-ended sheet holds at most MAX_DEALS deals: the next is refused with the cap, and
    nothing is stored; a correction and a deletion still work."""
    sheet = new_sheet(client, "pagat")
    store = client.app.state.store  # type: ignore[attr-defined]
    row = store.sheet(sheet)
    deals = [{"calls": list(c), "tricks": list(t)} for c, t in PLAIN]
    full = [deals[n % len(deals)] for n in range(MAX_DEALS)]
    assert store.update_sheet(sheet, row["data"] | {"deals": full}, row["rev"])
    calls, tricks = PLAIN[0]
    for answer in (
        put(client, sheet, MAX_DEALS + 1, calls, tricks),
        client.post(
            f"/api/sheets/{sheet}/deals/{MAX_DEALS + 1}/check",
            json={"calls": calls, "tricks": tricks},
            headers=auth(sheet),
        ),
    ):
        assert answer.status_code == 400, answer.text
        assert answer.json()["code"] == "sheet_full" and answer.json()["args"] == {"max": 1000}
    shown = client.get(f"/api/sheets/{sheet}", headers=auth(sheet)).json()
    assert len(shown["deals"]) == MAX_DEALS and shown["next_deal"] == MAX_DEALS + 1
    corrected = put(client, sheet, MAX_DEALS, *PLAIN[1])
    assert corrected.status_code == 200 and corrected.json()["deals"][-1]["calls"] == PLAIN[1][0]
    gone = client.delete(f"/api/sheets/{sheet}/deals/{MAX_DEALS}", headers=auth(sheet))
    assert gone.status_code == 200 and len(gone.json()["deals"]) == MAX_DEALS - 1
    assert put(client, sheet, MAX_DEALS, calls, tricks).status_code == 200
    assert put(client, sheet, MAX_DEALS + 1, calls, tricks).json()["code"] == "sheet_full"


def test_a_sheets_work_is_done_off_the_event_loop(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading, scoring, changing and writing out a sheet runs on the shared pool (web.work),
    not on the loop that serves every table."""
    sheet = new_sheet(client)
    where: list[str] = []
    loaded = Sheet.load.__func__  # type: ignore[attr-defined]

    def load(cls: type[Sheet], sheet_id: str, data: dict[str, Any]) -> Sheet:
        where.append(threading.current_thread().name)
        return loaded(cls, sheet_id, data)  # type: ignore[no-any-return]

    monkeypatch.setattr(Sheet, "load", classmethod(load))
    viewed = Sheet.view

    def view(sheet: Sheet) -> dict[str, Any]:
        where.append(threading.current_thread().name)
        return viewed(sheet)

    monkeypatch.setattr(Sheet, "view", view)
    calls, tricks = PLAIN[0]
    assert put(client, sheet, 1, calls, tricks).status_code == 200
    for path in ("", "/export.json", "/export.csv"):
        assert client.get(f"/api/sheets/{sheet}{path}", headers=auth(sheet)).status_code == 200
    assert mine(client, sheet)[0]["deals_played"] == 1
    check = client.post(
        f"/api/sheets/{sheet}/deals/2/check",
        json={"calls": calls, "tricks": tricks},
        headers=auth(sheet),
    )
    assert check.status_code == 200
    assert client.delete(f"/api/sheets/{sheet}/deals/1", headers=auth(sheet)).status_code == 200
    # Each loaded once, and viewed for a change, a look and a check.
    assert len(where) == 7 + 4 and all(name.startswith("search") for name in where), where
