"""Time a shot of one shooter, one core: median, 90th percentile and worst over whole games, in wall-clock
time and in the process's CPU time (the figure that holds on a busy machine).

Run: .venv/bin/python benchmarks/shot_time.py --shooter montecarlo --rules pirates --games 5
Plays --games games on uniform layouts (seed 100 + game) with the readable shooter, timing every
call of next_shot (the first call of the first game is a warm-up and not timed). Prints plain numbers.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator

import numpy as np

from battleship import generators
from battleship.game import Game, Observation
from battleship.layout import Layout
from battleship.rules import Rules, load
from battleship.shooters import make


def timed_shots(
    text: str, rules: Rules, layouts: list[Layout], warm_up: bool = False
) -> Iterator[tuple[Observation, float, float]]:
    """Every shot of ``text`` over whole games on ``layouts`` (game ``i`` seeded ``i``): the board it was
    asked on, and the call's wall-clock and process (CPU) seconds. Whatever the caller does with a board
    before asking for the next is not timed. ``warm_up``: the first game's shooter is asked once, untimed,
    before its game (the first call compiles or loads the kernels). The benchmarks that time shots use this."""
    for i, layout in enumerate(layouts):
        shooter = make(text)
        shooter.reset(rules, np.random.default_rng(i))
        game = Game(layout)
        if warm_up and i == 0:
            shooter.next_shot(game.observation)
        while not game.over:
            observation = game.observation
            start, start_cpu = time.perf_counter(), time.process_time()
            cell = shooter.next_shot(observation)
            wall, cpu = time.perf_counter() - start, time.process_time() - start_cpu
            yield observation, wall, cpu
            game.fire(cell)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--shooter", default="montecarlo")
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--games", type=int, default=5)
    args = parser.parse_args()
    rules = load(args.rules)
    layouts = [generators.generate(rules, "uniform", 100 + i, 1)[0] for i in range(args.games)]
    times, cpu = [], []
    for _board, wall, seconds in timed_shots(args.shooter, rules, layouts, warm_up=True):
        times.append(wall)
        cpu.append(seconds)
    mean_shots = len(times) / args.games
    for what, seconds in (("ms_per_shot", times), ("cpu_ms_per_shot", cpu)):
        t = np.array(seconds) * 1000
        print(
            f"{args.rules} {args.shooter} games {args.games} mean_shots {mean_shots:.2f} {what} "
            f"mean {t.mean():.2f} median {np.median(t):.2f} p90 {np.quantile(t, 0.9):.2f} max {t.max():.2f}"
        )


if __name__ == "__main__":
    main()
