"""Stopping long work on request: a flag compiled kernels read, a deadline, Ctrl-C and SIGTERM.

Every long computation takes a :class:`Stop`. A Numba kernel reads ``stop.flag`` (a one-element
int64 array) every few thousand steps and returns early when it is not zero; the Python around it
then calls :meth:`Stop.check`, which raises :class:`Stopped` (:class:`OutOfTime` when the deadline
set the flag). A kernel holds no GIL (``nogil=True``), so :func:`run` runs it in a worker thread
while the calling thread waits in short slices: Python delivers signals to the calling thread only
between bytecodes, and a thread blocked inside a kernel would never see Ctrl-C.

The flag is shared memory, so a web request's stop can be set from another thread (its client
went away) and a command's from a signal handler (:func:`signals_stop`).
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import numpy as np

from battleship.errors import BattleshipError

T = TypeVar("T")

INTERRUPT = 1  # the flag's values: why the work was asked to stop
DEADLINE = 2
CANCELLED = 3
_WHY = {INTERRUPT: "interrupted", DEADLINE: "out of time", CANCELLED: "cancelled"}
SLICE = 0.05  # seconds between looks at the deadline and at signals while a kernel runs


class Stopped(BattleshipError):
    """The work was asked to stop before it finished (interrupt, deadline or cancellation)."""


class OutOfTime(Stopped):
    """The work passed its deadline."""


class Stop:
    """A stop request that kernels can read: ``flag[0]`` is 0 while the work may go on.

    ``seconds`` sets a deadline that far from now (``None``: none). The deadline is a wall-clock
    budget for the whole answer, checked by :func:`run` while a kernel runs and by :meth:`check`.
    """

    def __init__(self, seconds: float | None = None) -> None:
        self.flag = np.zeros(1, dtype=np.int64)
        self.deadline = None if seconds is None else time.monotonic() + float(seconds)
        self.signal: int | None = None  # the signal that asked for the stop, if one did

    @property
    def requested(self) -> bool:
        """True once anything asked the work to stop (or the deadline passed)."""
        if not self.flag[0] and self.deadline is not None and time.monotonic() >= self.deadline:
            self.flag[0] = DEADLINE
        return bool(self.flag[0])

    def request(self, why: int = CANCELLED) -> None:
        """Ask the work to stop (the first reason given is the one kept)."""
        if not self.flag[0]:
            self.flag[0] = why

    def child(self, seconds: float | None = None) -> Stop:
        """A stop for part of this work: the same flag (stopping either stops both), and a deadline
        ``seconds`` from now or this one's, whichever comes first."""
        part = Stop(seconds)
        part.flag = self.flag
        if self.deadline is not None:
            part.deadline = self.deadline if part.deadline is None else min(part.deadline, self.deadline)
        return part

    def part(self, seconds: float | None = None) -> Stop:
        """A stop for the first part of this work: a deadline of its own (``seconds`` from now, or this
        one's if sooner) that ends the part alone, so the work can go on to what follows (an estimate
        after a count out of time), while whatever stops the whole (a cancellation, Ctrl-C, the whole's
        own deadline) stops the part too."""
        return _Part(self, seconds)

    def remaining(self) -> float | None:
        """Seconds left before the deadline (``None`` without one; never negative)."""
        return None if self.deadline is None else max(0.0, self.deadline - time.monotonic())

    def check(self) -> None:
        """Raise :class:`Stopped` (or :class:`OutOfTime`) if the work was asked to stop."""
        if self.requested:
            why = int(self.flag[0])
            raise (OutOfTime if why == DEADLINE else Stopped)(_WHY.get(why, "stopped"))


class _Part(Stop):
    """:meth:`Stop.part`: a flag of its own, set from the whole's whenever it is read."""

    def __init__(self, whole: Stop, seconds: float | None):
        super().__init__(seconds)
        self.whole = whole
        if whole.deadline is not None:
            self.deadline = whole.deadline if self.deadline is None else min(self.deadline, whole.deadline)

    @property
    def requested(self) -> bool:
        if not self.flag[0] and self.whole.flag[0]:
            self.flag[0] = self.whole.flag[0]
        return super().requested


def never() -> Stop:
    """A stop that is never requested unless someone asks (no deadline)."""
    return Stop()


def run(work: Callable[..., T], *args: Any, stop: Stop, **kwargs: Any) -> T:
    """``work(*args, **kwargs)`` in a worker thread, watched: returns its result or raises.

    While it runs, the deadline sets the flag when it passes, and a ``KeyboardInterrupt`` raised in
    the calling thread (Ctrl-C, or :func:`signals_stop`'s SIGTERM) sets it too and is raised again
    once the worker has returned (kernels look at the flag often, so that is soon). After the work
    returns, a stop that was requested raises :class:`Stopped` even if the work ignored it.
    """
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = work(*args, **kwargs)
        except BaseException as error:  # handed to the calling thread
            box["error"] = error

    worker = threading.Thread(target=target, name="battleship-work", daemon=True)
    worker.start()
    interrupted: BaseException | None = None
    while worker.is_alive():
        try:
            worker.join(SLICE)
            stop.requested  # noqa: B018 -- sets the flag when the deadline has passed
        except KeyboardInterrupt as error:
            stop.request(INTERRUPT)
            interrupted = error
    if interrupted is not None:
        raise interrupted
    if "error" in box:
        raise box["error"]
    stop.check()
    return box["value"]


@contextmanager
def signals_stop(stop: Stop) -> Iterator[Stop]:
    """Within the block, SIGINT and SIGTERM set ``stop``'s flag and raise ``KeyboardInterrupt``.

    Work in the block that looks at the flag winds down; the command catches ``KeyboardInterrupt``
    and exits 130 (SIGINT) or 143 (SIGTERM), :func:`exit_code` says which. Only the main thread can
    install handlers; elsewhere the block runs unchanged.
    """
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def handler(number: int, _frame: object) -> None:
        stop.signal = number
        stop.request(INTERRUPT)
        raise KeyboardInterrupt

    old = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for number, previous in old.items():
            signal.signal(number, previous)


def exit_code(stop: Stop) -> int:
    """The conventional exit status after a signal: 128 + its number (130 for SIGINT, 143 for SIGTERM)."""
    return 128 + (stop.signal or signal.SIGINT)
