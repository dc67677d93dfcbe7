"""Re-measure every figure of the research pages (docs/research/) and print which no longer reproduce.

Run: .venv/bin/python benchmarks/strategies.py [--quick] [--only WORD ...] [--jobs J]

Every run the document reports is played again with its own command's shooters, rules, layouts,
games and seed (runs are reproducible, so a figure either comes out the same to the digit or the
code has changed what the shooters do), and each figure the document prints is formatted the way
the document prints it and compared with the text, which must still be in the document. A line a
figure: the run, what it is, the document's text, the measured text, and "ok" or "DIFFERS"; then
the count of each. Figures the document itself calls an earlier version's ("before ...") are
re-measured too and marked "earlier version": they are the record of what changed, and are
expected to differ. Timings (ms a shot, games a second, seconds) depend on the machine and are not
compared. ``--quick`` leaves out the runs of shooters played in Python over hundreds of games and
the limit table (its 5x5 rows take about 15 minutes each of one core); ``--only`` keeps the runs whose name holds one of the words.
"""

from __future__ import annotations

import argparse
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from battleship import lab
from battleship.lab.rivals import custom_rules
from battleship.rules import Rules, Ship, Sinks, Spacing, preset
from battleship.shooters import registry

RESEARCH = Path(__file__).resolve().parents[1] / "docs" / "research"  # the record, one page a study


@dataclass
class Run:
    """One command of the document: shooters on the same games, and the figures it printed."""

    name: str
    rules: Callable[[], Rules]
    shooters: list[str]
    games: int
    seed: int
    generator: str = "uniform"
    # (shooter, statistic, the document's text); statistic: "mean ci", "mean", "max", "diff ci" (the
    # paired difference from the first shooter, with its interval), "diff, ci" (written "d, low .. high"),
    # "neg diff ci" (the first minus this one, as some tables write it)
    figures: list[tuple[str, str, str]] = field(default_factory=list)
    slow: bool = False  # shooters played in Python over many games
    earlier: tuple[str, ...] = ()  # texts the document gives as an earlier version's figures


def standard_sunk() -> Rules:
    return custom_rules()["standard-sunk"]


def no_edge_nine() -> Rules:
    return custom_rules()["no-edge-9x9"]


def _p(name: str) -> Callable[[], Rules]:
    return lambda: preset(name)


RUNS = [
    Run("standard, anonymous sinks", standard_sunk, ["optimal", "density:skew=20"], 300, 7,
        figures=[("optimal", "mean", "44.48"), ("density:skew=20", "mean", "56.44"),
                 ("density:skew=20", "neg diff ci", "-11.96 (-13.27 .. -10.65)"),
                 ("density:skew=20", "mean ci", "54.40 (53.32 .. 55.49)")],
        slow=True, earlier=("56.44", "-11.96 (-13.27 .. -10.65)")),
    # best:prior=contest played trial-sink under the prior then (exact greedy play under it since issue 27)
    Run("pirates, contest prior", _p("pirates"), ["trial-sink:skew=20,prior=contest", "trial-sink:skew=20"],
        10_000, 38, "contest", figures=[("trial-sink:skew=20,prior=contest", "mean ci", "38.303 (38.204 .. 38.402)"),
                            ("trial-sink:skew=20", "mean", "39.092"),
                            ("trial-sink:skew=20", "neg diff ci", "-0.789 (-0.883 .. -0.695)")]),
    Run("seabattle, seed 38", _p("seabattle"), ["trial-sink:skew=20", "density:skew=20"], 10_000, 38,
        figures=[("trial-sink:skew=20", "mean ci", "64.212 (64.095 .. 64.330)"),
                 ("density:skew=20", "mean", "86.505")],
        earlier=("64.212 (64.095 .. 64.330)", "86.505")),
    Run("seabattle, seed 2027", _p("seabattle"), ["density:skew=20", "trial-sink:skew=20"], 10_000, 2027,
        figures=[("density:skew=20", "mean ci", "57.570 (57.428 .. 57.712)"),
                 ("trial-sink:skew=20", "mean", "64.450"),
                 ("trial-sink:skew=20", "diff ci", "+6.880 (6.767 .. 6.994)")],
        earlier=("64.450", "+6.880 (6.767 .. 6.994)")),
    Run("seabattle, sequential, seed 2028", _p("seabattle"), ["density:skew=20", "trial-sink:skew=20"], 10_000,
        2028, "sequential", figures=[("density:skew=20", "mean ci", "55.232 (55.095 .. 55.369)"),
                                     ("trial-sink:skew=20", "mean", "61.589"),
                                     ("trial-sink:skew=20", "diff ci", "+6.357 (6.250 .. 6.463)")],
        earlier=("61.589", "+6.357 (6.250 .. 6.463)")),
    Run("pirates, uniform, seed 38", _p("pirates"), ["density:skew=20", "trial-sink:skew=20"], 5_000, 38,
        figures=[("density:skew=20", "mean", "43.120"), ("trial-sink:skew=20", "mean", "40.800"),
                 ("trial-sink:skew=20", "diff ci", "-2.320 (-2.449 .. -2.192)")]),
    Run("standard, sequential, seed 2029", _p("standard"), ["best"], 100_000, 2029, "sequential",
        figures=[("density:skew=20", "mean ci", "44.001 (43.950 .. 44.053)")]),
    Run("standard, anonymous sinks, seed 41", standard_sunk, ["density:skew=20"], 5_000, 41,
        figures=[("density:skew=20", "mean ci", "53.97 (53.70 .. 54.23)")]),
    Run("rollout, seed 101", _p("standard"), ["density:skew=20", "rollout:skew=20"], 400, 101,
        figures=[("rollout:skew=20", "diff ci", "+0.525 (-0.196 .. +1.246)")], slow=True),
    Run("seabattle, trial-sink reads sinkings", _p("seabattle"), ["density:skew=20", "trial-sink:skew=20"],
        10_000, 2027, figures=[("trial-sink:skew=20", "mean ci", "57.56 (57.42 .. 57.70)"),
                               ("density:skew=20", "mean", "57.57"),
                               ("trial-sink:skew=20", "diff, ci", "-0.010, -0.084 .. +0.065")]),
    Run("seabattle, best is best, uniform", _p("seabattle"),
        ["trial-sink", "density:skew=20", "density", "trial-sink:skew=20"], 10_000, 2027,
        figures=[("trial-sink", "mean ci", "57.37 (57.23 .. 57.51)"),
                 ("density:skew=20", "diff ci", "+0.201 (+0.070 .. +0.332)"),
                 ("density", "diff ci", "+0.107 (+0.075 .. +0.139)"),
                 ("trial-sink:skew=20", "diff ci", "+0.192 (+0.065 .. +0.318)")]),
    Run("seabattle, best is best, sequential", _p("seabattle"),
        ["trial-sink", "density:skew=20", "density", "trial-sink:skew=20"], 10_000, 2028, "sequential",
        figures=[("trial-sink", "mean ci", "54.92 (54.78 .. 55.05)"),
                 ("density:skew=20", "diff ci", "+0.317 (+0.191 .. +0.443)"),
                 ("density", "diff ci", "+0.090 (+0.055 .. +0.124)"),
                 ("trial-sink:skew=20", "diff ci", "+0.241 (+0.120 .. +0.362)")]),
    Run("no-edge 9x9, seed 2027", no_edge_nine, ["density:skew=20", "trial-sink:skew=20"], 20_000, 2027,
        figures=[("trial-sink:skew=20", "diff ci", "-0.043 (-0.084 .. -0.001)")]),
    Run("standard, skew and ties", _p("standard"),
        ["density", "density:skew=20", "density:tie=centre,skew=20", "density:skew=10", "density:skew=30",
         "superposition:boost=20"], 20_000, 5,
        figures=[("density", "mean ci", "44.385 (44.262 .. 44.508)"),
                 ("density:skew=20", "mean ci", "44.111 (43.997 .. 44.226)"),
                 ("density:skew=20", "diff ci", "-0.274 (-0.383 .. -0.165)"),
                 ("density:tie=centre,skew=20", "mean ci", "44.153 (44.039 .. 44.268)"),
                 ("density:tie=centre,skew=20", "diff ci", "-0.232 (-0.351 .. -0.113)"),
                 ("density:skew=10", "mean ci", "44.133 (44.015 .. 44.250)"),
                 ("density:skew=10", "diff ci", "-0.252 (-0.357 .. -0.148)"),
                 ("density:skew=30", "mean ci", "44.123 (44.009 .. 44.237)"),
                 ("density:skew=30", "diff ci", "-0.262 (-0.372 .. -0.153)"),
                 ("superposition:boost=20", "mean ci", "45.090 (44.978 .. 45.201)"),
                 ("superposition:boost=20", "diff ci", "+0.705 (+0.575 .. +0.834)")]),
    Run("datagenetics, skew and ties", _p("datagenetics"),
        ["density", "density:skew=20", "density:tie=centre,skew=20"], 20_000, 5,
        figures=[("density:skew=20", "mean ci", "44.110 (43.996 .. 44.225)"),
                 ("density:skew=20", "diff ci", "-0.275 (-0.383 .. -0.166)")]),
    Run("standard, 100,000 games", _p("standard"), ["density", "density:skew=20"], 100_000, 1,
        figures=[("density:skew=20", "mean ci", "44.107 (44.056 .. 44.159)"), ("density", "mean", "44.334")]),
    Run("standard, 1,000,000 games", _p("standard"),
        ["random", "hunt-target", "hunt-target-parity", "density", "best"], 1_000_000, 1,
        figures=[("density:skew=20", "mean ci", "44.09 (44.08 .. 44.11)"), ("density:skew=20", "max", "max 67"),
                 ("density", "mean ci", "44.35 (44.33 .. 44.37)"), ("density", "max", "max 74")]),
    Run("standard, exact play", _p("standard"),
        ["optimal", "optimal:skew=20", "optimal:skew=10,lattice=1", "optimal:tie=centre", "density"], 1_000, 7,
        figures=[("optimal", "mean ci", "44.239 (43.680 .. 44.798)"),
                 ("optimal:skew=20", "mean ci", "44.012 (43.486 .. 44.538)"),
                 ("optimal:skew=20", "diff ci", "-0.227 (-0.744 .. +0.290)"),
                 ("optimal:skew=10,lattice=1", "mean ci", "44.308 (43.767 .. 44.849)"),
                 ("optimal:skew=10,lattice=1", "diff ci", "+0.069 (-0.444 .. +0.582)"),
                 ("optimal:tie=centre", "mean ci", "44.340 (43.779 .. 44.901)"),
                 ("optimal:tie=centre", "diff ci", "+0.101 (-0.223 .. +0.425)"),
                 ("density", "mean ci", "44.588 (44.038 .. 45.138)"),
                 ("density", "diff ci", "+0.349 (-0.208 .. +0.906)")], slow=True),
    Run("standard, exact play, 2,000 games", _p("standard"), ["optimal"], 2_000, 1,
        figures=[("optimal", "mean ci", "44.289 (43.908 .. 44.669)")], slow=True),
    Run("standard, look-ahead", _p("standard"),
        ["optimal:skew=20", "optimal:skew=20,exact=12", "optimal:skew=20,tie=informative"], 300, 7,
        figures=[("optimal:skew=20", "mean ci", "44.64 (43.68 .. 45.59)"),
                 ("optimal:skew=20,exact=12", "mean ci", "44.62 (43.67 .. 45.57)"),
                 ("optimal:skew=20,exact=12", "diff ci", "-0.017 (-0.040 .. +0.007)"),
                 ("optimal:skew=20,tie=informative", "mean ci", "44.49 (43.52 .. 45.46)"),
                 ("optimal:skew=20,tie=informative", "diff ci", "-0.150 (-0.356 .. +0.056)")], slow=True),
    Run("standard, Monte Carlo", _p("standard"),
        ["density:skew=20", "montecarlo:skew=20", "montecarlo", "montecarlo:skew=20,samples=200"], 1_000, 7,
        figures=[("density:skew=20", "mean ci", "44.13 (43.63 .. 44.64)"),
                 ("montecarlo:skew=20", "mean ci", "44.57 (44.06 .. 45.08)"),
                 ("montecarlo:skew=20", "diff ci", "+0.433 (-0.151 .. +1.017)"),
                 ("montecarlo", "mean ci", "45.02 (44.46 .. 45.58)"),
                 ("montecarlo", "diff ci", "+0.886 (+0.219 .. +1.553)"),
                 ("montecarlo:skew=20,samples=200", "mean ci", "44.52 (44.01 .. 45.03)"),
                 ("montecarlo:skew=20,samples=200", "diff ci", "+0.383 (-0.202 .. +0.968)")], slow=True),
    Run("pirates, tie rules and skew", _p("pirates"),
        ["trial-sink", "trial-sink:tie=random", "trial-sink:tie=centre", "trial-sink:skew=20",
         "trial-sink:tie=random,skew=20", "trial-sink:tie=centre,skew=20", "superposition", "density",
         "hunt-target-parity"], 20_000, 1,
        figures=[("trial-sink", "mean ci", "40.813 (40.737 .. 40.889)"),
                 ("trial-sink:tie=random", "mean ci", "41.101 (41.022 .. 41.179)"),
                 ("trial-sink:tie=centre", "mean ci", "40.883 (40.807 .. 40.959)"),
                 ("trial-sink:skew=20", "mean ci", "40.783 (40.709 .. 40.856)"),
                 ("trial-sink:tie=random,skew=20", "mean ci", "40.875 (40.802 .. 40.949)"),
                 ("trial-sink:tie=centre,skew=20", "mean ci", "40.918 (40.844 .. 40.991)"),
                 ("superposition", "mean ci", "62.596 (62.517 .. 62.675)"),
                 ("density", "mean ci", "62.401 (62.317 .. 62.485)"),
                 ("hunt-target-parity", "mean ci", "67.478 (67.399 .. 67.556)")]),
    Run("pirates, exact play", _p("pirates"), ["optimal", "trial-sink"], 200, 3,
        figures=[("optimal", "mean ci", "41.535 (40.682 .. 42.388)"),
                 ("trial-sink", "mean ci", "40.985 (40.290 .. 41.680)")], slow=True),
    Run("pirates, Monte Carlo", _p("pirates"), ["trial-sink:skew=20", "montecarlo:skew=20", "montecarlo"], 200, 3,
        figures=[("trial-sink:skew=20", "mean ci", "40.81 (40.13 .. 41.49)"),
                 ("montecarlo:skew=20", "mean ci", "41.34 (40.68 .. 42.00)"),
                 ("montecarlo", "mean ci", "40.87 (40.18 .. 41.55)"),
                 ("montecarlo:skew=20", "diff ci", "+0.53 (-0.25 .. +1.31)"),
                 ("montecarlo", "diff ci", "+0.06 (-0.86 .. +0.97)")], slow=True),
    Run("pirates, sequential", _p("pirates"), ["trial-sink:skew=20", "trial-sink"], 10_000, 1, "sequential",
        figures=[("trial-sink:skew=20", "mean ci", "40.08 (39.97 .. 40.18)"),
                 ("trial-sink", "mean ci", "40.07 (39.96 .. 40.18)")]),
    Run("summary, standard, exact play", _p("standard"), ["optimal", "optimal:skew=20", "montecarlo:skew=20"],
        100, 5, figures=[("optimal", "mean ci", "43.540 (41.966 .. 45.114)"),
                         ("optimal:skew=20", "mean ci", "44.140 (42.617 .. 45.663)"),
                         ("montecarlo:skew=20", "mean ci", "43.680 (42.062 .. 45.298)")], slow=True),
    Run("summary, pirates", _p("pirates"), ["trial-sink:skew=20", "trial-sink"], 20_000, 5,
        figures=[("trial-sink:skew=20", "mean ci", "40.815 (40.741 .. 40.888)"),
                 ("trial-sink", "mean ci", "40.844 (40.768 .. 40.921)")]),
    Run("summary, pirates, exact play", _p("pirates"), ["optimal", "montecarlo"], 100, 5,
        figures=[("optimal", "mean ci", "40.000 (38.994 .. 41.006)"),
                 ("montecarlo", "mean ci", "40.280 (39.128 .. 41.432)")], slow=True),
]  # fmt: skip
# figures re-measured elsewhere or not at all, said at the end of every run
ELSEWHERE = (
    "the rivals of best, per rule set: .venv/bin/python benchmarks/strength.py --games 20000 --slow-games 30",
    "learning fitted on contest layouts: the commands in the document (a model fitted first, then 1,000 games)",
    "the rollout variants without the default gate: code changes, not options, measured once",
    "times a shot and games a second: they depend on the machine (benchmarks/shot_time.py, margin_engines.py)",
)


def decimals(text: str) -> int:
    """The decimals the document printed a figure with."""
    number = re.search(r"\d+(?:\.(\d+))?", text)
    return len(number.group(1) or "") if number else 0


def measured(result: lab.Comparison, shooter: str, statistic: str, like: str) -> str:
    """A figure of ``result`` written as the document writes ``like``."""
    d = decimals(like)

    def signed(x: float) -> str:
        return f"{x:+.{d}f}"

    def plain(x: float) -> str:
        return f"{x:.{d}f}"

    f = signed if like.lstrip().startswith(("+", "-")) else plain
    # an interval's ends carry a sign where the document wrote one
    ends = signed if re.search(r"(\(|, )[+-]\d", like) else plain
    s = result.summaries[shooter]
    diff, (low, high) = result.minus_first[shooter]
    if statistic.startswith("neg "):
        diff, low, high, statistic = -diff, -high, -low, statistic[4:]
    if statistic == "mean ci":
        return f"{f(s.mean)} ({ends(s.ci95[0])} .. {ends(s.ci95[1])})"
    if statistic == "mean":
        return f(s.mean)
    if statistic == "max":
        return f"max {s.max}"
    if statistic == "diff ci":
        return f"{f(diff)} ({ends(low)} .. {ends(high)})"
    if statistic == "diff, ci":
        return f"{f(diff)}, {ends(low)} .. {ends(high)}"
    raise ValueError(statistic)


def play(run: Run, jobs: int) -> lab.Comparison:
    """The run's games, every shooter on the same layouts, named as the document names them (best resolved)."""
    rules = run.rules()
    specs = [registry.check(text, rules) for text in run.shooters]
    return lab.compare(rules, specs, run.games, run.seed, run.generator, jobs=jobs)


def check_runs(args: argparse.Namespace, text: str) -> tuple[int, int, int]:
    """Every run's figures: returns how many reproduced, differed, and were an earlier version's."""
    counts = [0, 0, 0]
    for run in RUNS:
        if (args.quick and run.slow) or (args.only and not any(w in run.name for w in args.only)):
            continue
        start = time.perf_counter()
        result = play(run, args.jobs)
        for shooter, statistic, written in run.figures:
            if written not in text:
                print(
                    f"{run.name:38s} {shooter:32s} {written!r} is no longer in the document: update this list"
                )
                continue
            got = measured(result, shooter, statistic, written)
            verdict = "ok" if got == written else ("earlier version" if written in run.earlier else "DIFFERS")
            counts[0 if verdict == "ok" else 2 if verdict == "earlier version" else 1] += 1
            print(f"{run.name:38s} {shooter:32s} {statistic:8s} doc {written:30s} now {got:30s} {verdict}")
        print(f"{run.name:38s} ({run.games:,} games, seed {run.seed}: {time.perf_counter() - start:.0f} s)")
    return counts[0], counts[1], counts[2]


# the limit table: board, ships, spacing and sinks as the document writes them
SPACING = {"touch": Spacing.TOUCH, "no-contact": Spacing.NO_CONTACT}
SINKS = {"none": Sinks.NONE, "sunk": Sinks.SUNK, "named": Sinks.NAMED, "revealed": Sinks.REVEALED}
LIMIT_ROW = re.compile(
    r"^\| (\d)x(\d) \| ([\d, ]+) \| ([a-z-]+), ([a-z]+) \| (\d+) \| ([\d.]+) \| ([\d,]+) \| [\d.]+ \|(.*)$"
)
LIMIT_SHOOTERS = ["optimal", "density", "trial-sink", "rollout", "best"]


def check_limit(text: str) -> tuple[int, int]:
    """Solve every board of the limit table again and play each shooter on every layout (seed 14)."""
    from battleship.lab.limit import limit

    ok = differ = 0
    for line in text.splitlines():
        row = LIMIT_ROW.match(line)
        if not row:
            continue
        rows, cols, ships, spacing, sinks = int(row[1]), int(row[2]), row[3], row[4], row[5]
        fleet = tuple(Ship.line(f"Ship {i}", "ABCDE"[i], int(n)) for i, n in enumerate(ships.split(",")))
        rules = Rules(rows, cols, fleet, SPACING[spacing], SINKS[sinks])
        result = limit(rules, LIMIT_SHOOTERS, seed=14)
        cells = [c.strip() for c in row[9].split("|")][: len(LIMIT_SHOOTERS)]
        got = [f"{result.optimum.shots:.4f}"] + [
            "refuses" if result.means[s] is None else f"{result.means[s]:.4f} ({result.gap(s):+.4f})"
            for s in LIMIT_SHOOTERS
        ]
        written = [row[7], *cells]
        verdict = "ok" if got == written and int(row[6]) == result.optimum.layouts else "DIFFERS"
        ok, differ = ok + (verdict == "ok"), differ + (verdict != "ok")
        print(f"limit {rows}x{cols} {ships} {spacing}, {sinks}: doc {' | '.join(written)}")
        print(f"{'':>22s}now {' | '.join(got)} {verdict}", flush=True)
    return ok, differ


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="leave out the long runs of exact play")
    parser.add_argument("--only", nargs="*", help="only the runs whose name holds one of these words")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    text = "\n".join(page.read_text(encoding="utf-8") for page in sorted(RESEARCH.glob("*.md")))
    ok, differ, earlier = check_runs(args, text)
    if not args.quick and (not args.only or "limit" in args.only):
        limit_ok, limit_differ = check_limit(text)
        ok, differ = ok + limit_ok, differ + limit_differ
    print(f"{ok} figures reproduce, {differ} differ, {earlier} are an earlier version's (expected to differ)")
    for line in ELSEWHERE:
        print(f"not re-measured here: {line}")


if __name__ == "__main__":
    main()
