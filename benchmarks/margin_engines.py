"""What a spacing margin costs exact inference: the same boards under standard, pirates and Sea Battle.

Run: .venv/bin/python benchmarks/margin_engines.py [--rules standard pirates seabattle]
Prints, for four boards (one miss; four misses; a miss and a hit; two misses and two hits), the engine
the posterior chose and the seconds of one call after a warm-up call (per-cell marginals included),
and the same with the layouts counted only. `benchmarks/engine.py` measures the engines more fully.
"""

from __future__ import annotations

import argparse
import time

from battleship.game import Observation
from battleship.inference import count, posterior
from battleship.rules import preset

BOARDS = ((["E5"], []), (["E5", "D4", "C7", "H2"], []), (["E5"], ["F6"]), (["E5", "C3"], ["F6", "F7"]))


def board(rules, misses: list[str], hits: list[str]) -> Observation:
    """An observation with these misses and hits (cell names like E5)."""
    grid = [["."] * rules.cols for _ in range(rules.rows)]
    for names, mark in ((misses, "o"), (hits, "x")):
        for name in names:
            grid[int(name[1:]) - 1][ord(name[0]) - ord("A")] = mark
    return Observation.from_text("/".join("".join(row) for row in grid), rules)


def seconds(func, *args, **kwargs):
    """(seconds, result) of one call, after a warm-up call."""
    func(*args, **kwargs)
    start = time.perf_counter()
    result = func(*args, **kwargs)
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rules", nargs="*", default=["standard", "pirates", "seabattle"])
    args = parser.parse_args()
    for name in args.rules:
        rules = preset(name)
        for misses, hits in BOARDS:
            observation = board(rules, misses, hits)
            took, result = seconds(posterior, rules, observation, cached=False)
            bare, _ = seconds(count, rules, observation)
            label = f"misses {','.join(misses)} hits {','.join(hits) or '-'}"
            print(
                f"{name:10s} {label:32s} {result.engine:8s} {took * 1000:10.1f} ms ({bare * 1000:.1f} ms count only)",
                flush=True,
            )


if __name__ == "__main__":
    main()
