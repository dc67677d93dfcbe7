"""The environments under answers that lie and against a cheating hider: the checkers pass, play is the referee's."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import battleship.envs
from battleship.envs import hunt
from battleship.envs.match import MatchEnv, env
from battleship.game import Outcome
from battleship.rules import Hider, Noise, Rules, Salvo, Ship

FLEET = (Ship.line("Cruiser", "C", 3), Ship.line("Destroyer", "D", 2))
NOISY = Rules(5, 5, FLEET, name="noisy-5", noise=Noise(0.3))
CHEAT = Rules(5, 5, FLEET, name="cheat-5", hider=Hider())
NOISY_SALVO = Rules(5, 5, FLEET, name="noisy-salvo-5", noise=Noise(0.3), salvo=Salvo(2, "each"))


@pytest.mark.parametrize("rules", [NOISY, CHEAT, NOISY_SALVO], ids=lambda r: r.name)
def test_gymnasiums_checker_passes_under_noise_and_the_hider(rules: Rules) -> None:
    check_env(gymnasium.make(battleship.envs.ENV_ID, rules=rules).unwrapped, skip_render_check=False)


def play_reading_order_twice(seed: int) -> tuple[list, hunt.BattleshipEnv]:
    """Each cell fired at twice, in reading order, to the end: every step's observation and reward."""
    env_ = hunt.BattleshipEnv(NOISY, seed=seed)
    obs, info = env_.reset()
    steps, terminated, k = [], False, 0
    while not terminated:
        obs, reward, terminated, truncated, info = env_.step(k // 2)
        assert not truncated and not info["repeated"] and reward == -1.0
        assert info["action_mask"].all()  # under noise every cell may be fired at again
        steps.append((obs, info["shots"]))
        k += 1
    return steps, env_


def test_under_noise_a_cell_is_fired_again_and_the_counts_are_the_answers() -> None:
    steps, env_ = play_reading_order_twice(4)
    obs, shots = steps[-1]
    seen = env_.observation
    assert shots == len(seen.shots) == len(steps) and env_._game.over
    fired = np.bincount([s.cell for s in seen.shots], minlength=NOISY.cells)
    hit = np.bincount([s.cell for s in seen.shots if s.outcome is not Outcome.MISS], minlength=NOISY.cells)
    assert (obs["times_fired"].ravel() == fired).all() and (obs["times_hit"].ravel() == hit).all()
    assert fired.max() == 2 and obs["times_fired"].sum() == len(steps)
    truth = env_._layout.occupied
    lies = sum((s.outcome is Outcome.MISS) == bool(truth >> s.cell & 1) for s in seen.shots)
    assert 0 < lies < len(seen.shots)  # some answers flipped (flip 0.3), not all
    again, _ = play_reading_order_twice(4)  # the same seed: the same layout and the same lies
    assert len(again) == len(steps) and all(
        (a[0]["board"] == b[0]["board"]).all() for a, b in zip(again, steps, strict=True)
    )


def test_under_noise_a_cell_aimed_twice_in_one_salvo_is_a_repeat_but_an_old_one_is_not() -> None:
    env_ = hunt.BattleshipEnv(NOISY_SALVO, seed=2)
    env_.reset()
    env_.step(0)
    obs, _, _, _, info = env_.step(0)
    assert info["repeated"] and obs["to_aim"] == 1 and info["action_mask"][0] == 0
    env_.step(1)  # the salvo A1, A2 fires
    obs, _, _, _, info = env_.step(0)  # A1 again, in the next salvo
    assert not info["repeated"] and obs["times_fired"][0, 0] == 1 and obs["to_aim"] == 1


def test_against_the_cheating_hider_the_hider_answers_and_a_layout_fits_every_answer() -> None:
    env_ = hunt.BattleshipEnv(CHEAT, seed=3)
    env_.reset()
    total, cell, terminated = 0.0, 0, False
    while not terminated:
        _, reward, terminated, truncated, info = env_.step(cell)
        total, cell = total + reward, cell + 1
        assert not truncated
    layout = env_._game.layout  # the one the hider shows at the end
    assert env_._layout is None and total == -info["shots"] >= -CHEAT.cells
    assert all(
        (s.outcome is Outcome.MISS) == (layout.ship_at(s.cell) is None) for s in env_.observation.shots
    )
    again = hunt.BattleshipEnv(CHEAT, seed=3)
    again.reset()
    for c in range(cell):
        again.step(c)
    assert again.observation.text() == env_.observation.text()


def test_the_match_plays_noise_and_refuses_a_cheating_hider_in_one_line() -> None:
    api_test(env(rules=NOISY, seed=3), num_cycles=60)
    seed_test(lambda: env(rules=NOISY), num_cycles=20)
    match = MatchEnv(rules=NOISY, seed=1)
    match.reset()
    match.step(0)
    match.step(0)
    match.step(0)  # player_0 fires at A1 again: a shot like any other under noise
    assert not match.infos["player_0"]["repeated"] and match.infos["player_0"]["shots"] == 2
    with pytest.raises(ValueError, match="hides no fleet"):
        MatchEnv(rules=CHEAT)
