"""The live tables of a server: one match each, its seats, and the browser tabs watching it.

A :class:`Table` holds a match being played in the browser: its seating (the person's seat and
three computer players, :mod:`callbreak.seating`), its settings, and the sockets of the
person's tabs. Every action goes through :meth:`Table.apply`, which saves it. Who does what
lives elsewhere: the socket protocol in :mod:`~callbreak.web.socket`, the computer players'
turns in :mod:`~callbreak.web.scheduler`, the view in :mod:`~callbreak.web.view`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from typing import Any

from starlette.websockets import WebSocket

from callbreak.game import Action
from callbreak.rules import Rules
from callbreak.seating import Decision, PlayerSpec, Seating
from callbreak.web import scheduler
from callbreak.web.actions import STOP, encode, match_from_row
from callbreak.web.export import record_data
from callbreak.web.store import Store
from callbreak.web.view import seat_view

__all__ = ["COMPUTER_NAMES", "Table", "Tables"]

COMPUTER_NAMES = ("Bikash", "Chandra", "Dipa", "Esha", "Gopal", "Hari")

PLAYING, FINISHED, STOPPED, DAMAGED = "playing", "finished", "stopped", "damaged"
"""A stored match's status."""


class Table:
    """A match being played in the browser by one person against three computer players."""

    def __init__(self, row: dict[str, Any], store: Store) -> None:
        self.id: str = row["id"]
        self.store = store
        self.names: list[str] = row["names"]
        self.levels: list[str | None] = row["levels"]
        self.human: int = row["human"]
        self.settings: dict[str, Any] = dict(row["settings"])
        self.actions: list[str] = list(row["actions"])
        self.match = match_from_row(row)
        self._seating: Seating | None = None
        self.sockets: set[WebSocket] = set()
        self.thinking: int | None = None
        self.hint_running = False
        self.runner: asyncio.Task[None] | None = None

    @property
    def seating(self) -> Seating:
        """The seats, read from the stored levels when first needed (listing matches must not
        read specs or contact remote bots). A remote bot is not asked to be ready: when it
        does not answer, each of its turns gets the host's substitute and a fault."""
        if self._seating is None:
            occupants = [None if spec is None else PlayerSpec.parse(spec) for spec in self.levels]
            self._seating = Seating(self.match, occupants, ready=False, substitute_failures=True)
        return self._seating

    @property
    def version(self) -> int:
        """How many actions the match has taken: the state a message or a hint refers to."""
        return len(self.actions)

    @property
    def status(self) -> str:
        """'playing', 'finished' or 'stopped'."""
        if not self.match.is_over:
            return PLAYING
        return STOPPED if self.match.stopped else FINISHED

    @property
    def can_stop(self) -> bool:
        """Whether the table may end the match now: between deals of an open-ended match."""
        match = self.match
        return (
            match.rules.deals is None
            and not match.deal.actions
            and bool(match.played_deals())
            and not match.is_over
        )

    def view(self) -> dict[str, Any]:
        """The person's view of the table: only what their seat may see."""
        return seat_view(self, self.human)

    def record(self) -> dict[str, Any]:
        """The game record, safe to give out while the match is being played."""
        return record_data(self.seating.result())

    # --- changing the table --------------------------------------------------------------------

    def apply(self, action: Action, decision: Decision | None = None) -> None:
        """Take an action for the seat to act (a computer's ``decision``, or the person's) and
        save it."""
        self.seating.apply(action, decision)
        self._save(encode(action))

    def stop(self) -> None:
        """End an open-ended match between deals, and save it."""
        self.seating.stop()
        self._save(STOP)

    def save_settings(self) -> None:
        """Save the settings with the match."""
        self.store.save_match(self.id, self.actions, self.status, self.settings)

    def _save(self, code: str) -> None:
        self.actions.append(code)
        self.store.save_match(self.id, self.actions, self.status, self.settings)

    # --- the browser tabs ----------------------------------------------------------------------

    async def send(self, message: dict[str, Any], socket: WebSocket | None = None) -> None:
        """Send a message to one tab, or to every tab of the person when ``socket`` is None."""
        text = json.dumps(message)
        for target in [socket] if socket is not None else list(self.sockets):
            with contextlib.suppress(Exception):  # a tab that went away meanwhile
                await target.send_text(text)

    async def broadcast(self) -> None:
        """Send the view to every connected tab of the person."""
        await self.send({"type": "state", "state": self.view()})

    async def tell(self, text: str, kind: str = "error") -> None:
        """Tell every tab something in words (an error, or a notice)."""
        await self.send({"type": kind, "message": text})

    def wake(self) -> None:
        """Let the computer players (and the forced-card autoplay) act if it is their turn."""
        scheduler.wake(self)


class Tables:
    """The live tables of a server, loaded from the store on first use."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.live: dict[str, Table] = {}

    def get(self, match_id: str) -> Table | None:
        """The table of a stored match (rebuilt from its actions), or None."""
        table = self.live.get(match_id)
        if table is None:
            row = self.store.match(match_id)
            if row is None:
                return None
            table = Table(row, self.store)
            self.live[match_id] = table
        return table

    def create(
        self,
        rules: Rules,
        name: str,
        opponents: list[str],
        seed: str | None,
        settings: dict[str, Any],
    ) -> Table:
        """Start a match for a person in seat 0 against three computer players.

        The computer players are built first, so that a spec that cannot work is refused
        (CallbreakError) before anything is stored.
        """
        row: dict[str, Any] = {
            "id": secrets.token_urlsafe(9),
            "rules": str(rules),
            "seed": seed if seed is not None else str(secrets.randbits(48)),
            "names": [name, *COMPUTER_NAMES[:3]],
            "levels": [None, *opponents],
            "human": 0,
            "settings": settings,
            "actions": [],
        }
        table = Table(row, self.store)
        for seat in range(1, 4):
            table.seating.player(seat)
        self.store.add_match(
            row["id"], row["rules"], row["seed"], row["names"], row["levels"], 0, settings
        )
        self.live[table.id] = table
        return table
