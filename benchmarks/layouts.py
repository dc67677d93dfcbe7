"""Layouts per second for each generator, and the exact counter on the open standard board.

Run: .venv/bin/python benchmarks/layouts.py [--count N]
Prints plain numbers: one line per measurement.
"""

from __future__ import annotations

import argparse
import time

from battleship import generators
from battleship.inference import count, occupancy
from battleship.rules import preset


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=1_000_000, help="layouts per measurement")
    args = parser.parse_args()
    for rules_name, generator in (
        ("standard", "uniform"),
        ("standard", "sequential"),
        ("r-blog", "r-blog"),
        ("pirates", "uniform"),
    ):
        rules = preset(rules_name)
        generators.draw(rules, generator, 0, 1000)  # compile and warm up
        start = time.perf_counter()
        generators.draw(rules, generator, 1, args.count)
        drawn = time.perf_counter() - start
        print(f"{rules_name:9s} {generator:10s} layouts_per_second {args.count / drawn:14,.0f}")
    rules = preset("standard")
    occupancy(rules)  # compile
    start = time.perf_counter()
    total, _ = count(rules)
    print(f"standard exact count {total} seconds {time.perf_counter() - start:.4f}")
    start = time.perf_counter()
    occupancy(rules)
    print(f"standard exact per-cell occupancy seconds {time.perf_counter() - start:.4f}")


if __name__ == "__main__":
    main()
