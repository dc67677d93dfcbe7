"""The ``limit`` command: exact optimal play on a small board, and how far each shooter is from it."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated

import typer

from battleship.cli.common import (
    JsonOpt,
    RulesOpt,
    SeedOpt,
    console,
    emit_json,
    friendly,
    load_rules,
    positive,
    progress_bar,
    session,
    shooter_help,
)
from battleship.cli.helptext import examples
from battleship.errors import BattleshipError

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

    from battleship.cli.interrupts import Session
    from battleship.inference.endgame import Solver
    from battleship.rules import Rules
MAX_SECONDS = 7 * 24 * 3600  # --time at most a week


@contextmanager
def _ticking(progress: Progress, task: TaskID, what: str, states: Callable[[], str]) -> Iterator[None]:
    """Within the block, the progress line says how many states the solver has solved, twice a second."""
    done = threading.Event()

    def tick() -> None:
        while not done.wait(0.5):
            progress.update(task, description=what.format(f" ({states()})"))

    thread = threading.Thread(target=tick, name="battleship-limit-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


@examples(
    "battleship limit --rules examples/rules/four-by-four.toml",
    "battleship limit optimal density trial-sink --rules examples/rules/four-by-four.toml --json",
)
@friendly
def limit_cmd(
    shooters: Annotated[
        list[str] | None,
        typer.Argument(
            help="Shooters to measure against the optimum (default: optimal density trial-sink "
            "rollout best). " + shooter_help()
        ),
    ] = None,
    rules: RulesOpt = "standard",
    seed: SeedOpt = 0,
    budget: Annotated[
        int, typer.Option("--budget", help="Most states the exact solver may solve before it gives up.")
    ] = 50_000_000,
    seconds: Annotated[
        float | None,
        typer.Option("--time", help="Give up (with how far the solver got) after this many seconds in all."),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Solve a small board exactly from the first shot, then play each shooter once on every layout.

    Prints the fewest expected shots any strategy can average over uniform layouts, and each shooter's
    mean and gap to it (under [noise] rules the optimum and capacity bound, against a cheating hider the
    worst case). Under salvo rules all of these are turns (salvos to sink the fleet), the optimal strategy
    choosing a set of cells each turn. Small boards only (a few thousand layouts): the 4x4 board with ships
    of 3 and 2 takes seconds; see docs/research/limit.md for larger boards. Ctrl-C stops within two seconds.
    """
    from rich.table import Table

    from battleship.cells import cell_name
    from battleship.lab.limit import DEFAULT_SHOOTERS, limit

    r = load_rules(rules)
    positive(budget, "--budget", 10**9)
    if seconds is not None and not 0 < seconds <= MAX_SECONDS:
        raise BattleshipError(
            f"--time is a number of seconds above 0 and at most {MAX_SECONDS:,}, not {seconds:g}"
        )
    s = session()
    s.deadline(seconds)
    if r.noise is not None or r.hider is not None:
        return _twisted_limit(r, shooters, budget, s, as_json)
    solvers: list[Solver] = []  # the solver under way, for the progress line and the interrupt message
    states = lambda: f"{solvers[0].solving:,} states solved" if solvers else "not started"  # noqa: E731
    s.keeping(lambda: f"nothing to keep: the exact solve was not finished ({states()})")
    what = "solving every layout exactly{}, then playing each shooter on them"
    with (
        progress_bar(disable=as_json) as progress,
        _ticking(progress, progress.add_task(what.format(""), total=None), what, states),
    ):
        result = s.run(
            lambda: limit(
                r, shooters or DEFAULT_SHOOTERS, seed=seed, budget=budget, stop=s.stop, watch=solvers.append
            )
        )
    best = result.optimum
    if as_json:
        emit_json(
            {
                "rules": r.describe(),
                "layouts": best.layouts,
                "optimum": best.shots,
                "unit": result.unit,
                "first_cell": cell_name(best.first_cell, r.cols),
                **(
                    {"first_salvo": [cell_name(c, r.cols) for c in best.first_salvo]}
                    if best.first_salvo
                    else {}
                ),
                "states": best.states,
                "seconds": round(best.seconds, 3),
                "shooters": [
                    {"shooter": s, "mean": m, "gap": result.gap(s), "refusal": result.refusals.get(s)}
                    for s, m in result.means.items()
                ],
            }
        )
        return
    first = f"first shot {cell_name(best.first_cell, r.cols)}"
    if best.first_salvo:
        first = "first salvo " + " ".join(cell_name(c, r.cols) for c in best.first_salvo)
    title = (
        f"{r.describe()}: optimum {best.shots:.4f} {result.unit} over {best.layouts:,} layouts "
        f"({first}; {best.states:,} states, {best.seconds:.1f} s)"
    )
    table = Table(
        "shooter",
        "mean over every layout" if best.first_salvo == () else "mean turns over every layout",
        "minus optimum",
        title=title,
        # the optimum is an expectation; a shooter drawing random numbers is measured by one game a layout
        caption="one game a layout (--seed); a shooter that draws random numbers (random ties, rollouts) "
        "gives a sample mean, which luck can put below the optimum",
    )
    for shooter, m in result.means.items():
        if m is None:
            table.add_row(shooter, "refuses", result.refusals[shooter])
        else:
            table.add_row(shooter, f"{m:.4f}", f"{m - best.shots:+.4f}")
    console.print(table)


def _twisted_limit(r: Rules, shooters: list[str] | None, budget: int, s: Session, as_json: bool) -> None:
    """``limit`` under ``[noise]`` rules (the exact expected shots, beside the channel-capacity bound) or
    against a cheating hider (the game's value: the fewest shots whatever the hider answers)."""
    import time

    if shooters:
        raise BattleshipError(
            "limit measures shooters on honest games; under [noise] or [hider] rules it solves the game "
            "alone: leave the shooters out"
        )

    if r.salvo is not None:
        raise BattleshipError(
            "limit solves noisy answers and cheating hiders for one shot a turn, not for [salvo] rules"
        )
    if r.hider is not None:
        from battleship.inference.minimax import Minimax, every_layout

        start = time.perf_counter()
        solver = Minimax(r.honest(), every_layout(r), budget, s.stop)
        with progress_bar(disable=as_json) as progress:
            progress.add_task("solving the game against a cheating hider", total=None)
            shots = s.run(solver.value)
        seconds = time.perf_counter() - start
        if as_json:
            emit_json(
                {
                    "rules": r.describe(),
                    "layouts": len(solver.layouts),
                    "worst_case": shots,
                    "unit": "shots",
                    "states": solver.proven,
                    "seconds": round(seconds, 3),
                }
            )
            return
        console.print(
            f"{r.describe()}: against a cheating hider the best shooter sinks the fleet within {shots} shots "
            f"whatever it answers ({len(solver.layouts):,} layouts; {solver.proven:,} states, {seconds:.1f} s)"
        )
        return
    from battleship.cells import cell_name
    from battleship.lab.noise_limit import capacity_bound, noisy_optimum

    with progress_bar(disable=as_json) as progress:
        progress.add_task("solving the game under noise exactly", total=None)
        best = s.run(lambda: noisy_optimum(r, 0, budget, s.stop))
    bound = capacity_bound(best.layouts, r.flip)
    if as_json:
        emit_json(
            {
                "rules": r.describe(),
                "layouts": best.layouts,
                "optimum": best.shots,
                "unit": "shots",
                "first_cell": cell_name(best.first_cell, r.cols),
                "capacity_bound": bound,
                "states": best.states,
                "seconds": round(best.seconds, 3),
            }
        )
        return
    console.print(
        f"{r.describe()}: optimum {best.shots:.4f} shots over {best.layouts:,} layouts, each cell fired at "
        f"once (first shot {cell_name(best.first_cell, r.cols)}; {best.states:,} states, {best.seconds:.1f} s); "
        f"the channel-capacity bound, shots that identify a layout: {bound:.3f}"
    )
