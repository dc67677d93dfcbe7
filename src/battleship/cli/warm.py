"""The ``warm`` command: compile every Numba kernel ahead, so that no later command waits for it."""

from __future__ import annotations

import time
from contextlib import nullcontext

from battleship.cli.common import friendly, on_terminal, progress_bar, session
from battleship.cli.helptext import examples
from battleship.cli.output import console


@examples("battleship warm")
@friendly
def warm_cmd() -> None:
    """Compile every Numba kernel now (the engines, each shooter's, the layout generators).

    The first run after an install otherwise compiles what it uses as it goes, a minute or more in
    silence but for a note; kernels are cached on disk, so this is needed once per install. Run
    again, it only loads them. Ctrl-C stops it between kernels; what was compiled stays cached.
    """
    from battleship.lab.warmup import compile_all, notice

    start = time.perf_counter()
    s = session()
    said: list[int] = [0, 0]  # steps done, steps in all
    s.keeping(lambda: f"{said[0]} of {said[1]} steps compiled; they stay cached")
    # on a terminal the bar shows each step; elsewhere the compile notice says how far it got
    with progress_bar() as progress, nullcontext() if on_terminal() else notice():
        task = progress.add_task("compiling", total=None)

        def step(done: int, total: int, label: str) -> None:
            said[:] = [done, total]
            progress.update(task, total=total, completed=done, description=f"compiling: {label}")

        done = s.run(compile_all, step, s.stop)
    s.check()
    console.print(
        f"compiled every kernel ({done} steps) in {time.perf_counter() - start:.0f} s; "
        "later runs load them from the cache",
        highlight=False,
    )
