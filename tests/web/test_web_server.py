"""The server as a process: a real kill loses nothing acknowledged; 50 games at once, none lost."""

from __future__ import annotations

import os
import signal
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from tests.web.server import free_port, serving, start

MODES = ["random", "best", "learning", "probability"]


def play(base: str, mode: str, limit: int = 600) -> dict:
    """One whole game with "play for me"; returns its final state."""
    with httpx.Client(base_url=base, timeout=60) as client:
        game = client.post("/api/games", json={"mode": mode})
        game.raise_for_status()
        state = game.json()
        for _ in range(limit):
            if state["status"] == "over":
                return state
            path = "fire" if state["status"] == "player-turn" else "computer"
            r = client.post(f"/api/games/{state['id']}/{path}", json={"auto": True} if path == "fire" else {})
            r.raise_for_status()
            state = r.json()["state"]
    raise AssertionError("a game did not end")


@pytest.mark.slow
def test_killing_the_server_loses_nothing_acknowledged(tmp_path):
    db = f"sqlite:///{tmp_path / 'games.db'}"
    port = free_port()
    process = start(db, port)
    base = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=base, timeout=30) as client:
            game_id = client.post("/api/games", json={"mode": "best"}).json()["id"]
            for _ in range(10):
                client.post(f"/api/games/{game_id}/fire", json={"auto": True}).raise_for_status()
                last = client.post(f"/api/games/{game_id}/computer").json()["state"]
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    process = start(db, port)
    try:
        with httpx.Client(base_url=base, timeout=30) as client:
            assert client.get(f"/api/games/{game_id}").json() == last
            client.post(f"/api/games/{game_id}/fire", json={"auto": True}).raise_for_status()
    finally:
        process.terminate()
        process.wait(10)


@pytest.mark.slow
def test_fifty_concurrent_games_all_finish_and_are_all_recorded(tmp_path):
    with serving(f"sqlite:///{tmp_path / 'games.db'}") as (base, _process):
        modes = [MODES[i % 3] for i in range(48)] + ["probability"] * 2
        with ThreadPoolExecutor(max_workers=50) as pool:
            finals = list(pool.map(lambda m: play(base, m), modes))
        assert all(f["status"] == "over" and f["winner"] in ("player", "computer") for f in finals)
        assert len({f["id"] for f in finals}) == 50
        stats = httpx.get(base + "/api/stats", timeout=60).json()
        assert stats["games"] == 50
        assert sum(m["games"] for m in stats["modes"].values()) == 50
