"""Turns each shooter needs under salvo rules, and the set-aware shooter's paired gain over top-K density.

Run: .venv/bin/python benchmarks/salvo_shooters.py [--games N] [--seed S] [--rules salvo,salvo-count]
     [--generators uniform,spread] [--shooters density,optimal,salvo] [--versus salvo:density]

Every shooter plays the same seeded layouts of each rule set and generator (game i: layout i of the
generator's seeded draw, the shooter reset with the run's game stream i), in Python (the lab's
kernels play one shot a turn). One line a shooter: mean turns (salvos to sink the fleet) with its
95% interval, mean shots fired, seconds a game; then, for each pair ``A:B`` of ``--versus``, the
paired difference in turns (B minus A: positive when A needs fewer) with its 95% interval.
Long: the set-aware shooter takes about half a second a game on the standard board.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from battleship.game import play
from battleship.generators import generate
from battleship.rng import game_rng
from battleship.rules import Rules, preset
from battleship.shooters import make

SEED = 4401  # a seed of this benchmark's own


def interval(values: np.ndarray) -> tuple[float, float, float]:
    """Mean and its normal 95% interval."""
    mean = float(values.mean())
    half = 1.96 * float(values.std(ddof=1)) / math.sqrt(len(values)) if len(values) > 1 else math.nan
    return mean, mean - half, mean + half


def run(
    rules: Rules, generator: str, spec: str, games: int, seed: int
) -> tuple[np.ndarray, np.ndarray, float]:
    """Turns and shots a game of ``spec`` over ``games`` seeded layouts, and seconds a game."""
    layouts = generate(rules, generator, seed, games)
    turns = np.empty(games, dtype=np.int64)
    shots = np.empty(games, dtype=np.int64)
    start = time.perf_counter()
    for i, layout in enumerate(layouts):
        record = play(make(spec), layout, game_rng(seed, i))
        turns[i], shots[i] = record.turns, record.fired
    return turns, shots, (time.perf_counter() - start) / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--rules", default="salvo,salvo-count")
    parser.add_argument("--generators", default="uniform,spread")
    parser.add_argument("--shooters", default="hunt-target-parity,density,density:skew=20,salvo")
    parser.add_argument("--versus", default="salvo:density", help="pairs A:B, comma separated")
    parser.add_argument("--out", default="", help="a .npz file for every game's turns (one array a run)")
    args = parser.parse_args()
    pairs = [tuple(p.split(":", 1)) for p in args.versus.split(",") if p]
    saved: dict[str, np.ndarray] = {}
    for rules_name in args.rules.split(","):
        rules = preset(rules_name)
        for generator in args.generators.split(","):
            print(f"# {rules_name}, {generator} layouts, {args.games} games, seed {args.seed}", flush=True)
            turns: dict[str, np.ndarray] = {}
            for spec in args.shooters.split(","):
                turns[spec], shots, seconds = run(rules, generator, spec, args.games, args.seed)
                saved[f"{rules_name}/{generator}/{spec}"] = turns[spec]
                if args.out:
                    np.savez(args.out, **saved)
                mean, low, high = interval(turns[spec].astype(np.float64))
                print(
                    f"{spec:28s} {mean:7.3f} turns ({low:.3f} .. {high:.3f})  {shots.mean():6.2f} shots"
                    f"  {seconds:.3f} s/game",
                    flush=True,
                )
            for first, second in pairs:
                if first in turns and second in turns:
                    diff = (turns[second] - turns[first]).astype(np.float64)
                    mean, low, high = interval(diff)
                    print(
                        f"paired {second} - {first}: {mean:+.3f} turns ({low:+.3f} .. {high:+.3f})",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
