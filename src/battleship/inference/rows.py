"""The row engine: exact counts for straight ships that may touch, fast on open boards."""

from __future__ import annotations

import numpy as np

from battleship.cells import iter_cells
from battleship.inference.evidence import Evidence
from battleship.inference.watch import flag_of, watched
from battleship.jit import njit
from battleship.rules import Rules
from battleship.stop import Stop
from battleship.tables import tables

# ---- the fast engine: straight ships that may touch -------------------------------------------
#
# Every ship lies along a row or down a column. For one choice of orientations, enumerate the
# placements of the column ships (the minority: the board is transposed when most ships lie in
# columns); the row ships then lie within single rows, which are independent. A left-to-right
# pass over a row counts, for every subset of the row ships, the ways to put that subset in the row
# covering its uncovered hits; a subset convolution down the rows counts the layouts. The same pass
# run backwards, weighted by the ways the other rows hold the other ships (prefix and suffix
# products over rows), gives every row placement's count.


@njit(cache=True, nogil=True)
def _row_forward(r, cols, free, must, hz, lengths, pidx_row, weight, f):
    """``f[c][A]``: ways to fill columns < c of row ``r`` with the row ships of subset ``A``."""
    nsub = f.shape[1]
    f[:, :] = 0
    f[0, 0] = 1
    for c in range(cols):
        for a in range(nsub):
            v = f[c, a]
            if v == 0:
                continue
            if not must >> c & 1:
                f[c + 1, a] += v
            for j in range(hz.shape[0]):
                if a >> j & 1:
                    continue
                length = lengths[hz[j]]
                if c + length > cols or pidx_row[hz[j], r, c] < 0:
                    continue
                piece = ((1 << length) - 1) << c
                if free & piece == piece:
                    f[c + length, a | (1 << j)] += v * weight[pidx_row[hz[j], r, c]]


@njit(cache=True, nogil=True)
def _row_kernel(r, cols, free, must, hz, lengths, pidx_row, weight, f, g, kernel):
    """Row ``r`` with free cells ``free``: ``kernel[j * cols + c][X]`` counts the ways the row holds row
    ship ``j`` at column ``c`` while the ships of ``X`` lie in other rows (so a placement's layouts are
    ``kernel . other``); returns nothing, fills ``f`` (forward ways) on the way."""
    nsub = f.shape[1]
    full = nsub - 1
    _row_forward(r, cols, free, must, hz, lengths, pidx_row, weight, f)
    # g[c][B]: ways to fill columns >= c with exactly the row ships of B
    g[:, :] = 0
    g[cols, 0] = 1
    for c in range(cols - 1, -1, -1):
        for b in range(nsub):
            v = 0 if must >> c & 1 else g[c + 1, b]
            for j in range(hz.shape[0]):
                if not b >> j & 1:
                    continue
                length = lengths[hz[j]]
                if c + length > cols or pidx_row[hz[j], r, c] < 0:
                    continue
                piece = ((1 << length) - 1) << c
                if free & piece == piece:
                    v += g[c + length, b & ~(1 << j)] * weight[pidx_row[hz[j], r, c]]
            g[c, b] = v
    kernel[:, :] = 0
    for j in range(hz.shape[0]):
        length = lengths[hz[j]]
        for c in range(cols - length + 1):
            piece = ((1 << length) - 1) << c
            if pidx_row[hz[j], r, c] < 0 or free & piece != piece:
                continue
            row = kernel[j * cols + c]
            w = weight[pidx_row[hz[j], r, c]]
            for a in range(nsub):
                if a >> j & 1 or f[c, a] == 0:
                    continue
                rest = full & ~a & ~(1 << j)
                b = rest
                while True:
                    if g[c + length, b]:
                        row[rest & ~b] += f[c, a] * g[c + length, b] * w
                    if b == 0:
                        break
                    b = (b - 1) & rest


@njit(cache=True, nogil=True, inline="always")
def _convolve(x, y, out):
    """Subset convolution: ``out[S] = sum over A within S of x[S - A] * y[A]``."""
    for s in range(out.shape[0]):
        total = x[0] * 0
        a = s
        while True:
            total += x[s & ~a] * y[a]
            if a == 0:
                break
            a = (a - 1) & s
        out[s] = total


@njit(cache=True, nogil=True, inline="always")
def _slot(r, free, row, memo):
    """The slot of row ``r`` with free cells ``free``: its ways are computed the first time only.

    ``row`` is what a row pass reads (cols, hitrow, hz, lengths, pidx_row, weight, scratch f);
    ``memo`` the slots so far (slot_of, way_rows, key_of, a one-cell counter).
    """
    cols, hitrow, hz, lengths, pidx_row, weight, f = row
    slot_of, way_rows, key_of, nslots = memo
    at = slot_of[r, free]
    if at < 0:
        at = nslots[0]
        nslots[0] += 1
        slot_of[r, free] = at
        key_of[at] = r * slot_of.shape[1] + free
        _row_forward(r, cols, free, hitrow[r] & free, hz, lengths, pidx_row, weight, f)
        way_rows[at, :] = f[cols, :]
    return at


@njit(cache=True, nogil=True, inline="always")
def _dot_full(x, y, full):
    """``sum over B of x[B] * y[full - B]``: the count once ``x`` and ``y`` split every row ship."""
    total = x[0] * 0
    b = full
    while True:
        if x[b] != 0:
            total += x[b] * y[full & ~b]
        if b == 0:
            break
        b = (b - 1) & full
    return total


@njit(cache=True, nogil=True)
def _partition(vertical):
    """The ships along rows (``hz``) and down columns (``vt``), each in fleet order."""
    nv = 0
    for s in range(vertical.shape[0]):
        if vertical[s]:
            nv += 1
    hz = np.empty(vertical.shape[0] - nv, dtype=np.int64)
    vt = np.empty(nv, dtype=np.int64)
    i = k = 0
    for s in range(vertical.shape[0]):
        if vertical[s]:
            vt[k] = s
            k += 1
        else:
            hz[i] = s
            i += 1
    return hz, vt


@njit(cache=True, nogil=True)
def _column_placements(rows, cols, vt, pidx_col):
    """The admissible placements of each column ship as ``(top, col, placement)``, and their numbers."""
    nv = vt.shape[0]
    vlist = np.empty((nv, rows * cols, 3), dtype=np.int64)
    vcount = np.zeros(nv, dtype=np.int64)
    for d in range(nv):
        for r in range(rows):
            for c in range(cols):
                if pidx_col[vt[d], r, c] >= 0:
                    vlist[d, vcount[d], 0] = r
                    vlist[d, vcount[d], 1] = c
                    vlist[d, vcount[d], 2] = pidx_col[vt[d], r, c]
                    vcount[d] += 1
    return vlist, vcount


@njit(cache=True, nogil=True)
def _new_memo(rows, cols, nv, nsub, weight):
    """Room for every distinct row met: ``(slot_of, way_rows, key_of, counter)`` and the accumulator."""
    # a row's free cells lose at most one bit per column ship: that bounds the distinct rows met
    rowfull = (1 << cols) - 1
    per_row = 0
    term = 1
    for j in range(nv + 1):
        per_row += term
        term = term * (cols - j) // (j + 1)
    capacity = rows * min(per_row, rowfull + 1)
    slot_of = np.full((rows, rowfull + 1), -1, dtype=np.int64)
    way_rows = np.zeros((capacity, nsub), dtype=weight.dtype)
    key_of = np.zeros(capacity, dtype=np.int64)
    acc = np.zeros((capacity, nsub), dtype=weight.dtype)
    return (slot_of, way_rows, key_of, np.zeros(1, dtype=np.int64)), acc


@njit(cache=True, nogil=True)
def _new_scratch(rows, nsub, maxlen, weight):
    """Working arrays of a leaf: row slots, prefix and suffix products, and the last ship's passes."""
    plane = np.zeros((rows + 1, nsub), dtype=weight.dtype)
    return (
        np.zeros(rows, dtype=np.int64),  # base: each row's slot with the enumerated column ships
        plane.copy(),  # prefix: rows above r, convolved
        plane.copy(),  # suffix: rows from r down, convolved
        np.zeros(nsub, dtype=weight.dtype),  # other
        np.zeros(nsub, dtype=weight.dtype),  # tmp
        plane.copy(),  # starts: by top row, the last ship's M * suffix
        plane.copy(),  # ends: by bottom row, prefix * the last ship's M
        plane.copy(),  # below: placements starting under row r, with the rows between
        plane.copy(),  # above: placements ending over row r, with the rows between
        np.zeros((maxlen + 1, nsub), dtype=weight.dtype),  # inner_pre
        np.zeros((maxlen + 1, nsub), dtype=weight.dtype),  # inner_suf
        np.zeros(maxlen, dtype=np.int64),  # mod: the slots of the rows the last ship crosses
    )


@njit(cache=True, nogil=True)
def _open_rows(rows, used, row, memo, scratch):
    """Each row's slot with the column ships placed so far, and the prefix and suffix products."""
    base, prefix, suffix = scratch[0], scratch[1], scratch[2]
    way_rows = memo[1]
    rowfull = (1 << row[0]) - 1
    for r in range(rows):
        base[r] = _slot(r, rowfull & ~used[r], row, memo)
    prefix[0, :] = 0
    prefix[0, 0] = 1
    for r in range(rows):
        _convolve(prefix[r], way_rows[base[r]], prefix[r + 1])
    suffix[rows, :] = 0
    suffix[rows, 0] = 1
    for r in range(rows - 1, -1, -1):
        _convolve(suffix[r + 1], way_rows[base[r]], suffix[r])


@njit(cache=True, nogil=True)
def _no_column_ships(rows, full, want, memo, acc, scratch):
    """Every ship along a row: the layouts, and each row's share added to ``acc``."""
    base, prefix, suffix, other = scratch[0], scratch[1], scratch[2], scratch[3]
    found = prefix[rows, full]
    if want and found > 0:
        for r in range(rows):
            _convolve(prefix[r], suffix[r + 1], other)
            for x in range(other.shape[0]):
                acc[base[r], x] += other[x]
    return found


@njit(cache=True, nogil=True)
def _last_column_ship(rows, full, want, used, last, places, nplaces, vw, row, memo, acc, counts, scratch):
    """The last column ship's placements, each costing a convolution per row it crosses.

    Returns (layouts, layouts with a placement counted); fills ``starts`` and ``ends`` for the
    rows above and below each placement, gathered afterwards by :func:`_between_rows`.
    """
    prefix, suffix, other, starts, ends = scratch[1], scratch[2], scratch[3], scratch[5], scratch[6]
    inner_pre, inner_suf, mod = scratch[9], scratch[10], scratch[11]
    lengths, weight = row[3], row[5]
    way_rows = memo[1]
    rowfull = (1 << row[0]) - 1
    length = lengths[last]
    starts[:, :] = 0
    ends[:, :] = 0
    total = gathered = weight[0] * 0
    for k in range(nplaces):
        top, col, p = places[k, 0], places[k, 1], places[k, 2]
        clash = False
        for r in range(top, top + length):
            if used[r] >> col & 1:
                clash = True
                break
        if clash:
            continue
        for i in range(length):
            mod[i] = _slot(top + i, rowfull & ~used[top + i] & ~(1 << col), row, memo)
        inner_pre[0, :] = prefix[top]
        for i in range(length):
            _convolve(inner_pre[i], way_rows[mod[i]], inner_pre[i + 1])
        wl = weight[p] * vw
        found = _dot_full(inner_pre[length], suffix[top + length], full) * wl
        total += found
        if not want or found == 0:
            continue
        counts[p] += found
        gathered += found
        inner_suf[length, :] = suffix[top + length]
        for i in range(length - 1, -1, -1):
            _convolve(inner_suf[i + 1], way_rows[mod[i]], inner_suf[i])
        for i in range(length):
            _convolve(inner_pre[i], inner_suf[i + 1], other)
            for x in range(other.shape[0]):
                acc[mod[i], x] += wl * other[x]
        # the rows above and below this placement: M * suffix by top row, prefix * M by bottom row
        for x in range(other.shape[0]):
            starts[top, x] += wl * inner_suf[0, x]
            ends[top + length - 1, x] += wl * inner_pre[length, x]
    return total, gathered


@njit(cache=True, nogil=True)
def _between_rows(rows, memo, acc, scratch):
    """Add to each row's share the last ship's placements lying wholly above or below it."""
    base, prefix, suffix, other, tmp = scratch[0], scratch[1], scratch[2], scratch[3], scratch[4]
    starts, ends, below, above = scratch[5], scratch[6], scratch[7], scratch[8]
    way_rows = memo[1]
    nsub = other.shape[0]
    below[rows - 1, :] = 0
    for r in range(rows - 2, -1, -1):
        _convolve(below[r + 1], way_rows[base[r + 1]], tmp)
        for x in range(nsub):
            below[r, x] = tmp[x] + starts[r + 1, x]
    above[0, :] = 0
    for r in range(1, rows):
        _convolve(above[r - 1], way_rows[base[r - 1]], tmp)
        for x in range(nsub):
            above[r, x] = tmp[x] + ends[r - 1, x]
    for r in range(rows):
        _convolve(prefix[r], below[r], other)
        _convolve(above[r], suffix[r + 1], tmp)
        for x in range(nsub):
            acc[base[r], x] += other[x] + tmp[x]


@njit(cache=True, nogil=True)
def _leaf(rows, full, want, used, choice, vt, vlist, vcount, row, memo, acc, counts, scratch):
    """Every column ship but the last is placed (``choice``): count the layouts that complete it."""
    weight = row[5]
    nv = vt.shape[0]
    _open_rows(rows, used, row, memo, scratch)
    if nv == 0:
        return _no_column_ships(rows, full, want, memo, acc, scratch)
    vw = weight[0] * 0 + 1  # the enumerated column ships' weight
    for d in range(nv - 1):
        vw *= weight[vlist[d, choice[d], 2]]
    last = nv - 1
    found, gathered = _last_column_ship(
        rows, full, want, used, vt[last], vlist[last], vcount[last], vw, row, memo, acc, counts, scratch
    )
    if want and gathered > 0:
        for d in range(last):
            counts[vlist[d, choice[d], 2]] += gathered
        _between_rows(rows, memo, acc, scratch)
    return found


@njit(cache=True, nogil=True)
def _row_marginals(rows, cols, hitrow, hz, lengths, pidx_row, weight, memo, acc, counts):
    """Each row placement's layouts: the row's kernel against the ways the other rows were weighed."""
    slot_of, key_of, nslots = memo[0], memo[2], memo[3]
    nsub = acc.shape[1]
    width = slot_of.shape[1]
    f = np.zeros((cols + 1, nsub), dtype=weight.dtype)
    h = np.zeros((cols + 1, nsub), dtype=weight.dtype)
    kernel = np.zeros((max(1, hz.shape[0]) * cols, nsub), dtype=weight.dtype)
    for at in range(nslots[0]):
        r, free = key_of[at] // width, key_of[at] % width
        nonzero = False
        for x in range(nsub):
            if acc[at, x] != 0:
                nonzero = True
                break
        if not nonzero:
            continue
        _row_kernel(r, cols, free, hitrow[r] & free, hz, lengths, pidx_row, weight, f, h, kernel)
        for j in range(hz.shape[0]):
            length = lengths[hz[j]]
            for c in range(cols - length + 1):
                p = pidx_row[hz[j], r, c]
                piece = ((1 << length) - 1) << c
                if p < 0 or free & piece != piece:
                    continue
                m = weight[0] * 0
                for x in range(nsub):
                    m += kernel[j * cols + c, x] * acc[at, x]
                counts[p] += m


@njit(cache=True, nogil=True)
def _split(rows, cols, lengths, vertical, pidx_row, pidx_col, hitrow, weight, counts, flag):
    """Layouts with the ships flagged ``vertical`` down columns and the rest along rows; adds to ``counts``.

    The column ships but the last are enumerated depth first; the last one's placements are handled
    together (:func:`_last_column_ship`): each changes only the rows it crosses, so with the prefix
    and suffix over the other rows its layouts cost a convolution per row it crosses, and the row
    placements' weights from every placement of it are gathered in two passes over the rows
    (:func:`_between_rows`). An empty ``counts`` asks for the total only. Returns early once
    ``flag[0]`` is set (the caller checks it).
    """
    hz, vt = _partition(vertical)
    vlist, vcount = _column_placements(rows, cols, vt, pidx_col)
    nv, nsub = vt.shape[0], 1 << hz.shape[0]
    full = nsub - 1
    want = counts.shape[0] > 0
    memo, acc = _new_memo(rows, cols, nv, nsub, weight)
    row = (cols, hitrow, hz, lengths, pidx_row, weight, np.zeros((cols + 1, nsub), dtype=weight.dtype))
    maxlen = 1
    for d in range(nv):
        maxlen = max(maxlen, lengths[vt[d]])
    scratch = _new_scratch(rows, nsub, maxlen, weight)
    used = np.zeros((nv + 1, rows), dtype=np.int64)
    choice = np.full(nv + 1, -1, dtype=np.int64)
    total = weight[0] * 0
    leaf = nv - 1 if nv > 0 else 0
    depth = 0
    steps = 0
    while depth >= 0:
        steps += 1
        if steps % 256 == 0 and flag[0]:
            return total
        if depth == leaf:
            total += _leaf(
                rows, full, want, used[depth], choice, vt, vlist, vcount, row, memo, acc, counts, scratch
            )
            depth -= 1
            continue
        choice[depth] += 1
        if choice[depth] >= vcount[depth]:
            choice[depth] = -1
            depth -= 1
            continue
        top, col = vlist[depth, choice[depth], 0], vlist[depth, choice[depth], 1]
        ok = True
        for r in range(top, top + lengths[vt[depth]]):
            if used[depth, r] >> col & 1:
                ok = False
                break
        if not ok:
            continue
        used[depth + 1, :] = used[depth, :]
        for r in range(top, top + lengths[vt[depth]]):
            used[depth + 1, r] |= 1 << col
        depth += 1
    if want:
        _row_marginals(rows, cols, hitrow, hz, lengths, pidx_row, weight, memo, acc, counts)
    return total


@njit(cache=True, nogil=True)
def _count_rows(
    lengths, frames_rows, frames_cols, pidx_row, pidx_col, hitrow, weight, twins, start, counts, flag
):
    """Every orientation split; frame 0 is the board, frame 1 its transpose. Returns the layout count.

    ``twins`` names two ships that are interchangeable here (same shape, same admissible placements,
    same weights; -1 when none): a split with one of them down a column and the other along a row
    is the mirror image of the split with the two swapped, so it is computed once and counted twice,
    its placement counts swapped between the twins' blocks.
    """
    nships = lengths.shape[0]
    total = weight[0] * 0
    vertical = np.zeros(nships, dtype=np.bool_)
    a, b = twins[0], twins[1]
    tmp = np.zeros(counts.shape[0], dtype=counts.dtype)
    for vset in range(1 << nships):
        if flag[0]:
            break
        mirrored = a >= 0 and (vset >> a & 1) != (vset >> b & 1)
        if mirrored and vset >> b & 1:
            continue  # counted with its mirror image, which has the first twin down a column
        skip = False
        nv = 0
        for s in range(nships):
            vertical[s] = vset >> s & 1
            if vertical[s]:
                nv += 1
                if lengths[s] == 1:
                    skip = True  # a one-cell ship is counted once, along a row
        if skip:
            continue
        frame = 0 if 2 * nv <= nships else 1
        if frame == 1:
            for s in range(nships):
                vertical[s] = not vertical[s] and lengths[s] > 1
            # one-cell ships stay "along a row" in the transposed frame too
        out = tmp if mirrored else counts
        if mirrored:
            tmp[:] = 0
        found = _split(
            frames_rows[frame],
            frames_cols[frame],
            lengths,
            vertical,
            pidx_row[frame],
            pidx_col[frame],
            hitrow[frame],
            weight,
            out,
            flag,
        )
        total += found
        if mirrored:
            total += found
            for p in range(tmp.shape[0]):
                counts[p] += tmp[p]
            for p in range(tmp.shape[0]):  # the mirror image: the twins' blocks swapped
                q = p
                if start[a] <= p < start[a + 1]:
                    q = p - start[a] + start[b]
                elif start[b] <= p < start[b + 1]:
                    q = p - start[b] + start[a]
                counts[q] += tmp[p]
    return total


def _twins(rules: Rules, ev: Evidence, weight: np.ndarray) -> np.ndarray:
    """Two ships that are interchangeable under this evidence and weights, or (-1, -1)."""
    t = tables(rules)
    for a in range(len(rules.fleet)):
        for b in range(a + 1, len(rules.fleet)):
            if rules.fleet[a].cells != rules.fleet[b].cells or rules.fleet[a].size == 1:
                continue
            block_a = slice(t.start[a], t.start[a] + t.count[a])
            block_b = slice(t.start[b], t.start[b] + t.count[b])
            if (ev.admissible[block_a] == ev.admissible[block_b]).all() and (
                weight[block_a] == weight[block_b]
            ).all():
                return np.array([a, b], dtype=np.int64)
    return np.array([-1, -1], dtype=np.int64)


def _frames(rules: Rules, ev: Evidence):
    """Placement indices by (ship, row, col) along rows and down columns, for the board and its transpose."""
    t = tables(rules)
    rows, cols = rules.rows, rules.cols
    side = max(rows, cols)
    nships = len(rules.fleet)
    pidx_row = np.full((2, nships, side, side), -1, dtype=np.int64)
    pidx_col = np.full((2, nships, side, side), -1, dtype=np.int64)
    for p in np.flatnonzero(ev.admissible):
        s = int(t.ship_of[p])
        first = int(t.cell_list[p, 0])
        r, c = divmod(first, cols)
        along_row = t.size[s] == 1 or int(t.cell_list[p, 1]) == first + 1
        if along_row:
            pidx_row[0, s, r, c] = p
            (pidx_row if t.size[s] == 1 else pidx_col)[1, s, c, r] = p
        else:
            pidx_col[0, s, r, c] = p
            pidx_row[1, s, c, r] = p
    hitrow = np.zeros((2, side), dtype=np.int64)
    for cell in iter_cells(ev.hits):
        r, c = divmod(cell, cols)
        hitrow[0, r] |= 1 << c
        hitrow[1, c] |= 1 << r
    return (
        np.array([rows, cols], dtype=np.int64),
        np.array([cols, rows], dtype=np.int64),
        pidx_row,
        pidx_col,
        hitrow,
    )


def fast_path(rules: Rules) -> bool:
    """True when the row engine applies: straight ships that may touch, sides up to 16."""
    return (
        rules.spacing.value == "touch"
        and all(s.is_straight for s in rules.fleet)
        and max(rules.rows, rules.cols) <= 16
        and len(rules.fleet) <= 12
    )


def count_by_rows(
    rules: Rules,
    ev: Evidence,
    marginals: bool = True,
    weight: np.ndarray | None = None,
    stop: Stop | None = None,
):
    """Layouts and per-placement layout counts by the row engine (see :func:`fast_path`).

    ``stop`` interrupts it (:class:`battleship.stop.Stopped`).
    """
    t = tables(rules)
    frames_rows, frames_cols, pidx_row, pidx_col, hitrow = _frames(rules, ev)
    lengths = t.size.astype(np.int64)
    weight = np.ones(len(t.masks), dtype=np.int64) if weight is None else weight
    counts = np.zeros(len(t.masks) if marginals else 0, dtype=weight.dtype)
    twins = _twins(rules, ev, weight)
    start = np.append(t.start, len(t.masks)).astype(np.int64)
    total = watched(
        _count_rows, lengths, frames_rows, frames_cols, pidx_row, pidx_col, hitrow, weight, twins, start,
        counts, flag_of(stop), stop=stop,
    )  # fmt: skip
    return (float(total) if weight.dtype == np.float64 else int(total)), counts
