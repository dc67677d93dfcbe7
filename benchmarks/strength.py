"""Best is best: every registered shooter against ``best``, paired, on every preset and three custom rule sets.

Run: .venv/bin/python benchmarks/strength.py [--games N] [--slow-games N] [--seed S] [--jobs J] [--cluster ADDRESS]
     [--rules NAME ...]
Prints one line per (rules, rival): games, the rival's mean, best's mean on the same layouts, the
paired difference (rival minus best) with its 95% interval, and "BEATS BEST" when the whole
interval is below zero; then the shooters left out and why. Kernel shooters play --games games;
shooters played in Python (optimal, montecarlo, rollout, and every rival when best itself is played
in Python) play --slow-games, the first layouts of the same run. The custom rule sets are the
standard board with anonymous sinkings, an 8x8 board with a T-shaped ship, and a no-edge 9x9 board.
"""

from __future__ import annotations

import argparse
import time

from battleship.lab.pool import open_pool
from battleship.lab.rivals import custom_rules, rivals
from battleship.rules import PRESETS, preset


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--slow-games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--cluster", help="a Dask scheduler address (tcp://HOST:8786), or 'local'")
    parser.add_argument("--rules", nargs="*", help="only these rule sets (preset or custom names)")
    args = parser.parse_args()
    sets = {name: preset(name) for name in PRESETS} | custom_rules()
    with open_pool(args.cluster, args.jobs) as pool:
        for name, rules in sets.items():
            if not args.rules or name in args.rules:
                report(name, rules, args, pool)


def report(name: str, rules, args: argparse.Namespace, pool) -> None:
    """One rule set's lines: every rival against best, then the shooters left out."""
    start = time.perf_counter()
    best, played, left_out = rivals(rules, args.games, args.slow_games, seed=args.seed, pool=pool)
    for r in played:
        verdict = "BEATS BEST" if r.beats_best else "ok"
        print(
            f"{name:14s} best={best:22s} {r.shooter:22s} games {r.games:6d} mean {r.mean:.3f} "
            f"best {r.best_mean:.3f} diff {r.difference:+.3f} ci95 {r.interval[0]:+.3f} {r.interval[1]:+.3f} "
            f"{verdict}",
            flush=True,
        )
    for shooter, why in left_out.items():
        print(f"{name:14s} best={best:22s} {shooter:22s} left out: {why}")
    print(f"{name:14s} ({time.perf_counter() - start:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
