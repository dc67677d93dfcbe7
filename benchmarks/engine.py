"""Speed of exact inference under every spacing rule, one core, in one process after a warm-up.

Run: .venv/bin/python benchmarks/engine.py [--games 20] [--boards standard pirates ...] [--play pirates ...]
     [--clock wall|cpu]

Part 1, the boards: for each rules (standard; `pirates`; `seabattle`; the standard fleet under a
`no-edge` rules file; 12x12 with ships 5,4,4,3,3,2, `no-edge`, anonymous sinks) the work foreseen
(`inference.work`), the time to compile the sweep engine's state graph and its size (rules with a
spacing margin), the open board's count alone and its count with every placement's count
(`posterior`, not the cached answer), then boards with one, two and three misses (E5; E5 C3;
E5 C3 H8), one call each after a warm-up call of the same board. Each figure is printed with its
ratio to standard's. A board the engines would take far longer than --limit seconds on is skipped.

Part 2, the games: whole games of exact greedy play (a loop calling `posterior` and firing the most
likely unshot cell, as the `optimal` shooter does) on uniform layouts, every turn timed: median,
95th percentile and worst turn, and the median and worst game. The turns measure the engine, so
every board after the first shot (the open board, shared) is computed afresh (`cached=False`);
then the same games are played with the boards with misses only kept (the posterior's cache, as a
shooter plays a run of games): median, worst and first game.

Last, the peak resident memory of the process (it only grows: each section's figure is printed).
Plain numbers; the machine may be shared, so compare ratios within one run. `--clock cpu` times
each call by the process's CPU time instead of the wall clock (steadier when other work shares the
cores; the compiler and the sweep run on one thread at a time).
"""

from __future__ import annotations

import argparse
import resource
import threading
import time

import numpy as np

from battleship import generators
from battleship.game import Game, Observation
from battleship.inference import count, evidence, posterior, work
from battleship.inference import graph as graphs
from battleship.inference.sweep import classes, shape_of
from battleship.rules import Rules, Ship, Sinks, Spacing, from_toml, preset
from battleship.stop import Stop

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


CLOCK = {"wall": time.perf_counter, "cpu": time.process_time}
clock = time.perf_counter  # set by --clock


def timed(func, *args, **kwargs) -> tuple[float, object]:
    """(seconds, result) of one call, on the clock --clock chose (wall, or this process's CPU time:
    every thread's, the engines' watched worker included; steadier on a shared machine)."""
    start = clock()
    result = func(*args, **kwargs)
    return clock() - start, result


def peak_mb() -> float:
    """The process's peak resident memory so far, in MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def compile_graph(name: str, rules: Rules) -> None:
    """The sweep engine's graph for the open board of ``rules``: compile time (fresh) and size."""
    ev = evidence(rules, Observation(rules))
    shape = shape_of(rules, classes(rules, ev.admissible.astype(np.int64), ev.hits))
    if graphs.cached(shape) is not None:
        return
    seconds, graph = timed(graphs.compiled, shape)
    print(
        f"  compile graph    {1000 * seconds:10.1f} ms: {graph.states:,} states, {graph.edges:,} edges, "
        f"{graph.nbytes / 1e6:.0f} MB",
        flush=True,
    )


def boards(name: str, rules: Rules, base: dict[str, float], limit: float) -> None:
    """Part 1 for one rules: work foreseen, graph, open-board count, open-board posterior, 1-3 misses."""
    ahead = work(rules)
    print(f"{name}: foreseen {ahead.engine}, about {ahead.seconds:.2f} s ({ahead.detail})", flush=True)
    if ahead.beyond(limit):
        print(f"  skipped: far beyond {limit} s", flush=True)
        return
    if ahead.engine == "sweep":
        compile_graph(name, rules)
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


def play_games(rules: Rules, games: int, seed: int, cached: bool) -> tuple[list[float], list[float], tuple]:
    """Greedy games on uniform layouts: every turn's time, every game's, and (game, turn) of the worst.

    The first shot is the open board's best cell: that board is answered once per rules and shared
    (the cache keeps it), so it is not a turn anyone waits for and is not timed.
    """
    turns: list[float] = []
    totals: list[float] = []
    worst_at = (0, 0)
    for g, layout in enumerate(generators.generate(rules, "uniform", seed, games)):
        game = Game(layout)
        spent = 0.0
        game.fire(posterior(rules).best(game.observation)[0])  # the open board: shared, not a turn
        while not game.over:
            seconds, result = timed(posterior, rules, game.observation, cached=cached)
            if not turns or seconds > max(turns):
                worst_at = (g, len(game.observation.shots) + 1)
            turns.append(seconds)
            spent += seconds
            game.fire(result.best(game.observation)[0])
        totals.append(spent)
    return turns, totals, worst_at


def greedy(name: str, rules: Rules, games: int, seed: int) -> None:
    """Part 2 for one rules: whole games of exact greedy play, every turn timed.

    The turns measure the engine: every board is computed afresh (``cached=False``), boards with
    misses only included, which a run of games otherwise computes once (the posterior keeps them).
    The same games are then played as a shooter plays them, with that cache, for a game's time.
    """
    posterior(rules, misses(rules, 1), cached=False)  # compile
    posterior(rules)  # the open board, computed once per rules, is not a turn anyone waits for
    turns, totals, worst_at = play_games(rules, games, seed, cached=False)
    t = 1000 * np.array(turns)
    print(
        f"{name} greedy: {games} games, {len(t)} turns: median {np.median(t):.2f} ms, "
        f"p95 {np.quantile(t, 0.95):.2f} ms, worst {t.max():.1f} ms (game {worst_at[0]}, turn {worst_at[1]}); "
        f"game median {np.median(totals):.3f} s, worst {max(totals):.3f} s; peak memory so far {peak_mb():.0f} MB",
        flush=True,
    )
    _, kept, _ = play_games(rules, games, seed, cached=True)
    print(
        f"{name} greedy, boards with misses only kept (as a shooter plays): game median "
        f"{np.median(kept):.3f} s, worst {max(kept):.3f} s, first game {kept[0]:.3f} s",
        flush=True,
    )


def stopping(rules: Rules) -> None:
    """How soon a stop requested mid-compile is obeyed (the graph with every ship its own class)."""
    shape = graphs.Shape(
        rules.rows, rules.cols, graphs.NO_CONTACT, tuple(s.size for s in rules.fleet), (1,) * len(rules.fleet)
    )
    stop = Stop()
    threading.Timer(0.5, stop.request).start()
    start = time.perf_counter()
    built = graphs.compiled(shape, stop.flag)
    late = time.perf_counter() - start - 0.5
    what = "compiled before the request" if built is not None else f"obeyed {1000 * late:.0f} ms after it"
    print(f"a stop requested 0.5 s into compiling {rules.name}'s graph with single-ship classes: {what}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", nargs="*", default=list(RULES), choices=list(RULES))
    parser.add_argument(
        "--play", nargs="*", default=["standard", "pirates", "seabattle"], choices=list(RULES)
    )
    parser.add_argument("--games", type=int, default=20, help="games of greedy play per rules")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--limit", type=float, default=30, help="skip boards foreseen far beyond this")
    parser.add_argument("--clock", choices=list(CLOCK), default="wall", help="what a time is measured on")
    args = parser.parse_args()
    global clock
    clock = CLOCK[args.clock]
    print(f"times on the {args.clock} clock", flush=True)
    base: dict[str, float] = {}
    if "standard" not in args.boards:
        args.boards.insert(0, "standard")  # the ratios need it
    for name in args.boards:
        boards(name, RULES[name](), base, args.limit)
    for name in args.play:
        greedy(name, RULES[name](), args.games, args.seed)
    stopping(RULES["pirates"]())
    print(f"peak memory {peak_mb():.0f} MB")


if __name__ == "__main__":
    main()
