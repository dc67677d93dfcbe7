"""What players and their clients meet, through the API: true counts, clocks and labels at every moment
of a game; contradictory and bad requests refused naming the field and the value; a cap on live
streams; play never starved by analysis."""

from __future__ import annotations

import re
import threading
import time
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient

from battleship.web import store
from battleship.web.app import Settings, create_app
from battleship.web.hub import Hub, TooManyStreams
from tests.web.slow_rules import ONE_HIT, T_SHAPES


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(f"sqlite:///{tmp_path / 'games.db'}", settings=Settings(rate_limit=""))) as c:
        yield c


def friends_game(client, **body) -> tuple[str, str, str]:
    """A friends' game with both fleets placed: (game id, first seat, second seat)."""
    made = client.post("/api/friends", json=body).json()
    first, second = made["seat"], made["invite"]
    client.post(f"/api/seats/{first}/layout", json={})
    client.post(f"/api/seats/{second}/layout", json={})
    return made["state"]["id"], first, second


def test_ships_afloat_are_true_after_a_loss_with_ships_still_hidden(client):
    game = client.post("/api/games", json={"mode": "random"}).json()
    assert game["computer_ships_left"] == 5 and game["player_ships_left"] == 5
    over = client.post(f"/api/games/{game['id']}/resign").json()
    assert over["status"] == "over" and over["winner"] == "computer"
    assert over["computer_ships_left"] == 5  # none was sunk: all five are still afloat, now shown
    assert over["player_ships_left"] == 5


def test_ships_afloat_between_friends_after_a_resignation(client):
    _game, first, second = friends_game(client)
    client.post(f"/api/seats/{first}/fire", json={"cell": 0})
    view = client.post(f"/api/seats/{second}/resign").json()
    assert view["status"] == "over" and view["winner"] == "them"
    assert view["their_ships_left"] == 5 and view["your_ships_left"] <= 5
    assert client.get(f"/api/seats/{first}").json()["your_ships_left"] == 5


def test_the_loser_on_time_has_no_time_left_on_every_view(client):
    game_id, first, second = friends_game(client, clock=30)
    engine = client.app.state.service.engine
    row = store.load(engine, game_id)  # Ann's turn began 31 seconds ago
    assert store.save(
        engine, game_id, {"turn_started": store.now() - timedelta(seconds=31)}, {"moves": row["moves"]}
    )
    ann, bob = (client.get(f"/api/seats/{s}").json() for s in (first, second))
    assert ann["status"] == "over" and ann["ended_by"] == "time" and ann["winner"] == "them"
    assert ann["clock"]["yours"] == 0 and bob["clock"]["theirs"] == 0
    assert bob["clock"]["yours"] == 30 and ann["clock"]["running"] is None


def test_the_history_says_whose_turn_a_friends_game_waits_for(client):
    waiting = client.post("/api/friends", json={}).json()  # the second player has not come yet
    game_id, first, _second = friends_game(client)
    client.post(f"/api/seats/{first}/fire", json={"cell": 0})
    games = client.post("/api/history", json={"games": [waiting["state"]["id"], game_id]}).json()["games"]
    assert [g["status"] for g in games] == ["placing", "player2-turn"]
    solo = client.post("/api/games", json={"mode": "random"}).json()
    assert client.post("/api/history", json={"games": [solo["id"]]}).json()["games"][0]["status"] == (
        "player-turn"
    )


def test_a_shot_that_says_two_things_at_once_is_refused_naming_both(client):
    game = client.post("/api/games", json={"mode": "random"}).json()
    for body in ({"cell": "B2", "auto": True}, {"cell": 11, "auto": True}, {"cell": "auto", "auto": True}):
        answer = client.post(f"/api/games/{game['id']}/fire", json=body)
        assert answer.status_code == 400, body
        detail = answer.json()["detail"]
        assert "cell" in detail and "auto" in detail and "not both" in detail
    assert client.get(f"/api/games/{game['id']}").json()["moves"] == 0  # nothing was fired


@pytest.mark.parametrize("cell", ["A0", "a11", "", "ZZ9", 129, -1, "B 2", True, 1.5, [1]])
def test_a_bad_cell_is_refused_naming_the_field_the_value_and_what_is_allowed(client, cell):
    game = client.post("/api/games", json={"mode": "random"}).json()
    answer = client.post(f"/api/games/{game['id']}/fire", json={"cell": cell})
    assert answer.status_code == 400
    detail = answer.json()["detail"]
    assert detail.startswith("cell: ") and "constrained" not in detail and "Input should" not in detail
    shown = {True: "true", 1.5: "1.5"}.get(cell, str(cell)) if not isinstance(cell, list) else "[1]"
    assert shown in detail
    assert "0..99" in detail and "A1..J10" in detail


def test_a_bad_cell_between_friends_is_refused_in_the_same_words(client):
    _game, first, _second = friends_game(client)
    detail = client.post(f"/api/seats/{first}/fire", json={"cell": "K1"}).json()["detail"]
    assert detail.startswith("cell: ") and "K1" in detail and "A1..J10" in detail


def test_the_schema_says_a_shot_is_a_cell_or_auto_one_of_them(client):
    schema = client.get("/openapi.json").json()["components"]["schemas"]
    fire, friend = schema["Fire"], schema["FriendFire"]
    assert len(fire["oneOf"]) == 3 and len(friend["oneOf"]) == 2  # (a salvo's cells are the third way)
    kinds = fire["properties"]["cell"]["oneOf"]
    assert (kinds[0]["type"], kinds[0]["minimum"], kinds[0]["maximum"]) == ("integer", 0, 224)
    assert "auto" in kinds[1]["pattern"] and "auto" not in friend["properties"]["cell"]["oneOf"][1]["pattern"]


def test_a_seat_and_a_client_hold_a_bounded_number_of_streams():
    import asyncio

    async def main() -> None:
        hub = Hub(per_seat=2, per_client=3)
        held = [hub.subscribe("g", "seat-a", "client") for _ in range(2)]
        with pytest.raises(TooManyStreams, match="this seat has 2 open, at most 2"):
            hub.subscribe("g", "seat-a", "client")
        held.append(hub.subscribe("g", "seat-b", "client"))
        with pytest.raises(TooManyStreams, match="this client has 3 open"):
            hub.subscribe("g", "seat-c", "client")
        held[0].close()
        held[0].close()  # closing twice frees one place, not two
        held.append(hub.subscribe("g", "seat-a", "other"))
        with pytest.raises(TooManyStreams):
            hub.subscribe("g", "seat-a", "other")
        assert hub.connected("seat-a")

    asyncio.run(main())


@pytest.mark.slow
def test_thirty_streams_on_one_seat_are_mostly_refused_with_429(tmp_path):
    import httpx

    from tests.web.server import serving

    with serving(f"sqlite:///{tmp_path / 'games.db'}", "--rate-limit", "") as (base, _process):
        made = httpx.post(f"{base}/api/friends", json={}).json()
        seat = made["seat"]
        statuses: list[int] = []
        streams, refusals = [], []
        with httpx.Client(timeout=30) as http:
            try:
                for _ in range(30):
                    response = http.send(
                        http.build_request("GET", f"{base}/api/seats/{seat}/events"), stream=True
                    )
                    statuses.append(response.status_code)
                    streams.append(response)
                    if response.status_code == 429:
                        refusals.append(response.read().decode())
            finally:
                for response in streams:
                    response.close()
        assert statuses.count(200) == 4 and statuses.count(429) == 26
        assert all("too many live streams: this seat has 4 open, at most 4" in r for r in refusals)


@pytest.mark.slow
def test_a_new_game_and_its_moves_answer_while_two_heavy_calculations_run(tmp_path):
    """Two clients post exact counts that take minutes (each holds an analysis slot to its deadline);
    meanwhile a third starts a game that needs its level timed and plays moves that need workers."""
    settings = Settings(rate_limit="", heavy_workers=4, heavy_wait=1.0, analysis_seconds=60.0)
    app = create_app(f"sqlite:///{tmp_path / 'games.db'}", settings=settings)
    calc = {"rules": "custom", "rules_toml": T_SHAPES, "board": ONE_HIT}
    with TestClient(app) as player:
        answers: list[object] = []
        posters = [TestClient(app, client=(f"10.0.0.{n}", 5000)) for n in (1, 2)]
        threads = [
            threading.Thread(target=lambda c=c: answers.append(c.post("/api/calc", json=calc)))
            for c in posters
        ]
        for thread in threads:
            thread.start()
        gate = app.state.gate
        for _ in range(3000):  # bounded: both calculations hold their slots
            if gate.busy("analysis") == 2:
                break
            threading.Event().wait(0.01)
        assert gate.busy("analysis") == 2
        try:
            game = player.post("/api/games", json={"mode": "best", "rules": "standard"})
            assert game.status_code == 201, game.text
            game_id = game.json()["id"]
            fired = player.post(f"/api/games/{game_id}/fire", json={"auto": True})
            assert fired.status_code == 200, fired.text
            moved = player.post(f"/api/games/{game_id}/computer")
            assert moved.status_code == 200, moved.text
            third = player.post("/api/calc", json=calc).json()  # no slot for a third: an estimate at once
            assert third["exact"] is False and "taken" in third["note"]
            again = posters[0].post("/api/calc", json=calc).json()  # one calculation at a time a client
            assert again["exact"] is False and "one at a time" in again["note"]
            assert gate.busy("analysis") == 2  # the two ran all along
        finally:
            app.state.stopping.set()
            for stop in list(app.state.stops):
                stop.request()
            for thread in threads:
                thread.join(60)


def test_a_server_ending_freezes_its_objects_so_python_s_teardown_does_not_walk_them(tmp_path, monkeypatch):
    """SIGTERM's stop: the last collections of Python's teardown would walk every compiled kernel's objects."""
    import atexit
    import gc

    from battleship.web import app as app_module

    registered: list[object] = []
    monkeypatch.setattr(app_module, "_warm_up", lambda _app: None)  # the warm-up itself is tested elsewhere
    monkeypatch.setattr(app_module, "warm_presets", lambda _graphs: [])
    monkeypatch.setattr(atexit, "register", registered.append)
    with TestClient(
        create_app(f"sqlite:///{tmp_path / 'g.db'}", warm=True, settings=Settings(rate_limit=""))
    ):
        assert gc.freeze not in registered
    assert registered[-1] is gc.freeze  # registered last: it runs first of all the atexit handlers
    registered.clear()
    with TestClient(create_app(f"sqlite:///{tmp_path / 'h.db'}", settings=Settings(rate_limit=""))):
        pass
    assert gc.freeze not in registered  # a test's app, not a server's process: nothing to freeze


def test_the_warm_up_compiles_this_process_s_kernels_beside_the_workers(tmp_path, monkeypatch):
    """On a fresh clone both compile at once: this process's warm-up runs while the workers start."""
    from battleship.web import app as app_module

    workers_started, overlapped = threading.Event(), []

    def here(_app) -> None:
        overlapped.append(workers_started.wait(60))  # bounded: the workers start meanwhile

    app = create_app(f"sqlite:///{tmp_path / 'g.db'}", settings=Settings(rate_limit="", heavy_workers=1))
    monkeypatch.setattr(app_module, "_warm_here", here)
    monkeypatch.setattr(app_module, "_time_levels", lambda _app: None)  # no worker started here
    monkeypatch.setattr(app.state.workers, "start", workers_started.set)
    app_module._warm_up(app)
    assert overlapped == [True]

    def broken(_app) -> None:
        raise RuntimeError("a kernel failed to compile")

    monkeypatch.setattr(app_module, "_warm_here", broken)
    with pytest.raises(RuntimeError, match="failed to compile"):  # its error is the start-up's
        app_module._warm_up(app)


def test_the_levels_that_think_are_timed_while_the_server_warms_up_so_the_first_game_does_not_wait(
    tmp_path, monkeypatch
):
    from battleship.web import app as app_module

    monkeypatch.setattr(app_module, "_warm_here", lambda _app: None)
    monkeypatch.setattr(app_module, "_fill_in", lambda _app: None)
    monkeypatch.setattr(app_module, "warm_presets", lambda _graphs: [])
    app = create_app(f"sqlite:///{tmp_path / 'g.db'}", warm=True, settings=Settings(rate_limit=""))
    monkeypatch.setattr(app.state.workers, "start", lambda: None)  # the timing starts once they are up
    timed, done = [], threading.Event()

    def admit(rules, name, stop, model=None) -> None:
        timed.append((rules.name, name))
        if len(timed) == 2:
            done.set()

    monkeypatch.setattr(app.state.computer, "admit", admit)
    with TestClient(app):
        assert done.wait(60)  # bounded: the background timing reaches both levels that think
    assert timed == [("standard", "best"), ("standard", "probability")]  # the default level first


def test_while_the_server_warms_up_every_request_hears_503_and_pages_say_what_they_wait_for(
    tmp_path, monkeypatch
):
    """The port opens at once: a player who comes during the first start's compiling is told why."""
    from battleship.web import app as app_module

    warmed, ready = threading.Event(), threading.Event()
    monkeypatch.setattr(app_module, "_warm_up", lambda _app: warmed.wait(60))  # bounded
    monkeypatch.setattr(app_module, "warm_presets", lambda _graphs: [])
    monkeypatch.setattr(app_module, "_time_levels", lambda _app: None)
    url = f"sqlite:///{tmp_path / 'g.db'}"
    app = create_app(url, warm=True, settings=Settings(rate_limit=""), on_ready=ready.set)
    with TestClient(app) as client:
        for path in ("/", "/friend", "/history"):
            page = client.get(path)
            assert page.status_code == 503 and page.headers["content-type"].startswith("text/html")
            assert int(page.headers["Retry-After"]) > 0
            assert "loading the engine's kernels" in page.text and 'http-equiv="refresh"' in page.text
        for method, path in (("GET", "/api/rules"), ("POST", "/api/games"), ("GET", "/openapi.json")):
            answer = client.request(method, path)
            assert answer.status_code == 503 and int(answer.headers["Retry-After"]) > 0
            assert answer.json()["detail"].startswith(
                "the server is warming up: loading the engine's kernels"
            )
        assert not ready.is_set()
        warmed.set()
        assert ready.wait(60)  # bounded: the warm-up thread opens the game for play
        assert client.get("/api/rules").status_code == 200
        assert client.get("/").status_code == 200 and "compiling" not in client.get("/").text


def test_the_readiness_endpoint_says_what_the_warm_up_waits_for_part_by_part(tmp_path, monkeypatch):
    """``GET /api/ready``: 503 naming each part of the warm-up still running, then 200 once open for play;
    static files (the warming page's own) are served meanwhile."""
    from battleship.web import app as app_module
    from battleship.web import readiness

    here, workers, ready = threading.Event(), threading.Event(), threading.Event()
    monkeypatch.setattr(app_module, "_warm_here", lambda _app: here.wait(60))  # bounded
    monkeypatch.setattr(app_module, "warm_presets", lambda _graphs: [])
    monkeypatch.setattr(app_module, "_time_levels", lambda _app: None)
    app = create_app(
        f"sqlite:///{tmp_path / 'g.db'}", warm=True, settings=Settings(rate_limit=""), on_ready=ready.set
    )
    monkeypatch.setattr(app.state.workers, "start", lambda: workers.wait(60))

    def asked() -> dict:
        answer = client.get("/api/ready")
        assert answer.status_code == 503 and int(answer.headers["Retry-After"]) > 0
        return answer.json()

    with TestClient(app) as client:
        for _ in range(3000):  # bounded: the warm-up thread names both parts
            if readiness.HERE in asked()["waiting_for"] and readiness.WORKERS in asked()["waiting_for"]:
                break
            threading.Event().wait(0.01)
        now = asked()
        assert (
            now["ready"] is False
            and now["seconds"] >= 0
            and now["detail"].startswith("the server is warming")
        )
        assert readiness.HERE in now["waiting_for"] and readiness.WORKERS in now["waiting_for"]
        assert client.get("/static/warming.js").status_code == 200  # the warming page's script, served
        page = client.get("/friend")
        assert page.status_code == 503 and "/static/warming.js" in page.text and "<header>" in page.text
        here.set()
        for _ in range(3000):
            if readiness.HERE not in asked()["waiting_for"]:
                break
            threading.Event().wait(0.01)
        assert asked()["waiting_for"] == readiness.WORKERS
        workers.set()
        assert ready.wait(60)  # bounded: the game opens for play
        answer = client.get("/api/ready")
        assert answer.status_code == 200 and answer.json() == {"ready": True}
        app.state.stopping.set()  # shutting down: not ready, saying so
        answer = client.get("/api/ready")
        assert answer.status_code == 503 and answer.json()["waiting_for"] == readiness.STOPPING
        app.state.stopping.clear()


def test_the_schema_documents_the_readiness_endpoint(client):
    operation = client.get("/openapi.json").json()["paths"]["/api/ready"]["get"]
    assert operation["operationId"] == "getReadiness"
    assert operation["responses"]["503"]["content"]["application/json"]["schema"]["$ref"].endswith("NotReady")
    assert "Retry-After" in operation["responses"]["503"]["headers"]


def test_a_server_stopped_while_warming_up_stops_at_once_and_leaves_the_clocks_alone(tmp_path, monkeypatch):
    """No heartbeat is written by a server that never opened: the time away before it still counts."""
    from battleship.web import app as app_module

    warmed = threading.Event()
    monkeypatch.setattr(app_module, "_warm_up", lambda _app: warmed.wait(60))
    url = f"sqlite:///{tmp_path / 'g.db'}"
    engine = store.connect(url)
    long_ago = store.now() - timedelta(hours=1)
    store.beat(engine, long_ago)
    app = create_app(url, warm=True, settings=Settings(rate_limit=""), on_ready=lambda: None)
    with TestClient(app) as client:
        assert client.get("/api/rules").status_code == 503
    assert app.state.stopping.is_set()
    warmed.set()  # the warm-up ends after the stop: the game is not opened
    for thread in threading.enumerate():
        if thread.name == "warm-up":
            thread.join(60)
    assert store.last_alive(engine) == long_ago


def _computer_whose_count_runs_out(tmp_path, monkeypatch, sampler_out_of_time: bool = False):
    """A Computer whose exact count always runs out of time (it waits for its stop, as a count the forecast
    misjudged would); its jobs run in this process (a worker would run the same function), or run out of
    time as a whole. The stops each job got are kept."""
    import importlib

    from battleship.stop import OutOfTime
    from battleship.web import graphs
    from battleship.web.computer import Computer
    from battleship.web.gate import Gate
    from battleship.web.workers import Workers

    # two seconds for a calculation: the count gets most of them, the sampler what is left
    computer = Computer(Gate(2, 4, 5.0), Workers(1), 2.0, 2.0, graphs.Graphs(tmp_path / "graphs"))
    given: dict[str, object] = {}

    def runs_out(rules, observation, prior=None, stop=None, **_):
        while not stop.requested:
            time.sleep(0.005)
        stop.check()

    monkeypatch.setattr(importlib.import_module("battleship.inference.posterior"), "posterior", runs_out)

    def heavy(job, *args, stop, shapes=()):
        given[job.__name__] = stop
        if sampler_out_of_time:
            raise OutOfTime("past its deadline")
        return job(*args, stop=stop)

    monkeypatch.setattr(computer, "_heavy", heavy)
    return computer, given


def test_a_calculation_out_of_time_answers_with_the_exact_sampler_s_estimate_saying_so(tmp_path, monkeypatch):
    from battleship.game import Game
    from battleship.generators import draw, to_layout
    from battleship.rules import preset
    from battleship.stop import Stop

    rules = preset("standard")
    game = Game(to_layout(rules, draw(rules, "uniform", 5, 1, threads=False)[0]))
    for cell in (0, 11, 22, 33, 44, 55):
        game.fire(cell)
    board = game.observation
    computer, given = _computer_whose_count_runs_out(tmp_path, monkeypatch)
    try:
        answer = computer.heat(rules, board, Stop(4.0), skew=True)  # the estimate gets about half a second
        assert answer["engine"] == "sampling" and answer["exact"] is False and answer["layouts"] is None
        assert answer["samples"] > 0 and f"{answer['samples']:,} layouts drawn" in answer["note"]
        assert re.match(
            r"the exact count did not finish within [\d.]+ s: this is the exact sampler", answer["note"]
        )
        for shot in board.shots:  # the samples fit the shots: their cells are known
            assert answer["probability"][shot.cell] == (0.0 if shot.outcome.value == "miss" else 1.0)
        assert abs(sum(answer["probability"]) - 17) < 1e-3  # every sample holds the fleet's 17 squares
        assert answer["best"] and all(not board.is_shot(c) for c in answer["best"])
        assert set(given) == {"analysis"}  # one job: the calculator counts, then estimates
    finally:
        computer.graphs.close()


def test_a_sampler_out_of_time_too_leaves_the_density_estimate_saying_so(tmp_path, monkeypatch):
    from battleship.game import Observation
    from battleship.rules import preset
    from battleship.stop import Stop

    computer, given = _computer_whose_count_runs_out(tmp_path, monkeypatch, sampler_out_of_time=True)
    try:
        answer = computer.heat(preset("standard"), Observation(preset("standard"), ()), Stop(60))
        assert answer["engine"] == "estimate" and answer["exact"] is False
        assert "DataGenetics' density" in answer["note"] and set(given) == {"analysis"}
        given.clear()
        spent = Stop(0)  # no time left at all: the density estimate at once, no worker asked
        answer = computer.heat(preset("standard"), Observation(preset("standard"), ()), spent)
        assert answer["engine"] == "estimate" and not given
    finally:
        computer.graphs.close()
