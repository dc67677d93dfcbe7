"""What a warming server still waits for before it opens for play: ``GET /api/ready`` says it, and the
warming page (the answer to every page asked for meanwhile) shows it and moves on once it is over.

The warm-up's parts run side by side (the worker processes load every level's kernels while the
server's own process loads its own), so each is named while it runs and dropped when it ends.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Literal

from pydantic import BaseModel

WARMING_DETAIL = "the server is warming up: loading the engine's kernels, a few seconds; try again shortly"
WORKERS = "the worker processes to load every level's kernels"
HERE = "the server to load its own kernels (random layouts, answers)"
OPENING = "the game to open for play (the friends' clocks are given back the time the server was away)"
STOPPING = "a restart: the server is shutting down"


class Ready(BaseModel):
    """The server is open for play."""

    ready: Literal[True]


class NotReady(BaseModel):
    """The server cannot play yet: what it waits for, for how long so far, and the error's sentence."""

    ready: Literal[False]
    waiting_for: str
    seconds: float
    detail: str


class Warming:
    """The parts of the warm-up still running; once :meth:`open` is called, none (thread-safe)."""

    def __init__(self, warming: bool) -> None:
        self._lock = threading.Lock()
        self._parts: list[str] = []
        self._open = not warming
        self._since = time.monotonic()

    @property
    def ready(self) -> bool:
        """The warm-up is over and the game is open for play."""
        return self._open

    def open(self) -> None:
        """The warm-up is over: every request is served from now on."""
        with self._lock:
            self._open, self._parts = True, []

    @contextmanager
    def part(self, words: str) -> Iterator[None]:
        """Name ``words`` (what the server waits for) as waited for while the block runs."""
        with self._lock:
            self._parts.append(words)
        try:
            yield
        finally:
            with self._lock:
                if words in self._parts:
                    self._parts.remove(words)

    def waiting_for(self) -> str | None:
        """What the server waits for now, in words (None once it is open)."""
        with self._lock:
            if self._open:
                return None
            return " and ".join(self._parts) if self._parts else OPENING

    def answer(self) -> dict[str, Any]:
        """``GET /api/ready``'s body while the server warms up (:class:`NotReady`)."""
        return not_ready(self.waiting_for() or OPENING, time.monotonic() - self._since)


def not_ready(waiting_for: str, seconds: float, detail: str = WARMING_DETAIL) -> dict[str, Any]:
    """A :class:`NotReady` body."""
    return {"ready": False, "waiting_for": waiting_for, "seconds": round(seconds, 1), "detail": detail}
