"""Exact play under the contest generator's own layout law against its placement weights, on contest layouts.

``optimal:prior=contest-exact`` weighs exact uniform samples of the consistent layouts by their
probability under the C# Pirates organiser's ship-by-ship board filler; ``optimal:prior=contest-weights``
weighs each placement by how often the filler draws it (exact counts under that product prior).
Both play the same held-out contest layouts on the ``pirates`` rules.

Run (long: seconds a game; Ctrl-C keeps every finished game, ``--resume`` carries on):

    .venv/bin/python benchmarks/contest_exact_prior.py --games 2000 --seed 45045 --jobs 2 \\
        --out contest-exact.txt

or summarise a results file written by ``battleship compare ... --out FILE`` (finished games only):

    .venv/bin/python benchmarks/contest_exact_prior.py --summarise FILE

Prints each shooter's mean with its 95% interval and the paired difference (first minus second).
Also times the exact prior's shots on a few games (``--timing N``): the mean and slowest shot.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from battleship import generators
from battleship.game import Game
from battleship.lab import paired_difference
from battleship.lab.summary import t95
from battleship.rules import preset
from battleship.shooters import make

SHOOTERS = ("optimal:prior=contest-exact", "optimal:prior=contest-weights")


def summarise(path: Path) -> None:
    """Means and the paired difference from a compare results file (one game a line)."""
    lines = path.read_text().splitlines()
    names = lines[0].lstrip("# ").split("\t")
    shots = np.array([[int(x) for x in line.split()] for line in lines[1:] if line.strip()])
    games = len(shots)
    print(f"{path}: {games} games")
    for k, name in enumerate(names):
        column = shots[:, k]
        half = t95(games - 1) * column.std(ddof=1) / games**0.5
        print(
            f"  {name:32s} mean {column.mean():.3f} ({column.mean() - half:.3f} .. {column.mean() + half:.3f})"
        )
    mean, (low, high) = paired_difference(shots[:, 0], shots[:, 1])
    print(f"  {names[0]} minus {names[1]}: {mean:+.3f} ({low:+.3f} .. {high:+.3f})")


def timing(games: int, spec: str, seed: int) -> None:
    """Seconds a shot of ``spec`` on contest layouts, wall clock and this process's CPU (the first game,
    which compiles, left out: on a busy machine the wall clock counts other programs' turns too)."""
    rules = preset("pirates")
    layouts = generators.generate(rules, "contest", seed, games + 1)
    shooter = make(spec)
    wall: list[float] = []
    cpu: list[float] = []
    for i, layout in enumerate(layouts):
        shooter.reset(rules, np.random.default_rng(i))
        game = Game(layout)
        while not game.over:
            start, start_cpu = time.perf_counter(), time.process_time()
            game.fire(shooter.next_shot(game.observation))
            if i:
                wall.append(time.perf_counter() - start)
                cpu.append(time.process_time() - start_cpu)
    print(f"{spec}: {len(wall)} shots over {games} games")
    print(f"  wall clock: mean {np.mean(wall):.3f} s, slowest {max(wall):.3f} s")
    print(
        f"  CPU: mean {np.mean(cpu):.3f} s, slowest {max(cpu):.3f} s, shots over 0.5 s {sum(c > 0.5 for c in cpu)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=45045)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("contest-exact.txt"))
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--summarise", type=Path, help="only summarise this results file")
    parser.add_argument("--timing", type=int, default=0, help="time the exact prior's shots on N games")
    parser.add_argument(
        "--samples", type=int, default=0, help="samples a shot for the exact prior (0: default)"
    )
    args = parser.parse_args()
    exact = SHOOTERS[0] + (f",samples={args.samples}" if args.samples else "")
    if args.timing:
        timing(args.timing, exact, args.seed + 1)
        return
    if args.summarise is None:
        command = [sys.executable, "-m", "battleship", "compare", exact, SHOOTERS[1], "--rules", "pirates"]
        command += ["--generator", "contest", "--games", str(args.games), "--seed", str(args.seed)]
        command += ["--jobs", str(args.jobs), "--out", str(args.out)] + (["--resume"] if args.resume else [])
        subprocess.run(command, check=False)
    summarise(args.summarise or args.out)


if __name__ == "__main__":
    main()
