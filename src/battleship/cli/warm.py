"""The ``warm`` command: compile every Numba kernel ahead, so that no later command waits for it."""

from __future__ import annotations

import time
from contextlib import nullcontext

from battleship.cli.common import friendly, on_terminal, progress_bar, session
from battleship.cli.helptext import examples
from battleship.cli.output import console, err


@examples("battleship warm")
@friendly
def warm_cmd() -> None:
    """Load every Numba kernel now, compiling whatever the package's compiled kernels do not cover.

    The package comes with its kernels compiled (by its build), so this only loads them, in a minute of
    playing one game of each shooter; it says whether those kernels are used here, and why not. Where
    they are not (another Numba, another CPU, a source changed in a checkout), it compiles every kernel
    once into your cache, with progress, so that no later command waits. Ctrl-C stops it between steps;
    what was compiled stays cached.
    """
    from battleship import jit
    from battleship.lab.warmup import compile_all, notice

    manifest, why = jit.package_status()
    if manifest is not None and why is None:
        err.print(
            f"the package's compiled kernels are used ({manifest.functions} functions, Numba {manifest.numba})"
        )
    else:
        err.print(f"the package's compiled kernels are not used: {why}; compiling into {jit.user_store()}")
    start = time.perf_counter()
    s = session()
    said: list[int] = [0, 0]  # steps done, steps in all
    s.keeping(lambda: f"{said[0]} of {said[1]} steps done; what they compiled stays cached")
    # on a terminal the bar shows each step; elsewhere the compile notice says how far it got
    with progress_bar() as progress, nullcontext() if on_terminal() else notice():
        task = progress.add_task("warming", total=None)

        def step(done: int, total: int, label: str) -> None:
            said[:] = [done, total]
            progress.update(task, total=total, completed=done, description=f"warming: {label}")

        done = s.run(compile_all, step, s.stop)
    s.check()
    console.print(
        f"every kernel ready ({done} steps) in {time.perf_counter() - start:.0f} s", highlight=False
    )
