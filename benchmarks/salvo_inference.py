"""Exact inference on salvos answered whole: seconds for one exact posterior, as a game goes on.

`salvo-count` (five shots a salvo, answered by the number of hits): after 1, 2, 3 and 5 salvos of
seeded random cells fired at a uniformly random layout (the referee answers them); `hits-named`
(one shot a turn, answered with the ship hit): after 5, 10, 20 and 40 turns. Each line gives the
CPU seconds of :func:`battleship.inference.posterior` (kernels compiled beforehand), the layouts left,
the hit patterns the counts split into and the engine. Run:

    python benchmarks/salvo_inference.py [--games 5] [--seed 0]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from battleship import generators
from battleship.game import Game, Observation
from battleship.inference import posterior
from battleship.inference.posterior import global_evidence
from battleship.inference.salvos import count_parts
from battleship.rules import Rules, preset


def positions(rules: Rules, seed: int, turns: list[int]) -> list[Observation]:
    """The board after each number of ``turns`` of seeded random salvos at a seeded random layout."""
    game = Game(generators.to_layout(rules, generators.draw(rules, "uniform", seed, 1)[0]))
    rng = np.random.default_rng(seed)
    out = []
    for turn in range(1, max(turns) + 1):
        if game.over:
            break
        free = [c for c in range(rules.cells) if not game.observation.is_shot(c)]
        game.fire_salvo(rng.choice(free, size=game.turn_size(), replace=False).tolist())
        if turn in turns:
            out.append(game.observation)
    return out


def timed(observation: Observation) -> tuple[float, int, int, str]:
    """(seconds, layouts, hit patterns, engine) of one exact posterior."""
    rules = observation.rules
    sev = global_evidence(rules, observation)
    patterns = 1 if sev is None else count_parts(rules, sev)
    start = time.process_time()  # CPU time: the figure holds on a busy machine
    result = posterior(observation, cached=False)
    return time.process_time() - start, int(result.layouts), patterns, result.engine


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=5, help="random games per preset")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    plans = {"salvo-count": [1, 2, 3, 5], "hits-named": [5, 10, 20, 40]}
    for name, turns in plans.items():
        rules = preset(name)
        timed(positions(rules, 10**6, [1])[0])  # compile the kernels first
        print(f"{name}: exact posterior after k turns, {args.games} games (seeds {args.seed}..)")
        print(
            f"{'turns':>6} {'median CPU s':>13} {'max CPU s':>10} {'patterns (each game)':>24}  layouts (first game)  engine"
        )
        by_turn: dict[int, list[tuple[float, int, int, str]]] = {k: [] for k in turns}
        for game in range(args.games):
            for k, board in zip(turns, positions(rules, args.seed + game, turns), strict=False):
                by_turn[k].append(timed(board))
        for k in turns:
            rows = by_turn[k]
            if not rows:
                continue
            seconds = [r[0] for r in rows]
            patterns = ",".join(str(r[2]) for r in rows)
            print(
                f"{k:>6} {statistics.median(seconds):>13.3f} {max(seconds):>10.3f} {patterns:>24}  "
                f"{rows[0][1]:>20,}  {rows[0][3]}"
            )


if __name__ == "__main__":
    main()
