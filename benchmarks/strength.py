"""Strength of the kept shooters (issue 5's table): mean shots with a 95% interval, and time per shot.

Run: .venv/bin/python benchmarks/strength.py [--games N] [--slow-games N] [--seed S] [--jobs J]
Prints plain numbers, one line per (rules, shooter): games, mean, interval, median, milliseconds
per shot (wall time over every shot fired, all jobs together), and the gap to the published
figure it is measured against. Kernel shooters play --games games; shooters played in Python
(optimal) play --slow-games, on the first layouts of the same run.
"""

from __future__ import annotations

import argparse
import time

from battleship import lab
from battleship.rules import preset
from battleship.shooters.best import BEST, PUBLISHED, kept
from battleship.shooters.options import parse_spec


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--slow-games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    for rules_name in BEST:
        rules = preset(rules_name)
        for spec in kept(rules_name):
            name, options = parse_spec(spec)
            games = args.games if lab.is_kernel(name) else args.slow_games
            lab.warm_up(rules, name)
            start = time.perf_counter()
            shots = lab.simulate(rules, name, games, seed=args.seed, jobs=args.jobs, options=options)
            seconds = time.perf_counter() - start
            s = lab.summarise(shots, rules.ship_cells, seconds)
            published = PUBLISHED.get(rules_name)
            gap = f" minus_published {s.mean - published:+.3f}" if published else ""
            print(
                f"{rules_name:12s} {spec:28s} games {games} mean {s.mean:.3f} ci95 {s.ci95[0]:.3f} "
                f"{s.ci95[1]:.3f} median {s.median:g} ms_per_shot {1000 * seconds / shots.sum():.4f}{gap}"
            )


if __name__ == "__main__":
    main()
