"""004's two methods as readable Shooters: ``flood`` (random guesses) and ``density-grid``.

Both search around a hit the way 004's ``recSearch`` recurses: fire the cell; if it holds a ship, go
on with the cell below, then above, right and left, each explored fully before the next. Here the
referee ends the game at the last ship cell, while 004 (and the lab's kernels, to reproduce its
table) also counts the cells its final flood marks afterwards, so these shooters can finish a few
shots sooner than the kernels count.
"""

from __future__ import annotations

import numpy as np

from battleship.choice import MISS, UNKNOWN, pattern_factor
from battleship.errors import BattleshipError
from battleship.game import Observation, Outcome
from battleship.options import Options
from battleship.rules import Rules


class FloodShooter:
    """004's traditional method: guesses in a shuffled order, and a flood from every hit."""

    name = "flood"

    def __init__(self, options: Options | None = None, order: list[int] | None = None):
        self.options = options or Options()
        self._given_order = order  # a fixed guess order, for tests against the kernel and 004's code

    def reset(self, rules: Rules, rng: np.random.Generator) -> None:
        """New guess order, empty flood."""
        self._rules = rules
        self._order = (
            self._given_order
            if self._given_order is not None
            else [int(c) for c in rng.permutation(rules.cells)]
        )
        self._next = 0
        self._stack: list[int] = []
        self._seen = 0

    def _grow(self, observation: Observation) -> None:
        """Push the neighbours of new hits so that the cell below comes off the stack first."""
        rows, cols = self._rules.rows, self._rules.cols
        for shot in observation.shots[self._seen :]:
            if shot.outcome is Outcome.MISS:
                continue
            r, c = divmod(shot.cell, cols)
            for dr, dc in ((0, -1), (0, 1), (-1, 0), (1, 0)):  # popped in reverse: down, up, right, left
                if 0 <= r + dr < rows and 0 <= c + dc < cols:
                    self._stack.append((r + dr) * cols + c + dc)
        self._seen = len(observation.shots)

    def guess(self, observation: Observation) -> int:
        """The next cell to guess when no flood is under way."""
        while observation.is_shot(self._order[self._next]):
            self._next += 1
        return self._order[self._next]

    def next_shot(self, observation: Observation) -> int:
        """Carry on the flood, else guess."""
        self._grow(observation)
        while self._stack:
            cell = self._stack.pop()
            if not observation.is_shot(cell):
                return cell
        return self.guess(observation)


class DensityGridShooter(FloodShooter):
    """004's density method: guess the first cell (column by column) of the highest misses-only density."""

    name = "density-grid"

    def reset(self, rules: Rules, rng: np.random.Generator) -> None:
        """Refuse fleets that are not straight (004's density counts straight runs)."""
        bent = [s.name for s in rules.fleet if not s.is_straight]
        if bent:
            raise BattleshipError(
                f"density-grid counts straight runs (004's buildDen); {', '.join(bent)} is not"
            )
        super().reset(rules, rng)

    def guess(self, observation: Observation) -> int:
        """004's ``buildDen`` over every ship of the fleet (sunk ones too), from the cells fired at."""
        rules = self._rules
        rows, cols = rules.rows, rules.cols
        shot = np.zeros((rows, cols), dtype=bool)
        for s in observation.shots:
            shot[divmod(s.cell, cols)] = True
        den = np.zeros((rows, cols), dtype=np.int64)
        for ship in rules.fleet:
            n = ship.size
            for r in range(rows):
                for c in range(cols):
                    if r + n <= rows and not shot[r : r + n, c].any():
                        den[r : r + n, c] += 1
                    if c + n <= cols and not shot[r, c : c + n].any():
                        den[r, c : c + n] += 1
        status = np.where(shot.ravel(), MISS, UNKNOWN).astype(np.int8)
        factor = pattern_factor(status, rows, cols, 2, self.options.skew).reshape(rows, cols)
        score = den * factor
        # R's which.max over the matrix: the first maximum in column-major order
        flat = score.T.ravel()
        best = int(np.argmax(flat))
        return (best % rows) * cols + best // rows
