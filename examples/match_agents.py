"""Play the two-player PettingZoo environment: two of the project's shooters in a series of matches.

Run: .venv/bin/python examples/match_agents.py [--a best] [--b hunt-target] [--matches 20] [--seed 1]
The sides alternate who moves first; prints each side's wins. An agent reads only its own observation
(the action mask for a random agent, the shooter's view of the other fleet for a project shooter).
"""

from __future__ import annotations

import argparse

import numpy as np

from battleship.envs.match import AGENTS, env
from battleship.shooters import make


def shooter_agent(spec: str, match, agent: str, rng: np.random.Generator):
    """A registered shooter, reading what ``agent`` has found of the other fleet."""
    if spec == "random-agent":  # a uniformly random open cell, from the action mask alone
        return lambda observation: int(rng.choice(np.flatnonzero(observation["action_mask"])))
    shooter = make(spec)
    shooter.reset(match.unwrapped.rules, rng)
    return lambda _observation: int(shooter.next_shot(match.unwrapped.observation(agent)))


def play(specs: dict[str, str], matches: int, seed: int) -> dict[str, int]:
    """Wins per side over ``matches`` matches, fleets seeded from ``seed``, first mover alternating."""
    match = env(rules="standard")
    wins = dict.fromkeys(AGENTS, 0)
    for m in range(matches):
        match.reset(seed=seed + m, options={"first": AGENTS[m % 2]})
        agents = {
            a: shooter_agent(specs[a], match, a, np.random.default_rng([seed, m, i]))
            for i, a in enumerate(AGENTS)
        }
        for agent in match.agent_iter():
            observation, reward, termination, truncation, _info = match.last()
            if reward > 0:
                wins[agent] += 1
            match.step(None if termination or truncation else agents[agent](observation))
    match.close()
    return wins


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--a", default="best", help="player_0: a shooter spec, or random-agent")
    parser.add_argument("--b", default="random-agent", help="player_1: a shooter spec, or random-agent")
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    specs = dict(zip(AGENTS, (args.a, args.b), strict=True))
    wins = play(specs, args.matches, args.seed)
    for agent in AGENTS:
        print(f"{agent} {specs[agent]} wins {wins[agent]} of {args.matches}")


if __name__ == "__main__":
    main()
