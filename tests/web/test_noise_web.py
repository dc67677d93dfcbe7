"""The web game under answers that lie (``[noise]``) and against a cheating computer (``[hider]``): whole
games through the API on small boards, each answer replayed exactly, re-firing, and the refusals."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from battleship import notation
from battleship.web.app import Settings, create_app
from battleship.web.records import replay

SMALL = """
rows = 5
cols = 5
sinks = "named"

[[ship]]
name = "Destroyer"
symbol = "D"
length = 3

[[ship]]
name = "Patrol Boat"
symbol = "P"
length = 2
"""
NOISY = SMALL + '\n[noise]\nflip = 0.3\nsinkings = "truthful"\n'  # lies often: a few in any game
CHEAT = SMALL + '\n[hider]\nkind = "adversarial"\n'
PLAYER = "DDD../...../PP.../...../....."


@pytest.fixture
def client(tmp_path):
    settings = Settings(rate_limit="", warm_graphs=False)
    with TestClient(create_app(f"sqlite:///{tmp_path / 'games.db'}", settings=settings)) as c:
        yield c


def play(client, game_id: str, cells: list[int]) -> list[dict]:
    """The player fires ``cells`` in turn (the computer answering each) until the game is over."""
    answers = []
    for cell in cells:
        r = client.post(f"/api/games/{game_id}/fire", json={"cell": cell, "reply": True})
        assert r.status_code == 200, r.text
        answers.append(r.json())
        if answers[-1]["state"]["status"] == "over":
            return answers
    raise AssertionError("the game did not end")


@pytest.fixture
def seeded(monkeypatch):
    """The server's draws (layouts, the game's seed, the referees' coins) from one fixed stream: the games
    below are the same on every run."""
    import random

    from battleship.web import service

    stream = random.Random(2026)
    monkeypatch.setattr(service.secrets, "randbits", stream.getrandbits)


def truth(layout: dict) -> set[int]:
    return {c for ship in layout["ships"] for c in ship["cells"]}


def answers(shots: list[dict]) -> list[tuple[int, str, str | None]]:
    return [(s["cell"], s["outcome"], s.get("ship")) for s in shots]


def test_a_noisy_game_fires_again_replays_every_answer_and_tells_the_lies_at_the_end(client, seeded):
    r = client.post("/api/games", json={"rules_toml": NOISY, "mode": "hunt-target", "layout": PLAYER})
    assert r.status_code == 201, r.text
    state = r.json()
    assert state["rules"]["noise"] == {"flip": 0.3, "sinkings": "truthful"} and "cheating" not in state
    noisy = next(p for p in client.get("/api/rules").json()["rules"] if p["name"] == "noisy")
    assert noisy["levels"]["probability"] == "density:skew=20"  # Hard weighs the answers' likelihood
    assert list(noisy["refused"]) == ["learning"]  # Adaptive reads every answer as true
    game_id = state["id"]
    live = play(client, game_id, [0, 0, *range(1, 25), *range(25)])  # A1 twice at once, then every cell again
    assert live[1]["shot"]["cell"] == 0 and live[1]["state"]["player_shots"][1]["visit"] == 2
    assert "flipped" not in live[1]["state"]["player_shots"][0]  # the player's own answers: told at the end
    mine = truth(live[0]["state"]["player_layout"])
    for shot in live[-2]["state"]["computer_shots"]:  # the answers about the player's own fleet: told at once
        assert shot["flipped"] == ((shot["outcome"] == "miss") == (shot["cell"] in mine))
    final = live[-1]["state"]
    assert final["status"] == "over" and final["noise"]["coins"].isdigit()
    theirs = truth(final["computer_layout"])
    fired = {s["cell"] for s in final["player_shots"]}
    assert final["winner"] != "player" or theirs <= fired  # the game ends once every ship cell was fired at
    lies = [s for s in final["player_shots"] if s["flipped"]]
    assert lies and all((s["outcome"] == "miss") == (s["cell"] in theirs) for s in lies)
    assert final["noise"]["flipped"] == [len(lies), sum(s["flipped"] for s in final["computer_shots"])]
    # the replay, and the notation read by the library, give every answer as the game did
    replay = client.get(f"/api/games/{game_id}/replay").json()
    by_side = [[m for m in replay["moves"] if m["side"] == k] for k in (0, 1)]
    assert answers(by_side[0]) == answers(final["player_shots"])
    assert answers(by_side[1]) == answers(final["computer_shots"])
    assert f"# coins: {final['noise']['coins']}" in final["notation"]
    paper = notation.read_game(final["notation"]).records()
    for name, shots in (("Player", final["player_shots"]), ("Computer", final["computer_shots"])):
        assert [(s.cell, s.outcome.value) for s in paper[name].shots] == [
            (s["cell"], s["outcome"]) for s in shots
        ]
    computer = (
        client.app.state.service.computer
    )  # the heat map counted here, not in a worker (a second to start)
    computer._heavy = lambda job, *args, stop, shapes=(): job(*args, stop=stop)
    heat = client.get(f"/api/games/{game_id}/heat", params={"move": 6, "side": "player"})
    assert heat.status_code == 200, heat.text
    probability = heat.json()["probability"]
    assert probability[0] < 1 and abs(sum(probability) - 5) < 1e-3  # a hit may lie: no square is certain


def test_a_cheating_computer_hides_no_fleet_and_shows_one_that_fits_every_answer(client, seeded):
    r = client.post("/api/games", json={"rules_toml": CHEAT, "mode": "hunt-target", "layout": PLAYER})
    assert r.status_code == 201, r.text
    state = r.json()
    assert "moves its ships" in state["cheating"] and state["rules"]["hider"]["kind"] == "adversarial"
    game_id = state["id"]
    assert client.post(f"/api/games/{game_id}/fire", json={"cell": 0, "reply": True}).status_code == 200
    again = client.post(f"/api/games/{game_id}/fire", json={"cell": 0})
    assert again.status_code == 400 and "fired at already" in again.json()["detail"]
    live = play(client, game_id, list(range(1, 25)))
    final = live[-1]["state"]
    assert all("computer_layout" not in a["state"] for a in live[:-1])
    shown = truth(final["computer_layout"])
    for shot in final["player_shots"]:  # every answer the hider gave is the shown layout's
        assert (shot["outcome"] == "miss") == (shot["cell"] not in shown)
    assert len(final["player_shots"]) > len(shown)  # it kept the game going past the cells of one fleet
    replay = client.get(f"/api/games/{game_id}/replay").json()
    assert answers([m for m in replay["moves"] if m["side"] == 0]) == answers(final["player_shots"])
    assert replay["computer_layout"] == final["computer_layout"] and replay["cheating"]
    paper = notation.read_game(final["notation"]).records()["Player"].shots  # an honest referee on it
    assert [(s.cell, s.outcome.value) for s in paper] == [
        (s["cell"], s["outcome"]) for s in final["player_shots"]
    ]
    history = client.post("/api/history", json={"games": [game_id]}).json()["games"]
    assert history[0]["twist"] == "cheat"
    stats = client.get("/api/stats").json()
    assert any("a cheating hider" in entry["label"] for entry in stats["rules"])


def test_resigning_to_a_cheating_computer_shows_a_layout_that_fits_the_answers_so_far(client, seeded):
    game_id = client.post("/api/games", json={"rules_toml": CHEAT, "mode": "random"}).json()["id"]
    play_cells = [6, 7, 8, 12]
    for cell in play_cells:
        assert (
            client.post(f"/api/games/{game_id}/fire", json={"cell": cell, "reply": True}).status_code == 200
        )
    final = client.post(f"/api/games/{game_id}/resign").json()
    shown = truth(final["computer_layout"])
    assert [(s["outcome"] == "miss") == (s["cell"] not in shown) for s in final["player_shots"]] == [True] * 4
    replay = client.get(f"/api/games/{game_id}/replay").json()
    assert replay["computer_layout"] == final["computer_layout"]


def test_the_twists_refused_where_they_make_no_game_each_in_one_line(client):
    refusals = {
        "Adaptive level": {"rules": "noisy", "mode": "learning"},
        "one shot a turn": {
            "rules_toml": CHEAT + '\n[salvo]\nshots = 2\nanswers = "each"\n',
            "mode": "random",
        },
    }
    for words, body in refusals.items():
        r = client.post("/api/games", json=body)
        assert r.status_code == 400 and words in r.json()["detail"] and "\n" not in r.json()["detail"], r.text
    friends = client.post("/api/friends", json={"rules": "cheat"})
    assert friends.status_code == 400 and "a person hides" in friends.json()["detail"]
    honest = client.post("/api/games", json={"rules": "standard", "mode": "random"}).json()["id"]
    client.post(f"/api/games/{honest}/fire", json={"cell": 0, "reply": True})
    assert (
        client.post(f"/api/games/{honest}/fire", json={"cell": 0}).status_code == 400
    )  # honest: once a cell


def test_friends_under_noise_each_answered_by_the_servers_coins(client, seeded):
    made = client.post("/api/friends", json={"rules_toml": NOISY}).json()
    first, second = made["seat"], made["invite"]
    client.post(f"/api/seats/{first}/layout", json={"layout": PLAYER})
    client.post(f"/api/seats/{second}/layout", json={"layout": "...../.DDD./...../PP.../....."})
    for mine, theirs in ((0, 1), (0, 2), (0, 3)):  # the first player fires at A1 three times
        for seat, cell in ((first, mine), (second, theirs)):
            r = client.post(f"/api/seats/{seat}/fire", json={"cell": cell})
            assert r.status_code == 200, r.text
    view = client.get(f"/api/seats/{first}").json()
    assert [s["visit"] for s in view["your_shots"]] == [
        1,
        2,
        3,
    ]  # A1 three times: noise lets a cell be fired again
    assert "flipped" not in view["your_shots"][0] and "flipped" in view["their_shots"][0]
    assert view["noise"]["flip"] == 0.3
    game = client.app.state.friends.replays.get(client.app.state.friends._row(made["state"]["id"]))
    fresh = replay(client.app.state.friends._row(made["state"]["id"]))  # the record keeps the coins
    assert fresh.at[1].observation.shots == game.at[1].observation.shots
    assert fresh.at[0].observation.shots == game.at[0].observation.shots
