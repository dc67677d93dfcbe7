"""Salvo games on the web, through the API: against the computer and between friends, every turn the
size the rules give (checked against the layouts, independently of the server), answered as the rules
say, stored in SQLite and PostgreSQL and read back; bad salvos refused naming the field, the value and
what is allowed; one-shot games and older stores unchanged."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from battleship import notation
from battleship.rules import preset
from battleship.web import store
from battleship.web.app import Settings, create_app
from battleship.web.records import RULES
from tests.web.postgres import empty, postgres_server

UNLIMITED = Settings(rate_limit="")


@pytest.fixture(scope="module")
def postgres_url():
    with postgres_server() as url:
        yield url


def database(request, tmp_path, kind: str) -> str:
    """A store URL: an SQLite file, or a fresh database on a real PostgreSQL server."""
    if kind == "sqlite":
        return f"sqlite:///{tmp_path / 'games.db'}"
    return empty(request.getfixturevalue("postgres_url"))


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(f"sqlite:///{tmp_path / 'games.db'}", settings=UNLIMITED)) as c:
        yield c


def afloat(layout_text: str, rules, fired: set[int]) -> tuple[int, int]:
    """Ships of a fleet not hit on every cell, and its cells not hit, given the cells fired at it."""
    layout = notation.parse_layout(layout_text, rules)
    ships = sum(1 for mask in layout.masks if mask & ~_mask(fired))
    return ships, (layout.occupied & ~_mask(fired)).bit_count()


def _mask(cells: set[int]) -> int:
    return sum(1 << c for c in cells)


def expected_size(rules, own_layout: str, fired_at_own: set[int], fired_by_me: set[int]) -> int:
    """The shots a turn fires, worked out from the rules and the layouts (not the server's code)."""
    ships, _cells = afloat(own_layout, rules, fired_at_own)
    shots = rules.salvo.shots
    size = ships if shots == "afloat" else shots
    return min(size, rules.cells - len(fired_by_me))


def check_answer(rules, salvo: dict, layout_text: str, fired_before: set[int]) -> None:
    """The salvo's answer against the hidden layout: its hits, the ships it hit (``ships`` answers), the
    ships it sank, counted here from the layout."""
    layout = notation.parse_layout(layout_text, rules)
    cells = salvo["cells"]
    on = [layout.ship_at(c) for c in cells]
    assert salvo["hits"] == sum(s is not None for s in on)
    if rules.salvo.answers.value == "ships":
        hits = {}
        for s in on:
            if s is not None:
                hits[rules.fleet[s].name] = hits.get(rules.fleet[s].name, 0) + 1
        assert {h["ship"]: h["hits"] for h in salvo["ship_hits"]} == hits
    after = fired_before | set(cells)
    sunk = [
        rules.fleet[k].name
        for k, mask in enumerate(layout.masks)
        if not mask & ~_mask(after) and mask & ~_mask(fired_before)
    ]
    assert sorted(salvo["sunk"]) == sorted(sunk) and salvo["sunk_count"] == len(sunk)


@pytest.mark.parametrize(
    "kind, rules_name",
    [("sqlite", "salvo"), ("sqlite", "hits-named"), ("postgresql", "salvo-count")],
)
def test_a_salvo_game_against_the_computer_round_trips_through_the_store(request, tmp_path, kind, rules_name):
    rules = preset(rules_name)
    url = database(request, tmp_path, kind)
    with TestClient(create_app(url, settings=UNLIMITED)) as client:
        made = client.post("/api/games", json={"rules": rules_name, "mode": "hunt-target"})
        assert made.status_code == 201, made.text
        game = made.json()
        gid, mine = game["id"], game["player_layout"]["notation"]
        assert game["rules"]["salvo"] == {"shots": rules.salvo.shots, "answers": rules.salvo.answers.value}
        fired = [set(), set()]  # by the player, by the computer
        for _ in range(250):
            state = client.get(f"/api/games/{gid}").json()
            if state["status"] == "over":
                break
            if state["status"] == "player-turn":
                size = expected_size(rules, mine, fired[1], fired[0])
                assert state["salvo"]["player"] == size
                cells = [c for c in range(rules.cells) if c not in fired[0]][::-1][:size]
                answer = client.post(f"/api/games/{gid}/fire", json={"cells": cells})
                assert answer.status_code == 200, answer.text
                salvo = answer.json()["salvo"]
                assert salvo["cells"] == cells and len(answer.json()["shots"]) == size
                fired[0] |= set(cells)
            else:
                answer = client.post(f"/api/games/{gid}/computer")
                assert answer.status_code == 200, answer.text
                salvo = answer.json()["salvo"]
                assert len(salvo["cells"]) == state["salvo"]["computer"]
                check_answer(rules, salvo, mine, fired[1])
                fired[1] |= set(salvo["cells"])
        else:
            raise AssertionError("the game did not end")
        assert state["status"] == "over"
        layouts = (mine, state["computer_layout"]["notation"])
        for who, salvos in ((0, state["player_salvos"]), (1, state["computer_salvos"])):
            seen: set[int] = set()
            for salvo in salvos:
                check_answer(rules, salvo, layouts[1 - who], seen)
                seen |= set(salvo["cells"])
            assert (
                seen == fired[who]
                and {s["cell"] for s in state[("player_shots", "computer_shots")[who]]} == seen
            )
        # the winner sank the whole fleet; the counts of ships afloat are true
        winner = 0 if state["winner"] == "player" else 1
        assert afloat(layouts[1 - winner], rules, fired[winner])[0] == 0
        assert state["player_ships_left"] == afloat(mine, rules, fired[1])[0]
        assert state["computer_ships_left"] == afloat(layouts[1], rules, fired[0])[0]
        turns = len(state["player_salvos"]) + len(state["computer_salvos"])
        replay = client.get(f"/api/games/{gid}/replay").json()
        assert len(replay["salvos"]) == turns and len(replay["moves"]) == len(fired[0]) + len(fired[1])
        assert [s["side"] for s in replay["salvos"]] == [k % 2 for k in range(turns)]  # turns alternate
        first = replay["salvos"][1]
        assert [
            m["cell"] for m in replay["moves"][first["first"] : first["first"] + len(first["cells"])]
        ] == first["cells"]
        record = store.load(client.app.state.service.engine, gid)["record"]
        lines = [line for line in record.splitlines() if line and line[0] not in "[#"]
        assert len(lines) == turns  # one turn a line: the player once, then the salvo's cells in order
        assert all(line.startswith(("Player: (", "Computer: (")) and line.count(":") == 1 for line in lines)
        paper = notation.read_game(record, rules)  # the notation's own reader takes it, salvo by salvo
        assert [len(cells) for _who, cells in paper.salvos] == [len(s["cells"]) for s in replay["salvos"]]
        assert [cells for _who, cells in paper.salvos] == [tuple(s["cells"]) for s in replay["salvos"]]
        summary = client.post("/api/history", json={"games": [gid]}).json()["games"][0]
        assert summary["turns"] == turns and summary["moves"] == len(fired[0]) + len(fired[1])
        entry = next(r for r in client.get("/api/stats").json()["rules"] if r["key"] == rules_name)
        assert entry["unit"] == "turns" and entry["modes"]["hunt-target"]["turns"] == [turns]
    with TestClient(create_app(url, settings=UNLIMITED)) as again:  # a restarted server reads it back
        assert again.get(f"/api/games/{gid}").json() == state
        assert again.get(f"/api/games/{gid}/replay").json() == replay


def test_bad_salvos_are_refused_naming_the_field_the_value_and_what_is_allowed(client):
    gid = client.post("/api/games", json={"rules": "salvo", "mode": "random"}).json()["id"]
    fire = lambda body: client.post(f"/api/games/{gid}/fire", json=body)  # noqa: E731
    cases = {
        "cells: 2 cells given; this turn fires 5 shots (one for each of your ships afloat)": {
            "cells": ["A1", 1]
        },
        "cells[1]: A1 is in the salvo twice": {"cells": ["A1", 0, "C3", "D4", "E5"]},
        "cells[4]: 100 is off the 10x10 board": {"cells": ["A1", "B2", "C3", "D4", 100]},
        "cells[0]: true is not a cell": {"cells": [True, "B2", "C3", "D4", "E5"]},
        "cell: one cell given; this turn fires 5 shots": {"cell": "A1"},
        "cell and cells: give one cell (a shot) or cells (a salvo), not both": {
            "cell": "A1",
            "cells": ["B2"],
        },
        "cells and auto": {"cells": ["A1"], "auto": True},
        "not a list of cells": {"cells": "A1"},
        "null is not a list of cells": {"cells": None},
    }
    for words, body in cases.items():
        answer = fire(body)
        assert answer.status_code == 400 and words in answer.json()["detail"], (body, answer.text)
    cells = ["A1", "B2", "C3", "D4", "E5"]
    assert fire({"cells": cells}).status_code == 200
    assert fire({"cells": ["F6", "G7", "H8", "I9", "J10"]}).status_code == 409  # the computer's turn
    assert client.post(f"/api/games/{gid}/computer").status_code == 200
    again = fire({"cells": ["F6", "G7", "H8", "I9", "A1"]})
    assert again.status_code == 400 and "cells[4]: A1 has been fired at already" in again.json()["detail"]
    assert fire({"cells": [5.0, 6, 7, 8, 9]}).status_code == 200  # 5.0 is the integer 5, as in JSON Schema


def test_a_one_shot_game_is_unchanged_and_takes_a_salvo_of_one(client):
    assert set(RULES) >= {"standard", "salvo", "salvo-count", "hits-named"}
    game = client.post("/api/games", json={"rules": "standard", "mode": "random"}).json()
    gid = game["id"]
    assert "salvo" not in game and "player_salvos" not in game and "salvo" not in game["rules"]
    answer = client.post(f"/api/games/{gid}/fire", json={"cell": "A1"}).json()
    assert set(answer) == {"shot", "state"} and answer["shot"]["cell"] == 0 and "turn" not in answer["shot"]
    client.post(f"/api/games/{gid}/computer")
    two = client.post(f"/api/games/{gid}/fire", json={"cells": ["B1", "B2"]})
    assert (
        two.status_code == 400
        and "cells: 2 cells given; these rules fire one shot a turn" in two.json()["detail"]
    )
    one = client.post(f"/api/games/{gid}/fire", json={"cells": ["B1"]})
    assert one.status_code == 200 and one.json()["shot"]["cell"] == 10
    row = store.load(client.app.state.service.engine, gid)
    assert row["turns"] is None and row["moves"] == 3
    assert row["record"].rstrip().splitlines()[-1] == "Player: (1, 9)"  # one move a line, as ever


def test_a_store_from_before_salvos_gains_the_column_and_keeps_its_games(tmp_path):
    url = f"sqlite:///{tmp_path / 'games.db'}"
    with TestClient(create_app(url, settings=UNLIMITED)) as client:
        gid = client.post("/api/games", json={"rules": "standard", "mode": "random"}).json()["id"]
        client.post(f"/api/games/{gid}/fire", json={"cell": "C3"})
        before = client.get(f"/api/games/{gid}").json()
    engine = create_engine(url)
    with engine.begin() as c:  # as a version before salvos and migrations left it
        c.execute(text("ALTER TABLE games DROP COLUMN turns"))
        for table in ("alembic_version", "presence", "rate_counts", "server_keys"):
            c.execute(text(f"DROP TABLE {table}"))
    engine.dispose()
    with TestClient(create_app(url, settings=UNLIMITED)) as client:
        assert client.get(f"/api/games/{gid}").json() == before
        assert client.post("/api/history", json={"games": [gid]}).json()["games"][0]["turns"] is None


def test_a_salvo_game_between_friends_to_the_end(client):
    rules = preset("salvo-count")
    made = client.post("/api/friends", json={"rules": "salvo-count", "clock": 600}).json()
    seats = [made["seat"], made["invite"]]
    for seat in seats:
        client.post(f"/api/seats/{seat}/layout", json={})
    layouts = [client.get(f"/api/seats/{s}").json()["your_layout"]["notation"] for s in seats]
    fired: list[set[int]] = [set(), set()]
    side = 0
    for _ in range(100):
        view = client.get(f"/api/seats/{seats[side]}").json()
        if view["status"] == "over":
            break
        assert view["status"] == "your-turn"
        size = expected_size(rules, layouts[side], fired[1 - side], fired[side])
        assert view["salvo"]["your"] == size
        other = client.get(f"/api/seats/{seats[1 - side]}").json()
        assert other["salvo"]["their"] == size and other["status"] == "their-turn"
        wrong = client.post(f"/api/seats/{seats[1 - side]}/fire", json={"cells": [0]})
        assert wrong.status_code == 409
        cells = [c for c in range(rules.cells) if c not in fired[side]][:size]
        answer = client.post(f"/api/seats/{seats[side]}/fire", json={"cells": cells})
        assert answer.status_code == 200, answer.text
        salvo = answer.json()["salvo"]
        check_answer(rules, salvo, layouts[1 - side], fired[side])
        assert all(s["outcome"] == "fired" for s in answer.json()["shots"])  # counted, never shot by shot
        assert layouts[1 - side] not in str(answer.json()) or answer.json()["state"]["status"] == "over"
        fired[side] |= set(cells)
        side = 1 - side
    view = client.get(f"/api/seats/{seats[0]}").json()
    assert view["status"] == "over" and view["ended_by"] == "sunk"
    replay = client.get(f"/api/games/{view['id']}/replay").json()
    assert len(replay["salvos"]) == len(view["your_salvos"]) + len(view["their_salvos"])
    entry = next(r for r in client.get("/api/stats").json()["rules"] if r["key"] == "salvo-count")
    assert entry["unit"] == "turns" and entry["modes"]["friend"]["turns"] == [len(replay["salvos"])]
    bad = client.post(f"/api/seats/{seats[0]}/fire", json={"cells": [0, 1]})
    assert bad.status_code == 409  # over


def test_the_stand_in_heat_map_reads_what_salvos_answered_whole_settle():
    from battleship.game import Game
    from battleship.layout import Layout
    from battleship.web import jobs

    rules = preset("salvo-count")
    layout = Layout.from_text(
        "CCCCC...../BBBB....../DDD......./SSS......./PP......../" + "/".join(["." * 10] * 5), rules
    )
    game = Game(layout)
    game.fire_salvo(["F1", "F2", "F3", "F4", "F5"])  # no hit: five squares of water
    game.fire_salvo(["A1", "A2", "A3", "A4", "A5"])  # five hits: the Carrier, sunk and named
    game.fire_salvo(["B1", "J10", "J9"])  # one hit among three: nothing settled
    seen = game.observation
    value = jobs.estimate(rules, seen)["probability"]
    assert all(value[c] == 0 for c in range(50, 55)) and all(value[c] == 1 for c in range(5))
    assert 0 < value[10] < 1 and 0 < value[99] < 1
    open_board = jobs.estimate(rules, Game(layout).observation)["probability"]
    assert value[9] < open_board[9]  # the Carrier, sunk, no longer counts on A10


# ---- in the browser: a phone and a desktop ----------------------------------------------------------

from tests.web.test_web_browser import (  # noqa: E402  (the browser tests' fixtures and helpers)
    LONG,
    browser,  # noqa: F401
    open_page,  # noqa: F401
    served,  # noqa: F401
    server,  # noqa: F401
    setup,
    start,
)

NO_SIDEWAYS_SCROLL = "document.documentElement.scrollWidth <= window.innerWidth"


def mark_and_fire(page, state: str, shots: str, size: str) -> None:
    """Mark the turn's squares (``size``) not fired yet (``shots``) on ``#enemy``, one taken back and marked
    again, then fire them together; ``state`` is the page's state variable."""
    count = page.evaluate(f"{state}.{size}")
    cells = page.evaluate(
        f"[...Array({state}.rules.rows * {state}.rules.cols).keys()].reverse()"
        f".filter((c) => !{state}.{shots}.some((s) => s.cell === c)).slice(0, {count})"
    )
    for cell in cells:
        page.click(f"#enemy .cell[data-cell='{cell}']")
    if count > 1:
        assert page.is_enabled("#fire-salvo")
        page.click(f"#enemy .cell[data-cell='{cells[0]}']")  # taken back: the salvo is one short
        assert page.is_disabled("#fire-salvo") and "mark 1 more square" in page.text_content("#salvo-status")
        page.click(f"#enemy .cell[data-cell='{cells[0]}']")
        assert page.locator("#enemy .cell.aimed").count() == count
        page.click("#fire-salvo")  # (a salvo of one fires on the click, as in the one-shot game)


@pytest.mark.slow
@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_salvo_game_against_the_computer_in_the_browser_to_the_end(server, open_page, size):  # noqa: F811
    page = open_page(size)
    setup(page, server, mode="hunt-target", rules="salvo-count")
    start(page)
    assert "mark 5 squares" in page.text_content("#turn") and "only how many shots hit" in page.text_content(
        "#turn"
    )
    page.check("#heat")  # the heat map reads the salvos' counts too
    for _ in range(120):
        if page.evaluate("game.status") == "over":
            break
        before = page.evaluate("game.computer_salvos.length")
        mark_and_fire(page, "game", "player_shots", "salvo.player")
        page.wait_for_function(
            f"game.status === 'over' || (game.status === 'player-turn' && game.computer_salvos.length > {before})",
            timeout=LONG,
        )
        if page.evaluate("game.status") != "over":
            mine = page.evaluate("game.player_salvos[game.player_salvos.length - 1]")
            badge = page.text_content("#enemy-panel h2 .salvo-badge")
            assert badge == f"turn {mine['turn']}: {mine['words']}" and "hit" in badge
            assert page.locator("#enemy .cell.last").count() == len(mine["cells"])
            assert page.locator("#enemy .cell.salvo").count() == page.evaluate("game.player_shots.length")
            assert page.evaluate(NO_SIDEWAYS_SCROLL)
            if page.is_checked("#heat"):  # once, after the first turns: then it is left off
                page.wait_for_selector("#heat-scale:not(.hidden)", timeout=LONG)
                assert page.text_content("#message").startswith("You fired")  # no error in its place
                page.uncheck("#heat")
    else:
        raise AssertionError("the game did not end")
    turns = page.evaluate(
        "game.winner === 'player' ? game.player_salvos.length : game.computer_salvos.length"
    )
    assert f"in {turns} turns" in page.text_content("#turn")
    assert page.text_content("#my-shots") == str(page.evaluate("game.player_salvos.length"))
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    page.click("#replaylink")
    page.wait_for_url("**/replay?game=*")
    salvos = page.evaluate(
        "fetch(`/api/games/${new URLSearchParams(location.search).get('game')}/replay`).then((r) => r.json()).then((r) => r.salvos.length)"
    )
    page.wait_for_function(f"document.querySelectorAll('#moves li').length === {salvos}")
    page.click("#forward")
    page.wait_for_function("document.querySelector('#at').textContent.startsWith('1 of')")
    assert (
        "hit" in page.text_content("#at") and page.locator("#board .cell.fired").count() == 0
    )  # the computer's view
    page.select_option("#side", "player")
    page.wait_for_function("document.querySelectorAll('#board .cell.fired').length === 5")
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    assert page.errors == []


@pytest.mark.slow
def test_a_salvo_game_between_two_browsers_to_the_end(server, open_page):  # noqa: F811
    ann, bob = open_page("desktop"), open_page("phone")
    ann.goto(server + "/friend")
    ann.wait_for_function("document.querySelectorAll('#rules option').length > 0")
    ann.select_option("#rules", "salvo")
    ann.fill("#name", "Ann")
    ann.click("#create-game")
    ann.wait_for_selector("#invite:not(.hidden)")
    link = ann.input_value("#invite-link")
    ann.click("#ready")
    bob.goto(link)
    bob.wait_for_selector("#placing:not(.hidden)")
    bob.fill("#seat-name", "Bob")
    bob.click("#ready")
    ann.wait_for_function("view.status === 'your-turn'")
    assert "Mark 5 squares" in ann.text_content("#banner")
    pages = [ann, bob]
    for turn in range(200):
        page, other = pages[turn % 2], pages[1 - turn % 2]
        page.wait_for_function("view.status === 'your-turn' || view.status === 'over'", timeout=30_000)
        if page.evaluate("view.status") == "over":
            break
        fired = page.evaluate("view.your_salvos.length")
        mark_and_fire(page, "view", "your_shots", "salvo.your")
        other.wait_for_function(
            f"view.status === 'over' || view.their_salvos.length > {fired}", timeout=30_000
        )
        said = other.evaluate("view.their_salvos[view.their_salvos.length - 1]")
        assert other.text_content("#message").endswith(f"{said['words']}.")  # the other player hears it
        assert page.evaluate(NO_SIDEWAYS_SCROLL) and other.evaluate(NO_SIDEWAYS_SCROLL)
    else:
        raise AssertionError("the game did not end")
    for page in pages:
        page.wait_for_function("view.status === 'over'", timeout=30_000)
    assert sorted(p.evaluate("view.winner") for p in pages) == ["them", "you"]
    assert ann.evaluate("view.your_salvos.length") == bob.evaluate("view.their_salvos.length")
    ann.click("#replaylink")
    ann.wait_for_url("**/replay?game=*")
    ann.wait_for_function("document.querySelectorAll('#moves li').length > 4")
    first = ann.locator("#moves li").first.text_content()
    assert first.startswith("Ann: J9 J8 J7 J6 J10: ")  # the square taken back and marked again comes last
    assert ann.errors == [] and bob.errors == []
