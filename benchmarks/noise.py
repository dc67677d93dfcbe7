"""Answers that lie and hiders that cheat: every figure of docs/research/noise.md.

Run: .venv/bin/python benchmarks/noise.py [--games N] [--slow-games M] [--cheat-games K] [--seed S]
     [--jobs J] [--generator G] [--flips E ...] [--only flips cheat mayflower values optimum study]

- ``flips``: on 10x10 with the standard fleet (``standard`` rules, ships named when sunk) and answers
  flipped with probability 0.01, 0.05 and 0.1 (sinkings told truly), each shooter's mean shots over
  the same seeded layouts and coins (``battleship compare``'s paired runs): the quick shooters over
  ``--games`` games, exact greedy play (``optimal``) over ``--slow-games`` paired with density.
- ``cheat``: the same board against the greedy cheating hider (the ``cheat`` preset), ``--cheat-games``
  games each, paired.
- ``mayflower``: the noisy Battleship study's measure on its boards, random shots with replacement
  until the fleet's cells are known with posterior probability at least 0.99, beside the
  channel-capacity bound ``log2(layouts) / (1 - H(e))``, 400 games on 4x4 with ships 3 and 2, 60 on 5x5
  with ships 4, 3 and 2; and this toolkit's game on the same boards (sunk when every ship cell has been
  fired at, no announcements): exact greedy play and density over every layout once (400 uniform ones past 400), and the honest
  game's exact optimum, a lower bound under any noise.
- ``values``: the exact worst case against a cheating hider on the study's seven boards.
- ``optimum``: the exact noisy optimum on the study's smallest boards beside the honest optimum and the
  capacity bound, and on tiny boards with and without firing at a cell again.
- ``study``: the study's own measure alone on 4x4 with ships 3 and 2 (the first table of ``mayflower``).
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import replace

import numpy as np

from battleship.inference.minimax import every_layout, game_value
from battleship.lab.limit import optimum
from battleship.lab.noise_limit import capacity_bound, noisy_optimum
from battleship.lab.runner import compare, simulate
from battleship.rules import Noise, Rules, Ship, Sinks, preset
from battleship.shooters import registry

SEED = 5505  # a seed of this benchmark's own
FLIPS = (0.01, 0.05, 0.1)
QUICK = ["density", "density:skew=20", "hunt-target", "hunt-target-parity", "random"]
SLOW = ["density", "optimal"]
CHEAT = ["minimax", "density", "density:skew=20", "optimal", "hunt-target-parity", "random"]
MAYFLOWER_EVERY = 400  # boards of more layouts play this many uniform ones in this toolkit's game
MAYFLOWER_FLIPS = (0.0005, 0.005, 0.05, 0.1, 0.2, 0.3)
CHEAT_BOARDS = (
    (3, 3, (2,)),
    (4, 3, (2,)),
    (4, 4, (2,)),
    (4, 4, (3,)),
    (5, 4, (3,)),
    (4, 4, (2, 2)),
    (4, 4, (3, 2)),
)


def noisy(flip: float) -> Rules:
    """Standard rules with answers flipped with probability ``flip`` (sinkings told truly)."""
    return replace(preset("standard"), noise=Noise(flip), name=f"standard, flip {flip:g}")


def board(rows: int, cols: int, ships: tuple[int, ...], sinks: Sinks = Sinks.NONE) -> Rules:
    """A small board with straight ships of these lengths, ships that may touch."""
    fleet = tuple(Ship.line(f"Ship {'ABCD'[i]}", "ABCD"[i], n) for i, n in enumerate(ships))
    return Rules(rows, cols, fleet, sinks=sinks, name=f"{rows}x{cols} {{{','.join(map(str, ships))}}}")


def table(
    rules: Rules, specs: list[str], games: int, seed: int, jobs: int, generator: str = "uniform"
) -> None:
    """One paired comparison, a line a shooter: mean (95% CI), minus the first (95% CI), seconds a game."""
    if games <= 0:
        return
    start = time.perf_counter()
    result = compare(rules, [registry.resolve(s, rules) for s in specs], games, seed, generator, jobs=jobs)
    wall = time.perf_counter() - start
    print(f"\n{rules.name}: {games:,} paired games (seed {seed}, {generator} layouts), {wall:.0f} s")
    print("| shooter | games | mean (95% CI) | minus first (95% CI) | s a game |")
    print("|---|---|---|---|---|")
    for spec, (name, s) in zip(specs, result.summaries.items(), strict=True):
        diff, (low, high) = result.minus_first[name]
        said = "" if spec == specs[0] else f"{diff:+.3f} ({low:+.3f} .. {high:+.3f})"
        seconds = 1 / s.games_per_second if s.games_per_second else math.nan
        print(
            f"| `{spec}` | {s.games:,} | {s.mean:.3f} ({s.ci95[0]:.3f} .. {s.ci95[1]:.3f}) | {said} | "
            f"{seconds:.3f} |",
            flush=True,
        )


def identify(rules: Rules, flip: float, games: int, seed: int, sure: float = 0.99) -> np.ndarray:
    """Shots a random shooter firing with replacement needs until the fleet's cells have posterior
    probability at least ``sure`` (exact Bayes over every layout), per game."""
    layouts = every_layout(rules)
    occupied = np.array([[any(m >> c & 1 for m in lay) for c in range(rules.cells)] for lay in layouts])
    keys: dict[bytes, int] = {}
    group = np.array([keys.setdefault(row.tobytes(), len(keys)) for row in occupied])
    rng = np.random.default_rng(seed)
    hit = math.log((1 - flip) / flip)
    out = np.empty(games, dtype=np.int64)
    for g in range(games):
        truth = int(rng.integers(len(layouts)))
        logw = np.zeros(len(layouts))
        shots = 0
        while True:
            cell = int(rng.integers(rules.cells))
            shots += 1
            answer = occupied[truth, cell] ^ bool(rng.random() < flip)
            logw += np.where(occupied[:, cell] == answer, hit, 0.0)
            p = np.exp(logw - logw.max())
            if np.bincount(group, weights=p / p.sum(), minlength=len(keys)).max() >= sure:
                break
        out[g] = shots
    return out


def mayflower(seed: int) -> None:
    """The noisy study's measure beside the capacity bound, and this toolkit's game on the same boards."""
    study = {(4, 4): (20.0, 27.0, 40.3, 57.2, 111.3, 255.7)}
    for (rows, cols, ships), games in (((4, 4, (3, 2)), 400), ((5, 5, (4, 3, 2)), 60)):
        rules = board(rows, cols, ships)
        n = len(every_layout(rules))
        print(
            f"\n{rules.name}: {n} layouts; random shots with replacement until the fleet is known at 0.99, {games} games"
        )
        print("| flip | shots (95% CI) | capacity bound | ratio | the study's figure |")
        print("|---|---|---|---|---|")
        for i, flip in enumerate(MAYFLOWER_FLIPS):
            shots = identify(rules, flip, games, seed + i)
            mean, half = shots.mean(), 1.96 * shots.std(ddof=1) / math.sqrt(games)
            bound = capacity_bound(n, flip)
            theirs = study.get((rows, cols), ())
            said = f"{theirs[i]:g}" if theirs else ""
            print(
                f"| {flip:g} | {mean:.1f} ({mean - half:.1f} .. {mean + half:.1f}) | {bound:.2f} | {mean / bound:.2f} | {said} |",
                flush=True,
            )
        from battleship.lab.limit import every_layout as rows_of

        every = rows_of(rules)
        lower = (
            f"the honest game's exact optimum {optimum(rules).shots:.4f}"
            if n <= 300
            else "(the honest optimum not solved here)"
        )
        print(
            f"\n{rules.name}, this toolkit's game (every ship cell fired at), every layout once (seed {seed}); {lower}"
        )
        print("| flip | `optimal` | `density` |")
        print("|---|---|---|")
        for flip in MAYFLOWER_FLIPS:
            twisted = replace(rules, noise=Noise(flip))
            if len(every) <= MAYFLOWER_EVERY:  # every layout once
                means = [
                    simulate(twisted, s, len(every), seed=seed, layouts=every).mean()
                    for s in ("optimal", "density")
                ]
            else:  # uniform layouts, the same for both
                means = [
                    simulate(twisted, s, MAYFLOWER_EVERY, seed=seed).mean() for s in ("optimal", "density")
                ]
            print(f"| {flip:g} | {means[0]:.3f} | {means[1]:.3f} |", flush=True)


def values() -> None:
    """The exact worst case against a cheating hider on the study's seven boards, both sink rules."""
    print("\nCheat Battleship: the fewest shots that sink the fleet whatever the hider answers")
    print("| board | ships | layouts | no announcements | sinkings named | states | s |")
    print("|---|---|---|---|---|---|---|")
    for rows, cols, ships in CHEAT_BOARDS:
        start = time.perf_counter()
        none, n, states = game_value(board(rows, cols, ships))
        named = game_value(board(rows, cols, ships, Sinks.NAMED))[0]
        seconds = time.perf_counter() - start
        print(
            f"| {rows}x{cols} | {', '.join(map(str, ships))} | {n} | {none} | {named} | {states:,} | {seconds:.1f} |",
            flush=True,
        )


def optima() -> None:
    """The exact noisy optimum on the study's smallest boards (a cell fired at once), beside the honest
    game's optimum (a lower bound under any noise) and the channel-capacity bound; then what firing at
    a cell a second time is worth on tiny boards."""
    print("\nThe exact optimum under noise (no announcements, a cell fired at once)")
    print("| board | layouts | flip | optimum | honest optimum | capacity bound | states | s |")
    print("|---|---|---|---|---|---|---|---|")
    for rows, cols, ships in ((3, 3, (2,)), (4, 3, (2,))):
        honest = board(rows, cols, ships)
        lower = optimum(honest).shots
        for flip in MAYFLOWER_FLIPS:
            once = noisy_optimum(replace(honest, noise=Noise(flip)), 0)
            print(
                f"| {honest.name} | {once.layouts} | {flip:g} | {once.shots:.4f} | {lower:.4f} | "
                f"{capacity_bound(once.layouts, flip):.3f} | {once.states:,} | {once.seconds:.1f} |",
                flush=True,
            )
    print("\nFiring at a cell again: the optimum with a cell fired at once and up to twice")
    print("| board | flip | once | up to twice | states (twice) | s |")
    print("|---|---|---|---|---|---|")
    for rows, cols in ((2, 3), (3, 3)):
        for flip in (0.05, 0.2):
            rules = replace(board(rows, cols, (2,)), noise=Noise(flip))
            once = noisy_optimum(rules, 0)
            twice = noisy_optimum(rules, 1, budget=20_000_000)
            print(
                f"| {rules.name} | {flip:g} | {once.shots:.5f} | {twice.shots:.5f} | {twice.states:,} | "
                f"{once.seconds + twice.seconds:.0f} |",
                flush=True,
            )


def study(seed: int) -> None:
    """The noisy study's own measure only (random shots with replacement until the fleet is known at
    0.99), beside the channel-capacity bound and the study's figures."""
    study_figures = (20.0, 27.0, 40.3, 57.2, 111.3, 255.7)
    rules = board(4, 4, (3, 2))
    n = len(every_layout(rules))
    games = 400
    print(
        f"\n{rules.name}: {n} layouts; random shots with replacement until the fleet is known at 0.99, {games} games"
    )
    print("| flip | shots (95% CI) | the study's figure | capacity bound | ratio to the bound |")
    print("|---|---|---|---|---|")
    for i, flip in enumerate(MAYFLOWER_FLIPS):
        shots = identify(rules, flip, games, seed + i)
        mean, half = shots.mean(), 1.96 * shots.std(ddof=1) / math.sqrt(games)
        bound = capacity_bound(n, flip)
        print(
            f"| {flip:g} | {mean:.1f} ({mean - half:.1f} .. {mean + half:.1f}) | {study_figures[i]:g} | "
            f"{bound:.2f} | {mean / bound:.2f} |",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games of the quick shooters under noise")
    parser.add_argument("--slow-games", type=int, default=300, help="games of exact greedy play under noise")
    parser.add_argument("--cheat-games", type=int, default=300, help="games against the cheating hider")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--only", nargs="*", default=["values", "mayflower", "flips", "cheat", "optimum"])
    parser.add_argument(
        "--generator", default="uniform", help="the layouts of flips and cheat (any of simulate's)"
    )
    parser.add_argument(
        "--flips", type=float, nargs="*", default=list(FLIPS), help="the flip chances of flips"
    )
    args = parser.parse_args()
    if "values" in args.only:
        values()
    if "mayflower" in args.only:
        mayflower(args.seed)
    if "flips" in args.only:
        for flip in args.flips:
            table(noisy(flip), QUICK, args.games, args.seed, args.jobs, args.generator)
        for flip in args.flips:
            table(noisy(flip), SLOW, args.slow_games, args.seed, args.jobs, args.generator)
    if "cheat" in args.only:
        table(preset("cheat"), CHEAT, args.cheat_games, args.seed, args.jobs, args.generator)
    if "optimum" in args.only:
        optima()
    if "study" in args.only:
        study(args.seed)


if __name__ == "__main__":
    main()
