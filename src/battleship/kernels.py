"""Whole games inside Numba: a referee and the classic shooters, with no Python per shot.

Each game ``i`` of a run seeded ``seed`` draws from the stream ``rng.stream(seed ^ SHOOTER_SALT, i)``, so a game's
shots do not depend on how the run is split across jobs. The hidden layout is given as ``ship_at``
(cell -> ship index, or -1); the shooter functions below read only what has been fired and answered.

Shooters here:
- ``random``: fire down a uniformly shuffled order of all cells.
- ``hunt-target`` (000): hunt down a shuffled order; after a hit, queue the unvisited neighbours
  north, south, east, west, and fire at queued cells until the queue is empty. 000 calls it a stack,
  but its walkthrough serves it first in, first out: after the first hit (turn 3) and a hit to its
  north (turn 4), turn 5 fires south of the first hit, not at the new cell's neighbours.
- ``hunt-target-parity`` (000): the same, hunting only cells with ``(row + col) % 2 == colour`` until
  none is left (then the rest, which only matters for fleets with one-cell ships).
- ``density`` (000) and ``superposition`` (001): see :mod:`battleship.density`.
- ``trial-sink`` (003): see :mod:`battleship.trialsink`.
- ``flood`` (004's ``guessSearch``): guesses down a shuffled order; a hit starts 004's ``recSearch``,
  which marks the hit ship cells' whole 4-connected group and every cell next to it. Each marked cell
  counts as a guess, including those the last flood marks after the final ship cell, as 004 counts.
- ``density-grid`` (004's ``denSearch``): fire at the cell that most placements of every ship avoid
  marked cells through (004 never drops sunk ships from ``ship.sizes``), the first such cell in R's
  column-major order, flooding on a hit as above; ``skew`` as in :mod:`battleship.options`.

Every kernel reads its options from the int64 vector of :meth:`battleship.options.Options.vector`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from battleship.choice import MISS, UNKNOWN, pattern_factor
from battleship.density import DENSITY as DENSITY_MODE
from battleship.density import SUPERPOSITION as SUPERPOSITION_MODE
from battleship.density import play_density
from battleship.options import COLOUR, SKEW
from battleship.rng import below, stream
from battleship.trialsink import play_trial_sink

# Shooters draw from streams of ``seed ^ SHOOTER_SALT``: a run that draws its layouts with the same
# seed would otherwise hand the shooter the very numbers that placed the ships.
SHOOTER_SALT = np.uint64(0x5EED_0F_5A1_7ED)

RANDOM = 0
HUNT_TARGET = 1
HUNT_TARGET_PARITY = 2
DENSITY = 3
FLOOD = 4
DENSITY_GRID = 5
SUPERPOSITION = 6
TRIAL_SINK = 7
KINDS = {
    "random": RANDOM,
    "hunt-target": HUNT_TARGET,
    "hunt-target-parity": HUNT_TARGET_PARITY,
    "density": DENSITY,
    "flood": FLOOD,
    "density-grid": DENSITY_GRID,
    "superposition": SUPERPOSITION,
    "trial-sink": TRIAL_SINK,
}


@njit(cache=True, nogil=True)
def shuffled(state, n):
    """A uniformly random permutation of ``0..n-1`` (Fisher-Yates, drawing from the end)."""
    order = np.arange(n)
    for i in range(n - 1, 0, -1):
        j = below(state, i + 1)
        order[i], order[j] = order[j], order[i]
    return order


@njit(cache=True, nogil=True)
def hunt_order(state, rows, cols, parity, colour):
    """The shuffled hunting order: with ``parity``, cells of one colour first, the others after."""
    order = shuffled(state, rows * cols)
    if not parity:
        return order
    out = np.empty_like(order)
    k = 0
    for want in range(2):
        for cell in order:
            on_colour = (cell // cols + cell % cols) % 2 == colour
            if on_colour == (want == 0):
                out[k] = cell
                k += 1
    return out


@njit(cache=True, nogil=True)
def play_hunt_target(state, ship_at, total, rows, cols, parity, colour):
    """Shots a hunt/target shooter needs to hit every ship cell."""
    n = rows * cols
    order = hunt_order(state, rows, cols, parity, colour)
    visited = np.zeros(n, dtype=np.bool_)
    queue = np.empty(4 * n + 4, dtype=np.int64)
    head = tail = 0
    hunt = 0
    shots = hits = 0
    while hits < total:
        cell = -1
        while head < tail and cell < 0:
            candidate = queue[head]
            head += 1
            if not visited[candidate]:
                cell = candidate
        while cell < 0:
            if not visited[order[hunt]]:
                cell = order[hunt]
            hunt += 1
        visited[cell] = True
        shots += 1
        if ship_at[cell] >= 0:
            hits += 1
            r, c = cell // cols, cell % cols
            if r > 0 and not visited[cell - cols]:
                queue[tail] = cell - cols
                tail += 1
            if r < rows - 1 and not visited[cell + cols]:
                queue[tail] = cell + cols
                tail += 1
            if c < cols - 1 and not visited[cell + 1]:
                queue[tail] = cell + 1
                tail += 1
            if c > 0 and not visited[cell - 1]:
                queue[tail] = cell - 1
                tail += 1
    return shots


@njit(cache=True, nogil=True)
def play_random(state, ship_at, total, rows, cols):
    """Shots a random shooter needs to hit every ship cell."""
    order = shuffled(state, rows * cols)
    shots = hits = 0
    while hits < total:
        if ship_at[order[shots]] >= 0:
            hits += 1
        shots += 1
    return shots


@njit(cache=True, nogil=True)
def flood(cell, ship_at, marked, rows, cols, stack):
    """004's ``recSearch`` from ``cell``: returns (cells newly marked, ship cells among them)."""
    top = 0
    stack[top] = cell
    top += 1
    new = ships = 0
    while top > 0:
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
        if r + 1 < rows:
            stack[top] = c + cols
            top += 1
        if r > 0:
            stack[top] = c - cols
            top += 1
        if k + 1 < cols:
            stack[top] = c + 1
            top += 1
        if k > 0:
            stack[top] = c - 1
            top += 1
    return new, ships


@njit(cache=True, nogil=True)
def play_flood(state, ship_at, total, rows, cols, order):
    """004's traditional method; ``order`` is the guess order (shuffled when empty)."""
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
        new, ships = flood(cell, ship_at, marked, rows, cols, stack)
        guesses += new
        hits += ships
    return guesses


@njit(cache=True, nogil=True)
def play_density_grid(ship_at, total, rows, cols, size, skew):
    """004's density method: misses-only density over the whole fleet, first maximum column by column."""
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
        if skew > 0:  # 004 never drops a ship, so the smallest is always "afloat"
            for cell in range(n):
                status[cell] = MISS if marked[cell] else UNKNOWN
            factor = pattern_factor(status, rows, cols, 2, skew)
        best = -1
        for c in range(cols):  # R's which(): column-major order
            for r in range(rows):
                cell = r * cols + c
                if best < 0 or den[cell] * factor[cell] > den[best] * factor[best]:
                    best = cell
        new, ships = flood(best, ship_at, marked, rows, cols, stack)
        guesses += new
        hits += ships
    return guesses


@njit(cache=True, nogil=True)
def play_game(kind, state, ship_at, total, rows, cols, params, geometry):
    """One game of shooter ``kind``; returns the number of shots. ``params``: the options vector.

    ``geometry`` is :func:`battleship.tables.geometry`: the placement tables the kernels read.
    """
    size = geometry[1]
    if kind == RANDOM:
        return play_random(state, ship_at, total, rows, cols)
    if kind == FLOOD:
        return play_flood(state, ship_at, total, rows, cols, np.empty(0, dtype=np.int64))
    if kind == DENSITY_GRID:
        return play_density_grid(ship_at, total, rows, cols, size, params[SKEW])
    if kind == DENSITY:
        return play_density(state, ship_at, total, rows, cols, params, geometry, DENSITY_MODE)
    if kind == SUPERPOSITION:
        return play_density(state, ship_at, total, rows, cols, params, geometry, SUPERPOSITION_MODE)
    if kind == TRIAL_SINK:
        return play_trial_sink(state, ship_at, total, rows, cols, params, geometry)
    return play_hunt_target(state, ship_at, total, rows, cols, kind == HUNT_TARGET_PARITY, params[COLOUR])


@njit(cache=True, nogil=True)
def play_games(kind, seed, first, layouts, rows, cols, params, geometry, out):
    """Play ``len(out)`` games on ``layouts`` (rows of placement indices); game ``i`` uses stream ``first + i``."""
    cell_list, size = geometry[0], geometry[1]
    ship_at = np.empty(rows * cols, dtype=np.int64)
    total = 0
    for s in range(size.shape[0]):
        total += size[s]
    for i in range(out.shape[0]):
        ship_at[:] = -1
        for s in range(layouts.shape[1]):
            p = layouts[i, s]
            for k in range(size[s]):
                ship_at[cell_list[p, k]] = s
        state = stream(seed ^ SHOOTER_SALT, first + i)
        out[i] = play_game(kind, state, ship_at, total, rows, cols, params, geometry)
