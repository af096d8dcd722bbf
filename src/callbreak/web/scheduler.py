"""The computer players' turns at a browser table, at a pace a person can follow.

One task per table runs while computers are to act: it asks the seat's player for its decision
(in a worker thread, through the seating's step), waits out the table's speed, and applies the
decision unless the table moved on meanwhile. It stops at the person's turn, except to play a
forced card for them when they asked for that.
"""

from __future__ import annotations

import asyncio
import traceback
from typing import TYPE_CHECKING

from starlette.concurrency import run_in_threadpool

from callbreak.cards import parse_card
from callbreak.game import Play
from callbreak.players.base import CALL, FAILED, Fault

if TYPE_CHECKING:
    from callbreak.web.tables import Table

__all__ = ["SPEEDS", "TRICK_PAUSE", "wake"]

#: Seconds between two computer cards at each speed; a finished trick stays up a little longer.
SPEEDS = {"slow": 1.6, "normal": 0.9, "fast": 0.35, "instant": 0.0}
TRICK_PAUSE = 1.6


def wake(table: Table) -> None:
    """Start the table's turns task unless it is running."""
    if table.runner is None or table.runner.done():
        table.runner = asyncio.get_running_loop().create_task(_run(table))
        table.runner.add_done_callback(_report_failure)


async def _run(table: Table) -> None:
    # Every await lets the person act in between, so after each one the task checks that the
    # table is where it was before acting on it.
    loop = asyncio.get_running_loop()
    while not table.match.is_over:
        match = table.match
        deal = match.deal
        seat = deal.turn
        assert seat is not None
        delay = SPEEDS[table.settings.get("speed", "normal")]
        if not deal.trick.cards and (deal.tricks or _fresh_deal(table)):
            delay *= TRICK_PAUSE  # let the finished trick be seen
        if table.seating.occupant(seat) is None:  # a person's seat
            legal = deal.legal_cards()
            if not (table.settings.get("auto_forced") and len(legal) == 1):
                return  # wait for the person
            await asyncio.sleep(delay)
            if match.deal is deal and deal.turn == seat and deal.legal_cards() == legal:
                table.apply(Play(next(iter(legal))))
                await table.broadcast()
            continue
        version = table.version
        try:
            await run_in_threadpool(table.seating.player, seat)
        except Exception as problem:  # a spec that cannot be built: nothing can move on
            await table.tell(f"cannot seat {table.names[seat]}: {problem}")
            return
        if table.version != version:
            continue
        table.thinking = seat
        await table.broadcast()
        started = loop.time()
        decision = await run_in_threadpool(table.seating.decide, match.observation(seat))
        for fault in decision.faults:
            await table.tell(*_fault_message(table.names[seat], fault))
        elapsed = loop.time() - started
        if delay > elapsed:
            await asyncio.sleep(delay - elapsed)
        table.thinking = None
        if table.version != version or match.is_over:
            continue  # the match moved on meanwhile (the person ended it)
        table.apply(decision.action, decision)
        await table.broadcast()


def _fresh_deal(table: Table) -> bool:
    """Whether no card of the current deal is played yet, after an earlier deal."""
    return len(table.match.deals) > 1 and not table.match.deal.tricks


def _fault_message(name: str, fault: Fault) -> tuple[str, str]:
    """What the person is told of a fault, and whether it is an error or a notice."""
    if fault.fault == FAILED:  # a player of ours failed: a bug, shown as an error
        return f"{name} failed ({fault.detail}); a legal move was made for it", "error"
    instead = (
        f"a call of {fault.substitute} was made"
        if fault.action == CALL
        else f"the {parse_card(fault.substitute).pretty()} was played"
    )
    return f"{name}'s bot: {fault.fault} ({fault.detail}); {instead} for it", "notice"


def _report_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        traceback.print_exception(task.exception())
