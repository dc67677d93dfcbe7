"""Numba's compile, said and done ahead: the first run after an install compiles the kernels.

The engines and the shooters' whole-game kernels are Numba functions cached on disk once compiled
(``cache=True``): a later run loads them in a moment, but the first one after an install (or an
upgrade) compiles them, which takes a minute or more and would otherwise pass in silence.

- :func:`notice`: within the block, the moment Numba starts compiling anything, one line on
  stderr says so, then how many functions are compiled so far (rewritten in place on a terminal,
  every few seconds elsewhere), and how long it took. A run whose kernels are cached says nothing.
  The front door (:mod:`battleship.api`) wraps its calls in it.
- :func:`compile_all`: compile (or load) every kernel ahead of time, reporting each step, as
  ``battleship warm`` does after an install.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from battleship.game import Observation
    from battleship.rules import Rules
    from battleship.stop import Stop

HINT = "the first run after an install; cached afterwards; `battleship warm` compiles every kernel ahead"
EVERY = 10.0  # seconds between progress lines where the line cannot be rewritten in place


@dataclass
class _Tally:
    """What the listener has seen: functions compiled, the one under way, when it started."""

    out: TextIO
    live: bool  # a terminal: rewrite the progress line in place
    started: float = 0.0
    done: int = 0
    current: str = ""
    said: float = 0.0  # when the last progress line was written
    lock: threading.Lock = field(default_factory=threading.Lock)

    def begin(self, name: str) -> None:
        with self.lock:
            if not self.started:
                self.started = self.said = time.perf_counter()
                self.out.write(f"compiling the Numba kernels ({HINT}) ...\n")
            self.current = name or self.current
            self._progress()

    def end(self) -> None:
        with self.lock:
            self.done += 1
            self._progress()

    def _progress(self) -> None:
        now = time.perf_counter()
        now_on = f" ({self.current.removeprefix('battleship.')})" if self.current else ""
        line = f"  {self.done} functions compiled, {now - self.started:.0f} s{now_on}"
        if self.live:
            self.out.write("\r" + line[:100].ljust(100))
        elif now - self.said >= EVERY:
            self.out.write(line + "\n")
        else:
            return
        self.said = now
        self.out.flush()

    def finish(self) -> None:
        if not self.started:
            return
        line = f"compiled {self.done} functions in {time.perf_counter() - self.started:.0f} s"
        self.out.write(("\r" + line.ljust(100) if self.live else line) + "\n")
        self.out.flush()


_active = threading.local()


@contextmanager
def notice(out: TextIO | None = None) -> Iterator[None]:
    """Within the block, say on ``out`` (stderr) when Numba compiles, with progress; quiet when all is cached.

    Nested blocks say it once, in the outermost.
    """
    if getattr(_active, "on", False):
        yield
        return
    from numba.core import event

    stream = out or sys.stderr
    tally = _Tally(stream, live=bool(getattr(stream, "isatty", lambda: False)()))

    class Listener(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            dispatcher = ev.data.get("dispatcher") if isinstance(ev.data, dict) else None
            function = getattr(dispatcher, "py_func", None)
            module = str(getattr(function, "__module__", ""))
            # Numba's own helpers (NumPy's functions, typed lists) compile too: name only ours
            ours = module.startswith("battleship")
            tally.begin(f"{module}.{getattr(function, '__name__', '')}" if ours else "")

        def on_end(self, ev: event.Event) -> None:
            tally.end()

    _active.on = True
    try:
        with event.install_listener("numba:compile", Listener()):
            yield
    finally:
        _active.on = False
        tally.finish()


@dataclass(frozen=True)
class Step:
    """One piece of warming up: what it compiles, and the call that does it."""

    label: str
    run: Callable[[], object]


def steps() -> list[Step]:
    """Every kernel's first call: the layout generators, each whole-game kernel, the exact engines,
    exact sampling, and each shooter's first shots, on the presets that reach each code path."""
    from battleship import generators
    from battleship.lab.runner import warm_up
    from battleship.rules import Rules, Ship, Sinks, Spacing, preset
    from battleship.shooters import registry

    standard = preset("standard")
    # the sweep engine's code on a graph compiled in a moment (pirates' takes seconds, every process)
    apart = Rules(
        6, 6, (Ship.line("Cruiser", "C", 3), Ship.line("Destroyer", "D", 2)), Spacing.NO_CONTACT, Sinks.NONE
    )
    out = [
        Step(f"layouts ({name})", partial(generators.draw, standard, name, 0, 2, threads=False))
        for name in generators.GENERATORS
    ]
    played = {n: r for n in registry.names() if (r := _rules_for(n, (standard, apart))) is not None}
    kernels = [n for n in played if registry.spec(n).kernel is not None]
    out += [Step(f"{n} games", partial(warm_up, played[n], n)) for n in kernels]
    out += [
        Step("exact counts (rows, search)", partial(_counts, standard)),
        Step("exact counts (sweep, search)", partial(_counts, apart)),
        Step("exact samples", partial(_samples, standard)),
    ]
    out += [Step(f"{n} shots", partial(_first_shots, played[n], n)) for n in played if n not in kernels]
    return out


def _rules_for(name: str, choices: tuple[Rules, ...]) -> Rules | None:
    """The first of ``choices`` the shooter plays (some refuse ships that may touch, or polyominoes)."""
    from battleship.shooters import registry

    return next((r for r in choices if registry.spec(name).refusal(r) is None), None)


def _half_fired(rules: Rules, seed: int = 1) -> Observation:
    """A board fired at on every other cell: past the open board, far from the end."""
    from battleship.game import Game
    from battleship.generators import generate

    game = Game(generate(rules, "uniform", seed, 1)[0])
    for cell in range(0, game.rules.cells, 2):
        if not game.over:
            game.fire(cell)
    return game.observation


def _counts(rules: Rules) -> None:
    """The engines on the open board and on a board with hits (where the search takes over)."""
    from battleship.game import Observation
    from battleship.inference.posterior import posterior

    posterior(Observation(rules))
    posterior(_half_fired(rules))


def _samples(rules: Rules) -> None:
    from battleship.inference.sampling import draw

    draw(rules, _half_fired(rules), 4, seed=0)


def _first_shots(rules: Rules, name: str) -> None:
    """A shooter's choice on the open board and on a board half fired at (its hunt and its endgame)."""
    import numpy as np

    from battleship.errors import BattleshipError
    from battleship.game import Observation
    from battleship.shooters import make

    shooter = make(name)
    for board in (Observation(rules), _half_fired(rules)):
        try:
            shooter.reset(rules, np.random.default_rng(0))
        except BattleshipError:  # a shooter that needs more than its name (a fitted model's file): not warmed
            return
        shooter.next_shot(board)


def compile_all(progress: Callable[[int, int, str], None] | None = None, stop: Stop | None = None) -> int:
    """Compile (or load from the cache) every kernel; ``progress(done, total, label)`` before each step.

    ``stop`` is read between steps (one function's compilation cannot be cut short). Returns the
    number of steps done (all of them unless stopped).
    """
    todo = steps()
    for done, step in enumerate(todo):
        if stop is not None and stop.requested:
            return done
        if progress is not None:
            progress(done, len(todo), step.label)
        step.run()
    if progress is not None:
        progress(len(todo), len(todo), "done")
    return len(todo)
