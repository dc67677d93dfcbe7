"""A two-player match as a PettingZoo AEC environment: each side hides a fleet and fires at the other's::

    import numpy as np

    from battleship.envs.match import env

    rng = np.random.default_rng(1)
    match = env(rules="standard", generator="uniform", seed=7)
    match.reset()
    for agent in match.agent_iter():
        observation, reward, termination, truncation, info = match.last()
        if termination or truncation:
            action = None
        else:
            action = rng.choice(np.flatnonzero(observation["action_mask"]))  # a cell, row * cols + column
        match.step(action)

- **Agents** ``player_0`` and ``player_1`` take turns, one shot a turn; ``player_0`` moves first unless
  ``reset(options={"first": "player_1"})`` says otherwise (a fair series alternates, as the arena's
  matches do).
- **Observations**, per agent, in the shape of PettingZoo's classic games: ``observation``, two planes
  of ``rows x cols`` (codes as in ``battleship/Battleship-v0``: 0 unknown, 1 miss, 2 hit, 3 sunk): the
  opponent's board as this agent has found it, then this agent's own board as the opponent has found it
  (so an agent can tell whether it is ahead); ``action_mask``, 1 for each cell not yet fired at, all 0
  when it is not this agent's turn; ``afloat`` and ``sunk``, the opponent's ships as announced (as in
  Battleship-v0).
- **Reward** +1 for sinking the other fleet first, -1 to the other side, 0 before; both are
  **terminated** then. A shot at a cell already fired at spends the turn and changes nothing
  (``info["repeated"]``); after ``2 * rows * cols`` turns each both are **truncated**.
- **Fleets** come from the named generator, seeded from ``reset(seed=...)`` or, at the first reset, from
  the ``seed`` keyword; ``reset(options={"layouts": {agent: layout}})`` hides a chosen
  :class:`~battleship.layout.Layout` (or its text) instead, for layout research.

The two boards share no information, so this is two Battleship-v0 games interleaved with a winner; what
the AEC form adds is the race: a side that is behind may rather gamble than play for its mean.

**Salvo rules** are played as in Battleship-v0, in sub-steps: the agent to move aims one cell a step
(it stays the agent to move) and its K-th aimed cell fires the salvo, K being what its **own** fleet
gives it (``shots = "afloat"``: one per own ship still afloat, so losing ships costs shots;
``"afloat-cells"``: one per unhit square). The observation adds ``to_aim`` and, of the other
fleet, ``turn``, ``hits`` (and ``ship_hits`` under ``ships`` answers), and the planes use codes 4
(fired, its own answer unknown) and 5 (aimed). A repeated or already aimed cell spends the step and
changes nothing. ``turns="simultaneous"`` (BattleSalvo's rule, under any rules) has both sides aim
in turn, ``player_0`` first, neither seeing the other's aim, and both salvos fire once the second
side has aimed: both fleets sunk in the same turn is a tie, 0 to each (``tie()`` says so).
:func:`parallel_env` offers the same simultaneous match as a PettingZoo ``ParallelEnv``: each step
both sides aim a cell, and both salvos fire once both are aimed (a side done aiming before the other,
its salvo being smaller, waits with an empty action mask, and its actions are ignored).

**Answers that lie** (``[noise]`` rules) are played as in Battleship-v0: each side's answers flip on the
coins of its own referee (seeded from the match's seed), a cell may be fired at again (every cell stays
in the action mask on a side's turn), the observation adds ``times_fired`` and ``times_hit`` of the
other board, and the match is truncated after ``NOISY_SHOTS_PER_CELL * rows * cols`` turns each. A
**cheating hider** (``[hider]`` rules) is refused when the match is made: each side hides a fleet for the
other, and a cheating hider hides none.
"""

from __future__ import annotations

from typing import Any, ClassVar, TypedDict

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import AgentSelector, wrappers

from battleship import generators
from battleship import rules as rules_mod
from battleship.envs.hunt import (
    AIMED,
    SUNK,
    UNKNOWN,
    aimed,
    is_repeat,
    open_cells,
    salvo_view,
    step_limit,
    view,
    view_spaces,
)
from battleship.game import Game, Observation
from battleship.layout import Layout
from battleship.rules import Rules

AGENTS = ("player_0", "player_1")
TURNS = ("alternate", "simultaneous")


def env(**kwargs: Any) -> AECEnv:
    """The match wrapped as PettingZoo's own environments are (order of calls enforced, actions checked)."""
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(MatchEnv(**kwargs)))


class AgentView(TypedDict):
    """What an agent observes (see :meth:`MatchEnv.observe`)."""

    observation: np.ndarray  # (2, rows, cols) int8: its view of the other fleet, the other's of its own
    action_mask: np.ndarray  # (cells,) int8: 1 for each cell not yet fired at, all 0 off its turn
    afloat: np.ndarray  # (ships,) int8: the other side's ships still afloat
    sunk: int  # the other side's ships sunk


class MatchEnv(AECEnv):
    """Two sides under ``rules`` (a preset name, a TOML file, or :class:`~battleship.rules.Rules`), each hiding a fleet."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi"],
        "name": "battleship_match_v0",
        "is_parallelizable": False,
        "render_fps": 4,
    }

    def __init__(
        self,
        rules: str | Rules = "standard",
        generator: str = "uniform",
        seed: int | None = None,
        render_mode: str | None = None,
        turns: str = "alternate",
    ):
        super().__init__()
        if turns not in TURNS:
            raise ValueError(f"turns must be one of {' | '.join(TURNS)}, not {turns!r}")
        self.turns = turns
        self.rules = rules if isinstance(rules, Rules) else rules_mod.load(rules)
        if self.rules.hider is not None:
            raise ValueError(
                f"{self.rules.name} has a cheating hider ([hider]), who hides no fleet: in a match each side "
                "hides one for the other; play it alone in battleship/Battleship-v0"
            )
        generators.plan(self.rules, generator)  # an unknown generator, or one these rules refuse, fails here
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.generator, self.render_mode, self._first_seed = generator, render_mode, seed
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        one = view_spaces(self.rules)
        r = self.rules
        high = SUNK if r.salvo is None else AIMED
        space = spaces.Dict(
            {
                "observation": spaces.Box(UNKNOWN, high, shape=(2, r.rows, r.cols), dtype=np.int8),
                "action_mask": spaces.Box(0, 1, shape=(r.cells,), dtype=np.int8),
                **{k: v for k, v in one.items() if k != "board"},
            }
        )
        self.observation_spaces = dict.fromkeys(AGENTS, space)
        self.action_spaces = dict.fromkeys(AGENTS, spaces.Discrete(self.rules.cells))
        self._games: dict[str, Game] = {}  # each agent's game: the other side's fleet under its fire
        self._fleet: dict[str, Layout] = {}  # each agent's own fleet
        self._aimed: dict[str, list[int]] = {a: [] for a in AGENTS}  # the salvo each agent is building
        self._np_random: np.random.Generator | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """New fleets for both sides; the first mover to play."""
        options = options or {}
        if seed is not None or self._np_random is None:
            self._np_random, _ = seeding.np_random(self._first_seed if seed is None else seed)
        fleets = self._fleets(options.get("layouts") or {})
        # player_0 fires at player_1's fleet and the other way round; under noise each referee has its coins
        coins = self._coins()
        self._games = {
            AGENTS[0]: Game(fleets[AGENTS[1]], seed=coins[0]),
            AGENTS[1]: Game(fleets[AGENTS[0]], seed=coins[1]),
        }
        self._fleet = fleets
        self._aimed = {a: [] for a in AGENTS}
        first = options.get("first", AGENTS[0])
        if first not in AGENTS:
            raise ValueError(f"first must be one of {AGENTS}, not {first!r}")
        if first != AGENTS[0] and self.turns == "simultaneous":
            raise ValueError(
                "with simultaneous turns nobody moves first: player_0 aims first, both fire at once"
            )
        self.agents = [first, *(a for a in AGENTS if a != first)]
        self._selector = AgentSelector(self.agents)
        self.agent_selection = self._selector.reset()
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {"repeated": False, "shots": 0} for a in self.agents}
        self._turns = 0

    def _fleets(self, chosen: dict[str, Layout | str]) -> dict[str, Layout]:
        """Each side's fleet: the chosen layout (or its text), else the generator's, seeded in order."""
        unknown = set(chosen) - set(AGENTS)
        if unknown:
            raise ValueError(f"layouts are for {AGENTS}, not {sorted(unknown)}")
        rng = self._np_random
        if rng is None:
            raise RuntimeError("call reset() first: it seeds the fleets")
        fleets = {}
        for agent in AGENTS:
            seed = int(rng.integers(2**63 - 1))  # drawn even when unused: same seeds either way
            given = chosen.get(agent)
            if isinstance(given, str):
                given = Layout.from_text(given, self.rules)
            if given is not None and given.rules != self.rules:
                raise ValueError(f"{agent}'s layout is for other rules than this match's")
            fleets[agent] = given or generators.generate(self.rules, self.generator, seed, 1)[0]
        return fleets

    def _coins(self) -> tuple[int | None, int | None]:
        """The seeds of the two referees' coins under noise, drawn after the fleets (None without noise)."""
        if self.rules.noise is None or self._np_random is None:
            return None, None
        rng = self._np_random
        return int(rng.integers(2**63 - 1)), int(rng.integers(2**63 - 1))

    def observe(self, agent: str) -> AgentView:
        return self._view(agent, agent == self.agent_selection and not self._done(agent))

    def _view(self, agent: str, to_move: bool) -> AgentView:
        """What ``agent`` observes; its action mask is open only when ``to_move``."""
        seen = self.observation(agent)
        if self.rules.salvo is None:
            found, incoming = view(seen), view(self.observation(self._other(agent)))
        else:
            found = salvo_view(seen, self._size(agent) - len(self._aimed[agent]) if to_move else 0)
            incoming = salvo_view(self._games[self._other(agent)].observation, 0)  # the other's aim unseen
        mask = open_cells(seen) if to_move else np.zeros(self.rules.cells, dtype=np.int8)
        board = found.pop("board")  # type: ignore[misc]
        return {  # type: ignore[typeddict-unknown-key]
            "observation": np.stack([board, incoming["board"]]),
            "action_mask": mask,
            **found,
        }

    def _size(self, agent: str) -> int:
        """The shots ``agent`` fires this turn: what its own fleet, hidden in the other's game, gives it."""
        own, fleet = self._games[self._other(agent)], self._fleet[agent]
        ships = sum(own.hit & m != m for m in fleet.masks)
        return self._games[agent].turn_size(ships, (fleet.occupied & ~own.hit).bit_count())

    def step(self, action: int | None) -> None:
        """The agent to move fires at ``action``; a finished agent must pass None."""
        agent = self.agent_selection
        if self._done(agent):
            self._was_dead_step(action)
            return
        game = self._games[agent]
        if action is None:
            raise ValueError(f"{agent} is to move: give a cell, not None")
        cell = int(action)
        if self.rules.salvo is not None or self.turns == "simultaneous":
            self._aim(agent, cell)
            return
        repeated = is_repeat(game.observation, cell)
        if not repeated:
            game.fire(cell)
        self._turns += 1
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.infos[agent] = {"repeated": repeated, "shots": len(game.observation.shots)}
        if game.over:
            self.rewards = {a: (1.0 if a == agent else -1.0) for a in self.agents}
            self.terminations = dict.fromkeys(self.agents, True)
        elif self._turns >= 2 * step_limit(self.rules):
            self.truncations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()
        self.agent_selection = self._selector.next()

    def _aim(self, agent: str, cell: int) -> None:
        """A sub-step: ``agent`` aims ``cell``; its K-th aimed cell ends its turn (and fires, alternating;
        with simultaneous turns both salvos fire once the second side has aimed)."""
        game, aimed_cells = self._games[agent], self._aimed[agent]
        repeated = is_repeat(aimed(game.observation, aimed_cells), cell)
        if not repeated:
            aimed_cells.append(cell)
        self._turns += 1
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        done = len(aimed_cells) == self._size(agent)
        if done and self.turns == "alternate":
            self._fire(agent)
        elif done and agent == self.agents[-1]:  # simultaneous: the second side has aimed
            for side in AGENTS:
                self._fire(side)
        self.infos[agent] = {
            "repeated": repeated,
            "shots": game.observation.fired,
            "turns": game.observation.turns,
        }
        sunk = [a for a in AGENTS if self._games[a].over]  # the sides that sank the other's fleet
        if sunk:
            self.rewards = (
                dict.fromkeys(self.agents, 0.0)
                if len(sunk) == 2
                else {a: (1.0 if a == sunk[0] else -1.0) for a in self.agents}
            )
            self.terminations = dict.fromkeys(self.agents, True)
        elif self._turns >= 2 * step_limit(self.rules):
            self.truncations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()
        if done or sunk:
            self.agent_selection = self._selector.next()

    def _fire(self, agent: str) -> None:
        """Fire the salvo ``agent`` has aimed (its size fixed when the turn began)."""
        cells = self._aimed[agent]
        self._games[agent].fire_salvo(cells, len(cells))
        cells.clear()

    def tie(self) -> bool:
        """True when both fleets sank in the same turn (simultaneous turns only)."""
        return bool(self._games) and all(game.over for game in self._games.values())

    def render(self) -> str | None:
        """Both boards as each side has found the other's, in the board-state text (``ansi``)."""
        if self.render_mode != "ansi" or not self._games:
            return None
        return "\n\n".join(f"{a} fires at:\n{self.observation(a).text(multiline=True)}" for a in AGENTS)

    def observation(self, agent: str) -> Observation:
        """What ``agent`` has found of the other fleet, for the project's shooters (which read nothing else);
        under salvo rules with the cells it has aimed this turn pending (:meth:`~battleship.game.Observation.aiming`)."""
        if not self._games:
            raise RuntimeError("call reset() first")
        return aimed(self._games[agent].observation, self._aimed[agent])

    def winner(self) -> str | None:
        """The side that sank the other's fleet, or None while neither has (and after a tie)."""
        if self.tie():
            return None
        return next((a for a in AGENTS if self._games and self._games[a].over), None)

    def _done(self, agent: str) -> bool:
        return self.terminations.get(agent, False) or self.truncations.get(agent, False)

    @staticmethod
    def _other(agent: str) -> str:
        return AGENTS[1 - AGENTS.index(agent)]


def parallel_env(**kwargs: Any) -> SimultaneousMatch:
    """The simultaneous match as a PettingZoo ``ParallelEnv`` (the module's docstring)."""
    return SimultaneousMatch(**kwargs)


class SimultaneousMatch(ParallelEnv):
    """BattleSalvo's simultaneous turns, every step both sides aiming a cell (see the module's docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi"],
        "name": "battleship_simultaneous_v0",
        "render_fps": 4,
    }

    def __init__(
        self,
        rules: str | Rules = "salvo",
        generator: str = "uniform",
        seed: int | None = None,
        render_mode: str | None = None,
    ):
        self._match = MatchEnv(rules, generator, seed, render_mode, turns="simultaneous")
        self.rules, self.render_mode = self._match.rules, render_mode
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        self.observation_spaces = self._match.observation_spaces
        self.action_spaces = self._match.action_spaces
        self._steps = 0

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, AgentView], dict[str, dict]]:
        """New fleets for both sides (``options`` as the AEC match's: ``layouts``)."""
        self._match.reset(seed, options)
        self.agents, self._steps = list(AGENTS), 0
        return {a: self._observe(a) for a in self.agents}, {a: {} for a in self.agents}

    def step(self, actions: dict[str, int]) -> tuple[dict, dict, dict, dict, dict]:
        """Each side still aiming aims its action's cell; once both have aimed, both salvos fire."""
        match = self._match
        infos: dict[str, dict[str, Any]] = {}
        for agent in self.agents:
            aiming = match._aimed[agent]
            repeated = False
            if len(aiming) < match._size(agent):
                cell = int(actions[agent])
                repeated = is_repeat(aimed(match._games[agent].observation, aiming), cell)
                if not repeated:
                    aiming.append(cell)
            infos[agent] = {"repeated": repeated}
        if all(len(match._aimed[a]) == match._size(a) for a in AGENTS):
            for agent in AGENTS:
                match._fire(agent)
        self._steps += 1
        sunk = [a for a in AGENTS if match._games[a].over]
        rewards = dict.fromkeys(self.agents, 0.0)
        if len(sunk) == 1:
            rewards = {a: (1.0 if a == sunk[0] else -1.0) for a in self.agents}
        over = bool(sunk)
        cut = not over and self._steps >= step_limit(self.rules)
        observations = {a: self._observe(a) for a in self.agents}
        for agent in self.agents:
            seen = match._games[agent].observation
            infos[agent] |= {"shots": seen.fired, "turns": seen.turns}
        terminations, truncations = dict.fromkeys(self.agents, over), dict.fromkeys(self.agents, cut)
        if over or cut:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def _observe(self, agent: str) -> AgentView:
        match = self._match
        return match._view(agent, len(match._aimed[agent]) < match._size(agent) and not self.tie_or_won())

    def tie_or_won(self) -> bool:
        """True once a fleet is sunk."""
        return any(game.over for game in self._match._games.values())

    def tie(self) -> bool:
        """True when both fleets sank in the same turn."""
        return self._match.tie()

    def winner(self) -> str | None:
        """The side that sank the other's fleet alone, or None (no one yet, or a tie)."""
        return self._match.winner()

    def render(self) -> str | None:
        return self._match.render()

    def observation(self, agent: str) -> Observation:
        """What ``agent`` has found of the other fleet, with its aim pending."""
        return self._match.observation(agent)


raw_env = MatchEnv
