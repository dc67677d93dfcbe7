"""The limit (issue 14's table): exact optimal play from the first shot on small boards, and each shooter's gap.

Run: .venv/bin/python benchmarks/limit.py [--seed S] [--budget STATES]
For every board and fleet below, under touching and no-contact spacing and every sink mode, prints
the number of layouts, the optimum (fewest expected shots over uniform layouts, solved exactly by
battleship.lab.limit), the solver's states and seconds, then each shooter's mean over every layout
(one game each, seed S) and its gap to the optimum; "refuses" where a shooter cannot play the rules,
"unsolved" where the solver ran out of states.
"""

from __future__ import annotations

import argparse
import time

from battleship.errors import BattleshipError
from battleship.lab.limit import limit
from battleship.rules import Rules, Ship, Sinks, Spacing

BOARDS = [((3, 3), (2, 2)), ((3, 4), (3, 2)), ((4, 4), (3, 2))]
SHOOTERS = ["optimal", "density", "trial-sink", "rollout", "best"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--budget", type=int, default=2_000_000)
    args = parser.parse_args()
    print("board fleet spacing sinks layouts optimum states seconds " + " ".join(SHOOTERS))
    for (rows, cols), lengths in BOARDS:
        fleet = tuple(Ship.line(f"Ship {i + 1}", "ABCDE"[i], n) for i, n in enumerate(lengths))
        for spacing in (Spacing.TOUCH, Spacing.NO_CONTACT):
            for sinks in Sinks:
                rules = Rules(rows, cols, fleet, spacing, sinks)
                start = time.perf_counter()
                try:
                    result = limit(rules, SHOOTERS, seed=args.seed, budget=args.budget)
                except BattleshipError as exc:
                    print(f"{rows}x{cols} {lengths} {spacing.value} {sinks.value} unsolved: {exc}")
                    continue
                best = result.optimum
                cells = [
                    "refuses" if result.means[s] is None else f"{result.means[s]:.4f}({result.gap(s):+.4f})"
                    for s in SHOOTERS
                ]
                print(
                    f"{rows}x{cols} {'+'.join(map(str, lengths))} {spacing.value} {sinks.value} {best.layouts} "
                    f"{best.shots:.4f} {best.states} {best.seconds:.1f} "
                    + " ".join(cells)
                    + f"  [{time.perf_counter() - start:.0f} s]",
                    flush=True,
                )


if __name__ == "__main__":
    main()
