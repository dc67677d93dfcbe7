"""A whole game of the `optimal` shooter (exact greedy play with its endgame solver) on `pirates`.

Run: .venv/bin/python benchmarks/optimal_game.py
Prints, over 30 uniform layouts (seed 4243), each game's CPU time and wall time (median and worst)
and the mean shots, after the open board's graph is compiled and one game has warmed up.
"""

from __future__ import annotations

import time

import numpy as np

from battleship import generators
from battleship.game import play
from battleship.inference import posterior
from battleship.rng import game_rng
from battleship.rules import preset
from battleship.shooters import make

GAMES = 30
SEED = 4243


def main() -> None:
    rules = preset("pirates")
    posterior(rules)  # the open board and its graph, once per process
    shooter = make("optimal")
    play(shooter, generators.generate(rules, "uniform", 99, 1)[0], game_rng(99, 0))  # warm-up
    cpu, wall, shots = [], [], []
    for i, layout in enumerate(generators.generate(rules, "uniform", SEED, GAMES)):
        c, w = time.process_time(), time.perf_counter()
        record = play(shooter, layout, game_rng(SEED, i))
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
        shots.append(len(record.shots))
    print(
        f"optimal on pirates, {GAMES} games (uniform, seed {SEED}): CPU per game median "
        f"{np.median(cpu):.3f} s, worst {max(cpu):.3f} s; wall median {np.median(wall):.3f} s, "
        f"worst {max(wall):.3f} s; mean shots {np.mean(shots):.2f}"
    )


if __name__ == "__main__":
    main()
