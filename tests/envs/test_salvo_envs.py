"""The environments under salvo rules: K sub-steps a turn, the checkers pass, and play is the referee's."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

import battleship.envs
from battleship.envs import hunt
from battleship.envs.match import AGENTS, env, parallel_env
from battleship.game import Game
from battleship.layout import Layout
from battleship.rules import Answers, Rules, Salvo, Ship


@pytest.mark.parametrize("rules", ["salvo", "salvo-count", "hits-named"])
def test_gymnasiums_checker_passes_under_salvo_rules(rules: str) -> None:
    check_env(gymnasium.make(battleship.envs.ENV_ID, rules=rules).unwrapped, skip_render_check=False)


@pytest.mark.parametrize("rules", ["salvo", "salvo-count"])
def test_a_salvo_is_aimed_cell_by_cell_and_fired_on_the_kth(rules: str) -> None:
    """Every cell in reading order: the environment's game is the referee's, salvo by salvo."""
    env_ = hunt.BattleshipEnv(rules, seed=5)
    obs, info = env_.reset()
    game = Game(env_._layout)
    total, cell, terminated = 0.0, 0, False
    while not terminated:
        size = game.turn_size()
        assert obs["to_aim"] == size == 5
        for k in range(size):
            obs, reward, terminated, truncated, info = env_.step(cell + k)
            assert not truncated and reward == (-1.0 if k == size - 1 else 0.0)
            total += reward
            if k < size - 1:  # aimed, not fired: shown, masked, and one fewer to aim
                assert obs["board"].ravel()[cell + k] == hunt.AIMED and info["action_mask"][cell + k] == 0
                assert obs["to_aim"] == size - k - 1
        volley = game.fire_salvo(range(cell, cell + size), size)
        cell += size
        assert obs["hits"][game.observation.turns - 1] == volley.hits
        assert (obs["turn"].ravel()[list(volley.cells)] == game.observation.turns).all()
        if rules == "salvo-count" and 0 < volley.hits < size:
            assert (obs["board"].ravel()[list(volley.cells)] == hunt.FIRED).all()
        terminated = terminated or game.over
    assert game.over and total == -game.observation.turns and info["turns"] == game.observation.turns
    assert obs["sunk"] == 5 and obs["afloat"].sum() == 0


def test_aiming_a_cell_twice_costs_a_step_and_changes_nothing() -> None:
    env_ = hunt.BattleshipEnv("salvo", seed=1)
    env_.reset()
    env_.step(0)
    obs, reward, _, _, info = env_.step(0)
    assert info["repeated"] and reward == -1.0 and obs["to_aim"] == 4 and info["shots"] == 0


@pytest.mark.parametrize("turns", ["alternate", "simultaneous"])
@pytest.mark.parametrize("rules", ["salvo", "salvo-count", "standard"])
def test_pettingzoos_api_test_passes_under_salvo_rules(rules: str, turns: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        api_test(env(rules=rules, seed=1, turns=turns), num_cycles=300)


def test_pettingzoos_seed_test_passes_with_simultaneous_salvos() -> None:
    seed_test(lambda: env(rules="salvo-count", turns="simultaneous"), num_cycles=200)


BOATS = Rules(1, 6, (Ship.line("Boat", "A", 1), Ship.line("Dinghy", "B", 1)), salvo=Salvo("afloat"))


def race(turns: str, layouts: dict[str, str], rules: Rules = BOATS):
    """Both sides aim left to right; the sizes each was offered, the rewards paid, and the match."""
    match = env(rules=rules, turns=turns)
    match.reset(seed=0, options={"layouts": {a: Layout.from_text(t, rules) for a, t in layouts.items()}})
    offered: dict[str, list[int]] = {a: [] for a in AGENTS}
    paid = dict.fromkeys(AGENTS, 0.0)
    for agent in match.agent_iter():
        observation, reward, termination, truncation, _ = match.last()
        paid[agent] += reward
        if termination or truncation:
            match.step(None)
            continue
        cell = int(np.flatnonzero(observation["action_mask"])[0])
        if not (observation["observation"][0].ravel() == hunt.AIMED).any():
            offered[agent].append(int(observation["to_aim"]))  # the first aim of a turn: its size
        match.step(cell)
    return offered, paid, match.unwrapped


def test_losing_ships_costs_shots_in_the_match() -> None:
    """player_0 hides boats on A1 and A6, player_1 on A3 and A4 (the hand count of the lab's test)."""
    offered, paid, match = race("alternate", {"player_0": "A....B", "player_1": "..AB.."})
    assert offered == {"player_0": [2, 1, 1], "player_1": [2, 1]}
    assert paid == {"player_0": 1.0, "player_1": -1.0} and match.winner() == "player_0"
    offered, paid, match = race("simultaneous", {"player_0": "A....B", "player_1": "..AB.."})
    assert offered == {"player_0": [2, 1, 1], "player_1": [2, 2, 1]} and match.winner() == "player_0"


def test_both_fleets_sunk_at_once_is_a_tie_under_simultaneous_turns() -> None:
    count = Rules(1, 4, BOATS.fleet, salvo=Salvo("afloat", Answers.COUNT))
    _, paid, match = race("simultaneous", {"player_0": "AB..", "player_1": "AB.."}, count)
    assert match.tie() and match.winner() is None and paid == dict.fromkeys(AGENTS, 0.0)
    _, paid, match = race("alternate", {"player_0": "AB..", "player_1": "AB.."}, count)
    assert not match.tie() and match.winner() == "player_0" and paid["player_0"] == 1.0


def test_bad_turns_are_refused_clearly() -> None:
    with pytest.raises(ValueError, match=r"turns must be one of alternate \| simultaneous"):
        env(rules="salvo", turns="both")
    match = env(rules="salvo", turns="simultaneous")
    with pytest.raises(ValueError, match="nobody moves first"):
        match.reset(options={"first": "player_1"})


@pytest.mark.parametrize("rules", ["salvo", "salvo-count", "standard"])
def test_pettingzoos_parallel_api_test_passes(rules: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        parallel_api_test(parallel_env(rules=rules, seed=1), num_cycles=300)


def test_pettingzoos_parallel_seed_test_passes() -> None:
    parallel_seed_test(lambda: parallel_env(rules="salvo-count"), num_cycles=200)


def parallel_race(layouts: dict[str, str], rules: Rules = BOATS):
    """Both sides aim left to right, at once; the sizes each was offered, and the last step's rewards."""
    match = parallel_env(rules=rules)
    obs, _ = match.reset(
        seed=0, options={"layouts": {a: Layout.from_text(t, rules) for a, t in layouts.items()}}
    )
    offered: dict[str, list[int]] = {a: [] for a in AGENTS}
    rewards: dict[str, float] = {}
    while match.agents:
        actions = {}
        for agent in match.agents:
            mask = obs[agent]["action_mask"]
            if mask.any() and not (obs[agent]["observation"][0].ravel() == hunt.AIMED).any():
                offered[agent].append(int(obs[agent]["to_aim"]))
            actions[agent] = int(np.flatnonzero(mask)[0]) if mask.any() else 0  # waiting: ignored
        obs, rewards, *_ = match.step(actions)
    return offered, rewards, match


def test_the_parallel_match_is_the_simultaneous_race() -> None:
    offered, rewards, match = parallel_race({"player_0": "A....B", "player_1": "..AB.."})
    assert offered == {"player_0": [2, 1, 1], "player_1": [2, 2, 1]}
    assert rewards == {"player_0": 1.0, "player_1": -1.0} and match.winner() == "player_0"
    count = Rules(1, 4, BOATS.fleet, salvo=Salvo("afloat", Answers.COUNT))
    _, rewards, match = parallel_race({"player_0": "AB..", "player_1": "AB.."}, count)
    assert match.tie() and rewards == dict.fromkeys(AGENTS, 0.0)
