"""One process's live copy of a stored match or room: its parts, each the one owner of its job.

A :class:`LiveTable` only composes. Its parts: the state (``web.state``: the match rebuilt from
its actions, the lobby, the version), the hub (``web.hub``: its connections here and what each
is sent), the driver (``web.driver``: the computers, the clock, the cover), the sync
(``web.sync``: every action and lobby change stored, and the others' taken), the listener
(``web.listener``: the events between processes) and the presence (``web.presence``: the
connections that join and part, and the seats this process holds). Callers use the parts; the
parts reach each other through the live table (``web.tasks.Host``). The socket protocol lives
in :mod:`~callbreak.web.messages`; the process's copies in :mod:`~callbreak.web.tables`.
"""

from __future__ import annotations

from callbreak.bots.remote import NO_BOTS, BotAddresses
from callbreak.web.backend import Backend
from callbreak.web.driver import Driver
from callbreak.web.hub import Hub
from callbreak.web.listener import Listener
from callbreak.web.metrics import DETACHED, Metrics
from callbreak.web.model import TableData
from callbreak.web.presence import Presence
from callbreak.web.searches import Searches
from callbreak.web.state import TableState
from callbreak.web.sync import Sync

__all__ = ["LiveTable"]


class LiveTable:
    """One process's live copy of a match or a room: its parts, made and wired together, and
    its two tasks (the listener's and the driver's) started and stopped together. It does
    nothing of its own: each job is its parts'."""

    def __init__(
        self,
        data: TableData,
        backend: Backend,
        bots: BotAddresses = NO_BOTS,
        metrics: Metrics = DETACHED,
        searches: Searches | None = None,
    ) -> None:
        self.backend = backend
        self.metrics = metrics
        """The app's figures (``web.metrics``): actions, their latency, computers' decisions."""
        self.searches = Searches() if searches is None else searches
        """Where the computers' searches run: the process's, shared fairly by its tables."""
        self.client: str | None = None
        """Who the table's searches count against (``web.searches``): the address that created
        it, or for a table this process did not create, its first seated socket's here."""
        self.state = TableState(data, bots)
        self.hub = Hub(self.state)
        self.driver = Driver(self)
        self.sync = Sync(self)
        self.listener = Listener(self)
        self.presence = Presence(self)
        self.used = 0.0
        """When the process's tables last handed this one out or found it in use (their clock)."""

    @property
    def id(self) -> str:
        """The match id, or the room's code."""
        return self.state.id

    def claim(self, client: str) -> None:
        """Count the table's searches against ``client`` unless a client is known already."""
        if self.client is None:
            self.client = client

    def in_use(self) -> bool:
        """Whether anything here depends on this copy now: a socket is connected, the driver or
        the listener runs (a computer's turn, the clock), or an action or a change is being
        stored, or an event the store refused is being told. Such a table is never let go
        of."""
        listening = self.listener.running() or self.listener.telling()
        busy = self.sync.lock.locked() or listening or self.driver.running()
        return busy or bool(self.hub.connections)

    def start(self) -> None:
        """Run the table's listener and driver unless they are running."""
        self.listener.start()
        self.driver.start()

    def stop(self) -> None:
        """Stop the table's tasks: nobody here is connected any more, or the process drains."""
        self.listener.stop()
        self.driver.stop()
