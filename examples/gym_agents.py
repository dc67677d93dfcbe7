"""Play the Gymnasium environment with the project's best shooter and with a random agent.

Run: .venv/bin/python examples/gym_agents.py [--episodes 20] [--seed 1]
Both agents meet the same layouts (the environment is reset with the same seeds); prints each one's
mean shots a game. The random agent picks among the cells the action mask leaves open.
"""

from __future__ import annotations

import argparse

import gymnasium
import numpy as np

import battleship.envs  # noqa: F401 - registers battleship/Battleship-v0
from battleship.shooters import make


def best_agent(env: gymnasium.Env, rng: np.random.Generator):
    """The ``best`` shooter, reading the observation the environment keeps for the project's shooters."""
    shooter = make("best")
    shooter.reset(env.unwrapped.rules, rng)
    return lambda _obs, _info: int(shooter.next_shot(env.unwrapped.observation))


def random_agent(_env: gymnasium.Env, rng: np.random.Generator):
    """A uniformly random cell among those not fired at."""
    return lambda _obs, info: int(rng.choice(np.flatnonzero(info["action_mask"])))


def play(agent_maker, episodes: int, seed: int) -> list[int]:
    """Shots a game over ``episodes`` games, layouts seeded from ``seed``."""
    env = gymnasium.make("battleship/Battleship-v0", rules="standard")
    lengths = []
    for episode in range(episodes):
        obs, info = env.reset(seed=seed + episode)
        agent = agent_maker(env, np.random.default_rng(seed + episode))
        done, shots = False, 0
        while not done:
            obs, reward, terminated, truncated, info = env.step(agent(obs, info))
            shots -= int(reward)
            done = terminated or truncated
        lengths.append(shots)
    env.close()
    return lengths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for name, maker in (("best", best_agent), ("random", random_agent)):
        lengths = play(maker, args.episodes, args.seed)
        print(f"{name:7s} episodes {len(lengths)} mean_shots {np.mean(lengths):.2f}")


if __name__ == "__main__":
    main()
