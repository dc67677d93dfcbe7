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
from numba import njit

from battleship import generators
from battleship.game import Game, Observation
from battleship.inference import count, posterior
from battleship.inference.posterior import global_evidence
from battleship.inference.salvos import count_parts
from battleship.rules import Answers, Rules, Salvo, Sinks, Spacing, preset, square
from battleship.tables import tables, to_words


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


# ---- the other design, for comparison: one depth-first search over ships carrying the hit counts --
@njit(cache=True, nogil=True)
def _dfs(lists, lengths, cells, halos, hits, touches, want):
    """Layouts of admissible placements (ship by ship) that cover ``hits`` and meet each partial
    salvo exactly ``want`` times; a branch is cut once a salvo has more hits than it answered."""
    nships, nwords, nsalvos = lengths.shape[0], cells.shape[1], want.shape[0]
    choice = np.full(nships, -1, dtype=np.int64)
    blocked = np.zeros((nships + 1, nwords), dtype=np.uint64)
    covered = np.zeros((nships + 1, nwords), dtype=np.uint64)
    got = np.zeros((nships + 1, nsalvos), dtype=np.int64)
    total = 0
    depth = 0
    while depth >= 0:
        choice[depth] += 1
        if choice[depth] >= lengths[depth]:
            choice[depth] = -1
            depth -= 1
            continue
        p = lists[depth, choice[depth]]
        ok = True
        for w in range(nwords):
            if cells[p, w] & blocked[depth, w]:
                ok = False
        for t in range(nsalvos):
            got[depth + 1, t] = got[depth, t] + touches[p, t]
            if got[depth + 1, t] > want[t]:
                ok = False
        if not ok:
            continue
        for w in range(nwords):
            blocked[depth + 1, w] = blocked[depth, w] | halos[p, w]
            covered[depth + 1, w] = covered[depth, w] | cells[p, w]
        if depth == nships - 1:
            full = True
            for t in range(nsalvos):
                if got[depth + 1, t] != want[t]:
                    full = False
            for w in range(nwords):
                if hits[w] & ~covered[depth + 1, w]:
                    full = False
            if full:
                total += 1
            continue
        depth += 1
    return total


def count_by_dfs(observation: Observation) -> int:
    """The count of a board under count answers (no `sunk`-rule sinkings) by the one-search design."""
    rules = observation.rules
    sev = global_evidence(rules, observation)
    assert sev is not None and sev.sinkings is None
    t = tables(rules)
    blocks = [
        np.flatnonzero(sev.base.admissible[t.start[s] : t.start[s] + t.count[s]]) + t.start[s]
        for s in range(len(rules.fleet))
    ]
    lists = np.zeros((len(blocks), max(len(b) for b in blocks)), dtype=np.int64)
    for s, b in enumerate(blocks):
        lists[s, : len(b)] = b
    lengths = np.array([len(b) for b in blocks], dtype=np.int64)
    salvos = [part.salvo for part in sev.partial]
    touches = np.ascontiguousarray(sev.touches[:, salvos])
    want = np.array([part.hits for part in sev.partial], dtype=np.int64)
    return int(_dfs(lists, lengths, t.cells, t.halos, to_words(sev.base.hits, t.nwords), touches, want))


def compare(games: int, seed: int) -> None:
    """The two designs, counts only, on 8x8 and 10x10 boards (the standard fleet but its carrier,
    no-edge spacing, sinkings not said)."""
    for side in (8, 10):
        fleet = square(10).fleet[1:]
        rules = Rules(
            side,
            side,
            fleet,
            Spacing.NO_EDGE,
            Sinks.NONE,
            salvo=Salvo(3, Answers.COUNT),
            name=f"{side}x{side}",
        )
        for warm in positions(rules, 10**6, [1, 2, 3]):  # compile the kernels first
            if global_evidence(rules, warm) is not None:
                count_by_dfs(warm)
                count(rules, warm)
        print(f"{rules.name}, 4 ships, salvos of 3 answered by a count: CPU s of one count")
        print(f"{'salvos':>6} {'patterns':>9} {'split':>8} {'one search':>11}")
        for game in range(games):
            for k, board in zip([2, 4], positions(rules, seed + game, [2, 4]), strict=False):
                if global_evidence(rules, board) is None:
                    continue
                start = time.process_time()
                split, _ = count(rules, board)
                middle = time.process_time()
                one = count_by_dfs(board)
                end = time.process_time()
                assert one == split
                n = count_parts(rules, global_evidence(rules, board))
                print(f"{k:>6} {n:>9} {middle - start:>8.3f} {end - middle:>11.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=5, help="random games per preset")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--compare", action="store_true", help="the split against one search, small boards")
    args = parser.parse_args()
    if args.compare:
        compare(args.games, args.seed)
        return
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
