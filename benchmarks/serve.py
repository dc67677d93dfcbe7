"""The web server under use: the computer's move latency per mode, and games per minute.

Run: .venv/bin/python benchmarks/serve.py [--games N] [--jobs J]
Starts `battleship serve` on a temporary SQLite store, plays --games whole games per computer mode
with "play for me" (J at a time), and times every `POST /api/games/{id}/computer` from the client.
Prints plain numbers: median and 95th percentile in milliseconds, and whole games a minute.
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
from tests.server import serving

MODES = ("random", "probability", "best", "learning")


def play(base: str, mode: str) -> list[float]:
    """One game with "play for me"; the computer's move latencies in seconds."""
    latencies = []
    with httpx.Client(base_url=base, timeout=120) as client:
        state = client.post("/api/games", json={"mode": mode}).json()
        while state["status"] != "over":
            if state["status"] == "player-turn":
                state = client.post(f"/api/games/{state['id']}/fire", json={"auto": True}).json()["state"]
            else:
                start = time.perf_counter()
                state = client.post(f"/api/games/{state['id']}/computer", json={}).json()["state"]
                latencies.append(time.perf_counter() - start)
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=4)
    args = parser.parse_args()
    db = Path(tempfile.mkdtemp()) / "games.db"
    with serving(f"sqlite:///{db}") as (base, _process):
        play(base, "best")  # warm up: compile and cache the kernels once
        for mode in MODES:
            start = time.perf_counter()
            with ThreadPoolExecutor(args.jobs) as pool:
                runs = list(pool.map(lambda _i, m=mode: play(base, m), range(args.games)))
            minutes = (time.perf_counter() - start) / 60
            ms = 1000 * np.concatenate([np.array(r) for r in runs])
            print(
                f"{mode:12s} games {args.games} concurrent {args.jobs} computer_move_ms median "
                f"{np.median(ms):.1f} p95 {np.quantile(ms, 0.95):.1f} games_per_minute {args.games / minutes:.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
