"""Heavy work where it can be stopped: a pool of warm worker processes, a job's process killed when its stop is asked for.

Why processes: a thread inside a compiled kernel that does not read its :class:`~battleship.stop.Stop`
cannot be stopped, and today most engines do not read one. A process can always be stopped. Each job
runs in a worker with a :class:`Stop` of its own carrying the same deadline, so an engine that honours
``stop=`` winds down by itself and its worker stays warm; one that does not is killed ``grace`` seconds
after the deadline, and a job whose request went away (or a server shutting down) is killed at once.
A killed worker is replaced by a fork of the forkserver, which loaded and ran every kernel once, so
a replacement starts warm in milliseconds.

One exception: a job whose deadline passes while Numba compiles a kernel the package does not hold
(rules the build could not foresee). Killed, its compile would be lost and paid again by every later
job, each cut off in turn, for ever. The worker says when it compiles, and a job cut off then raises
:class:`StillCompiling` (an :class:`~battleship.stop.OutOfTime`) at its deadline as any other, while its
worker finishes the compile aside (kept for every process, :mod:`battleship.jit`) and comes back to the
pool.

:meth:`Workers.run` has the signature of :func:`battleship.stop.run`, so once every engine honours
``stop=`` a thread pool can take its place without changing a caller.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import multiprocessing
import signal
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, TypeVar

from battleship.errors import BattleshipError
from battleship.stop import CANCELLED, DEADLINE, SLICE, OutOfTime, Stop, Stopped

T = TypeVar("T")
log = logging.getLogger("battleship.web")
GRACE = 0.25  # seconds past its deadline a job may take to stop by itself before it is killed
COMPILE_CAP = 600.0  # seconds a worker cut off in the middle of a compile may take to finish it aside
COMPILING = "compiling"  # a worker's note that a compile began (True) or ended (False): not an answer


class WorkerDied(BattleshipError):
    """The worker process ended in the middle of a job (a crash in compiled code, or killed from outside)."""


class Closed(BattleshipError):
    """The pool is closed: the server is shutting down."""


class StillCompiling(OutOfTime):
    """The deadline passed while the job's worker compiled a kernel: the compile goes on aside (and is kept),
    so a later job finds it compiled; this one is out of time as any other."""


class _CutOffCompiling(Exception):
    """Within :meth:`Workers.run`: the deadline passed, or the request went away, in the middle of a compile."""


def _context() -> multiprocessing.context.ForkServerContext:
    """The forkserver context, preloading the jobs and running every kernel once (:mod:`battleship.web.warm`).

    The forkserver is one per process, started with the first worker (by :meth:`Workers.start` at
    the server's start-up, or by the first job), and every worker after it is forked from it warm.
    """
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["battleship.web.jobs", "battleship.web.warm"])
    return ctx


def start_forkserver() -> None:
    """Start the forkserver now, loading and warming up in a process of its own while this one goes on
    (``battleship serve`` calls it first thing, so that it overlaps the web app's own imports)."""
    from multiprocessing import forkserver

    _context()
    forkserver.ensure_running()


class _Worker:
    """One worker process and the parent's end of its pipe."""

    def __init__(self, ctx: multiprocessing.context.ForkServerContext):
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_serve, args=(child,), daemon=True, name="battleship-heavy")
        self.process.start()
        child.close()
        self._killing = threading.Lock()
        self._killed = False

    def kill(self) -> None:
        """End the process and close the pipe, once: a job's thread and :meth:`Workers.close` may both
        kill a busy worker at shutdown, and a pipe closed twice closes whatever file took its number."""
        with self._killing:
            if self._killed:
                return
            self._killed = True
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)
        self.conn.close()


class Workers:
    """Up to ``size`` worker processes, started as needed (all at once by :meth:`start`)."""

    def __init__(self, size: int, grace: float = GRACE):
        if size < 1:
            raise ValueError("a pool needs at least one worker")
        self.size, self.grace = size, grace
        self._ctx = _context()
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []
        self._busy: set[_Worker] = set()
        self._closed = False
        self.killed = 0  # workers killed so far (deadlines passed, requests gone), for the log and tests

    def start(self) -> None:
        """Start every worker now (the first start waits for the forkserver to load and warm up)."""
        while True:  # each started outside the lock: a shutdown during the first (slow) start closes at once
            with self._lock:
                if self._closed or len(self._idle) + len(self._busy) >= self.size:
                    return
            worker = _Worker(self._ctx)
            with self._lock:
                if not self._closed:
                    self._idle.append(worker)
                    continue
            worker.kill()
            return

    def run(self, work: Callable[..., T], *args: Any, stop: Stop) -> T:
        """``work(*args, stop=...)`` in a worker; its result, or its error, or :class:`Stopped` once ``stop`` asks."""
        worker = self._take()
        try:
            worker.conn.send((work, args, stop.remaining()))
            kind, value = self._wait(worker, stop)
        except _CutOffCompiling:
            aside = threading.Thread(
                target=self._finish_aside, args=(worker,), daemon=True, name="compile-aside"
            )
            aside.start()
            if int(stop.flag[0]) != DEADLINE:  # the client went away: Stopped, as without a compile
                stop.check()
            raise StillCompiling(
                "out of time: a kernel was compiling (it goes on compiling, and is kept for the next time)"
            ) from None
        except BaseException:
            self._discard(worker)
            raise
        self._give_back(worker)
        if kind == "ok":
            return value
        if kind in _ERRORS:  # sent as words: an exception's own pickling is not to be trusted
            raise _ERRORS[kind](value)
        log.error("heavy work failed: %s", value)
        raise RuntimeError(value)

    def _wait(self, worker: _Worker, stop: Stop) -> tuple[str, Any]:
        """The worker's answer; kill it when the stop is asked for (past the deadline, after ``grace``),
        unless that falls in the middle of a compile (:class:`_CutOffCompiling`, to let it finish) and the
        server is not shutting down."""
        compiling = False
        while True:
            try:
                if worker.conn.poll(SLICE):
                    kind, value = worker.conn.recv()
                    if kind == COMPILING:
                        compiling = value
                        continue
                    return kind, value
            except (EOFError, OSError):
                raise WorkerDied("the computation's process ended unexpectedly") from None
            if stop.requested and (int(stop.flag[0]) != DEADLINE or self._past_grace(stop)):
                if compiling and int(stop.flag[0]) in (DEADLINE, CANCELLED):  # not a shutdown's INTERRUPT
                    raise _CutOffCompiling
                self.killed += 1
                stop.check()
            if not worker.process.is_alive() and not worker.conn.poll():
                raise WorkerDied("the computation's process ended unexpectedly")

    def _past_grace(self, stop: Stop) -> bool:
        return stop.deadline is None or time.monotonic() > stop.deadline + self.grace

    def _finish_aside(self, worker: _Worker) -> None:
        """Wait for a worker cut off while compiling to finish the compile (at most :data:`COMPILE_CAP`) and
        then its job (past its deadline, a job that reads its stop ends at once: ``grace`` more), and give it
        back to the pool; kill it if either takes longer, or if the pool closes meanwhile."""
        end = time.monotonic() + COMPILE_CAP
        try:
            while time.monotonic() < end:
                if not worker.conn.poll(SLICE):
                    if not worker.process.is_alive():
                        break
                    continue
                kind, value = worker.conn.recv()
                if kind != COMPILING:
                    self._give_back(worker)
                    return
                # a compile done is kept, and the job then gets what any job gets past its deadline; one
                # more compile (the job ran on to code it had not reached) is let finish as the first was
                now = time.monotonic()
                end = now + COMPILE_CAP if value else min(end, now + self.grace + 1.0)
        except (EOFError, OSError):  # killed by close(), or died
            pass
        self.killed += 1
        self._discard(worker)

    def _take(self) -> _Worker:
        with self._lock:
            if self._closed:
                raise Closed("the server is shutting down")
            worker = self._idle.pop() if self._idle else None
        if worker is None or not worker.process.is_alive():
            if worker is not None:
                worker.kill()
            worker = _Worker(self._ctx)
        with self._lock:
            self._busy.add(worker)
        return worker

    def _give_back(self, worker: _Worker) -> None:
        with self._lock:
            self._busy.discard(worker)
            if not self._closed and len(self._idle) < self.size:
                self._idle.append(worker)
                return
        worker.kill()

    def _discard(self, worker: _Worker) -> None:
        with self._lock:
            self._busy.discard(worker)
        worker.kill()

    def close(self) -> None:
        """Kill every worker, busy ones too (their jobs raise :class:`WorkerDied` or :class:`Stopped`)."""
        with self._lock:
            self._closed = True
            workers, self._idle = [*self._idle, *self._busy], []
        for worker in workers:
            worker.kill()

    @property
    def alive(self) -> int:
        """Worker processes alive now."""
        with self._lock:
            return sum(w.process.is_alive() for w in (*self._idle, *self._busy))


_ERRORS: dict[str, type[BattleshipError]] = {
    "out-of-time": OutOfTime,
    "stopped": Stopped,
    "error": BattleshipError,
}


def _die_with_parent() -> None:
    """Linux: the worker is killed when its parent (the forkserver) ends, even mid-kernel."""
    with contextlib.suppress(OSError, AttributeError):  # not Linux: the pipe's end stops it between jobs
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _serve(conn: Connection) -> None:
    """A worker's life: read a job, run it with a stop of its own, send back what happened (and, as it
    happens, when a compile begins and ends)."""
    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle
    import traceback

    sending = threading.Lock()  # a compile's note comes from whichever thread compiles

    def send(message: tuple[str, Any]) -> None:
        with sending, contextlib.suppress(EOFError, OSError):
            conn.send(message)

    from battleship import jit  # loaded already: the forkserver preloads the jobs

    jit.on_compiling(lambda compiling: send((COMPILING, compiling)))

    while True:
        try:
            work, args, seconds = conn.recv()
        except (EOFError, OSError):
            return  # the server went away
        try:
            answer: tuple[str, Any] = ("ok", work(*args, stop=Stop(seconds)))
        except OutOfTime as error:
            answer = ("out-of-time", str(error))
        except Stopped as error:
            answer = ("stopped", str(error))
        except BattleshipError as error:
            answer = ("error", str(error))
        except Exception:
            answer = ("bug", traceback.format_exc())
        try:
            with sending:
                conn.send(answer)
        except (EOFError, OSError):
            return
        except Exception:  # an answer that does not pickle
            send(("bug", traceback.format_exc()))
