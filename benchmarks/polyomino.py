"""Speed of exact inference for a fleet with a polyomino: the search engine (before) against the
frontier engine (after), one process, one core.

Run: .venv/bin/python benchmarks/polyomino.py [--spacing no-contact|no-edge|touch ...] [--clock cpu|wall]
     [--shots 12] [--seed 1] [--no-search]

The rules: 10x10, the standard fleet (5, 4, 3, 3, 2) plus a 2x2 square, ships named when sunk, under
each spacing asked for (default: no contact). The boards: the open board, and a mid-game board (a
seeded uniform layout, the referee's answers to the first --shots cells of a seeded random order).
For each board: the search engine's exact posterior (every placement's count), then the frontier
engine's: the first call (compiling its state graph for the rules, once per process) and a second
call (the graph kept: what every later board of a game costs), the layouts checked equal between
the engines, and the ratios. `--clock cpu` times each call by the process's CPU time (steadier when
the machine is shared; the kernels run on one thread at a time).
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from battleship import generators
from battleship.game import Game, Observation
from battleship.inference import evidence, frontier
from battleship.inference import graph as graphs
from battleship.inference.search import count_by_search
from battleship.rules import Rules, Ship, Sinks, Spacing, preset

CLOCK = {"wall": time.perf_counter, "cpu": time.process_time}


def square_fleet(spacing: Spacing) -> Rules:
    """The standard fleet and a 2x2 square on 10x10."""
    square = Ship("Square", "Q", ((0, 0), (0, 1), (1, 0), (1, 1)))
    return Rules(10, 10, (*preset("standard").fleet, square), spacing, Sinks.NAMED, name="standard+square")


def mid_game(rules: Rules, shots: int, seed: int) -> Observation:
    """The referee's answers to the first ``shots`` cells of a seeded order at a seeded uniform layout."""
    game = Game(generators.generate(rules, "uniform", seed, 1)[0])
    for cell in np.random.default_rng(seed).permutation(rules.cells)[:shots]:
        if game.over:
            break
        game.fire(int(cell))
    return game.observation


def timed(clock, func, *args) -> tuple[float, object]:
    """(seconds, result) of one call."""
    start = clock()
    result = func(*args)
    return clock() - start, result


def board(name: str, rules: Rules, observation: Observation, clock, search: bool) -> None:
    """Before and after on one board."""
    ev = evidence(rules, observation)
    print(f"  {name}: {observation.text() if observation.shots else 'no shot'}", flush=True)
    cold, (total, counts) = timed(clock, frontier.count_by_frontier, rules, ev)
    warm, (again, _) = timed(clock, frontier.count_by_frontier, rules, ev)
    graph = frontier.graph_if_compiled(rules, ev)
    print(f"    frontier, first call   {cold:9.3f} s  ({total:,} layouts)", flush=True)
    print(
        f"    frontier, graph kept   {warm:9.3f} s  ({graph.states:,} states, {graph.edges:,} edges, "
        f"{graph.nbytes / 1e6:.0f} MB)",
        flush=True,
    )
    assert again == total
    if search:
        before, (want, want_counts) = timed(clock, count_by_search, rules, ev)
        same = want == total and (want_counts == counts).all()
        print(f"    search (before)        {before:9.3f} s  (same counts: {same})", flush=True)
        print(
            f"    ratio search / frontier: {before / warm:,.0f}x (graph kept), {before / cold:,.1f}x (first call)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spacing", nargs="+", default=["no-contact"], choices=[s.value for s in Spacing])
    parser.add_argument("--clock", choices=sorted(CLOCK), default="cpu")
    parser.add_argument("--shots", type=int, default=12)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-search", action="store_true", help="skip the search engine (minutes)")
    args = parser.parse_args()
    clock = CLOCK[args.clock]
    for spacing in args.spacing:
        rules = square_fleet(Spacing(spacing))
        print(f"standard fleet + 2x2 square, 10x10, {spacing}, named sinks ({args.clock} clock)", flush=True)
        board("open board", rules, Observation(rules), clock, not args.no_search)
        board("mid-game", rules, mid_game(rules, args.shots, args.seed), clock, not args.no_search)
        graphs._cache.clear()  # one graph at a time
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"  peak resident memory so far: {peak:,.0f} MB", flush=True)


if __name__ == "__main__":
    main()
