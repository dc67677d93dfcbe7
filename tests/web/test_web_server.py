"""The server as a process: a real kill loses nothing acknowledged; 50 games at once on a busy machine; the
slowest requests hold no other game, stop when their client goes away, and SIGTERM stops the server."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from tests.web.server import free_port, output_of, serving, start
from tests.web.slow_rules import ONE_HIT, T_SHAPES

MODES = ["random", "best", "learning", "hunt-target", "probability"]


LONGEST_WAIT = 10.0  # seconds: no request may take longer, on a machine busy with the rest of the suite


def play(
    base: str, mode: str, waits: list[float], moves: list[float] | None = None, limit: int = 2000
) -> dict:
    """One whole game with "play for me"; every request's time goes to ``waits`` (the computer's moves'
    also to ``moves``); returns the final state.

    A 503 (saturated) is retried after its Retry-After, as a client should; a request taking over
    ``LONGEST_WAIT`` seconds fails the game (the client's timeout).
    """

    def call(client: httpx.Client, path: str, body: dict) -> dict:
        for _ in range(100):
            start = time.perf_counter()
            r = client.post(path, json=body)
            waits.append(time.perf_counter() - start)
            if moves is not None and path.endswith("/computer"):
                moves.append(waits[-1])
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
def test_twelve_concurrent_games_finish_and_no_request_waits_over_10_s(tmp_path):
    # one client address plays every game, so the per-client rate limit is off here (tested apart); the
    # load itself (hundreds of players, every core busy, several processes) is benchmarks/web_load.py's
    with serving(f"sqlite:///{tmp_path / 'games.db'}", "--rate-limit", "") as (base, process):
        modes = [MODES[i % 4] for i in range(10)] + ["probability"] * 2
        waits: list[float] = []
        with ThreadPoolExecutor(max_workers=len(modes)) as pool:
            finals = list(pool.map(lambda m: play(base, m, waits), modes))
        assert all(f["status"] == "over" and f["winner"] in ("player", "computer") for f in finals)
        assert len({f["id"] for f in finals}) == len(modes)
        assert max(waits) < LONGEST_WAIT, f"a request took {max(waits):.1f} s"
        stats = httpx.get(base + "/api/stats", timeout=60).json()
        assert stats["games"] == len(modes)
        standard = next(r for r in stats["rules"] if r["key"] == "standard")
        assert sum(m["games"] for m in standard["modes"].values()) == len(modes)
        print(
            f"{len(waits)} requests, longest {max(waits):.2f} s, {output_of(process).count(' 503 ')} answered 503"
        )


def slow(
    base: str, path: str, body: dict, timeout: float = 60, address: str = "127.0.0.1"
) -> httpx.Response | Exception:
    """A request that may take long, from ``address`` (a client holds one calculation at a time; any
    127.x.y.z reaches the server); the exception instead of an answer if the connection failed."""
    try:
        with httpx.Client(transport=httpx.HTTPTransport(local_address=address), timeout=timeout) as client:
            return client.post(base + path, json=body)
    except httpx.HTTPError as error:
        return error


@pytest.mark.slow
def test_the_slowest_requests_hold_no_other_game_and_sigterm_stops_the_server(tmp_path):
    port = free_port()
    # a move may think 2 s, a calculation 6 s; the T-shaped rules with one hit take minutes exactly
    options = ("--rate-limit", "", "--move-seconds", "2", "--analysis-seconds", "6")
    process = start(f"sqlite:///{tmp_path / 'games.db'}", port, *options)
    base = f"http://127.0.0.1:{port}"
    calc, game = {"rules_toml": T_SHAPES, "board": ONE_HIT}, {"rules_toml": T_SHAPES, "mode": "best"}
    try:
        waits: list[float] = []
        moves: list[float] = []
        with ThreadPoolExecutor(max_workers=8) as pool:
            slowest = [
                pool.submit(slow, base, "/api/calc", calc),
                pool.submit(slow, base, "/api/games", game),
            ]
            time.sleep(0.5)  # both are thinking
            games = [
                pool.submit(play, base, m, waits, moves)
                for m in ("best", "random", "hunt-target", "learning")
            ]
            finals = [g.result() for g in games]
            answers = [s.result() for s in slowest]
        assert all(f["status"] == "over" for f in finals)
        assert max(waits) < LONGEST_WAIT, f"a request took {max(waits):.1f} s beside the slowest requests"
        # a move thinks at most 2 s, then the density shooter answers: a generous bound on a busy machine
        assert max(moves) < 5.0, f"a computer move took {max(moves):.1f} s beside the slowest requests"
        estimate, refused = answers
        assert estimate.status_code == 200 and estimate.json()["exact"] is False  # the count ran out of time
        assert refused.status_code == 400 and "too slow under these rules" in refused.json()["detail"]
        gone = slow(base, "/api/calc", calc, timeout=1)  # a client that hangs up: its work stops
        assert isinstance(gone, httpx.TimeoutException)
        for _ in range(100):
            if '"POST /api/calc" 499' in output_of(process):
                break
            time.sleep(0.1)
        assert '"POST /api/calc" 499' in output_of(process)
        # SIGTERM while two of the slowest requests are thinking: the server stops, and says so to both
        pending: list[object] = []
        threads = [  # two clients: one client's second calculation would be answered at once, estimated
            threading.Thread(target=lambda a=a: pending.append(slow(base, "/api/calc", calc, address=a)))
            for a in ("127.0.0.2", "127.0.0.3")
        ]
        for t in threads:
            t.start()
        time.sleep(1.0)
        signalled = time.monotonic()
        process.send_signal(signal.SIGTERM)
        process.wait(15)  # a generous bound on a busy machine; it takes under a second
        stopped_in = time.monotonic() - signalled
        for t in threads:
            t.join(30)
        # uvicorn shuts down gracefully; the program then exits 143 (128 + SIGTERM), as every command does
        assert process.returncode in (128 + signal.SIGTERM, -signal.SIGTERM), output_of(process)
        assert all(isinstance(p, httpx.HTTPError) or p.status_code == 503 for p in pending), pending
        print(
            f"stopped {stopped_in:.1f} s after SIGTERM; longest move {max(moves):.2f} s, request {max(waits):.2f} s"
        )
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    out = output_of(process)
    assert "Traceback" not in out, out[out.find("Traceback") - 200 :]
    assert not subprocess.run(["pgrep", "-f", f"forkserver.*{process.pid}"], capture_output=True).stdout
