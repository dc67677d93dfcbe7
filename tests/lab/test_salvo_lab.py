"""The lab under salvo rules: games measured in turns, shots fired beside them, the unit said."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from battleship import generators, lab, notation
from battleship.cli import app
from battleship.game import play
from battleship.rng import game_rng
from battleship.rules import Answers, Rules, Salvo, Ship, Sinks, Spacing, preset
from battleship.shooters import make
from battleship.stop import Stop

runner = CliRunner()

SMALL = Rules(
    6,
    6,
    (Ship.line("Cruiser", "C", 3), Ship.line("Boat", "B", 2)),
    Spacing.TOUCH,
    Sinks.NAMED,
    name="small salvo",
    salvo=Salvo("afloat", Answers.EACH),
)
SMALL_COUNT = Rules(
    6,
    6,
    SMALL.fleet,
    Spacing.TOUCH,
    Sinks.NAMED,
    name="small salvo count",
    salvo=Salvo(3, Answers.COUNT),
)


def _toml(tmp_path, rules: Rules):
    path = tmp_path / f"{rules.name.replace(' ', '-')}.toml"
    path.write_text(rules.to_toml())
    return str(path)


@pytest.mark.parametrize("rules", [SMALL, SMALL_COUNT], ids=lambda r: r.name)
def test_the_lab_counts_turns_the_very_games_play_plays(rules):
    rows = generators.draw(rules, "uniform", 5, 10)
    turns = lab.simulate(rules, "hunt-target", 10, seed=5, layouts=rows)
    records = [
        play(make("hunt-target"), generators.to_layout(rules, row), game_rng(5, i))
        for i, row in enumerate(rows)
    ]
    assert turns.tolist() == [r.turns for r in records]
    histogram = np.bincount(turns, minlength=rules.cells + 1)
    assert lab.shots_fired(histogram, rules) == pytest.approx(np.mean([r.fired for r in records]))
    assert lab.unit(rules) == "turns" and lab.unit(rules.one_shot()) == "shots"
    assert lab.fewest(rules) == -(-rules.ship_cells // rules.turn_size())
    assert not lab.is_kernel("hunt-target", rules) and lab.is_kernel("hunt-target", rules.one_shot())


def test_salvo_runs_do_not_depend_on_the_jobs():
    one = lab.simulate(SMALL, "random", 14, seed=2, jobs=1)
    two = lab.simulate(SMALL, "random", 14, seed=2, jobs=2)
    assert np.array_equal(one, two)
    assert one.min() >= lab.fewest(SMALL) and one.max() <= -(-SMALL.cells // 2)


class _StopAfter(Stop):
    """A stop requested after its flag has been read ``reads`` times (between turns, in play)."""

    def __init__(self, reads: int) -> None:
        super().__init__()
        self.reads = reads

    @property
    def requested(self) -> bool:
        self.reads -= 1
        return self.reads < 0


def test_a_stop_ends_a_salvo_run_between_turns_keeping_the_games_finished():
    from battleship.shooters.options import Options

    rows = generators.draw(SMALL, "uniform", 1, 6)
    whole = lab.play_python(SMALL, "random", 1, rows, Options())
    cut = lab.play_python(SMALL, "random", 1, rows, Options(), stop=_StopAfter(int(whole[:2].sum()) + 1))
    assert cut.tolist() == whole[:2].tolist()  # the third game was under way: abandoned


def test_simulate_json_says_its_unit(tmp_path):
    out = tmp_path / "turns.txt"
    args = ["simulate", "hunt-target", "--rules", _toml(tmp_path, SMALL), "-n", "12", "--seed", "3", "--json"]
    data = json.loads(runner.invoke(app, [*args, "--out", str(out)]).stdout)
    assert data["unit"] == "turns" and data["games"] == 12
    lines = out.read_text().splitlines()
    assert lines[0] == "# turns" and len(lines) == 13
    numbers = np.array([int(v) for v in lines[1:]])
    assert data["mean"] == pytest.approx(numbers.mean())
    assert data["shots_fired"] == pytest.approx(np.minimum(numbers * 2, SMALL.cells).mean())
    # a run cut short carries on from its file, header and all
    part = tmp_path / "part.txt"
    (tmp_path / "part.txt.run.json").write_text((tmp_path / "turns.txt.run.json").read_text())
    part.write_text("\n".join(lines[:6]) + "\n" + lines[6][:1])
    resumed = json.loads(runner.invoke(app, [*args, "--out", str(part), "--resume"]).stdout)
    assert part.read_text() == out.read_text() and resumed["mean"] == data["mean"]
    shown = runner.invoke(app, args[:-1])
    assert shown.exit_code == 0 and "turns" in shown.stdout and "shots fired" in shown.stdout


def test_one_shot_json_gains_only_the_unit(tmp_path):
    out = tmp_path / "shots.txt"
    data = json.loads(runner.invoke(app, ["simulate", "-n", "20", "--json", "--out", str(out)]).stdout)
    assert data["unit"] == "shots" and "shots_fired" not in data
    assert not out.read_text().startswith("#")  # files in shots are written as they always were
    both = json.loads(runner.invoke(app, ["compare", "random", "hunt-target", "-n", "20", "--json"]).stdout)
    assert both["unit"] == "shots" and "shots_fired" not in both["shooters"]["random"]


def test_compare_pairs_salvo_games_in_turns(tmp_path):
    out = tmp_path / "pairs.txt"
    rules = _toml(tmp_path, SMALL_COUNT)
    args = ["compare", "random", "hunt-target", "--rules", rules, "-n", "10", "--seed", "4", "--json"]
    data = json.loads(runner.invoke(app, [*args, "--out", str(out)]).stdout)
    assert data["unit"] == "turns"
    lines = out.read_text().splitlines()
    assert lines[0] == "# turns: random\thunt-target" and len(lines) == 11
    rows = np.array([[int(v) for v in line.split()] for line in lines[1:]])
    random, hunt = data["shooters"]["random"], data["shooters"]["hunt-target"]
    assert random["mean"] == pytest.approx(rows[:, 0].mean())
    assert hunt["minus_first"] == pytest.approx((rows[:, 1] - rows[:, 0]).mean())
    assert hunt["shots_fired"] == pytest.approx(np.minimum(rows[:, 1] * 3, SMALL_COUNT.cells).mean())
    alone = json.loads(
        runner.invoke(
            app, ["simulate", "hunt-target", "--rules", rules, "-n", "10", "--seed", "4", "--json"]
        ).stdout
    )
    assert alone["mean"] == hunt["mean"]  # the same layouts and streams


def test_play_and_notation_carry_the_salvos(tmp_path):
    games_file = tmp_path / "games.txt"
    args = ["simulate", "hunt-target", "--rules", "salvo-count", "-n", "3", "--seed", "1", "--json"]
    data = json.loads(runner.invoke(app, [*args, "--notation", str(games_file)]).stdout)
    games = notation.read_games(games_file.read_text())
    assert games[0].rules == preset("salvo-count")
    assert sum(len(g.salvos) for g in games) / 3 == pytest.approx(data["mean"])
    played = json.loads(runner.invoke(app, ["play", "hunt-target", "--rules", "salvo", "--json"]).stdout)
    assert played["unit"] == "turns" and played["turns"] * 5 >= played["shots"] > (played["turns"] - 1) * 5
    back = notation.read_game(played["notation"]).records()["hunt-target"]
    assert (back.turns, back.fired) == (played["turns"], played["shots"])
