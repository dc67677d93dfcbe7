"""Counting layouts by enumeration: every valid layout visited once. Exact, for small boards.

Ships are labelled (the two 3-ships of the standard fleet are different ships). A layout of
identical-shaped ships counted as indistinguishable is the labelled count divided by the product
of the factorials of the numbers of identical ships, since no two of them can share a placement.
"""

from __future__ import annotations

from math import factorial

import numpy as np
from numba import njit

from battleship.rules import Rules
from battleship.tables import tables


@njit(cache=True, nogil=True)
def _enumerate(cells, halos, cell_list, size, start, count, nwords, ncells, want_cells):
    nships = start.shape[0]
    choice = np.full(nships, -1, dtype=np.int64)
    blocked = np.zeros((nships + 1, nwords), dtype=np.uint64)
    per_cell = np.zeros(ncells, dtype=np.int64)
    total = 0
    depth = 0
    while depth >= 0:
        choice[depth] += 1
        if choice[depth] >= count[depth]:
            choice[depth] = -1
            depth -= 1
            continue
        p = start[depth] + choice[depth]
        clash = False
        for w in range(nwords):
            if cells[p, w] & blocked[depth, w]:
                clash = True
                break
        if clash:
            continue
        if depth == nships - 1:
            total += 1
            if want_cells:
                for d in range(nships):
                    q = start[d] + choice[d]
                    for k in range(size[d]):
                        per_cell[cell_list[q, k]] += 1
            continue
        for w in range(nwords):
            blocked[depth + 1, w] = blocked[depth, w] | halos[p, w]
        depth += 1
    return total, per_cell


def identical_groups(rules: Rules) -> list[int]:
    """Sizes of the groups of ships with the same shape (e.g. [1, 1, 2, 1] for the standard fleet)."""
    seen: dict[tuple, int] = {}
    for ship in rules.fleet:
        seen[ship.cells] = seen.get(ship.cells, 0) + 1
    return list(seen.values())


def enumerate_layouts(rules: Rules) -> tuple[int, np.ndarray]:
    """Visit every valid layout: the labelled count and, per cell, how many layouts cover it."""
    t = tables(rules)
    total, per_cell = _enumerate(
        t.cells, t.halos, t.cell_list, t.size, t.start, t.count, t.nwords, rules.cells, True
    )
    return int(total), per_cell.reshape(rules.rows, rules.cols)


def count_by_enumeration(rules: Rules, distinct: bool = True) -> int:
    """Number of valid layouts, visiting each one; ``distinct=False`` merges identical ships."""
    t = tables(rules)
    total, _ = _enumerate(
        t.cells, t.halos, t.cell_list, t.size, t.start, t.count, t.nwords, rules.cells, False
    )
    if distinct:
        return int(total)
    merge = 1
    for n in identical_groups(rules):
        merge *= factorial(n)
    return int(total) // merge
