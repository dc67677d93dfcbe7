"""Exact play under a spacing margin in the web: state graphs compiled ahead, off the request path,
shared with the workers through files; moves and heat maps that say what they did."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest
from fastapi.testclient import TestClient

from battleship.game import Game, Observation
from battleship.generators import draw, to_layout
from battleship.inference import graph, posterior, prior, state_graphs
from battleship.rules import from_toml, preset
from battleship.stop import Stop
from battleship.web import graphs
from battleship.web.app import Settings, create_app
from battleship.web.computer import Computer
from battleship.web.gate import Gate
from battleship.web.workers import Workers

NO_CONTACT = """
rows = 7
cols = 7
spacing = "no-contact"
sinks = "named"

[[ship]]
name = "Cruiser"
symbol = "C"
length = 3

[[ship]]
name = "Destroyer"
symbol = "D"
length = 2

[[ship]]
name = "Boat"
symbol = "B"
length = 2
"""

# a 15x15 board under no-contact: its state graph's profiles alone pass what memory allows
TOO_BIG = 'rows = 15\ncols = 15\nspacing = "no-contact"\n' + "".join(
    f'[[ship]]\nname = "Ship {k}"\nsymbol = "{chr(65 + k)}"\nlength = {n}\n'
    for k, n in enumerate((6, 5, 4, 3, 3, 2))
)

# the presets' graphs are left unbuilt: a custom graph asked for here would wait behind them (minutes on a
# busy machine); the one test that needs them asks for them
# a generous move deadline: on a busy machine a 2 s move may fall back to the density shooter, which is
# not what these tests look at (whether the graph lets a level count exactly)
UNLIMITED = Settings(rate_limit="", warm_graphs=False, move_seconds=60.0)


def _until(predicate, seconds: float = 300.0, said=lambda: "") -> None:
    """Wait (bounded) for ``predicate``; the bound is generous: the machine may be busy. ``said``: what
    the failure reports of the state it ended in."""
    end = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < end, f"timed out waiting {said()}"
        time.sleep(0.1)


def test_a_killed_servers_temporary_graphs_are_deleted_by_the_next_and_a_live_ones_kept(
    tmp_path, monkeypatch
):
    """A server's own folder of graphs (hundreds of MB) outlives a server killed outright: the next
    server to make one deletes those whose process is gone, and leaves alone a live server's and any
    folder that names no process."""
    import subprocess
    import sys

    monkeypatch.setattr(graphs.tempfile, "tempdir", str(tmp_path))
    ended = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])  # bounded
    killed = tmp_path / f"{graphs.TEMPORARY}killed"
    killed.mkdir()
    (killed / graphs.OWNER).write_text(graphs._process_key(ended.pid) or "")
    ended.kill()
    ended.wait(60)
    alive = tmp_path / f"{graphs.TEMPORARY}alive"
    alive.mkdir()
    (alive / graphs.OWNER).write_text(graphs._process_key(os.getpid()) or "")
    unsaid = tmp_path / f"{graphs.TEMPORARY}unsaid"  # being made, or by an older version
    unsaid.mkdir()
    compiled = graphs.Graphs()
    try:
        mine = compiled.directory
        assert not killed.exists() and alive.exists() and unsaid.exists() and mine.parent == tmp_path
        assert graphs.remove_orphans() == []  # its own folder names this live process
    finally:
        compiled.close()
    assert not mine.exists()


def test_a_stored_graph_mapped_from_its_file_counts_as_the_freshly_compiled_one(tmp_path):
    rules = from_toml(NO_CONTACT)
    game = Game(to_layout(rules, draw(rules, "uniform", 5, 1, threads=False)[0]))
    for cell in (0, 8, 24, 40):
        game.fire(cell)
    shape = graphs.needed(rules, game.observation)
    assert shape is not None and graphs.needed(preset("standard"), Observation(preset("standard"))) is None
    done = graphs.compile_into(shape, tmp_path, stop=Stop())  # build_job would nice this process
    assert done["states"] > 0 and (tmp_path / state_graphs.key(shape) / "graph.json").exists()
    loaded = state_graphs.load(shape, tmp_path)
    fresh = graph.build(shape)
    assert loaded.open_total == fresh.open_total
    for name in state_graphs.ARRAYS:
        assert np.array_equal(getattr(loaded, name), getattr(fresh, name))
    assert state_graphs.adopt(tmp_path, shape) and graph.cached(shape) is not None
    result = posterior(rules, game.observation)
    assert result.engine == "sweep" and result.layouts > 0


def test_a_custom_no_contact_game_plays_learning_and_probability_exactly_once_compiled(tmp_path):
    with TestClient(create_app(f"sqlite:///{tmp_path / 'g.db'}", settings=UNLIMITED)) as client:
        compiled = client.app.state.computer.graphs
        rules = from_toml(NO_CONTACT)
        shape = graphs.needed(rules, Observation(rules))
        for level in ("learning", "probability"):
            created = client.post("/api/games", json={"rules_toml": NO_CONTACT, "mode": level})
            assert created.status_code == 201, created.text
            game = created.json()
            # compiled while the game was created, unless the compiling process was still starting
            assert "notice" not in game or "compiled" in game["notice"], game
            _until(
                lambda: compiled.status(shape).state == graphs.READY,
                said=lambda: f"(the graph: {compiled.status(shape).words()})",
            )
            client.post(f"/api/games/{game['id']}/fire", json={"cell": "A1"})
            for _ in range(3):
                move = client.post(f"/api/games/{game['id']}/computer").json()
                assert move["computer"]["fallback"] is None, move["computer"]
                shooter = move["computer"]["shooter"]
                assert shooter == "learning" if level == "learning" else shooter.startswith("montecarlo:")
                assert move["computer"]["exact"] is (True if level == "learning" else None)
                state = move["state"]
                if state["status"] != "player-turn":
                    break
                free = next(c for c in range(49) if c not in {s["cell"] for s in state["player_shots"]})
                client.post(f"/api/games/{game['id']}/fire", json={"cell": free})


def test_a_move_whose_graph_is_not_ready_falls_back_at_once_and_says_why(tmp_path):
    with TestClient(create_app(f"sqlite:///{tmp_path / 'g.db'}", settings=UNLIMITED)) as client:
        compiled = client.app.state.computer.graphs
        game = client.post("/api/games", json={"rules_toml": NO_CONTACT, "mode": "learning"}).json()
        rules = from_toml(NO_CONTACT)
        shape = graphs.needed(rules, Observation(rules))
        # as if its compilation were still under way (a busy compiler, a big board)
        compiled._status[shape] = graphs.Status(graphs.COMPILING, time.monotonic())
        client.post(f"/api/games/{game['id']}/fire", json={"cell": "A1"})
        move = client.post(f"/api/games/{game['id']}/computer").json()["computer"]
        assert move["shooter"] == "density:skew=20" and move["exact"] is False
        assert "Adaptive is not ready under these rules" in move["fallback"]
        assert "being compiled" in move["fallback"]
        client.app.state.computer.probe_seconds = 0.5  # how long creating a game waits for a verdict
        again = client.post("/api/games", json={"rules_toml": NO_CONTACT, "mode": "probability"}).json()
        assert "being compiled" in again["notice"] and "density" in again["notice"]


def test_rules_whose_graph_cannot_be_built_are_refused_when_the_game_is_created(tmp_path):
    with TestClient(create_app(f"sqlite:///{tmp_path / 'g.db'}", settings=UNLIMITED)) as client:
        # generous: the verdict comes as soon as the compiling process has looked (it may start slowly)
        client.app.state.computer.probe_seconds = 300
        refused = client.post("/api/games", json={"rules_toml": TOO_BIG, "mode": "probability"})
        assert refused.status_code == 400, refused.text
        detail = refused.json()["detail"]
        assert "Hard cannot play these rules" in detail and "would not fit in memory" in detail
        # levels that do not count are still offered under them
        assert (
            client.post("/api/games", json={"rules_toml": TOO_BIG, "mode": "hunt-target"}).status_code == 201
        )


@pytest.mark.slow
def test_the_calculator_is_exact_on_sea_battle_once_the_presets_are_warm(tmp_path):
    # generous: the exact count can pass the server's ten seconds on a machine whose every core is busy
    # (the fifty-games test beside it), and then an estimate answers: this is about exactness, not speed
    patient = Settings(rate_limit="", analysis_seconds=600)
    with TestClient(create_app(f"sqlite:///{tmp_path / 'g.db'}", settings=patient)) as client:
        compiled = client.app.state.computer.graphs
        wanted = graphs.warm_presets(compiled)
        rules = preset("seabattle")
        assert graphs.needed(rules, Observation(rules)) in wanted
        # generous: Sea Battle's graph is minutes of CPU in the background, and a busy machine shares it
        _until(lambda: all(compiled.status(s).state == graphs.READY for s in wanted), 1800)
        board = "/".join(["." * 10] * 9 + ["o" + "." * 9])
        calc = client.post("/api/calc", json={"rules": "seabattle", "board": board}).json()
        assert calc["exact"] is True and calc["engine"] == "sweep" and "note" not in calc, calc.get("note")
        assert abs(sum(calc["probability"]) - 20) < 1e-3
        assert calc["probability"][90] == 0.0 and int(calc["layouts"]) > 10**12
        # Expert plays exact greedy play on Sea Battle: from the same graph, with no stand-in
        computer = client.app.state.computer
        move = computer.move(rules, Observation(rules), "best", (1, 0), Stop(60))  # generous: a busy machine
        assert move.shooter == "optimal" and move.fallback is None, move
        # and the look-ahead on the C# Pirates contest's rules, from that preset's warm graph
        pirates = preset("pirates")
        assert graphs.needed(pirates, Observation(pirates)) in wanted
        move = computer.move(pirates, Observation(pirates), "best", (1, 0), Stop(60))
        assert move.shooter == "twoply:endgame=5000,plies=1" and move.fallback is None, move


@pytest.mark.slow
def test_adaptive_under_a_learned_prior_plays_a_whole_no_contact_game_exactly(tmp_path):
    """A learned prior tells ships of one length apart, and a sinking may merge them again: each graph
    a board needs is asked for, and once it is ready every move is counted exactly."""
    rules = from_toml(NO_CONTACT)
    model = prior.fit(rules, draw(rules, "uniform", 11, 40, threads=False))
    workers, compiled = Workers(1), graphs.Graphs(tmp_path / "graphs")
    computer = Computer(Gate(2, 4, 5.0), workers, 2.0, 10.0, compiled)
    try:
        game = Game(to_layout(rules, draw(rules, "uniform", 12, 1, threads=False)[0]))
        shapes, exact_moves = set(), 0
        while not game.over:
            board = game.observation
            shape = graphs.needed(rules, board, model.prior())
            shapes.add(shape)
            move = computer.move(
                rules, board, "learning", (1, 0), Stop(60), model
            )  # generous: a busy machine
            if move.fallback is not None:  # its graph compiles meanwhile: wait, and ask again
                assert "Adaptive is not ready under these rules" in move.fallback and move.exact is False
                _until(lambda s=shape: compiled.status(s).state == graphs.READY)
                continue
            assert move.exact is True and move.shooter == "learning"
            game.fire(move.cell)
            exact_moves += 1
        assert exact_moves == len(game.observation.shots) and len(shapes) >= 2
    finally:
        workers.close()
        compiled.close()


def test_adaptive_whose_prior_graph_would_not_fit_samples_and_says_so(tmp_path):
    rules = from_toml(NO_CONTACT)
    model = prior.fit(rules, draw(rules, "uniform", 11, 40, threads=False))
    workers, compiled = Workers(1), graphs.Graphs(tmp_path / "graphs")
    computer = Computer(Gate(2, 4, 5.0), workers, 2.0, 10.0, compiled)
    try:
        board = Observation(rules)
        split = graphs.needed(rules, board, model.prior())
        assert split != graphs.needed(rules, board)  # the prior tells the two 2-cell ships apart
        compiled._status[split] = graphs.Status(graphs.TOO_LARGE, time.monotonic(), "as if")
        _until(lambda: compiled.wait(graphs.needed(rules, board), Stop(60)).state == graphs.READY)
        move = computer.move(rules, board, "learning", (1, 0), Stop(60), model)
        assert move.fallback is None and move.shooter == "learning" and move.exact is False
        assert "importance sampling" in move.json()["note"]
    finally:
        workers.close()
        compiled.close()


def test_a_game_s_graph_stops_the_warm_up_s_compilation_which_starts_again_after(tmp_path):
    from tests.web import jobs_for_tests

    class StandIn(graphs.Graphs):
        job = staticmethod(jobs_for_tests.graph_stand_in)

    compiled = StandIn(tmp_path / "graphs")
    sea = graphs.needed(preset("seabattle"), Observation(preset("seabattle")))
    game = graphs.needed(from_toml(NO_CONTACT), Observation(from_toml(NO_CONTACT)))
    assert sea is not None and game is not None and sea.cells >= 100 > game.cells
    try:
        compiled.want(sea, urgent=False)  # the warm-up's: minutes, stood in for by "until stopped"
        _until(lambda: compiled.status(sea).state == graphs.COMPILING, 120, lambda: "warm-up compiling")
        assert compiled.wait(game, Stop(120)).state == graphs.READY  # not behind the warm-up's
        assert compiled.preempted == 1
        (compiled.directory / "release").touch()  # the warm-up's, started again, may now finish
        _until(lambda: compiled.status(sea).state == graphs.READY, 120, lambda: "the warm-up's again")
    finally:
        compiled.close()


def test_a_graph_another_process_is_compiling_into_a_shared_folder_is_waited_for_not_compiled_again(
    tmp_path,
):
    """Servers given one folder (``serve --graphs``, every worker of ``--workers N``) compile each graph
    once: one that finds the graph's lock taken waits, and takes the graph the other stored."""
    import fcntl

    from tests.web import jobs_for_tests

    class StandIn(graphs.Graphs):  # had it compiled, it would say 1 state
        job = staticmethod(jobs_for_tests.graph_stand_in)

    folder = tmp_path / "graphs"
    folder.mkdir()
    rules = from_toml(NO_CONTACT)
    shape = graphs.needed(rules, Observation(rules))
    compiled = StandIn(folder)
    with open(folder / f".{state_graphs.key(shape)}.lock", "a") as other:  # another process compiling
        fcntl.flock(other, fcntl.LOCK_EX)
        try:
            assert compiled.want(shape).state == graphs.QUEUED
            _until(lambda: compiled.status(shape).state == graphs.COMPILING, 60, lambda: "claimed")
            time.sleep(3 * graphs.CLAIM_POLL)
            assert compiled.status(shape).state == graphs.COMPILING  # waiting for the other process
            stored = graphs.compile_into(shape, folder, stop=Stop())  # the other process's, stored
        finally:
            fcntl.flock(other, fcntl.LOCK_UN)
        try:
            _until(lambda: compiled.status(shape).state == graphs.READY, 60, lambda: "ready")
            assert compiled.status(shape).states == stored["states"] > 1  # taken, not compiled again
        finally:
            compiled.close()
