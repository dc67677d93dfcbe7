"""The web server's exact play under a spacing margin: state graphs compiled ahead, and the memory they take.

Starts ``battleship serve`` (warm-up included) and prints:

1. start-up to the port answering, then how long until the calculator answers Sea Battle's open
   board exactly (the presets' graphs compile in the background meanwhile), and what the answers
   said until then;
2. meanwhile, computer moves of a standard game (Hard): they must not wait for the compilation;
3. a custom no-contact game at Adaptive and at Hard: its graph's wait at creation, each move's time as
   the client sees it, and what the server says it did (shooter, fallback, exact);
4. the whole server's memory (the proportional set size of the server and every process under it,
   so pages the workers share are counted once), sampled every 0.2 s: the peak, and at the end.

    .venv/bin/python benchmarks/web_graphs.py
"""

from __future__ import annotations

import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.web.server import free_port, start

NO_CONTACT = """rows = 10
cols = 10
spacing = "no-contact"
sinks = "sunk"
[[ship]]
name = "Carrier"
symbol = "C"
length = 5
[[ship]]
name = "Cruiser"
symbol = "R"
length = 3
[[ship]]
name = "Destroyer"
symbol = "D"
length = 2
[[ship]]
name = "Boat"
symbol = "B"
length = 1
"""


def tree(pid: int) -> list[int]:
    """``pid`` and every process under it."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        for task in Path(f"/proc/{p}/task").glob("*"):
            children = task / "children"
            if children.exists():
                todo += [int(c) for c in children.read_text().split()]
    return out


def pss_mb(pid: int) -> float:
    """Proportional set size of ``pid``'s tree, MB."""
    total = 0
    for p in tree(pid):
        try:
            for line in Path(f"/proc/{p}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def sample(pid: int, seen: list[float], done: threading.Event) -> None:
    while not done.is_set():
        seen.append(pss_mb(pid))
        time.sleep(0.2)


def timed(client: httpx.Client, path: str, body: dict) -> tuple[float, dict]:
    began = time.perf_counter()
    r = client.post(path, json=body)
    r.raise_for_status()
    return time.perf_counter() - began, r.json()


def play(client: httpx.Client, body: dict, moves: int) -> list[tuple[float, dict]]:
    """Create a game, then alternate a shot of ours (the first free cell) and the computer's move."""
    wait, game = timed(client, "/api/games", body)
    print(f"  created in {wait:.2f} s; notice: {game.get('notice', '-')}")
    out = []
    for k in range(moves):
        client.post(f"/api/games/{game['id']}/fire", json={"cell": k}).raise_for_status()
        took, move = timed(client, f"/api/games/{game['id']}/computer", {})
        out.append((took, move["computer"]))
        if move["state"]["status"] == "over":
            break
    return out


def report(moves: list[tuple[float, dict]]) -> None:
    times = sorted(t for t, _ in moves)
    fell = sum(m["fallback"] is not None for _, m in moves)
    exact = {str(m["exact"]) for _, m in moves}
    print(
        f"  {len(moves)} moves: median {1000 * times[len(times) // 2]:.0f} ms, max {1000 * times[-1]:.0f} ms; "
        f"fallbacks {fell}; shooters {sorted({m['shooter'] for _, m in moves})}; exact {sorted(exact)}"
    )
    for _, m in moves:
        if m["fallback"]:
            print("  fallback said:", m["fallback"])
            break


def main() -> None:
    db = Path(tempfile.mkdtemp()) / "g.db"
    port, began = free_port(), time.perf_counter()
    process = start(f"sqlite:///{db}", port, "--rate-limit", "", "--access-log", "")
    print(f"port answering after {time.perf_counter() - began:.1f} s")
    seen: list[float] = []
    done = threading.Event()
    threading.Thread(target=sample, args=(process.pid, seen, done), daemon=True).start()
    base = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=base, timeout=60) as client:
            standard: list = []
            player = threading.Thread(
                target=lambda: standard.extend(play(client, {"rules": "standard", "mode": "probability"}, 15))
            )
            player.start()
            board = "/".join(["." * 10] * 10)
            while True:
                took, calc = timed(client, "/api/calc", {"rules": "seabattle", "board": board})
                since = time.perf_counter() - began
                print(f"  Sea Battle calc at {since:.1f} s: {took:.2f} s, exact {calc['exact']}")
                if calc["exact"]:
                    break
                print("   note:", calc["note"])
            player.join()
            print("standard, Hard, while the graphs compiled:")
            report(standard)
            hit = "/".join(["." * 10] * 4 + ["....x....."] + ["." * 10] * 5)
            took, calc = timed(client, "/api/calc", {"rules": "seabattle", "board": hit})
            print(f"Sea Battle calc, one hit, warm: {took:.2f} s, exact {calc['exact']}")
            boards = [hit.replace("x", "o"), hit, hit.replace("....x", "x....")]
            with ThreadPoolExecutor(3) as pool:  # every worker sweeps Sea Battle's graph
                answers = list(
                    pool.map(
                        lambda b: timed(client, "/api/calc", {"rules": "seabattle", "board": b}), boards * 2
                    )
                )
            print(
                f"Sea Battle calc, 6 boards three at a time: longest {max(t for t, _ in answers):.2f} s, "
                f"exact {sorted({str(a['exact']) for _, a in answers})}; server memory now {pss_mb(process.pid):.0f} MB"
            )
            for mode in ("learning", "probability"):
                print(f"custom no-contact, {mode}:")
                report(play(client, {"rules_toml": NO_CONTACT, "mode": mode}, 40))
            print("pirates, learning:")
            report(play(client, {"rules": "pirates", "mode": "learning"}, 40))
    finally:
        done.set()
        print(
            f"server memory (PSS of all its processes): peak {max(seen):.0f} MB, at the end {seen[-1]:.0f} MB"
        )
        process.terminate()
        process.wait(20)


if __name__ == "__main__":
    main()
