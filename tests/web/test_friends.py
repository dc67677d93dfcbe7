"""Games between friends through the API: seats reached by their own tokens, fleets hidden until the end,
turns enforced, the clock, a rematch, and the finished game in the same store, replay and statistics;
live updates as server-sent events from a real server."""

from __future__ import annotations

import json
import threading
from datetime import timedelta

import httpx
import pytest
from fastapi.testclient import TestClient

from battleship.web import store
from battleship.web.app import Settings, create_app
from tests.web.server import serving


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(f"sqlite:///{tmp_path / 'games.db'}", settings=Settings(rate_limit=""))) as c:
        yield c


def start(client, **body) -> tuple[str, str, str]:
    """A game with both fleets placed: (game id, first seat, second seat)."""
    made = client.post("/api/friends", json=body)
    assert made.status_code == 201, made.text
    first, second = made.json()["seat"], made.json()["invite"]
    assert client.post(f"/api/seats/{first}/layout", json={"name": "Ann"}).json()["status"] == "placing"
    view = client.post(f"/api/seats/{second}/layout", json={"name": "Bob"}).json()
    assert view["status"] == "their-turn" and view["them"]["name"] == "Ann"
    return made.json()["state"]["id"], first, second


def test_a_whole_game_between_friends_turns_enforced_fleets_hidden(client):
    game_id, first, second = start(client)
    seats = [first, second]
    secrets = [client.get(f"/api/seats/{s}").json()["your_layout"]["notation"] for s in seats]
    assert client.post(f"/api/seats/{second}/fire", json={"cell": "A1"}).status_code == 409  # Ann starts
    assert client.get(f"/api/games/{game_id}").status_code == 404  # not through the computer's API
    side, fired = 0, [0, 0]
    for _ in range(400):
        answer = client.post(f"/api/seats/{seats[side]}/fire", json={"cell": fired[side]})
        assert answer.status_code == 200, answer.text
        fired[side] += 1
        view = answer.json()["state"]
        if view["status"] == "over":
            break
        for k in (0, 1):  # neither seat ever sees the other fleet before the end
            assert secrets[1 - k] not in json.dumps(client.get(f"/api/seats/{seats[k]}").json())
        side = 1 - side
    assert view["status"] == "over" and view["winner"] == "you" and view["ended_by"] == "sunk"
    assert view["their_layout"]["notation"] == secrets[1 - side]
    assert client.get(f"/api/seats/{seats[1 - side]}").json()["winner"] == "them"
    assert client.post(f"/api/seats/{seats[side]}/fire", json={"cell": 99}).status_code == 409
    replay = client.get(f"/api/games/{game_id}/replay").json()
    assert (
        replay["mode"] == "friend"
        and replay["names"] == ["Ann", "Bob"]
        and len(replay["moves"]) == sum(fired)
    )
    assert replay["moves"][0]["player"] == "player1" and replay["moves"][0]["notation"] == "Player 1: (1, 10)"
    stats = client.get("/api/stats").json()
    standard = next(r for r in stats["rules"] if r["key"] == "standard")
    assert standard["modes"]["friend"]["games"] == 1
    assert client.post("/api/history", json={"games": [game_id]}).json()["games"][0]["mode"] == "friend"


def test_bad_seats_and_moves_are_refused_saying_why(client):
    made = client.post("/api/friends", json={"rules": "pirates"}).json()
    first, second = made["seat"], made["invite"]
    assert client.get(f"/api/seats/{'0' * 32}").status_code == 404
    assert (
        client.post(f"/api/seats/{first}/fire", json={"cell": 0}).json()["detail"]
        == "the fleets are not both placed yet"
    )
    touching = "CCCCC...../BBBB....../DDD......./SSS......./PP......../" + "/".join(["." * 10] * 5)
    refused = client.post(f"/api/seats/{first}/layout", json={"layout": touching})
    assert refused.status_code == 400 and refused.json()["detail"]
    for body in ({"clock": 10}, {"clock": 7200}, {"rules": "custom"}, {"name": "x" * 41}):
        assert client.post("/api/friends", json=body).status_code == 400, body
    client.post(f"/api/seats/{first}/layout")
    client.post(f"/api/seats/{second}/layout")
    assert client.post(f"/api/seats/{first}/layout").status_code == 409  # placed: the game is under way
    client.post(f"/api/seats/{first}/fire", json={"cell": "C3"})
    client.post(f"/api/seats/{second}/fire", json={"cell": "C3"})
    again = client.post(f"/api/seats/{first}/fire", json={"cell": "C3"})
    assert again.status_code == 400 and "fired at already" in again.json()["detail"]


def test_a_player_whose_clock_runs_out_loses(client):
    game_id, first, second = start(client, clock=60)
    view = client.get(f"/api/seats/{first}").json()
    assert view["clock"]["running"] == "you" and 55 < view["clock"]["yours"] <= 60
    client.post(f"/api/seats/{first}/fire", json={"cell": 0})
    engine = client.app.state.service.engine
    row = store.load(engine, game_id)  # Bob's turn began 61 seconds ago
    assert store.save(
        engine, game_id, {"turn_started": store.now() - timedelta(seconds=61)}, {"moves": row["moves"]}
    )
    view = client.get(f"/api/seats/{first}").json()
    assert view["status"] == "over" and view["winner"] == "you" and view["ended_by"] == "time"
    assert client.post(f"/api/seats/{second}/fire", json={"cell": 0}).json()["detail"] == "the game is over"


def test_a_rematch_swaps_who_starts_and_both_players_find_it(client):
    game_id, first, second = start(client, rules="square-8", clock=300)
    client.post(f"/api/seats/{first}/resign")
    assert client.get(f"/api/seats/{second}").json()["winner"] == "you"
    mine = client.post(f"/api/seats/{first}/rematch").json()
    theirs_view = client.get(f"/api/seats/{second}").json()
    assert theirs_view["rematch"]  # the other player's page learns of it
    theirs = client.post(f"/api/seats/{second}/rematch").json()
    assert mine["state"]["id"] == theirs["state"]["id"] != game_id
    assert theirs["state"]["seat"] == 1 and mine["state"]["seat"] == 2  # Bob starts the rematch
    assert theirs["state"]["rules"]["rows"] == 8 and theirs["state"]["clock"]["seconds"] == 300
    assert theirs["state"]["you"]["name"] == "Bob"


@pytest.mark.slow
def test_live_updates_reach_the_other_player_and_a_dropped_stream_comes_back(tmp_path):
    with serving(f"sqlite:///{tmp_path / 'games.db'}", "--rate-limit", "") as (base, _process):
        made = httpx.post(base + "/api/friends", json={"name": "Ann"}).json()
        first, second = made["seat"], made["invite"]
        events: list[dict] = []
        connected = threading.Event()

        def listen(limit: int) -> None:
            with httpx.stream("GET", f"{base}/api/seats/{second}/events", timeout=30) as stream:
                for line in stream.iter_lines():
                    if line.startswith("data: "):
                        events.append(json.loads(line[6:]))
                        connected.set()
                        if len(events) >= limit:
                            return

        reader = threading.Thread(target=listen, args=(2,))
        reader.start()
        assert connected.wait(30)
        assert httpx.get(f"{base}/api/seats/{first}").json()["them"]["connected"] is True
        httpx.post(f"{base}/api/seats/{first}/layout", json={})  # Ann places her fleet: Bob hears of it
        reader.join(30)
        assert [e["them"]["placed"] for e in events] == [False, True]
        for _ in range(100):  # the stream closed: Ann's view says Bob dropped out
            if not httpx.get(f"{base}/api/seats/{first}").json()["them"]["connected"]:
                break
            threading.Event().wait(0.1)
        assert httpx.get(f"{base}/api/seats/{first}").json()["them"]["connected"] is False
        httpx.post(f"{base}/api/seats/{second}/layout", json={})
        events.clear()
        reader = threading.Thread(target=listen, args=(1,))  # Bob comes back: the game as it is now
        reader.start()
        reader.join(30)
        assert events[0]["status"] == "their-turn" and events[0]["you"]["placed"]
        assert httpx.get(f"{base}/api/seats/{'0' * 32}/events").status_code == 404


def test_a_friends_clock_does_not_run_while_the_server_is_away(tmp_path):
    """A restart gives the running clock back the time since the server's last sign of life."""
    url, settings = f"sqlite:///{tmp_path / 'games.db'}", Settings(rate_limit="")
    with TestClient(create_app(url, settings=settings)) as client:
        game_id, first, _second = start(client, clock=300)
    # the server stopped cleanly (its last sign of life then): move that moment, and the start of Ann's
    # turn, 200 s into the past, as if it had stayed away for 200 s
    engine, away = store.connect(url), timedelta(seconds=200)
    row = store.load(engine, game_id)
    assert store.save(engine, game_id, {"turn_started": row["turn_started"] - away}, {"moves": 0})
    stopped = store.last_alive(engine)
    assert stopped is not None
    store.beat(engine, stopped - away)
    with TestClient(create_app(url, settings=settings)) as client:
        clock = client.get(f"/api/seats/{first}").json()["clock"]
        assert clock["running"] == "you" and clock["theirs"] == 300
        assert clock["yours"] > 200  # without the credit: under 100 (300 less the 200 s away)
        assert store.last_alive(engine) >= stopped  # the restart is the new sign of life


def test_the_time_away_is_given_once_and_only_to_running_turns(tmp_path):
    """From the last heartbeat of a killed server to the restart; a turn begun after that heartbeat starts
    again at the restart; fleets being placed and finished games keep their times."""
    url = f"sqlite:///{tmp_path / 'games.db'}"
    with TestClient(create_app(url, settings=Settings(rate_limit=""))) as client:
        running, _, _ = start(client, clock=300)
        late, _, _ = start(client, clock=300)
        over, first, _ = start(client, clock=300)
        client.post(f"/api/seats/{first}/resign")
    engine = store.connect(url)
    beat = store.now() - timedelta(seconds=100)
    back = beat + timedelta(seconds=60)
    starts = {running: beat - timedelta(seconds=5), late: beat + timedelta(seconds=1), over: beat}
    for game_id, started in starts.items():
        store.save(engine, game_id, {"turn_started": started}, {})
    store.beat(engine, beat)
    assert store.credit_downtime(engine, back) == 60
    moved = {g: store._utc(store.load(engine, g)["turn_started"]) for g in starts}
    assert moved == {running: starts[running] + timedelta(seconds=60), late: back, over: beat}
    assert store.last_alive(engine) == back
    assert store.credit_downtime(engine, back) == 0  # given once
    assert store._utc(store.load(engine, running)["turn_started"]) == moved[running]


def test_a_running_server_records_its_heartbeat(tmp_path, monkeypatch):
    """What a killed server leaves behind: a sign of life at most a heartbeat old."""
    from battleship.web import app as app_module

    monkeypatch.setattr(app_module, "HEARTBEAT_SECONDS", 0.05)
    url = f"sqlite:///{tmp_path / 'games.db'}"
    with TestClient(create_app(url, settings=Settings(rate_limit=""))) as client:
        engine = client.app.state.service.engine
        first = store.last_alive(engine)
        assert first is not None  # recorded as the server opened
        for _ in range(600):  # bounded: a beat comes within a few tries even on a busy machine
            if store.last_alive(engine) > first:
                break
            threading.Event().wait(0.05)
        assert store.last_alive(engine) > first
