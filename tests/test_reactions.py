"""Reactions at a room's table (``web.reactions``): a seated person's preset reaction reaches
every connection of the table, in every process; anything else is refused with one code, and
a flood from one person or one address is refused with ``reactions_rate``, nothing sent and
nothing stored. (Through two processes: tests/test_rooms_processes.py.)"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest

from callbreak.web.backend import Backend, LocalBackend
from callbreak.web.messages import handle
from callbreak.web.model import TableData, join, new_room, start
from callbreak.web.reactions import REACTIONS
from callbreak.web.store import Store
from callbreak.web.tables import LiveTable, Tables
from tests.helpers import FAST, RecordingSocket

pytestmark = pytest.mark.anyio

STATIC = Path(__file__).parent.parent / "src" / "callbreak" / "web" / "static"


class Socket(RecordingSocket):
    """A connection from ``address``."""

    def __init__(self, address: str = "10.0.0.1") -> None:
        super().__init__()
        self.scope = {"type": "websocket", "client": (address, 50000)}

    def messages(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in map(json.loads, self.sent) if m["type"] == kind]


def _room() -> tuple[TableData, list[str]]:
    """A started room: Asha (seat 0), Bikash (seat 1), two computers; their tokens."""
    data = new_room("strict", "Asha", [None, "random", "random"])
    from callbreak.web.model import claim

    tokens = [claim(data, 0)]
    tokens.append(join(data, "Bikash")[1])
    start(data)
    return data, tokens


@dataclasses.dataclass
class Seated:
    """The room of :func:`_room` stored and taken up by a process's tables."""

    backend: Backend
    tables: Tables
    data: TableData
    tokens: list[str]
    table: LiveTable


async def _seated(**limits: float) -> Seated:
    """:func:`_room` served under ``limits`` (FAST's, with the reactions' as given), not
    driven: nothing moves but what the test sends."""
    backend = LocalBackend(Store(":memory:"))
    tables = Tables(backend, dataclasses.replace(FAST, **limits))
    data, tokens = _room()
    await backend.create(data)
    table = await tables.get(data.id)
    assert table is not None
    table.halted = True
    return Seated(backend, tables, data, tokens, table)


async def _say(at: Seated, socket: Any, reaction: object) -> None:
    message = json.dumps({"type": "react", "reaction": reaction})
    await handle(at.table, socket, message, at.tables)
    await at.table.hub.flush(socket)


async def test_a_reaction_reaches_everyone_at_the_table_and_only_presets_are_taken() -> None:
    at = await _seated()
    table, tokens = at.table, at.tokens
    asha, bikash, watcher = Socket("10.0.0.1"), Socket("10.0.0.2"), Socket("10.0.0.3")
    assert await table.join(asha, tokens[0]) == 0  # type: ignore[arg-type]
    assert await table.join(bikash, tokens[1]) == 1  # type: ignore[arg-type]
    assert await table.join(watcher, None) is None  # type: ignore[arg-type]
    await _say(at, bikash, "well_played")
    for socket in (asha, bikash, watcher):
        await table.hub.flush(socket)
        assert socket.messages("reaction") == [
            {"type": "reaction", "seat": 1, "reaction": "well_played"}
        ]
    for bad in ("you lose", "<b>x</b>", 3, None, "WELL_PLAYED"):
        await _say(at, asha, bad)
        assert asha.messages("error")[-1]["code"] == "reaction"
    await _say(at, watcher, "heart")
    assert watcher.messages("error")[-1]["code"] == "spectator"
    assert len(asha.messages("reaction")) == 1  # nothing refused reached anyone


async def test_a_flood_of_reactions_from_one_address_is_refused_and_nothing_is_stored() -> None:
    at = await _seated(reaction_burst=100.0, address_reaction_burst=5.0)
    table, tokens = at.table, at.tokens
    before = json.dumps((await at.backend.load(at.data.id)).to_json())  # type: ignore[union-attr]
    # Two people behind one address (a household), and someone elsewhere who watches.
    asha, bikash, watcher = Socket("10.0.0.1"), Socket("10.0.0.1"), Socket("10.0.0.9")
    await table.join(asha, tokens[0])  # type: ignore[arg-type]
    await table.join(bikash, tokens[1])  # type: ignore[arg-type]
    await table.join(watcher, None)  # type: ignore[arg-type]
    for number in range(30):
        await _say(at, asha if number % 2 else bikash, "thumbs")
    await table.hub.flush(watcher)
    assert len(watcher.messages("reaction")) == 5  # the address's burst, then nothing
    refused = asha.messages("error") + bikash.messages("error")
    assert len(refused) == 25 and {e["code"] for e in refused} == {"reactions_rate"}
    assert all(e["args"]["seconds"] >= 1 for e in refused)
    after = await at.backend.load(at.data.id)
    assert after is not None and json.dumps(after.to_json()) == before  # nothing stored


async def test_a_person_over_their_rate_is_refused_while_others_react() -> None:
    at = await _seated(reaction_burst=3.0, address_reaction_burst=100.0)
    table, tokens = at.table, at.tokens
    asha, bikash = Socket("10.0.0.1"), Socket("10.0.0.2")
    await table.join(asha, tokens[0])  # type: ignore[arg-type]
    await table.join(bikash, tokens[1])  # type: ignore[arg-type]
    for _ in range(5):
        await _say(at, asha, "laugh")
    await _say(at, bikash, "oops")
    await table.hub.flush(bikash)
    seen = [(m["seat"], m["reaction"]) for m in bikash.messages("reaction")]
    assert seen == [(0, "laugh")] * 3 + [(1, "oops")]
    assert [e["code"] for e in asha.messages("error")] == ["reactions_rate"] * 2


def test_every_page_words_every_reaction_and_knows_the_same_set() -> None:
    script = (STATIC / "reactions.js").read_text(encoding="utf-8")
    listed = re.findall(r'^\s*\["(\w+)",', script, re.MULTILINE)
    assert tuple(listed) == REACTIONS
    for lang in ("en", "ne", "hi"):
        words = (STATIC / f"lang-{lang}.js").read_text(encoding="utf-8")
        for reaction in REACTIONS:
            assert f'"reaction.{reaction}"' in words, (lang, reaction)
        assert '"refusal.reactions_rate"' in words and '"refusal.reaction"' in words
