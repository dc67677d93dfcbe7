"""Salvo play in turns: each shooter on `salvo` and `salvo-count`, and what a count answer costs.

Run: .venv/bin/python benchmarks/salvo.py [--games N] [--seed S] [--jobs J] [--shooters a b ...]
     [--generators uniform edge]

For each layout generator, N layouts are drawn once (seed S) and every shooter plays them under
both presets (the standard fleet and board, one shot a turn per ship afloat: five in one-sided
play; shot-by-shot answers, or only the number of hits). Prints each shooter's mean turns with its
95% interval and the shots fired, then the count answer's cost: turns on `salvo-count` minus turns
on `salvo`, paired on the same layouts for the same shooter, with its 95% interval. Shooters that
refuse a preset (or fail on it) are left out, saying why.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from battleship import generators, lab
from battleship.errors import BattleshipError
from battleship.rules import preset
from battleship.shooters import registry

DEFAULT_SHOOTERS = ["random", "hunt-target", "hunt-target-parity", "density", "best"]


def turns_of(rules_name: str, shooter: str, rows: np.ndarray, seed: int, jobs: int) -> np.ndarray | str:
    """Turns per game of ``shooter`` on ``rows``, or why it cannot play them."""
    rules = preset(rules_name)
    name, options = registry.resolve(shooter, rules)
    why = registry.spec(name).refusal(rules)
    if why:
        return why
    try:
        return lab.simulate(rules, name, len(rows), seed=seed, layouts=rows, jobs=jobs, options=options)
    except BattleshipError as exc:
        return f"failed: {exc}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--shooters", nargs="+", default=DEFAULT_SHOOTERS)
    parser.add_argument("--generators", nargs="+", default=["uniform", "edge"])
    args = parser.parse_args()
    both = ("salvo", "salvo-count")
    for generator in args.generators:
        rows = generators.draw(preset("salvo"), generator, args.seed, args.games)
        print(f"\n== {generator} layouts: {args.games} games, seed {args.seed} ==")
        played: dict[tuple[str, str], np.ndarray] = {}
        for rules_name in both:
            rules = preset(rules_name)
            for shooter in args.shooters:
                start = time.perf_counter()
                turns = turns_of(rules_name, shooter, rows, args.seed, args.jobs)
                if isinstance(turns, str):
                    print(f"{rules_name:12} {shooter:20} left out: {turns}")
                    continue
                played[rules_name, shooter] = turns
                s = lab.summarise(turns, lab.fewest(rules), time.perf_counter() - start)
                fired = lab.shots_fired(np.bincount(turns), rules)
                half = (s.ci95[1] - s.ci95[0]) / 2
                print(
                    f"{rules_name:12} {shooter:20} {s.mean:6.2f} ± {half:.2f} turns  "
                    f"({fired:.1f} shots fired; {time.perf_counter() - start:.0f} s)"
                )
        for shooter in args.shooters:
            if ("salvo", shooter) in played and ("salvo-count", shooter) in played:
                mean, (low, high) = lab.paired_difference(
                    played["salvo-count", shooter], played["salvo", shooter]
                )
                print(
                    f"count answer's cost  {shooter:20} {mean:+.2f} turns (95% {low:+.2f} .. {high:+.2f}), "
                    "salvo-count minus salvo, same layouts"
                )


if __name__ == "__main__":
    main()
