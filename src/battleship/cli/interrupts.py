"""Ctrl-C and SIGTERM in a command: the work winds down, what it finished is kept, the command says
what it kept and exits 130 (SIGINT) or 143 (SIGTERM) within two seconds, never with a traceback.

Every command runs in a :class:`Session` (the :func:`battleship.cli.common.friendly` decorator opens
one). The first signal sets the session's :class:`~battleship.stop.Stop` flag: the lab's chunks look
at it between slices of games and between shots and return the games they finished, the command
writes those to its ``--out`` file and calls :meth:`Session.interrupted`, which says what was kept
and exits. Long kernel calls run through :meth:`Session.run` (:func:`battleship.stop.run`), in a
worker thread, so that the main thread stays where a signal can reach it.

The handler never raises: an exception thrown into the main thread mid-write would leave a file
half written and lose the games finished but not yet written. Instead, should the work not have
wound down within ``GRACE`` seconds (a kernel that does not read the flag yet), or a second signal
come, a watchdog thread ends the process itself, after the write under way (:meth:`committing`),
with the same message, through ``os._exit`` (worker threads may still be inside a kernel; exiting
the usual way would wait for them or tear the interpreter down under them). What the files hold
is then whole lines, which ``--resume`` reads.

This is :func:`battleship.stop.signals_stop` without the ``KeyboardInterrupt``, plus the watchdog.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NoReturn, TypeVar

from battleship.stop import INTERRUPT, Stop, exit_code, run

T = TypeVar("T")

GRACE = 1.5  # seconds the work has to wind down after a signal before the command ends anyway
COMMIT_WAIT = 0.3  # seconds the watchdog waits for a write under way to finish
NAMES: dict[int, str] = {signal.SIGINT: "interrupted (Ctrl-C)", signal.SIGTERM: "stopped (SIGTERM)"}


class Session:
    """One command's stop flag, what it has kept so far, and how it ends on a signal."""

    def __init__(self, stderr: Callable[[str], None] | None = None) -> None:
        self.stop = Stop()
        self._kept: Callable[[], str] = lambda: "nothing to keep"
        self._lock = threading.RLock()  # held while finished work is written, and while ending
        self._ended = False
        self._say_line = stderr or _stderr
        self._abandoned: list[threading.Thread] = []

    # ---- what the command tells the session ---------------------------------------------------------
    def keeping(self, describe: Callable[[], str]) -> None:
        """How to say what the command has kept so far (called when it is interrupted)."""
        self._kept = describe

    @contextmanager
    def committing(self) -> Iterator[None]:
        """Around a write of finished work: a forced exit waits for it (briefly) rather than cut it."""
        with self._lock:
            yield

    def deadline(self, seconds: float | None) -> None:
        """A wall-clock budget for the whole answer, from now (``--time``)."""
        self.stop.deadline = None if seconds is None else time.monotonic() + seconds

    def run(self, work: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``work(*args, **kwargs)`` in a worker thread while the main thread listens for signals."""
        return run(work, *args, stop=self.stop, **kwargs)

    def abandon(self, thread: threading.Thread) -> None:
        """Leave a worker thread that cannot be stopped (a kernel that does not read the flag) behind.

        The command answers without it and then, as the ``battleship`` program, ends the process at once
        (:func:`session`), rather than wait for the thread or tear the interpreter down while it runs
        a kernel.
        """
        self._abandoned.append(thread)

    @property
    def signalled(self) -> bool:
        """True once SIGINT or SIGTERM arrived."""
        return self.stop.signal is not None

    def check(self) -> None:
        """End the command now, saying what was kept, if a signal arrived (else return)."""
        if self.signalled:
            self.interrupted()

    def interrupted(self) -> NoReturn:
        """Say what was kept and exit 130 or 143 (the work has wound down)."""
        import typer

        with self._lock:
            if not self._ended:
                self._ended = True
                self._say()
        raise typer.Exit(exit_code(self.stop))

    # ---- signals --------------------------------------------------------------------------------
    def on_signal(self, number: int, _frame: object = None) -> None:
        """The first signal asks the work to stop and starts the watchdog; a second ends at once."""
        if self.stop.signal is None:
            self.stop.signal = number
            self.stop.request(INTERRUPT)
            _daemon(self._force, GRACE)
        else:
            _daemon(self._force, 0.0)

    def _force(self) -> None:
        """End the process from the watchdog thread, after the write under way (if the command has not)."""
        acquired = self._lock.acquire(timeout=COMMIT_WAIT)
        try:
            if self._ended:
                return
            self._ended = True
            self._say()
        finally:
            if acquired:
                self._lock.release()
        _hard_exit(exit_code(self.stop))

    def _say(self) -> None:
        why = NAMES.get(self.stop.signal or signal.SIGINT, "interrupted")
        try:
            kept = self._kept()
        except Exception as exc:  # the message must not fail the exit
            kept = f"(what was kept is unknown: {exc})"
        self._say_line(f"{why}: {kept}")


def _stderr(line: str) -> None:
    from battleship.cli.output import err

    err.print(line, highlight=False, soft_wrap=True)


def _daemon(target: Callable[[], None], delay: float) -> None:
    timer = threading.Timer(delay, target)
    timer.daemon = True
    timer.start()


def _hard_exit(code: int) -> NoReturn:
    """Exit at once (worker threads may be inside a kernel), the terminal's cursor shown again."""
    try:
        if sys.stderr.isatty():
            sys.stderr.write("\x1b[?25h")  # a progress bar hides the cursor while it runs
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


_current: Session | None = None


def current() -> Session:
    """The running command's session (a fresh one, with no signal handlers, outside a command)."""
    return _current if _current is not None else Session()


@contextmanager
def session() -> Iterator[Session]:
    """A session for one command: SIGINT and SIGTERM handled as the module docstring says.

    Signal handlers can only be set from the main thread; elsewhere the session has none.
    """
    global _current
    outer, s = _current, Session()
    _current = s
    main = threading.current_thread() is threading.main_thread()
    old = {n: signal.signal(n, s.on_signal) for n in (signal.SIGINT, signal.SIGTERM)} if main else {}
    code = 0
    try:
        yield s
    except BaseException as exc:
        code = getattr(exc, "exit_code", None) or getattr(exc, "code", None) or 1
        raise
    finally:
        with s._lock:
            s._ended = True  # the command has returned: the watchdog has nothing left to do
        for number, handler in old.items():
            signal.signal(number, handler)
        _current = outer
        if any(thread.is_alive() for thread in s._abandoned) and _as_program():
            _hard_exit(code if isinstance(code, int) else 1)


def _as_program() -> bool:
    """Is this process the battleship program? (Python calling the app keeps its process: a thread left
    behind then runs on, as a daemon, until it is done.)"""
    from battleship.cli.program import AS_PROGRAM

    return AS_PROGRAM
