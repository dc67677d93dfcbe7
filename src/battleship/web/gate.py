"""The gate in front of heavy work: a few threads think, a bounded queue waits, the rest hear "come back".

Heavy work is anything that runs a shooter or the inference engines: the computer's moves, "play for
me", the calculator and the replay's heat maps. It runs on ``workers`` slots (one per core by
default: more threads only share the same cores). At most ``queue`` requests wait for a slot, each
for at most ``wait_seconds``; past either bound the request is refused at once with
:class:`Saturated`, which the app answers as 503 with a ``Retry-After``. So no request queues
behind heavy work without bound, and a saturated server says so instead of going silent.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class Saturated(Exception):
    """Every slot is busy and the queue is full (or the wait ran past its deadline)."""

    def __init__(self, message: str, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after


class Gate:
    """``workers`` slots for heavy work, a queue of at most ``queue`` waiting at most ``wait_seconds``."""

    def __init__(self, workers: int, queue: int, wait_seconds: float):
        if workers < 1 or queue < 0 or wait_seconds <= 0:
            raise ValueError("a gate needs at least one worker, a queue of 0 or more and a positive wait")
        self.workers, self.queue, self.wait_seconds = workers, queue, wait_seconds
        self._slots = threading.BoundedSemaphore(workers)
        self._lock = threading.Lock()
        self._waiting = 0
        self._seconds = 0.25  # running mean of a heavy job's time, for Retry-After

    def run(self, work: Callable[..., T], *args: object) -> T:
        """Run ``work(*args)`` in this (worker) thread once a slot is free; :class:`Saturated` if none comes."""
        if not self._slots.acquire(blocking=False):
            self._wait_for_slot()
        start = time.perf_counter()
        try:
            return work(*args)
        finally:
            self._slots.release()
            with self._lock:  # an exponential mean: recent load matters most
                self._seconds = 0.9 * self._seconds + 0.1 * (time.perf_counter() - start)

    def _wait_for_slot(self) -> None:
        """Join the queue (if it has room) and wait for a slot until the deadline."""
        with self._lock:
            if self._waiting >= self.queue:
                raise Saturated(
                    f"the server is busy: {self.workers} moves are being computed and {self._waiting} wait",
                    self._retry_after(),
                )
            self._waiting += 1
        try:
            got = self._slots.acquire(timeout=self.wait_seconds)
        finally:
            with self._lock:
                self._waiting -= 1
        if not got:
            raise Saturated(
                f"the server is busy: no slot came free within {self.wait_seconds:g} s", self._retry_after()
            )

    def _retry_after(self) -> int:
        """Whole seconds until the queue now waiting has likely drained (1 to 30)."""
        drain = (self._waiting + self.workers) * self._seconds / self.workers
        return max(1, min(30, math.ceil(drain)))

    @property
    def waiting(self) -> int:
        """Requests waiting for a slot now."""
        return self._waiting
