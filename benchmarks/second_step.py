"""Density's two-step look-ahead (``twostep=W``) against today's ``best`` on the real boards: paired games
and the process time of a shot.

Run: .venv/bin/python benchmarks/second_step.py [--rules standard] [--games N] [--seed S ...]
         [--generator uniform ...] [--width W ...] [--time GAMES]

For each seed and generator, plays ``best``'s shooter for the rules and the same shooter with
``twostep=W`` for each width on the same layouts (one core), and prints each width's mean and its
paired difference from ``best`` with the 95% interval. With ``--time GAMES`` it also plays that many
games of each with the readable shooter (uniform layouts, seed 3001) and prints the process time of
a shot (one core; the wall clock of a shared machine would count the other jobs): mean and maximum.
"""

from __future__ import annotations

import argparse

import numpy as np

from battleship.generators import generate
from battleship.lab.runner import compare
from battleship.rules import Rules, load
from battleship.shooters.best import best_for
from battleship.shooters.options import Options, format_spec, parse_spec
from shot_time import timed_shots


def looked_ahead(rules: Rules) -> tuple[str, Options]:
    """What ``best`` plays on ``rules`` without its opening book (a book serves one shooter's opening,
    and the two-step look-ahead changes that opening), parsed."""
    return parse_spec(best_for(rules).replace(",book=1", ""))


def paired(rules_name: str, games: int, seeds: list[int], generators: list[str], widths: list[int]) -> None:
    """Print each width's mean and its paired difference from ``best`` per seed and generator."""
    rules = load(rules_name)
    base = looked_ahead(rules)
    shooters = [base] + [(base[0], base[1].replace(twostep=w)) for w in widths]
    for generator in generators:
        for seed in seeds:
            result = compare(rules, shooters, games, seed=seed, generator=generator)
            for i, spec in enumerate(result.summaries):
                line = f"{rules_name} {generator} seed {seed} {games} games {spec}"
                line += f" mean {result.summaries[spec].mean:.3f}"
                if i:
                    diff, (low, high) = result.minus_first[spec]
                    line += f" minus best {diff:+.3f} ({low:+.3f} .. {high:+.3f})"
                print(line, flush=True)


def shot_time(rules_name: str, games: int, widths: list[int]) -> None:
    """Print the process time of a shot, mean and maximum, for ``best`` and each width."""
    rules = load(rules_name)
    name, options = looked_ahead(rules)
    layouts = generate(rules, "uniform", seed=3001, count=games)
    for spec in [format_spec(name, options)] + [
        format_spec(name, options.replace(twostep=w)) for w in widths
    ]:
        times = [cpu for _board, _wall, cpu in timed_shots(spec, rules, layouts)]
        t = np.array(times[1:]) * 1000  # the first shot compiles or loads the kernels
        print(
            f"{rules_name} {spec}: {len(times)} shots, per shot mean {t.mean():.2f} ms, max {t.max():.1f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, nargs="+", default=[101])
    parser.add_argument("--generator", nargs="+", default=["uniform"])
    parser.add_argument("--width", type=int, nargs="+", default=[4])
    parser.add_argument("--time", type=int, default=0, metavar="GAMES")
    args = parser.parse_args()
    if args.games:
        paired(args.rules, args.games, args.seed, args.generator, args.width)
    if args.time:
        shot_time(args.rules, args.time, args.width)


if __name__ == "__main__":
    main()
