"""Which seats of a room this process holds: the count of each seat's connections here, which
the store keeps for every process, and the seats someone holds anywhere read back.

In a room, people's presence matters (the cover plays for a person who is away while others
wait): each process says in the store how many connections it holds for each seat
(``Backend.set_presence``), again whenever they change and every few seconds (the table's
listener), and reads back the seats someone holds anywhere (``TableState.present``). Only the
table's owner (``web.live.LiveTable``) calls it.
"""

from __future__ import annotations

from collections.abc import Iterable

from callbreak.web.backend import OWNER, Backend
from callbreak.web.hub import Hub
from callbreak.web.state import TableState

__all__ = ["Presence"]


class Presence:
    """The seats of one room this process tells the store it holds."""

    def __init__(self, state: TableState, hub: Hub, backend: Backend) -> None:
        self.state, self.hub, self.backend = state, hub, backend

    async def count(self, seats: Iterable[int | None]) -> bool:
        """Say how many connections here hold each of ``seats`` and read back who is present
        anywhere; whether there was anything to count (a room's seat)."""
        counted = sorted({seat for seat in seats if seat is not None})
        if not counted or not self.state.is_room:
            return False
        for seat in counted:
            await self.backend.set_presence(self.state.id, seat, OWNER, self.hub.held(seat))
        self.state.present = await self.backend.presence(self.state.id)
        return True

    async def refresh(self) -> None:
        """Say again which seats this process holds (a shared backend forgets after a while),
        and read back who is present anywhere."""
        for seat in self.hub.seats():
            await self.backend.set_presence(self.state.id, seat, OWNER, self.hub.held(seat))
        self.state.present = await self.backend.presence(self.state.id)
