"""The R study's table (flood 67.25, density grid 57.91), counted its way and as games end.

Run: .venv/bin/python benchmarks/r_study.py [--games N] [--seed S]

The R study counts every cell its last flood marks, those after the final ship cell included; a
game here ends at the last ship cell, so `battleship simulate flood` counts fewer shots. Both are
printed for the same games (the R study's rules and placement routine, `--generator r-blog`): the
study's count (`flood.study_guesses`), which its published means should fall in, and the games'.
"""

from __future__ import annotations

import argparse

import numpy as np

from battleship import generators, lab
from battleship.rules import preset
from battleship.shooters.flood import study_guesses

PUBLISHED = {"flood": (67.25, 12.33), "density-grid": (57.91, 7.75)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rules = preset("r-blog")
    rows = generators.draw(rules, "r-blog", args.seed, args.games)
    for kind, (mean, sd) in PUBLISHED.items():
        study = study_guesses(rules, kind, args.seed, rows)
        games = lab.simulate(rules, kind, args.games, seed=args.seed, layouts=rows)
        for what, shots in (("the study's count", study), ("games (simulate)", games)):
            half = 1.96 * shots.std(ddof=1) / np.sqrt(len(shots))
            print(
                f"{kind:13s} {what:18s} mean {shots.mean():.3f} ({shots.mean() - half:.3f} .. "
                f"{shots.mean() + half:.3f}) sd {shots.std(ddof=1):.2f}  published {mean} sd {sd}"
            )
        print(f"{kind:13s} the last flood's cells after the final ship cell: {(study - games).mean():.3f}")


if __name__ == "__main__":
    main()
