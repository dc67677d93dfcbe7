"""Picking the best cell from a score map: tie rules, and parity patterns that favour some cells.

Shared by every scoring shooter (density, superposition, trial-sink), in the kernels and in the
readable shooters alike, so both pick the very same cell.
"""

from __future__ import annotations

import numpy as np

from battleship.jit import njit
from battleship.rng import below

UNKNOWN, MISS, HIT, SUNK, IMPOSSIBLE = 0, 1, 2, 3, 4


@njit(cache=True, nogil=True)
def centre_distance(cell, rows, cols):
    """Squared distance from the board's centre, in half cells (an integer, exact)."""
    r, c = cell // cols, cell % cols
    return (2 * r - rows + 1) ** 2 + (2 * c - cols + 1) ** 2


@njit(cache=True, nogil=True)
def choose(score, factor, eligible, rows, cols, tie, state):
    """The eligible cell of highest ``score * factor`` (``factor`` empty: ``score``); ties: 0 first, 1 random, 2 centre-most."""
    scaled = factor.shape[0] > 0
    best = -1
    best_key = 0
    best_value = 0
    ties = 0
    for cell in range(score.shape[0]):
        if not eligible[cell]:
            continue
        value = score[cell] * factor[cell] if scaled else score[cell] * 100
        if best >= 0 and value < best_value:
            continue
        if best >= 0 and value == best_value:
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
        best_value = value
        ties = 1
        best_key = centre_distance(cell, rows, cols)
    return best


@njit(cache=True, nogil=True)
def favoured(status, rows, cols, modulus):
    """The residue ``(row + col) % modulus`` most shots so far went to (the lowest on a tie)."""
    tally = np.zeros(modulus, dtype=np.int64)
    for cell in range(status.shape[0]):
        if MISS <= status[cell] <= SUNK:
            tally[(cell // cols + cell % cols) % modulus] += 1
    return np.argmax(tally)


@njit(cache=True, nogil=True)
def pattern_factor(status, rows, cols, modulus, percent):
    """Per cell 100, or ``100 + percent`` on the favoured residue class of ``(row + col) % modulus``."""
    factor = np.full(status.shape[0], 100, dtype=np.int64)
    if percent <= 0 or modulus < 2:
        return factor
    residue = favoured(status, rows, cols, modulus)
    for cell in range(status.shape[0]):
        if (cell // cols + cell % cols) % modulus == residue:
            factor[cell] += percent
    return factor


@njit(cache=True, nogil=True)
def smallest_afloat(afloat, size):
    """Length of the smallest ship not known to be sunk (0 when none is afloat)."""
    best = 0
    for s in range(size.shape[0]):
        if afloat[s] and (best == 0 or size[s] < best):
            best = size[s]
    return best


@njit(cache=True, nogil=True)
def skew_factor(status, afloat, size, rows, cols, percent, lattice):
    """C. Liam Brown's diagonal skew: one colour favoured while a ship of the fleet's smallest size may be afloat.

    With ``lattice`` the pattern follows the smallest afloat ship instead, cells ``(row + col) % n``
    for its length ``n`` (the Dunman High paper's parity boost, as a skew): a lattice that meets
    every placement of that ship with a third of the board once the two-cell ship has sunk, where
    the plain skew stops. Empty (no scaling) when the skew is off.
    """
    if percent <= 0:
        return np.empty(0, dtype=np.int64)
    smallest = smallest_afloat(afloat, size)
    if lattice:
        return pattern_factor(status, rows, cols, smallest, percent)
    if smallest != size.min():
        return np.empty(0, dtype=np.int64)
    return pattern_factor(status, rows, cols, 2, percent)


@njit(cache=True, nogil=True)
def mark_ships(row, cell_list, size, ship_at):
    """Fill ``ship_at`` (cell -> ship index, or -1) from a layout given as placement indices, one per ship."""
    ship_at[:] = -1
    for s in range(row.shape[0]):
        p = row[s]
        for k in range(size[s]):
            ship_at[cell_list[p, k]] = s
