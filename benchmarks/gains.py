"""The gains docs/strategies.md keeps still hold: each kept choice against what it beat, on a paired run
(the same layouts for both) with a seed of its own, never the seed the document reports.

Run: .venv/bin/python benchmarks/gains.py [--jobs J] [--only WORD ...]

Runs are reproducible, so a check fails only when the code changes what the shooters do; a gain the
document calls thin (within its interval) is checked not to have turned into a loss. One line a
check: its name, the paired difference with its 95% interval, and "ok" or "LOST"; the exit status
is 1 when any is lost. These runs take minutes of a core each (thousands of games, exact play in
Python), so they are measurements here rather than tests; what ``best`` chooses on each rule set
is checked in tests/lab/test_strength.py. The full figures are re-measured by
benchmarks/strategies.py.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from battleship import lab
from battleship.lab.rivals import custom_rules
from battleship.rules import Rules, Ship, Sinks, Spacing, preset
from battleship.shooters import registry

SEED = 611  # a seed of these checks' own
Interval = tuple[float, float, float]  # mean, low, high


@dataclass(frozen=True)
class Gain:
    """One kept choice: ``second`` minus ``first`` over ``games`` paired games on ``rules``, and what must hold."""

    name: str
    rules: Callable[[], Rules]
    first: str
    second: str
    games: int
    holds: Callable[[Interval], bool]
    claim: str


def paired(rules: Rules, first: str, second: str, games: int, jobs: int) -> Interval:
    """``second`` minus ``first`` over the same games: (mean, low, high) of the 95% interval."""
    specs = [registry.check(text, rules) for text in (first, second)]
    comparison = lab.compare(rules, specs, games, seed=SEED, jobs=jobs)
    name = list(comparison.minus_first)[1]
    mean, (low, high) = comparison.minus_first[name]
    return mean, low, high


GAINS = [
    # docs: density:skew=20 minus density -0.274 (-0.383 .. -0.165), 20,000 games
    Gain("skew on standard", lambda: preset("standard"), "density", "density:skew=20", 20_000,
         lambda d: d[2] < 0, "ahead"),
    # docs: optimal minus density:skew=20 about -10 shots with anonymous sinks (300 and 5,000 games)
    Gain("exact play, anonymous sinkings", lambda: custom_rules()["standard-sunk"], "density:skew=20",
         "optimal", 12, lambda d: d[2] < -3, "more than 3 shots ahead"),
    # docs: trial-sink:skew=20 minus density:skew=20 (reading the margin) -2.320 (-2.449 .. -2.192)
    Gain("trial-sink, pirates' margin", lambda: preset("pirates"), "density:skew=20", "trial-sink:skew=20",
         3_000, lambda d: d[2] < -1, "more than a shot ahead"),
    # docs: trial-sink:skew=20 kept over trial-sink on level figures (40.783 against 40.813)
    Gain("skew under pirates' margin", lambda: preset("pirates"), "trial-sink", "trial-sink:skew=20",
         5_000, lambda d: d[1] < 0, "not behind"),
    # docs: density:skew=20 minus trial-sink +0.201 (+0.070 .. +0.332)
    Gain("trial-sink on sea battle", lambda: preset("seabattle"), "trial-sink", "density:skew=20", 6_000,
         lambda d: d[1] > 0, "trial-sink ahead"),
    # docs: trial-sink:skew=20 minus trial-sink +0.192 (thin)
    Gain("skew on sea battle", lambda: preset("seabattle"), "trial-sink", "trial-sink:skew=20", 6_000,
         lambda d: d[2] > 0, "the skew not ahead"),
    # docs: on the no-edge 9x9 board trial-sink:skew=20 minus density:skew=20 -0.043 (thin)
    Gain("trial-sink, no-edge margin", lambda: custom_rules()["no-edge-9x9"], "trial-sink:skew=20",
         "density:skew=20", 10_000, lambda d: d[2] > 0, "density not ahead"),
]  # fmt: skip


def limit_gains() -> list[str]:
    """The limit table's small boards: what best plays there against exact greedy play and density."""
    from battleship.lab.limit import limit

    lost = []
    tiny = Rules(3, 3, (Ship.line("Two", "T", 2), Ship.line("Boat", "B", 2)), Spacing.NO_CONTACT, Sinks.NONE)
    result = limit(tiny, ["optimal", "density"])
    if not result.gap("optimal") < result.gap("density") - 1:
        lost.append("3x3 apart: optimal not a shot closer to the optimum than density")
    named = Rules(3, 4, (Ship.line("Three", "T", 3), Ship.line("Two", "W", 2)), Spacing.TOUCH, Sinks.NAMED)
    result = limit(named, ["optimal", "best"])
    if not result.gap("best") < result.gap("optimal") / 2:
        lost.append("3x4 touching, named: best not within half of optimal's gap")
    return lost


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", nargs="*", help="only the checks whose name holds one of these words")
    args = parser.parse_args()
    failed = 0
    for gain in GAINS:
        if args.only and not any(word in gain.name for word in args.only):
            continue
        start = time.perf_counter()
        d = paired(gain.rules(), gain.first, gain.second, gain.games, args.jobs)
        ok = gain.holds(d)
        failed += not ok
        print(
            f"{gain.name}: {gain.second} minus {gain.first}, {gain.games:,} games: {d[0]:+.3f} "
            f"({d[1]:+.3f} .. {d[2]:+.3f}), {gain.claim}: {'ok' if ok else 'LOST'} "
            f"({time.perf_counter() - start:.0f} s)",
            flush=True,
        )
    if not args.only or any("limit" in word for word in args.only):
        lost = limit_gains()
        failed += len(lost)
        print("\n".join(f"limit: {why}: LOST" for why in lost) or "limit: small boards: ok")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
