"""The search engine: visit every consistent layout, placing ships in turn (any rules).

Ships are placed fewest admissible placements first; a branch is cut as soon as the hits left
uncovered cannot be covered by the ships left (``_room``). The last two ships are counted together
from a table of compatible pairs, which is what makes the engine fast on boards with many shots.
It also picks out layouts by their number in the visiting order (:func:`select_by_search`), which
the exact sampler uses.
"""

from __future__ import annotations

import numpy as np

from battleship.inference.evidence import Evidence
from battleship.inference.watch import flag_of, watched
from battleship.jit import njit
from battleship.rules import Rules
from battleship.stop import Stop
from battleship.tables import tables

CHECK_EVERY = 4096  # steps between looks at the stop flag


@njit(cache=True, nogil=True, inline="always")
def _popcount(x):
    """Set bits of a uint64."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)


@njit(cache=True, nogil=True)
def _room(lists, lengths, cells):
    """``room[d]``: how many cells the ships from depth ``d`` on cover (their sizes summed)."""
    nships = lengths.shape[0]
    room = np.zeros(nships + 1, dtype=np.int64)
    for d in range(nships - 1, -1, -1):
        size = 0
        if lengths[d] > 0:
            for w in range(cells.shape[1]):
                size += int(_popcount(cells[lists[d, 0], w]))
        room[d] = room[d + 1] + size
    return room


@njit(cache=True, nogil=True, inline="always")
def _fits(cells, p, blocked):
    """True when placement ``p`` uses no blocked cell."""
    for w in range(cells.shape[1]):
        if cells[p, w] & blocked[w]:
            return False
    return True


@njit(cache=True, nogil=True, inline="always")
def _place(cells, halos, hits, room, p, depth, blocked, covered):
    """Put placement ``p`` at ``depth`` (the next level's blocked and covered cells); False if the branch is dead.

    Dead: a hit no placed ship covers lies in a placed ship's halo (no ship can reach it), or the
    ships left cover fewer cells than the hits left.
    """
    need = 0
    dead = False
    for w in range(cells.shape[1]):
        blocked[depth + 1, w] = blocked[depth, w] | halos[p, w]
        covered[depth + 1, w] = covered[depth, w] | cells[p, w]
        open_hits = hits[w] & ~covered[depth + 1, w]
        if open_hits & blocked[depth + 1, w]:
            dead = True
        need += int(_popcount(open_hits))
    return not dead and need <= room[depth + 1]


@njit(cache=True, nogil=True)
def _enumerate(order, lists, lengths, cells, halos, hits, weight, out_counts, flag):
    """Depth-first over ships in ``order``; counts layouts covering ``hits`` and, per placement, its layouts.

    Returns early (the count so far) once ``flag[0]`` is set; the caller checks it.
    """
    nships = order.shape[0]
    nwords = cells.shape[1]
    choice = np.full(nships, -1, dtype=np.int64)
    picked = np.full(nships, -1, dtype=np.int64)
    blocked = np.zeros((nships + 1, nwords), dtype=np.uint64)
    covered = np.zeros((nships + 1, nwords), dtype=np.uint64)
    room = _room(lists, lengths, cells)
    total = weight[0] * 0  # the weights' number type: int64 counts, or float64 under a prior
    depth = 0
    steps = 0
    while depth >= 0:
        steps += 1
        if steps % CHECK_EVERY == 0 and flag[0]:
            break
        choice[depth] += 1
        if choice[depth] >= lengths[depth]:
            choice[depth] = -1
            depth -= 1
            continue
        p = lists[depth, choice[depth]]
        if not _fits(cells, p, blocked[depth]):
            continue
        picked[depth] = p
        if depth == nships - 1:
            ok = True
            for w in range(nwords):
                if hits[w] & ~(covered[depth, w] | cells[p, w]):
                    ok = False
                    break
            if ok:
                w = weight[picked[0]]
                for d in range(1, nships):
                    w *= weight[picked[d]]
                total += w
                for d in range(nships if out_counts.shape[0] > 0 else 0):
                    out_counts[picked[d]] += w
            continue
        if _place(cells, halos, hits, room, p, depth, blocked, covered):
            depth += 1
    return total


@njit(cache=True, nogil=True)
def _pair_tables(xs, ys, cells, halos, ncells):
    """Bitsets over the last two ships' lists: conflicts both ways, and which of ``ys`` cover each cell."""
    nx, ny = xs.shape[0], ys.shape[0]
    nwx, nwy = (nx + 63) // 64, (ny + 63) // 64
    nwords = cells.shape[1]
    conflict_xy = np.zeros((nx, nwy), dtype=np.uint64)
    conflict_yx = np.zeros((ny, nwx), dtype=np.uint64)
    for i in range(nx):
        for j in range(ny):
            for w in range(nwords):
                if cells[ys[j], w] & halos[xs[i], w]:
                    conflict_xy[i, j // 64] |= np.uint64(1) << np.uint64(j % 64)
                    conflict_yx[j, i // 64] |= np.uint64(1) << np.uint64(i % 64)
                    break
    cover_y = np.zeros((ncells, nwy), dtype=np.uint64)
    for j in range(ny):
        for c in range(ncells):
            if cells[ys[j], c // 64] >> np.uint64(c % 64) & np.uint64(1):
                cover_y[c, j // 64] |= np.uint64(1) << np.uint64(j % 64)
    return conflict_xy, conflict_yx, cover_y


@njit(cache=True, nogil=True)
def _nth_bit(bits, n):
    """Position of the ``n``-th (from 0) set bit of a multi-word bitset."""
    for w in range(bits.shape[0]):
        k = int(_popcount(bits[w]))
        if n < k:
            x = bits[w]
            for _ in range(n):
                x &= x - np.uint64(1)
            return 64 * w + int(_popcount((x & (~x + np.uint64(1))) - np.uint64(1)))
        n -= k
    return -1


@njit(cache=True, nogil=True)
def _pair_leaf(
    xs, ys, cells, hits, blocked, covered, pairs, scratch, picked, counts, targets, rows, base, next_target
):
    """The two ships left, counted together: returns (layouts here, the next target to fill).

    ``pairs`` holds the pair tables (x-y conflicts, y-x conflicts, which y covers each cell) and
    ``scratch`` the bitsets (valid x, valid y, the current mask, hits left); ``base`` is the
    number of layouts visited before this node, which numbers the ones found here.
    """
    conflict_xy, conflict_yx, cover_y = pairs
    valid_x, valid_y, m, left = scratch
    nwords, nwy, nwx = cells.shape[1], valid_y.shape[0], valid_x.shape[0]
    want = counts.shape[0] > 0
    leaf = picked.shape[0] - 2
    valid_y[:] = 0
    for j in range(ys.shape[0]):
        if _fits(cells, ys[j], blocked):
            valid_y[j // 64] |= np.uint64(1) << np.uint64(j % 64)
    uncovered = False
    for w in range(nwords):
        if hits[w] & ~covered[w]:
            uncovered = True
    valid_x[:] = 0
    node = 0
    for i in range(xs.shape[0]):
        p = xs[i]
        if not _fits(cells, p, blocked):
            continue
        valid_x[i // 64] |= np.uint64(1) << np.uint64(i % 64)
        for w in range(nwy):
            m[w] = valid_y[w] & ~conflict_xy[i, w]
        if uncovered:  # the second ship must cover every hit the rest leave uncovered
            for w in range(nwords):
                left[w] = hits[w] & ~covered[w] & ~cells[p, w]
                while left[w]:
                    low = left[w] & (~left[w] + np.uint64(1))
                    c = 64 * w + int(_popcount(low - np.uint64(1)))
                    for k in range(nwy):
                        m[k] &= cover_y[c, k]
                    left[w] ^= low
        found = 0
        for w in range(nwy):
            found += int(_popcount(m[w]))
        if found == 0:
            continue
        while next_target < targets.shape[0] and targets[next_target] < base + node + found:
            rows[next_target, :leaf] = picked[:leaf]
            rows[next_target, leaf] = p
            rows[next_target, leaf + 1] = ys[_nth_bit(m, targets[next_target] - base - node)]
            next_target += 1
        node += found
        if want:
            counts[p] += found
            if uncovered:  # few pairs: credit the second ship's placements one by one
                for w in range(nwy):
                    bits = m[w]
                    while bits:
                        low = bits & (~bits + np.uint64(1))
                        counts[ys[64 * w + int(_popcount(low - np.uint64(1)))]] += 1
                        bits ^= low
    if want and not uncovered and node > 0:
        for j in range(ys.shape[0]):
            if valid_y[j // 64] >> np.uint64(j % 64) & np.uint64(1):
                c = 0
                for w in range(nwx):
                    c += int(_popcount(valid_x[w] & ~conflict_yx[j, w]))
                counts[ys[j]] += c
    if want:
        for d in range(leaf):
            counts[picked[d]] += node
    return node, next_target


@njit(cache=True, nogil=True)
def _enumerate_pairs(lists, lengths, cells, halos, hits, ncells, out_counts, targets, out_rows, flag):
    """As :func:`_enumerate` with unit weights, the last two ships counted together with bitsets.

    At a node where only two ships are left, the pairs of their placements that fit are counted
    with one AND and popcount per placement of the first instead of a loop over the second
    (:func:`_pair_leaf`). ``targets`` (sorted, may be empty) selects layouts by their number in
    this visiting order: row ``i`` of ``out_rows`` gets layout ``targets[i]``, in depth order
    (exact sampling). Returns early once ``flag[0]`` is set; the caller checks it.
    """
    nships = lengths.shape[0]
    nwords = cells.shape[1]
    xs = lists[nships - 2, : lengths[nships - 2]]
    ys = lists[nships - 1, : lengths[nships - 1]]
    pairs = _pair_tables(xs, ys, cells, halos, ncells)
    scratch = (
        np.zeros((xs.shape[0] + 63) // 64, dtype=np.uint64),
        np.zeros((ys.shape[0] + 63) // 64, dtype=np.uint64),
        np.zeros((ys.shape[0] + 63) // 64, dtype=np.uint64),
        np.zeros(nwords, dtype=np.uint64),
    )
    choice = np.full(nships, -1, dtype=np.int64)
    picked = np.full(nships, -1, dtype=np.int64)
    blocked = np.zeros((nships + 1, nwords), dtype=np.uint64)
    covered = np.zeros((nships + 1, nwords), dtype=np.uint64)
    room = _room(lists, lengths, cells)
    total = 0
    leaf = nships - 2
    depth = 0
    next_target = 0
    steps = 0
    while depth >= 0:
        steps += 1
        if steps % CHECK_EVERY == 0 and flag[0]:
            break
        if depth == leaf:
            node, next_target = _pair_leaf(
                xs, ys, cells, hits, blocked[depth], covered[depth], pairs, scratch, picked, out_counts,
                targets, out_rows, total, next_target,
            )  # fmt: skip
            total += node
            depth -= 1
            continue
        choice[depth] += 1
        if choice[depth] >= lengths[depth]:
            choice[depth] = -1
            depth -= 1
            continue
        p = lists[depth, choice[depth]]
        if not _fits(cells, p, blocked[depth]):
            continue
        picked[depth] = p
        if _place(cells, halos, hits, room, p, depth, blocked, covered):
            depth += 1
    return total


def _search_lists(rules: Rules, ev: Evidence):
    """The admissible placements per ship, fewest first, as the search kernels read them."""
    t = tables(rules)
    groups = [
        np.flatnonzero(ev.admissible[t.start[s] : t.start[s] + t.count[s]]) + t.start[s]
        for s in range(len(rules.fleet))
    ]
    order = np.argsort([len(g) for g in groups], kind="stable")
    width = max(len(g) for g in groups)
    lists = np.full((len(groups), width), -1, dtype=np.int64)
    lengths = np.zeros(len(groups), dtype=np.int64)
    for d, s in enumerate(order):
        lists[d, : len(groups[s])] = groups[s]
        lengths[d] = len(groups[s])
    hits = np.array([(ev.hits >> (64 * w)) & (2**64 - 1) for w in range(t.nwords)], dtype=np.uint64)
    return order, lists, lengths, hits


_EMPTY = np.zeros(0, dtype=np.int64)  # no marginals wanted, or no layouts to select
_NO_ROWS = np.zeros((0, 0), dtype=np.int64)


def count_by_search(
    rules: Rules,
    ev: Evidence,
    marginals: bool = True,
    weight: np.ndarray | None = None,
    stop: Stop | None = None,
):
    """Layouts and per-placement layout counts, by visiting every consistent layout (any rules).

    ``stop`` interrupts it (:class:`battleship.stop.Stopped`).
    """
    t = tables(rules)
    order, lists, lengths, hits = _search_lists(rules, ev)
    weight = np.ones(len(t.masks), dtype=np.int64) if weight is None else weight
    counts = np.zeros(len(t.masks) if marginals else 0, dtype=weight.dtype)
    if len(order) >= 2 and weight.dtype == np.int64 and (weight == 1).all():
        total = watched(
            _enumerate_pairs, lists, lengths, t.cells, t.halos, hits, rules.cells, counts, _EMPTY, _NO_ROWS,
            flag_of(stop), stop=stop,
        )  # fmt: skip
    else:
        total = watched(
            _enumerate,
            order,
            lists,
            lengths,
            t.cells,
            t.halos,
            hits,
            weight,
            counts,
            flag_of(stop),
            stop=stop,
        )
    return (float(total) if weight.dtype == np.float64 else int(total)), counts


def select_by_search(rules: Rules, ev: Evidence, targets: np.ndarray, stop: Stop | None = None) -> np.ndarray:
    """The consistent layouts numbered ``targets`` (sorted) in the search's visiting order.

    Rows of placement indices in fleet order. With targets drawn uniformly below the number of
    layouts this is exact uniform sampling, at the cost of one counting pass. Needs two ships or more.
    ``stop`` interrupts it (:class:`battleship.stop.Stopped`).
    """
    t = tables(rules)
    order, lists, lengths, hits = _search_lists(rules, ev)
    rows = np.full((len(targets), len(order)), -1, dtype=np.int64)
    watched(
        _enumerate_pairs, lists, lengths, t.cells, t.halos, hits, rules.cells, _EMPTY, targets, rows,
        flag_of(stop), stop=stop,
    )  # fmt: skip
    out = np.empty_like(rows)
    out[:, order] = rows
    return out
