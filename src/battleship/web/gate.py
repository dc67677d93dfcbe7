"""The gate in front of heavy work: a few slots think, a bounded queue waits, the rest hear "come back".

Heavy work is anything that runs a shooter or the inference engines. It comes in three lanes: moves
(the computer's shot, "play for me"), which are short and have a fallback; starts (timing a level
under rules a game is being created with), bounded by a few moves' time; and analysis (the
calculator, the replay's heat maps), which may run up to its own deadline. Analysis may hold at
most ``analysis`` of the ``workers`` slots at once and starts at most ``starts``, so that however
many slow calculations are posted, a new game and every move keep slots of their own: with four
slots, two calculations, one start and at least one move run at once.

A move holds its slot only while its worker thinks (reading and storing the game need none); a
calculation for all its work. At most ``queue`` requests wait for a slot, each for at most
``wait_seconds``; past either bound the work is refused at once with :class:`Saturated`: a move
then falls back to the density shooter (play is never refused for want of a slot), and the rest is
answered 503 with a ``Retry-After``. A request that goes away, or a server shutting down, stops
the wait; a deadline passing does not (the work then answers at once: a move falls back, a heat map
is estimated).

Several server processes on one PostgreSQL store share the slots (:class:`SharedSlots`): each slot
is an advisory lock in the database, held by a connection of the process whose work holds the slot,
so N processes keep one limit, and a process that dies gives its slots back with its connections.
"""

from __future__ import annotations

import math
import random
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from battleship.stop import DEADLINE, SLICE, Stop

T = TypeVar("T")
MOVE, START, ANALYSIS = "move", "start", "analysis"


class Saturated(Exception):
    """Every slot is busy and the queue is full (or the wait ran past its bound)."""

    def __init__(self, message: str, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after


class Gate:
    """``workers`` slots for heavy work (at most ``analysis`` of them for analysis, ``starts`` for
    starting games; moves may take any), a bounded queue.

    By default analysis leaves two slots (one for a start, one for a move) and starts leave one for
    a move, so each kind of play keeps capacity of its own; on one or two slots the lanes share.
    """

    def __init__(
        self,
        workers: int,
        queue: int,
        wait_seconds: float,
        analysis: int | None = None,
        starts: int | None = None,
        shared: Any = None,
    ):
        if workers < 1 or queue < 0 or wait_seconds <= 0:
            raise ValueError("a gate needs at least one worker, a queue of 0 or more and a positive wait")
        self.workers, self.queue, self.wait_seconds = workers, queue, wait_seconds
        self.analysis = max(1, workers - 2) if analysis is None else max(1, min(analysis, workers))
        free = workers - self.analysis - 1  # what analysis leaves, less a slot for moves
        self.starts = max(1, min(free, 2)) if starts is None else max(1, min(starts, workers))
        self._slots = threading.BoundedSemaphore(workers)
        self._lanes = {
            ANALYSIS: threading.BoundedSemaphore(self.analysis),
            START: threading.BoundedSemaphore(self.starts),
        }
        self._held: dict[str, int] = {ANALYSIS: 0, START: 0, MOVE: 0}
        self._lock = threading.Lock()
        self._waiting = 0
        self._seconds = 0.25  # running mean of a heavy job's time, for Retry-After
        # the slots of every process on one store (an engine on PostgreSQL), or this process's alone
        self.shared = (
            SharedSlots(shared, self.workers, self.analysis, self.starts) if shared is not None else None
        )

    def run(self, work: Callable[..., T], *args: object, lane: str = MOVE, stop: Stop | None = None) -> T:
        """Run ``work(*args)`` in this thread once a slot of ``lane`` is free; :class:`Saturated` if none comes."""
        stop = stop or Stop()
        held: list[threading.BoundedSemaphore] = []
        ticket = None
        try:
            for semaphore in (self._lanes.get(lane), self._slots):
                if semaphore is not None:
                    self._acquire(semaphore, stop)
                    held.append(semaphore)
            if self.shared is not None:
                ticket = self._acquire_shared(lane, stop)
            start = time.perf_counter()
            with self._lock:
                self._held[lane] = self._held.get(lane, 0) + 1
            try:
                return work(*args)
            finally:
                with self._lock:  # an exponential mean: recent load matters most
                    self._seconds = 0.9 * self._seconds + 0.1 * (time.perf_counter() - start)
                    self._held[lane] -= 1
        finally:
            if ticket is not None:
                self.shared.give_back(ticket)  # type: ignore[union-attr]
            for semaphore in reversed(held):
                semaphore.release()

    def _acquire_shared(self, lane: str, stop: Stop) -> Any:
        """A slot of every process's (:class:`SharedSlots`), now or within the wait's bounds."""
        assert self.shared is not None
        ticket = self.shared.take(lane)
        if ticket is not None:
            return ticket
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
                # another process's slot comes free without a word to this one: look again soon
                time.sleep(min(SHARED_POLL * (0.5 + random.random()), max(0.0, until - time.monotonic())))
                ticket = self.shared.take(lane)
                if ticket is not None:
                    return ticket
        finally:
            with self._lock:
                self._waiting -= 1
        raise Saturated(
            f"the server is busy: no slot came free within {self.wait_seconds:g} s", self._retry_after()
        )

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

    def busy(self, lane: str) -> int:
        """Slots ``lane`` holds now."""
        with self._lock:
            return self._held.get(lane, 0)

    @property
    def waiting(self) -> int:
        """Requests waiting for a slot now."""
        return self._waiting


SHARED_POLL = 0.02  # seconds between looks for a slot another process holds
SLOT_LOCKS = 0x42_53_48_00  # the advisory locks' first key ("BSH"): the slots, then each lane's


class SharedSlots:
    """Heavy-work slots counted in PostgreSQL for every process of one store: ``workers`` slots in all,
    ``analysis`` and ``starts`` of them at most for those lanes (as :class:`Gate` counts them).

    A slot is a session-level advisory lock: taken with ``pg_try_advisory_lock`` on a connection of its
    own, which stays checked out while the work runs and is given back unlocked; if the process dies,
    its connections close and the database frees its slots.
    """

    def __init__(self, engine: Any, workers: int, analysis: int, starts: int):
        from sqlalchemy import create_engine

        # a small pool of its own: a slot holds its connection for as long as its work runs
        self.engine = create_engine(engine.url, pool_size=workers, max_overflow=workers, pool_pre_ping=True)
        self.keys = {
            "all": (SLOT_LOCKS, workers),
            ANALYSIS: (SLOT_LOCKS + 1, analysis),
            START: (SLOT_LOCKS + 2, starts),
        }

    def take(self, lane: str) -> Any:
        """A connection holding a slot of ``lane`` (and of all), or None if every one is held."""
        from sqlalchemy import text

        connection = self.engine.connect()
        try:
            for group in (lane, "all"):
                if group not in self.keys:
                    continue
                space, count = self.keys[group]
                found = connection.execute(
                    text(
                        "SELECT k FROM generate_series(0, CAST(:n AS integer) - 1) AS k "
                        "WHERE pg_try_advisory_lock(CAST(:space AS integer), k) LIMIT 1"
                    ),
                    {"space": space, "n": count},
                ).scalar()
                connection.commit()
                if found is None:
                    self.give_back(connection)
                    return None
            return connection
        except BaseException:
            self.give_back(connection)
            raise

    @staticmethod
    def give_back(connection: Any) -> None:
        """Free the slots ``connection`` holds and return it to the pool."""
        from sqlalchemy import text

        try:
            connection.execute(text("SELECT pg_advisory_unlock_all()"))
            connection.commit()
        except Exception:  # a connection gone bad: closing it frees its locks all the same
            connection.invalidate()
        finally:
            connection.close()

    def held(self) -> int:
        """Slots held now, by every process (for the tests)."""
        from sqlalchemy import text

        space, _count = self.keys["all"]
        with self.engine.connect() as connection:
            return int(
                connection.execute(
                    text(
                        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = :space "
                        "AND granted"
                    ),
                    {"space": space},
                ).scalar_one()
            )

    def close(self) -> None:
        self.engine.dispose()
