"""Several server processes on one PostgreSQL store: a friends' game played across two of them (events,
who is connected, the clock), a computer game moving from one to the other, conflicting moves at
once, one rate limit and one set of heavy-work slots for all, servers starting together on a fresh
database, and a rolling restart of ``serve --workers 2`` that loses no game.

One PostgreSQL server and two ``battleship serve`` processes (A and B) for the whole module; every
wait is for an event (a stream's message, a server's line), bounded, never a sleep or a timing.
"""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import httpx
import pytest
from sqlalchemy import create_engine, text

from battleship.web import schema
from battleship.web.gate import Gate, Saturated
from tests.web.postgres import postgres_server
from tests.web.server import START_SECONDS, free_port, output_of, start

# one session may make 100 requests an hour (each test's clients are sessions of their own, within it).
# An hour, not a minute: the shared limit's fixed windows are read as a sliding one, which lets a burst
# that straddles a window's edge pass a few more than the limit; an hour's edge is rarely straddled.
PER_SESSION = 100
OPTIONS = ("--rate-limit", f"{PER_SESSION}/hour", "--access-log", "", "--heavy-workers", "1")
WAIT = 30.0  # seconds any one awaited thing may take on a busy machine


@pytest.fixture(scope="module")
def store_url():
    with postgres_server() as url:
        yield url


@pytest.fixture(scope="module")
def servers(store_url):
    """A: ``battleship serve --workers 2`` (two processes on one port); B: a ``battleship serve`` of its own;
    on a database whose schema two ``battleship db upgrade`` made at the same moment (the advisory lock
    lets one make it; the other finds it made). Each server keeps one heavy-work process: cheap."""
    upgrade = [sys.executable, "-m", "battleship.cli", "db", "upgrade", "--db", store_url]
    with ThreadPoolExecutor(2) as pool:
        made = list(
            pool.map(lambda _: subprocess.run(upgrade, capture_output=True, text=True, timeout=120), "ab")
        )
    assert [m.returncode for m in made] == [0, 0], [m.stderr for m in made]
    said = [" ".join(m.stdout.split()) for m in made]
    assert sorted(f"none -> {schema.head()}" in m for m in said) == [False, True], said  # made once
    assert sorted("up to date" in m for m in said) == [False, True], said
    ports = [free_port(), free_port()]
    with ThreadPoolExecutor(2) as pool:
        processes = list(
            pool.map(
                lambda port, more: start(store_url, port, *OPTIONS, *more), ports, (("--workers", "2"), ())
            )
        )
    try:
        yield [f"http://127.0.0.1:{port}" for port in ports], processes[0]
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(30)


def client() -> httpx.Client:
    """A player: a client of its own (its own session) that may talk to either server."""
    return httpx.Client(timeout=WAIT)


@contextmanager
def stream(base: str, seat: str):
    """A seat's live stream from ``base``: a queue of every view it sends; closed at the end."""
    views: queue.Queue = queue.Queue()
    http = client()
    response = http.send(http.build_request("GET", f"{base}/api/seats/{seat}/events"), stream=True)
    assert response.status_code == 200

    def read() -> None:
        try:
            for line in response.iter_lines():
                if line.startswith("data: "):
                    views.put(json.loads(line[6:]))
        except httpx.HTTPError:  # closed from this side at the end
            pass

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        yield views
    finally:
        response.close()
        http.close()
        reader.join(WAIT)


def until(views: queue.Queue, wanted) -> dict:
    """The first view from ``views`` that is ``wanted`` (bounded by WAIT seconds in all)."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        view = views.get(timeout=max(0.01, deadline - time.monotonic()))
        if wanted(view):
            return view
    raise AssertionError("the stream never said it")


def test_several_workers_check_the_schema_and_do_not_make_it_and_sqlite_is_for_one(
    servers, store_url, tmp_path
):
    engine = create_engine(store_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as c:
        assert c.execute(text("SELECT version_num FROM alembic_version")).scalars().all() == [schema.head()]
        c.execute(text("CREATE DATABASE fresh"))
    engine.dispose()
    fresh = store_url.rsplit("/", 1)[0] + "/fresh"
    serve = [sys.executable, "-m", "battleship.cli", "serve", "--workers", "2", "--port", str(free_port())]
    with ThreadPoolExecutor(2) as pool:
        refused, sqlite = pool.map(
            lambda db: subprocess.run([*serve, "--db", db], capture_output=True, text=True, timeout=120),
            (fresh, f"sqlite:///{tmp_path / 'g.db'}"),
        )
    said = " ".join(refused.stderr.split())  # one message (wrapped at the terminal's width)
    assert refused.returncode == 2 and said.count("error:") == 1 and "Traceback" not in said
    assert f"no battleship schema yet: run `battleship db upgrade --db {fresh}` first" in said
    assert sqlite.returncode == 2 and "SQLite serves one process" in " ".join(sqlite.stderr.split())
    assert not (tmp_path / "g.db").exists()


def test_a_friends_game_across_two_processes_events_presence_and_clock(servers):
    (a, b), _workers = servers
    with client() as ann, client() as bob:
        made = ann.post(f"{a}/api/friends", json={"clock": 300, "name": "Ann"}).json()
        first, second = made["seat"], made["invite"]
        with stream(a, first) as ann_sees, stream(b, second) as bob_sees:
            # each hears, from the other process, that the other player is connected
            until(ann_sees, lambda v: v["them"]["connected"])
            until(bob_sees, lambda v: v["them"]["connected"] and v["them"]["name"] == "Ann")
            ann.post(f"{a}/api/seats/{first}/layout", json={}).raise_for_status()
            bob.post(f"{b}/api/seats/{second}/layout", json={}).raise_for_status()
            until(ann_sees, lambda v: v["status"] == "your-turn")
            seen = {0: [], 1: []}
            for move in range(6):  # each move made on one process reaches the other seat on the other
                mover, base, seat, watcher = (
                    (ann, a, first, bob_sees) if move % 2 == 0 else (bob, b, second, ann_sees)
                )
                threading.Event().wait(0.3)  # a turn that takes time: its charge shows on the clock
                mover.post(
                    f"{base}/api/seats/{seat}/fire", json={"cell": 10 * move + move // 2}
                ).raise_for_status()
                view = until(watcher, lambda v, n=move + 1: v["moves"] >= n)
                assert view["moves"] == move + 1 and view["status"] == "your-turn"
                seen[move % 2].append(view["their_shots"][-1]["cell"])
                # the clock: both processes say the same side's time runs, and the other's stands
                mine, theirs = (
                    ann.get(f"{b}/api/seats/{first}").json(),
                    bob.get(f"{a}/api/seats/{second}").json(),
                )
                assert mine["clock"]["running"] == ("them" if move % 2 == 0 else "you")
                assert theirs["clock"]["running"] == ("you" if move % 2 == 0 else "them")
                stood = theirs["clock"]["theirs"] if move % 2 == 0 else mine["clock"]["theirs"]
                assert stood < 300  # the mover's time was charged, on whichever process read it
            assert seen == {0: [0, 21, 42], 1: [10, 31, 52]}  # every move once, in order
        # Bob's stream (on B) closed: Ann's view (read on A) says he left
        for _ in range(200):
            if not ann.get(f"{a}/api/seats/{first}").json()["them"]["connected"]:
                break
            threading.Event().wait(0.05)
        assert ann.get(f"{a}/api/seats/{first}").json()["them"]["connected"] is False
        bob.post(f"{b}/api/seats/{second}/resign").raise_for_status()
        final = ann.get(f"{a}/api/seats/{first}").json()
        assert final["status"] == "over" and final["winner"] == "you" and final["moves"] == 6


def _ok(response):
    """The answer's JSON; a refusal fails the test with what the server said."""
    assert response.status_code == 200, (response.status_code, response.text)
    return response.json()


def test_a_computer_game_moving_between_processes_is_recorded_once(servers):
    (a, b), _workers = servers
    with client() as player:
        state = player.post(f"{a}/api/games", json={"mode": "hunt-target", "rules": "square-6"}).json()
        game = state["id"]
        fired = []
        for turn in range(60):
            if state["status"] == "over":
                break
            base, other = (a, b) if turn % 2 == 0 else (b, a)
            cell = next(c for c in range(36) if c not in fired)
            fired.append(cell)
            if turn % 3 == 2:  # the reply asked apart, of the other process (unless that shot won)
                state = _ok(player.post(f"{base}/api/games/{game}/fire", json={"cell": cell}))["state"]
                if state["status"] != "over":
                    state = _ok(player.post(f"{other}/api/games/{game}/computer"))["state"]
            else:
                answer = _ok(player.post(f"{base}/api/games/{game}/fire", json={"cell": cell, "reply": True}))
                state = answer["state"]
                assert answer["shot"]["cell"] == cell
        assert state["status"] == "over"
        on_a, on_b = player.get(f"{a}/api/games/{game}").json(), player.get(f"{b}/api/games/{game}").json()
        assert on_a == on_b == state
        replay = player.get(f"{b}/api/games/{game}/replay").json()
        assert [m["cell"] for m in replay["moves"] if m["player"] == "player"] == fired
        assert len(replay["moves"]) == state["moves"] and replay["notation"] == state["notation"]


def test_conflicting_moves_at_once_on_two_processes_one_wins_and_nothing_is_recorded_twice(servers):
    (a, b), _workers = servers
    with client() as one, client() as two:
        game = one.post(f"{a}/api/games", json={"mode": "random"}).json()["id"]
        for round_ in range(3):  # each turn asked for twice at once, once on each process
            for path, bodies, other in (
                ("fire", ({"cell": 2 * round_}, {"cell": 2 * round_ + 1}), "the computer's"),
                ("computer", ({}, {}), "the player's"),
            ):
                start_line = threading.Barrier(2)

                def move(http: httpx.Client, base: str, body: dict, start_line=start_line, path=path):
                    start_line.wait(WAIT)
                    return http.post(f"{base}/api/games/{game}/{path}", json=body)

                with ThreadPoolExecutor(2) as pool:
                    answers = list(pool.map(move, (one, two), (a, b), bodies))
                assert sorted(r.status_code for r in answers) == [200, 409], [r.text for r in answers]
                won = next(r for r in answers if r.status_code == 200).json()
                assert (
                    f"it is {other} turn" in next(r for r in answers if r.status_code == 409).json()["detail"]
                )
                assert one.get(f"{b}/api/games/{game}").json() == won["state"]
            state = won["state"]
            assert state["moves"] == 2 * (round_ + 1)
            assert len(state["player_shots"]) == len(state["computer_shots"]) == round_ + 1


def test_one_rate_limit_and_one_set_of_heavy_slots_for_every_process(servers, store_url):
    (a, b), _workers = servers
    if time.time() % 3600 > 3600 - WAIT:  # not across an hour's edge (see OPTIONS): at most WAIT s
        time.sleep(3600 - time.time() % 3600 + 1)
    with client() as player:  # one session, its requests spread over both processes
        answers = [player.get(f"{(a, b)[n % 2]}/api/rules") for n in range(PER_SESSION + 6)]
    statuses = [r.status_code for r in answers]
    assert statuses.count(200) <= PER_SESSION and statuses.count(429) >= 6
    assert {r.url.port for r in answers if r.status_code == 429} == {free.url.port for free in answers[:2]}
    # a classroom behind one address: a new session has its own allowance
    with client() as classmate:
        assert classmate.get(f"{b}/api/rules").status_code == 200
    # heavy-work slots: one slot in all, held by one process's gate, is not another's to take
    engine = create_engine(store_url)
    first, second = (Gate(1, 0, 0.2, shared=engine) for _ in range(2))
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        first.run(lambda: (holding.set(), release.wait(WAIT)))

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert holding.wait(WAIT)
        assert first.shared.held() == 1
        with pytest.raises(Saturated):
            second.run(lambda: None)
    finally:
        release.set()
        holder.join(WAIT)
    assert second.run(lambda: "free again") == "free again"
    for gate in (first, second):
        gate.shared.close()
    engine.dispose()


def test_a_rolling_restart_of_several_workers_loses_no_game(servers, store_url):
    (base, _b), process = servers  # the last test: A's workers are replaced under it
    restarted = threading.Event()

    def play(n: int) -> dict:
        """A whole game through the workers, a move's request tried again where a worker stopped under it."""
        with client() as player:
            state = retrying(player, f"{base}/api/games", {"mode": "hunt-target", "rules": "square-6"})
            for cell in range(36):
                if state["status"] == "over":
                    return state
                if n == 0 and cell == 3:
                    process.send_signal(signal.SIGHUP)  # every worker replaced, one at a time
                    restarted.set()
                answer = retrying(
                    player, f"{base}/api/games/{state['id']}/fire", {"cell": cell, "reply": True}
                )
                state = answer.get("state", answer)  # a move's answer, or the game as read again
            return state

    def retrying(player: httpx.Client, url: str, body: dict) -> dict:
        for _ in range(200):
            try:
                answer = player.post(url, json=body)
            except httpx.TransportError:  # the worker this connection reached stopped
                continue
            already = answer.status_code == 400 and "already" in answer.text
            if answer.status_code == 409 or already:  # it went through before its worker stopped: read it
                return player.get(url.rsplit("/", 1)[0]).json()
            if answer.status_code != 503:
                answer.raise_for_status()
                return answer.json()
            threading.Event().wait(0.1)
        raise AssertionError(f"{url}: no answer")

    with ThreadPoolExecutor(3) as pool:
        finals = list(pool.map(play, range(3)))
    assert restarted.is_set()
    # the new workers came up (four "serving" lines in all), then a game on them
    deadline = time.monotonic() + START_SECONDS
    while output_of(process).count("serving") < 4 and time.monotonic() < deadline:
        threading.Event().wait(0.2)
    assert output_of(process).count("serving") == 4, output_of(process)
    finals.append(play(3))
    assert all(f["status"] == "over" for f in finals)
    engine = create_engine(store_url)
    with engine.connect() as c:
        for final in finals:
            moves, status = c.execute(
                text("SELECT moves, status FROM games WHERE id = :id"), {"id": final["id"]}
            ).one()
            assert (moves, status) == (final["moves"], "over")
    engine.dispose()
