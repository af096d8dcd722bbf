"""Who moves a table on when no person clicks: computers, the turn clock, and the cover.

While a process has connections to a table it runs two tasks for it. The *listener* hears the
table's events from other processes (actions, lobby changes, who is connected) and shows them
here. The *driver* runs where the backend's lease is held (one process per table): it asks a
computer seat's player for its decision at a pace a person can follow; at a person's turn it
plays the forced card when they asked for that, and in a room it lets the cover (a computer of
the room's level) decide for a person whose clock ran out, or who is away while others wait.
Every decision goes through :meth:`Table.act` on the version it was made on, so a person who
comes back and plays first simply wins the race.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from starlette.concurrency import run_in_threadpool

from callbreak.cards import parse_card
from callbreak.errors import CallbreakError
from callbreak.game import Observation, Play
from callbreak.players import Player
from callbreak.players.base import (
    AWAY,
    CALL,
    FAILED,
    ILLEGAL,
    LATE,
    MALFORMED,
    PREPARING,
    SILENT,
    TIMEOUT,
    Fault,
    written,
)
from callbreak.seating import Decision
from callbreak.warmup import STAND_IN, ready
from callbreak.web.accesslog import room_event
from callbreak.web.backend import OWNER
from callbreak.web.http import LOG
from callbreak.web.model import (
    COMPUTER,
    PERSON,
    PLAYING,
    SPEEDS,
    SUMMARY_SECONDS,
    StaleAction,
)

if TYPE_CHECKING:
    from callbreak.web.tables import Table

__all__ = ["TRICK_PAUSE", "start", "stop"]

T = TypeVar("T")
TRICK_PAUSE = 1.6
LEASE_SECONDS = 9.0
"""How long a driver's lease lasts unless renewed (renewed every third of it)."""
AWAY_GRACE = 4.0
"""Seconds a person may be gone (a reload, a network change) before the cover plays for them."""
PRESENCE_REFRESH = 4.0


def start(table: Table) -> None:
    """Run the table's listener and driver unless they are running."""
    if table.listener is None or table.listener.done():
        table.listener = _spawn(_listen(table))
    if table.driver is None or table.driver.done():
        table.driver = _spawn(_drive(table))


def stop(table: Table) -> None:
    """Stop the table's tasks: nobody here is connected any more."""
    for task in (table.listener, table.driver):
        if task is not None:
            task.cancel()
    table.listener = table.driver = None


def _spawn(work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
    task = asyncio.get_running_loop().create_task(work)
    task.add_done_callback(_report_failure)
    return task


async def _listen(table: Table) -> None:
    while True:
        try:
            await _hear(table)
        except table.backend.failures:  # the store out of reach as the listening started
            LOG.warning("table %s could not listen: the store does not answer", table.id)
            await until_store_answers(table)


async def _hear(table: Table) -> None:
    loop = asyncio.get_running_loop()
    refreshed = loop.time()
    async with table.backend.events(table.id) as events:
        while True:
            event = await _within(events.get(), PRESENCE_REFRESH)
            if loop.time() - refreshed >= PRESENCE_REFRESH:
                # However busy the table, this process says again which seats it holds, and
                # reads the table again: pub/sub may have dropped a message.
                refreshed = loop.time()
                try:
                    await table.refresh_presence()
                    await table.catch_up()
                except Exception:  # the shared store out of reach: tried again next time
                    LOG.exception("table %s could not refresh", table.id)
                if table.driver is None or table.driver.done():
                    # A driver stopped by a failure (the shared store out of reach for a
                    # moment) starts again rather than leaving the table stuck.
                    table.driver = _spawn(_drive(table))
            if event is None or event.get("origin") == OWNER:
                continue
            try:
                if event.get("type") in ("action", "lobby"):
                    await table.catch_up()  # read from the store, not from the message
                else:
                    await table.hear(event)
            except table.backend.failures:  # read again at the next refresh
                LOG.warning("table %s could not catch up: the store does not answer", table.id)


async def _wait(table: Table, seconds: float) -> None:
    """Until the table changes, or ``seconds`` pass."""
    await _within(table.changed.wait(), max(seconds, 0.0))


async def _within(work: Coroutine[Any, Any, T], seconds: float) -> T | None:
    """``work``'s result, or None when ``seconds`` pass first.

    Not ``asyncio.wait_for``: on Python 3.11 it swallows a cancellation that arrives as its
    work completes (the last socket leaving publishes an event to the listener just before
    stopping it), and the table's task then ran for ever, holding the table in memory and,
    for a driver, running beside the next one."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            return await work
    return None


async def until_store_answers(table: Table) -> None:
    """Return as soon as the store answers again (asked a few times a second), or once nobody
    is connected to the table here."""
    pause = 0.1
    while table.connections:
        try:
            await table.backend.ping()
            return
        except table.backend.failures:
            await asyncio.sleep(pause)
            pause = min(2 * pause, 1.0)


async def _drive(table: Table) -> None:
    loop = asyncio.get_running_loop()
    leased_at = -LEASE_SECONDS
    while table.connections:
        try:
            leased_at = await _step(table, loop, leased_at)
        except StaleAction:
            continue  # a person (or another process) moved first: look again
        except table.backend.failures:
            # The store out of reach past its retries: the table goes on as soon as it
            # answers (leased and read again first), not when a clock runs out.
            LOG.warning("table %s waits for the store to answer", table.id)
            await until_store_answers(table)
            leased_at = -LEASE_SECONDS


async def _step(table: Table, loop: asyncio.AbstractEventLoop, leased_at: float) -> float:
    """One decision of the driver, or a wait for one; when the lease was last taken."""
    renew = LEASE_SECONDS / 3
    table.changed.clear()
    if loop.time() - leased_at >= renew:  # renewed a few times a lease, not every turn
        if not await table.backend.lease(table.id, OWNER, LEASE_SECONDS):
            await _wait(table, renew)
            return leased_at
        leased_at = loop.time()
        await table.catch_up()  # just leased: this copy may be behind the last holder's
    match, data = table.match, table.data
    if data.status != PLAYING or match.is_over:
        await _wait(table, renew)
        return leased_at
    deal = match.deal
    seat = deal.turn
    assert seat is not None
    version = table.version
    delay = SPEEDS[table.settings.get("speed") or "normal"]
    if not deal.trick.cards and (deal.tricks or (len(match.deals) > 1 and not deal.tricks)):
        delay *= TRICK_PAUSE  # let the finished trick be seen
    computer = data.seats[seat].kind == COMPUTER
    reason, wait = (None, 0.0) if computer else await _cover_reason(table, seat)
    if computer or reason is not None:
        # A computer does not start the next deal under a summary people still read.
        summary = _summary_wait(table, loop)
        if summary > 0:
            await _wait(table, min(summary, renew))
            return leased_at
    if computer:
        await _computer(table, seat, version, delay, loop)
    elif reason is not None:
        await _cover(table, seat, version, reason, delay, loop)
    elif table.settings.get("auto_forced") and len(legal := deal.legal_cards()) == 1:
        await asyncio.sleep(delay)
        if table.version == version:
            await table.act(seat, Play(next(iter(legal))), version)
    else:
        await _wait(table, min(wait, renew))
    return leased_at


def _summary_wait(table: Table, loop: asyncio.AbstractEventLoop) -> float:
    """Seconds the next deal's first decision waits for the people at the table to close the
    last deal's summary (0: nobody is looking at one, or they have had long enough)."""
    if not table.waiting_on_summary():
        return 0.0
    since = table.summary_since.setdefault(table.version, loop.time())
    table.summary_since = {table.version: since}
    return max(0.0, SUMMARY_SECONDS - (loop.time() - since))


async def _computer(
    table: Table, seat: int, version: int, delay: float, loop: asyncio.AbstractEventLoop
) -> None:
    try:
        player = await run_in_threadpool(table.seating.player, seat)
    except Exception as problem:  # a spec that cannot be built: nothing can move on
        if isinstance(problem, CallbreakError):  # our own errors are written for people
            why = str(problem)
        else:  # any other is for the log only
            LOG.exception("table %s could not seat %s", table.id, seat)
            why = "the server could not start that player"
        await table.tell(f"cannot seat {table.names[seat]}: {why}")
        await _wait(table, LEASE_SECONDS)
        return
    if table.version != version:
        return
    started = loop.time()
    observation = table.match.observation(seat)
    prepared = await run_in_threadpool(ready, observation, player)
    if table.version != version:
        return
    await table.notify({"type": "thinking", "seat": seat, "preparing": not prepared})
    if prepared:
        decision = await run_in_threadpool(table.seating.decide, observation)
        table.metrics.decided(table.levels[seat], decision.seconds)
    else:  # a first start still compiles this player's search: the stand-in decides
        stand_in = await run_in_threadpool(table.stand_in, seat)
        detail = f"its search was still being prepared; the {STAND_IN} level decided"
        decision, stood_in = await _helped(table, stand_in, observation, PREPARING, detail)
        decision = dataclasses.replace(decision, faults=(*decision.faults, stood_in))
        table.metrics.stand_ins.inc()
        table.metrics.decided(STAND_IN, decision.seconds)
    faults = [_public(fault) for fault in decision.faults]
    for fault in faults:
        if fault.fault != PREPARING:  # the page's status says that the search is being prepared
            message, kind = _fault_message(table.names[seat], fault)
            await _announce(table, message, kind, fault)
    await _pace(delay, started, loop)
    if table.version != version:
        table.thinking = None  # the table moved on meanwhile (the person ended the match)
        return
    await table.act(seat, decision.action, version, [f.to_json() for f in faults])


async def _cover_reason(table: Table, seat: int) -> tuple[str | None, float]:
    """Why the cover should play for the person in ``seat`` now (``AWAY``, ``TIMEOUT`` or
    None), and otherwise how long until it may have to."""
    if not table.is_room:
        return None, LEASE_SECONDS
    data = table.data
    person = data.seats[seat]
    present = table.present  # kept fresh by presence events and the listener's refresh
    now = time.time()
    if person.left or seat not in present:
        waiting = any(
            info.kind == PERSON and not info.left and other in present
            for other, info in enumerate(data.seats)
        )
        if not waiting:
            return None, LEASE_SECONDS  # nobody is at the table: nobody waits
        since = table.away_since.setdefault(seat, now)
        if person.left or now - since >= AWAY_GRACE:
            return AWAY, 0.0
        return None, AWAY_GRACE - (now - since)
    table.away_since.pop(seat, None)
    if data.deadline is not None:
        if now >= data.deadline:
            return TIMEOUT, 0.0
        return None, data.deadline - now
    return None, LEASE_SECONDS


async def _cover(
    table: Table,
    seat: int,
    version: int,
    reason: str,
    delay: float,
    loop: asyncio.AbstractEventLoop,
) -> None:
    """Let the room's cover decide for the person in ``seat``, marked as a fault of the seat."""
    player = await run_in_threadpool(table.cover, seat)
    started = loop.time()
    observation = table.match.observation(seat)
    if not await run_in_threadpool(ready, observation, player):  # a searching cover, compiling
        player = await run_in_threadpool(table.stand_in, seat)
        table.metrics.stand_ins.inc()
    detail = "the turn clock ran out" if reason == TIMEOUT else "not at the table"
    decision, fault = await _helped(table, player, observation, reason, detail)
    action = decision.action
    await _pace(delay, started, loop)
    if table.version != version:
        return
    await table.act(seat, action, version, [fault.to_json()])
    table.metrics.covers.labels(reason).inc()
    room_event(table.id, "covered", seat=seat, reason=reason)
    cover = {"seat": seat, "reason": reason, "kind": fault.action, "action": fault.substitute}
    await table.notify(
        {
            "type": "notice",
            "message": f"{table.names[seat]}: {detail}, so the computer made {_what(fault)}",
            "cover": cover,
        }
    )


async def _helped(
    table: Table, helper: Player, observation: Observation, reason: str, detail: str
) -> tuple[Decision, Fault]:
    """The decision of ``helper`` (the cover, the stand-in) seated for this one decision in the
    seat of ``observation``, whose own occupant gets the seat back after; and the fault that
    says so in the record."""
    seat, seating = observation.seat, table.seating  # the same seating before and after
    previous = seating.sit(seat, helper)
    try:
        decision: Decision = await run_in_threadpool(seating.decide, observation)
    finally:
        seating.sit(seat, previous)
    kind, shown = written(decision.action)
    return decision, Fault(seat, kind, reason, detail, shown)


async def _pace(delay: float, started: float, loop: asyncio.AbstractEventLoop) -> None:
    elapsed = loop.time() - started
    if delay > elapsed:
        await asyncio.sleep(delay - elapsed)


async def _announce(table: Table, message: str, kind: str, fault: Fault) -> None:
    if kind == "notice":
        await table.notify({"type": "notice", "message": message, "fault": fault.to_json()})
    else:
        await table.tell(message, kind)


BOT_FAULTS = {
    LATE: "no answer in time",
    SILENT: "no connection",
    MALFORMED: "an answer outside the protocol",
    ILLEGAL: "an illegal {what}",
}
"""What a room or a match says of a remote bot's fault, by kind: nothing of what it answered
or of why a connection failed (the server called an address a stranger may have chosen)."""


def _public(fault: Fault) -> Fault:
    """A remote bot's fault with only its kind in words; any other fault as it is."""
    words = BOT_FAULTS.get(fault.fault)
    if words is None:
        return fault
    what = "call" if fault.action == CALL else "card"
    return dataclasses.replace(fault, detail=words.format(what=what))


def _fault_message(name: str, fault: Fault) -> tuple[str, str]:
    """What people are told of a computer's fault, and whether it is an error or a notice."""
    if fault.fault == FAILED:  # a player of ours failed: a bug, in the log (seating), not shown
        return f"{name} failed; a legal move was made for it", "error"
    done = "made" if fault.action == CALL else "played"
    return (
        f"{name}'s bot: {fault.fault} ({fault.detail}); {_what(fault)} was {done} for it",
        "notice",
    )


def _what(fault: Fault) -> str:
    """What the host played for a seat, in words (the English of a notice)."""
    if fault.action != CALL:
        return f"the {parse_card(fault.substitute).pretty()}"
    return (
        "a claim for a new deal"
        if fault.substitute == "redeal"
        else f"a call of {fault.substitute}"
    )


def _report_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        LOG.error("a table's task failed", exc_info=task.exception())
