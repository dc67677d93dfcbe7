"""The gate in front of heavy work: a few slots think, a bounded queue waits, the rest hear "come back".

Heavy work is anything that runs a shooter or the inference engines. It comes in two lanes: moves
(the computer's shot, "play for me"), which are short and have a fallback, and analysis (the
calculator, the replay's heat maps, the check of new custom rules), which may run up to its own
deadline. Analysis may hold at most ``analysis`` of the ``workers`` slots at once, so two slow
calculations never leave a game without a slot for its next move.

A request holds its slot for all its work (reading the game, thinking, storing the move), so the
slots also bound how much the server's own process works on at once. At most ``queue`` requests wait
for a slot, each for at most ``wait_seconds``; past either bound the request is refused at once with
:class:`Saturated`, which the app answers as 503 with a ``Retry-After``. A request that goes away, or
a server shutting down, stops the wait; a deadline passing does not (the work then answers at
once: a move falls back, a heat map is estimated).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from battleship.stop import DEADLINE, SLICE, Stop

T = TypeVar("T")
MOVE, ANALYSIS = "move", "analysis"


class Saturated(Exception):
    """Every slot is busy and the queue is full (or the wait ran past its bound)."""

    def __init__(self, message: str, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after


class Gate:
    """``workers`` slots for heavy work (at most ``analysis`` of them for analysis), a bounded queue."""

    def __init__(self, workers: int, queue: int, wait_seconds: float, analysis: int | None = None):
        if workers < 1 or queue < 0 or wait_seconds <= 0:
            raise ValueError("a gate needs at least one worker, a queue of 0 or more and a positive wait")
        self.workers, self.queue, self.wait_seconds = workers, queue, wait_seconds
        self.analysis = max(1, workers - 1) if analysis is None else max(1, min(analysis, workers))
        self._slots = threading.BoundedSemaphore(workers)
        self._lanes = {ANALYSIS: threading.BoundedSemaphore(self.analysis)}
        self._lock = threading.Lock()
        self._waiting = 0
        self._seconds = 0.25  # running mean of a heavy job's time, for Retry-After

    def run(self, work: Callable[..., T], *args: object, lane: str = MOVE, stop: Stop | None = None) -> T:
        """Run ``work(*args)`` in this thread once a slot of ``lane`` is free; :class:`Saturated` if none comes."""
        stop = stop or Stop()
        held: list[threading.BoundedSemaphore] = []
        try:
            for semaphore in (self._lanes.get(lane), self._slots):
                if semaphore is not None:
                    self._acquire(semaphore, stop)
                    held.append(semaphore)
            start = time.perf_counter()
            try:
                return work(*args)
            finally:
                with self._lock:  # an exponential mean: recent load matters most
                    self._seconds = 0.9 * self._seconds + 0.1 * (time.perf_counter() - start)
        finally:
            for semaphore in reversed(held):
                semaphore.release()

    def _acquire(self, semaphore: threading.BoundedSemaphore, stop: Stop) -> None:
        """Take ``semaphore`` now, or join the queue (if it has room) and wait within the bounds."""
        if semaphore.acquire(blocking=False):
            return
        with self._lock:
            if self._waiting >= self.queue:
                raise Saturated(
                    f"the server is busy: {self.workers} computations are running and {self._waiting} wait",
                    self._retry_after(),
                )
            self._waiting += 1
        try:
            until = time.monotonic() + self.wait_seconds
            while time.monotonic() < until:
                if stop.requested and int(stop.flag[0]) != DEADLINE:
                    stop.check()  # the request went away, or the server is stopping
                if semaphore.acquire(timeout=min(SLICE, max(0.0, until - time.monotonic()))):
                    return
        finally:
            with self._lock:
                self._waiting -= 1
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
