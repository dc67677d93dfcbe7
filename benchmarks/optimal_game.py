"""A whole game of the `optimal` shooter (exact greedy play with its endgame solver), `pirates` by default.

Run: .venv/bin/python benchmarks/optimal_game.py [--rules pirates] [--games 30]
Prints, over uniform layouts (seed 4243), each game's CPU time and wall time (median, mean and
worst) and the mean shots, after the open board's graph is compiled and one game has warmed up;
then the mean CPU time of a game over one board's answer as `inference.work` foresees it once the
graph is compiled (its `again`): the figure `cli/estimate.py` multiplies that answer by
(`GAME_ANSWERS`) to say up front how long a run of games will take.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from battleship import generators
from battleship.game import play
from battleship.inference import posterior, work
from battleship.rng import game_rng
from battleship.rules import preset
from battleship.shooters import make

SEED = 4243


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="pirates")
    parser.add_argument("--games", type=int, default=30)
    args = parser.parse_args()
    rules = preset(args.rules)
    posterior(rules)  # the open board and its graph, once per process
    shooter = make("optimal")
    play(shooter, generators.generate(rules, "uniform", 99, 1)[0], game_rng(99, 0))  # warm-up
    cpu, wall, shots = [], [], []
    for i, layout in enumerate(generators.generate(rules, "uniform", SEED, args.games)):
        c, w = time.process_time(), time.perf_counter()
        record = play(shooter, layout, game_rng(SEED, i))
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
        shots.append(len(record.shots))
    answer = work(rules)
    print(
        f"optimal on {args.rules}, {args.games} games (uniform, seed {SEED}): CPU per game median "
        f"{np.median(cpu):.3f} s, mean {np.mean(cpu):.3f} s, worst {max(cpu):.3f} s; wall median "
        f"{np.median(wall):.3f} s, worst {max(wall):.3f} s; mean shots {np.mean(shots):.2f}\n"
        f"one answer foreseen ({answer.engine}, {answer.detail}): {answer.again:.4f} s; "
        f"a game's mean CPU time is {np.mean(cpu) / answer.again:.1f} of them"
    )


if __name__ == "__main__":
    main()
