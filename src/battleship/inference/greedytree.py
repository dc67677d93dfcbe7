"""Exact greedy play over an explicit list of layouts, as a game tree: the rest-of-game cost of a shot.

Greedy play (``optimal`` with ``tie=first``) fires at the unshot cell most remaining layouts put a
ship on, the first such cell in reading order. Over a list of layouts consistent with one board, the
shots greedy takes to finish every one of them is a tree: each shot splits the layouts by the
referee's answer (miss, hit, or the sinking the rules announce), and each group plays on. This
module counts that tree in a Numba kernel, so that a look-ahead shooter can ask, for each candidate
cell, how many shots the game takes in all when that cell is fired next and greedy plays on
(Bertsekas' rollout over greedy, computed over every layout rather than sampled).

Greedy's subtrees repeat between candidates, shots and games, so their costs are kept in a memo: a
fixed table keyed by a 128-bit hash of the subtree (its layouts, by content, and the cells shot),
which overwrites on overflow. It only ever holds exact costs, so a lost entry costs time, never
exactness; two distinct subtrees share a key with probability about ``entries**2 / 2**129``.
"""

from __future__ import annotations

import numpy as np

from battleship.jit import njit
from battleship.rng import mix64 as _mix
from battleship.rules import Rules
from battleship.tables import tables

MEMO_BITS = 21  # the memo holds 2**21 subtrees (48 MiB)
PROBES = 8  # slots looked at for a key before its home slot is overwritten
_SINKS = {"none": 0, "sunk": 1, "named": 2, "revealed": 3}


@njit(cache=True, nogil=True)
def _layout_keys(rows, salt):
    """Per layout, a 64-bit key of its content (the placement of each ship, in fleet order)."""
    out = np.zeros(rows.shape[0], dtype=np.uint64)
    for i in range(rows.shape[0]):
        h = np.uint64(salt)
        for s in range(rows.shape[1]):
            h = _mix(h + np.uint64(rows[i, s] + 1) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(s))
        out[i] = _mix(h)
    return out


@njit(cache=True, nogil=True)
def _lookup(memo_keys, memo_values, k1, k2):
    """The memo's cost for the key, or -1."""
    mask = memo_keys.shape[0] - 1
    home = int(k1 & np.uint64(mask))
    for probe in range(PROBES):
        slot = (home + probe) & mask
        if memo_keys[slot, 0] == k1 and memo_keys[slot, 1] == k2:
            return memo_values[slot]
        if memo_values[slot] < 0:
            return -1
    return -1


@njit(cache=True, nogil=True)
def _store(memo_keys, memo_values, k1, k2, cost):
    """Keep a cost (in a free slot near home, else over the home slot's)."""
    mask = memo_keys.shape[0] - 1
    home = int(k1 & np.uint64(mask))
    for probe in range(PROBES):
        slot = (home + probe) & mask
        if memo_values[slot] < 0:
            memo_keys[slot, 0], memo_keys[slot, 1], memo_values[slot] = k1, k2, cost
            return
    memo_keys[home, 0], memo_keys[home, 1], memo_values[home] = k1, k2, cost


@njit(cache=True, nogil=True)
def _answers(subset, cell, shot, ship_at, ship_cells, rows, sinks):
    """Per layout of ``subset``, the referee's answer to ``cell`` (``shot`` already holds it):
    0 miss, 1 hit, 2 + ship (named) or 2 + placement (revealed) or 2 (sunk) for a sinking."""
    out = np.zeros(len(subset), dtype=np.int64)
    for i in range(len(subset)):
        lay = subset[i]
        ship = ship_at[lay, cell]
        if ship < 0:
            continue
        if sinks == 0:
            out[i] = 1
            continue
        left = False
        for c in range(shot.shape[0]):
            if ship_cells[lay, ship, c] and not shot[c]:
                left = True
                break
        if left:
            out[i] = 1
        elif sinks == 1:
            out[i] = 2
        elif sinks == 2:
            out[i] = 2 + ship
        else:
            out[i] = 2 + rows[lay, ship]
    return out


@njit(cache=True, nogil=True)
def _greedy_cell(buf, lo, hi, shot, occupied):
    """The unshot cell most layouts of ``buf[lo:hi]`` put a ship on (the first of the most, as tie=first)."""
    cells = shot.shape[0]
    counts = np.zeros(cells, dtype=np.int64)
    for i in range(lo, hi):
        for c in range(cells):
            if occupied[buf[i], c]:
                counts[c] += 1
    best, cell = -2, 0
    for c in range(cells):
        n = -1 if shot[c] else counts[c]
        if n > best:
            best, cell = n, c
    return cell


@njit(cache=True, nogil=True)
def _subtree_key(buf, lo, hi, shot1, shot2, lkey1, lkey2):
    """The memo key of the layouts ``buf[lo:hi]`` on a board whose shots hash to (shot1, shot2)."""
    k1, k2 = shot1, shot2
    for i in range(lo, hi):
        k1 += lkey1[buf[i]]
        k2 += lkey2[buf[i]]
    return _mix(k1), _mix(k2 + np.uint64(hi - lo))


@njit(cache=True, nogil=True)
def _play(subset, shot, cell, shot1, shot2, tree, memo_keys, memo_values, costs):
    """Shots over ``subset`` from a board with ``shot`` fired at (hashed as ``shot1``, ``shot2``):
    ``cell`` fired next then greedy, or greedy from the start when ``cell`` is -1. When ``costs`` is
    not empty, each layout's own shots are written to it (by row) and the memo is not used.

    Depth first on an explicit stack (a recursive kernel cannot be cached): frame ``d`` holds its
    layouts in ``buf[lo[d]:hi[d]]``, sorted by answer, its children's after them."""
    occupied, ship_at, ship_cells, rows, sinks, lkey1, lkey2, ckey1, ckey2 = tree
    cells, n = shot.shape[0], len(subset)
    depth = cells + 2
    buf = np.empty(n * depth, dtype=np.int64)
    buf[:n] = subset
    marks = np.empty(n * depth, dtype=np.int64)  # each layout's answer to its frame's cell, by slot
    started = np.zeros(depth, dtype=np.bool_)
    lo, hi, pos = np.zeros(depth, np.int64), np.zeros(depth, np.int64), np.zeros(depth, np.int64)
    fired, total = np.zeros(depth, np.int64), np.zeros(depth, np.int64)
    keys = np.zeros((depth, 2), dtype=np.uint64)
    memoize = np.zeros(depth, dtype=np.bool_)
    boards = np.zeros((depth, cells), dtype=np.bool_)  # frame d's board with its cell fired
    hashes = np.zeros((depth, 2), dtype=np.uint64)  # of frame d's board before its cell
    hi[0], boards[0], hashes[0, 0], hashes[0, 1] = n, shot, shot1, shot2
    d, result, record = 0, 0, len(costs) > 0
    while d >= 0:
        if not started[d]:  # a new frame: its cell, answers and groups
            board = boards[d]
            c = cell if d == 0 else -1
            if c < 0 and record:
                memoize[d] = False
                c = _greedy_cell(buf, lo[d], hi[d], board, occupied)
            elif c < 0:
                k1, k2 = _subtree_key(buf, lo[d], hi[d], hashes[d, 0], hashes[d, 1], lkey1, lkey2)
                found = _lookup(memo_keys, memo_values, k1, k2)
                if found >= 0:  # known: handed straight to the parent
                    d -= 1
                    if d >= 0:
                        total[d] += found
                    else:
                        result = found
                    continue
                keys[d, 0], keys[d, 1], memoize[d] = k1, k2, True
                c = _greedy_cell(buf, lo[d], hi[d], board, occupied)
            else:
                memoize[d] = False
            fired[d] = c
            board[c] = True
            part = buf[lo[d] : hi[d]]
            answer = _answers(part, c, board, ship_at, ship_cells, rows, sinks)
            order = np.argsort(answer, kind="mergesort")
            buf[lo[d] : hi[d]] = part[order]
            marks[lo[d] : hi[d]] = answer[order]
            total[d], pos[d], started[d] = hi[d] - lo[d], lo[d], True
        if pos[d] >= hi[d]:  # every group done
            if memoize[d]:
                _store(memo_keys, memo_values, keys[d, 0], keys[d, 1], total[d])
            value = total[d]
            started[d] = False
            d -= 1
            if d >= 0:
                total[d] += value
            else:
                result = value
            continue
        start = pos[d]
        end = start
        while end < hi[d] and marks[end] == marks[start]:
            end += 1
        pos[d] = end
        board, kept = boards[d], 0
        for j in range(start, end):
            lay = buf[j]
            going = False
            for c in range(cells):
                if occupied[lay, c] and not board[c]:  # a ship cell left: the game goes on
                    going = True
                    break
            if going:
                buf[hi[d] + kept] = lay
                kept += 1
            elif record:
                costs[lay] = d + 1  # its game ended with this frame's shot
        if kept:
            e = d + 1
            lo[e], hi[e] = hi[d], hi[d] + kept
            boards[e] = board
            hashes[e, 0] = hashes[d, 0] ^ ckey1[fired[d]]
            hashes[e, 1] = hashes[d, 1] ^ ckey2[fired[d]]
            d = e
    return result


_NO_COSTS = np.zeros(0, dtype=np.int64)
_SMALL_MEMO = (np.zeros((1, 2), dtype=np.uint64), np.full(1, -1, dtype=np.int64))  # never read


def new_memo() -> tuple[np.ndarray, np.ndarray]:
    """An empty memo table: keys (two uint64 a slot) and costs (-1: free)."""
    return np.zeros((1 << MEMO_BITS, 2), dtype=np.uint64), np.full(1 << MEMO_BITS, -1, dtype=np.int64)


class GreedyTree:
    """Exact greedy play (``optimal``, ``tie=first``) over an explicit list of layouts, as a tree.

    ``rows`` are layouts as placement indices in fleet order (all consistent with one observation).
    :meth:`after` counts, over those layouts, the shots a game takes when ``cell`` is fired next and
    greedy plays on: the exact rest-of-game cost of a candidate. ``memo`` (from :func:`new_memo`) may
    be shared by trees of the same rules: its keys name layouts by content. Without one, a tree makes
    its own when first asked for a sum (:meth:`costs` never needs one).
    """

    def __init__(self, rules: Rules, rows: np.ndarray, memo: tuple[np.ndarray, np.ndarray] | None = None):
        t = tables(rules)
        self.memo = memo
        rows = np.ascontiguousarray(rows, dtype=np.int64)
        layouts, ships = rows.shape
        ship_cells = np.zeros((layouts, ships, rules.cells), dtype=np.bool_)
        for s in range(ships):
            cells = t.cell_list[rows[:, s], : t.size[s]]
            ship_cells[np.arange(layouts)[:, None], s, cells] = True
        occupied = np.logical_or.reduce(ship_cells, axis=1)  # per layout and cell: a ship there
        ship_at = np.where(occupied, ship_cells.argmax(axis=1), -1).astype(np.int64)
        each_cell = np.arange(rules.cells, dtype=np.int64)[:, None]  # a cell's key as a one-ship layout's
        self.tree = (
            occupied,
            ship_at,
            ship_cells,
            rows,
            _SINKS[rules.sinks.value],
            _layout_keys(rows, 1),
            _layout_keys(rows, 2),
            _layout_keys(each_cell, 7),
            _layout_keys(each_cell, 11),
        )

    def _play(self, subset: np.ndarray, shot: np.ndarray, cell: int) -> int:
        """The kernel's count (``cell`` -1: greedy from the start)."""
        subset = np.ascontiguousarray(subset, dtype=np.int64)
        shot = np.ascontiguousarray(shot, dtype=np.bool_)
        if self.memo is None:
            self.memo = new_memo()
        h1, h2 = (np.bitwise_xor.reduce(keys[shot]) for keys in self.tree[7:9])  # 0 with nothing shot
        return int(_play(subset, shot, cell, np.uint64(h1), np.uint64(h2), self.tree, *self.memo, _NO_COSTS))

    def costs(self, subset: np.ndarray, shot: np.ndarray, cell: int) -> np.ndarray:
        """Per layout of ``subset`` (in that order), the shots its game takes when ``cell`` is fired
        next and greedy plays on (the memo unused: it holds sums, not each layout's shots)."""
        subset = np.ascontiguousarray(subset, dtype=np.int64)
        shot = np.ascontiguousarray(shot, dtype=np.bool_)
        out = np.zeros(len(self.tree[3]), dtype=np.int64)
        _play(subset, shot, cell, np.uint64(0), np.uint64(0), self.tree, *_SMALL_MEMO, out)
        return out[subset]

    def answers(self, subset: np.ndarray, board: np.ndarray, cell: int) -> np.ndarray:
        """Per layout of ``subset``, the referee's answer to ``cell`` (``board`` already holds it): 0 miss,
        1 hit, more for a sinking (one code per distinct announcement)."""
        subset = np.ascontiguousarray(subset, dtype=np.int64)
        return _answers(subset, cell, board, *self.tree[1:5])  # ship_at, ship_cells, rows, sinks

    def after(self, subset: np.ndarray, shot: np.ndarray, cell: int) -> int:
        """Shots over the layouts ``subset`` (indices) when ``cell`` is fired next, then greedy to the end."""
        return self._play(subset, shot, cell)

    def shots(self, subset: np.ndarray, shot: np.ndarray) -> int:
        """Shots greedy takes to finish every layout of ``subset`` from a board with ``shot`` fired at."""
        return self._play(subset, shot, -1)
