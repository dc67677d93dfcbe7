"""Speed of exact inference under every spacing rule, one core, in one process after a warm-up.

Run: .venv/bin/python benchmarks/engine.py [--games 20] [--boards standard pirates ...] [--play pirates ...]

Part 1, the boards: for each rules (standard; `pirates`; `seabattle`; the standard fleet under a
`no-edge` rules file; 12x12 with ships 5,4,4,3,3,2, `no-edge`, anonymous sinks) the open board's
count alone and its count with every placement's count (`posterior`, not the cached answer), then
boards with one, two and three misses (E5; E5 C3; E5 C3 H8), one call each after a warm-up call of
the same board. Each figure is printed with its ratio to standard's.

Part 2, the games: whole games of exact greedy play (a loop calling `posterior` and firing the most
likely unshot cell, as the `optimal` shooter does) on uniform layouts, every turn timed: median,
95th percentile and worst turn, and the median and worst game.

Last, the peak resident memory of the process (it only grows: each section's figure is printed).
Plain numbers; the machine may be shared, so compare ratios within one run.
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from battleship import generators
from battleship.game import Game, Observation
from battleship.inference import count, posterior
from battleship.rules import Rules, Ship, Sinks, Spacing, from_toml, preset

NO_EDGE_TOML = """\
name = "no-edge"
rows = 10
cols = 10
spacing = "no-edge"
sinks = "named"

[[ship]]
name = "Carrier"
symbol = "C"
length = 5

[[ship]]
name = "Battleship"
symbol = "B"
length = 4

[[ship]]
name = "Destroyer"
symbol = "D"
length = 3

[[ship]]
name = "Submarine"
symbol = "S"
length = 3

[[ship]]
name = "Patrol Boat"
symbol = "P"
length = 2
"""

MISSES = ("E5", "C3", "H8")


def twelve() -> Rules:
    """12x12, ships 5,4,4,3,3,2, no-edge, anonymous sinks (issue 26's slow board)."""
    fleet = tuple(Ship.line(f"Ship {s}", s, n) for s, n in zip("ABCDEF", (5, 4, 4, 3, 3, 2), strict=True))
    return Rules(12, 12, fleet, Spacing.NO_EDGE, Sinks.SUNK, name="12x12-no-edge")


RULES = {
    "standard": lambda: preset("standard"),
    "pirates": lambda: preset("pirates"),
    "seabattle": lambda: preset("seabattle"),
    "no-edge": lambda: from_toml(NO_EDGE_TOML, "no-edge.toml"),
    "12x12": twelve,
}


def misses(rules: Rules, n: int) -> Observation:
    """The open board with the first ``n`` of :data:`MISSES` shot and missed."""
    grid = [["."] * rules.cols for _ in range(rules.rows)]
    for name in MISSES[:n]:
        grid[int(name[1:]) - 1][ord(name[0]) - ord("A")] = "o"
    return Observation.from_text("/".join("".join(row) for row in grid), rules)


def timed(func, *args, **kwargs) -> tuple[float, object]:
    """(seconds, result) of one call."""
    start = time.perf_counter()
    result = func(*args, **kwargs)
    return time.perf_counter() - start, result


def peak_mb() -> float:
    """The process's peak resident memory so far, in MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def boards(name: str, rules: Rules, base: dict[str, float]) -> None:
    """Part 1 for one rules: open-board count, open-board posterior, 1-3 misses."""
    posterior(rules, misses(rules, 1), cached=False)  # compile and warm up
    seconds, (layouts, engine) = timed(count, rules)
    rows = [("open count", seconds)]
    seconds, result = timed(posterior, rules, None, None, False)
    rows.append(("open posterior", seconds))
    for n in (1, 2, 3):
        observation = misses(rules, n)
        posterior(rules, observation, cached=False)  # the same board once before it is timed
        rows.append(
            (f"{n} miss{'es' if n > 1 else ''}", timed(posterior, rules, observation, cached=False)[0])
        )
    print(f"{name}: {layouts:,} layouts, engine {engine} (posterior engine {result.engine})", flush=True)
    for label, seconds in rows:
        key = label
        ratio = "" if name == "standard" or key not in base else f"  {seconds / base[key]:8.1f}x standard"
        if name == "standard":
            base[key] = seconds
        print(f"  {label:<16} {1000 * seconds:10.1f} ms{ratio}", flush=True)
    print(f"  peak memory so far {peak_mb():.0f} MB", flush=True)


def greedy(name: str, rules: Rules, games: int, seed: int) -> None:
    """Part 2 for one rules: whole games of exact greedy play, every turn timed."""
    posterior(rules, misses(rules, 1), cached=False)  # compile
    posterior(rules)  # the open board, computed once per rules, is not a turn anyone waits for
    turns: list[float] = []
    totals: list[float] = []
    worst_at = (0, 0)
    for g, layout in enumerate(generators.generate(rules, "uniform", seed, games)):
        game = Game(layout)
        spent = 0.0
        while not game.over:
            seconds, result = timed(posterior, rules, game.observation)
            if not turns or seconds > max(turns):
                worst_at = (g, len(game.observation.shots) + 1)
            turns.append(seconds)
            spent += seconds
            game.fire(result.best(game.observation)[0])
        totals.append(spent)
    t = 1000 * np.array(turns)
    print(
        f"{name} greedy: {games} games, {len(t)} turns: median {np.median(t):.2f} ms, "
        f"p95 {np.quantile(t, 0.95):.2f} ms, worst {t.max():.1f} ms (game {worst_at[0]}, turn {worst_at[1]}); "
        f"game median {np.median(totals):.3f} s, worst {max(totals):.3f} s; peak memory so far {peak_mb():.0f} MB",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", nargs="*", default=list(RULES), choices=list(RULES))
    parser.add_argument(
        "--play", nargs="*", default=["standard", "pirates", "seabattle"], choices=list(RULES)
    )
    parser.add_argument("--games", type=int, default=20, help="games of greedy play per rules")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    base: dict[str, float] = {}
    if "standard" not in args.boards:
        args.boards.insert(0, "standard")  # the ratios need it
    for name in args.boards:
        boards(name, RULES[name](), base)
    for name in args.play:
        greedy(name, RULES[name](), args.games, args.seed)
    print(f"peak memory {peak_mb():.0f} MB")


if __name__ == "__main__":
    main()
