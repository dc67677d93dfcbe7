"""Look-ahead against the optimum: each shooter played once on every layout of the limit table's boards.

Run: .venv/bin/python benchmarks/lookahead.py [SHOOTER ...] [--seed S] [--only WORD ...] [--docs FILE]
     .venv/bin/python benchmarks/lookahead.py --time [SHOOTER ...] [--rules PRESET] [--games N]

The first form reads the optimum of every configuration from the limit table of docs/research/limit.md
(solved exactly by ``battleship limit``; re-solving the 5x5 rows takes an hour) and plays each
shooter once on every layout (seed S; deterministic shooters give the same mean on any seed), then
prints per configuration: layouts, optimum, each shooter's mean and gap, and whether the last
shooter's gap is at most half of the first's (the issue's target, first = exact greedy). --only
keeps the configurations whose line holds one of the words (``5x5``, ``no-contact``, ``named``...).

The second form (--time) plays N games of each shooter on a preset or a rules TOML file (uniform
layouts, seed 3001) and prints the process time of each shot (one core; a shared machine's wall clock would count the
other jobs): median, 99th percentile and maximum, the first shot apart (it fills the per-process
caches).
"""

from __future__ import annotations

import argparse
import re
import time
from pathlib import Path

import numpy as np

from battleship.generators import generate
from battleship.lab.limit import Optimum, beside, every_layout
from battleship.rules import Rules, Ship, Sinks, Spacing, load
from shot_time import timed_shots

DOCS = Path(__file__).resolve().parent.parent / "docs" / "research" / "limit.md"
ROW = re.compile(r"^\| (\d+)x(\d+) \| ([\d, ]+) \| ([a-z-]+), ([a-z]+) \| ([\d,]+) \| ([\d.]+) \|")


def optima(docs: Path) -> list[tuple[Rules, str, float]]:
    """The rules, a name and the optimum of every row of the limit table."""
    out, seen = [], set()
    for line in docs.read_text().splitlines():
        found = ROW.match(line)
        if not found:
            continue
        rows, cols, ships, spacing, sinks, _, best = found.groups()
        lengths = [int(n) for n in ships.split(",")]
        fleet = tuple(Ship.line(f"Ship {i + 1}", "ABCDE"[i], n) for i, n in enumerate(lengths))
        rules = Rules(int(rows), int(cols), fleet, Spacing(spacing), Sinks(sinks))
        name = f"{rows}x{cols} {'+'.join(map(str, lengths))} {spacing} {sinks}"
        if name not in seen:  # the look-ahead table repeats the optimum of each configuration
            seen.add(name)
            out.append((rules, name, float(best)))
    return out


def against_optimum(shooters: list[str], seed: int, only: list[str] | None, docs: Path) -> None:
    """Print each shooter's mean and gap on every configuration of the limit table."""
    print("config layouts optimum " + " ".join(shooters) + " target(last<=first/2)")
    for rules, name, best in optima(docs):
        if only and not any(word in name for word in only):
            continue
        start = time.process_time()
        rows = every_layout(rules)
        result = beside(rules, Optimum(len(rows), best, -1, 0, 0.0), rows, shooters, seed=seed)
        gaps = [None if result.means[s] is None else result.means[s] - best for s in shooters]
        cells = [
            "refuses" if g is None else f"{result.means[s]:.4f}({g:+.4f})"
            for s, g in zip(shooters, gaps, strict=True)
        ]
        first, last = gaps[0], gaps[-1]
        met = "-" if first is None or last is None else ("met" if last <= first / 2 + 5e-5 else "not met")
        print(
            f"{name} {len(rows)} {best:.4f} "
            + " ".join(cells)
            + f" {met}  [{time.process_time() - start:.0f} s cpu]",
            flush=True,
        )


def shot_times(shooters: list[str], rules_name: str, games: int) -> None:
    """Print the process time per shot of each shooter over ``games`` games."""
    rules = load(rules_name)
    layouts = generate(rules, "uniform", seed=3001, count=games)
    for text in shooters:
        first, rest = [], []
        for board, _wall, cpu in timed_shots(text, rules, layouts):
            (rest if board.shots else first).append(cpu)
        t = np.array(rest)
        print(
            f"{rules_name} {text}: {len(t) + len(first)} shots in {games} games; per shot (process time) "
            f"median {np.median(t) * 1000:.1f} ms, 99th percentile {np.percentile(t, 99) * 1000:.0f} ms, "
            f"max {t.max() * 1000:.0f} ms; first shot {max(first) * 1000:.0f} ms at most",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("shooters", nargs="*", default=["optimal", "twoply", "twoply:endgame=5000"])
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--only", nargs="*", help="only the configurations whose line holds one of these")
    parser.add_argument("--docs", type=Path, default=DOCS, help="where the limit table is")
    parser.add_argument("--time", action="store_true", help="time each shot on a preset instead")
    parser.add_argument("--rules", default="standard", help="a preset's name or a rules TOML file")
    parser.add_argument("--games", type=int, default=5)
    args = parser.parse_args()
    if args.time:
        shot_times(args.shooters, args.rules, args.games)
    else:
        against_optimum(args.shooters, args.seed, args.only, args.docs)


if __name__ == "__main__":
    main()
