"""000's probability-density shooter, as a Numba kernel and as a readable Shooter.

Every afloat ship's placements that avoid misses and cells of sunk ships are counted on each unknown
cell they cover. Hits count as open water for placements, and a placement through ``k`` hits not yet
explained by a sunk ship weighs ``weight ** k`` (000's "heavy score weighting"). The most counted
unknown cell is fired at; ties go to the first in reading order (000's implementation), a random one,
or the one nearest the centre.

Which cells a sunk ship held: under ``revealed`` rules the referee shows them. Under ``named`` rules
the ship's placements through the sinking cell whose cells are all unexplained hits are candidates;
when exactly one remains its cells are marked sunk, otherwise the hits stay unexplained. Under
``sunk`` and ``none`` rules no ship is known to be sunk, so every ship stays in the count.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from battleship.errors import BattleshipError
from battleship.game import Observation, Outcome
from battleship.rng import below
from battleship.rules import Rules, Sinks
from battleship.tables import tables

TIES = {"first": 0, "random": 1, "centre": 2}
UNKNOWN, MISS, HIT, SUNK = 0, 1, 2, 3
DEFAULT_WEIGHT = 20


@njit(cache=True, nogil=True)
def density_map(status, afloat, cell_list, size, start, count, weight):
    """Weighted placement counts on every unknown cell (``status`` per cell: unknown/miss/hit/sunk)."""
    n = status.shape[0]
    density = np.zeros(n, dtype=np.int64)
    for s in range(size.shape[0]):
        if not afloat[s]:
            continue
        for p in range(start[s], start[s] + count[s]):
            w = 1
            ok = True
            for k in range(size[s]):
                st = status[cell_list[p, k]]
                if st == MISS or st == SUNK:  # noqa: SIM109 (plain compares for Numba)
                    ok = False
                    break
                if st == HIT:
                    w *= weight
            if not ok:
                continue
            for k in range(size[s]):
                cell = cell_list[p, k]
                if status[cell] == UNKNOWN:
                    density[cell] += w
    return density


@njit(cache=True, nogil=True)
def centre_distance(cell, rows, cols):
    """Squared distance from the board's centre, in half cells (an integer, exact)."""
    r, c = cell // cols, cell % cols
    return (2 * r - rows + 1) ** 2 + (2 * c - cols + 1) ** 2


@njit(cache=True, nogil=True)
def choose(density, status, rows, cols, tie, state):
    """The unknown cell of highest density, ties broken by rule ``tie``."""
    best = -1
    best_key = 0
    ties = 0
    for cell in range(status.shape[0]):
        if status[cell] != UNKNOWN:
            continue
        d = density[cell]
        if best >= 0 and d < density[best]:
            continue
        if best >= 0 and d == density[best]:
            if tie == 0:
                continue
            if tie == 1:
                ties += 1
                if below(state, ties) == 0:
                    best = cell
                continue
            key = centre_distance(cell, rows, cols)
            if key < best_key:
                best, best_key = cell, key
            continue
        best = cell
        ties = 1
        best_key = centre_distance(cell, rows, cols)
    return best


@njit(cache=True, nogil=True)
def named_placement(status, ship, cell, cell_list, size, start, count):
    """The only all-hit placement of ``ship`` through ``cell``, or -1 when there is none or several."""
    found = -1
    for p in range(start[ship], start[ship] + count[ship]):
        through = False
        all_hit = True
        for k in range(size[ship]):
            c = cell_list[p, k]
            if c == cell:
                through = True
            if status[c] != HIT:
                all_hit = False
        if through and all_hit:
            if found >= 0:
                return -1
            found = p
    return found


@njit(cache=True, nogil=True)
def claim_named(status, ship, cell, cell_list, size, start, count):
    """Mark a named sunk ship's cells when exactly one all-hit placement passes through ``cell``."""
    found = named_placement(status, ship, cell, cell_list, size, start, count)
    if found >= 0:
        for k in range(size[ship]):
            status[cell_list[found, k]] = SUNK


@njit(cache=True, nogil=True)
def _spread(p, sign, w, status, density, geometry):
    """Add (sign 1) or take away (sign -1) placement ``p``'s weight on its unknown cells."""
    cell_list, size, ship_of = geometry[0], geometry[1], geometry[4]
    for k in range(size[ship_of[p]]):
        c = cell_list[p, k]
        if status[c] == UNKNOWN:
            density[c] += sign * w


@njit(cache=True, nogil=True)
def _close(cell, status, density, valid, hits, afloat, power, geometry):
    """A cell became a miss or a sunk-ship cell: placements through it no longer fit."""
    ship_of, through_start, through = geometry[4], geometry[5], geometry[6]
    for i in range(through_start[cell], through_start[cell + 1]):
        p = through[i]
        if valid[p]:
            if afloat[ship_of[p]]:
                _spread(p, -1, power[hits[p]], status, density, geometry)
            valid[p] = False


@njit(cache=True, nogil=True)
def play_density(state, ship_at, total, rows, cols, sinks, weight, tie, geometry):
    """Shots the density shooter needs to hit every ship cell (sinks: 0 none, 1 sunk, 2 named, 3 revealed).

    The counts are kept up to date shot by shot: a shot changes only the placements through its cell.
    Equal, to the integer, to :func:`density_map` recounted from scratch (tested).
    """
    cell_list, size, start, count, ship_of, through_start, through = geometry
    n = rows * cols
    nplace = cell_list.shape[0]
    status = np.zeros(n, dtype=np.int8)
    afloat = np.ones(size.shape[0], dtype=np.bool_)
    valid = np.ones(nplace, dtype=np.bool_)
    hits_in = np.zeros(nplace, dtype=np.int64)
    power = np.ones(int(size.max()) + 1, dtype=np.int64)
    for k in range(1, power.shape[0]):
        power[k] = power[k - 1] * weight
    density = np.zeros(n, dtype=np.int64)
    for p in range(nplace):
        _spread(p, 1, 1, status, density, geometry)
    left = size.copy()
    shots = hits = 0
    while hits < total:
        cell = choose(density, status, rows, cols, tie, state)
        shots += 1
        ship = ship_at[cell]
        if ship < 0:
            _close(cell, status, density, valid, hits_in, afloat, power, geometry)
            status[cell] = MISS
            continue
        for i in range(through_start[cell], through_start[cell + 1]):
            p = through[i]
            if valid[p] and afloat[ship_of[p]]:
                _spread(p, -1, power[hits_in[p]], status, density, geometry)
        status[cell] = HIT
        for i in range(through_start[cell], through_start[cell + 1]):
            p = through[i]
            if valid[p]:
                hits_in[p] += 1
                if afloat[ship_of[p]]:
                    _spread(p, 1, power[hits_in[p]], status, density, geometry)
        hits += 1
        left[ship] -= 1
        if left[ship] == 0 and sinks >= 2:
            for p in range(start[ship], start[ship] + count[ship]):
                if valid[p]:
                    _spread(p, -1, power[hits_in[p]], status, density, geometry)
            afloat[ship] = False
            if sinks == 3:  # revealed: the referee shows the ship's cells
                for c in range(n):
                    if ship_at[c] == ship:
                        _close(c, status, density, valid, hits_in, afloat, power, geometry)
                        status[c] = SUNK
            else:
                found = named_placement(status, ship, cell, cell_list, size, start, count)
                for k in range(size[ship] if found >= 0 else 0):
                    c = cell_list[found, k]
                    _close(c, status, density, valid, hits_in, afloat, power, geometry)
                    status[c] = SUNK
    return shots


SINK_CODES = {Sinks.NONE: 0, Sinks.SUNK: 1, Sinks.NAMED: 2, Sinks.REVEALED: 3}


class DensityShooter:
    """000's probability density shooter (see the module docstring). Plays every rules variant."""

    name = "density"

    def __init__(self, weight: int = DEFAULT_WEIGHT, tie: str = "first"):
        if tie not in TIES:
            raise BattleshipError(f"tie rule {tie!r} is not one of {', '.join(TIES)}")
        self.weight, self.tie = weight, tie

    def reset(self, rules: Rules, rng: np.random.Generator) -> None:
        """Remember the rules; all other state is read from the observation."""
        self._rules, self._rng = rules, rng
        self._state = np.array([rng.integers(0, 2**63)], dtype=np.uint64)

    def status(self, observation: Observation) -> tuple[np.ndarray, np.ndarray]:
        """Per cell unknown/miss/hit/sunk, and which ships are afloat, from the observation alone."""
        rules, t = self._rules, tables(self._rules)
        status = np.zeros(rules.cells, dtype=np.int8)
        afloat = np.ones(len(rules.fleet), dtype=np.bool_)
        for shot in observation.shots:
            status[shot.cell] = MISS if shot.outcome is Outcome.MISS else HIT
            if shot.outcome is Outcome.SUNK and shot.ship is not None:
                afloat[shot.ship] = False
                if rules.sinks is Sinks.REVEALED:
                    for c in range(rules.cells):
                        if shot.cells >> c & 1:
                            status[c] = SUNK
                else:
                    claim_named(status, shot.ship, shot.cell, t.cell_list, t.size, t.start, t.count)
        return status, afloat

    def next_shot(self, observation: Observation) -> int:
        """The unknown cell with the highest weighted placement count."""
        rules, t = self._rules, tables(self._rules)
        status, afloat = self.status(observation)
        density = density_map(status, afloat, t.cell_list, t.size, t.start, t.count, self.weight)
        return int(choose(density, status, rules.rows, rules.cols, TIES[self.tie], self._state))
