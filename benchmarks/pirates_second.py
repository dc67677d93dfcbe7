"""Process time a shot of greedy's exact rest of game on `pirates`, for several endgame sizes.

Run: .venv/bin/python benchmarks/pirates_second.py [SHOOTER ...] [--games N] [--seed S]
     [--rules PRESET]

One untimed game first compiles the kernels (a minute or more the first time); time each shooter in
a process of its own, since greedy's kept subtree costs carry over from one shooter to the next.
Plays N games (uniform layouts, seed S) of each shooter and prints, per shooter, the process time
(one core: a shared machine's wall clock would count the other jobs) of every shot after the first
(the first fills the per-process caches): mean, 99th percentile and maximum, and the same over the
shots where the look-ahead ran (at most ``endgame`` layouts left, more than one candidate), with
how many such shots there were. The budget the look-ahead is held to: 0.5 s a shot at most.
"""

from __future__ import annotations

import argparse

import numpy as np

from battleship.errors import BattleshipError
from battleship.game import Game
from battleship.generators import generate
from battleship.inference import posterior
from battleship.rules import Rules, load
from battleship.shooters import make
from battleship.shooters.options import parse_spec
from shot_time import timed_shots

BUDGET = 0.5  # seconds of process time a shot, at most
DEFAULT = ["twoply:endgame=5000,plies=1", "twoply:endgame=20000,plies=1", "twoply:endgame=50000,plies=1"]


def endgame_size(text: str) -> int:
    """The ``endgame`` option of a shooter spec (0 when none)."""
    _, options = parse_spec(text)
    return int(options.endgame or 0)


def warm_up(text: str, rules: Rules, seed: int) -> None:
    """Play one untimed game (on a layout of another seed), so that compiling the kernels is not timed."""
    shooter = make(text)
    shooter.reset(rules, np.random.default_rng(0))
    game = Game(generate(rules, "uniform", seed=seed + 1, count=1)[0])
    while not game.over:
        game.fire(shooter.next_shot(game.observation))


def time_shooter(text: str, rules_name: str, games: int, seed: int) -> None:
    """Print the process time per shot of one shooter over ``games`` games."""
    rules = load(rules_name)
    warm_up(text, rules, seed)
    layouts = generate(rules, "uniform", seed=seed, count=games)
    limit = endgame_size(text)
    every, lookahead, first, shots = [], [], [], 0
    for observation, _wall, spent in timed_shots(text, rules, layouts):
        shots += 1
        if not observation.shots:
            first.append(spent)
            continue
        every.append(spent)
        # outside the timed span: whether the look-ahead ran on this shot
        if limit and posterior(rules, observation).layouts <= limit:
            lookahead.append(spent)
    t, e = np.array(every), np.array(lookahead) if lookahead else np.zeros(1)
    print(
        f"{rules_name} {text}: {shots} shots in {games} games; per shot (process time) mean "
        f"{t.mean() * 1000:.1f} ms, 99th percentile {np.percentile(t, 99) * 1000:.0f} ms, max "
        f"{t.max() * 1000:.0f} ms; endgame shots {len(lookahead)}, mean {e.mean() * 1000:.1f} ms, "
        f"max {e.max() * 1000:.0f} ms; first shot {max(first) * 1000:.0f} ms at most; "
        f"within {BUDGET} s: {'yes' if t.max() <= BUDGET else 'no'}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("shooters", nargs="*", default=DEFAULT)
    parser.add_argument("--rules", default="pirates", help="a preset's name or a rules TOML file")
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seed", type=int, default=3001)
    args = parser.parse_args()
    if args.games < 1:
        parser.error(f"--games must be at least 1, not {args.games}")
    try:
        for text in args.shooters:
            time_shooter(text, args.rules, args.games, args.seed)
    except BattleshipError as error:  # a bad shooter or rules file: one line, not a traceback
        raise SystemExit(f"pirates_second: {error}") from None


if __name__ == "__main__":
    main()
