"""Long waits said: a line once a wait passes half a second, progress that moves every second, and how
long it took.

A few first uses take seconds: compiling the sweep engine's state graph for rules not seen before, or a
Numba kernel the package's compiled ones do not cover (:mod:`battleship.jit`). Wrapped in :func:`said`,
such a wait is said on stderr once it has lasted :data:`AFTER` seconds, then updated every second on a
terminal or in a notebook (every ten seconds in a log, where each update is a line of its own), with the
step it is at; at the end one line says how long it took. Shorter waits pass in silence.

Waits nest (a kernel compiled while a graph is built): the outermost is the one said, with the
innermost's words as its step. A front end with a progress display of its own (the command line's bars)
takes the words instead of stderr with :func:`shown_by`; :func:`to` sends them to another stream.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TextIO

AFTER = 0.5  # seconds of waiting before it is said: shorter waits pass in silence
LIVE_EVERY = 1.0  # seconds between updates on a terminal or in a notebook
PIPE_EVERY = 10.0  # ... and in a log or a pipe, where each update is a line of its own
WIDTH = 100  # a rewritten line is padded to this many characters


@dataclass(eq=False)
class Wait:
    """One wait under way: what it is, the step it is at, and the words its last line ends with."""

    what: str
    started: float = field(default_factory=time.perf_counter)
    step: str = ""
    done_words: str = ""  # the last line's words ("compiled 12 functions"); what it is, by default

    def at(self, step: str) -> None:
        """Name the step the wait is at (shown with its next update)."""
        self.step = step


_lock = threading.Lock()
_waits: list[Wait] = []  # under way, outermost first
_streams: list[TextIO] = []  # to(): innermost last
_shows: list[Callable[[str], None]] = []  # shown_by(): innermost last
_state = {"shown": False, "last": 0.0}


@contextmanager
def said(what: str) -> Iterator[Wait]:
    """Within the block, say ``what`` is under way once it has lasted :data:`AFTER` seconds, then its
    progress every second, then how long it took; the block names its steps with ``wait.at(step)``."""
    wait = Wait(what)
    with _lock:
        outermost = not _waits
        _waits.append(wait)
        if outermost:
            _state.update(shown=False, last=0.0)
            if AFTER <= 0:
                _show()
    if outermost and AFTER > 0:
        threading.Thread(target=_tick, args=(wait,), daemon=True, name="said").start()
    try:
        yield wait
    finally:
        with _lock:
            _waits.remove(wait)
            if outermost and _state["shown"]:
                took = time.perf_counter() - wait.started
                if _shows:
                    _shows[-1]("")  # over: the front end's display goes back to what it showed
                else:
                    _write(f"{wait.done_words or wait.what}: {took:.0f} s", final=True)


def step(words: str) -> None:
    """Name the step the innermost wait under way is at (nothing when none is)."""
    with _lock:
        if _waits:
            _waits[-1].at(words)


@contextmanager
def to(out: TextIO | None) -> Iterator[None]:
    """Within the block, waits are said on ``out`` (stderr when None)."""
    with _lock:
        _streams.append(out or sys.stderr)
    try:
        yield
    finally:
        with _lock:
            _streams.pop()


@contextmanager
def shown_by(show: Callable[[str], None]) -> Iterator[None]:
    """Within the block, a front end shows the waits: ``show(words)`` every second, ``show("")`` when one is
    over, nothing on stderr."""
    with _lock:
        _shows.append(show)
    try:
        yield
    finally:
        with _lock:
            _shows.pop()


def _tick(outermost: Wait) -> None:
    """Updates while ``outermost`` lasts: from AFTER seconds in, every second (live) or ten (a log)."""
    while True:
        time.sleep(0.25)
        with _lock:
            if outermost not in _waits:
                return
            now = time.perf_counter()
            every = LIVE_EVERY if _shows or _live() else PIPE_EVERY
            if now - outermost.started >= AFTER and (not _state["shown"] or now - _state["last"] >= every):
                _show()


def _show() -> None:
    """The outermost wait's line (its first, or an update), the innermost's step in it (lock held)."""
    outermost, innermost = _waits[0], _waits[-1]
    step = innermost.step or (innermost.what if innermost is not outermost else "")
    words = f"{outermost.what}: {time.perf_counter() - outermost.started:.0f} s" + (
        f" ({step})" if step else ""
    )
    if _shows:
        _shows[-1](words)
    elif not _state["shown"] and not _live():
        _write(f"{outermost.what} ...", final=True)
    else:
        _write(words, final=not _live())
    _state.update(shown=True, last=time.perf_counter())


def _stream() -> TextIO:
    return _streams[-1] if _streams else sys.stderr


def _live() -> bool:
    """A terminal, or a notebook's stream: a line can be rewritten in place."""
    stream = _stream()
    return bool(getattr(stream, "isatty", lambda: False)()) or "ipykernel" in sys.modules


def _write(line: str, final: bool) -> None:
    stream = _stream()
    try:
        if _live():
            stream.write("\r" + line[:WIDTH].ljust(WIDTH) + ("\n" if final else ""))
        else:
            stream.write(line + "\n")
        stream.flush()
    except (OSError, ValueError):  # a closed stream: the work goes on unsaid
        pass
