"""Time a shot of one shooter, one core: median, 90th percentile and worst over whole games, in wall-clock
time and in the process's CPU time (the figure that holds on a busy machine).

Run: .venv/bin/python benchmarks/shot_time.py --shooter montecarlo --rules pirates --games 5
Plays --games games on uniform layouts (seed 100 + game) with the readable shooter, timing every
call of next_shot (the first call of the first game is a warm-up and not timed). Prints plain numbers.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from battleship import generators
from battleship.game import Game
from battleship.rules import load
from battleship.shooters import make


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--shooter", default="montecarlo")
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--games", type=int, default=5)
    args = parser.parse_args()
    rules = load(args.rules)
    times, cpu, shots = [], [], []
    for i in range(args.games):
        game = Game(generators.generate(rules, "uniform", 100 + i, 1)[0])
        shooter = make(args.shooter)
        shooter.reset(rules, np.random.default_rng(i))
        if i == 0:
            shooter.next_shot(game.observation)
        while not game.over:
            start, start_cpu = time.perf_counter(), time.process_time()
            cell = shooter.next_shot(game.observation)
            times.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
            game.fire(cell)
        shots.append(len(game.observation.shots))
    for what, seconds in (("ms_per_shot", times), ("cpu_ms_per_shot", cpu)):
        t = np.array(seconds) * 1000
        print(
            f"{args.rules} {args.shooter} games {args.games} mean_shots {np.mean(shots):.2f} {what} "
            f"mean {t.mean():.2f} median {np.median(t):.2f} p90 {np.quantile(t, 0.9):.2f} max {t.max():.2f}"
        )


if __name__ == "__main__":
    main()
