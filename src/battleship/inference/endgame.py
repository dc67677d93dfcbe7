"""Play solved exactly: the fewest expected shots to sink every ship, over a list of possible layouts.

With the consistent layouts listed, the expected number of shots left under the best play is

    E(S) = 0                                  when every ship cell has been hit,
    E(S) = 1 + min over cells c of  sum over answers a of  P(a) * E(S_a)

where ``S_a`` are the layouts that answer ``a`` to a shot at ``c`` (miss, hit, or the sinking the
rules announce). The search is a Numba kernel (``_solve``, on an explicit stack of frames); what
lets it solve boards of 4x5 to 5x5 and 4x6 with two ships from the first shot, and 5x5 with three
ships apart without announcements (hundreds of thousands to millions of states;
docs/research/limit.md has the figures):

- **A state is what is left to hit**, not the shots fired. A layout's future answers depend only on
  its ship cells not yet hit (per ship where the rules announce sinkings, as one set where they do
  not): its *signature*, a row of bitboards. A state is the multiset of signatures with their
  weights (layouts that can no longer be told apart merge), so different shot histories that leave
  the same signatures are one state. Only the cells some signature still holds matter: they are
  renumbered densely, so a state fits 64-bit words whatever the board (at most 64 such cells).
- **A memo keyed on a 128-bit hash** of the state: each signature hashed from random keys of its
  cells (Zobrist), the state's hash the weighted sum of its signatures' (so the order of the rows
  does not matter, and weights are divided by their common factor first). With ``symmetric=True``
  the key is the least hash over the board's rotations and reflections, so a state and its mirror
  images share one entry. The memo is a fixed table that overwrites on overflow: it holds exact
  values and lower bounds (below), so losing one costs time, never exactness. Two distinct states share a key with
  probability about ``states**2 / 2**129``.
- **Bounds**: cells no signature holds are never fired; cells lying in the same signatures' slots
  are interchangeable and tried once; where sinkings are not announced, or announced with the sunk
  ship's cells shown, a cell every layout puts a ship on is fired first without a search (it must
  be fired some time, and firing it earlier can only tell more). Not under named or anonymous
  sinkings: there a sure hit fired early turns a later "hit" into "sunk" without saying which ship
  the sure cell belongs to, which can tell less (a 3x4 board with a square and an S tetromino:
  9.333 shots that way, 9.25 in truth). Cells are tried most likely first, and a cell is dropped as
  soon as its answers' lower bounds show it cannot beat the best so far; the search stops when the
  best reaches the state's own bound. A state's bound is its cells left to hit plus a bound on the
  misses to come: the next shot's least miss chance, and without announcements the most of that
  and a count of answer sequences (``_misses``): a game ends on its last hit, so layouts with
  different cells left end on different answers, and there are only C(left - 1 + m, m) places for
  ``m`` misses among the hits: the likeliest set of cells left may cost no miss, the next few one,
  and so on. It takes the states of 4x5 with the ships apart from 155,259 to 45,146. Announced
  sinkings multiply the sequences by what they can say, which leaves the count too loose to pay for
  itself (4x5 apart, `sunk`: 148,853 states to 148,677, in more time).
- **Cut-offs** (without announcements only): each answer is told the value past which its cell
  cannot beat the best (alpha-beta for expectations); a state that finds no cell below it stops,
  and the memo keeps the least of its cells' bounds as a lower bound (a value of -2 - bound), for
  the next time it is met. With the strong bound above that takes 4x5 apart to 6,421 states and 5x5
  apart from 1.8 million to 252,504; with announcements the bounds are too loose, states cut short
  are searched again and again, and the states grow (4x5 apart, `sunk`: 148,677 to 444,299 with
  the count of misses in place).

The search gives up (returns None) past a budget of solved states, or when more than 64 cells are
still in play, so a caller can fall back; it reads a :class:`~battleship.stop.Stop` flag every
1,024 states and raises :class:`~battleship.stop.Stopped` when asked to stop.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from battleship.jit import njit
from battleship.rules import Rules, Sinks
from battleship.stop import Stop, run

Signature = object  # an int (no announcements) or a tuple of per-ship masks (see _signature)

NONE, SUNK, NAMED, REVEALED = 0, 1, 2, 3  # the kernel's sink modes
MODES = {Sinks.NONE: NONE, Sinks.SUNK: SUNK, Sinks.NAMED: NAMED, Sinks.REVEALED: REVEALED}
# the sink rules under which a sure hit is best fired at once (see the module docstring)
SURE_HIT_FIRST = (Sinks.NONE, Sinks.REVEALED)
MAX_CELLS = 64  # cells still in play that a state may hold (one uint64 word)
MAX_MEMO = 1 << 24  # entries of the memo table at most by default (24 bytes each)
LARGEST_MEMO = 1 << 26  # entries at most when asked for (1.5 GiB)
PROBES = 16  # slots looked at for a key before the memo overwrites its home slot
STOP_EVERY = 1023  # the stop flag is read when the solved states & this == 0

_ONE = np.uint64(1)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DEBRUIJN_CELL = np.zeros(64, dtype=np.int64)
for _c in range(64):
    _DEBRUIJN_CELL[((1 << _c) * 0x03F79D71B4CB0A89 % 2**64) >> 58] = _c


@njit(cache=True, nogil=True, inline="always")
def _mix(x):
    """SplitMix64's finaliser: a uint64 scrambled."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(cache=True, nogil=True, inline="always")
def _lowest(m):
    """The index of the lowest set bit of a nonzero uint64 (De Bruijn)."""
    return _DEBRUIJN_CELL[((m & (~m + _ONE)) * _DEBRUIJN) >> np.uint64(58)]


@njit(cache=True, nogil=True, inline="always")
def _popcount(x):
    """Set bits of a uint64."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, nogil=True)
def _settle(row, k, s, mode):
    """Move slot ``s`` (just shrunk) right until the row's slots are in descending order again."""
    while s + 1 < k:
        a, b = row[s], row[s + 1]
        if mode == REVEALED and a == b:
            a, b = row[k + s], row[k + s + 1]
        if a >= b:
            return
        row[s], row[s + 1] = row[s + 1], row[s]
        if mode == REVEALED:
            row[k + s], row[k + s + 1] = row[k + s + 1], row[k + s]
        s += 1


@njit(cache=True, nogil=True)
def _fire(row, k, mode, bit):
    """Fire at ``bit`` on a signature row in place; the answer as (code, whole ship for revealed).

    Codes: 0 miss, 1 hit, 2 sunk (anonymous), 3 sunk with its cells shown, 4 + s ship ``s`` sunk.
    """
    if mode == NONE:
        if row[0] & bit:
            row[0] &= ~bit
            return 1, np.uint64(0)
        return 0, np.uint64(0)
    for s in range(k):
        if row[s] & bit:
            row[s] &= ~bit
            code, whole = 1, np.uint64(0)
            if row[s] == 0:
                if mode == NAMED:
                    code = 4 + s
                elif mode == SUNK:
                    code = 2
                else:
                    code, whole = 3, row[k + s]
                    row[k + s] = 0
            if mode != NAMED:
                _settle(row, k, s, mode)
            return code, whole
    return 0, np.uint64(0)


@njit(cache=True, nogil=True)
def _cells_key(m, keys, p, lane):
    """The sum of the cells' random keys of a mask, under symmetry ``p``."""
    z = np.uint64(0)
    while m:
        z += keys[p, lane, _lowest(m)]
        m &= m - _ONE
    return z


@njit(cache=True, nogil=True)
def _row_hash(row, nl, k, mode, keys, p, lane):
    """A signature's hash under symmetry ``p``: slots summed (named ships salted by their index)."""
    h = np.uint64(0)
    for s in range(nl):
        z = _cells_key(row[s], keys, p, lane)
        if mode == REVEALED:
            z = _mix(z) + _cells_key(row[k + s], keys, p, lane) * _GOLDEN
        salt = np.uint64(s + 1) if mode == NAMED else _ONE
        h += _mix(z + salt * _GOLDEN)
    return _mix(h)


@njit(cache=True, nogil=True)
def _cells_keys(m, keys, p):
    """The sums of the cells' random keys of a mask in both lanes, under symmetry ``p``."""
    z0, z1 = np.uint64(0), np.uint64(0)
    while m:
        c = _lowest(m)
        z0 += keys[p, 0, c]
        z1 += keys[p, 1, c]
        m &= m - _ONE
    return z0, z1


@njit(cache=True, nogil=True)
def _row_hashes(row, nl, k, mode, keys, p):
    """:func:`_row_hash` in both lanes at once (one pass over the cells)."""
    h0, h1 = np.uint64(0), np.uint64(0)
    for s in range(nl):
        z0, z1 = _cells_keys(row[s], keys, p)
        if mode == REVEALED:
            y0, y1 = _cells_keys(row[k + s], keys, p)
            z0 = _mix(z0) + y0 * _GOLDEN
            z1 = _mix(z1) + y1 * _GOLDEN
        salt = np.uint64(s + 1) if mode == NAMED else _ONE
        h0 += _mix(z0 + salt * _GOLDEN)
        h1 += _mix(z1 + salt * _GOLDEN)
    return _mix(h0), _mix(h1)


@njit(cache=True, nogil=True)
def _key(rows, w, nl, k, mode, keys):
    """The state's 128-bit memo key: the least over the symmetries of its weighted signature hashes."""
    g = w[0]
    for i in range(1, w.shape[0]):
        a, b = g, w[i]
        while b:
            a, b = b, a % b
        g = a
    best1, best2 = ~np.uint64(0), ~np.uint64(0)
    for p in range(keys.shape[0]):
        h1, h2 = np.uint64(0), np.uint64(0)
        for i in range(rows.shape[0]):
            weight = np.uint64(w[i] // g)
            a, b = _row_hashes(rows[i], nl, k, mode, keys, p)
            h1 += weight * a
            h2 += weight * b
        if h1 < best1 or (h1 == best1 and h2 < best2):
            best1, best2 = h1, h2
    if best1 == 0 and best2 == 0:  # (0, 0) marks an empty slot of the memo
        best2 = _ONE
    return best1, best2


@njit(cache=True, nogil=True)
def _lookup(memo_keys, memo_values, h1, h2):
    """The memo's value for a key, or -1."""
    mask = memo_values.shape[0] - 1
    i = np.int64(h1 & np.uint64(mask))
    for _ in range(PROBES):
        if memo_keys[i, 0] == h1 and memo_keys[i, 1] == h2:
            return memo_values[i]
        if memo_keys[i, 0] == 0 and memo_keys[i, 1] == 0:
            return -1.0
        i = (i + 1) & mask
    return -1.0


@njit(cache=True, nogil=True)
def _store(memo_keys, memo_values, h1, h2, value):
    """Keep a value: in the key's slot or the first free one near it, else over its home slot.

    A value of -2 or less is a lower bound ``-2 - value`` (a state cut short); it is kept only where
    the key has neither its exact value nor a higher bound.
    """
    mask = memo_values.shape[0] - 1
    home = np.int64(h1 & np.uint64(mask))
    i = home
    for _ in range(PROBES):
        if (memo_keys[i, 0] == 0 and memo_keys[i, 1] == 0) or (
            memo_keys[i, 0] == h1 and memo_keys[i, 1] == h2
        ):
            home = i
            break
        i = (i + 1) & mask
    if memo_keys[home, 0] == h1 and memo_keys[home, 1] == h2:
        kept = memo_values[home]
        if value <= -2.0 and (
            kept >= 0.0 or kept <= value
        ):  # a bound never replaces a value or a higher bound
            return
    memo_keys[home, 0], memo_keys[home, 1] = h1, h2
    memo_values[home] = value


@njit(cache=True, nogil=True)
def _cover(rows, w, nl):
    """Per cell, the weight of the signatures that still hold it; and every cell held."""
    cover = np.zeros(MAX_CELLS, dtype=np.int64)
    union = np.uint64(0)
    for i in range(rows.shape[0]):
        m = np.uint64(0)
        for s in range(nl):
            m |= rows[i, s]
        union |= m
        while m:
            cover[_lowest(m)] += w[i]
            m &= m - _ONE
    return cover, union


@njit(cache=True, nogil=True)
def _left(rows, nl):
    """Cells left to hit (the same in every signature of a state)."""
    m = np.uint64(0)
    for s in range(nl):
        m |= rows[0, s]
    return m


@njit(cache=True, nogil=True)
def _misses(rows, w, left):
    """Without announcements, a lower bound on the expected misses still to come (a Kraft count).

    A game's shots are ``left`` hits and some misses, ending on a hit; layouts with different cells
    left to hit can never end on the same answers (each ends with exactly its own cells hit). With
    ``m`` misses there are C(left - 1 + m, m) answer sequences: so the likeliest set of cells left may
    take no miss, the next ``left`` ones one miss, and so on. (Announced sinkings multiply the
    sequences by what they can say, and the count gets too loose to pay for itself.)
    """
    n = rows.shape[0]
    order = np.argsort(rows[:, 0])
    merged = np.empty(n, dtype=np.int64)  # the weights of the distinct sets of cells left
    groups = 0
    for j in range(n):
        i = order[j]
        if groups > 0 and rows[i, 0] == rows[order[j - 1], 0]:
            merged[groups - 1] += w[i]
        else:
            merged[groups] = w[i]
            groups += 1
    heavy = np.sort(merged[:groups])[::-1]
    misses, room, m, places = 0.0, 1.0, 0, 1.0  # room: answer sequences with m misses not yet taken
    for j in range(groups):
        while room < 1.0:
            m += 1
            places = places * (left - 1 + m) / m  # C(left - 1 + m, m)
            room = places
        misses += m * heavy[j]
        room -= 1.0
    return misses / w.sum()


@njit(cache=True, nogil=True)
def _floor(rows, w, nl, k, mode):
    """A lower bound on a state's value: its cells left to hit, plus the most of two bounds on the
    misses to come: the next shot's least miss chance, and :func:`_misses`."""
    left = _popcount(_left(rows, nl))
    if rows.shape[0] == 1 or left == 0:
        return float(left)
    cover, _ = _cover(rows, w, nl)
    least = 1.0 - cover.max() / w.sum()
    if mode != NONE:  # the sinkings' answers make the count below too loose to pay for itself
        return left + least
    return left + max(least, _misses(rows, w, left))


@njit(cache=True, nogil=True)
def _candidates(rows, w, nl, cover, union):
    """The cells worth trying, most likely hit first: one of each set of interchangeable cells.

    Two cells held by the same slots of the same signatures are interchangeable (swapping them maps
    the state to itself); each cell's pattern is hashed from the (row, slot) pairs holding it.
    """
    pattern = np.zeros(MAX_CELLS, dtype=np.uint64)
    for i in range(rows.shape[0]):
        for s in range(nl):
            tag = _mix(np.uint64(i * nl + s + 1))
            m = rows[i, s]
            while m:
                pattern[_lowest(m)] += tag
                m &= m - _ONE
    cells = np.empty(MAX_CELLS, dtype=np.int64)
    n = 0
    m = union
    while m:
        c = _lowest(m)
        m &= m - _ONE
        fresh = True
        for j in range(n):
            if pattern[cells[j]] == pattern[c]:
                fresh = False
                break
        if fresh:  # insertion in order of cover, most first (ties: lower cell first)
            j = n
            while j > 0 and cover[cells[j - 1]] < cover[c]:
                cells[j] = cells[j - 1]
                j -= 1
            cells[j] = c
            n += 1
    return cells[:n]


@njit(cache=True, nogil=True)
def _children(rows, w, nl, k, mode, bit, keys):
    """The states after a shot at ``bit``, one per answer: their rows and weights (equal rows merged),
    and where each answer's rows start."""
    n = rows.shape[0]
    after = rows.copy()
    group = np.empty(n, dtype=np.int64)
    codes = np.empty(n, dtype=np.int64)
    wholes = np.empty(n, dtype=np.uint64)
    hashes = np.empty(n, dtype=np.uint64)
    groups = 0
    for i in range(n):
        code, whole = _fire(after[i], k, mode, bit)
        g = 0
        while g < groups and not (codes[g] == code and wholes[g] == whole):
            g += 1
        if g == groups:
            codes[g], wholes[g] = code, whole
            groups += 1
        group[i] = g
        hashes[i] = _row_hash(after[i], nl, k, mode, keys, 0, 0)
    order = np.argsort(hashes)
    place = np.zeros(groups + 1, dtype=np.int64)  # rows by answer, each answer's by hash (counting sort)
    for i in range(n):
        place[group[i] + 1] += 1
    for g in range(groups):
        place[g + 1] += place[g]
    sorted_rows = np.empty(n, dtype=np.int64)
    for i in order:
        sorted_rows[place[group[i]]] = i
        place[group[i]] += 1
    out = np.empty_like(after)
    weights = np.empty(n, dtype=np.int64)
    starts = np.empty(groups + 1, dtype=np.int64)
    m, last, g = 0, -1, -1
    for i in sorted_rows:
        while g < group[i]:  # the next answer's rows start here
            g += 1
            starts[g] = m
            last = -1
        if last >= 0 and hashes[i] == hashes[last] and _same(after[i], after[last]):
            weights[m - 1] += w[i]
            continue
        out[m] = after[i]
        weights[m] = w[i]
        last = i
        m += 1
    starts[groups] = m
    return out[:m], weights[:m], starts


@njit(cache=True, nogil=True, inline="always")
def _same(a, b):
    """True when two signature rows are equal."""
    for s in range(a.shape[0]):
        if a[s] != b[s]:
            return False
    return True


@njit(cache=True, nogil=True)
def _answers(rows, w, total, bit, nl, k, mode, keys):
    """The states after firing at ``bit`` (rows, weights, where each answer starts), each answer's
    probability, and its share of the lower bound (its chance times its floor)."""
    after, weights, starts = _children(rows, w, nl, k, mode, bit, keys)
    groups = starts.shape[0] - 1
    shares = np.empty(groups)
    floors = np.empty(groups)
    for g in range(groups):
        a, b = starts[g], starts[g + 1]
        shares[g] = weights[a:b].sum() / total
        floors[g] = _floor(after[a:b], weights[a:b], nl, k, mode) * shares[g]
    return after, weights, starts, shares, floors


@njit(cache=True, nogil=True)
def _open(rows, w, nl, k, mode, keys, memo_keys, memo_values, counts, flag, root, beta):
    """A state met: (value, exact, best cell, its key) when known at once, else the cells to try and
    its floor.

    Known at once: every ship hit, one layout left, or (below the root, which is searched anew for its
    best cell in its own orientation) the memo; or known to be worth ``beta`` or more (``exact``
    False, the value a lower bound): by the memo's bound, or by its own. Counts the state as solved
    otherwise, and sets ``counts[2]`` when the search must give up (1: the stop flag; 2: the budget).
    """
    none = np.empty(0, dtype=np.int64)
    left = _left(rows, nl)
    if left == 0:
        return 0.0, True, -1, none, 0.0, np.uint64(0), np.uint64(0)
    if rows.shape[0] == 1:  # a known layout: one shot per cell left
        return float(_popcount(left)), True, _lowest(left), none, 0.0, np.uint64(0), np.uint64(0)
    h1, h2 = _key(rows, w, nl, k, mode, keys)
    floor = 0.0
    if not root:
        known = _lookup(memo_keys, memo_values, h1, h2)
        if known >= 0:
            return known, True, -1, none, 0.0, h1, h2
        if known <= -2.0:
            floor = -2.0 - known
            if floor >= beta:
                return floor, False, -1, none, 0.0, h1, h2
    floor = max(floor, _floor(rows, w, nl, k, mode))
    if floor >= beta:
        return floor, False, -1, none, 0.0, h1, h2
    counts[0] += 1
    if counts[0] > counts[1]:
        counts[2] = 2
    elif counts[0] & STOP_EVERY == 0 and flag[0] != 0:
        counts[2] = 1
    cover, union = _cover(rows, w, nl)
    total = w.sum()
    cells = _candidates(rows, w, nl, cover, union)
    if cover[cells[0]] == total and mode in (NONE, REVEALED):  # a sure hit: fire it first
        cells = cells[:1]
    return -1.0, False, -1, cells, floor, h1, h2


@njit(cache=True, nogil=True)
def _solve(rows, w, nl, k, mode, keys, memo_keys, memo_values, counts, flag):
    """(expected shots left, best cell) of a state: the recursion of the module docstring, run on an
    explicit stack of frames (Numba cannot cache recursive functions), one frame per shot fired.

    A frame tries its cells in turn; for each, its answers' states are solved one by one (a frame
    deeper each) until their sum plus the lower bounds of those not yet solved cannot beat the best.
    Each answer is told the value past which its cell cannot beat the best (its ``beta``): a state
    that finds no cell below its beta stops there, and its parent drops the cell (alpha-beta for
    expectations; the state's memo entry is then that lower bound, not a value).
    """
    depth = MAX_CELLS + 2  # a shot a frame, and a frame for the state after the last
    states = [rows for _ in range(depth)]
    weights = [w for _ in range(depth)]
    after = [rows for _ in range(depth)]
    after_w = [w for _ in range(depth)]
    starts = [w for _ in range(depth)]
    shares = [np.empty(0) for _ in range(depth)]
    floors = [np.empty(0) for _ in range(depth)]
    cells = [w for _ in range(depth)]
    keys1 = np.zeros(depth, dtype=np.uint64)
    keys2 = np.zeros(depth, dtype=np.uint64)
    tried = np.zeros(depth, dtype=np.int64)  # cells tried, answers solved
    answer = np.zeros(depth, dtype=np.int64)
    best = np.zeros(depth)
    best_cell = np.zeros(depth, dtype=np.int64)
    found = np.zeros(depth, dtype=np.bool_)  # a cell below the frame's beta found
    cut = np.zeros(depth, dtype=np.bool_)  # an answer of the current cell came back past its beta
    low = np.zeros(depth)  # the least lower bound of the cells dropped so far
    beta = np.full(depth, np.inf)  # past this the frame's value is not needed
    floor = np.zeros(depth)  # the frame's own lower bound
    sofar = np.zeros(depth)  # the current cell's answers solved so far, weighted
    slack = np.zeros(depth)  # the lower bounds of its answers not yet solved, weighted
    d, opening, value, exact = 0, True, 0.0, True
    while True:
        if opening:  # a new state on top of the stack
            value, exact, cell, cells[d], floor[d], keys1[d], keys2[d] = _open(
                states[d],
                weights[d],
                nl,
                k,
                mode,
                keys,
                memo_keys,
                memo_values,
                counts,
                flag,
                d == 0,
                beta[d],
            )
            if counts[2]:
                return np.nan, -1
            opening = False
            if value < 0:  # to be searched
                tried[d], best[d], best_cell[d], found[d], low[d] = 0, beta[d], cells[d][0], False, np.inf
                answer[d] = -1
            elif d == 0:
                return value, cell
            else:
                d -= 1
                sofar[d] += value * shares[d][answer[d]]
                cut[d] |= not exact
                answer[d] += 1
        if answer[d] < 0 or cut[d] or sofar[d] + slack[d] >= best[d] - 1.0:  # next cell (or none left)
            if answer[d] >= 0:  # the cell is dropped: at least this
                low[d] = min(low[d], 1.0 + sofar[d] + slack[d])
                tried[d] += 1
            if tried[d] == cells[d].shape[0] or best[d] <= floor[d] + 1e-12:
                exact = found[d]
                if not exact:  # no cell below beta: worth the least of its cells' bounds (untried: the floor)
                    untried = floor[d] if tried[d] < cells[d].shape[0] else np.inf
                    best[d] = max(min(low[d], untried), beta[d])
                _store(memo_keys, memo_values, keys1[d], keys2[d], best[d] if exact else -2.0 - best[d])
                if d == 0:
                    return best[0], best_cell[0]
                value = best[d]
                d -= 1
                sofar[d] += value * shares[d][answer[d]]
                cut[d] |= not exact
                answer[d] += 1
                continue
            total = weights[d].sum()
            bit = _ONE << np.uint64(cells[d][tried[d]])
            after[d], after_w[d], starts[d], shares[d], floors[d] = _answers(
                states[d], weights[d], total, bit, nl, k, mode, keys
            )
            answer[d], sofar[d], slack[d], cut[d] = 0, 0.0, floors[d].sum(), False
        elif answer[d] == shares[d].shape[0]:  # every answer solved, and better than the best
            best[d], best_cell[d], found[d] = 1.0 + sofar[d], cells[d][tried[d]], True
            answer[d] = -1
            tried[d] += 1
        else:  # solve the next answer a frame deeper
            a, b = starts[d][answer[d]], starts[d][answer[d] + 1]
            slack[d] -= floors[d][answer[d]]
            states[d + 1] = after[d][a:b].copy()
            weights[d + 1] = after_w[d][a:b].copy()
            if mode == NONE:  # elsewhere the bounds are too loose: states cut short are searched again
                beta[d + 1] = (best[d] - 1.0 - sofar[d] - slack[d]) / shares[d][answer[d]]
            d += 1
            opening = True


def _answer(rules: Rules, ships: tuple[int, ...], shots: int, cell: int) -> object:
    """What the referee answers to a shot at ``cell`` on the layout ``ships`` (masks), after ``shots``."""
    bit = 1 << cell
    for s, mask in enumerate(ships):
        if mask & bit:
            if rules.sinks is Sinks.NONE or mask & ~(shots | bit):
                return "hit"
            return {Sinks.SUNK: "sunk", Sinks.NAMED: ("sunk", s), Sinks.REVEALED: ("sunk", mask)}[rules.sinks]
    return "miss"


def board_symmetries(rows: int, cols: int) -> list[tuple[int, ...]]:
    """The board's rotations and reflections as cell permutations (8 on a square board, else 4)."""
    Map = Callable[[int, int], tuple[int, int]]

    def transposed(f: Map) -> Map:
        return lambda r, c: f(c, r)

    maps: list[Map] = [
        lambda r, c: (r, c),
        lambda r, c: (rows - 1 - r, c),
        lambda r, c: (r, cols - 1 - c),
    ]
    maps.append(lambda r, c: (rows - 1 - r, cols - 1 - c))
    if rows == cols:
        maps += [transposed(f) for f in list(maps)]
    perms = []
    for f in maps:
        perm = [0] * (rows * cols)
        for cell in range(rows * cols):
            r, c = f(*divmod(cell, cols))
            perm[cell] = r * cols + c
        perms.append(tuple(perm))
    return perms


def _signature(sinks: Sinks, ships: tuple[int, ...], shots: int) -> Signature:
    """All that a layout's future answers depend on, given the shots fired so far.

    No announcements: the cells left to hit. Anonymous sinkings: the set of ships' cells left.
    Named: the cells left per ship, in fleet order. Revealed: (cells left, whole ship) per ship afloat.
    """
    if sinks is Sinks.NONE:
        return sum(ships) & ~shots
    if sinks is Sinks.NAMED:
        return tuple(m & ~shots for m in ships)
    if sinks is Sinks.SUNK:
        return tuple(sorted(m & ~shots for m in ships if m & ~shots))
    return tuple(sorted((m & ~shots, m) for m in ships if m & ~shots))


def _masks(sinks: Sinks, signature: Signature) -> list[int]:
    """Every mask a signature holds (the cells it still has in play)."""
    if sinks is Sinks.NONE:
        return [signature]  # type: ignore[list-item]
    if sinks is Sinks.REVEALED:
        return [m for pair in signature for m in pair]  # type: ignore[attr-defined]
    return list(signature)  # type: ignore[call-overload]


class Solver:
    """Expected shots left under the best play, over an explicit list of layouts (tuples of masks).

    What one call solves stays in the memo for the next (the same rules, any layouts and shots).
    """

    def __init__(
        self,
        rules: Rules,
        budget: int = 5_000,
        symmetric: bool = False,
        stop: Stop | None = None,
        memo: int | None = None,
    ):
        """``memo``: entries of the memo table (rounded up to a power of two, at most
        ``LARGEST_MEMO``); by default twice the budget, at most ``MAX_MEMO``."""
        self.rules = rules
        self.budget = budget
        self.stop = stop
        self.visits = 0  # states the last call solved
        self._counts = np.zeros(3, dtype=np.int64)  # the kernel's: states so far, budget, why it gave up
        self.perms = np.array(
            board_symmetries(rules.rows, rules.cols) if symmetric else [tuple(range(rules.cells))],
            dtype=np.int64,
        )
        # random keys per cell, fixed so that a search is the same on every run (two 64-bit lanes)
        self.zobrist = np.random.default_rng(0x5EED).integers(
            0, 2**64 - 1, size=(2, rules.cells), dtype=np.uint64, endpoint=True
        )
        wanted = min(MAX_MEMO, 2 * budget) if memo is None else min(LARGEST_MEMO, memo - 1)
        size = 1 << max(12, wanted.bit_length())
        self.memo_keys = np.zeros((size, 2), dtype=np.uint64)
        self.memo_values = np.zeros(size, dtype=np.float64)

    def solve(self, layouts: Iterable[tuple[int, ...]], shots: int) -> tuple[float, int] | None:
        """(expected shots left, best cell) for these equally likely layouts; None past the budget
        (or with more than 64 cells in play). Raises :class:`~battleship.stop.Stopped` on a stop."""
        self.visits = 0
        state = self.state(layouts, shots)
        if state is None:
            return None
        rows, w, cells = state
        sinks = self.rules.sinks
        nl = 1 if sinks is Sinks.NONE else len(self.rules.fleet)
        keys = np.ascontiguousarray(self.zobrist[:, self.perms[:, cells]].transpose(1, 0, 2))
        counts = self._counts = np.array([0, self.budget, 0], dtype=np.int64)
        flag = self.stop.flag if self.stop is not None else np.zeros(1, dtype=np.int64)
        args = (nl, len(self.rules.fleet), MODES[sinks], keys, self.memo_keys, self.memo_values, counts, flag)
        try:
            if self.stop is None:
                value, cell = _solve(rows, w, *args)
            else:  # in a worker thread, so that a deadline sets the flag while the kernel runs
                value, cell = run(_solve, rows, w, *args, stop=self.stop)
        finally:
            self.visits = int(counts[0])
        if counts[2]:
            return None
        return float(value), (cells[cell] if cell >= 0 else -1)

    def state(
        self, layouts: Iterable[tuple[int, ...]], shots: int
    ) -> tuple[np.ndarray, np.ndarray, list[int]] | None:
        """The kernel's state for these layouts after ``shots``: its signature rows, their weights
        and the board cells its dense cells stand for; None with no layout or past 64 cells in play."""
        sinks = self.rules.sinks
        weights: dict[Signature, int] = {}
        for ships in layouts:
            sig = _signature(sinks, ships, shots)
            weights[sig] = weights.get(sig, 0) + 1
        live = 0
        for sig in weights:
            for m in _masks(sinks, sig):
                live |= m
        cells = [c for c in range(self.rules.cells) if live >> c & 1]
        if len(cells) > MAX_CELLS or not weights:
            return None
        rows = np.array([self._row(sig, cells) for sig in weights], dtype=np.uint64)
        return rows, np.array(list(weights.values()), dtype=np.int64), cells

    @property
    def solving(self) -> int:
        """States solved so far by the call under way (another thread may read it while it runs)."""
        return int(self._counts[0])

    def _row(self, sig: Signature, cells: list[int]) -> list[int]:
        """A signature as the kernel's row of masks over the cells in play (slots in descending order
        where the ships are not named; revealed: the cells left, then the whole ships)."""
        index = {c: i for i, c in enumerate(cells)}

        def dense(m: int) -> int:
            return sum(1 << index[c] for c in range(m.bit_length()) if m >> c & 1)

        k, sinks = len(self.rules.fleet), self.rules.sinks
        if sinks is Sinks.NONE:
            return [dense(sig)]  # type: ignore[arg-type]
        if sinks is Sinks.NAMED:
            return [dense(m) for m in sig]  # type: ignore[attr-defined]
        if sinks is Sinks.SUNK:
            lefts = sorted((dense(m) for m in sig), reverse=True)  # type: ignore[attr-defined]
            return lefts + [0] * (k - len(lefts))
        pairs = sorted(((dense(m), dense(w)) for m, w in sig), reverse=True)  # type: ignore[attr-defined]
        pairs += [(0, 0)] * (k - len(pairs))
        return [m for m, _ in pairs] + [w for _, w in pairs]
