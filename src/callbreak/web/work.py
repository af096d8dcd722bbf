"""Work that must not hold up the event loop, for anyone who asks: the searches of hints and the
replays of *Your record*, on a small pool of threads shared by the whole process.

The pool takes at most ``threads`` jobs at once and lets ``queue`` more wait; past that a job is
refused at once (:class:`Busy`: HTTP 503, or an error message on a socket) rather than piling up
behind the others. The computers' own turns do not come here: each table has at most one
decision running, the levels a table may seat are bounded (``model.check_level``), and their
searches wait their turn in ``web.searches``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Callable
from typing import TypeVar

from callbreak.refusals import Refusal

__all__ = ["Busy", "Work", "wait"]

T = TypeVar("T")


class Busy(Refusal):
    """The pool's queue is full: the job was not taken."""

    def __init__(self) -> None:
        super().__init__("busy")


class Work:
    """A pool of ``threads`` threads with room for ``queue`` waiting jobs."""

    def __init__(self, threads: int = 2, queue: int = 8) -> None:
        if threads < 1 or queue < 0:
            raise ValueError(f"a pool has 1 thread or more and a queue of 0 or more, not {threads}")
        self.bound = threads + queue
        self._jobs = 0
        self._lock = threading.Lock()
        self._pool = concurrent.futures.ThreadPoolExecutor(threads, thread_name_prefix="search")

    @property
    def jobs(self) -> int:
        """Jobs running or waiting now."""
        return self._jobs

    def submit(self, job: Callable[..., T], *args: object) -> concurrent.futures.Future[T]:
        """Start ``job(*args)`` on the pool; Busy at once when the queue is full. The future
        belongs to no event loop: any number of callers may wait on it (:func:`wait`)."""
        with self._lock:
            if self._jobs >= self.bound:
                raise Busy()
            self._jobs += 1
        try:
            future = self._pool.submit(job, *args)
        except BaseException:
            self._done(None)
            raise
        # Counted until the job itself ends, not until its caller stops waiting: a person who
        # goes away does not free a thread that is still searching.
        future.add_done_callback(self._done)
        return future

    async def run(self, job: Callable[..., T], *args: object) -> T:
        """``job(*args)`` on the pool, awaited; Busy at once when the queue is full."""
        return await wait(self.submit(job, *args))

    def _done(self, _future: object) -> None:
        with self._lock:
            self._jobs -= 1

    def close(self) -> None:
        """Let the threads go once their jobs are done."""
        self._pool.shutdown(wait=False, cancel_futures=True)


async def wait(future: concurrent.futures.Future[T]) -> T:
    """The result of a job of the pool; a caller that stops waiting cancels it for nobody."""
    return await asyncio.shield(asyncio.wrap_future(future))
