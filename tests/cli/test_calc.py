"""The calculator on the command line."""

import json

import pytest
from typer.testing import CliRunner

from battleship.cli import app

runner = CliRunner()
BOARD = "........../........../....o...../...oxo..../........../........../........../........../........../.........."


def _calc(*args):
    result = runner.invoke(app, ["calc", *args])
    return result


@pytest.mark.slow
def test_calc_json_has_the_contract_keys_and_a_forced_cell():
    data = json.loads(_calc(BOARD, "--json").stdout)
    assert {"layouts", "probability", "best"} <= set(data)
    assert isinstance(data["layouts"], int) and data["layouts"] > 0
    assert len(data["probability"]) == 10 and len(data["probability"][0]) == 10
    # the hit at D5 has one open neighbour left: E5 holds a ship for certain
    assert data["best"] == ["E5"]
    assert data["probability"][4][4] == pytest.approx(1.0)


def test_calc_prints_a_heat_map_and_writes_a_png(tmp_path):
    out = _calc(BOARD, "--percent", "--png", str(tmp_path / "heat.png"))
    assert out.exit_code == 0
    assert "layouts left: 592,583,188" in out.stdout
    assert (tmp_path / "heat.png").stat().st_size > 1000


@pytest.mark.slow
def test_calc_reads_a_game_in_order(tmp_path):
    game = runner.invoke(app, ["play", "--shooter", "hunt-target", "--seed", "2"]).stdout
    lines = game.split("\n")
    keep, moves = [], 0
    for line in lines:
        if ":" in line and "(" in line:
            moves += 1
            if moves > 15:
                break
        keep.append(line)
    path = tmp_path / "game.txt"
    path.write_text("\n".join(keep) + "\n")
    data = json.loads(_calc("--game", str(path), "--json").stdout)
    assert data["shots"] == 15
    assert data["layouts"] > 0


def test_calc_monte_carlo_reports_its_samples():
    data = json.loads(_calc(BOARD, "--time", "0.2", "--json").stdout)
    assert data["layouts"] is None and data["samples"] > 0
    assert "E5" in data["best"]  # a ship in every sample: the forced cell
    assert data["probability"][4][4] == 1.0


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["........../....."], "row"),
        ([BOARD.replace("x", "Q")], "not allowed"),
        ([BOARD.replace(".", "o")], "fits nowhere"),
        ([], "one of the two"),
    ],
)
def test_calc_explains_bad_input(args, words):
    result = _calc(*args)
    assert result.exit_code == 2
    assert words in result.stderr


@pytest.mark.slow
def test_replay_draws_a_frame_per_turn_and_a_gif(tmp_path):
    played = json.loads(
        runner.invoke(
            app, ["play", "--shooter", "density", "--rules", "square-6", "--seed", "1", "--json"]
        ).stdout
    )
    game = tmp_path / "game.txt"
    game.write_text(played["notation"])
    args = [
        "replay",
        str(game),
        "--rules",
        "square-6",
        "--frames",
        str(tmp_path / "f"),
        "--gif",
        str(tmp_path / "r.gif"),
    ]
    data = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    assert len(data["turns"]) == played["shots"] == len(list((tmp_path / "f").iterdir()))
    assert data["turns"][-1]["layouts"] >= 1
    assert (tmp_path / "r.gif").read_bytes()[:3] == b"GIF"


def test_calc_reads_a_board_file_and_names_a_missing_one(tmp_path):
    path = tmp_path / "board.txt"
    path.write_text(BOARD.replace("/", "\n") + "\n")
    assert json.loads(_calc(str(path), "--json").stdout)["best"] == ["E5"]
    missing = _calc(str(tmp_path / "nope.txt"))
    assert missing.exit_code == 2 and "no such board file" in missing.stderr


def test_skew_is_dropped_once_the_smallest_ship_is_sunk():
    from battleship.inference import posterior
    from battleship.notation import parse_board
    from battleship.rules import preset
    from battleship.shooters.density import best_cells

    rules = preset("standard")
    board = "xP......../" + "/".join(["o........."] * 9)
    observation = parse_board(board, rules)
    probability = posterior(rules, observation).probability
    assert best_cells(rules, observation, probability, 20) == best_cells(rules, observation, probability)
    out = runner.invoke(app, ["calc", board, "--skew", "--json"])
    assert out.exit_code == 0, out.output


def test_calc_within_a_time_budget_never_compiles_a_graph_it_has_no_time_for(monkeypatch):
    """Sea Battle with one hit: rejection keeps few draws, and compiling the exact sampler's graph takes
    longer than the budget. Every batch is told the deadline, so the answer is all rejection's samples
    (before, a later batch compiled the graph and the answer kept the first two batches alone)."""
    from battleship.inference import graph

    def no_compiling(*args, **kwargs):
        raise AssertionError("a graph was compiled within a --time budget")

    monkeypatch.setattr(graph, "build", no_compiling)
    board = "/".join(["." * 10] * 4 + ["....x....."] + ["." * 10] * 5)
    out = _calc(board, "--rules", "seabattle", "--time", "3", "--json")
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["samples"] > 48  # more than the first two batches (16 + 32)


def _finished_board() -> str:
    import battleship as bs

    layout = bs.generate("standard", seed=3)
    return bs.play(layout, "hunt-target", seed=3).observation.text()


def test_calc_on_a_finished_game_says_it_is_over_and_names_no_cell():
    printed = _calc(_finished_board(), "--percent")
    assert printed.exit_code == 0, printed.stderr
    assert "the game is over: every ship is sunk" in printed.stdout
    assert "best cell" not in printed.stdout
    data = json.loads(_calc(_finished_board(), "--json").stdout)
    assert data["over"] is True and data["best"] == [] and data["layouts"] == 1
    assert json.loads(_calc(BOARD, "--json").stdout)["over"] is False


def test_calc_best_cells_are_the_density_shooters_without_skew():
    import numpy as np

    from battleship.cli.calc import _best
    from battleship.notation import parse_board
    from battleship.rules import preset
    from battleship.shooters.density import best_cells

    rules = preset("standard")
    observation = parse_board(BOARD, rules)
    rng = np.random.default_rng(4)
    for probability in (rng.random((10, 10)), np.full((10, 10), 0.25), np.zeros((10, 10))):
        assert _best(rules, observation, probability, False) == best_cells(rules, observation, probability)
        assert _best(rules, observation, probability, True) == best_cells(rules, observation, probability, 20)
