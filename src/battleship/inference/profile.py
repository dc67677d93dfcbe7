"""The profile engine: exact counts for straight ships under any spacing rule, cell by cell.

The board is read row by row, one cell at a time (a "broken profile" dynamic programme). What the
cells already decided say about the cells still open fits in a small state:

- for each column, the last decided cell of that column: empty (0), a ship cell that ends there (1),
  or a vertical ship that goes on for ``v - 1`` more cells below (``v >= 2``);
- whether the cell up and to the left was a ship cell (the no-contact margin looks at corners);
- how many cells a horizontal ship started in this row still needs (``h``);
- how many ships of each class are placed so far (``u``, a bit field per class).

Ships of one class (same length, same admissible placements, same prior weights) are
interchangeable, so the programme counts layouts with the class's ships not told apart and the
count of distinct-ship layouts is that times the product of the classes' factorials. The
states at each cell are kept in a hash map; only states some layout reaches are ever stored,
which is what makes fleets of ten ships (Sea Battle) countable where visiting layouts is not.

Each count is kept twice, as 64-bit integers (exact modulo 2^64: Numba's integers wrap) and as
floating point; the two together give the exact count up to about 2^100 (:func:`exact_total`).
Placement counts past 2^62 are floating point. Marginals come from a backward pass over the
same states, with the forward states kept at row starts only and each row recomputed on the way
back (memory: two rows of states, not the whole board).
"""

from __future__ import annotations

from math import factorial, prod

import numpy as np
from numba import njit

from battleship.inference.evidence import Evidence
from battleship.rules import Rules, Spacing
from battleship.tables import tables

SPACING_CODE = {Spacing.TOUCH: 0, Spacing.NO_EDGE: 1, Spacing.NO_CONTACT: 2}
EXACT_LIMIT = 2.0**62  # below this the 64-bit counts are exact as they stand


# ---- the moves from one state at one cell -------------------------------------------------------
# A state is one int64 of bit fields: ``bits`` per column (the profile), then the corner bit, then
# ``h`` in ``bits``, then each class's count of placed ships (shifts and masks: no divisions).


@njit(cache=True, nogil=True, inline="always")
def _digit(key, c, bits, cols):
    """Column ``c``'s value in the profile (0 off the board)."""
    if c < 0 or c >= cols:
        return 0
    return (key >> (c * bits)) & ((1 << bits) - 1)


@njit(cache=True, nogil=True, inline="always")
def _moves(key, r, c, geo, out_key, out_place):
    """Every way to decide cell (``r``, ``c``) from state ``key``: next states and the placement started.

    Returns how many moves were written (``out_place`` is -1 when no ship starts at this cell).
    """
    cols, spacing, bits, corner, lengths, mult, field, pidx_h, pidx_v, hit = geo
    hshift = corner + 1
    vmask = (1 << bits) - 1
    diag = (key >> corner) & 1
    h = (key >> hshift) & vmask
    up = _digit(key, c, bits, cols)
    left = _digit(key, c - 1, bits, cols)
    upr = _digit(key, c + 1, bits, cols)
    # the state without this column's value, the corner and h; the next corner is this column's upper cell
    stem = key & ~((vmask << (c * bits)) | (1 << corner) | (vmask << hshift))
    if c < cols - 1 and up != 0:
        stem |= 1 << corner
    n = 0
    if up >= 2:  # a vertical ship goes on through this cell
        if h > 0 or (spacing > 0 and left != 0):
            return 0
        out_key[0] = stem | ((up - 1) << (c * bits))
        out_place[0] = -1
        return 1
    if h > 0:  # a horizontal ship started to the left goes on
        if (spacing == 2 and (diag or up or upr)) or (spacing == 1 and up):
            return 0
        out_key[0] = stem | (1 << (c * bits)) | ((h - 1) << hshift)
        out_place[0] = -1
        return 1
    if not hit[r * cols + c]:
        out_key[n] = stem
        out_place[n] = -1
        n += 1
    if spacing == 2 and (left or diag or up or upr):
        return n
    if spacing == 1 and (left or up):
        return n
    for k in range(lengths.shape[0]):
        placed = (key >> field[k]) & ((1 << (field[k + 1] - field[k])) - 1)
        if placed >= mult[k]:
            continue
        length = lengths[k]
        more = stem + (1 << field[k])
        p = pidx_h[k, r, c]
        if p >= 0:
            out_key[n] = more | (1 << (c * bits)) | ((length - 1) << hshift)
            out_place[n] = p
            n += 1
        p = pidx_v[k, r, c] if length >= 2 else -1
        if p >= 0:
            out_key[n] = more | (length << (c * bits))
            out_place[n] = p
            n += 1
    return n


# ---- a hash map from state to index (open addressing: typed dicts cost ~90 ns a lookup here) ----
@njit(cache=True, nogil=True)
def _new_table(expected):
    """Slots for about ``expected`` keys at most half full; -1 marks an empty slot."""
    size = 16
    while size < 2 * expected:
        size *= 2
    return np.full(size, -1, dtype=np.int64), np.empty(size, dtype=np.int64)


@njit(cache=True, nogil=True, inline="always")
def _slot_of(slots, key):
    """The slot holding ``key``, or the empty slot where it belongs."""
    mask = slots.shape[0] - 1
    at = (key * np.int64(-7046029254386353131)) >> 20 & mask  # Fibonacci hashing
    while slots[at] != -1 and slots[at] != key:
        at = (at + 1) & mask
    return at


@njit(cache=True, nogil=True)
def _rehash(slots, where, keys, size):
    """A table twice as large holding the first ``size`` of ``keys`` (their indices in ``where``)."""
    slots, where = _new_table(slots.shape[0])
    for j in range(size):
        at = _slot_of(slots, keys[j])
        slots[at] = keys[j]
        where[at] = j
    return slots, where


@njit(cache=True, nogil=True, inline="always")
def _find(table, key):
    """The index of ``key`` in a finished table (it is there: the forward pass made it)."""
    slots, where = table
    return where[_slot_of(slots, key)]


# ---- forward: the states at each cell, with their counts ---------------------------------------
@njit(cache=True, nogil=True)
def _grow(a, n):
    """``a`` with room for at least ``n`` entries (doubling)."""
    if n <= a.shape[0]:
        return a
    b = np.empty(max(n, 2 * a.shape[0]), dtype=a.dtype)
    b[: a.shape[0]] = a
    return b


@njit(cache=True, nogil=True)
def _advance(keys, ivals, fvals, r, c, geo, wi, wf):
    """The states after deciding cell (``r``, ``c``): (keys, int counts, float counts, index map)."""
    slots, where = _new_table(keys.shape[0])
    nk = np.empty(max(16, keys.shape[0]), dtype=np.int64)
    ni = np.zeros(nk.shape[0], dtype=np.int64)
    nf = np.zeros(nk.shape[0], dtype=np.float64)
    out_key = np.empty(2 * geo[4].shape[0] + 1, dtype=np.int64)
    out_place = np.empty(out_key.shape[0], dtype=np.int64)
    size = 0
    for i in range(keys.shape[0]):
        if ivals[i] == 0 and fvals[i] == 0.0:
            continue
        m = _moves(keys[i], r, c, geo, out_key, out_place)
        for t in range(m):
            at = _slot_of(slots, out_key[t])
            if slots[at] != -1:
                j = where[at]
            else:
                j = size
                size += 1
                slots[at] = out_key[t]
                where[at] = j
                if 2 * size > slots.shape[0]:
                    slots, where = _rehash(slots, where, nk, size - 1)
                    at = _slot_of(slots, out_key[t])
                    slots[at] = out_key[t]
                    where[at] = j
                if size > nk.shape[0]:
                    nk = _grow(nk, size)
                    ni = _grow(ni, size)
                    nf = _grow(nf, size)
                nk[j] = out_key[t]
                ni[j] = 0
                nf[j] = 0.0
            p = out_place[t]
            if p >= 0:
                ni[j] += ivals[i] * wi[p]
                nf[j] += fvals[i] * wf[p]
            else:
                ni[j] += ivals[i]
                nf[j] += fvals[i]
    return nk[:size].copy(), ni[:size].copy(), nf[:size].copy(), (slots, where)


@njit(cache=True, nogil=True)
def _start():
    """The state before the first cell: nothing placed."""
    return np.zeros(1, dtype=np.int64), np.ones(1, dtype=np.int64), np.ones(1, dtype=np.float64)


@njit(cache=True, nogil=True)
def _finished(keys, iv, fv, first_field, full_u):
    """Which final states have placed every ship, and their layouts summed (int, float)."""
    done = np.zeros(keys.shape[0], dtype=np.bool_)
    total_i, total_f = 0, 0.0
    for i in range(keys.shape[0]):
        done[i] = keys[i] >> first_field == full_u
        if done[i]:
            total_i += iv[i]
            total_f += fv[i]
    return done, total_i, total_f


@njit(cache=True, nogil=True)
def _count(rows, cols, geo, wi, wf, full_u):
    """Forward only: the layouts (int modulo 2^64, float)."""
    first_field = geo[6][0]
    keys, iv, fv = _start()
    for r in range(rows):
        for c in range(cols):
            keys, iv, fv, _ = _advance(keys, iv, fv, r, c, geo, wi, wf)
    return _finished(keys, iv, fv, first_field, full_u)[1:]


# ---- backward: each placement's layouts --------------------------------------------------------
@njit(cache=True, nogil=True)
def _back_cell(keys, iv, fv, index, bi_next, bf_next, r, c, geo, wi, wf, mi, mf):
    """The ways to finish from each state before cell (``r``, ``c``); credits the placements started there."""
    out_key = np.empty(2 * geo[4].shape[0] + 1, dtype=np.int64)
    out_place = np.empty(out_key.shape[0], dtype=np.int64)
    bi = np.zeros(keys.shape[0], dtype=np.int64)
    bf = np.zeros(keys.shape[0], dtype=np.float64)
    for i in range(keys.shape[0]):
        if iv[i] == 0 and fv[i] == 0.0:
            continue
        m = _moves(keys[i], r, c, geo, out_key, out_place)
        for t in range(m):
            j = _find(index, out_key[t])
            p = out_place[t]
            if p >= 0:
                ti, tf = wi[p] * bi_next[j], wf[p] * bf_next[j]
                mi[p] += iv[i] * ti
                mf[p] += fv[i] * tf
            else:
                ti, tf = bi_next[j], bf_next[j]
            bi[i] += ti
            bf[i] += tf
    return bi, bf


@njit(cache=True, nogil=True)
def _marginals(rows, cols, geo, wi, wf, full_u, nplace):
    """Forward with row checkpoints, then backward row by row: (total int, total float, counts int, float)."""
    first_field = geo[6][0]
    keys, iv, fv = _start()
    marks_k, marks_i, marks_f = [keys], [iv], [fv]
    for r in range(rows):
        for c in range(cols):
            keys, iv, fv, _ = _advance(keys, iv, fv, r, c, geo, wi, wf)
        marks_k.append(keys)
        marks_i.append(iv)
        marks_f.append(fv)
    done, total_i, total_f = _finished(keys, iv, fv, first_field, full_u)
    bi = done.astype(np.int64)
    bf = done.astype(np.float64)
    mi = np.zeros(nplace, dtype=np.int64)
    mf = np.zeros(nplace, dtype=np.float64)
    for r in range(rows - 1, -1, -1):
        # the row again, keeping every cell's states this time
        k2, i2, f2, x2 = _advance(marks_k[r], marks_i[r], marks_f[r], r, 0, geo, wi, wf)
        lk, li, lf, lx = [marks_k[r], k2], [marks_i[r], i2], [marks_f[r], f2], [x2]
        for c in range(1, cols):
            k2, i2, f2, x2 = _advance(lk[c], li[c], lf[c], r, c, geo, wi, wf)
            lk.append(k2)
            li.append(i2)
            lf.append(f2)
            lx.append(x2)
        for c in range(cols - 1, -1, -1):
            bi, bf = _back_cell(lk[c], li[c], lf[c], lx[c], bi, bf, r, c, geo, wi, wf, mi, mf)
    return total_i, total_f, mi, mf


# ---- from rules and evidence to the programme's tables -----------------------------------------
def applies(rules: Rules) -> bool:
    """True when every ship is straight (any spacing, any sinks); the state must also fit 63 bits."""
    return all(s.is_straight for s in rules.fleet) and max(rules.rows, rules.cols) <= 16


def _classes(rules: Rules, ev: Evidence, weight: np.ndarray) -> list[list[int]]:
    """Ships that are interchangeable here: same length, same admissible placements, same weights."""
    t = tables(rules)
    classes: list[list[int]] = []
    for s, ship in enumerate(rules.fleet):
        block = slice(t.start[s], t.start[s] + t.count[s])
        for members in classes:
            a = members[0]
            other = slice(t.start[a], t.start[a] + t.count[a])
            if (
                rules.fleet[a].size == ship.size
                and (ev.admissible[block] == ev.admissible[other]).all()
                and (weight[block] == weight[other]).all()
            ):
                members.append(s)
                break
        else:
            classes.append([s])
    return classes


def _geometry(rules: Rules, ev: Evidence, weight: np.ndarray, classes: list[list[int]]):
    """The tuple :func:`_moves` reads, and the key that says every ship is placed."""
    t = tables(rules)
    rows, cols = rules.rows, rules.cols
    lengths = np.array([rules.fleet[m[0]].size for m in classes], dtype=np.int64)
    mult = np.array([len(m) for m in classes], dtype=np.int64)
    pidx_h = np.full((len(classes), rows, cols), -1, dtype=np.int64)
    pidx_v = np.full((len(classes), rows, cols), -1, dtype=np.int64)
    for k, members in enumerate(classes):
        s = members[0]
        for p in range(t.start[s], t.start[s] + t.count[s]):
            if not ev.admissible[p] or weight[p] == 0:
                continue
            first = int(t.cell_list[p, 0])
            along = t.size[s] == 1 or int(t.cell_list[p, 1]) == first + 1
            (pidx_h if along else pidx_v)[k, first // cols, first % cols] = p
    bits = int(lengths.max()).bit_length()
    corner = cols * bits
    widths = [int(m).bit_length() for m in mult]
    field = np.cumsum([corner + 1 + bits, *widths]).astype(np.int64)
    if field[-1] > 62:
        return None, 0
    hit = np.array([(ev.hits >> i) & 1 for i in range(rules.cells)], dtype=np.bool_)
    geo = (cols, SPACING_CODE[rules.spacing], bits, corner, lengths, mult, field, pidx_h, pidx_v, hit)
    full_u = sum(int(m) << (int(f) - int(field[0])) for m, f in zip(mult, field[:-1], strict=True))
    return geo, full_u


def exact_total(residue: int, approx: float) -> int:
    """The integer that is ``residue`` modulo 2^64 and closest to ``approx`` (float error well below 2^63)."""
    r = residue % 2**64
    return r + 2**64 * round((approx - r) / 2**64)


def fits(rules: Rules, ev: Evidence, weight: np.ndarray | None = None) -> bool:
    """True when the programme's state fits a 64-bit key for these rules."""
    weight = np.ones(len(tables(rules).masks), dtype=np.int64) if weight is None else weight
    return applies(rules) and _geometry(rules, ev, weight, _classes(rules, ev, weight))[0] is not None


def count_by_profile(rules: Rules, ev: Evidence, marginals: bool = True, weight: np.ndarray | None = None):
    """Layouts (ships told apart) and per-placement layout counts, by the profile programme.

    Integer weights (uniform by default) give an exact integer total of any size; the placement
    counts are int64 while the total stays below 2^62, float64 beyond. Float weights give floats.
    """
    t = tables(rules)
    weight = np.ones(len(t.masks), dtype=np.int64) if weight is None else weight
    classes = _classes(rules, ev, weight)
    geo, full_u = _geometry(rules, ev, weight, classes)
    if geo is None:
        raise ValueError("the profile engine's state does not fit 64 bits for these rules")
    wi = weight.astype(np.int64) if weight.dtype == np.int64 else np.zeros(len(weight), dtype=np.int64)
    wf = weight.astype(np.float64)
    same = prod(factorial(len(m)) for m in classes)
    if not marginals:
        ti, tf = _count(rules.rows, rules.cols, geo, wi, wf, full_u)
        if weight.dtype == np.float64:
            return tf * same, np.zeros(0, dtype=np.float64)
        return exact_total(int(ti), tf) * same, np.zeros(0, dtype=np.int64)
    ti, tf, mi, mf = _marginals(rules.rows, rules.cols, geo, wi, wf, full_u, len(t.masks))
    floating = weight.dtype == np.float64
    total = tf * same if floating else exact_total(int(ti), tf) * same
    exact = not floating and total < EXACT_LIMIT
    counts = np.zeros(len(t.masks), dtype=np.int64 if exact else np.float64)
    source = mi if exact else mf
    for members in classes:
        rep = members[0]
        block = slice(t.start[rep], t.start[rep] + t.count[rep])
        share = source[block] * (same // len(members))  # each ship of the class in turn on it
        for s in members:
            counts[t.start[s] : t.start[s] + t.count[s]] = share
    return (float(total) if floating else int(total)), counts
