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

    from battleship.inference.calculator import Answer
    from battleship.notation import parse_board
    from battleship.rules import preset
    from battleship.shooters.density import best_cells

    rules = preset("standard")
    observation = parse_board(BOARD, rules)
    rng = np.random.default_rng(4)
    for probability in (rng.random((10, 10)), np.full((10, 10), 0.25), np.zeros((10, 10))):
        answer = Answer(observation, probability, True, "rows", 1, 0, None, 0.0, "", 0.0)
        assert answer.best() == best_cells(rules, observation, probability)


def _salvo_board(rules_name: str, salvos: int) -> str:
    """The board-state text after ``salvos`` seeded random salvos at a seeded random layout."""
    import numpy as np

    from battleship import generators
    from battleship.game import Game
    from battleship.rules import preset

    rules = preset(rules_name)
    game = Game(generators.to_layout(rules, generators.draw(rules, "uniform", 11, 1)[0]))
    rng = np.random.default_rng(5)
    for _ in range(salvos):
        free = [c for c in range(rules.cells) if not game.observation.is_shot(c)]
        game.fire_salvo(rng.choice(free, size=game.turn_size(), replace=False).tolist())
    return game.observation.text()


def test_calc_reads_salvos_answered_by_a_count_and_says_exact_or_estimated():
    board = _salvo_board("salvo-count", 2)
    assert " | " in board
    exact = _calc("-r", "salvo-count", board)
    assert exact.exit_code == 0, exact.output
    assert "layouts left: " in exact.stdout and "(exact, " in exact.stdout and "hit pattern" in exact.stdout
    data = json.loads(_calc("-r", "salvo-count", board, "--json").stdout)
    assert data["exact"] is True and data["salvos"] == 2 and data["shots"] == 10
    estimate = _calc("-r", "salvo-count", board, "--time", "0.5")
    assert estimate.exit_code == 0, estimate.output
    assert "estimated: monte carlo" in estimate.stdout


def test_calc_falls_back_to_monte_carlo_past_the_hit_patterns_it_can_count(monkeypatch):
    from battleship.inference import calculator

    monkeypatch.setattr(calculator, "SALVO_EXACT_SECONDS", 0.0)
    monkeypatch.setattr(calculator, "SALVO_FALLBACK_SECONDS", 0.5)
    out = _calc("-r", "salvo-count", _salvo_board("salvo-count", 2), "--json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["exact"] is False and data["layouts"] is None and data["samples"] > 0


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda b: b.replace("=", "=x", 1), "answer with the number of hits"),
        (lambda b: b.replace("?", ".", 1), "but the salvos make it '?'"),
        (lambda b: b + " Z1=0", "salvo 3 ('Z1=0'): cell 'Z1'"),
    ],
)
def test_calc_says_what_is_wrong_with_salvo_text_in_one_line(change, said):
    out = _calc("-r", "salvo-count", change(_salvo_board("salvo-count", 2)))
    assert out.exit_code != 0
    message = out.output.strip()
    assert said in message and "\n" not in message and "Traceback" not in message


def test_replay_of_salvos_answered_whole_gives_each_salvos_expected_hits():
    from battleship.cli.calc import replay_salvos
    from battleship.game import Game, Observation, Record
    from battleship.inference import posterior
    from battleship.layout import Layout
    from battleship.rules import Answers, Rules, Salvo, Ship

    rules = Rules(5, 5, (Ship.line("A", "A", 3), Ship.line("B", "B", 2)), salvo=Salvo(3, Answers.COUNT))
    layout = Layout(rules, (0b111, 0b11 << 12))
    game = Game(layout)
    for cells in ([0, 6, 12], [1, 18, 24], [13, 20, 22]):
        game.fire_salvo(cells)
    turns = replay_salvos(rules, Record(layout, "me", (), game.observation.volleys), lambda: None)
    assert [t["cell"] for t in turns] == ["A1,B2,C3", "A2,D4,E5", "C4,E1,E3"]
    assert [t["outcome"] for t in turns] == ["2", "1", "1+B"]  # C4 completes B
    before = posterior(Observation(rules, (), game.observation.volleys[:1]))
    assert turns[1]["layouts"] == before.layouts
    assert turns[1]["expected_hits"] == pytest.approx(sum(before.probability.ravel()[[1, 18, 24]]))


def test_calc_under_noise_says_the_layouts_are_weighed_by_the_answers_likelihood(tmp_path):
    rules = tmp_path / "noisy.toml"
    rules.write_text(
        'rows = 5\ncols = 5\nsinks = "none"\n\n[noise]\nflip = 0.1\n\n'
        '[[ship]]\nname = "Cruiser"\nsymbol = "C"\nlength = 3\n\n[[ship]]\nname = "Destroyer"\nsymbol = "D"\nlength = 2\n'
    )
    printed = _calc("..o../.ox../...../...../.....", "--rules", str(rules), "--percent")
    assert printed.exit_code == 0, printed.stderr
    line = next(x for x in printed.stdout.splitlines() if x.startswith("layouts left"))
    weight = float(line.split(": ")[1].split(" ")[0].replace(",", ""))
    honest = json.loads(_calc("..o../.ox../...../...../.....", "--rules", str(rules), "--json").stdout)
    assert line.startswith("layouts left, weighed by the answers' likelihood: ")
    assert abs(weight - honest["layouts"]) < 0.05 and not float(honest["layouts"]).is_integer()
