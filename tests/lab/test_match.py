"""Matches against a turn-by-turn replay, Wilson intervals, sweeps, and the match commands."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from battleship.cli import app
from battleship.errors import BattleshipError
from battleship.lab.match import Side, outcomes, play_match, sweep, wilson
from battleship.rules import preset, square
from battleship.shooters.options import Options

runner = CliRunner()


def turn_by_turn(shots_a: int, shots_b: int, a_first: bool) -> tuple[bool, int]:
    """Play the turns one by one: who sinks the other's last ship first, and after how many moves."""
    left = {"a": shots_a, "b": shots_b}
    order = ["a", "b"] if a_first else ["b", "a"]
    moves = 0
    while True:
        for player in order:
            moves += 1
            left[player] -= 1
            if left[player] == 0:
                return player == "a", moves


@given(
    st.lists(st.tuples(st.integers(17, 100), st.integers(17, 100), st.booleans()), min_size=1, max_size=50)
)
def test_outcomes_match_a_turn_by_turn_replay(games):
    a = np.array([g[0] for g in games])
    b = np.array([g[1] for g in games])
    first = np.array([g[2] for g in games])
    wins, moves = outcomes(a, b, first)
    for i, (sa, sb, f) in enumerate(games):
        assert (bool(wins[i]), int(moves[i])) == turn_by_turn(sa, sb, f)


def test_wilson_interval_known_values():
    low, high = wilson(81, 100)
    assert low == pytest.approx(0.7222, abs=1e-4) and high == pytest.approx(
        0.8749, abs=1e-4
    )  # by hand: 0.79853 +- 0.07632
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == pytest.approx(1.0)


def test_a_match_is_reproducible_and_its_statistics_hold_together():
    rules = square(7)
    a, b = Side("density", Options(), label="density"), Side("hunt-target", Options(), label="hunt-target")
    one = play_match(rules, a, b, 400, seed=3)
    two = play_match(rules, a, b, 400, seed=3, jobs=2)
    assert one.as_dict() | {"seconds": 0} == two.as_dict() | {"seconds": 0}
    assert one.a_win_rate > 0.5  # density needs fewer shots than hunt-target
    assert one.a_win_rate_ci95[0] <= one.a_win_rate <= one.a_win_rate_ci95[1]
    assert 0 < one.moves_mean_scaled <= 1
    assert one.first_mover_advantage == pytest.approx(one.first_mover_win_rate - 0.5)
    always_a = play_match(rules, a, b, 400, seed=3, first="a")
    assert always_a.a_win_rate >= one.a_win_rate  # moving first never hurts
    with pytest.raises(BattleshipError, match="first"):
        play_match(rules, a, b, 10, first="sometimes")


def test_sweep_shares_the_players_games_across_opponents():
    player = Side("density", Options(), label="density")
    opponents = [
        Side("random", Options(), label="random"),
        Side("hunt-target", Options(), label="hunt-target"),
    ]
    results = list(sweep([6, 7], player, opponents, 200, seed=1))
    assert [(m.rules, m.b) for m in results] == [
        ("square-6", "random"),
        ("square-6", "hunt-target"),
        ("square-7", "random"),
        ("square-7", "hunt-target"),
    ]
    assert results[0].a_shots_mean == results[1].a_shots_mean
    assert results[0].a_win_rate == 1.0


def test_match_and_sweep_commands_print_json():
    out = runner.invoke(app, ["match", "best", "random", "--games", "200", "--size", "8", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    for key in (
        "a_win_rate",
        "a_win_rate_ci95",
        "first_mover_advantage",
        "moves_mean_scaled",
        "moves_mode_scaled",
    ):
        assert key in data
    assert data["rules"] == "square-8" and data["a"] == "density:skew=20"
    sweep_out = runner.invoke(app, ["sweep", "--sizes", "6..7", "--games", "100", "--json"])
    assert sweep_out.exit_code == 0, sweep_out.output
    swept = json.loads(sweep_out.stdout)
    assert len(swept["matches"]) == 4 and swept["published_001"]["6"]["hunt-target"][0] == 0.807
    bad = runner.invoke(app, ["match", "density", "trial-sink", "--games", "10"])
    assert bad.exit_code == 2 and "may not touch" in bad.output
    assert runner.invoke(app, ["sweep", "--sizes", "3..20"]).exit_code == 2
    assert (
        runner.invoke(app, ["match", "density", "random", "--size", "8", "--rules", "pirates"]).exit_code == 2
    )


def test_each_side_hides_its_fleet_by_its_own_generator():
    rules = preset("standard")
    a = Side("density", Options(), "uniform", "density")
    b = Side("density", Options(), "edge:strength=6", "density [edge]")
    result = play_match(rules, a, b, 300, seed=2)
    assert result.a_shots_mean != result.b_shots_mean
