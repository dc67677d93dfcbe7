"""Compile (or load from the cache) the Numba kernels the suite uses, once, before its workers start.

Run: python tests/warm_kernels.py [--part I/N]

Every kernel is cached on disk once compiled (``cache=True``, in ``__pycache__`` next to its
source). Test workers that start on a cold cache each compile the kernels their files reach, the
same ones at the same time; compiled here first, the workers only load them. ``--part I/N`` does
every N-th step from the I-th (0-based), so that N processes share the work. Prints the seconds.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from functools import partial

import numpy as np

from battleship import generators
from battleship.game import Game, Observation
from battleship.inference import posterior
from battleship.inference.sampling import draw
from battleship.lab import limit
from battleship.lab.runner import warm_up
from battleship.rules import Rules, Ship, Sinks, Spacing, preset
from battleship.shooters import make, registry
from battleship.tables import tables

STANDARD = preset("standard")
# a board the endgame solver finishes in a moment
TINY = Rules(3, 3, (Ship.line("Two", "T", 2), Ship.line("Other two", "W", 2)), Spacing.TOUCH, Sinks.NAMED)
# a board whose exact engine is the state graph's sweep, compiled in a moment
APART = Rules(
    6, 6, (Ship.line("Cruiser", "C", 3), Ship.line("Destroyer", "D", 2)), Spacing.NO_CONTACT, Sinks.NONE
)


def half_fired(rules: Rules) -> Observation:
    """A board fired at on every other cell: past the open board, short of the end."""
    game = Game(generators.generate(rules, "uniform", 1, 1)[0])
    for cell in range(0, rules.cells, 2):
        if not game.over:
            game.fire(cell)
    return game.observation


def counts(rules: Rules) -> None:
    posterior(rules)
    posterior(rules, half_fired(rules))


def weighed_counts(rules: Rules) -> None:
    """The engines again with float weights a placement (a prior): kernels of their own."""
    prior = np.linspace(0.5, 2.0, len(tables(rules).masks))
    posterior(rules, prior=prior)
    posterior(rules, half_fired(rules), prior=prior)


def first_shots(rules: Rules, name: str) -> None:
    shooter = make(name)
    for board in (Observation(rules), half_fired(rules)):
        try:
            shooter.reset(rules, np.random.default_rng(0))
        except Exception:  # a shooter that needs more than its name (a fitted model's file)
            return
        shooter.next_shot(board)


def steps() -> list[tuple[str, Callable[[], object]]]:
    """Every kernel's first call: layouts, each whole-game kernel, the engines, sampling, each shooter."""
    out: list[tuple[str, Callable[[], object]]] = [
        (f"layouts {name}", partial(generators.draw, STANDARD, name, 0, 2, threads=False))
        for name in generators.GENERATORS
    ]
    played = {}
    for name in registry.names():
        rules = next((r for r in (STANDARD, APART) if registry.spec(name).refusal(r) is None), None)
        if rules is not None:
            played[name] = rules
    kernel = [n for n in played if registry.spec(n).kernel is not None]
    out += [(f"{n} games", partial(warm_up, played[n], n)) for n in kernel]
    out += [("counts standard", partial(counts, STANDARD)), ("counts apart", partial(counts, APART))]
    out += [("samples", partial(draw, STANDARD, half_fired(STANDARD), 4, seed=0))]
    # the engines under a prior and the endgame solver: left out, the test workers compiled them (as a
    # run's cache showed), each worker that reaches one before another has cached it
    out += [("weighed counts standard", partial(weighed_counts, STANDARD))]
    out += [("weighed counts apart", partial(weighed_counts, APART))]
    out += [("endgame", partial(limit.optimum, TINY))]
    out += [(f"{n} shots", partial(first_shots, played[n], n)) for n in played if n not in kernel]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", default="0/1", help="I/N: every N-th step from the I-th")
    args = parser.parse_args()
    part, parts = (int(x) for x in args.part.split("/"))
    start = time.perf_counter()
    for _label, run in steps()[part::parts]:
        run()
    print(f"warm {part}/{parts}: {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
