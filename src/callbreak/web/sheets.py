"""Scoresheets for games played with real cards: the table enters calls and tricks, we score.

A sheet is stored as what the table entered (names, rules, and per deal the four calls and
tricks); scores, totals, places and whether the match is over are always computed from that,
so a correction anywhere can never leave a stale total behind. Scores stay integer tenths
until they are written out as text.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import secrets
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from callbreak.errors import InvalidNameError, InvalidRulesError
from callbreak.names import check_name
from callbreak.refusals import Refusal, read_json, winners_text
from callbreak.rules import (
    Rules,
    calls_thrown_in,
    format_tenths,
    made,
    match_over,
    outright_winners,
    places,
    score_deal,
)
from callbreak.web.backend import Backend
from callbreak.web.http import bearer
from callbreak.web.model import hash_token, holds, new_token
from callbreak.web.owners import read_held
from callbreak.web.work import Work

__all__ = ["EXPORT_FORMAT", "EXPORT_VERSION", "MAX_DEALS", "Sheet", "routes"]

SHEET_NAME_CODES = {
    "not_text": "sheet_name_text",
    "empty": "sheet_name_empty",
    "long": "sheet_name_long",
    "control": "sheet_name_control",
}
"""A name's problem (``names.check_name``) as a sheet's code, which says whose name it is."""
EXPORT_FORMAT = "callbreak-scoresheet"
EXPORT_VERSION = 1
MAX_DEALS = 1000
"""The most deals a sheet holds, open-ended or not: as many as the longest match the rules
allow (``deals`` 1-1000). Without it an open-ended sheet grows without end, and with it every
read, change and export of it (docs/web.md, *Scoresheet*)."""
T = TypeVar("T")
# The layout of a sheet in the database, so that a later layout can still read this one.
STORED_VERSION = 1
TRICKS_PER_DEAL = 13


class Sheet:
    """One scoresheet: four players in play order, the rules, and the deals entered so far."""

    def __init__(
        self,
        sheet_id: str,
        names: list[str],
        rules: Rules,
        deals: list[dict[str, list[int]]] | None = None,
        created: float | None = None,
    ) -> None:
        self.id = sheet_id
        self.names = names
        self.rules = rules
        self.deals = deals if deals is not None else []
        self.created = time.time() if created is None else created

    @classmethod
    def create(cls, body: object) -> Sheet:
        """A new empty sheet from a request body ``{names, rules}``; Refusal when invalid."""
        body = _object(body)
        names = check_names(body.get("names"))
        text = body.get("rules", "strict")
        if not isinstance(text, str):
            raise Refusal("sheet_rules_text")
        try:
            rules = Rules.parse(text)
        except InvalidRulesError as problem:
            raise Refusal("sheet_rules", detail=str(problem)) from None
        return cls(secrets.token_urlsafe(9), names, rules)

    @classmethod
    def load(cls, sheet_id: str, data: dict[str, Any]) -> Sheet:
        """A sheet as the store keeps it."""
        deals = [{"calls": list(d["calls"]), "tricks": list(d["tricks"])} for d in data["deals"]]
        rules = Rules.parse(data["rules"])
        return cls(sheet_id, list(data["names"]), rules, deals, float(data["created"]))

    def data(self) -> dict[str, Any]:
        """What the store keeps: only what the table entered; everything else is computed."""
        return {
            "version": STORED_VERSION,
            "names": self.names,
            "rules": str(self.rules),
            "created": self.created,
            "deals": self.deals,
        }

    # --- changes -------------------------------------------------------------------------------

    def put_deal(self, number: int, body: object) -> None:
        """Append deal ``number`` (count + 1) or correct an earlier one; Refusal if wrong."""
        count = len(self.deals)
        if not 1 <= number <= count + 1:
            raise Refusal("no_deal", deal=number, next=count + 1)
        # Checked before the entries: when the match is over, no entry could be right.
        if number == count + 1 and match_end(self.rules, self.deals) is not None:
            if self.winners():
                winners = _winners(self.rules, self.names, self.deals[-1])
                raise Refusal("sheet_won", winners=winners)
            raise Refusal("sheet_over", deals=self.rules.deals)
        if number == count + 1 and count >= MAX_DEALS:
            raise Refusal("sheet_full", max=MAX_DEALS)
        deal = check_deal(self.rules, self.names, body)
        deals = [*self.deals[: number - 1], deal, *self.deals[number:]]
        end = match_end(self.rules, deals)
        if end is not None and end < len(deals):
            # Only a correction can get here: an earlier deal now ends the match.
            winners = _winners(self.rules, self.names, deals[end - 1])
            raise Refusal("sheet_correction", deal=end, winners=winners)
        self.deals = deals

    def delete_deal(self, number: int) -> None:
        """Delete deal ``number``, which must be the last one."""
        count = len(self.deals)
        if not count:
            raise Refusal("no_deal_to_delete")
        if number != count:
            raise Refusal("delete_last", last=count, deal=number)
        self.deals.pop()

    # --- results -------------------------------------------------------------------------------

    def scores(self) -> list[list[int]]:
        """Each deal's scores in tenths, by seat."""
        return [
            [score_deal(self.rules, c, t) for c, t in zip(d["calls"], d["tricks"], strict=True)]
            for d in self.deals
        ]

    def scored(self) -> list[tuple[int, dict[str, list[int]], list[int]]]:
        """Each deal with its number (from 1) and its scores in tenths."""
        return [
            (number, deal, scores)
            for number, (deal, scores) in enumerate(zip(self.deals, self.scores(), strict=True), 1)
        ]

    def totals(self) -> list[int]:
        """Each seat's total in tenths."""
        return [sum(column) for column in zip(*self.scores(), strict=True)] or [0, 0, 0, 0]

    def winners(self) -> list[int]:
        """Seats that won outright with a made call of 8+ (only under ``eight_wins``)."""
        return eight_winners(self.rules, self.deals[-1]) if self.deals else []

    def places(self) -> list[int]:
        """Places by total, equal totals sharing; outright winners share first."""
        return places(self.totals(), self.winners())

    def over_reason(self) -> str | None:
        """Why the match is over, in words, or None while deals can still be added."""
        if match_end(self.rules, self.deals) is None:
            return None
        if self.winners():
            return f"The match is over: {_eight_text(self.rules, self.names, self.deals[-1])}"
        return f"The match is over: all {self.rules.deals} deals are played"

    def view(self) -> dict[str, Any]:
        """The sheet with its computed scores, totals, places and state, for the API."""
        reason = self.over_reason()
        return {
            "id": self.id,
            "created": self.created,
            "names": self.names,
            "rules": str(self.rules),
            "summary": self.rules.summary(),
            "options": dataclasses.asdict(self.rules),
            "calls": [self.rules.min_call, self.rules.max_call],
            "deals_limit": self.rules.deals,
            "min_total_calls": self.rules.min_total_calls,
            "deals": [
                {
                    "number": number,
                    "calls": deal["calls"],
                    "tricks": deal["tricks"],
                    "scores": [format_tenths(s) for s in scores],
                    "made": [
                        made(self.rules, c, t)
                        for c, t in zip(deal["calls"], deal["tricks"], strict=True)
                    ],
                }
                for number, deal, scores in self.scored()
            ],
            "totals": [format_tenths(t) for t in self.totals()],
            "places": self.places(),
            "winners": self.winners(),
            "over": reason is not None,
            "over_reason": reason,
            "next_deal": None if reason else len(self.deals) + 1,
        }

    def summary(self, updated: float) -> dict[str, Any]:
        """A line of the list of sheets."""
        return {
            "id": self.id,
            "created": self.created,
            "updated": updated,
            "names": self.names,
            "rules": str(self.rules),
            "deals_played": len(self.deals),
            "totals": [format_tenths(t) for t in self.totals()],
            "places": self.places(),
            "over": self.over_reason() is not None,
        }

    # --- exports -------------------------------------------------------------------------------

    def export_json(self) -> dict[str, Any]:
        """The sheet as a self-contained JSON document."""
        return {
            "format": EXPORT_FORMAT,
            "version": EXPORT_VERSION,
            "rules": str(self.rules),
            "players": self.names,
            "deals": [
                {
                    "calls": deal["calls"],
                    "tricks": deal["tricks"],
                    "scores": [format_tenths(s) for s in scores],
                }
                for deal, scores in zip(self.deals, self.scores(), strict=True)
            ],
            "totals": [format_tenths(t) for t in self.totals()],
            "places": self.places(),
        }

    def export_csv(self) -> str:
        """The sheet as CSV: a header, one row per deal, then the totals and places."""
        out = io.StringIO()
        writer = csv.writer(out)
        header = ["Deal"]
        for name in self.names:
            cell = _cell(name)
            header += [f"{cell} call", f"{cell} tricks", f"{cell} score"]
        writer.writerow(header)
        for number, deal, scores in self.scored():
            row: list[object] = [number]
            for call, tricks, score in zip(deal["calls"], deal["tricks"], scores, strict=True):
                row += [call, tricks, format_tenths(score)]
            writer.writerow(row)
        writer.writerow(["Total", *(x for t in self.totals() for x in ("", "", format_tenths(t)))])
        writer.writerow(["Place", *(x for p in self.places() for x in ("", "", p))])
        return out.getvalue()


# --- checks --------------------------------------------------------------------------------------


def check_names(names: object) -> list[str]:
    """Four distinct names in play order, each as every name is (``names.check_name``)."""
    if not isinstance(names, list) or len(names) != 4:
        raise Refusal("names_list")
    result: list[str] = []
    for seat, typed in enumerate(names, 1):
        try:
            name = check_name(typed)
        except InvalidNameError as error:
            raise Refusal(SHEET_NAME_CODES[error.problem], seat=seat, **error.blanks) from None
        # Case-blind, so that a sheet never has 'Ann' and 'ann' as two columns.
        if name.casefold() in (other.casefold() for other in result):
            raise Refusal("names_twice", name=name)
        result.append(name)
    return result


def check_deal(rules: Rules, names: Sequence[str], body: object) -> dict[str, list[int]]:
    """One deal's calls and tricks, checked against the rules; Refusal naming the problem."""
    body = _object(body)
    calls, tricks = body.get("calls"), body.get("tricks")
    for key, values in (("calls", calls), ("tricks", tricks)):
        if not isinstance(values, list) or len(values) != 4:
            raise Refusal("entries_list", field=key)
    assert isinstance(calls, list) and isinstance(tricks, list)
    low, high = rules.min_call, rules.max_call
    checked_calls: list[int] = []
    for name, call in zip(names, calls, strict=True):
        if call is None or call == "":
            raise Refusal("call_missing", name=name)
        value = _whole(call)
        if value is None:
            raise Refusal("call_not_whole", name=name, value=call)
        if not low <= value <= high:
            raise Refusal(
                "call_range", name=name, value=value, low=low, high=high, rules=str(rules)
            )
        checked_calls.append(value)
    checked_tricks: list[int] = []
    for name, taken in zip(names, tricks, strict=True):
        if taken is None or taken == "":
            raise Refusal("tricks_missing", name=name)
        value = _whole(taken)
        if value is None or not 0 <= value <= TRICKS_PER_DEAL:
            raise Refusal("tricks_range", name=name, value=taken if value is None else value)
        checked_tricks.append(value)
    if sum(checked_tricks) != TRICKS_PER_DEAL:
        raise Refusal("tricks_total", total=sum(checked_tricks))
    if calls_thrown_in(sum(checked_calls), rules.min_total_calls):
        raise Refusal("calls_total", total=sum(checked_calls), min=rules.min_total_calls)
    return {"calls": checked_calls, "tricks": checked_tricks}


def eight_winners(rules: Rules, deal: dict[str, list[int]]) -> list[int]:
    """Seats that called 8 or more and made it, when ``eight_wins`` is played."""
    return outright_winners(rules, deal["calls"], deal["tricks"])


def match_end(rules: Rules, deals: Sequence[dict[str, list[int]]]) -> int | None:
    """The number of the deal that ends the match, or None while the match goes on."""
    for number, deal in enumerate(deals, 1):
        if match_over(number, rules.deals or 0, bool(eight_winners(rules, deal))):
            return number
    return None


def _winners(
    rules: Rules, names: Sequence[str], deal: dict[str, list[int]]
) -> list[dict[str, object]]:
    """The outright winners of a deal with their calls, for a refusal to name them."""
    return [{"name": names[s], "call": deal["calls"][s]} for s in eight_winners(rules, deal)]


def _eight_text(rules: Rules, names: Sequence[str], deal: dict[str, list[int]]) -> str:
    """'Ann made a call of 9, which wins at once' for the outright winners of a deal."""
    return winners_text(_winners(rules, names, deal))


def _whole(value: object) -> int | None:
    """A JSON number that is a whole number, as an int; None for anything else."""
    if isinstance(value, bool):
        return None  # JSON true is not 1 trick
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _object(body: object) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise Refusal("body_not_object")
    return body


def _cell(text: str) -> str:
    """A name made safe for spreadsheets, which would run a cell starting with '=' as code."""
    return "'" + text if text.startswith(("=", "+", "-", "@")) else text


# --- routes --------------------------------------------------------------------------------------


def routes(backend: Backend, work: Work) -> list[BaseRoute]:
    """The scoresheet API's routes, over the backend that keeps matches and rooms (with Redis,
    every process serves every sheet). Every request for a sheet carries the token its creation
    answered, as ``Authorization: Bearer T``. A sheet's reading, scoring and writing out (up
    to :data:`MAX_DEALS` deals) is done on ``work``, the pool the hints and figures share, never
    on the event loop that serves every table (``busy`` when the pool is full)."""

    async def row_of(request: Request) -> dict[str, Any]:
        """The stored sheet of the request's id whose token the request carries; a Refusal
        (404) alike for an unknown id and a wrong token."""
        token = bearer(request, "sheet")
        row = await backend.sheet(request.path_params["id"])
        if row is None or not holds(row["token"], token):
            raise Refusal("no_such_sheet")
        return row

    async def shown(request: Request, make: Callable[[Sheet], T]) -> T:
        """``make`` of the request's sheet, made on the pool."""
        row = await row_of(request)
        return await work.run(lambda: make(Sheet.load(row["id"], row["data"])))

    async def change(request: Request, edit: Callable[[Sheet], None]) -> Response:
        """``edit`` made on the sheet as stored, and stored only on the revision it was read
        at: two requests to one sheet (perhaps through two processes) never interleave; the
        later is made again on the earlier's result. The answer: the sheet's view after it."""

        def edited(row: dict[str, Any]) -> tuple[Sheet, dict[str, Any]]:
            sheet = Sheet.load(row["id"], row["data"])
            edit(sheet)
            return sheet, sheet.data()

        for _ in range(5):
            row = await row_of(request)
            sheet, data = await work.run(edited, row)
            if await backend.update_sheet(sheet.id, data, row["rev"]):
                return await work.run(_view, sheet)
        raise Refusal("sheet_too_fast")

    def deal_number(request: Request) -> int:
        text = request.path_params["n"]
        if not (text.isascii() and text.isdigit()) or len(text) > 6:
            raise Refusal("deal_number", text=text)
        return int(text)

    async def create(request: Request) -> Response:
        sheet = Sheet.create(await read_json(request))
        token = new_token()
        await backend.create_sheet(sheet.id, sheet.data(), hash_token(token))
        return JSONResponse(sheet.view() | {"token": token}, 201)

    async def mine(request: Request) -> Response:
        # Only the sheets the client names with their tokens: the server lists nobody's.
        held: dict[str, list[str]] = {}
        for sheet_id, token in read_held(await read_json(request), "sheets"):
            held.setdefault(sheet_id, []).append(token)
        rows = [
            row
            for row in await backend.sheets(list(held))
            if any(holds(row["token"], token) for token in held[row["id"]])
        ]
        return await work.run(
            lambda: _json(
                [Sheet.load(row["id"], row["data"]).summary(row["updated"]) for row in rows]
            )
        )

    # The page asks these before it sends an entry, so that names and deals are checked in one
    # place, the server's (the same checks as create and put_deal, nothing saved).
    async def check_new(request: Request) -> Response:
        sheet = Sheet.create(await read_json(request))
        return JSONResponse({"valid": True, "names": sheet.names, "rules": str(sheet.rules)})

    async def check_deal_entry(request: Request) -> Response:
        body = await read_json(request)

        def checked(sheet: Sheet) -> Response:
            sheet.put_deal(deal_number(request), body)
            return _json({"valid": True, "sheet": sheet.view()})

        return await shown(request, checked)

    async def show(request: Request) -> Response:
        return await shown(request, _view)

    async def put_deal(request: Request) -> Response:
        body = await read_json(request)
        return await change(request, lambda sheet: sheet.put_deal(deal_number(request), body))

    async def delete_deal(request: Request) -> Response:
        return await change(request, lambda sheet: sheet.delete_deal(deal_number(request)))

    async def export_csv(request: Request) -> Response:
        sheet_id, text = await shown(request, lambda sheet: (sheet.id, sheet.export_csv()))
        # The byte order mark lets spreadsheet programs read non-Latin names as UTF-8.
        return Response("\ufeff" + text, media_type="text/csv",
                        headers=_attachment(f"callbreak-sheet-{sheet_id}.csv"))  # fmt: skip

    async def export_json(request: Request) -> Response:
        def written(sheet: Sheet) -> tuple[str, str]:
            return sheet.id, json.dumps(sheet.export_json(), indent=1, ensure_ascii=False)

        sheet_id, text = await shown(request, written)
        return Response(text, media_type="application/json",
                        headers=_attachment(f"callbreak-sheet-{sheet_id}.json"))  # fmt: skip

    return [
        Route("/api/sheets", create, methods=["POST"]),
        Route("/api/sheets/mine", mine, methods=["POST"]),
        Route("/api/sheets/check", check_new, methods=["POST"]),
        Route("/api/sheets/{id}", show, methods=["GET"]),
        Route("/api/sheets/{id}/deals/{n}", put_deal, methods=["PUT"]),
        Route("/api/sheets/{id}/deals/{n}", delete_deal, methods=["DELETE"]),
        Route("/api/sheets/{id}/deals/{n}/check", check_deal_entry, methods=["POST"]),
        Route("/api/sheets/{id}/export.csv", export_csv, methods=["GET"]),
        Route("/api/sheets/{id}/export.json", export_json, methods=["GET"]),
    ]


def _json(value: Any) -> Response:
    """``value`` as a JSON answer, written out where it is called (the pool, not the loop:
    a JSONResponse would write a sheet of 1,000 deals out on the loop)."""
    return JSONResponse(value)


def _view(sheet: Sheet) -> Response:
    """The answer that shows ``sheet`` (:meth:`Sheet.view`), written out on the pool."""
    return _json(sheet.view())


def _attachment(filename: str) -> dict[str, str]:
    # Ids are token_urlsafe text, so the file name never needs quoting beyond the quotes.
    return {"Content-Disposition": f'attachment; filename="{filename}"'}
