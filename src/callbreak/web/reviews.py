"""The reviews the browser asks for: :func:`callbreak.review.review` of one seat of a finished
match or room, run in separate low-priority processes, one job per table and seat, queued and
bounded, and kept once made.

A review is CPU-bound (numba) work of seconds to a minute: on the event loop it would stop every
table, and on the threads of ``web.work`` it would hold the interpreter that the hints and the
tables share. So it runs in a small pool of its own processes (``processes``, ``callbreak serve
--reviews``), each at a lower priority than the server (``os.nice``), so that the tables being
played always come first. At most ``processes + queue`` jobs run or wait; past that a request is
refused at once (``review_busy``). A second request for a table and seat whose review is running
or waiting joins that job. A finished review is kept in this process's memory (the newest
``kept``, keyed by table and seat): asking again reads it, nothing is reviewed twice. Progress
(decisions reviewed of all) comes back through a small array of shared memory, one slot per job.

Who may ask, and for which seat, is the app's to check (``web.app``, ``web.rooms``): only a
finished table is reviewed, with hindsight, for the seat whose token the request carries.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import dataclasses
import multiprocessing
import os
import threading
from collections.abc import Callable
from typing import Any

from callbreak.game import Call, Deal, Play
from callbreak.record import check, from_data
from callbreak.refusals import Refusal
from callbreak.review import DEFAULT_TIME, review

__all__ = ["DECISIONS", "KEPT", "NICE", "Reviews", "decisions", "moments", "run", "tell"]

KEPT = 256
"""Finished reviews kept in memory (one is some tens of kilobytes of JSON)."""
NICE = 10
"""How much lower the review processes' priority is than the server's."""
DECISIONS = 150
"""The most decisions (a seat's calls and cards) one review takes: about ten deals, some 40 s of
one process at 0.3 s of search each (docs/review.md). A longer match is refused at once
(``review_long``): a 30-deal match would hold a process for minutes, a 1,000-deal one for hours,
while every other review waits behind it."""
PER_DEAL = 14
"""A seat's decisions in a played deal: its call and its 13 cards."""

Key = tuple[str, int]
"""A table (its id, or ``room:CODE``, with its creation time) and the seat reviewed."""
Job = Callable[[dict[str, Any], int, float, int], dict[str, Any]]
"""What runs in a worker: (record data, seat, time per decision, progress slot) -> the review."""

_FAILED: dict[str, Any] = {}
"""Kept for a review that could not be made (told once, then forgotten)."""
_slots: Any = None  # this worker's view of the progress array (set by _start)


def _start(slots: Any) -> None:
    """A worker's first step: the progress array, and a lower priority than the tables'."""
    global _slots
    _slots = slots
    # Not allowed here (or no such call): the pool's small size still bounds the reviews.
    with contextlib.suppress(OSError, AttributeError):
        os.nice(NICE)


def tell(slot: int, done: int, total: int) -> None:
    """In a worker: ``done`` decisions of ``total`` reviewed in the job of ``slot``."""
    _slots[2 * slot] = done
    _slots[2 * slot + 1] = total


def run(data: dict[str, Any], seat: int, time: float, slot: int) -> dict[str, Any]:
    """In a worker: the review of ``seat`` in the record ``data`` (JSON, as the app writes it),
    with hindsight, each decision with the moment the replay shows it at (:func:`moments`)."""
    record = from_data(data)
    at = moments(data, seat)
    # Told before the first decision is weighed: from here the job is running (0 of N), no
    # longer waiting for a process, however long the search takes to load.
    tell(slot, 0, max(len(at), 1))
    result = review(
        record, seat, time=time, hindsight=True, progress=lambda d, n: tell(slot, d, n)
    ).to_json()
    if len(at) == len(result["decisions"]):  # the same walk as the review's: always equal
        for decision, moment in zip(result["decisions"], at, strict=True):
            decision["at"] = moment
    return result


def decisions(data: dict[str, Any], seat: int) -> int:
    """How many decisions of ``seat`` the record ``data`` holds: its calls, and a card in each
    whole trick. Read from the JSON without replaying it, so that a request for a long match
    is refused (:data:`DECISIONS`) at the cost of a count, on the loop."""
    count = 0
    for deal in data.get("deals", []):
        calls = deal.get("calls") or []
        count += int(len(calls) > seat and calls[seat] is not None)
        count += sum(1 for trick in deal.get("tricks") or [] if len(trick) == 4)
    return count


def moments(data: dict[str, Any], seat: int) -> list[dict[str, int] | None]:
    """For each call and card of ``seat`` in the record ``data``, in the review's order, where
    the replay shows it: ``{"deal": D, "step": S}`` with D the deal among those the replay
    shows (from 1; thrown-in deals are not shown) and S the cards shown then (0 for a call,
    the card itself included for a card); None in a deal the replay does not show."""
    record = from_data(data)
    found: list[dict[str, int] | None] = []
    shown = 0
    for written, judged in zip(record.deals, check(record).deals, strict=False):
        thrown_in = written.thrown_in is not None
        if not thrown_in:
            shown += 1
        deal = Deal(judged.hands, judged.dealer, judged.rules)
        cards = 0
        for action in judged.actions:
            if isinstance(action, Play):
                cards += 1
            if deal.turn == seat and isinstance(action, Call | Play):
                found.append(None if thrown_in else {"deal": shown, "step": cards})
            deal.apply(action)
    return found


@dataclasses.dataclass
class _Running:
    slot: int
    future: concurrent.futures.Future[dict[str, Any]]


class Reviews:
    """The process's reviews: ``processes`` at once, ``queue`` more waiting, ``time`` seconds of
    search per decision, at most ``longest`` decisions a review (:data:`DECISIONS`). ``pool`` and
    ``job`` stand in for the process pool and :func:`run` (tests give a pool of threads and a
    job they can hold and count)."""

    def __init__(
        self,
        processes: int = 1,
        queue: int = 2,
        time: float = DEFAULT_TIME,
        *,
        kept: int = KEPT,
        longest: int = DECISIONS,
        pool: concurrent.futures.Executor | None = None,
        job: Job = run,
    ) -> None:
        if processes < 1 or queue < 0:
            raise ValueError(
                f"reviews need 1 process or more and a queue of 0 or more, not {processes}"
            )
        self.processes, self.time, self.bound = processes, time, processes + queue
        self.longest = longest
        self._context = multiprocessing.get_context("spawn")  # no copy of the server's threads
        # Without a lock: each slot has one writer (its job's worker), and a count read while it
        # changes is at worst a decision behind.
        self._slots: Any = self._context.RawArray("q", 2 * self.bound)
        self._free = list(range(self.bound))
        self.started = 0
        """Reviews started since the app began (a join or a kept review starts none)."""
        self._running: dict[Key, _Running] = {}
        self._kept: collections.OrderedDict[Key, dict[str, Any]] = collections.OrderedDict()
        self._most = kept
        self._lock = threading.Lock()
        self._job = job
        self._pool = pool
        self._given = pool is not None
        if self._given:
            _start_here(self._slots)

    @property
    def jobs(self) -> int:
        """Reviews running or waiting now."""
        return len(self._running)

    def start(self, key: Key, data: dict[str, Any], seat: int) -> dict[str, Any]:
        """The review of ``key`` as :meth:`status` says it, started on the record ``data`` if
        it was neither kept nor running (a failed one is started again); ``review_long`` for a
        record of more than ``longest`` decisions of the seat, ``review_busy`` when the bound is
        reached."""
        with self._lock:
            if self._kept.get(key) is _FAILED:
                del self._kept[key]  # asked again: made again
            if key in self._kept or key in self._running:
                return self._status(key)
            count = decisions(data, seat)
            if count > self.longest:
                raise Refusal(
                    "review_long", decisions=count, max=self.longest, deals=self.longest // PER_DEAL
                )
            if not self._free:
                raise Refusal("review_busy")
            slot = self._free.pop()
            self._slots[2 * slot] = self._slots[2 * slot + 1] = 0
            try:
                try:
                    future = self._executor().submit(self._job, data, seat, self.time, slot)
                except concurrent.futures.BrokenExecutor:
                    if self._given:
                        raise
                    self._pool = None  # a worker died since: a new pool, once
                    future = self._executor().submit(self._job, data, seat, self.time, slot)
            except BaseException:
                self._free.append(slot)
                raise
            self._running[key] = _Running(slot, future)
            self.started += 1
        future.add_done_callback(lambda done: self._finished(key, slot, done))
        return self.status(key)

    def status(self, key: Key) -> dict[str, Any]:
        """``{"state": "none"}``; ``"waiting"`` with its ``place`` among the reviews waiting
        for a process (1: next); ``"running"`` with ``done`` and ``total`` (decisions); or
        ``"done"`` with the ``review``; ``review_failed`` for a review that could not be made
        (said once)."""
        with self._lock:
            return self._status(key)

    def _status(self, key: Key) -> dict[str, Any]:
        if key in self._kept:
            self._kept.move_to_end(key)
            answer = self._kept[key]
            if answer is _FAILED:
                del self._kept[key]
                raise Refusal("review_failed")
            return {"state": "done", "review": answer}
        running = self._running.get(key)
        if running is None:
            return {"state": "none"}
        done, total = self._slots[2 * running.slot], self._slots[2 * running.slot + 1]
        if total:
            return {"state": "running", "done": done, "total": total}
        # Waiting until its worker says how many decisions it has begun on: a process pool
        # calls a job running as soon as it is handed on to a worker's queue, which may be
        # minutes before the worker takes it up. Its place: the jobs asked for before it that
        # are waiting too (the pool takes them in the order asked).
        place = 1
        for other in self._running.values():
            if other is running:
                break
            place += not self._slots[2 * other.slot + 1]
        return {"state": "waiting", "place": place, "done": 0, "total": 0}

    def _finished(self, key: Key, slot: int, future: concurrent.futures.Future[Any]) -> None:
        failed = future.cancelled() or future.exception() is not None
        with self._lock:
            del self._running[key]
            self._free.append(slot)
            if failed:
                error = None if future.cancelled() else future.exception()
                if isinstance(error, concurrent.futures.BrokenExecutor) and not self._given:
                    self._pool = None  # a worker died: the next review starts a new pool
                self._kept[key] = _FAILED
            else:
                self._kept[key] = future.result()
            self._kept.move_to_end(key)
            while len(self._kept) > self._most:
                self._kept.popitem(last=False)

    def _executor(self) -> concurrent.futures.Executor:
        if self._pool is None:
            self._pool = concurrent.futures.ProcessPoolExecutor(
                self.processes,
                mp_context=self._context,
                initializer=_start,
                initargs=(self._slots,),
            )
        return self._pool

    def close(self) -> None:
        """Stop: the reviews waiting are dropped and the running ones end with their workers
        (a review is made again when asked; a shutdown must not wait a minute for one)."""
        pool = self._pool
        if pool is None:
            return
        if not self._running:  # idle workers leave at once, their queues closed in order
            pool.shutdown(wait=True)
            return
        # No public way to stop a process pool's busy workers before Python 3.14's
        # terminate_workers(): its own table of them.
        processes = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()


def _start_here(slots: Any) -> None:
    """A pool of this process's threads (tests) writes the progress where this process reads."""
    global _slots
    _slots = slots
