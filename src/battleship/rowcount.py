"""Exact layout counts for fleets of straight ships that may touch, without visiting layouts.

Each ship lies horizontally or vertically. For one choice of orientations, enumerate the ships of the
minority orientation; the others then lie within single rows, which are independent, so a table per
row (how many ways each subset of those ships fits in the row's free cells) and a subset convolution
down the rows count the completions. The transposed board serves when most ships are vertical.
Used to check the uniform generator on 10x10 (issue 4 grows this into the inference engine).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from battleship.errors import RulesError
from battleship.rules import Rules, Spacing


@njit(cache=True, nogil=True)
def _row_table(cols, lengths):
    """``table[free][subset]``: ways to place the ships of ``subset`` in a row's free cells."""
    nships = lengths.shape[0]
    table = np.zeros((1 << cols, 1 << nships), dtype=np.int64)
    for free in range(1 << cols):
        table[free, 0] = 1
    for subset in range(1, 1 << nships):
        low = 0
        while not subset >> low & 1:
            low += 1
        rest = subset & ~(1 << low)
        length = lengths[low]
        for free in range(1 << cols):
            total = 0
            for left in range(cols - length + 1):
                piece = ((1 << length) - 1) << left
                if free & piece == piece:
                    total += table[free & ~piece, rest]
            table[free, subset] = total
    return table


@njit(cache=True, nogil=True)
def _count(rows, cols, blocked, lengths, vertical, table):
    """Layouts with the ships flagged ``vertical`` vertical and the rest horizontal."""
    nships = lengths.shape[0]
    vships = np.empty(nships, dtype=np.int64)
    nv = 0
    hset = 0
    for s in range(nships):
        if vertical[s]:
            vships[nv] = s
            nv += 1
        else:
            hset |= 1 << s
    full = (1 << cols) - 1
    used = np.zeros((nv + 1, rows), dtype=np.int64)
    for r in range(rows):
        used[0, r] = blocked[r]
    choice = np.full(nv + 1, -1, dtype=np.int64)
    acc = np.zeros(1 << nships, dtype=np.int64)
    nxt = np.zeros(1 << nships, dtype=np.int64)
    total = 0
    depth = 0
    while depth >= 0:
        if depth == nv:
            acc[:] = 0
            acc[0] = 1
            for r in range(rows):
                free = full & ~used[nv, r]
                nxt[:] = 0
                sub = hset
                while True:  # every subset S of the horizontal ships
                    a = sub
                    while True:  # every A within S: ships of A lie in row r
                        if acc[sub & ~a] and table[free, a]:
                            nxt[sub] += acc[sub & ~a] * table[free, a]
                        if a == 0:
                            break
                        a = (a - 1) & sub
                    if sub == 0:
                        break
                    sub = (sub - 1) & hset
                acc[:] = nxt
            total += acc[hset]
            depth -= 1
            continue
        length = lengths[vships[depth]]
        choice[depth] += 1
        if choice[depth] >= cols * (rows - length + 1):
            choice[depth] = -1
            depth -= 1
            continue
        top, col = divmod(choice[depth], cols)
        ok = True
        for r in range(top, top + length):
            if used[depth, r] >> col & 1:
                ok = False
                break
        if not ok:
            continue
        for r in range(rows):
            used[depth + 1, r] = used[depth, r]
        for r in range(top, top + length):
            used[depth + 1, r] |= 1 << col
        depth += 1
    return total


def count(rules: Rules, blocked: int = 0) -> int:
    """Number of layouts avoiding the ``blocked`` cells (straight ships, ships may touch)."""
    if rules.spacing is not Spacing.TOUCH or not all(s.is_straight for s in rules.fleet):
        raise RulesError("this counter handles straight ships that may touch")
    if max(rules.rows, rules.cols) > 16:
        raise RulesError("this counter handles boards up to 16 on a side")
    lengths = np.array([s.size for s in rules.fleet], dtype=np.int64)
    rows_mask = np.array([(blocked >> (r * rules.cols)) & ((1 << rules.cols) - 1) for r in range(rules.rows)])
    cols_mask = np.array(
        [
            sum(((blocked >> (r * rules.cols + c)) & 1) << r for r in range(rules.rows))
            for c in range(rules.cols)
        ]
    )
    table = _row_table(rules.cols, lengths)
    table_t = _row_table(rules.rows, lengths)
    nships, total = len(lengths), 0
    for vset in range(1 << nships):
        vertical = np.array([vset >> s & 1 for s in range(nships)], dtype=np.bool_)
        if (vertical & (lengths == 1)).any():
            continue  # a single cell has one placement: count it as horizontal only
        if 2 * vertical.sum() <= nships:
            total += int(_count(rules.rows, rules.cols, rows_mask.astype(np.int64), lengths, vertical, table))
        else:  # transposed: vertical ships become horizontal rows of the transposed board
            total += int(
                _count(rules.cols, rules.rows, cols_mask.astype(np.int64), lengths, ~vertical, table_t)
            )
    return total


def occupancy(rules: Rules) -> tuple[int, np.ndarray]:
    """The number of layouts and, per cell, the number that cover it."""
    total = count(rules)
    per_cell = np.array([total - count(rules, 1 << cell) for cell in range(rules.cells)], dtype=np.int64)
    return total, per_cell.reshape(rules.rows, rules.cols)
