"""The R study's two methods, as readable Shooters and Numba kernels: ``flood`` and ``density-grid``.

- ``flood`` (the R study's ``guessSearch``): guesses down a shuffled order; a hit starts its
  ``recSearch``, which marks the hit ship cells' whole 4-connected group and every cell next to it.
  Each marked cell is a shot.
- ``density-grid`` (its ``denSearch``): fire at the cell that most placements of every ship avoid
  marked cells through (the study never drops sunk ships from ``ship.sizes``), the first such cell
  in R's column-major order, flooding on a hit as above; ``skew`` as in
  :mod:`battleship.shooters.options`.

Both search around a hit the way the R study's ``recSearch`` recurses: fire the cell; if it holds a ship, go
on with the cell below, then above, right and left, each explored fully before the next. The
referee ends the game at the last ship cell, and so do the kernels, shot for shot as the readable
shooters. The R study also counts the cells its final flood marks after the last ship cell;
``study=True`` in the kernels counts as it does (:func:`study_guesses`, which reproduces its table:
``benchmarks/r_study.py``).
"""

from __future__ import annotations

import numpy as np

from battleship.errors import BattleshipError
from battleship.game import Observation, Outcome
from battleship.jit import njit
from battleship.rng import kernel_state, shuffled
from battleship.rules import Rules
from battleship.shooters.aim import certain_shots
from battleship.shooters.choice import MISS, UNKNOWN, pattern_factor
from battleship.shooters.options import Named, Options


class FloodShooter(Named):
    """The R study's traditional method: guesses in a shuffled order, and a flood from every hit."""

    name = "flood"
    plays_noise = True  # it never fires at a cell again, and reads a hit as a hit

    def __init__(self, options: Options | None = None, order: list[int] | None = None):
        self.options = options or Options()
        self._given_order = order  # a fixed guess order, for tests against the kernel and the R study's code

    def reset(self, rules: Rules, rng: np.random.Generator) -> None:
        """New guess order, empty flood."""
        self._rules = rules
        self._order = (
            self._given_order
            if self._given_order is not None
            else [int(c) for c in shuffled(kernel_state(rng), rules.cells)]
        )
        self._next = 0
        self._stack: list[int] = []
        self._seen = 0

    def _grow(self, observation: Observation) -> None:
        """Push the neighbours of new hits so that the cell below comes off the stack first."""
        rows, cols = self._rules.rows, self._rules.cols
        shots = certain_shots(observation)  # under salvos answered whole, what is known cell by cell
        for shot in shots[self._seen :]:
            if shot.outcome is Outcome.MISS:
                continue
            r, c = divmod(shot.cell, cols)
            for dr, dc in ((0, -1), (0, 1), (-1, 0), (1, 0)):  # popped in reverse: down, up, right, left
                if 0 <= r + dr < rows and 0 <= c + dc < cols:
                    self._stack.append((r + dr) * cols + c + dc)
        self._seen = len(shots)

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
    """The R study's density method: guess the first cell (column by column) of the highest misses-only density."""

    name = "density-grid"

    @staticmethod
    def refusal(rules: Rules) -> str | None:
        """Why density-grid cannot play ``rules`` (a fleet that is not straight), or None."""
        bent = [s.name for s in rules.fleet if not s.is_straight]
        if bent:
            return f"density-grid counts straight runs (the R study's buildDen); {', '.join(bent)} is not straight"
        return None

    def reset(self, rules: Rules, rng: np.random.Generator) -> None:
        """Refuse fleets that are not straight, then start as flood does."""
        why = self.refusal(rules)
        if why:
            raise BattleshipError(why)
        super().reset(rules, rng)

    def guess(self, observation: Observation) -> int:
        """The R study's ``buildDen`` over every ship of the fleet (sunk ones too), from the cells fired at."""
        rules = self._rules
        rows, cols = rules.rows, rules.cols
        shot = np.zeros((rows, cols), dtype=bool)
        fired = observation.shot_mask  # every cell fired at (and, under salvo rules, aimed at)
        for cell in range(rules.cells):
            if fired >> cell & 1:
                shot[divmod(cell, cols)] = True
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
        score[shot] = -1  # never a cell fired at (or aimed at), even when no run fits anywhere
        # R's which.max over the matrix: the first maximum in column-major order
        flat = score.T.ravel()
        best = int(np.argmax(flat))
        return (best % rows) * cols + best // rows


@njit(cache=True, nogil=True)
def flood(cell, ship_at, marked, rows, cols, stack, left, study):
    """The R study's ``recSearch`` from ``cell``: returns (cells newly marked, ship cells among them).

    Cells are marked in the recursion's order (below, above, right, left, each explored fully);
    unless ``study``, the flood stops at the last of the ``left`` ship cells still to hit, as the
    referee ends the game there.
    """
    top = 0
    stack[top] = cell
    top += 1
    new = ships = 0
    while top > 0 and (study or ships < left):
        top -= 1
        c = stack[top]
        if marked[c]:
            continue
        marked[c] = True
        new += 1
        if ship_at[c] < 0:
            continue
        ships += 1
        r, k = c // cols, c % cols
        # pushed in reverse, so that the cell below comes off the stack first
        if k > 0:
            stack[top] = c - 1
            top += 1
        if k + 1 < cols:
            stack[top] = c + 1
            top += 1
        if r > 0:
            stack[top] = c - cols
            top += 1
        if r + 1 < rows:
            stack[top] = c + cols
            top += 1
    return new, ships


@njit(cache=True, nogil=True)
def play_flood(state, ship_at, total, rows, cols, order, study=False):
    """The R study's traditional method; ``order`` is the guess order (shuffled from ``state`` when empty)."""
    n = rows * cols
    if order.shape[0] == 0:
        order = shuffled(state, n)
    marked = np.zeros(n, dtype=np.bool_)
    stack = np.empty(4 * n + 1, dtype=np.int64)
    guesses = hits = 0
    for cell in order:
        if hits >= total:
            break
        if marked[cell]:
            continue
        new, ships = flood(cell, ship_at, marked, rows, cols, stack, total - hits, study)
        guesses += new
        hits += ships
    return guesses


@njit(cache=True, nogil=True)
def play_density_grid(ship_at, total, rows, cols, size, skew, study=False):
    """The R study's density method: misses-only density over the whole fleet, first maximum column by column."""
    n = rows * cols
    marked = np.zeros(n, dtype=np.bool_)
    status = np.zeros(n, dtype=np.int8)
    factor = np.full(n, 100, dtype=np.int64)
    stack = np.empty(4 * n + 1, dtype=np.int64)
    den = np.zeros(n, dtype=np.int64)
    guesses = hits = 0
    while hits < total:
        den[:] = 0
        for s in range(size.shape[0]):
            length = size[s]
            for c in range(cols):  # vertical runs
                for r in range(rows - length + 1):
                    ok = True
                    for k in range(length):
                        if marked[(r + k) * cols + c]:
                            ok = False
                            break
                    if ok:
                        for k in range(length):
                            den[(r + k) * cols + c] += 1
            for r in range(rows):  # horizontal runs
                for c in range(cols - length + 1):
                    ok = True
                    for k in range(length):
                        if marked[r * cols + c + k]:
                            ok = False
                            break
                    if ok:
                        for k in range(length):
                            den[r * cols + c + k] += 1
        if skew > 0:  # the R study never drops a ship, so the smallest is always "afloat"
            for cell in range(n):
                status[cell] = MISS if marked[cell] else UNKNOWN
            factor = pattern_factor(status, rows, cols, 2, skew)
        best = -1
        for c in range(cols):  # R's which(): column-major order
            for r in range(rows):
                cell = r * cols + c
                if best < 0 or den[cell] * factor[cell] > den[best] * factor[best]:
                    best = cell
        new, ships = flood(best, ship_at, marked, rows, cols, stack, total - hits, study)
        guesses += new
        hits += ships
    return guesses


def study_guesses(rules: Rules, kind: str, seed: int, rows: np.ndarray) -> np.ndarray:
    """Guesses per game as the R study counts them (its last flood runs on after the final ship cell).

    ``kind`` is ``"flood"`` or ``"density-grid"``; game ``i`` shuffles from the lab's stream, so the
    games are the lab's up to the last ship cell.
    """
    from battleship.rng import SHOOTER_SALT, seed_words, stream
    from battleship.shooters.choice import mark_ships
    from battleship.tables import tables

    t = tables(rules)
    out = np.empty(len(rows), dtype=np.int64)
    ship_at = np.empty(rules.cells, dtype=np.int64)
    for i, row in enumerate(rows):
        mark_ships(row, t.cell_list, t.size, ship_at)
        if kind == "flood":
            state = stream(np.uint64(seed_words(seed)) ^ SHOOTER_SALT, np.uint64(i))
            no_order = np.empty(0, dtype=np.int64)
            out[i] = play_flood(state, ship_at, rules.ship_cells, rules.rows, rules.cols, no_order, True)
        else:
            out[i] = play_density_grid(ship_at, rules.ship_cells, rules.rows, rules.cols, t.size, 0, True)
    return out
