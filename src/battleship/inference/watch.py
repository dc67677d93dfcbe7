"""Running an engine's kernel under a :class:`battleship.stop.Stop`.

Every long kernel takes a one-element int64 flag and returns early when it is set; :func:`watched`
runs it in a watched worker thread (so Ctrl-C, SIGTERM and the deadline reach it) and raises
:class:`battleship.stop.Stopped` or :class:`battleship.stop.OutOfTime` if it was asked to stop.
Without a stop the kernel runs in the calling thread with a flag nobody sets.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from battleship.stop import Stop, run

T = TypeVar("T")


def flag_of(stop: Stop | None) -> np.ndarray:
    """The flag a kernel reads: the stop's, or one nobody sets."""
    return np.zeros(1, dtype=np.int64) if stop is None else stop.flag


def watched(work: Callable[..., T], *args: Any, stop: Stop | None) -> T:
    """``work(*args)``; under a stop, in a watched worker thread, raising if the stop was requested."""
    if stop is None:
        return work(*args)
    stop.check()
    return run(work, *args, stop=stop)
