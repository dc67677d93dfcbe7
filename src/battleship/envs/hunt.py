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

**Salvo rules** (``rules="salvo"``, ``"salvo-count"``, or any rules with a ``[salvo]`` table) are
played in K sub-steps: each step aims one cell, and the K-th fires the salvo (K is the rules' turn
size, for a whole fleet in this one-sided game, never more than the cells left). The reward is 0 for
aiming and -1 for the step that fires, so the return is minus the game's length in turns. Why not
one action for the whole set (``MultiBinary`` with exactly K ones)? No RL library samples or masks
"exactly K of these cells", K changes from turn to turn (a fleet losing ships, the cells running
out), and a per-cell ``Discrete`` action with its mask is what DQN, PPO and their masked variants
take as they are; a policy that aims the cells one by one, seeing the ones already aimed, can still
choose the salvo as a set. Under salvo rules the observation also has:

- on ``board``, 4 (``FIRED``) for a cell fired in a salvo answered whole (``ships``/``count``) whose
  own answer is not known (cells known to be water or ship stay 1 and 2), and 5 (``AIMED``) for a
  cell aimed in the salvo being built (masked out of the actions);
- ``to_aim``, the cells still to aim this turn; ``turn``, per cell, the turn it was fired in (from 1;
  0 not yet), and ``hits``, per turn, the hits its salvo scored: together the count answers
  ("2 hits among these 5 cells"); under ``ships`` answers ``ship_hits``, per turn and ship, the
  hits on that ship.

**Answers that lie** (``rules="noisy"``, or any rules with a ``[noise]`` table): each hit or miss answer
is flipped with the rules' chance by the referee's coins, seeded from the episode's seed (the same seed,
the same layouts and the same lies). A cell may be fired at again (its answer flips on its own coin), so
every cell stays in the action mask (under salvo rules, all but the cells aimed this turn) and a shot at
a cell fired before is a shot like any other, not ``repeated``; the game ends once every ship cell has
been fired at. ``board`` shows each cell's last answer (a sinking, always true, stays shown), and the
observation adds what a shooter weighing lies needs: ``times_fired``, per cell, the shots fired at it,
and ``times_hit``, per cell, how many of them were answered hit (or sunk). An episode is truncated after
``NOISY_SHOTS_PER_CELL * rows * cols`` steps (20 a cell, as the lab and the arena stop such a game).

**A cheating hider** (``rules="cheat"``, or any rules with a ``[hider]`` table): the referee is the
hider (:class:`battleship.inference.hider.Hider`), who commits to no layout and answers each shot to keep
the game longest, consistently with every answer; its ties are seeded from the episode's seed. Nothing
else changes (the generator is not used: there is no hidden layout).
"""

from __future__ import annotations

from typing import Any, ClassVar, NotRequired, TypedDict

import gymnasium
import numpy as np
from gymnasium import spaces

from battleship import generators
from battleship import rules as rules_mod
from battleship.cells import iter_cells
from battleship.game import NOISY_SHOTS_PER_CELL, Game, Observation, Outcome, Referee
from battleship.layout import Layout
from battleship.rules import Rules

UNKNOWN, MISS, HIT, SUNK = 0, 1, 2, 3
FIRED, AIMED = 4, 5  # salvo rules only: fired, its own answer unknown; aimed for the salvo being built


class View(TypedDict):
    """What a shooter sees, as arrays (see ``view``, which fills it)."""

    board: np.ndarray  # (rows, cols) int8: UNKNOWN, MISS, HIT or SUNK
    afloat: np.ndarray  # (ships,) int8: 1 for a ship still afloat
    sunk: int  # ships sunk
    times_fired: NotRequired[np.ndarray]  # under noise only: (rows, cols) int32, shots fired at each cell
    times_hit: NotRequired[np.ndarray]  # under noise only: (rows, cols) int32, of them answered hit or sunk


class BattleshipEnv(gymnasium.Env):
    """Hunt one hidden fleet under ``rules`` (a preset name, a TOML file, or :class:`~battleship.rules.Rules`)."""

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
        self._game: Referee | None = None
        self._layout: Layout | None = None  # None against a cheating hider, who hides none
        self._steps = 0
        self._aimed: list[int] = []  # salvo rules: the cells aimed for the salvo being built

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[View, dict[str, Any]]:
        """A new hidden layout; the empty board."""
        if seed is None and self._game is None:
            seed = self._first_seed
        super().reset(seed=seed)
        layout_seed = int(self.np_random.integers(2**63 - 1))
        referee_seed = int(self.np_random.integers(2**63 - 1))  # the coins under noise, the hider's ties
        self._game = referee(self.rules, self.generator, layout_seed, referee_seed)
        self._layout = None if self.rules.hider is not None else self._game.layout
        self._steps = 0
        self._aimed = []
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
        repeated = is_repeat(self.observation, cell)  # fired (bar noise), or aimed for this salvo
        reward = -1.0
        if not repeated and self.rules.salvo is None:
            self._game.fire(cell)
        elif not repeated:
            reward = aim(self._game, self._aimed, cell, self._game.turn_size())
        self._steps += 1
        truncated = not self._game.over and self._steps >= step_limit(self.rules)
        return self._observe(), reward, self._game.over, truncated, self._info(repeated)

    def render(self) -> str | None:
        """The board as the shooter sees it, in the board-state text (``ansi``)."""
        if self.render_mode != "ansi" or self._game is None:
            return None
        return self._game.observation.text(multiline=True)

    @property
    def observation(self) -> Observation:
        """The shooter's observation, for the project's shooters (which read nothing else); under salvo
        rules with the cells aimed so far pending (:meth:`~battleship.game.Observation.aiming`)."""
        if self._game is None:
            raise RuntimeError("call reset() first")
        return aimed(self._game.observation, self._aimed)

    def _observe(self) -> View:
        seen = self.observation
        if self.rules.salvo is None:
            return view(seen)
        assert self._game is not None
        return salvo_view(seen, 0 if self._game.over else self._game.turn_size() - len(self._aimed))

    def _info(self, repeated: bool) -> dict[str, Any]:
        seen = self.observation
        info = {"action_mask": open_cells(seen), "repeated": repeated, "shots": seen.fired}
        if self.rules.salvo is not None:
            info["turns"] = seen.turns
        return info


def referee(rules: Rules, generator: str, layout_seed: int, referee_seed: int) -> Referee:
    """The referee of one episode: a :class:`~battleship.game.Game` hiding the generator's layout (its coins
    seeded ``referee_seed`` under noise), or against a cheating hider the hider (its ties seeded so)."""
    if rules.hider is not None:
        from battleship.inference.hider import Hider

        return Hider(rules, referee_seed)
    layout = generators.generate(rules, generator, layout_seed, 1)[0]
    return Game(layout, seed=referee_seed if rules.noise is not None else None)


def step_limit(rules: Rules) -> int:
    """Steps before an episode is truncated: twice the board's cells, or under noise (where a cell may be
    fired at again) the lab's and the arena's stop, ``NOISY_SHOTS_PER_CELL`` a cell."""
    return NOISY_SHOTS_PER_CELL * rules.cells if rules.noise is not None else 2 * rules.cells


def is_repeat(seen: Observation, cell: int) -> bool:
    """True for a shot that changes nothing: a cell aimed this turn, or, bar noise, fired at already."""
    if seen.rules.noise is not None:
        return cell in seen.pending
    return seen.is_shot(cell)


def view_spaces(rules: Rules) -> dict[str, spaces.Space]:
    """The spaces of :func:`view` under ``rules`` (of :func:`salvo_view` under salvo rules)."""
    ships = len(rules.fleet)
    out: dict[str, spaces.Space] = {
        "board": spaces.Box(UNKNOWN, SUNK, shape=(rules.rows, rules.cols), dtype=np.int8),
        "afloat": spaces.MultiBinary(ships),
        "sunk": spaces.Discrete(ships + 1),
    }
    if rules.noise is not None:
        most = step_limit(rules)
        out["times_fired"] = spaces.Box(0, most, shape=(rules.rows, rules.cols), dtype=np.int32)
        out["times_hit"] = spaces.Box(0, most, shape=(rules.rows, rules.cols), dtype=np.int32)
    if rules.salvo is None:
        return out
    cells, biggest = rules.cells, max(ship.size for ship in rules.fleet)
    out["board"] = spaces.Box(UNKNOWN, AIMED, shape=(rules.rows, rules.cols), dtype=np.int8)
    out["to_aim"] = spaces.Discrete(cells + 1)
    out["turn"] = spaces.Box(0, cells, shape=(rules.rows, rules.cols), dtype=np.int16)
    out["hits"] = spaces.Box(0, cells, shape=(cells,), dtype=np.int16)
    if not rules.answered_each and rules.answers.value == "ships":
        out["ship_hits"] = spaces.Box(0, biggest, shape=(cells, ships), dtype=np.int8)
    return out


def aim(game: Referee, aimed_cells: list[int], cell: int, size: int) -> float:
    """Aim ``cell`` for the salvo being built in ``game``; the K-th (``size``) fires it: -1 then, else 0."""
    aimed_cells.append(cell)
    if len(aimed_cells) < size:
        return 0.0
    game.fire_salvo(aimed_cells, size)
    aimed_cells.clear()
    return -1.0


def aimed(seen: Observation, cells: list[int]) -> Observation:
    """``seen`` with ``cells`` aimed for the salvo being built."""
    for cell in cells:
        seen = seen.aiming(cell)
    return seen


def salvo_view(seen: Observation, to_aim: int) -> View:
    """:func:`view` under salvo rules, with the salvo keys (the module's docstring)."""
    rules = seen.rules
    out: dict[str, Any] = dict(view(seen))
    board = out["board"].ravel()
    turn = np.zeros(rules.cells, dtype=np.int16)
    hits = np.zeros(rules.cells, dtype=np.int16)
    ship_hits = np.zeros((rules.cells, len(rules.fleet)), dtype=np.int8)
    for t, volley in enumerate(seen.volleys):
        turn[list(volley.cells)] = t + 1
        hits[t] = volley.hits
        if volley.ship_hits:
            ship_hits[t] = volley.ship_hits
        if not volley.shots:  # answered whole: what is certain, and the rest fired but unknown
            board[[c for c in volley.cells if board[c] == UNKNOWN]] = FIRED
    board[list(seen.pending)] = AIMED
    out["board"] = board.reshape(rules.rows, rules.cols)
    out["to_aim"] = to_aim
    out["turn"] = turn.reshape(rules.rows, rules.cols)
    out["hits"] = hits
    if "ship_hits" in view_spaces(rules):
        out["ship_hits"] = ship_hits
    return out  # type: ignore[return-value]


def view(seen: Observation) -> View:
    """A shooter's observation as arrays: ``board``, ``afloat`` and ``sunk`` (the module's docstring)."""
    rules = seen.rules
    board = np.zeros(rules.cells, dtype=np.int8)
    for shot in seen.shots:  # under noise a cell's last answer, a sinking (always true) kept below
        board[shot.cell] = MISS if shot.outcome is Outcome.MISS else HIT
    for shot in seen.shots:
        if shot.outcome is Outcome.SUNK:
            board[shot.cell] = SUNK
            board[list(iter_cells(shot.cells))] = SUNK
    if seen.volleys and not rules.answered_each:  # salvos answered whole: only what is certain
        board[list(iter_cells(seen.miss_mask))] = MISS
        board[list(iter_cells(seen.hit_mask))] = HIT
        board[list(iter_cells(seen.revealed_mask))] = SUNK
    afloat = np.ones(len(rules.fleet), dtype=np.int8)
    afloat[list(seen.sunk_ships)] = 0
    out: dict[str, Any] = {
        "board": board.reshape(rules.rows, rules.cols),
        "afloat": afloat,
        "sunk": seen.sunk_count,
    }
    if rules.noise is not None:
        fired = np.zeros(rules.cells, dtype=np.int32)
        hit = np.zeros(rules.cells, dtype=np.int32)
        for shot in seen.shots:
            fired[shot.cell] += 1
            hit[shot.cell] += shot.outcome is not Outcome.MISS
        out["times_fired"] = fired.reshape(rules.rows, rules.cols)
        out["times_hit"] = hit.reshape(rules.rows, rules.cols)
    return out  # type: ignore[return-value]


def open_cells(seen: Observation) -> np.ndarray:
    """The action mask: 1 for each cell not yet fired at (under noise, every cell not aimed this turn)."""
    mask = np.zeros(seen.rules.cells, dtype=np.int8)
    free = seen.unknown_mask
    if seen.rules.noise is not None:
        free = seen.rules.full & ~sum(1 << c for c in seen.pending)
    mask[list(iter_cells(free))] = 1
    return mask
