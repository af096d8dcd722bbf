"""Refusals: what the servers (the web app, the bot server) answer when they will not do
something, as a stable code with its arguments beside the English words.

A client never reads the English back: the browser words each code in its own language from its
catalogues (``static/lang-*.js``, ``refusal.CODE``), as it words a rule's duty from its data.
:data:`WORDS` is the one list of codes, with the HTTP status and the English words of each;
docs/web.md and docs/rooms.md list them. Here too are the one reader of a JSON request body
and the one Starlette exception handler that turns the package's errors into answers.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse

from callbreak.errors import (
    CallbreakError,
    IllegalActionError,
    IllegalCallError,
    InvalidNameError,
    InvalidRulesError,
)

__all__ = [
    "BOT",
    "CHALLENGE",
    "GENERAL",
    "HANDLERS",
    "HELD",
    "LOBBY",
    "MATCH",
    "MAX_BODY_BYTES",
    "PUBLIC",
    "REVIEW",
    "SHEET",
    "TABLE",
    "WORDS",
    "Refusal",
    "answer",
    "body",
    "check_text",
    "handler",
    "parse_json",
    "read_json",
    "winners_text",
]

MAX_BODY_BYTES = 64_000

Words = str | Callable[[Mapping[str, Any]], str]
TOKENS = {
    "seat": "your seat token",
    "match": "the match's token",
    "sheet": "the scoresheet's token",
    "player": "your player's token",
}
"""What each kind of token a request may need is called (``token_needed``'s ``held``)."""


def winners_text(winners: Sequence[Mapping[str, Any]]) -> str:
    """'Ann made a call of 9, which wins at once' for the outright winners of a deal
    (``[{"name": "Ann", "call": 9}]``)."""
    who = " and ".join(f"{w['name']} made a call of {w['call']}" for w in winners)
    return who + (", which wins at once" if len(winners) == 1 else ", which win at once")


def _options(args: Mapping[str, Any]) -> str:
    """'only time 0.1-2 and seed' for the options a level takes here."""
    words = [
        name if bounds is None else f"{name} {bounds[0]:g}-{bounds[1]:g}"
        for name, bounds in args["options"]
    ]
    if not words:
        return "no options"
    return "only " + (words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}")


# Each code: the HTTP status it is answered with (a socket sends only the words) and its English
# words, a format string of the arguments or a function of them. Never rename a code: pages and
# other clients key on it; the words may change freely.
GENERAL: dict[str, tuple[int, Words]] = {  # Any request or message.
    "internal": (500, "the server could not do that; try again"),
    "not_found": (404, "not found"),
    "method_not_allowed": (405, "method not allowed"),
    "store": (503, "the server could not save that; try again"),
    "busy": (503, "the server is busy: try again in a moment"),
    "restarting": (503, "the server is restarting: reconnect"),
    # Too many requests (with the seconds to wait), or too many sockets (without).
    "rate": (
        429,
        lambda a: (
            f"too many requests from this address: try again in {a['seconds']} s"
            if "seconds" in a
            else "too many connections from this address: close another tab first"
        ),
    ),
    "body_too_large": (413, "the body is over {limit} bytes"),
    "body_type": (400, "send the body as JSON, with Content-Type: application/json"),
    "body_not_json": (400, "the body is not JSON"),
    "body_not_object": (400, "the body must be a JSON object"),
    "token_needed": (
        401,
        lambda a: f"this needs {TOKENS[a['held']]}: Authorization: Bearer TOKEN",
    ),
    "refused": (400, "{detail}"),
    "bad_rules": (400, "{detail}"),
    "bot_not_allowed": (400, "{detail}"),
    "bad_spec": (400, "{detail}"),
    "not_text": (400, "{field} must be text"),
    # A lone UTF-16 surrogate (JSON's "\ud800" with no partner) is no character: no name, id,
    # seed or token can hold one, and it could not even be stored as UTF-8.
    "surrogate": (400, "text may not hold a lone UTF-16 surrogate (\\ud800-\\udfff)"),
}

MATCH: dict[str, tuple[int, Words]] = {  # A match against the computer.
    "no_such_match": (404, "no such match"),
    "opponents_list": (400, "opponents must list three players"),
    "opponent_spec": (400, "each opponent is a player spec such as 'expert'"),
    "seed_type": (400, "seed must be a number or text"),
    "seed_length": (400, "seed must be 1-64 characters"),
}

LOBBY: dict[str, tuple[int, Words]] = {  # A room's lobby (its HTTP API).
    "no_such_room": (404, "no such room"),
    "creator_only": (403, "only the room's creator can do that"),
    "rules_not_text": (400, "rules must be text, such as 'strict' or 'classic(deals=10)'"),
    "seats_list": (400, "seats lists seats 1-3: null for a person to join, or a computer level"),
    "room_seed": (400, "a room's deals are drawn by the server: leave out the seed"),
    "seat_change": (400, 'send {{"level": "expert"}} to seat a computer or {{"open": true}}'),
    "not_seated": (401, "that token holds no seat in this room"),
    "bad_seat": (400, "a seat is 0-3, not {seat!r}"),
    "name_not_text": (400, "a name is text"),
    "name_empty": (400, "a name needs at least one visible character"),
    "name_long": (400, "a name has at most {max} characters"),
    "name_control": (400, "a name may not hold the control or format character {char}"),
    "level_spec": (400, "a computer seat is a player spec such as 'expert'"),
    "unknown_level": (
        400,
        lambda a: f"the levels here are {', '.join(a['levels'])}, not {a['level']!r}",
    ),
    "level_option": (400, lambda a: f"{a['level']} takes {_options(a)} here, not {a['option']!r}"),
    "option_not_number": (400, "{option} must be a number, {low:g}-{high:g}, not {value!r}"),
    "option_range": (400, "{option} must be {low:g}-{high:g} here, not {value:g}"),
    "turn_seconds_type": (400, "turn_seconds is a number of seconds, or 0 for no clock"),
    "turn_seconds_range": (400, "turn_seconds is 5-600 seconds, or 0 for no clock"),
    "speed": (400, lambda a: f"speed must be one of {', '.join(a['speeds'])}, not {a['speed']!r}"),
    "auto_forced": (400, "auto_forced must be true or false"),
    "room_over": (409, "the match in this room is over"),
    "no_open_seat": (409, "this room has no open seat"),
    "creator_seat": (409, "seat 0 is the creator's"),
    "creator_seat_move": (409, "seat 0 is the creator's: move the other seats"),
    "seat_taken": (409, "seat {seat} is taken: open it first"),
    "seat_has_person": (409, "seat {seat} has a person in it"),
    "moved_after_start": (409, "seats can be moved only before the start"),
    "started": (409, "the match has already started"),
    "seat_open": (409, "seat {seat} is still open: seat a computer or wait"),
    "person_only": (409, "only a person can leave a seat"),
    "too_fast": (409, "the room is changing too fast: try again"),
}

TABLE: dict[str, tuple[int, Words]] = {  # A table's socket, a match's or a room's.
    "hello_needed": (401, 'a match needs its token: {{"type": "hello", "token": T}}'),
    "hello_first": (400, 'the first message says who you are: {{"type": "hello", ...}}'),
    "hello_again": (400, "hello is the first message only; reconnect to change seats"),
    "watching": (401, "that seat token is not one of this room's: watching"),
    "too_many_messages": (429, "too many messages"),
    "message_long": (400, "the message is too long"),
    "message_not_json": (400, "the message is not JSON"),
    "message_shape": (400, 'a message is a JSON object with a "type"'),
    "message_type": (400, "unknown message type {type!r}"),
    "spectator": (403, "a spectator can only watch"),
    "settings_creator": (403, "only the room's creator changes its settings"),
    "wrong_seat": (400, "you play seat {seat}, not seat {asked!r}"),
    "call_value": (400, 'a call message needs a whole number "value"'),
    "play_card": (400, 'a play message needs a "card" such as "TH"'),
    "bad_card": (400, "{detail}"),
    "hint_turn": (400, "a hint is for your own turn"),
    "seen_deals": (400, 'a seen message needs "deals", the number of deals shown'),
    "version_needed": (400, 'an action needs the "version" of the state it was made on'),
    "stale": (
        409,
        "that was made on an earlier state of the table (version {version}, now {now}): "
        "look again, nothing was played",
    ),
    "moved_on": (409, "the table moved on before that arrived: nothing was played"),
    "seat_changed": (409, "your seat changed before that arrived: nothing was played"),
    "not_started": (409, "the match has not started yet"),
    "match_over": (409, "the match is over"),
    "stop_creator": (403, "only the room's creator can end the match"),
    "stop_between": (409, "the match can be ended only between deals of an open-ended match"),
    "nothing_to_do": (409, "nothing to do now"),
    "not_your_turn": (409, "it is {name}'s turn, not yours"),
    "illegal_play": (400, "{detail}"),
    "illegal_call": (400, "{detail}"),
    "no_redeal": (400, "you may not claim a redeal now"),
}

HELD: dict[str, tuple[int, Words]] = {  # The lists a client holds (matches, rooms, scoresheets).
    "held_list": (400, '{key} must list {{"id": ID, "token": TOKEN}} objects'),
    "held_many": (400, "{key} may name at most {max} at a time, not {count}: send the newest"),
    "held_id": (400, "each of {key} needs an id of 1-{max} characters"),
    "held_token": (400, "each of {key} needs a token of 1-{max} characters"),
}

SHEET: dict[str, tuple[int, Words]] = {  # A scoresheet.
    "no_such_sheet": (404, "There is no such scoresheet"),
    "sheet_too_fast": (409, "The scoresheet is changing too fast: try again"),
    "sheet_rules_text": (400, "Rules must be text, such as 'classic' or 'classic(deals=10)'"),
    "sheet_rules": (400, "Bad rules: {detail}"),
    "deal_number": (400, "Deal numbers are whole numbers from 1, not {text!r}"),
    "no_deal": (400, "There is no deal {deal}: the next deal is deal {next}"),
    "sheet_over": (
        400,
        "The match is over: all {deals} deals are played; no more deals can be entered",
    ),
    "sheet_won": (
        400,
        lambda a: f"The match is over: {winners_text(a['winners'])}; no more deals can be entered",
    ),
    "sheet_correction": (
        400,
        lambda a: (
            f"With this correction the match ends at deal {a['deal']} "
            f"({winners_text(a['winners'])}), but later deals are entered: delete them first"
        ),
    ),
    "no_deal_to_delete": (400, "There is no deal to delete"),
    "delete_last": (400, "Only the last deal (deal {last}) can be deleted, not deal {deal}"),
    "names_list": (400, "Names must list the 4 players in play order"),
    "sheet_name_text": (400, "Player {seat}'s name must be text"),
    "sheet_name_empty": (400, "Player {seat}'s name is empty"),
    "sheet_name_long": (400, "Player {seat}'s name is over {max} characters"),
    "sheet_name_control": (
        400,
        "Player {seat}'s name may not hold the control or format character {char}",
    ),
    "sheet_full": (400, "A scoresheet holds at most {max} deals: start a new sheet"),
    "names_twice": (400, "Two players are called {name}: each name must differ"),
    "entries_list": (
        400,
        lambda a: f"{a['field'].capitalize()} must list 4 numbers, one per player in play order",
    ),
    "call_missing": (400, "{name}'s call is missing"),
    "call_not_whole": (
        400,
        lambda a: f"{a['name']}'s call must be a whole number, not {json.dumps(a['value'])}",
    ),
    "call_range": (
        400,
        "{name}'s call of {value} is out of range: calls are {low}-{high} under {rules}",
    ),
    "tricks_missing": (400, "{name}'s tricks are missing"),
    "tricks_range": (
        400,
        lambda a: (
            f"{a['name']}'s tricks must be a whole number from 0 to 13, not "
            + (json.dumps(a["value"]) if not isinstance(a["value"], int) else str(a["value"]))
        ),
    ),
    "tricks_total": (400, "The tricks total {total}, but every deal has exactly 13 tricks"),
    "calls_total": (
        400,
        "The calls total {total}, under the {min} these rules require: that deal is thrown in "
        "and dealt again by the same dealer, so it is not scored; enter the calls and tricks of "
        "the new deal",
    ),
}

BOT: dict[str, tuple[int, Words]] = {  # The bot server (the Bhoos protocol).
    "protocol": (400, "{detail}"),
    "bot_failed": (500, "internal error: {detail}"),
}

REVIEW: dict[str, tuple[int, Words]] = {  # The review of a match or a room (web.reviews).
    "review_playing": (409, "the match is still being played: it can be reviewed once it is over"),
    "review_busy": (503, "the server is reviewing other matches: try again in a few minutes"),
    "review_failed": (500, "the review could not be made; try again"),
    "review_long": (
        400,
        "the match has {decisions} of your decisions to review; a review here takes at most "
        "{max} (about {deals} deals)",
    ),
}

PUBLIC: dict[str, tuple[int, Words]] = {  # Public play: profiles and pools (web.profiles, pools).
    "no_such_player": (404, "no such player"),
    "not_a_player": (401, "that token is no player's: make a player first"),
    "avatar": (400, lambda a: f"the avatar is one of {', '.join(a['avatars'])}"),
    "no_such_pool": (404, lambda a: f"no such pool: the pools are {', '.join(a['pools'])}"),
    "joins_rate": (429, "too many joins of a pool: try again in {seconds} s"),
    "public_table": (403, "a table of strangers has no creator: nobody changes its seats"),
    "reaction": (400, lambda a: f"a reaction is one of {', '.join(a['reactions'])}"),
    "reactions_rate": (429, "too many reactions: try again in {seconds} s"),
}

CHALLENGE: dict[str, tuple[int, Words]] = {  # The daily challenge (web.challenge).
    "challenge_day": (400, "{day!r} is not a day: write it as YYYY-MM-DD"),
    "challenge_not_open": (404, "the challenge of {day} has not opened yet"),
    "challenge_played": (409, "you have played the challenge of {day}: one attempt a day"),
    "challenge_closing": (
        409,
        "the day's challenge closes in {minutes} min: too soon to play it to the end; the "
        "next one opens at midnight UTC",
    ),
    "challenge_hint": (400, "no hints in the daily challenge: everyone plays it alone"),
}

WORDS = GENERAL | MATCH | LOBBY | TABLE | HELD | SHEET | BOT | REVIEW | PUBLIC | CHALLENGE
"""Every code, with its HTTP status and English words."""


class Refusal(CallbreakError):
    """A request or a message refused: its ``code`` (a key of :data:`WORDS`), the ``args`` its
    words are made of, and the HTTP ``status`` it is answered with. ``str()`` is the English."""

    def __init__(self, code: str, status: int | None = None, **args: Any) -> None:
        default, words = WORDS[code]
        super().__init__(words(args) if callable(words) else words.format(**args))
        self.code = code
        self.arguments = args
        self.status = default if status is None else status

    def json(self) -> dict[str, Any]:
        """``{"error": words, "code": code, "args": {...}}``, as an HTTP answer's body."""
        return {"error": str(self), "code": self.code, "args": self.arguments}

    def message(self) -> dict[str, Any]:
        """The refusal as a socket's ``error`` message."""
        return {"type": "error", "message": str(self), "code": self.code, "args": self.arguments}


def refusal(error: CallbreakError) -> Refusal:
    """Any of the package's errors as a refusal: a :class:`Refusal` as it is, a core error (the
    rules, an illegal action) under a code whose argument is its English ``detail``."""
    if isinstance(error, Refusal):
        return error
    if isinstance(error, InvalidRulesError):
        return Refusal("bad_rules", detail=str(error))
    if isinstance(error, InvalidNameError):
        return Refusal(NAME_CODES[error.problem], **error.blanks)
    if isinstance(error, IllegalCallError):
        return Refusal("illegal_call", detail=str(error))
    if isinstance(error, IllegalActionError):
        return Refusal("illegal_play", detail=str(error))
    return Refusal("refused", detail=str(error))


def body(error: CallbreakError) -> bytes:
    """The JSON body that answers ``error`` (for middleware, which answers below Starlette)."""
    return json.dumps(refusal(error).json()).encode()


def answer(error: CallbreakError) -> JSONResponse:
    """The HTTP answer to ``error``: its status and :meth:`Refusal.json`."""
    refused = refusal(error)
    return JSONResponse(refused.json(), refused.status)


async def handler(_request: Request, error: Exception) -> JSONResponse:
    """The one Starlette exception handler of the apps: the package's errors answered by their
    code, and Starlette's own (no such path, a method a path does not take) as refusals too;
    any other failure is the app's middleware's to answer as a failure of ours."""
    if isinstance(error, HTTPException):
        code = HTTP_CODES.get(error.status_code)
        refused = (
            Refusal(code)
            if code
            else Refusal("refused", error.status_code, detail=str(error.detail))
        )
        return JSONResponse(refused.json(), refused.status, headers=error.headers)
    assert isinstance(error, CallbreakError)  # registered for these two only
    return answer(error)


NAME_CODES = {
    "not_text": "name_not_text",
    "empty": "name_empty",
    "long": "name_long",
    "control": "name_control",
}
"""The code of each problem of a name (``names.check_name``), wherever one name is asked for."""
HTTP_CODES = {404: "not_found", 405: "method_not_allowed"}
"""The codes of Starlette's own refusals, by status."""
HANDLERS = {CallbreakError: handler, HTTPException: handler}
"""The apps' ``exception_handlers``: one handler for every refusal."""


async def read_json(request: Request, *, json_only: bool = True) -> Any:
    """The request's JSON body; a Refusal when it is over 64 kB or not JSON. With ``json_only``
    (the web app) the body must come as ``application/json``: a form or text/plain post from
    another site's page, which a browser sends without asking, is refused."""
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY_BYTES):
        raise Refusal("body_too_large", limit=MAX_BODY_BYTES)
    data = b""
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY_BYTES:
            raise Refusal("body_too_large", limit=MAX_BODY_BYTES)
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if json_only and kind != "application/json":
        raise Refusal("body_type")
    try:
        value = parse_json(data)
    except (ValueError, RecursionError):  # bad JSON or UTF-8, numbers of thousands of digits
        raise Refusal("body_not_json") from None
    check_text(value)
    return value


def parse_json(text: str | bytes) -> Any:
    """``text`` as JSON, and only JSON: ``json.loads`` also takes ``NaN``, ``Infinity`` and
    ``-Infinity``, which no answer can carry back (a refusal that quotes the value would fail to
    be written, a socket would send what a browser's ``JSON.parse`` refuses); a ValueError."""
    return json.loads(text, parse_constant=_not_json)


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")


def check_text(value: Any) -> None:
    """Refuse (``surrogate``) a JSON value any string of which, a key or a value at any depth,
    holds a lone UTF-16 surrogate: ``json.loads`` takes ``"\\ud800"`` (and, from bytes, its
    raw form) and hands back a string that no store, hash or answer can encode."""
    # A walk with a list of its own, not a recursive one: a value is as deep as the parser took
    # it, and a recursive walk begun a few frames deeper runs out of stack where it did not.
    waiting = [value]
    while waiting:
        item = waiting.pop()
        if isinstance(item, str):
            if not item.isascii():
                try:
                    item.encode()
                except UnicodeEncodeError:
                    raise Refusal("surrogate") from None
        elif isinstance(item, dict):
            waiting.extend(item)
            waiting.extend(item.values())
        elif isinstance(item, list):
            waiting.extend(item)


async def read_object(request: Request) -> dict[str, Any]:
    """The request's JSON body, which must be an object (:func:`read_json`)."""
    data = await read_json(request)
    if not isinstance(data, dict):
        raise Refusal("body_not_object")
    return data
