"""What the commands print, against brute force on small rules of every kind (tests/brute.py).

Hypothesis draws boards from 3x3 to 6x6 with one to four ships (one-ship fleets and polyominoes
included), every spacing and sink mode; each test writes the rules to a TOML file and runs the
command as a user would, reading its --json.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from battleship import generators, notation
from battleship.cli import app
from battleship.game import Game, play
from battleship.rng import game_rng
from battleship.rules import Rules
from battleship.shooters import make, spec
from tests import brute

runner = CliRunner()
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _run(*args: str) -> dict:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, (args, result.stdout, result.stderr)
    return json.loads(result.stdout)


def _rules_file(folder: Path, rules: Rules) -> str:
    path = folder / "rules.toml"
    path.write_text(rules.to_toml(), encoding="utf-8")
    return str(path)


@SETTINGS
@given(brute.tiny_rules())
def test_count_prints_every_layout(rules):
    every = brute.layouts(rules)
    assume(every is not None)
    with tempfile.TemporaryDirectory() as folder:
        assert _run("count", "--rules", _rules_file(Path(folder), rules))["distinct"] == len(every)


@SETTINGS
@given(brute.tiny_rules(), st.integers(0, 2**16), st.floats(0.1, 0.7))
def test_calc_prints_each_cells_share_of_the_consistent_layouts(rules, seed, played):
    every = brute.layouts(rules, cap=3000)
    assume(every is not None)
    record = play(make("random"), generators.generate(rules, "uniform", seed, 1)[0], game_rng(seed))
    shots = record.shots[: max(1, int(played * len(record.shots)))]
    left = brute.consistent(rules, every, shots)
    with tempfile.TemporaryDirectory() as folder:
        game = Path(folder) / "game.txt"
        partial = notation.PaperGame(
            rules, record_players(record), tuple((record.shooter, s.cell) for s in shots)
        )
        game.write_text(notation.write_game(partial))
        data = _run("calc", "--game", str(game))
    assert data["layouts"] == len(left)
    expected = [sum(1 for m in left if sum(m) >> c & 1) / len(left) for c in range(rules.cells)]
    assert np.allclose(np.array(data["probability"]).ravel(), expected)


def record_players(record):
    """The players of a one-sided game: the shooter (no grid) and the target."""
    return ((record.shooter, None), ("target", record.layout))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(brute.tiny_rules(max_side=4, max_ships=2))
def test_limit_prints_the_plain_minimax_optimum_and_exact_greedy_play(rules):
    every = brute.layouts(rules, cap=30)
    assume(every is not None)
    with tempfile.TemporaryDirectory() as folder:
        data = _run("limit", "optimal", "--rules", _rules_file(Path(folder), rules))
    assert data["layouts"] == len(every)
    assert data["optimum"] == pytest.approx(brute.optimum(rules, every), abs=1e-9)
    (optimal,) = data["shooters"]
    assert optimal["mean"] == pytest.approx(brute.greedy_mean(rules, every), abs=1e-9)
    assert optimal["mean"] >= data["optimum"] - 1e-9


def test_limit_on_one_ship_fleets_the_issue_reported():
    """4x4 with one ship of 3 is 5.625 shots (it said 3.0); 3x3 with one ship of 2 is 4.5 (it said 2.0)."""
    for (rows, length), expected in (((4, 3), 5.625), ((3, 2), 4.5)):
        rules = Rules(rows, rows, (brute.Ship.line("Ship", "S", length),), name="one")
        every = brute.layouts(rules)
        assert brute.optimum(rules, every) == pytest.approx(expected)
        with tempfile.TemporaryDirectory() as folder:
            data = _run("limit", "random", "optimal", "--rules", _rules_file(Path(folder), rules))
        assert data["optimum"] == pytest.approx(expected) and data["layouts"] == len(every)
        assert all(s["mean"] >= expected for s in data["shooters"])


@SETTINGS
@given(brute.tiny_rules(), st.integers(0, 2**16))
def test_replay_of_a_played_game_prints_each_turns_exact_odds(rules, seed):
    every = brute.layouts(rules, cap=2000)
    assume(every is not None)
    with tempfile.TemporaryDirectory() as folder:
        played = _run("play", "density", "--rules", _rules_file(Path(folder), rules), "--seed", str(seed))
        game = Path(folder) / "game.txt"
        game.write_text(played["notation"])
        turns = _run("replay", str(game))["turns"]
    (record,) = notation.read_game(played["notation"]).records().values()
    assert len(turns) == len(record.shots) == played["shots"]
    for turn, shot in zip(turns, record.shots, strict=True):
        left = brute.consistent(rules, every, record.shots[: turn["turn"] - 1])
        assert turn["layouts"] == len(left)
        assert turn["probability"] == pytest.approx(
            sum(1 for m in left if sum(m) >> shot.cell & 1) / len(left)
        )
        assert turn["outcome"] == shot.outcome.value


@SETTINGS
@given(
    brute.tiny_rules(),
    st.integers(0, 2**16),
    st.sampled_from(["random", "hunt-target", "flood", "density:tie=random", "trial-sink:tie=random"]),
)
def test_simulate_notation_holds_the_games_out_counts_and_play_is_its_first(rules, seed, shooter):
    assume(spec(shooter.partition(":")[0]).refusal(rules) is None)
    with tempfile.TemporaryDirectory() as folder:
        where = Path(folder)
        rules_file = _rules_file(where, rules)
        out, games = where / "out.txt", where / "games.txt"
        summary = _run(
            "simulate", shooter, "--rules", rules_file, "--games", "6", "--seed", str(seed),
            "--out", str(out), "--notation", str(games),
        )  # fmt: skip
        first = _run("play", shooter, "--rules", rules_file, "--seed", str(seed))
        counted = [int(x) for x in out.read_text().split()]
        text = games.read_text()
    written = notation.read_games(text)  # checked: every move legal, under the rules it carries
    assert written[0].rules == rules
    assert [len(g.moves) for g in written] == counted
    assert sum(counted) / len(counted) == pytest.approx(summary["mean"])
    assert first["shots"] == counted[0] and notation.read_game(first["notation"]) == written[0]
    for g in written:
        (record,) = g.records().values()
        assert Game(record.layout).over is False and record.observation.hit_mask == record.layout.occupied
