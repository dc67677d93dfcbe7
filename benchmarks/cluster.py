"""What a Dask cluster costs and gives: the same run on threads and on worker processes.

Run: .venv/bin/python benchmarks/cluster.py [--games N] [--slow-games N] [--workers W] [--cluster ADDRESS]

1. ``density`` (a Numba kernel that releases the GIL) for --games games (default 10^7): on --workers
   threads in this process, then on a cluster of --workers single-thread worker processes (``local``,
   or the scheduler at --cluster). Prints both rates and the cluster's overhead as a ratio; the
   summaries must be identical (checked).
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


def run(rules, shooter: str, games: int, cluster: str | None, workers: int) -> tuple[np.ndarray, float, int]:
    """The run's histogram, its games per second (the pool already up and warm), and the pool's threads."""
    with open_pool(cluster, workers) as pool:
        lab.simulate(rules, shooter, min(games, 2000), seed=0, pool=pool)  # every worker compiles or loads
        start = time.perf_counter()
        histogram = sum(
            c.histogram for c in lab.stream(rules, shooter, games, seed=1, pool=pool, keep_shots=False)
        )
        return histogram, games / (time.perf_counter() - start), pool.threads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=10_000_000)
    parser.add_argument("--slow-games", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cluster", default="local", help="'local' or a scheduler address (tcp://HOST:8786)")
    args = parser.parse_args()
    for rules, shooter, games in (
        (preset("standard"), "density", args.games),
        (custom_rules()["standard-sunk"], "optimal", args.slow_games),
    ):
        here, threads_rate, _ = run(rules, shooter, games, None, args.workers)
        there, cluster_rate, workers = run(rules, shooter, games, args.cluster, args.workers)
        assert np.array_equal(here, there), "the cluster's run differs from the threads' run"
        print(f"{shooter:8s} on {rules.name}: {games:,} games, identical summaries")
        print(f"  threads  jobs {args.workers}     games_per_second {threads_rate:12,.1f}")
        print(
            f"  cluster  workers {workers}  games_per_second {cluster_rate:12,.1f}  per worker {cluster_rate / workers:,.1f}"
        )
        print(f"  cluster / threads time ratio {threads_rate / cluster_rate:.3f}", flush=True)


if __name__ == "__main__":
    main()
