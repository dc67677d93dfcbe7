"""The web API: whole games in every mode, secrecy of the computer's layout, bad input, persistence."""

from __future__ import annotations

import json
import logging
import time
from dataclasses import replace
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient

from battleship import generators, notation
from battleship.errors import BattleshipError
from battleship.rules import preset
from battleship.web import store
from battleship.web.app import Settings, create_app
from tests.web.postgres import empty, postgres_server
from tests.web.slow_rules import ONE_HIT, T_SHAPES


@pytest.fixture(scope="module")
def postgres_url():
    with postgres_server() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request, tmp_path):
    """A store URL: an SQLite file, or a fresh database on a real PostgreSQL server."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'games.db'}"
    return empty(request.getfixturevalue("postgres_url"))


UNLIMITED = Settings(rate_limit="")  # these tests play whole games faster than any player


@pytest.fixture
def client(database):
    with TestClient(create_app(database, settings=UNLIMITED)) as c:
        yield c


def play_out(client, game_id, auto=True, limit=500):
    """Alternate the player's (auto) and the computer's shots to the end; every response returned."""
    responses = []
    for _ in range(limit):
        state = client.get(f"/api/games/{game_id}").json()
        responses.append(state)
        if state["status"] == "over":
            return responses
        if state["status"] == "player-turn":
            r = client.post(f"/api/games/{game_id}/fire", json={"auto": auto})
        else:
            r = client.post(f"/api/games/{game_id}/computer")
        assert r.status_code == 200, r.text
        responses.append(r.json())
    raise AssertionError("the game did not end")


@pytest.fixture
def sqlite_client(tmp_path):
    """A client on an SQLite store only (PostgreSQL plays whole games in the restart test)."""
    with TestClient(create_app(f"sqlite:///{tmp_path / 'games.db'}", settings=UNLIMITED)) as c:
        yield c


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["random", "hunt-target", "probability", "best", "learning"])
def test_a_whole_game_never_shows_the_computers_layout_before_the_end(sqlite_client, mode):
    client = sqlite_client
    r = client.post("/api/games", json={"rules": "standard", "mode": mode})
    assert r.status_code == 201, r.text
    game = r.json()
    game_id = game["id"]
    assert len(game_id) == 32 and int(game_id, 16) >= 0
    responses = [game, *play_out(client, game_id)]
    final = responses[-1]
    secret = final["computer_layout"]["notation"]
    during = [r for r in responses if r.get("state", r)["status"] != "over"]
    assert len(during) > 17
    for response in during:
        text = json.dumps(response)
        assert secret not in text and "computer_layout" not in text
    assert final["winner"] in ("player", "computer") and final["play_for_me"] is True
    paper = notation.read_game(final["notation"], preset("standard"))
    assert len(paper.moves) == final["moves"]
    moves = [r["computer"] for r in responses if "computer" in r]
    assert moves and all(m["shooter"] == final["level"]["shooter"] for m in moves if not m["fallback"])
    assert final["level"]["level"] in ("Easy", "Medium", "Hard", "Expert", "Adaptive")


def test_pirates_game_and_a_layout_of_the_players_own(client):
    touching = "CCCCC...../BBBB....../........../DDD......./........../SSS......./........../PP......../........../.........."
    r = client.post("/api/games", json={"rules": "pirates", "mode": "best", "layout": touching})
    assert r.status_code == 400 and r.json()["detail"]  # pirates ships may not touch
    assert (
        client.post("/api/games", json={"rules": "standard", "mode": "best", "layout": touching}).status_code
        == 201
    )
    spaced = "CCCCC...../........../BBBB....../........../DDD......./........../SSS......./........../PP......../.........."
    r = client.post("/api/games", json={"rules": "standard", "mode": "random", "layout": spaced})
    assert r.status_code == 201 and r.json()["player_layout"]["notation"] == spaced
    assert client.post("/api/games", json={"rules": "pirates", "mode": "learning"}).status_code == 201


def test_bad_input_gets_a_clear_4xx(client):
    game_id = client.post("/api/games", json={}).json()["id"]
    cases = [
        (client.post("/api/games", json={"rules": "chess"}), 400),
        (client.post("/api/games", json={"layout": "nonsense"}), 400),
        (client.post(f"/api/games/{game_id}/fire", json={"cell": 100}), 400),
        (client.post(f"/api/games/{game_id}/fire", json={"cell": "Z9"}), 400),
        (client.post(f"/api/games/{game_id}/fire", json={}), 400),
        (client.post(f"/api/games/{game_id}/fire"), 400),
        (client.post(f"/api/games/{game_id}/fire", json={"cell": None}), 400),
        (client.post(f"/api/games/{game_id}/fire", json={"auto": False}), 400),
        (client.post("/api/games", json={"rules": "custom"}), 400),
        (client.post(f"/api/games/{game_id}/computer"), 409),
        (client.get("/api/games/" + "0" * 32), 404),
        (client.get("/api/games/not-an-id"), 400),
        (client.post("/api/calc", json={"board": "x" * 5000}), 400),
        (client.post("/api/calc", json={"board": "........../"}), 400),
        (client.post("/api/games", content="{" * 70000, headers={"content-type": "application/json"}), 413),
        (client.post("/api/games", content="{not json", headers={"content-type": "application/json"}), 400),
        (client.post("/api/games", json={"mode": "best", "colour": "red"}), 400),
    ]
    for bad in (True, " A1", "A01", "A\u0661", "\u0661\u0662", "A1 ", "7", 1.5):  # strict: never a guess
        cases.append((client.post(f"/api/games/{game_id}/fire", json={"cell": bad}), 400))
    for response, status in cases:
        assert response.status_code == status, (response.status_code, response.text)
        assert response.json()["detail"]
    assert client.get(f"/api/games/{game_id}").json()["player_shots"] == []  # none of those fired
    assert client.post(f"/api/games/{game_id}/fire", json={"cell": "A1"}).status_code == 200
    assert client.post(f"/api/games/{game_id}/fire", json={"cell": 1}).status_code == 409  # computer's turn
    client.post(f"/api/games/{game_id}/computer")
    again = client.post(f"/api/games/{game_id}/fire", json={"cell": 0})
    assert again.status_code == 400 and "already" in again.json()["detail"]
    auto = client.post(f"/api/games/{game_id}/fire", json={"cell": "auto"})  # as the README says
    assert auto.status_code == 200 and auto.json()["state"]["play_for_me"]


@pytest.mark.slow
def test_games_survive_a_restart_and_played_games_feed_the_statistics(database):
    url = database
    with TestClient(create_app(url, settings=UNLIMITED)) as first:
        game_id = first.post("/api/games", json={"mode": "best"}).json()["id"]
        first.post(f"/api/games/{game_id}/fire", json={"cell": "E5"})
        before = first.get(f"/api/games/{game_id}").json()
    with TestClient(create_app(url, settings=UNLIMITED)) as second:
        assert second.get(f"/api/games/{game_id}").json() == before
        play_out(second, game_id)
        steer = "CCCCC...../BBBB....../DDD......./SSS......./PP......../........../........../........../........../.........."
        for _ in range(40):  # create-and-resign loops, all on one layout: they must count for nothing
            resigned = second.post("/api/games", json={"mode": "random", "layout": steer}).json()["id"]
            assert second.post(f"/api/games/{resigned}/resign").json()["winner"] == "computer"
        deadline = time.monotonic() + 120  # the Learning model is fitted in the background
        while (stats := second.get("/api/stats").json())["learning_pending"] and time.monotonic() < deadline:
            time.sleep(0.2)
    standard = next(r for r in stats["rules"] if r["key"] == "standard")
    assert stats["games"] == 1 and standard["games"] == 1
    assert standard["modes"]["best"]["games"] == 1 and "random" not in standard["modes"]
    assert standard["placement"] == {
        "layouts": 1,
        "minimum": 30,
        "share": None,
    }  # one player's layout is not shown
    assert standard["learning"]["layouts"] == 0 and standard["learning"]["minus_uniform"] is None


def test_calculator_and_openapi(client):
    board = "........../........../....o...../...oxo..../........../........../........../........../........../.........."
    r = client.post("/api/calc", json={"board": board})
    assert r.status_code == 200
    data = r.json()
    assert data["layouts"] == "592583188" and data["best"] == [44]
    assert abs(sum(data["probability"]) - 17) < 1e-3
    assert data["exact"] is True and data["engine"] and data["over"] is False
    # a finished game: over, as `battleship calc --json` says it, and no cell worth a shot
    import battleship as bs

    finished = bs.play(bs.generate("standard", seed=3), "hunt-target", seed=3).observation.text()
    done = client.post("/api/calc", json={"board": finished}).json()
    assert done["over"] is True and done["best"] == [] and done["layouts"] == "1"
    for page in ("/", "/friend", "/history", "/replay", "/calc", "/stats", "/docs"):
        assert client.get(page).status_code == 200
    whole = client.post("/api/calc", json={"board": "PP......../" + "/".join(["." * 10] * 9)}).json()
    tip = client.post("/api/calc", json={"board": "xP......../" + "/".join(["." * 10] * 9)}).json()
    assert whole["layouts"] == tip["layouts"] and whole["probability"] == tip["probability"]
    astray = client.post("/api/calc", json={"board": "P.P......./" + "/".join(["." * 10] * 9)})
    assert astray.status_code == 400 and "marked sunk twice" in astray.json()["detail"]


def test_the_openapi_schema_says_what_the_server_does(client):
    schema = client.get("/openapi.json").json()
    paths = schema["paths"]
    problem = schema["components"]["schemas"]["Problem"]
    assert problem["properties"]["detail"]["type"] == "string"
    fire = paths["/api/games/{game_id}/fire"]["post"]
    assert {"400", "404", "409", "413", "429", "503"} <= set(fire["responses"])
    assert "422" not in json.dumps(schema)  # bad bodies answer 400, as the schema says
    assert fire["responses"]["503"]["headers"]["Retry-After"]
    links = paths["/api/games"]["post"]["responses"]["201"]["links"]
    operations = {op["operationId"] for ops in paths.values() for op in ops.values()}
    assert {link["operationId"] for link in links.values()} <= operations and len(links) == 6
    fire_body = schema["components"]["schemas"]["Fire"]
    cell = fire_body["properties"]["cell"]["oneOf"]
    assert any(c.get("type") == "integer" and c["maximum"] == 224 for c in cell)  # boards up to 15x15
    assert any(c.get("pattern") == "^(auto|[A-O](1[0-5]|[1-9]))$" for c in cell)
    assert {"type": "null"} not in cell and fire["requestBody"]["required"] is True  # a shot says where
    not_auto = {"required": ["auto"], "properties": {"auto": {"const": True}}}
    cells = {"required": ["cells"]}
    assert fire_body["oneOf"] == [  # a cell, a salvo's cells, or auto: true, never two of them
        {"required": ["cell"], "not": {"anyOf": [cells, not_auto]}},
        {**cells, "not": {"anyOf": [{"required": ["cell"]}, not_auto]}},
        {**not_auto, "not": {"anyOf": [{"required": ["cell"]}, cells]}},
    ]
    salvo = fire_body["properties"]["cells"]
    assert salvo["type"] == "array" and salvo["minItems"] == 1 and salvo["maxItems"] == 225
    assert salvo["items"]["oneOf"][1]["pattern"] == "^([A-O](1[0-5]|[1-9]))$"  # no "auto" in a salvo
    new_game = schema["components"]["schemas"]["NewGame"]
    assert new_game["properties"]["layout"]["anyOf"][0]["pattern"]
    assert new_game["allOf"][0]["then"] == {
        "properties": {"rules": {"const": "custom"}}
    }  # rules_toml goes with "custom"
    assert (
        "seabattle" in new_game["properties"]["rules"]["enum"]
        and "square-15" in new_game["properties"]["rules"]["enum"]
    )


def test_each_client_is_rate_limited_with_retry_after(database):
    with TestClient(create_app(database, settings=Settings(rate_limit="5/minute"))) as client:
        answers = [client.get("/api/rules") for _ in range(7)]
        assert [a.status_code for a in answers] == [200] * 5 + [429] * 2
        assert int(answers[-1].headers["Retry-After"]) >= 1
        assert "too many requests" in answers[-1].json()["detail"]
        assert client.get("/").status_code == 200  # pages are not limited, only the API


def test_a_saturated_server_answers_503_with_retry_after_but_never_to_play(database):
    settings = Settings(rate_limit="", heavy_workers=1, heavy_queue=0)
    with TestClient(create_app(database, settings=settings)) as client:
        game = client.post("/api/games", json={"mode": "best"}).json()
        gate = client.app.state.gate
        assert gate._slots.acquire(timeout=5)  # the one worker is busy elsewhere
        try:
            busy = client.post(f"/api/games/{game['id']}/fire", json={"cell": "auto", "reply": True})
            light = client.post(f"/api/games/{game['id']}/fire", json={"cell": "A1"})
            calc = client.post("/api/calc", json={"board": "/".join(["." * 10] * 10)})
            computer = client.post(f"/api/games/{game['id']}/computer")
            custom = {"rules_toml": 'rows = 6\ncols = 6\n[[ship]]\nname = "Boat"\nsymbol = "B"\nlength = 3\n'}
            start = client.post("/api/games", json={**custom, "mode": "probability"})
        finally:
            gate._slots.release()
        # play falls back to the density shooter and says why, both for "play for me" and the reply
        assert busy.status_code == 200, busy.text
        assert "no worker free" in busy.json()["auto"]["fallback"]
        assert "no worker free" in busy.json()["reply"]["computer"]["fallback"]
        assert light.status_code == 200  # a plain shot needs no worker
        assert computer.status_code == 200 and "no worker free" in computer.json()["computer"]["fallback"]
        # a calculation answers within its time all the same: an estimate, saying why
        assert calc.status_code == 200 and calc.json()["exact"] is False and "taken" in calc.json()["note"]
        # timing a level under new rules needs a worker: that one waits for none, and hears 503
        assert start.status_code == 503 and int(start.headers["Retry-After"]) >= 1
        assert "busy" in start.json()["detail"]


def test_unfinished_games_expire_and_finished_ones_stay(database):
    with TestClient(create_app(database, settings=UNLIMITED)) as client:
        idle = client.post("/api/games", json={}).json()["id"]
        done = client.post("/api/games", json={}).json()["id"]
        client.post(f"/api/games/{done}/resign")
        engine = client.app.state.service.engine
        assert store.expire(engine, store.now() - timedelta(hours=1)) == 0  # both moved just now
        assert store.expire(engine, store.now() + timedelta(seconds=1)) == 1
        assert client.get(f"/api/games/{idle}").status_code == 404
        assert client.get(f"/api/games/{done}").status_code == 200


def test_the_access_log_has_a_line_a_request_without_whole_game_ids(client, caplog):
    caplog.set_level(logging.INFO, logger="battleship.access")
    game_id = client.post("/api/games", json={}).json()["id"]
    client.get(f"/api/games/{game_id}")
    client.get("/api/games/" + "0" * 32)
    lines = [r.getMessage() for r in caplog.records if r.name == "battleship.access"]
    assert any('"POST /api/games" 201' in line for line in lines)
    assert any(f'"GET /api/games/{game_id[:6]}…" 200' in line for line in lines)
    assert any('" 404 ' in line for line in lines)
    assert not any(game_id in line for line in lines)
    seat = client.post("/api/friends", json={}).json()["seat"]
    client.get(f"/api/seats/{seat}")
    lines = [r.getMessage() for r in caplog.records if r.name == "battleship.access"]
    assert any(f'"GET /api/seats/{seat[:6]}…" 200' in line for line in lines)
    assert not any(seat in line for line in lines)


CUSTOM = """
name = "mine"
rows = 7
cols = 8
spacing = "no-contact"
sinks = "sunk"

[[ship]]
name = "Cruiser"
symbol = "C"
length = 3

[[ship]]
name = "Boat"
symbol = "B"
count = 2
symbol_ = "x"
"""


def test_custom_rules_through_the_api(client):
    toml = CUSTOM.replace('count = 2\nsymbol_ = "x"', "length = 2")
    game = client.post("/api/games", json={"rules_toml": toml, "mode": "random"})
    assert game.status_code == 201, game.text
    state = game.json()
    assert (state["rules"]["rows"], state["rules"]["cols"], state["rules"]["spacing"]) == (7, 8, "no-contact")
    assert "toml" in state["rules"]
    final = play_out(client, state["id"])[-1]
    assert final["status"] == "over" and len(final["computer_layout"]["ships"]) == 2
    replay = client.get(f"/api/games/{state['id']}/replay").json()
    assert replay["rules"]["cols"] == 8
    assert (
        client.post("/api/games", json={"rules": "custom", "rules_toml": toml, "mode": "best"}).status_code
        == 201
    )
    bad = {
        "unknown key": {"rules_toml": CUSTOM},
        "15x15": {"rules_toml": toml.replace("rows = 7", "rows = 16")},
        "not valid TOML": {"rules_toml": "rows = "},
        "or rules_toml": {"rules_toml": toml, "rules": "standard"},
        "needs rules_toml": {"rules": "custom"},
    }
    for words, body in bad.items():
        r = client.post("/api/games", json=body)
        assert r.status_code == 400 and words in r.json()["detail"], (words, r.text)
    calc = client.post("/api/calc", json={"rules_toml": toml, "board": "/".join(["." * 8] * 7)}).json()
    assert abs(sum(calc["probability"]) - 5) < 1e-3


def test_the_replay_of_a_finished_game_move_by_move_with_heat_maps(client):
    game_id = client.post("/api/games", json={"mode": "best"}).json()["id"]
    assert client.get(f"/api/games/{game_id}/replay").status_code == 409  # not over: the layout is secret
    for cell in ("E5", "A1"):
        client.post(f"/api/games/{game_id}/fire", json={"cell": cell})
        client.post(f"/api/games/{game_id}/computer")
    client.post(f"/api/games/{game_id}/resign")
    replay = client.get(f"/api/games/{game_id}/replay").json()
    moves = replay["moves"]
    assert [m["player"] for m in moves] == ["player", "computer"] * 2
    assert moves[0]["name"] == "E5" and moves[0]["notation"] == "Player: (5, 6)" and moves[0]["side"] == 0
    assert all(m["outcome"] in ("miss", "hit", "sunk") for m in moves)
    assert replay["notation"].count("\n") > 10 and replay["computer_layout"]["ships"]
    start = client.get(f"/api/games/{game_id}/heat", params={"move": 0}).json()
    assert abs(sum(start["probability"]) - 17) < 1e-3 and start["side"] == "computer"
    after = client.get(f"/api/games/{game_id}/heat", params={"move": 4}).json()
    computer_shots = [m["cell"] for m in moves if m["player"] == "computer"]
    assert all(after["probability"][c] in (0.0, 1.0) for c in computer_shots)
    mine = client.get(f"/api/games/{game_id}/heat", params={"move": 4, "side": "player"}).json()
    assert mine["probability"][44] in (0.0, 1.0) and mine["probability"][0] in (0.0, 1.0)
    assert client.get(f"/api/games/{game_id}/heat", params={"move": 5}).status_code == 400
    assert start["exact"] is True


def test_a_store_made_before_custom_rules_gains_the_column_and_keeps_its_games(tmp_path):
    from sqlalchemy import create_engine, text

    url = f"sqlite:///{tmp_path / 'old.db'}"
    with TestClient(create_app(url, settings=UNLIMITED)) as client:
        game_id = client.post("/api/games", json={"mode": "random"}).json()["id"]
        client.post(f"/api/games/{game_id}/fire", json={"cell": "C3"})
    old = create_engine(url)
    with old.begin() as c:  # as an older version left it: no rules_toml column, no migrations
        c.execute(text("ALTER TABLE games DROP COLUMN rules_toml"))
        for table in ("alembic_version", "presence", "rate_counts", "server_keys"):
            c.execute(text(f"DROP TABLE {table}"))
    old.dispose()
    with TestClient(create_app(url, settings=UNLIMITED)) as client:
        state = client.get(f"/api/games/{game_id}").json()
        assert [s["cell"] for s in state["player_shots"]] == [22]
        custom = client.post(
            "/api/games",
            json={
                "rules_toml": 'rows = 6\ncols = 6\n[[ship]]\nname = "Boat"\nsymbol = "B"\nlength = 2\n',
                "mode": "best",
            },
        )
        assert custom.status_code == 201, custom.text


def test_saved_arena_runs_are_served(tmp_path):
    from tests.web.server import save_arena_run

    run = tmp_path / "contest.json"
    save_arena_run(run)
    with TestClient(
        create_app(f"sqlite:///{tmp_path / 'g.db'}", settings=Settings(rate_limit="", arena=(run,)))
    ) as client:
        listing = client.get("/api/arena").json()["runs"]
        assert listing == [{"id": "contest", "rules": "square-6", "games": 10, "seed": 3,
                            "bots": [row["bot"] for row in json.loads(run.read_text())["leaderboard"]]}]  # fmt: skip
        shown = client.get("/api/arena/contest").json()
        assert shown == json.loads(run.read_text()) and len(shown["matches"]) == 3
        missing = client.get("/api/arena/other")
        assert missing.status_code == 404 and "no arena run 'other'" in missing.json()["detail"]
        assert client.get("/arena").status_code == 200
    not_a_run = tmp_path / "notes.json"
    not_a_run.write_text("[1, 2]")
    with pytest.raises(BattleshipError, match="is not an arena run"):
        create_app(f"sqlite:///{tmp_path / 'g.db'}", settings=Settings(arena=(not_a_run,)))


# ---- the computer within its time ---------------------------------------------------------------

QUICK = Settings(rate_limit="", move_seconds=0.5, analysis_seconds=0.5)


@pytest.mark.slow
def test_rules_a_level_cannot_answer_in_time_are_refused_when_the_game_is_created(tmp_path):
    with TestClient(create_app(f"sqlite:///{tmp_path / 'g.db'}", settings=QUICK)) as client:
        slow = client.post("/api/games", json={"rules_toml": T_SHAPES, "mode": "best"})
        assert slow.status_code == 400, slow.text
        assert "too slow under these rules" in slow.json()["detail"] and "0.5 s" in slow.json()["detail"]
        assert (
            client.post("/api/games", json={"rules_toml": T_SHAPES, "mode": "hunt-target"}).status_code == 201
        )
        assert client.post("/api/games", json={"rules": "standard", "mode": "probability"}).status_code == 201


def test_a_level_under_way_of_being_timed_is_timed_once_for_every_request_that_asks(tmp_path):
    """The start-up times the standard rules' levels while it warms up: a first game asking for one of
    them meanwhile waits for that verdict (a refusal here) instead of timing the level again beside it."""
    import threading

    from battleship.stop import Stop
    from battleship.web import graphs
    from battleship.web.computer import Computer
    from battleship.web.gate import Gate
    from battleship.web.workers import Workers

    computer = Computer(Gate(2, 4, 5.0), Workers(1), 2.0, 10.0, graphs.Graphs(tmp_path / "graphs"))
    timed, entered, waiting, release = [], threading.Event(), threading.Event(), threading.Event()

    def slow_timing(rules, chosen, stop, model):  # stands in for a trial move on a worker
        timed.append(chosen.name)
        entered.set()
        if len(timed) == 1:
            assert release.wait(60)  # generous: released by the test below
        return "too slow, as this stand-in says"

    class Watched(Stop):  # a request's stop, read while it waits for another's timing
        def check(self) -> None:
            waiting.set()
            super().check()

    computer._time = slow_timing
    outcomes: list[str] = []

    def ask(stop: Stop) -> None:
        try:
            computer.admit(preset("standard"), "best", stop)
            outcomes.append("admitted")
        except BattleshipError as refused:
            outcomes.append(str(refused))

    first = threading.Thread(target=ask, args=(Stop(),))
    first.start()
    assert entered.wait(60)
    second = threading.Thread(target=ask, args=(Watched(),))
    second.start()
    assert waiting.wait(60)  # the second request waits for the first's timing, not timing it too
    release.set()
    first.join(60)
    second.join(60)
    assert timed == ["best"] and outcomes == ["too slow, as this stand-in says"] * 2
    with pytest.raises(BattleshipError, match="too slow"):  # the verdict is remembered: no timing again
        computer.admit(preset("standard"), "best", Stop())
    assert timed == ["best"]


def test_a_timing_cut_off_while_compiling_is_no_verdict_and_the_next_game_is_timed_again(tmp_path):
    """Custom rules that need code the package does not hold: the compile outlasts the timing, which is cut
    off. That says nothing of the level (the compile goes on and is kept): the game starts, and the next
    one under these rules is timed again, where a refusal would have been remembered for ten minutes."""
    from battleship.rules import from_toml
    from battleship.stop import Stop
    from battleship.web import graphs
    from battleship.web.computer import Computer
    from battleship.web.gate import Gate
    from battleship.web.workers import StillCompiling, Workers

    computer = Computer(Gate(2, 4, 5.0), Workers(1), 2.0, 10.0, graphs.Graphs(tmp_path / "graphs"))
    rules = replace(from_toml(T_SHAPES), name="custom")
    timed: list[str] = []

    def compiling_then_fast(rules, chosen, stop, model):  # stands in for a trial move on a worker
        timed.append(chosen.name)
        if len(timed) == 1:
            raise StillCompiling("out of time: a kernel was compiling")
        return None

    computer._time = compiling_then_fast
    computer.admit(rules, "best", Stop())  # admitted, not refused
    assert not computer._verdicts
    computer.admit(rules, "best", Stop())  # timed again, the compile done: a verdict now
    computer.admit(rules, "best", Stop())  # and remembered
    assert timed == ["best", "best"]
    assert computer._verdicts[(rules.to_toml(), "best")][0] is None


@pytest.mark.slow
def test_a_move_past_its_deadline_falls_back_and_says_so_and_the_calculator_estimates(tmp_path):
    with TestClient(create_app(f"sqlite:///{tmp_path / 'g.db'}", settings=QUICK)) as client:
        computer = client.app.state.computer
        from battleship.rules import from_toml

        rules = replace(from_toml(T_SHAPES), name="custom")
        computer._verdicts[(rules.to_toml(), "best")] = (
            None,
            time.monotonic(),
        )  # as if it had been timed fast
        game = client.post("/api/games", json={"rules_toml": T_SHAPES, "mode": "best"}).json()
        client.post(f"/api/games/{game['id']}/fire", json={"cell": "J10"})
        move = client.post(f"/api/games/{game['id']}/computer").json()
        assert move["computer"]["shooter"] == "density:skew=20"
        assert "Expert (optimal) did not answer within 0.5 s" in move["computer"]["fallback"]
        assert move["state"]["status"] == "player-turn"
        calc = client.post("/api/calc", json={"rules_toml": T_SHAPES, "board": ONE_HIT}).json()
        assert calc["exact"] is False and calc["layouts"] is None and "estimate" in calc["note"]
        assert abs(sum(calc["probability"]) - 20) < 6 and calc["probability"][0] == 1.0 and calc["best"]


# ---- privacy and statistics -------------------------------------------------------------------------


def played_row(
    game_id: str, layout: str, mode: str = "best", rules: str = "standard", toml: str | None = None, **more
):
    now = store.now()
    return {
        "id": game_id, "created": now, "updated": now, "finished": now, "rules": rules, "rules_toml": toml,
        "mode": mode, "play_for_me": False, "status": "over", "winner": "computer", "resigned": False,
        "moves": 60, "seed": "1", "player_layout": layout, "computer_layout": more.pop("other", layout),
        "record": "", "notation": "", **more,
    }  # fmt: skip


def test_maps_of_layouts_appear_only_from_30_distinct_layouts_of_30_games(tmp_path):
    rules = preset("standard")
    layouts = [notation.format_layout(x) for x in generators.generate(rules, "uniform", 5, 30)]
    with TestClient(create_app(f"sqlite:///{tmp_path / 'g.db'}", settings=UNLIMITED)) as client:
        engine = client.app.state.service.engine
        for n in range(15):  # 15 games between friends: 30 layouts, but only 15 games
            store.create(
                engine,
                played_row(f"{n:032x}", layouts[2 * n], "friend", other=layouts[2 * n + 1], winner="player1"),
            )
        stats = client.get("/api/stats").json()
        standard = next(r for r in stats["rules"] if r["key"] == "standard")
        assert standard["placement"]["layouts"] == 15 and standard["placement"]["share"] is None
        for n in range(15, 30):
            store.create(engine, played_row(f"{n:032x}", layouts[n]))
        models = client.app.state.service.models
        fitted = models.fit(rules)
        assert fitted.learned_from == 30  # 30 distinct layouts of 30 distinct games
        stats = client.get("/api/stats").json()
        standard = next(r for r in stats["rules"] if r["key"] == "standard")
        assert standard["placement"]["layouts"] == 30 and len(standard["placement"]["share"]) == 100
        assert standard["learning"]["layouts"] == 30 and len(standard["learning"]["minus_uniform"]) == 100
        assert standard["modes"]["friend"]["games"] == 15 and standard["modes"]["best"]["games"] == 15


def test_statistics_are_per_rules_with_custom_rules_apart(tmp_path):
    tiny = 'rows = 1\ncols = 2\n[[ship]]\nname = "Boat"\nsymbol = "B"\nlength = 1\n'
    with TestClient(create_app(f"sqlite:///{tmp_path / 'g.db'}", settings=UNLIMITED)) as client:
        for _ in range(5):  # five 1x2-board games must not move the standard games' figures
            game_id = client.post("/api/games", json={"rules_toml": tiny, "mode": "best"}).json()["id"]
            play_out(client, game_id)
        game_id = client.post("/api/games", json={"rules": "standard", "mode": "best"}).json()["id"]
        play_out(client, game_id)
        stats = client.get("/api/stats").json()
    by_key = {r["key"]: r for r in stats["rules"]}
    custom = [r for key, r in by_key.items() if key.startswith("custom-")]
    assert stats["games"] == 6 and by_key["standard"]["games"] == 1 and len(custom) == 1
    assert custom[0]["games"] == 5 and custom[0]["label"].startswith("custom: 1x2")
    best = by_key["standard"]["modes"]["best"]
    assert best["games"] == 1 and best["moves"][0] >= 17


# ---- every preset, the history, the pages, the address of the client ----------------------------


def test_every_preset_is_on_offer_with_its_levels(client):
    catalogue = client.get("/api/rules").json()
    names = [r["name"] for r in catalogue["rules"]]
    assert {"standard", "datagenetics", "pirates", "r-blog", "seabattle", "square-6", "square-15"} <= set(
        names
    )
    assert [m["level"] for m in catalogue["modes"]] == ["Easy", "Medium", "Hard", "Expert", "Adaptive"]
    seabattle = next(r for r in catalogue["rules"] if r["name"] == "seabattle")
    assert seabattle["levels"]["best"] == "optimal" and seabattle["about"].startswith("Sea Battle")
    for name in ("seabattle", "square-15"):
        game = client.post("/api/games", json={"rules": name, "mode": "hunt-target"})
        assert game.status_code == 201, game.text
        cols = game.json()["rules"]["cols"]
        assert (
            client.post(f"/api/games/{game.json()['id']}/fire", json={"cell": f"A{cols}"}).status_code == 200
        )
    tee = client.post("/api/rules/custom", json={"rules_toml": T_SHAPES}).json()
    assert tee["reflections"] is True and tee["fleet"][0]["cells"] == [[0, 0], [0, 1], [0, 2], [1, 1]]


def test_the_history_finds_the_games_a_browser_kept(client):
    first = client.post("/api/games", json={"mode": "random"}).json()["id"]
    second = client.post("/api/games", json={"mode": "random"}).json()["id"]
    client.post(f"/api/games/{second}/resign")
    found = client.post("/api/history", json={"games": [second, "f" * 32, first]}).json()["games"]
    assert [g["id"] for g in found] == [second, first]
    assert (
        found[0]["status"] == "over" and found[0]["ended_by"] == "resigned" and found[1]["mode"] == "random"
    )
    assert client.post("/api/history", json={"games": ["nope"]}).status_code == 400


def test_pages_for_addresses_that_do_not_exist_and_api_docs_that_need_no_network(client):
    page = client.get("/no/such/page")
    assert page.status_code == 404 and "text/html" in page.headers["content-type"]
    assert "There is no page at this address" in page.text
    api = client.get("/api/no-such-thing")
    assert api.status_code == 404 and "no such address" in api.json()["detail"]
    docs = client.get("/docs").text
    assert "/static/vendor/swagger-ui/swagger-ui-bundle.js" in docs and "cdn" not in docs.lower()
    for asset in ("swagger-ui-bundle.js", "swagger-ui.css", "LICENSE"):
        assert client.get(f"/static/vendor/swagger-ui/{asset}").status_code == 200
    assert client.get("/redoc").status_code == 404  # ReDoc would fetch its script from a CDN: not served


def test_forwarded_addresses_are_believed_only_from_configured_proxies(tmp_path):
    url = f"sqlite:///{tmp_path / 'g.db'}"
    rotating = [{"X-Forwarded-For": f"10.0.0.{n}"} for n in range(40)]

    def cookieless(client, headers):  # each request a client of its own: no session carried over
        client.cookies.clear()
        return client.get("/api/rules", headers=headers).status_code

    with TestClient(create_app(url, settings=Settings(rate_limit="5/minute"))) as client:
        answers = [cookieless(client, h) for h in rotating]
    assert answers.count(200) == 5 and answers.count(429) == 35  # one client, however it names itself
    trusted = Settings(rate_limit="5/minute", forwarded_allow_ips="testclient")  # the test client's address
    with TestClient(create_app(url, settings=trusted)) as client:
        answers = [cookieless(client, h) for h in rotating]
    assert answers == [200] * 40  # forty clients behind a proxy the server was told to believe


def test_the_adaptive_level_is_refused_where_its_model_cannot_be_fitted(client, monkeypatch):
    from battleship.inference import prior

    def too_many(*_args, **_kwargs):
        raise BattleshipError("up to 1e21 layouts: too many for exact counting")

    monkeypatch.setattr(prior, "fit", too_many)
    refused = client.post("/api/games", json={"rules": "r-blog", "mode": "learning"})
    assert refused.status_code == 400
    assert (
        refused.json()["detail"]
        == "the Adaptive level cannot play these rules: up to 1e21 layouts: too many for exact counting"
    )
    assert client.post("/api/games", json={"rules": "r-blog", "mode": "best"}).status_code == 201
