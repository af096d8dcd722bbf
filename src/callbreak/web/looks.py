"""Each process's look at the tables it serves on a shared store, all at once, every
:data:`LOOK_SECONDS`.

A process that serves a table on Redis must say every few seconds which seats it holds
connections for (a process that died stops saying so, and its people count as away), keep
the lease of the tables it drives, and notice a change whose event pub/sub dropped. It used to
do so table by table, several round trips each, every four seconds: at 1,000 rooms on two
processes, 500 looks a second against about 110 actions. Now one task per process
(:func:`look`) asks the backend about every table served here in one round trip
(:meth:`~callbreak.web.backend.Backend.look`), and each table (``LiveTable.looked``) takes a
letter only for what differs from its copy: a version behind (caught up from the store), who
is present anywhere, a lease found free. Only a shared store is looked at: one process's
SQLite is written by nobody else.
"""

from __future__ import annotations

import asyncio

from callbreak.web.backend import OWNER
from callbreak.web.http import LOG
from callbreak.web.tables import Tables
from callbreak.web.tasks import LEASE_SECONDS

__all__ = ["LOOK_SECONDS", "look", "look_once"]

LOOK_SECONDS = LEASE_SECONDS / 4
"""Seconds between two looks: within a table's own renewal of its lease (``live.RENEW``, a
third of it), so that the look renews it first and the table need not; a person's connection
is said again well within ``redis_backend.PRESENCE_SECONDS``."""
BATCH = 250
"""Tables asked about in one round trip at most, so that a look at thousands of tables lets
the event loop serve the sockets between its parts."""


async def look_once(tables: Tables) -> int:
    """Look at every table with a connection here, once; how many were looked at."""
    served = [table for table in tables.live.values() if table.hub.connections]
    loop = asyncio.get_running_loop()
    for start in range(0, len(served), BATCH):
        batch = served[start : start + BATCH]
        held = [(table.id, table.hub.counts()) for table in batch]
        at = loop.time()
        found = await tables.backend.look(held, OWNER, LEASE_SECONDS)
        for table, (_, seats), seen in zip(batch, held, found, strict=True):
            table.looked(seen, seats, at)
    return len(served)


async def look(tables: Tables, every: float = LOOK_SECONDS) -> None:
    """Look at the tables served here every ``every`` seconds for as long as the server runs;
    a store out of reach is said once, and looked at again next time."""
    failing = False
    while True:
        await asyncio.sleep(every)
        try:
            await look_once(tables)
        except tables.backend.failures as error:
            if not failing:
                LOG.warning("could not look at the tables served here: %r", error)
            failing = True
            continue
        except Exception:  # a bug: the log says so, and the next look tries again
            LOG.exception("could not look at the tables served here")
            continue
        if failing:
            LOG.warning("the tables served here are looked at again")
        failing = False
