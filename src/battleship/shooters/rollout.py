"""Look-ahead by rollouts: policy improvement over the DataGenetics density shooter.

A greedy shooter asks only "where is a ship most likely now?". This one asks "after which shot will
the game end soonest?" and answers it by simulation (Bertsekas' rollout algorithm):

1. draw ``rollouts`` layouts exactly and uniformly from those consistent with every answer so far
   (:func:`battleship.inference.sampling.draw`);
2. take ``width`` candidate cells: the density shooter's own choice, then the cells most of the
   sampled layouts put a ship on;
3. for each candidate and each sampled layout, replay the game so far, fire the candidate, and let
   the density shooter (the *base policy*, with this shooter's ``weight`` and ``skew``) play on to
   the end; every candidate meets the same layouts and the same random tie-breaks (common random
   numbers), so their difference is measured far more precisely than either mean;
4. fire the candidate with the fewest shots on average, but only when it beats the base policy's
   own choice by two standard errors of their paired difference; otherwise the base's choice.

Because the base policy's own choice is always a candidate and is left only on clear evidence, the
rollout policy is, up to sampling noise, at least as good as the base it improves on; the evidence
is clear mostly late in a game, when little is left to play and the rollouts vary little. The cost is ``rollouts * width`` base games a
shot, in Numba; the defaults stay within the C# contest's half second a shot on one core on the
standard board (``benchmarks/shot_time.py``), and ``rollouts=16,width=3`` is a fast setting for lab
runs. Plays every rules variant the density shooter plays.
"""

from __future__ import annotations

import numpy as np

from battleship.errors import BattleshipError
from battleship.game import Observation
from battleship.inference.sampling import draw, hit_counts
from battleship.jit import njit
from battleship.rng import seed_words, stream
from battleship.rules import Rules
from battleship.shooters.aim import one_shot_only, refuse
from battleship.shooters.choice import UNKNOWN, mark_ships
from battleship.shooters.density import DENSITY, density_map, density_pick, observed_status, play_density
from battleship.shooters.options import Named, Options
from battleship.tables import geometry, tables

SIGNIFICANCE = 2.0  # standard errors by which a candidate must beat the base policy's own choice


@njit(cache=True, nogil=True)
def rollout_shots(fired, candidates, layouts, seed, rows, cols, params, geometry, out):
    """``out[c, j]``: the whole game's shots when ``candidates[c]`` follows ``fired`` on ``layouts[j]``.

    The rest is played by the density kernel; layout ``j`` uses random stream ``j`` of ``seed`` for
    every candidate (common random numbers).
    """
    cell_list, size = geometry[0], geometry[1]
    total = 0
    for s in range(size.shape[0]):
        total += size[s]
    forced = np.empty(fired.shape[0] + 1, dtype=np.int64)
    forced[: fired.shape[0]] = fired
    ship_at = np.empty(rows * cols, dtype=np.int64)
    for j in range(layouts.shape[0]):
        mark_ships(layouts[j], cell_list, size, ship_at)
        for c in range(candidates.shape[0]):
            forced[fired.shape[0]] = candidates[c]
            state = stream(seed, np.uint64(j))
            out[c, j] = play_density(state, ship_at, total, rows, cols, params, geometry, DENSITY, forced)


class RolloutShooter(Named):
    """Rollouts of the density shooter from each candidate cell (see the module docstring)."""

    name = "rollout"
    refusal = one_shot_only("rollout", "its look-ahead plays density on one shot at a time")

    def __init__(self, options: Options | None = None, **keys):
        self.options = options if options is not None else Options(**keys)

    def reset(self, rules: Rules, rng: np.random.Generator) -> None:
        """Remember the rules and the base policy's tables; seed the sampler and the tie-breaks."""
        refuse(self.refusal, rules)
        self._rules = rules
        self._params = self.options.vector(rules)
        self._geometry = geometry(tables(rules))
        self._seed = int(rng.integers(0, 2**63))
        self._state = np.array([rng.integers(0, 2**63)], dtype=np.uint64)

    def candidates(self, observation: Observation, layouts: np.ndarray) -> np.ndarray:
        """The base policy's choice, then the unknown cells most sampled layouts put a ship on."""
        rules, t = self._rules, tables(self._rules)
        status, afloat = observed_status(rules, observation)
        density = density_map(status, afloat, t.cell_list, t.size, t.start, t.count, self.options.weight)
        open_cells = status == UNKNOWN
        base = density_pick(
            density, status, afloat, rules.rows, rules.cols, self._params, self._geometry, self._state,
            open_cells, np.empty(0, dtype=np.int64),
        )  # fmt: skip
        if base < 0:
            raise BattleshipError("no cell is left to fire at: the observation contradicts the rules")
        sampled = hit_counts(rules, layouts)
        order = [int(base)]
        for cell in np.argsort(-sampled, kind="stable"):
            if len(order) == self.options.width or sampled[cell] == 0:
                break
            if open_cells[cell] and cell != base:
                order.append(int(cell))
        return np.array(order, dtype=np.int64)

    def next_shot(self, observation: Observation) -> int:
        """The candidate after which the base policy finishes soonest, on average over the samples."""
        rules = self._rules
        seed = seed_words(self._seed * 1_000_003 + len(observation.shots))
        layouts = draw(rules, observation, self.options.rollouts, seed=seed)
        candidates = self.candidates(observation, layouts)
        if len(candidates) == 1 or len(layouts) == 0:
            return int(candidates[0])
        fired = np.array([shot.cell for shot in observation.shots], dtype=np.int64)
        out = np.empty((len(candidates), len(layouts)), dtype=np.int64)
        rollout_shots(
            fired,
            candidates,
            layouts,
            np.uint64(seed),
            rules.rows,
            rules.cols,
            self._params,
            self._geometry,
            out,
        )
        return int(candidates[significant_best(out, SIGNIFICANCE)])


def significant_best(out: np.ndarray, z: float = SIGNIFICANCE) -> int:
    """The candidate row with the fewest shots, if it beats row 0 (the base's choice) significantly; else 0.

    A candidate's lead over the base is the mean of its paired differences on the sampled layouts; it
    is taken only when that mean is below zero by ``z`` standard errors. Without this gate the noise
    of a few dozen rollouts (whole games differ by several shots) would pick among near-equal cells
    at random, and the winner's curse makes that worse than the base policy.
    """
    best = int(np.argmin(out.sum(axis=1)))
    if best == 0 or out.shape[1] < 2:
        return 0
    differences = out[best] - out[0]
    spread = differences.std(ddof=1)
    if spread == 0:
        return best
    return best if differences.mean() + z * spread / np.sqrt(out.shape[1]) < 0 else 0
