"""Jobs for the worker-pool tests: importable by name, so a forked worker can run them."""

from __future__ import annotations

import os
import signal
import time

from battleship.errors import BattleshipError
from battleship.stop import Stop


def echo(value: object, *, stop: Stop) -> object:
    """The value back, at once."""
    return value


def spin(seconds: float, *, stop: Stop) -> str:
    """Busy for ``seconds`` without ever looking at the stop (as a kernel that does not read it)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass
    return "finished"


def polite(seconds: float, *, stop: Stop) -> str:
    """Busy for ``seconds``, looking at the stop often (as a kernel that reads it)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        stop.check()
        time.sleep(0.01)
    return "finished"


def refuse(message: str, *, stop: Stop) -> None:
    """A user's mistake, said in words."""
    raise BattleshipError(message)


def crash(*, stop: Stop) -> None:
    """A crash in compiled code, as the worker would see it."""
    os.kill(os.getpid(), signal.SIGSEGV)


def pid(*, stop: Stop) -> int:
    """The worker's process id."""
    return os.getpid()


def graph_stand_in(shape, directory, *, stop: Stop) -> dict[str, int]:
    """A state graph's compilation, stood in for: a shape of 100 cells or more takes until it is stopped
    or a file ``release`` appears in ``directory`` (as Sea Battle's takes minutes), any other a moment."""
    end = time.monotonic() + 600.0
    while shape.cells >= 100 and not (directory / "release").exists() and time.monotonic() < end:
        stop.check()
        time.sleep(0.01)
    return {"states": 1, "edges": 0, "bytes": 0}


def compile_stand_in(directory, releases=("release",), *, stop: Stop) -> str:
    """Compiles of kernels the package does not hold, stood in for: for each name in ``releases``, Numba's
    compile event, begun (a file ``compiling`` in ``directory`` says so) and held until a file of that name
    appears there (at most a minute), then ended; then the job reads its stop, as a kernel does."""
    from numba.core import event

    for name in releases:
        end = time.monotonic() + 60.0
        with event.trigger_event("numba:compile", data={"dispatcher": None}):
            (directory / "compiling").touch()
            while not (directory / name).exists() and time.monotonic() < end:
                time.sleep(0.01)
    stop.check()
    return "compiled"
