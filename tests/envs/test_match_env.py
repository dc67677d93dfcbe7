"""The two-player PettingZoo environment: PettingZoo's own tests pass, and the match is the referee's race."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from pettingzoo.test import api_test, seed_test

from battleship import generators
from battleship.envs.match import AGENTS, MatchEnv, env
from battleship.game import Game
from battleship.rules import preset

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("rules", ["standard", "pirates", "datagenetics"])
def test_pettingzoos_api_test_passes(rules):
    with (
        warnings.catch_warnings()
    ):  # its advice for image-like observations; ours is a dict, as classic games'
        warnings.simplefilter("ignore", UserWarning)
        api_test(env(rules=rules, seed=1), num_cycles=300)


def test_pettingzoos_seed_test_passes():
    seed_test(lambda: env(rules="standard"), num_cycles=200)


def sweep(match, order: dict[str, list[int]]) -> dict[str, float]:
    """Play each side's cells in the given order to the end; the rewards each side was paid."""
    paid = dict.fromkeys(AGENTS, 0.0)
    turns = dict.fromkeys(AGENTS, 0)
    for agent in match.agent_iter():
        observation, reward, termination, truncation, _ = match.last()
        paid[agent] += reward
        if termination or truncation:
            match.step(None)
            continue
        assert observation["action_mask"][order[agent][turns[agent]]] == 1
        match.step(order[agent][turns[agent]])
        turns[agent] += 1
    return paid


@pytest.mark.parametrize("first", AGENTS)
def test_the_side_whose_sweep_ends_first_wins_and_is_paid_plus_one(first):
    rules = preset("standard")
    fleets = generators.generate(rules, "uniform", 9, 2)
    forward, backward = list(range(100)), list(range(99, -1, -1))
    needed = {  # shots each sweep takes on the other side's fleet, by the referee
        "player_0": max(c for m in fleets[1].masks for c in range(100) if m >> c & 1) + 1,
        "player_1": 100 - min(c for m in fleets[0].masks for c in range(100) if m >> c & 1),
    }
    match = env(rules="standard")
    match.reset(
        seed=1, options={"layouts": {"player_0": fleets[0], "player_1": fleets[1].text()}, "first": first}
    )
    paid = sweep(match, {"player_0": forward, "player_1": backward})
    second = AGENTS[1 - AGENTS.index(first)]
    winner = first if needed[first] <= needed[second] else second
    assert match.unwrapped.winner() == winner
    assert paid == {winner: 1.0, AGENTS[1 - AGENTS.index(winner)]: -1.0}
    game = Game(fleets[1])
    for cell in forward[: len(match.unwrapped.observation("player_0").shots)]:
        game.fire(cell)
    assert game.observation == match.unwrapped.observation("player_0")  # the referee's answers, shot for shot


def test_observations_show_both_boards_and_only_the_mover_has_a_mask():
    fleets = generators.generate(preset("standard"), "uniform", 4, 2)
    match = MatchEnv("standard")
    match.reset(seed=4, options={"layouts": {"player_0": fleets[0], "player_1": fleets[1]}})
    ship_cell = next(c for c in range(100) if fleets[1].ship_at(c) is not None)
    match.step(ship_cell)  # player_0 hits player_1's ship
    seen0, seen1 = match.observe("player_0"), match.observe("player_1")
    assert seen0["observation"][0].ravel()[ship_cell] == 2  # what player_0 has found
    assert seen1["observation"][1].ravel()[ship_cell] == 2  # what player_1 knows was found of its fleet
    assert seen0["action_mask"].sum() == 0 and seen1["action_mask"].sum() == 100
    match.step(ship_cell)  # player_1 fires at that cell of the other board: fresh there
    match.step(ship_cell)  # player_0 again: a repeat spends the turn and changes nothing
    assert match.infos["player_0"] == {"repeated": True, "shots": 1}
    assert match.observe("player_1")["action_mask"].sum() == 99
    assert match.winner() is None and match.rewards == {"player_0": 0.0, "player_1": 0.0}


def test_bad_options_are_refused_clearly():
    match = MatchEnv("standard", seed=1)
    with pytest.raises(ValueError, match="first must be one of"):
        match.reset(options={"first": "player_2"})
    with pytest.raises(ValueError, match="layouts are for"):
        match.reset(options={"layouts": {"someone": "x"}})
    with pytest.raises(ValueError, match="other rules"):
        match.reset(
            options={"layouts": {"player_0": generators.generate(preset("pirates"), "uniform", 1, 1)[0]}}
        )
    with pytest.raises(Exception, match="no layout generator named"):
        MatchEnv("standard", generator="nope")


def test_the_example_plays_matches_between_shooters():
    run = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "match_agents.py"), "--matches", "6", "--seed", "3"],
        capture_output=True, text=True, timeout=600, cwd=ROOT,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    wins = [int(line.split()[3]) for line in run.stdout.splitlines()]
    assert sum(wins) == 6 and wins[0] >= 5, run.stdout  # best against a random agent
