"""How far from perfect: exact optimal play from the first shot on small boards, beside the shooters.

:func:`optimum` lists every layout of the rules and solves the whole game exactly
(:class:`battleship.inference.endgame.Solver`, with the board's symmetries): the fewest expected
shots any strategy can average over uniform layouts. :func:`limit` plays shooters once on every
layout and reports their means and their gaps to that optimum. Only small boards finish: the
solver's states grow fast with the number of layouts, most with the sinkings announced (the 4x4
board with ships 3 and 2, 264 layouts: about 7,000 states without announcements, 40,000 to 46,000
with them; 5x5 with the ships apart, 524 layouts: 250,000 states without, 2.3 million with them;
docs/research/limit.md has the table).

Under salvo rules the game is measured in turns: :mod:`battleship.lab.salvo_limit` solves it (the
fewest expected salvos, a set of K cells chosen each turn and answered as the rules say), and the
shooters' means are turns too.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from battleship.errors import BattleshipError, IllegalShot
from battleship.game import Observation
from battleship.inference import count, evidence, select_by_search
from battleship.inference.endgame import Solver
from battleship.lab.runner import simulate
from battleship.rules import Rules
from battleship.shooters import registry
from battleship.stop import OutOfTime, Stop
from battleship.tables import tables

# what `limit` measures unless told (its help names them)
DEFAULT_SHOOTERS = ["optimal", "density", "trial-sink", "rollout", "best"]
MAX_LAYOUTS = 5_000  # past this the exact solver does not finish in reasonable time
DEFAULT_STATES = (
    50_000_000  # the solver's budget of solved states (5x5 with ships 3 and 2 touching: 22.6 million)
)


@dataclass(frozen=True)
class Optimum:
    """The exact optimum of a small rule set."""

    layouts: int
    shots: float  # fewest expected shots over uniform layouts
    first_cell: int  # a best first shot (the first cell of a best first salvo)
    states: int  # states the solver solved
    seconds: float
    first_salvo: tuple[int, ...] = ()  # salvo rules: a best first salvo (``shots`` is then turns)


@dataclass(frozen=True)
class Limit:
    """The optimum and each shooter's mean over every layout (None: the shooter refuses the rules)."""

    optimum: Optimum
    means: dict[str, float | None] = field(default_factory=dict)
    refusals: dict[str, str] = field(default_factory=dict)

    @property
    def unit(self) -> str:
        """What the optimum and the means count: ``"turns"`` (salvos) under salvo rules, else ``"shots"``."""
        return "turns" if self.optimum.first_salvo else "shots"

    def gap(self, shooter: str) -> float | None:
        """A shooter's mean minus the optimum (shots it gives away), or None."""
        mean = self.means.get(shooter)
        return None if mean is None else mean - self.optimum.shots


def every_layout(rules: Rules) -> np.ndarray:
    """Every layout of ``rules`` as rows of placement indices (refused past ``MAX_LAYOUTS``).

    A one-ship fleet's layouts are its placements, in table order; larger fleets are listed in the
    search engine's visiting order (which selects layouts of two ships or more only).
    """
    total, _ = count(rules)
    if total > MAX_LAYOUTS:
        raise BattleshipError(
            f"{total:,} layouts: the exact optimum is for small boards (at most {MAX_LAYOUTS:,} layouts)"
        )
    if len(rules.fleet) == 1:
        return np.arange(total, dtype=np.int64)[:, None]
    return select_by_search(rules, evidence(rules, Observation(rules)), np.arange(total, dtype=np.int64))


def optimum(
    rules: Rules,
    budget: int = DEFAULT_STATES,
    rows: np.ndarray | None = None,
    stop: Stop | None = None,
    watch: Callable[[Solver], None] | None = None,
) -> Optimum:
    """Solve the whole game from the empty board (a clear error when the budget or the time runs out).

    ``rows`` is :func:`every_layout` when the caller has it already. ``stop`` is read every thousand
    states or so: a stop raises :class:`~battleship.stop.Stopped` (past a deadline, an
    :class:`~battleship.stop.OutOfTime` that says how far the solver got). ``watch`` is handed the
    solver before it starts, so that another thread can show its progress (``Solver.solving``).
    """
    rows = every_layout(rules) if rows is None else rows
    masks = tables(rules).masks
    if rules.salvo is not None:
        return _salvo_optimum(rules, [tuple(int(masks[p]) for p in row) for row in rows], budget, stop, watch)
    start = time.perf_counter()
    # the memo sized to the board: states grow much faster than layouts (5x5 apart, 524 layouts:
    # millions of states with the sinkings announced), and an overwritten state is searched again
    solver = Solver(rules, budget=budget, symmetric=True, stop=stop, memo=min(budget, 40_000 * len(rows)))
    if watch is not None:
        watch(solver)
    layouts = [tuple(int(masks[p]) for p in row) for row in rows]
    try:
        solved = solver.solve(layouts, 0)
    except OutOfTime:
        raise OutOfTime(
            f"out of time: the exact solver solved {solver.visits:,} states in "
            f"{time.perf_counter() - start:.0f} s ({len(rows):,} layouts) without finishing"
        ) from None
    if solved is None:
        raise BattleshipError(
            f"the exact solver did not finish within {budget:,} states ({len(rows):,} layouts, "
            f"{time.perf_counter() - start:.0f} s): try a smaller board or fleet, or a larger budget"
        )
    return Optimum(len(rows), solved[0], solved[1], solver.visits, time.perf_counter() - start)


MAX_SALVO_STATES = 2_000_000  # the salvo solver keeps every state in a Python dict: memory caps it


def _salvo_optimum(
    rules: Rules,
    layouts: list[tuple[int, ...]],
    budget: int,
    stop: Stop | None,
    watch: Callable[[Any], None] | None,
) -> Optimum:
    """The fewest expected turns under salvo rules, as an :class:`Optimum` (``shots`` counting turns)."""
    from battleship.lab.salvo_limit import SalvoSolver

    start = time.perf_counter()
    solver = SalvoSolver(rules, layouts, min(budget, MAX_SALVO_STATES), stop)
    if watch is not None:
        watch(solver)
    try:
        turns, first = solver.solve()
    except OutOfTime:
        raise OutOfTime(
            f"out of time: the salvo solver solved {solver.solving:,} states in "
            f"{time.perf_counter() - start:.0f} s ({len(layouts):,} layouts) without finishing"
        ) from None
    seconds = time.perf_counter() - start
    return Optimum(len(layouts), turns, first[0], solver.solving, seconds, tuple(first))


def limit(
    rules: Rules,
    shooters: list[str],
    seed: int = 0,
    budget: int = DEFAULT_STATES,
    stop: Stop | None = None,
    watch: Callable[[Solver], None] | None = None,
) -> Limit:
    """The optimum, and each shooter (a spec text) played once on every layout with ``seed``.

    With ``stop``, a request (or its deadline) ends the work with :class:`~battleship.stop.Stopped`;
    ``watch`` as in :func:`optimum`.
    """
    rows = every_layout(rules)
    return beside(rules, optimum(rules, budget, rows, stop, watch), rows, shooters, seed, stop)


def beside(
    rules: Rules,
    best: Optimum,
    rows: np.ndarray,
    shooters: list[str],
    seed: int = 0,
    stop: Stop | None = None,
) -> Limit:
    """Each shooter played once on every layout (``rows``, :func:`every_layout`), beside the optimum."""
    result = Limit(best)
    for text in shooters:
        name, options = registry.resolve(text, rules)
        why = registry.spec(name).refusal(rules)
        if why:
            result.means[text] = None
            result.refusals[text] = why
            continue
        try:
            shots = simulate(rules, name, len(rows), seed=seed, layouts=rows, options=options, stop=stop)
        except IllegalShot as exc:  # a shooter not yet taught these rules (salvos) fires an illegal turn
            result.means[text] = None
            result.refusals[text] = f"fired an illegal turn on these rules: {exc}"
            continue
        if stop is not None:
            stop.check()  # a stop cuts the games short: no mean over part of them
        result.means[text] = float(shots.mean())
    return result
