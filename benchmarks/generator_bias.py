"""How far each generator's per-cell frequencies lie from the exact uniform occupancy on 10x10.

Run: .venv/bin/python benchmarks/generator_bias.py [--draws N] [--seed S]
Prints, per generator: the largest |frequency - exact| over cells, the same in standard errors,
and the frequencies of the corner, centre and bottom-right cells beside the exact values.
"""

from __future__ import annotations

import argparse

import numpy as np

from battleship import generators
from battleship.inference import occupancy
from battleship.rules import preset


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--draws", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rules = preset("standard")
    total, per_cell = occupancy(rules)
    exact = (per_cell / total).ravel()
    sigma = np.sqrt(exact * (1 - exact) / args.draws)
    print(f"exact  corner A1 {exact[0]:.4f}  centre E5 {exact[44]:.4f}  J10 {exact[99]:.4f}")
    cell_list = generators.tables(rules).cell_list
    for name in generators.GENERATORS:
        cells = cell_list[generators.draw(rules, name, args.seed, args.draws)].ravel()
        freq = np.bincount(cells[cells >= 0], minlength=rules.cells) / args.draws
        gap = np.abs(freq - exact)
        worst = int(gap.argmax())
        print(
            f"{name:10s} max_abs_gap {gap.max():.4f} at cell {worst} ({gap.max() / sigma[worst]:.1f} se)"
            f"  A1 {freq[0]:.4f}  E5 {freq[44]:.4f}  J10 {freq[99]:.4f}"
        )


if __name__ == "__main__":
    main()
