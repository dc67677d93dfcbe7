"""The web server under use: the computer's move latency per mode, games per minute, and the statistics.

Run: .venv/bin/python benchmarks/serve.py [--games N] [--jobs J] [--busy]
Starts `battleship serve` on a temporary SQLite store, plays --games whole games per computer mode
with "play for me" (J at a time), and times every `POST /api/games/{id}/computer` from the client
(a 503 is retried after its Retry-After; the wait counts). --busy keeps every core busy with a
spinning process meanwhile. Then restarts the server on the same store and times the first
`GET /api/stats` (cold) and ten more (warm).
Prints plain numbers: median, 95th percentile and maximum in milliseconds, 503s, games a minute.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.web.server import every_core_busy, serving

MODES = ("random", "probability", "best", "learning")


def post(client: httpx.Client, path: str, body: dict, refused: list[int]) -> dict:
    """POST, retrying a 503 after its Retry-After (counted in ``refused``)."""
    while True:
        r = client.post(path, json=body)
        if r.status_code != 503:
            r.raise_for_status()
            return r.json()
        refused.append(1)
        time.sleep(int(r.headers["Retry-After"]))


def play(base: str, mode: str, refused: list[int]) -> list[float]:
    """One game with "play for me"; the computer's move latencies in seconds (retries included)."""
    latencies = []
    with httpx.Client(base_url=base, timeout=120) as client:
        state = post(client, "/api/games", {"mode": mode}, refused)
        while state["status"] != "over":
            if state["status"] == "player-turn":
                state = post(client, f"/api/games/{state['id']}/fire", {"cell": "auto"}, refused)["state"]
            else:
                start = time.perf_counter()
                state = post(client, f"/api/games/{state['id']}/computer", {}, refused)["state"]
                latencies.append(time.perf_counter() - start)
    return latencies


def modes(base: str, games: int, jobs: int) -> None:
    """Every mode's games, timed."""
    for mode in MODES:
        refused: list[int] = []
        start = time.perf_counter()
        with ThreadPoolExecutor(jobs) as pool:
            runs = list(pool.map(lambda _i, m=mode, r=refused: play(base, m, r), range(games)))
        minutes = (time.perf_counter() - start) / 60
        ms = 1000 * np.concatenate([np.array(r) for r in runs])
        print(
            f"{mode:12s} games {games} concurrent {jobs} computer_move_ms median {np.median(ms):.1f} "
            f"p95 {np.quantile(ms, 0.95):.1f} max {ms.max():.1f} answered_503 {len(refused)} "
            f"games_per_minute {games / minutes:.1f}",
            flush=True,
        )


def statistics(db: Path) -> None:
    """The first /api/stats after a restart (cold), then ten more."""
    with serving(f"sqlite:///{db}", "--rate-limit", "", "--access-log", "") as (base, _process):
        start = time.perf_counter()
        first = httpx.get(base + "/api/stats", timeout=120).json()
        cold = 1000 * (time.perf_counter() - start)
        warm = []
        for _ in range(10):
            start = time.perf_counter()
            httpx.get(base + "/api/stats", timeout=120).raise_for_status()
            warm.append(1000 * (time.perf_counter() - start))
    print(
        f"stats        games {first['games']} cold_ms {cold:.1f} warm_ms median {np.median(warm):.1f}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--busy", action="store_true", help="keep every core busy while games are played")
    args = parser.parse_args()
    db = Path(tempfile.mkdtemp()) / "games.db"
    with serving(f"sqlite:///{db}", "--rate-limit", "", "--access-log", "") as (base, _process):
        play(base, "best", [])  # warm up: compile and cache the kernels once
        if args.busy:
            with every_core_busy():
                modes(base, args.games, args.jobs)
        else:
            modes(base, args.games, args.jobs)
    statistics(db)


if __name__ == "__main__":
    main()
