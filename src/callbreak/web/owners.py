"""Who holds what: the tokens a client sends for its matches, rooms and scoresheets, the file
that carries them to another device, and tokens for what was made before anything had owners.

The server lists, counts and opens only what a client names together with its token (the hash
of which the store keeps): an id with a wrong token, or none, is left out exactly as an id that
does not exist, so a stranger learns nothing. The browser keeps its tokens in its local storage
and can export them as a *tokens file* (``TOKENS_FORMAT``) to import on another device;
``callbreak adopt`` writes the same file for the matches and sheets of an older database.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from callbreak.errors import CallbreakError
from callbreak.refusals import Refusal
from callbreak.web.backend import Backend
from callbreak.web.model import MATCH, ROOM, TableData
from callbreak.web.store import Store

__all__ = [
    "MAX_HELD",
    "TOKENS_FORMAT",
    "TOKENS_VERSION",
    "adopt",
    "held_matches",
    "held_rooms",
    "read_held",
    "tokens_file",
]

MAX_HELD = 500
"""Ids (with their tokens) one request may name under one key."""
MAX_ID = 64
MAX_TOKEN = 128
TOKENS_FORMAT = "callbreak-tokens"
TOKENS_VERSION = 1

Held = tuple[str, str, float]
"""An id, its token, and since when it is held (seconds since the epoch)."""


def read_held(body: object, key: str) -> list[tuple[str, str]]:
    """The ``(id, token)`` pairs a request body lists under ``key`` (``{key: [{"id", "token"},
    ...]}``; none when the key is missing), each pair once; a Refusal when they are not such
    a list or are more than ``MAX_HELD``."""
    if not isinstance(body, dict):
        raise Refusal("body_not_object")
    items = body.get(key, [])
    if not isinstance(items, list):
        raise Refusal("held_list", key=key)
    if len(items) > MAX_HELD:
        raise Refusal("held_many", key=key, max=MAX_HELD, count=len(items))
    pairs: dict[tuple[str, str], None] = {}
    for item in items:
        if not isinstance(item, dict):
            raise Refusal("held_list", key=key)
        table_id, token = item.get("id"), item.get("token")
        if not isinstance(table_id, str) or not 0 < len(table_id) <= MAX_ID:
            raise Refusal("held_id", key=key, max=MAX_ID)
        if not isinstance(token, str) or not 0 < len(token) <= MAX_TOKEN:
            raise Refusal("held_token", key=key, max=MAX_TOKEN)
        pairs[table_id, token] = None
    return list(pairs)


async def _loaded(
    backend: Backend, pairs: Iterable[tuple[str, str]], kind: str
) -> list[tuple[TableData, str]]:
    """Each table of ``kind`` the pairs name, loaded once however many tokens name it (a
    request naming one id with 500 wrong tokens costs one load), with each token named."""
    tokens: dict[str, list[str]] = {}
    for table_id, token in pairs:
        tokens.setdefault(table_id.upper() if kind == ROOM else table_id, []).append(token)
    found: list[tuple[TableData, str]] = []
    for table_id, named in tokens.items():
        data = await backend.load(table_id)
        if data is not None and data.kind == kind:
            found.extend((data, token) for token in named)
    return found


async def held_matches(backend: Backend, pairs: Iterable[tuple[str, str]]) -> list[TableData]:
    """The matches against the computer whose seat 0 the given tokens hold, each once."""
    found: dict[str, TableData] = {}
    for data, token in await _loaded(backend, pairs, MATCH):
        if data.id not in found and data.seat_of(token) == 0:
            found[data.id] = data
    return list(found.values())


async def held_rooms(
    backend: Backend, pairs: Iterable[tuple[str, str]]
) -> list[tuple[TableData, int]]:
    """The rooms where the given tokens hold a seat, each once, with that seat as the room's
    current copy says (never as the client says)."""
    found: dict[str, tuple[TableData, int]] = {}
    for data, token in await _loaded(backend, pairs, ROOM):
        seat = None if data.id in found else data.seat_of(token)
        if seat is not None:
            found[data.id] = (data, seat)
    return list(found.values())


def tokens_file(
    matches: Iterable[Held], sheets: Iterable[Held], rooms: Iterable[dict[str, Any]] = ()
) -> dict[str, Any]:
    """The tokens file the History page imports (and exports): ``since`` in milliseconds, as
    the browser keeps it."""

    def entries(held: Iterable[Held]) -> list[dict[str, Any]]:
        return [
            {"id": item, "token": token, "since": round(since * 1000)}
            for item, token, since in held
        ]

    return {
        "format": TOKENS_FORMAT,
        "version": TOKENS_VERSION,
        "matches": entries(matches),
        "rooms": list(rooms),
        "sheets": entries(sheets),
    }


def adopt(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Give every match and scoresheet of the database at ``path`` that has no owner a token,
    and return the tokens file that holds them; CallbreakError when ``path`` is no database."""
    if not Path(path).is_file():
        raise CallbreakError(f"there is no database at {path}")
    try:
        store = Store(path)
        try:
            matches, sheets = store.adopt()
        finally:
            store.close()
    except sqlite3.Error as error:
        raise CallbreakError(f"cannot use the database at {path}: {error}") from None
    return tokens_file(matches, sheets)
