"""Hints for the person at a table: the advisor's ranking of their calls or cards.

A hint is a search of about half a second: :class:`Hints` runs one per decision and seat, on
the process's shared pool (:mod:`~callbreak.web.work`); asking again for the same decision gets
the same answer, without another search.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from typing import Any

from callbreak.cards import Card
from callbreak.game import Observation
from callbreak.players.advisor import advise
from callbreak.web.work import Work, wait

__all__ = ["HINT_SECONDS", "Hints", "hint_message"]

HINT_SECONDS = 0.5
MAX_TABLES = 10_000


class Hints:
    """The hints of a process's tables: one search per table, decision (the table's version)
    and seat, on ``work``."""

    def __init__(self, work: Work) -> None:
        self.work = work
        self._asked: dict[str, tuple[int, dict[int, Future[dict[str, Any]]]]] = {}
        """By table: the version of the latest hints asked, and each seat's search for it."""
        self._lock = threading.Lock()

    async def hint(self, table_id: str, version: int, observation: Observation) -> dict[str, Any]:
        """The ``hint`` message for the seat of ``observation`` on ``version`` of the table:
        searched once; a second ask waits for the first's answer, or gets it again. Busy
        when the pool is full (nothing is kept then: a later ask may search)."""
        with self._lock:  # one search, even for callers on different threads' loops
            future = self._search(table_id, version, observation)
        return await wait(future)

    def _search(
        self, table_id: str, version: int, observation: Observation
    ) -> Future[dict[str, Any]]:
        """The search of this decision's hint: the one started before, or a new one."""
        if table_id not in self._asked and len(self._asked) >= MAX_TABLES:
            # Forget the tables whose hints are all answered rather than grow forever.
            self._asked = {
                key: entry
                for key, entry in self._asked.items()
                if not all(future.done() for future in entry[1].values())
            }
        known, seats = self._asked.get(table_id, (-1, {}))
        if known != version:  # the table moved on: the hints of before are no use to anyone
            seats = {}
            self._asked[table_id] = (version, seats)
        seat = observation.seat
        future = seats.get(seat)
        if future is None or (future.done() and _failed(future)):
            future = self.work.submit(hint_message, observation, version)
            seats[seat] = future
        return future

    def forget(self, table_id: str) -> None:
        """Drop the table's hints (it left the process's memory; a hint asked again is searched
        again)."""
        with self._lock:
            self._asked.pop(table_id, None)


def _failed(future: Future[Any]) -> bool:
    return future.cancelled() or future.exception() is not None


def hint_message(observation: Observation, version: int) -> dict[str, Any]:
    """The ``hint`` message for the seat of ``observation`` (blocking: the advisor searches).

    ``version`` says which decision the hint is for: by the time it arrives the person may
    have moved on.
    """
    advice = advise(observation, time=HINT_SECONDS, seed=version)
    options = [
        {
            # A card is an int too: test for the card first, so that it is sent as "AD".
            "action": str(option.action) if isinstance(option.action, Card) else option.action,
            "value": None if option.value is None else round(option.value, 2),
            "tricks": None if option.expected_tricks is None else round(option.expected_tricks, 2),
        }
        for option in advice.options
    ]
    return {
        "type": "hint",
        "kind": advice.kind,
        "summary": advice.summary(),
        "options": options,
        "version": version,
    }
