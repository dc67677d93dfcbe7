"""The web server under use: start-up, the computer's move latency per level, the slowest requests beside
other games, SIGTERM, and the statistics.

Run: .venv/bin/python benchmarks/serve.py [--games N] [--jobs J] [--busy] [--skip-modes]
1. start-up: from launching `battleship serve` to the port answering (the warm-up runs before it
   opens), then the first `GET /api/layout` and the first computer move of a game (Expert);
2. per level, --games whole games with "play for me" (J at a time), timing every
   `POST /api/games/{id}/computer` from the client (a 503 is retried after its Retry-After; the wait
   counts) and counting moves that fell back to the density shooter; --busy keeps every core busy
   with a spinning process meanwhile;
3. the stall: two of the slowest custom-rules requests at once (a calculation and a game's creation
   under T-shaped ships with one hit, which take minutes exactly) while four games are played, then
   SIGTERM with two of them under way: the longest move beside them, and how long the server took
   to stop;
4. beside two heavy calculations: two clients (127.0.0.2 and 127.0.0.3) each post the calculation
   under T-shaped ships with one hit, and meanwhile a third starts an Expert game and plays five
   rounds: the longest of those answers (each should be within 3 s), what the calculations answered;
5. the statistics: the first `GET /api/stats` after a restart (cold) and ten more (warm).
Prints plain numbers: median, 95th percentile and maximum in milliseconds, 503s, games a minute.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.web.server import every_core_busy, free_port, serving, start
from tests.web.slow_rules import ONE_HIT, T_SHAPES

MODES = ("random", "hunt-target", "probability", "best", "learning")


def post(client: httpx.Client, path: str, body: dict, refused: list[int]) -> dict:
    """POST, retrying a 503 after its Retry-After (counted in ``refused``)."""
    while True:
        r = client.post(path, json=body)
        if r.status_code != 503:
            r.raise_for_status()
            return r.json()
        refused.append(1)
        time.sleep(int(r.headers["Retry-After"]))


def play(base: str, mode: str, refused: list[int], fell_back: list[int] | None = None) -> list[float]:
    """One game with "play for me"; the computer's move latencies in seconds (retries included)."""
    latencies = []
    with httpx.Client(base_url=base, timeout=120) as client:
        state = post(client, "/api/games", {"mode": mode}, refused)
        while state["status"] != "over":
            if state["status"] == "player-turn":
                state = post(client, f"/api/games/{state['id']}/fire", {"cell": "auto"}, refused)["state"]
            else:
                begin = time.perf_counter()
                answer = post(client, f"/api/games/{state['id']}/computer", {}, refused)
                latencies.append(time.perf_counter() - begin)
                if fell_back is not None and answer["computer"]["fallback"]:
                    fell_back.append(1)
                state = answer["state"]
    return latencies


def ms(values: list[float]) -> str:
    a = 1000 * np.array(values)
    return f"median {np.median(a):.1f} p95 {np.quantile(a, 0.95):.1f} max {a.max():.1f}"


def startup(db: Path) -> None:
    """Launch to listening, then the first layout and the first computer move."""
    port, began = free_port(), time.perf_counter()
    process = start(f"sqlite:///{db}", port, "--rate-limit", "", "--access-log", "")
    listening = time.perf_counter() - began
    base = f"http://127.0.0.1:{port}"
    try:
        begin = time.perf_counter()
        httpx.get(base + "/api/layout", timeout=120).raise_for_status()
        layout = time.perf_counter() - begin
        game = httpx.post(base + "/api/games", json={"mode": "best"}, timeout=120).json()
        httpx.post(f"{base}/api/games/{game['id']}/fire", json={"cell": "E5"}, timeout=120).raise_for_status()
        begin = time.perf_counter()
        httpx.post(f"{base}/api/games/{game['id']}/computer", timeout=120).raise_for_status()
        move = time.perf_counter() - begin
    finally:
        process.terminate()
        process.wait(30)
    print(
        f"startup      listening_after_s {listening:.2f} first_layout_ms {1000 * layout:.1f} "
        f"first_computer_move_ms {1000 * move:.1f}",
        flush=True,
    )


def modes(base: str, games: int, jobs: int) -> None:
    """Every level's games, timed."""
    for mode in MODES:
        refused: list[int] = []
        fell_back: list[int] = []
        begin = time.perf_counter()
        with ThreadPoolExecutor(jobs) as pool:
            runs = list(
                pool.map(lambda _i, m=mode, r=refused, f=fell_back: play(base, m, r, f), range(games))
            )
        minutes = (time.perf_counter() - begin) / 60
        moves = [x for r in runs for x in r]
        print(
            f"{mode:12s} games {games} concurrent {jobs} computer_move_ms {ms(moves)} answered_503 {len(refused)} "
            f"fell_back {len(fell_back)} of {len(moves)} games_per_minute {games / minutes:.1f}",
            flush=True,
        )


def slow(base: str, path: str, body: dict) -> float:
    begin = time.perf_counter()
    with contextlib.suppress(httpx.HTTPError):  # a connection the stopping server closed: timed all the same
        httpx.post(base + path, json=body, timeout=120)
    return time.perf_counter() - begin


def stall(db: Path) -> None:
    """Two of the slowest custom-rules requests beside four games; then SIGTERM with two under way."""
    port = free_port()
    process = start(f"sqlite:///{db}", port, "--rate-limit", "", "--access-log", "")
    base = f"http://127.0.0.1:{port}"
    calc, game = {"rules_toml": T_SHAPES, "board": ONE_HIT}, {"rules_toml": T_SHAPES, "mode": "best"}
    try:
        with ThreadPoolExecutor(8) as pool:
            slowest = [
                pool.submit(slow, base, "/api/calc", calc),
                pool.submit(slow, base, "/api/games", game),
            ]
            time.sleep(0.5)
            runs = [
                pool.submit(play, base, m, []) for m in ("best", "probability", "hunt-target", "learning")
            ]
            moves = [x for r in runs for x in r.result()]
            held = [s.result() for s in slowest]
        threads = [threading.Thread(target=slow, args=(base, "/api/calc", calc)) for _ in range(2)]
        for t in threads:
            t.start()
        time.sleep(1.0)
        signalled = time.perf_counter()
        process.send_signal(signal.SIGTERM)
        process.wait(60)
        stopped = time.perf_counter() - signalled
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    print(
        f"stall        slowest_requests_s {held[0]:.2f} {held[1]:.2f} moves_beside_them_ms {ms(moves)} "
        f"stopped_after_sigterm_s {stopped:.2f}",
        flush=True,
    )


def from_address(address: str) -> httpx.Client:
    """A client whose connections come from ``address`` (any 127.x.y.z reaches a server on 127.0.0.1)."""
    return httpx.Client(transport=httpx.HTTPTransport(local_address=address), timeout=120)


def beside_calculations(db: Path) -> None:
    """A new game and its moves while two clients' heavy calculations run."""
    port = free_port()
    process = start(f"sqlite:///{db}", port, "--rate-limit", "", "--access-log", "")
    base = f"http://127.0.0.1:{port}"
    calc = {"rules_toml": T_SHAPES, "board": ONE_HIT}
    answers: list[dict] = []

    def calculate(address: str) -> None:
        with from_address(address) as client:
            answers.append(client.post(base + "/api/calc", json=calc).json())

    try:
        threads = [threading.Thread(target=calculate, args=(a,)) for a in ("127.0.0.2", "127.0.0.3")]
        for t in threads:
            t.start()
        time.sleep(1.0)  # both calculations hold their slots
        times: list[float] = []
        with httpx.Client(base_url=base, timeout=120) as client:
            begin = time.perf_counter()
            created = client.post("/api/games", json={"mode": "best"})
            times.append(time.perf_counter() - begin)
            game = created.json()
            for cell in range(5):
                for path, body in (
                    (f"/api/games/{game['id']}/fire", {"cell": cell}),
                    (f"/api/games/{game['id']}/computer", None),
                ):
                    begin = time.perf_counter()
                    r = client.post(path, json=body)
                    times.append(time.perf_counter() - begin)
                    r.raise_for_status()
        for t in threads:
            t.join(120)
    finally:
        process.terminate()
        process.wait(30)
    notes = [("exact" if a.get("exact") else "estimate") for a in answers]
    print(
        f"beside_calcs new_game_status {created.status_code} new_game_ms {1000 * times[0]:.1f} "
        f"longest_answer_ms {1000 * max(times):.1f} calculations {' '.join(notes)}",
        flush=True,
    )


def statistics(db: Path) -> None:
    """The first /api/stats after a restart (cold), then ten more."""
    with serving(f"sqlite:///{db}", "--rate-limit", "", "--access-log", "") as (base, _process):
        begin = time.perf_counter()
        first = httpx.get(base + "/api/stats", timeout=120).json()
        cold = 1000 * (time.perf_counter() - begin)
        warm = []
        for _ in range(10):
            begin = time.perf_counter()
            httpx.get(base + "/api/stats", timeout=120).raise_for_status()
            warm.append(1000 * (time.perf_counter() - begin))
    print(
        f"stats        games {first['games']} cold_ms {cold:.1f} warm_ms median {np.median(warm):.1f}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--busy", action="store_true", help="keep every core busy while games are played")
    parser.add_argument(
        "--skip-modes", action="store_true", help="only start-up, the stall and the statistics"
    )
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp())
    startup(folder / "startup.db")
    if not args.skip_modes:
        with serving(f"sqlite:///{folder / 'games.db'}", "--rate-limit", "", "--access-log", "") as (
            base,
            _p,
        ):
            if args.busy:
                with every_core_busy():
                    modes(base, args.games, args.jobs)
            else:
                modes(base, args.games, args.jobs)
    stall(folder / "stall.db")
    beside_calculations(folder / "beside.db")
    statistics(folder / "games.db")


if __name__ == "__main__":
    main()
