"""A Gymnasium environment: one player hunts a hidden fleet, a shot a step.

    import gymnasium
    import battleship.envs  # registers battleship/Battleship-v0

    env = gymnasium.make("battleship/Battleship-v0", rules="standard", generator="uniform", seed=7)
    observation, info = env.reset()
    observation, reward, terminated, truncated, info = env.step(44)

- **Actions**: a cell index, ``row * cols + column`` (``Discrete(rows * cols)``).
- **Observations**: ``board``, the board as the shooter sees it (0 unknown, 1 miss, 2 hit, 3 a cell
  known to belong to a sunk ship: all its cells under ``revealed`` rules, the sinking cell under
  ``named`` and ``sunk``); ``afloat``, per ship of the fleet, 1 until it is announced sunk by name
  (under rules that never name sunk ships every entry stays 1); ``sunk``, how many sinkings were
  announced (0 under rules that announce none).
- ``info["action_mask"]``: 1 for each cell not yet fired at. A shot at a cell already fired at costs
  its -1 and changes nothing (``info["repeated"]``): the referee of a real game would refuse it.
- **Reward** -1 a shot, so the return is minus the game's length; **terminated** when the whole fleet
  is sunk; **truncated** after ``2 * rows * cols`` steps (only an agent that repeats shots gets there).
- Layouts come from the named generator (``battleship generators``), seeded from ``reset(seed=...)``
  or, at the first reset, from the ``seed`` keyword: the same seed gives the same layouts.
"""

from __future__ import annotations

from typing import Any, ClassVar, TypedDict

import gymnasium
import numpy as np
from gymnasium import spaces

from battleship import generators
from battleship import rules as rules_mod
from battleship.cells import iter_cells
from battleship.game import Game, Observation, Outcome
from battleship.rules import Rules

UNKNOWN, MISS, HIT, SUNK = 0, 1, 2, 3


class View(TypedDict):
    """What a shooter sees, as arrays (see :func:`view`)."""

    board: np.ndarray  # (rows, cols) int8: UNKNOWN, MISS, HIT or SUNK
    afloat: np.ndarray  # (ships,) int8: 1 for a ship still afloat
    sunk: int  # ships sunk


class BattleshipEnv(gymnasium.Env):
    """Hunt one hidden fleet under ``rules`` (a preset name, a TOML file, or :class:`Rules`)."""

    # gymnasium declares metadata an instance attribute; it is the class's, the same for every env
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "render_fps": 4}  # type: ignore[misc]

    def __init__(
        self,
        rules: str | Rules = "standard",
        generator: str = "uniform",
        seed: int | None = None,
        render_mode: str | None = None,
    ):
        self.rules = rules if isinstance(rules, Rules) else rules_mod.load(rules)
        generators.plan(self.rules, generator)  # an unknown generator, or one these rules refuse, fails here
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.generator, self.render_mode, self._first_seed = generator, render_mode, seed
        self.action_space = spaces.Discrete(self.rules.cells)
        self.observation_space = spaces.Dict(view_spaces(self.rules))
        self._game: Game | None = None
        self._steps = 0

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[View, dict[str, Any]]:
        """A new hidden layout; the empty board."""
        if seed is None and self._game is None:
            seed = self._first_seed
        super().reset(seed=seed)
        layout_seed = int(self.np_random.integers(2**63 - 1))
        self._layout = generators.generate(self.rules, self.generator, layout_seed, 1)[0]
        self._game = Game(self._layout)
        self._steps = 0
        return self._observe(), self._info(repeated=False)

    def step(self, action: int) -> tuple[View, float, bool, bool, dict[str, Any]]:
        """Fire at cell ``action``."""
        if self._game is None:
            raise RuntimeError("call reset() before step()")
        cell = int(action)
        if not self.action_space.contains(cell):
            raise ValueError(
                f"action {action!r} is not a cell of the {self.rules.rows}x{self.rules.cols} board"
            )
        if self._game.over:
            raise RuntimeError("the fleet is sunk: call reset() for a new game")
        repeated = self._game.observation.is_shot(cell)
        if not repeated:
            self._game.fire(cell)
        self._steps += 1
        truncated = not self._game.over and self._steps >= 2 * self.rules.cells
        return self._observe(), -1.0, self._game.over, truncated, self._info(repeated)

    def render(self) -> str | None:
        """The board as the shooter sees it, in the board-state text (``ansi``)."""
        if self.render_mode != "ansi" or self._game is None:
            return None
        return self._game.observation.text(multiline=True)

    @property
    def observation(self) -> Observation:
        """The shooter's observation, for the project's shooters (which read nothing else)."""
        if self._game is None:
            raise RuntimeError("call reset() first")
        return self._game.observation

    def _observe(self) -> View:
        return view(self.observation)

    def _info(self, repeated: bool) -> dict[str, Any]:
        mask = open_cells(self.observation)
        return {"action_mask": mask, "repeated": repeated, "shots": len(self.observation.shots)}


def view_spaces(rules: Rules) -> dict[str, spaces.Space]:
    """The spaces of :func:`view` under ``rules``."""
    ships = len(rules.fleet)
    return {
        "board": spaces.Box(UNKNOWN, SUNK, shape=(rules.rows, rules.cols), dtype=np.int8),
        "afloat": spaces.MultiBinary(ships),
        "sunk": spaces.Discrete(ships + 1),
    }


def view(seen: Observation) -> View:
    """A shooter's observation as arrays: ``board``, ``afloat`` and ``sunk`` (the module's docstring)."""
    rules = seen.rules
    board = np.zeros(rules.cells, dtype=np.int8)
    for shot in seen.shots:
        board[shot.cell] = MISS if shot.outcome is Outcome.MISS else HIT
        if shot.outcome is Outcome.SUNK:
            board[shot.cell] = SUNK
            board[list(iter_cells(shot.cells))] = SUNK
    afloat = np.ones(len(rules.fleet), dtype=np.int8)
    afloat[list(seen.sunk_ships)] = 0
    return {"board": board.reshape(rules.rows, rules.cols), "afloat": afloat, "sunk": len(seen.sinks)}


def open_cells(seen: Observation) -> np.ndarray:
    """1 for each cell not yet fired at: the action mask."""
    mask = np.zeros(seen.rules.cells, dtype=np.int8)
    mask[list(iter_cells(seen.unknown_mask))] = 1
    return mask
