"""The Gymnasium environment: passes Gymnasium's own checker, is reproducible, and plays by the rules."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

import battleship.envs
from battleship import generators
from battleship.envs import hunt
from battleship.game import Game
from battleship.rules import preset

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("rules", ["standard", "pirates", "datagenetics"])
def test_gymnasiums_checker_passes(rules):
    check_env(gymnasium.make(battleship.envs.ENV_ID, rules=rules).unwrapped, skip_render_check=False)


def test_the_same_seed_gives_the_same_layouts_and_the_game_is_the_referees():
    env = gymnasium.make(battleship.envs.ENV_ID, rules="standard", generator="uniform", seed=11)
    env.reset()
    other = gymnasium.make(battleship.envs.ENV_ID, seed=11)
    other.reset()
    layout = env.unwrapped._layout
    assert other.unwrapped._layout == layout
    game = Game(layout)
    total, terminated, info = 0.0, False, {}
    for cell in range(100):  # every cell in order: the referee's game and the environment's agree
        obs, reward, terminated, truncated, info = env.step(cell)
        game.fire(cell)
        total += reward
        assert not truncated
        if terminated:
            break
    assert game.over and terminated and total == -len(game.observation.shots)
    assert info["action_mask"].sum() == 100 - len(game.observation.shots)
    assert obs["afloat"].sum() == 0 and obs["sunk"] == 5


def test_observations_show_hits_misses_and_sunk_ships_and_repeats_change_nothing():
    rules = preset("standard")
    env = hunt.BattleshipEnv(rules, seed=3)
    obs, info = env.reset()
    layout = env._layout
    ship_cells = [c for c in range(100) if any(m >> c & 1 for m in layout.masks)]
    water = next(c for c in range(100) if c not in ship_cells)
    obs, *_ = env.step(water)
    assert obs["board"].ravel()[water] == hunt.MISS
    obs, reward, _, _, info = env.step(water)
    assert info["repeated"] and reward == -1.0 and info["shots"] == 1
    patrol = [c for c in range(100) if layout.masks[4] >> c & 1]  # the two-cell patrol boat
    obs, *_ = env.step(patrol[0])
    assert obs["board"].ravel()[patrol[0]] == hunt.HIT
    obs, *_ = env.step(patrol[1])
    assert obs["board"].ravel()[patrol[1]] == hunt.SUNK and obs["sunk"] == 1
    assert obs["afloat"].tolist() == [1, 1, 1, 1, 0]
    assert env.render() is None and hunt.BattleshipEnv(rules, render_mode="ansi").render() is None


def test_bad_arguments_are_refused_clearly():
    with pytest.raises(Exception, match="no layout generator named"):
        hunt.BattleshipEnv("standard", generator="nope")
    env = hunt.BattleshipEnv("standard", seed=1)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    env.reset()
    with pytest.raises(ValueError, match="not a cell"):
        env.step(100)


def test_the_example_plays_the_best_shooter_and_a_random_agent():
    run = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "gym_agents.py"), "--episodes", "3", "--seed", "5"],
        capture_output=True, text=True, timeout=600, cwd=ROOT,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    means = {line.split()[0]: float(line.split()[-1]) for line in run.stdout.splitlines()}
    assert set(means) == {"best", "random"} and means["best"] < means["random"]
    assert all(17 <= m <= 100 for m in means.values())
    assert generators.generate(preset("standard"), "uniform", 5, 1)  # the layouts it met exist
