"""The server as a process: a real kill loses nothing acknowledged; 50 games at once on a busy machine."""

from __future__ import annotations

import os
import signal
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from tests.web.server import every_core_busy, free_port, output_of, serving, start

MODES = ["random", "best", "learning", "probability"]


LONGEST_WAIT = 10.0  # seconds: no request may take longer, even with every core busy elsewhere


def play(base: str, mode: str, waits: list[float], limit: int = 2000) -> dict:
    """One whole game with "play for me"; every request's time goes to ``waits``; returns the final state.

    A 503 (saturated) is retried after its Retry-After, as a client should; a request taking over
    ``LONGEST_WAIT`` seconds fails the game (the client's timeout).
    """

    def call(client: httpx.Client, path: str, body: dict) -> dict:
        for _ in range(100):
            start = time.perf_counter()
            r = client.post(path, json=body)
            waits.append(time.perf_counter() - start)
            if r.status_code != 503:
                r.raise_for_status()
                return r.json()
            time.sleep(int(r.headers["Retry-After"]))
        raise AssertionError(f"{path}: still saturated after 100 tries")

    with httpx.Client(base_url=base, timeout=LONGEST_WAIT) as client:
        state = call(client, "/api/games", {"mode": mode})
        for _ in range(limit):
            if state["status"] == "over":
                return state
            if state["status"] == "player-turn":
                state = call(client, f"/api/games/{state['id']}/fire", {"cell": "auto"})["state"]
            else:
                state = call(client, f"/api/games/{state['id']}/computer", {})["state"]
    raise AssertionError("a game did not end")


@pytest.mark.slow
def test_killing_the_server_loses_nothing_acknowledged(tmp_path):
    db = f"sqlite:///{tmp_path / 'games.db'}"
    port = free_port()
    # 21 quick requests could pass the default 20/second: the per-client rate limit is tested apart
    process = start(db, port, "--rate-limit", "")
    base = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=base, timeout=30) as client:
            game_id = client.post("/api/games", json={"mode": "best"}).json()["id"]
            for _ in range(10):
                client.post(f"/api/games/{game_id}/fire", json={"auto": True}).raise_for_status()
                answer = client.post(f"/api/games/{game_id}/computer")
                answer.raise_for_status()
                last = answer.json()["state"]
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    process = start(db, port, "--rate-limit", "")
    try:
        with httpx.Client(base_url=base, timeout=30) as client:
            assert client.get(f"/api/games/{game_id}").json() == last
            client.post(f"/api/games/{game_id}/fire", json={"auto": True}).raise_for_status()
    finally:
        process.terminate()
        process.wait(10)


@pytest.mark.slow
def test_fifty_concurrent_games_finish_with_every_core_busy_and_no_request_waits_over_10_s(tmp_path):
    # one client address plays all 50 games, so the per-client rate limit is off here (tested apart)
    with serving(f"sqlite:///{tmp_path / 'games.db'}", "--rate-limit", "") as (base, process):
        modes = [MODES[i % 3] for i in range(48)] + ["probability"] * 2
        waits: list[float] = []
        with every_core_busy(), ThreadPoolExecutor(max_workers=50) as pool:
            finals = list(pool.map(lambda m: play(base, m, waits), modes))
        assert all(f["status"] == "over" and f["winner"] in ("player", "computer") for f in finals)
        assert len({f["id"] for f in finals}) == 50
        assert max(waits) < LONGEST_WAIT, f"a request took {max(waits):.1f} s"
        stats = httpx.get(base + "/api/stats", timeout=60).json()
        assert stats["games"] == 50
        assert sum(m["games"] for m in stats["modes"].values()) == 50
        print(
            f"{len(waits)} requests, longest {max(waits):.2f} s, {output_of(process).count(' 503 ')} answered 503"
        )
