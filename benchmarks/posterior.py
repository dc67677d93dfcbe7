"""Speed of the exact engine (issue 4's figures), on one core, after compilation.

Run: .venv/bin/python benchmarks/posterior.py [--games 100] [--pirates-games 5] [--skip-pirates-open]
Prints plain numbers: seconds for the open boards, and per-turn times over games that always fire
at the most probable cell (median, 90th percentile, worst, and the whole game's inference).
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from battleship import generators
from battleship.game import Game
from battleship.inference import count, posterior
from battleship.rules import preset


def timed(func, *args):
    """(seconds, result) of one call."""
    start = time.perf_counter()
    result = func(*args)
    return time.perf_counter() - start, result


def greedy_games(rules_name: str, games: int, seed: int = 1) -> tuple[np.ndarray, np.ndarray, int]:
    """Per-turn inference times, per-game totals, and the largest per-turn time's turn number."""
    rules = preset(rules_name)
    turns, totals = [], []
    worst_turn = 0
    for layout in generators.generate(rules, "uniform", seed, games):
        game = Game(layout)
        spent = 0.0
        while not game.over:
            seconds, result = timed(posterior, rules, game.observation)
            if not turns or seconds > max(turns):
                worst_turn = len(game.observation.shots) + 1
            turns.append(seconds)
            spent += seconds
            game.fire(result.best(game.observation)[0])
        totals.append(spent)
    return np.array(turns), np.array(totals), worst_turn


def report(label: str, turns: np.ndarray, totals: np.ndarray, worst_turn: int) -> None:
    """One line of plain numbers."""
    print(
        f"{label} turns {len(turns)} median_ms {1000 * np.median(turns):.2f} p90_ms "
        f"{1000 * np.quantile(turns, 0.9):.2f} worst_ms {1000 * turns.max():.2f} (turn {worst_turn}) "
        f"game_median_s {np.median(totals):.3f} game_worst_s {totals.max():.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--pirates-games", type=int, default=5)
    parser.add_argument("--skip-pirates-open", action="store_true")
    args = parser.parse_args()
    standard = preset("standard")
    posterior(standard)  # compile
    runs = [timed(posterior, standard, None, None, False)[0] for _ in range(5)]  # not the cached answer
    print(f"standard open board posterior seconds {min(runs):.4f} (best of 5; median {np.median(runs):.4f})")
    runs = [timed(count, standard)[0] for _ in range(5)]
    print(f"standard open board count only seconds {min(runs):.4f}")
    report("standard greedy", *greedy_games("standard", args.games))
    pirates = preset("pirates")
    if not args.skip_pirates_open:
        seconds, result = timed(posterior, pirates, None, None, False)
        print(
            f"pirates open board posterior seconds {seconds:.2f} layouts {result.layouts} engine {result.engine}"
        )
    if args.pirates_games:
        report("pirates greedy", *greedy_games("pirates", args.pirates_games))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory MB {peak:.0f}")


if __name__ == "__main__":
    main()
