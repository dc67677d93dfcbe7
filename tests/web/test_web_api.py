"""The web API: whole games in every mode, secrecy of the computer's layout, bad input, persistence."""

from __future__ import annotations

import json
import time

import pytest
from fastapi.testclient import TestClient

from battleship import notation
from battleship.rules import preset
from battleship.web.app import create_app
from tests.web.postgres import postgres_server


@pytest.fixture(scope="module")
def postgres_url():
    with postgres_server() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request, tmp_path):
    """A store URL: an SQLite file, or a fresh database on a real PostgreSQL server."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'games.db'}"
    url = request.getfixturevalue("postgres_url")
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    with engine.begin() as c:
        c.execute(text("DROP TABLE IF EXISTS games"))
    engine.dispose()
    return url


@pytest.fixture
def client(database):
    with TestClient(create_app(database)) as c:
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


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["random", "probability", "best", "learning"])
def test_a_whole_game_never_shows_the_computers_layout_before_the_end(client, mode):
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
        (client.post("/api/games", json={"rules": "chess"}), 422),
        (client.post("/api/games", json={"layout": "nonsense"}), 400),
        (client.post(f"/api/games/{game_id}/fire", json={"cell": 100}), 400),
        (client.post(f"/api/games/{game_id}/fire", json={"cell": "Z9"}), 400),
        (client.post(f"/api/games/{game_id}/fire", json={}), 400),
        (client.post(f"/api/games/{game_id}/computer"), 409),
        (client.get("/api/games/" + "0" * 32), 404),
        (client.get("/api/games/not-an-id"), 404),
        (client.post("/api/calc", json={"board": "x" * 5000}), 422),
        (client.post("/api/calc", json={"board": "........../"}), 400),
        (client.post("/api/games", content="{" * 20000, headers={"content-type": "application/json"}), 413),
        (client.post("/api/games", content="{not json", headers={"content-type": "application/json"}), 422),
    ]
    for bad in (True, " A1", "A01", "A\u0661", "\u0661\u0662", "A1 ", "7", 1.5):  # strict: never a guess
        cases.append(
            (
                client.post(f"/api/games/{game_id}/fire", json={"cell": bad}),
                422 if bad in (True, 1.5) else 400,
            )
        )
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
    with TestClient(create_app(url)) as first:
        game_id = first.post("/api/games", json={"mode": "best"}).json()["id"]
        first.post(f"/api/games/{game_id}/fire", json={"cell": "E5"})
        before = first.get(f"/api/games/{game_id}").json()
    with TestClient(create_app(url)) as second:
        assert second.get(f"/api/games/{game_id}").json() == before
        play_out(second, game_id)
        steer = "CCCCC...../BBBB....../DDD......./SSS......./PP......../........../........../........../........../.........."
        for _ in range(40):  # create-and-resign loops, all on one layout: they must count for nothing
            resigned = second.post("/api/games", json={"mode": "random", "layout": steer}).json()["id"]
            assert second.post(f"/api/games/{resigned}/resign").json()["winner"] == "computer"
        deadline = time.monotonic() + 120  # the Learning model is fitted in the background
        while (stats := second.get("/api/stats").json())["learning_pending"] and time.monotonic() < deadline:
            time.sleep(0.2)
    assert (
        stats["games"] == 1
        and stats["modes"]["best"]["games"] == 1
        and stats["modes"]["random"]["games"] == 0
    )
    standard = stats["placements"]["standard"]
    assert standard["layouts"] == 1 and standard["share"] is None  # one player's layout is not shown
    assert stats["learning"]["standard"]["layouts"] == 1  # the played game's layout only
    assert len(stats["learning"]["standard"]["minus_uniform"]) == 100


def test_calculator_and_openapi(client):
    board = "........../........../....o...../...oxo..../........../........../........../........../........../.........."
    r = client.post("/api/calc", json={"board": board})
    assert r.status_code == 200
    data = r.json()
    assert data["layouts"] == "592583188" and data["best"] == [44]
    assert abs(sum(data["probability"]) - 17) < 1e-3
    schema = client.get("/openapi.json").json()
    assert "/api/games/{game_id}/fire" in schema["paths"]
    for page in ("/", "/calc", "/stats"):
        assert client.get(page).status_code == 200
