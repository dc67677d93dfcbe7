"""The limit (issue 14's table): exact optimal play from the first shot on small boards, and each shooter's gap.

Run: .venv/bin/python benchmarks/limit.py [--seed S] [--budget STATES] [--time SECONDS] [--only WORD ...]
For every board and fleet below, under touching and no-contact spacing and every sink mode, prints
the number of layouts, the optimum (fewest expected shots over uniform layouts, solved exactly by
battleship.lab.limit), the solver's states, wall and CPU seconds, then each shooter's mean over every layout
(one game each, seed S) and its gap to the optimum; "refuses" where a shooter cannot play the rules,
"unsolved" where the solver ran out of states or of time (--time: seconds for each configuration's
solve; it says how many states it solved by then). --only keeps the configurations whose line
holds one of the words (``5x5``, ``3+2+2``, ``no-contact``, ``named``...).
"""

from __future__ import annotations

import argparse
import time

from battleship.errors import BattleshipError
from battleship.lab.limit import beside, every_layout, optimum
from battleship.rules import Rules, Ship, Sinks, Spacing
from battleship.stop import Stop

BOARDS = [
    ((3, 3), (2, 2)),
    ((3, 4), (3, 2)),
    ((4, 4), (3, 2)),
    ((4, 5), (3, 2)),
    ((5, 5), (3, 2)),
    ((5, 5), (4, 3)),
    ((5, 5), (3, 3)),
    ((4, 6), (3, 2)),
    ((5, 5), (3, 2, 2)),
    ((5, 5), (3, 2, 1)),
    ((5, 5), (4, 3, 2)),
    ((5, 5), (5, 4, 3)),
    ((4, 6), (4, 3)),
]
SHOOTERS = ["optimal", "density", "trial-sink", "rollout", "best"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--budget", type=int, default=50_000_000)
    parser.add_argument("--time", type=float, default=600.0, help="seconds for each configuration's solve")
    parser.add_argument("--only", nargs="*", help="only the configurations whose line holds one of these")
    args = parser.parse_args()
    print("board fleet spacing sinks layouts optimum states seconds cpu-seconds " + " ".join(SHOOTERS))
    for (rows, cols), lengths in BOARDS:
        fleet = tuple(Ship.line(f"Ship {i + 1}", "ABCDE"[i], n) for i, n in enumerate(lengths))
        for spacing in (Spacing.TOUCH, Spacing.NO_CONTACT):
            for sinks in Sinks:
                name = f"{rows}x{cols} {'+'.join(map(str, lengths))} {spacing.value} {sinks.value}"
                if args.only and not any(word in name for word in args.only):
                    continue
                rules = Rules(rows, cols, fleet, spacing, sinks)
                start, cpu = time.perf_counter(), time.process_time()
                try:
                    every = every_layout(rules)
                    solved = optimum(rules, args.budget, every, Stop(args.time))
                except BattleshipError as exc:
                    print(f"{name} unsolved: {exc} ({time.process_time() - cpu:.0f} s cpu)", flush=True)
                    continue
                cpu = time.process_time() - cpu
                result = beside(rules, solved, every, SHOOTERS, seed=args.seed)
                best = result.optimum
                cells = [
                    "refuses" if result.means[s] is None else f"{result.means[s]:.4f}({result.gap(s):+.4f})"
                    for s in SHOOTERS
                ]
                print(
                    f"{name} {best.layouts} {best.shots:.4f} {best.states} {best.seconds:.1f} {cpu:.1f} "
                    + " ".join(cells)
                    + f"  [{time.perf_counter() - start:.0f} s]",
                    flush=True,
                )


if __name__ == "__main__":
    main()
