"""Games per second per shooter, on one core and on all cores.

Run: .venv/bin/python benchmarks/simulate.py [--games N]
Prints plain numbers: shooter, jobs, games per second, and the all-core speed-up.
"""

from __future__ import annotations

import argparse
import os
import time

from battleship import lab
from battleship.rules import preset
from battleship.shooters import kernels, spec


def rate(shooter: str, games: int, jobs: int) -> float:
    """Games per second for one run (after a warm-up run compiles the kernels)."""
    rules = preset("standard")
    if spec(shooter).refusal(rules):  # trial-sink plays the C# Pirates no-contact rules
        rules = preset("pirates")
    lab.simulate(rules, shooter, 1000, seed=0, jobs=jobs)
    start = time.perf_counter()
    lab.simulate(rules, shooter, games, seed=1, jobs=jobs)
    return games / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=400_000)
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    for shooter in kernels.KINDS:
        one = rate(shooter, args.games, 1)
        every = rate(shooter, args.games, cores)
        print(f"{shooter:20s} jobs 1 games_per_second {one:12,.0f}")
        print(f"{shooter:20s} jobs {cores} games_per_second {every:12,.0f} speedup {every / one:.2f}")


if __name__ == "__main__":
    main()
