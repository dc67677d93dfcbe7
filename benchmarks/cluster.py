"""What a Dask cluster costs and gives: the same run on threads and on worker processes.

Run: .venv/bin/python benchmarks/cluster.py [--games N] [--slow-games N] [--workers W] [--rounds R] [--cluster ADDRESS]

1. ``density`` (a Numba kernel that releases the GIL) for --games games (default 10^7): on --workers
   threads in this process, then on a cluster of --workers single-thread worker processes (``local``,
   or the scheduler at --cluster), in --rounds rounds that alternate between the two so that the
   machine's busy moments fall on both. Prints both rates and the cluster's overhead as a ratio of
   times (total, and per round); the histograms must be identical (checked).
2. The slowest shooter ``best`` plays (``optimal``, exact inference in Python, under the anonymous
   sinkings of ``standard-sunk``) for --slow-games games (in chunks of 50): games per second on threads (the GIL
   lets one run at a time) and per worker on the cluster.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from battleship import lab
from battleship.lab.pool import open_pool
from battleship.lab.rivals import custom_rules
from battleship.rules import preset


def rounds(
    rules, shooter: str, games: int, cluster: str, workers: int, count: int
) -> list[tuple[float, float]]:
    """Seconds on threads and on the cluster for each of ``count`` rounds of ``games / count`` games.

    Rounds alternate between the two (both pools up and warm) so that a busy moment of the
    machine falls on both alike; each round's histograms must be identical.
    """
    out = []
    with open_pool(None, workers) as threads, open_pool(cluster, workers) as remote:
        for pool in (threads, remote):
            lab.simulate(
                rules, shooter, min(games, 2000), seed=0, pool=pool
            )  # every worker compiles or loads
        for k in range(count):
            times, histograms = [], []
            for pool in (threads, remote):
                start = time.perf_counter()
                stream = lab.stream(rules, shooter, games // count, seed=1 + k, pool=pool, keep_shots=False)
                histograms.append(sum(c.histogram for c in stream))
                times.append(time.perf_counter() - start)
            assert np.array_equal(*histograms), "the cluster's run differs from the threads' run"
            out.append((times[0], times[1]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=10_000_000)
    parser.add_argument("--slow-games", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cluster", default="local", help="'local' or a scheduler address (tcp://HOST:8786)")
    args = parser.parse_args()
    for rules, shooter, games, count in (
        (preset("standard"), "density", args.games, args.rounds),
        (custom_rules()["standard-sunk"], "optimal", args.slow_games, 1),
    ):
        times = np.array(rounds(rules, shooter, games, args.cluster, args.workers, count))
        here, there = times.sum(axis=0)
        print(f"{shooter:8s} on {rules.name}: {games:,} games in {count} rounds, identical histograms")
        print(f"  threads  jobs {args.workers}     games_per_second {games / here:12,.1f}")
        print(
            f"  cluster  workers {args.workers}  games_per_second {games / there:12,.1f}  per worker {games / there / args.workers:,.1f}"
        )
        ratios = times[:, 1] / times[:, 0]
        print(
            f"  cluster / threads time ratio {there / here:.3f} (rounds: {' '.join(f'{r:.3f}' for r in ratios)})",
            flush=True,
        )


if __name__ == "__main__":
    main()
