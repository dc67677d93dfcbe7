"""The state graph of straight ships under any spacing rule: compiled once, swept for every board.

A layout is read cell by cell in reading order (a "broken profile"). Before cell (``r``, ``c``) a
state says what the cells already decided mean for the cells still open. Per column, one value:

- for the columns from ``c`` on, what the row above leaves for cell (``r``, ``j``): free (0),
  forbidden by the spacing margin (1), or filled by a ship going on down (``v >= 2``: after this
  cell it goes on ``v - 2`` more);
- for the columns left of ``c - 1``, the same for the row below, (``r + 1``, ``j``);
- for column ``c - 1``, the cell (``r``, ``c - 1``) itself: water (0), a ship cell that ends (1), a
  ship going on down (``v``), because the cell about to be decided and the row below both need it;

plus, under ``no-contact``, whether (``r``, ``c - 2``) is a ship, and how many ships of each class are
placed (ships of a class are not told apart). Cells are thus remembered by what they forbid, not by
how: two pasts that forbid the same cells are one state.

From a state each way to decide the cell is an edge with a label: a ship of class ``k`` starting
there along the row or down the column (a placement label, :meth:`Shape.label`), leaving it empty
(:attr:`Shape.empty`), or a ship going on down through it (:attr:`Shape.goes_on`). A ship along the row covers
its cells at once: its edge jumps to the cell after it. Every layout of the fleet is one path from
the first state to the last, and every path one layout.

None of that depends on the shots. The evidence only says which edges a board allows: a placement
edge when the placement is admissible (weighed by its prior weight), an empty edge unless the cell
is a hit. So the graph is compiled once per board shape, spacing and class structure, kept, and a
board is a sweep over its arrays (:mod:`battleship.inference.sweep`), without any hashing.

Compiling takes four passes, layer by layer: the geometry alone (hash tables of profile keys);
the states with counts, following the geometry's edges (a dense index per layer, no hashing);
backwards, dropping the states that cannot finish the fleet; and backwards again, merging the
states of a layer whose futures are the same (the same labelled edges to the same states: one path
is still one layout). Once every ship is placed, what the margins forbid no longer matters and is
forgotten, which merges states early and cheaply; the last pass finds the rest (pirates: 6.3
million states to 5.5).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np
from numba.typed import List

from battleship import waiting
from battleship.jit import njit
from battleship.rng import mix64

EMPTY = -1  # (the geometry's moves) the cell is left empty: not allowed on a hit
GOES_ON = -2  # a ship placed further up goes on through the cell: always allowed
CHECK_EVERY = 4096  # states between looks at the stop flag
TOUCH, NO_EDGE, NO_CONTACT = 0, 1, 2  # spacing codes


@dataclass(frozen=True)
class Shape:
    """What a graph depends on: the board as swept, the spacing rule, and the ship classes."""

    height: int  # rows as swept (the board is transposed when that makes the profile narrower)
    width: int  # columns as swept: the profile's width
    spacing: int  # TOUCH, NO_EDGE or NO_CONTACT
    lengths: tuple[int, ...]  # per class
    mult: tuple[int, ...]  # ships per class

    @property
    def cells(self) -> int:
        """Cells of the board."""
        return self.height * self.width

    def words(self) -> str:
        """The shape as a person would say it: ``100 cells, no-contact, ships 5 4 3 3 2``."""
        spacing = {TOUCH: "touching", NO_EDGE: "no-edge", NO_CONTACT: "no-contact"}[self.spacing]
        ships = " ".join(str(n) for n, m in zip(self.lengths, self.mult, strict=True) for _ in range(m))
        return f"{self.cells} cells, {spacing}, ships {ships}"

    @property
    def labels(self) -> int:
        """Placement labels: (class, orientation, cell). Two more follow: :attr:`empty`, :attr:`goes_on`."""
        return 2 * len(self.lengths) * self.cells

    @property
    def empty(self) -> int:
        """The label of an edge leaving its cell empty (closed on a hit)."""
        return self.labels

    @property
    def goes_on(self) -> int:
        """The label of an edge where a ship placed further up fills the cell (always open)."""
        return self.labels + 1

    @property
    def bits(self) -> int:
        """Bits per column in a state's key."""
        return max(self.lengths).bit_length()

    @property
    def combinations(self) -> int:
        """How many count vectors the classes allow."""
        out = 1
        for m in self.mult:
            out *= m + 1
        return out

    def fits(self) -> bool:
        """True when a geometric state fits a 63-bit key."""
        return self.width * self.bits + 2 <= 62

    def label(self, k: int, down: bool, cell: int) -> int:
        """The label of a ship of class ``k`` starting at ``cell`` (swept frame) along the row or down."""
        return (2 * k + int(down)) * self.cells + cell

    def jumps(self) -> np.ndarray:
        """Per label, how many cells its edge advances (a ship along the row: its length; else 1)."""
        out = np.ones(self.labels + 2, dtype=np.int64)
        for k, length in enumerate(self.lengths):
            if length > 1:
                out[2 * k * self.cells : (2 * k + 1) * self.cells] = length
        return out


@dataclass(frozen=True, eq=False)
class Graph:
    """A compiled state graph: states numbered layer by layer, edges in arrays (CSR by source).

    Layer ``i`` (the states before cell ``i``) holds states ``layer_first[i]`` to
    ``layer_first[i + 1] - 1``; the last layer holds one state, the end. State 0 is the start.
    """

    shape: Shape
    layer_first: np.ndarray  # (cells + 2,) int64
    edge_first: np.ndarray  # (states + 1,) int64: state s's edges are edge_first[s] .. edge_first[s+1]-1
    target: np.ndarray  # (edges,) int32: the state an edge leads to
    label: np.ndarray  # (edges,) int16 or int32: a placement label, shape.empty or shape.goes_on
    jump: np.ndarray  # (labels + 2,) int64: cells an edge with each label advances
    open_total: int  # paths with every edge allowed: the open board's layouts (classes not told apart)
    spare: dict = field(default_factory=dict, repr=False, compare=False)  # sweep buffers, by value type

    @property
    def states(self) -> int:
        """Number of states."""
        return len(self.edge_first) - 1

    @property
    def edges(self) -> int:
        """Number of edges."""
        return len(self.target)

    @property
    def nbytes(self) -> int:
        """Memory the graph holds, its spare sweep buffers included."""
        arrays = [self.layer_first, self.edge_first, self.target, self.label]
        for sets in list(self.spare.values()):
            for values, scratch in sets:
                arrays += [*values, *scratch]
        return sum(a.nbytes for a in arrays)


# ---- the geometry's moves ----------------------------------------------------------------------
@njit(cache=True, nogil=True, inline="always")
def _digit(key, c, bits, width):
    """Column ``c``'s value (0 off the board)."""
    if c < 0 or c >= width:
        return 0
    return (key >> (c * bits)) & ((1 << bits) - 1)


@njit(cache=True, nogil=True, inline="always")
def _put(key, c, bits, value):
    """``key`` with column ``c`` set to ``value``."""
    return (key & ~(((1 << bits) - 1) << (c * bits))) | (value << (c * bits))


@njit(cache=True, nogil=True, inline="always")
def _below(left_ship, here, right, spacing):
    """What cell (``r``, ``j``) leaves for (``r + 1``, ``j``): ``here`` and its neighbours in row ``r``."""
    if here >= 2:
        return here  # the ship goes on down
    if spacing == NO_EDGE:
        return 1 if here != 0 else 0
    if spacing == NO_CONTACT and (left_ship or here != 0 or right != 0):
        return 1
    return 0


@njit(cache=True, nogil=True)
def _decide(key, c, value, cells, width, bits, spacing):
    """The state after cells ``c .. c + cells - 1`` of the row take ``value`` (cell contents)."""
    flag_bit = width * bits  # (r, c - 2) is a ship
    two_left = (key >> flag_bit) & 1
    for cc in range(c, c + cells):
        if cc >= 1:
            left = _digit(key, cc - 1, bits, width)
            key = _put(key, cc - 1, bits, _below(two_left, left, value, spacing))
            two_left = 1 if left != 0 else 0
        key = _put(key, cc, bits, value)
    if c + cells == width:  # the row is done: its last cell too becomes what it leaves below
        last = _digit(key, width - 1, bits, width)
        key = _put(key, width - 1, bits, _below(two_left, last, 0, spacing))
        two_left = 0
    if spacing != NO_CONTACT:
        two_left = 0
    return (key & ~(1 << flag_bit)) | (two_left << flag_bit)


@njit(cache=True, nogil=True)
def _moves(key, r, c, height, width, spacing, bits, lengths, out_key, out_kind):
    """Every way to decide cell (``r``, ``c``) from geometric state ``key``; returns how many.

    ``out_kind``: EMPTY, GOES_ON, or ``2 * length index + down`` for a ship starting here.
    """
    here = _digit(key, c, bits, width)
    left = _digit(key, c - 1, bits, width)  # the cell (r, c - 1) itself
    mark = 1 if spacing != TOUCH else 0  # a ship cell that ends, as its column remembers it
    closed = (key >> (width * bits + 1)) & 1  # every ship is placed: no ship starts any more
    if here >= 2:  # a ship going on down fills this cell
        if spacing != TOUCH and left != 0:
            return 0
        rest = here - 1 if here > 2 else mark
        out_key[0] = _decide(key, c, rest, 1, width, bits, spacing)
        out_kind[0] = GOES_ON
    else:
        out_key[0] = _decide(key, c, 0, 1, width, bits, spacing)
        out_kind[0] = EMPTY
    if closed:
        out_key[0] = _forget(out_key[0], (c + 1) % width, width, bits)
    if here != 0 or closed or (spacing != TOUCH and left != 0):
        return 1
    n = 1
    for li in range(lengths.shape[0]):
        length = lengths[li]
        if length == 1:
            out_key[n] = _decide(key, c, mark, 1, width, bits, spacing)
            out_kind[n] = 2 * li
            n += 1
            continue
        if r + length <= height:
            out_key[n] = _decide(key, c, length, 1, width, bits, spacing)
            out_kind[n] = 2 * li + 1
            n += 1
        if c + length <= width:
            free = True
            for j in range(c + 1, c + length):
                free = free and _digit(key, j, bits, width) == 0
            if free:
                out_key[n] = _decide(key, c, mark, length, width, bits, spacing)
                out_kind[n] = 2 * li
                n += 1
    return n


@njit(cache=True, nogil=True)
def _enough(key, width, bits, need):
    """True unless the ships going on down need more ships of some length than the fleet has.

    A column holding ``v >= 2`` is a ship of at least ``v`` cells; ``need[t]``: ships of ``t`` or more.
    """
    for t in range(2, need.shape[0]):
        n = 0
        for j in range(width):
            if _digit(key, j, bits, width) >= t:
                n += 1
        if n > need[t]:
            return False
    return True


@njit(cache=True, nogil=True)
def _forget(key, c, width, bits):
    """``key`` before cell ``c`` once every ship is placed: what the margins forbid no longer matters.

    Kept: ships going on down, and a ship cell left of a cell such a ship fills (they may not
    touch). The result is marked closed: no ship starts from it.
    """
    for j in range(width):
        if _digit(key, j, bits, width) == 1 and not (j == c - 1 and _digit(key, c, bits, width) >= 2):
            key = _put(key, j, bits, 0)
    return (key & ~(1 << (width * bits))) | (1 << (width * bits + 1))


# ---- hash tables from int64 keys to dense ids, one row per layer in flight (pass 1 only) --------
@njit(cache=True, nogil=True)
def _new_tables(rows, size, room):
    """``rows`` empty tables of ``size`` slots (-1: empty), their ids, keys in order, and key counts."""
    return (
        np.full((rows, size), -1, dtype=np.int64),
        np.zeros((rows, size), dtype=np.int32),
        np.empty((rows, room), dtype=np.int64),
        np.zeros(rows, dtype=np.int64),
    )


@njit(cache=True, nogil=True, inline="always")
def _slot(slots, w, key):
    """The slot of row ``w`` holding ``key``, or the empty slot where it belongs."""
    mask = slots.shape[1] - 1
    at = np.int64(mix64(np.uint64(key)) & np.uint64(mask))
    while slots[w, at] != -1 and slots[w, at] != key:
        at = (at + 1) & mask
    return at


@njit(cache=True, nogil=True)
def _bigger(tables):
    """The tables with twice the slots and twice the room for keys, every key kept."""
    slots, _ids, keys, sizes = tables
    out = _new_tables(slots.shape[0], 2 * slots.shape[1], 2 * keys.shape[1])
    for w in range(slots.shape[0]):
        out[3][w] = sizes[w]
        for j in range(sizes[w]):
            out[2][w, j] = keys[w, j]
            at = _slot(out[0], w, keys[w, j])
            out[0][w, at] = keys[w, j]
            out[1][w, at] = j
    return out


@njit(cache=True, nogil=True, inline="always")
def _intern(slots, ids, keys, sizes, w, key):
    """The id of ``key`` in row ``w``, added with the next id if new (the caller made room)."""
    at = _slot(slots, w, key)
    if slots[w, at] == key:
        return ids[w, at]
    n = sizes[w]
    slots[w, at] = key
    ids[w, at] = n
    keys[w, n] = key
    sizes[w] = n + 1
    return n


@njit(cache=True, nogil=True)
def _clear(slots, keys, sizes, w):
    """Empty row ``w`` (only the slots on its keys' probe paths are touched)."""
    mask = slots.shape[1] - 1
    for j in range(sizes[w]):
        at = np.int64(mix64(np.uint64(keys[w, j])) & np.uint64(mask))
        while slots[w, at] != -1:
            slots[w, at] = -1
            at = (at + 1) & mask
    sizes[w] = 0


@njit(cache=True, nogil=True, inline="always")
def _grow(a, n):
    """``a`` with room for at least ``n`` entries (doubling)."""
    if n <= a.shape[0]:
        return a
    b = np.empty(max(n, 2 * a.shape[0]), dtype=a.dtype)
    b[: a.shape[0]] = a
    return b


# ---- pass 1: the geometry ----------------------------------------------------------------------
@njit(cache=True, nogil=True)
def _geometry(height, width, spacing, bits, lengths, need, limit, flag):
    """The geometric states layer by layer and their edges; None if stopped or past ``limit`` states.

    Returns per layer (``cells + 1`` of them) each state's out-degree (uint8) and the state it
    becomes once every ship is placed (:func:`_forget`, int32), and per edge the target's id within
    its layer (int32) and its kind (int16).
    """
    ncell = height * width
    window = int(lengths.max()) + 1
    slots, ids, keyrows, sizes = _new_tables(window, 1024, 512)
    _intern(slots, ids, keyrows, sizes, 0, 0)
    degree = List([np.zeros(0, np.uint8) for _ in range(ncell + 1)])
    forget = List([np.zeros(0, np.int32) for _ in range(ncell + 1)])
    target = List([np.zeros(0, np.int32) for _ in range(ncell + 1)])
    kind = List([np.zeros(0, np.int16) for _ in range(ncell + 1)])
    out_key = np.empty(2 * lengths.shape[0] + 2, np.int64)
    out_kind = np.empty(out_key.shape[0], np.int64)
    buf_t = np.empty(1024, np.int32)
    buf_k = np.empty(1024, np.int16)
    total = 0
    for i in range(ncell + 1):
        w, c = i % window, i % width
        if 2 * (sizes[w] + 1) > slots.shape[1] or sizes[w] + 1 > keyrows.shape[1]:
            slots, ids, keyrows, sizes = _bigger((slots, ids, keyrows, sizes))
        forget_i = np.zeros(0, np.int32)
        s = 0
        while s < sizes[w]:  # forgotten keys may add states to the layer as it goes
            if 2 * (sizes[w] + 1) > slots.shape[1] or sizes[w] + 1 > keyrows.shape[1]:
                slots, ids, keyrows, sizes = _bigger((slots, ids, keyrows, sizes))
            forget_i = _grow(forget_i, s + 1)
            if (keyrows[w, s] >> (width * bits + 1)) & 1 or i == ncell:
                forget_i[s] = s  # closed already (or the end)
            else:
                forget_i[s] = _intern(slots, ids, keyrows, sizes, w, _forget(keyrows[w, s], c, width, bits))
            s += 1
        n = sizes[w]
        total += n
        if total + n * (ncell - i) > limit:  # layers rarely shrink: the rest would pass the limit
            return None
        keys = keyrows[w, :n].copy()
        forget[i] = forget_i[:n].copy()
        deg = np.zeros(n, np.uint8)
        degree[i] = deg
        if i == ncell:
            break
        r = i // width
        ne = 0
        for s in range(n):
            if s % CHECK_EVERY == 0 and flag[0]:
                return None
            m = _moves(keys[s], r, c, height, width, spacing, bits, lengths, out_key, out_kind)
            buf_t = _grow(buf_t, ne + m)
            buf_k = _grow(buf_k, ne + m)
            if 2 * (sizes.max() + m) > slots.shape[1] or sizes.max() + m > keyrows.shape[1]:
                slots, ids, keyrows, sizes = _bigger((slots, ids, keyrows, sizes))
            kept = 0
            for t in range(m):
                kd = out_kind[t]
                if kd >= 0 and kd % 2 == 1 and not _enough(out_key[t], width, bits, need):
                    continue  # more ships going on down than the fleet has
                j = i + (lengths[kd // 2] if kd >= 0 and kd % 2 == 0 else 1)
                key = 0 if j == ncell else out_key[t]
                buf_t[ne] = _intern(slots, ids, keyrows, sizes, j % window, key)
                buf_k[ne] = kd
                ne += 1
                kept += 1
            deg[s] = kept
        target[i] = buf_t[:ne].copy()
        kind[i] = buf_k[:ne].copy()
        _clear(slots, keyrows, sizes, w)  # the row now serves layer i + window
    return _flat(degree), _flat(forget), _flat(target), _flat(kind)


@njit(cache=True, nogil=True)
def _flat(layers):
    """Per-layer arrays as one array and where each layer starts (inner loops index it flat)."""
    first = np.zeros(len(layers) + 1, np.int64)
    for i in range(len(layers)):
        first[i + 1] = first[i] + layers[i].shape[0]
    out = np.empty(first[-1], layers[0].dtype)
    for i in range(len(layers)):
        out[first[i] : first[i + 1]] = layers[i]
    return out, first


# ---- pass 2: the states with counts --------------------------------------------------------------
@njit(cache=True, nogil=True)
def _with_counts(geo, lengths, mult, class_length, template, limit, flag):
    """The geometry times the class counts, forwards from the empty board; None if stopped or too big.

    A state is (geometric id ``g``, count index ``u``, mixed radix over the classes), keyed
    ``g * combos + u``. A dense index per layer in flight maps the keys reached to ids in the order
    first reached; a layer is then swept in key order (so that the states of one geometric state,
    which share their targets' neighbourhood, come together), which numbers it. ``class_length[k]``
    is the index in ``lengths`` of class ``k``'s length. Returns the number of states per layer, the
    last layer's keys, per layer the states' out-degrees and per edge its target's first-reached id
    and its label (``template``'s type), and per layer each first-reached id's final number (flat).
    """
    (degree_g, at_g), (forget_g, _), (target_g, at_e), (kind_g, _) = geo
    ncell = at_g.shape[0] - 2
    nclass = mult.shape[0]
    stride = np.ones(nclass, np.int64)
    for k in range(1, nclass):
        stride[k] = stride[k - 1] * (mult[k - 1] + 1)
    combos = stride[nclass - 1] * (mult[nclass - 1] + 1)
    window = int(lengths.max()) + 1
    index = np.full((window, int(np.diff(at_g).max()) * combos), -1, np.int32)
    sizes = np.zeros(window, np.int64)
    index[0, 0] = 0
    sizes[0] = 1
    count = np.zeros(ncell + 1, np.int64)
    degree = List([np.zeros(0, np.uint8) for _ in range(ncell + 1)])
    target = List([np.zeros(0, np.int32) for _ in range(ncell + 1)])
    label = List([np.zeros(0, template.dtype) for _ in range(ncell + 1)])
    rank = List([np.zeros(0, np.int32) for _ in range(ncell + 1)])
    moves = (degree_g, at_g, forget_g, target_g, at_e, kind_g)
    counts = (class_length, mult, stride, combos)
    buffers = (np.empty(1024, np.int32), np.empty(1024, template.dtype))
    keys = np.zeros(1, np.int64)
    for i in range(ncell + 1):
        w = i % window
        count[i] = sizes[w]
        if count[: i + 1].sum() + count[i] * (ncell - i) > limit:  # layers rarely shrink
            return None
        rank[i] = np.empty(count[i], np.int32)
        keys = _in_key_order(index, w, at_g[i + 1] - at_g[i], combos, rank[i])
        sizes[w] = 0  # the row now serves layer i + window
        degree[i] = np.zeros(count[i], np.uint8)
        if i == ncell:
            break
        out = _expand_layer(i, keys, moves, counts, lengths, index, sizes, window, degree[i], buffers, flag)
        if out is None:
            return None
        target[i], label[i], buffers = out
    return count, keys, degree, target, label, _flat(rank)


@njit(cache=True, nogil=True)
def _in_key_order(index, w, ngeo, combos, rank):
    """Layer ``w``'s keys in order, ``rank[first-reached id]`` their position; the index row cleared."""
    keys = np.empty(rank.shape[0], np.int64)
    row = index[w]
    at = 0
    for key in range(ngeo * combos):
        if row[key] >= 0:
            keys[at] = key
            rank[row[key]] = at
            row[key] = -1
            at += 1
    return keys


@njit(cache=True, nogil=True)
def _expand_layer(i, keys, moves, counts, lengths, index, sizes, window, deg, buffers, flag):
    """Every edge of layer ``i``'s states (in key order): targets' first-reached ids and labels."""
    degree_g, at_g, forget_g, target_g, at_e, kind_g = moves
    class_length, mult, stride, combos = counts
    buf_t, buf_l = buffers
    ncell = at_g.shape[0] - 2
    nclass = mult.shape[0]
    nlab = 2 * nclass * ncell  # the empty label; nlab + 1: goes on
    full = (mult * stride).sum()
    first = np.zeros(at_g[i + 1] - at_g[i] + 1, np.int64)
    first[0] = at_e[i]
    for g in range(first.shape[0] - 1):
        first[g + 1] = first[g] + degree_g[at_g[i] + g]
    ne = 0
    for s in range(keys.shape[0]):
        if s % CHECK_EVERY == 0 and flag[0]:
            return None
        g, u = keys[s] // combos, keys[s] % combos
        buf_t = _grow(buf_t, ne + (nclass + 1) * (first[g + 1] - first[g]))
        buf_l = _grow(buf_l, buf_t.shape[0])
        start = ne
        for e in range(first[g], first[g + 1]):
            kd = kind_g[e]
            if kd < 0:
                g2 = forget_g[at_g[i + 1] + target_g[e]] if u == full else target_g[e]
                buf_t[ne] = _state(index, sizes, (i + 1) % window, g2 * combos + u)
                buf_l[ne] = nlab if kd == EMPTY else nlab + 1
                ne += 1
                continue
            li, down = kd // 2, kd % 2
            j = i + (1 if down or lengths[li] == 1 else lengths[li])
            for k in range(nclass):
                if class_length[k] != li or (u // stride[k]) % (mult[k] + 1) >= mult[k]:
                    continue
                u2 = u + stride[k]
                g2 = forget_g[at_g[j] + target_g[e]] if u2 == full else target_g[e]
                buf_t[ne] = _state(index, sizes, j % window, g2 * combos + u2)
                buf_l[ne] = (2 * k + down) * ncell + i
                ne += 1
        deg[s] = ne - start
    return buf_t[:ne].copy(), buf_l[:ne].copy(), (buf_t, buf_l)


@njit(cache=True, nogil=True, inline="always")
def _state(index, sizes, w, key):
    """The id of the state keyed ``key`` in index row ``w``, numbered next if new."""
    at = index[w, key]
    if at < 0:
        at = sizes[w]
        index[w, key] = at
        sizes[w] = at + 1
    return at


# ---- pass 3: backwards, keeping the states that can finish the fleet ------------------------------
@njit(cache=True, nogil=True, inline="always")
def _step(lab, i, jump):
    """The layer an edge from layer ``i`` with label ``lab`` leads to."""
    return i + jump[lab]


@njit(cache=True, nogil=True)
def _alive(prod, jump, end_key, flag):
    """Each state's new id among those that can reach the end (-1: it cannot), flat by layer.

    Returns (new ids, where each layer starts in them, states kept per layer); None if stopped.
    """
    count, last, degree, target, label, (rank, _) = prod
    ncell = count.shape[0] - 1
    first = np.zeros(ncell + 2, np.int64)
    for i in range(ncell + 1):
        first[i + 1] = first[i] + count[i]
    newid = np.full(first[ncell + 1], -1, np.int32)
    kept = np.zeros(ncell + 1, np.int64)
    for s in range(last.shape[0]):
        if last[s] == end_key:
            newid[first[ncell] + s] = 0
            kept[ncell] = 1
    for i in range(ncell - 1, -1, -1):
        tgt, lab, deg = target[i], label[i], degree[i]
        lo = 0
        for s in range(count[i]):
            if s % CHECK_EVERY == 0 and flag[0]:
                return None
            hi = lo + deg[s]
            for e in range(lo, hi):
                j = _step(lab[e], i, jump)
                if newid[first[j] + rank[first[j] + tgt[e]]] >= 0:
                    newid[first[i] + s] = kept[i]
                    kept[i] += 1
                    break
            lo = hi
    return newid, first, kept


@njit(cache=True, nogil=True)
def _compact(prod, alive, jump):
    """The graph's arrays with only the states that can reach the end: layer starts, edge starts,
    targets (global ids) and labels."""
    count, _last, degree, target, label, (rank, _) = prod
    newid, first, kept = alive
    ncell = count.shape[0] - 1
    layer_first = np.zeros(ncell + 2, np.int64)
    for i in range(ncell + 1):
        layer_first[i + 1] = layer_first[i] + kept[i]
    nedges = 0
    for i in range(ncell + 1):
        tgt, lab, deg = target[i], label[i], degree[i]
        lo = 0
        for s in range(count[i]):
            hi = lo + deg[s]
            if newid[first[i] + s] >= 0:
                for e in range(lo, hi):
                    j = _step(lab[e], i, jump)
                    if newid[first[j] + rank[first[j] + tgt[e]]] >= 0:
                        nedges += 1
            lo = hi
    edge_first = np.zeros(layer_first[ncell + 1] + 1, np.int64)
    out_t = np.empty(nedges, np.int32)
    out_l = np.empty(nedges, label[0].dtype)
    out = 0
    for i in range(ncell + 1):
        tgt, lab, deg = target[i], label[i], degree[i]
        lo = 0
        for s in range(count[i]):
            hi = lo + deg[s]
            me = newid[first[i] + s]
            if me >= 0:
                edge_first[layer_first[i] + me] = out
                for e in range(lo, hi):
                    j = _step(lab[e], i, jump)
                    there = newid[first[j] + rank[first[j] + tgt[e]]]
                    if there >= 0:
                        out_t[out] = layer_first[j] + there
                        out_l[out] = lab[e]
                        out += 1
            lo = hi
        degree[i] = np.zeros(0, np.uint8)  # done with the layer: give its memory back
        target[i] = np.zeros(0, np.int32)
        label[i] = np.zeros(0, label[i].dtype)
    edge_first[layer_first[ncell + 1]] = out
    return layer_first, edge_first, out_t, out_l


# ---- pass 4: states with the same future merged ------------------------------------------------
@njit(cache=True, nogil=True, inline="always")
def _same(a, b, edge_first, target, label, local):
    """True when states ``a`` and ``b`` have the same labelled edges to the same classes."""
    if edge_first[a + 1] - edge_first[a] != edge_first[b + 1] - edge_first[b]:
        return False
    for k in range(edge_first[a + 1] - edge_first[a]):
        ea, eb = edge_first[a] + k, edge_first[b] + k
        if label[ea] != label[eb] or local[target[ea]] != local[target[eb]]:
            return False
    return True


@njit(cache=True, nogil=True)
def _futures(layer_first, edge_first, target, label, flag):
    """Backwards, each state's class among its layer's states with the same future (local ids, in
    order of first appearance), each layer's number of classes, and each class's first state.

    A state's future is its labelled edges and the classes they lead to; states whose futures are
    equal lead to the same paths, so one can stand for all (edges are in a fixed label order).
    """
    n = edge_first.shape[0] - 1
    ncell = layer_first.shape[0] - 2
    local = np.zeros(n, np.int32)
    rep = np.zeros(n, np.int32)  # rep[layer_first[i] + c]: the first state of class c of layer i
    nclass = np.zeros(ncell + 1, np.int64)
    rep[layer_first[ncell]] = layer_first[ncell]
    nclass[ncell] = 1
    for i in range(ncell - 1, -1, -1):
        lo, hi = layer_first[i], layer_first[i + 1]
        size = 64
        while size < 2 * (hi - lo):
            size *= 2
        slots = np.full(size, -1, np.int64)
        ids = np.zeros(size, np.int32)
        for s in range(lo, hi):
            if (s - lo) % CHECK_EVERY == 0 and flag[0]:
                return None
            h = np.uint64(0x9E3779B97F4A7C15)
            for e in range(edge_first[s], edge_first[s + 1]):
                h = mix64(h ^ (np.uint64(label[e]) << np.uint64(32)) ^ np.uint64(local[target[e]]))
            at = np.int64(h & np.uint64(size - 1))
            key = np.int64(h >> np.uint64(1))
            while slots[at] != -1:
                if slots[at] == key and _same(s, rep[lo + ids[at]], edge_first, target, label, local):
                    break
                at = (at + 1) & (size - 1)
            if slots[at] == -1:
                slots[at] = key
                ids[at] = nclass[i]
                rep[lo + nclass[i]] = s
                nclass[i] += 1
            local[s] = ids[at]
    return local, nclass, rep


@njit(cache=True, nogil=True)
def _merged(layer_first, edge_first, target, label, futures):
    """The graph with one state per class of :func:`_futures` (its first state's edges)."""
    local, nclass, rep = futures
    ncell = layer_first.shape[0] - 2
    first = np.zeros(ncell + 2, np.int64)
    for i in range(ncell + 1):
        first[i + 1] = first[i] + nclass[i]
    layer_of = np.zeros(edge_first.shape[0] - 1, np.int32)
    nedges = 0
    for i in range(ncell + 1):
        layer_of[layer_first[i] : layer_first[i + 1]] = i
        for c in range(nclass[i]):
            s = rep[layer_first[i] + c]
            nedges += edge_first[s + 1] - edge_first[s]
    out_first = np.zeros(first[ncell + 1] + 1, edge_first.dtype)
    out_t = np.empty(nedges, np.int32)
    out_l = np.empty(nedges, label.dtype)
    out = 0
    for i in range(ncell + 1):
        for c in range(nclass[i]):
            s = rep[layer_first[i] + c]
            out_first[first[i] + c] = out
            for e in range(edge_first[s], edge_first[s + 1]):
                t = target[e]
                out_t[out] = first[layer_of[t]] + local[t]
                out_l[out] = label[e]
                out += 1
    out_first[first[ncell + 1]] = out
    return first, out_first, out_t, out_l


@njit(cache=True, nogil=True)
def _open_count(edge_first, target):
    """Paths from the first state to the last with every edge allowed: (modulo 2^64, as a float)."""
    n = edge_first.shape[0] - 1
    if n == 0:
        return 0, 0.0
    exact = np.zeros(n, np.int64)
    approx = np.zeros(n, np.float64)
    exact[0] = 1
    approx[0] = 1.0
    for s in range(n):
        for e in range(edge_first[s], edge_first[s + 1]):
            exact[target[e]] += exact[s]
            approx[target[e]] += approx[s]
    return exact[n - 1], approx[n - 1]


def exact_total(residue: int, approx: float) -> int:
    """The integer that is ``residue`` modulo 2^64 and closest to ``approx`` (float error well below 2^63)."""
    r = residue % 2**64
    return r + 2**64 * round((approx - r) / 2**64)


# ---- compiling, once per shape -------------------------------------------------------------------
class TooLarge(ValueError):
    """The graph for these rules would not fit (in memory, or its state in a 63-bit key)."""


MAX_STATES = 50_000_000  # past this a graph and its sweeps would need more than about 2 GB
MAX_GEOMETRY = 20_000_000  # geometric states of pass 1 (beyond, the graph could not fit either)
MAX_INDEX = 150_000_000  # entries of the dense index of pass 2 (4 bytes each)
FILL = 0.2  # about this share of (geometric states x count vectors) are states (measured: 0.06-0.16)

_geometries: dict[Shape, tuple] = {}  # pass 1, kept from an estimate until the graph is compiled
_too_large: dict[Shape, str] = {}


def _arrays(shape: Shape) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct lengths (sorted), each class's index among them, and ships of each length or more."""
    lengths = np.array(sorted(set(shape.lengths)), dtype=np.int64)
    class_length = np.array([int(np.searchsorted(lengths, n)) for n in shape.lengths], dtype=np.int64)
    need = [
        sum(m for n, m in zip(shape.lengths, shape.mult, strict=True) if n >= t)
        for t in range(max(shape.lengths) + 1)
    ]
    return lengths, class_length, np.array(need, dtype=np.int64)


def _refuse(shape: Shape, why: str) -> None:
    """Remember that ``shape``'s graph is too large, and say so."""
    _too_large[shape] = why
    raise TooLarge(why)


def geometry(shape: Shape, flag: np.ndarray | None = None) -> tuple | None:
    """Pass 1 for ``shape`` (kept until the graph is compiled); None if stopped; :class:`TooLarge`."""
    if shape in _too_large:
        raise TooLarge(_too_large[shape])
    if shape not in _geometries:
        if not shape.fits():
            _refuse(shape, f"a {shape.width}-column profile with ships of {max(shape.lengths)} cells")
        flag = np.zeros(1, np.int64) if flag is None else flag
        lengths, _, need = _arrays(shape)
        geo = _geometry(
            shape.height, shape.width, shape.spacing, shape.bits, lengths, need, MAX_GEOMETRY, flag
        )
        if geo is None:
            if flag[0]:
                return None
            _refuse(shape, f"the board's profiles alone would pass {MAX_GEOMETRY:,} states")
        _geometries[shape] = geo
    return _geometries[shape]


def likely_states(shape: Shape, geo: tuple) -> int:
    """About how many states the graph will have, from its geometry (pass 1)."""
    return int(FILL * len(geo[0][0]) * shape.combinations)


def build(shape: Shape, flag: np.ndarray | None = None) -> Graph | None:
    """Compile the graph of ``shape`` (None when ``flag[0]`` was set while it ran).

    Raises :class:`TooLarge` when it would pass :data:`MAX_STATES` states.
    """
    flag = np.zeros(1, np.int64) if flag is None else flag
    waiting.step("pass 1 of 4: the board's profiles")
    geo = geometry(shape, flag)
    if geo is None:
        return None
    if likely_states(shape, geo) > 2 * MAX_STATES:
        _refuse(shape, f"about {likely_states(shape, geo):,} states")
    widest = int(np.diff(geo[0][1]).max())
    if widest * shape.combinations > MAX_INDEX:
        _refuse(shape, f"{widest:,} profiles in a layer times {shape.combinations} count vectors")
    lengths, class_length, _ = _arrays(shape)
    mult = np.array(shape.mult, dtype=np.int64)
    template = np.zeros(0, np.int16 if shape.labels + 2 < 2**15 else np.int32)
    waiting.step(f"pass 2 of 4: the states, about {likely_states(shape, geo):,}")
    prod = _with_counts(geo, lengths, mult, class_length, template, MAX_STATES, flag)
    if prod is None:
        if flag[0]:
            return None
        _refuse(shape, f"it would pass {MAX_STATES:,} states")
    _geometries.pop(shape, None)
    stride = np.cumprod([1, *[m + 1 for m in shape.mult[:-1]]])
    end_key = int(sum(m * s for m, s in zip(shape.mult, stride, strict=True)))  # geometry 0, all placed
    jump = shape.jumps()
    waiting.step("pass 3 of 4: the states that finish the fleet")
    alive = _alive(prod, jump, end_key, flag)
    if alive is None:
        return None
    layer_first, edge_first, target, label = _compact(prod, alive, jump)
    del prod, alive
    if len(target) < 2**31:
        edge_first = edge_first.astype(np.int32)
    waiting.step(f"pass 4 of 4: merging {len(edge_first) - 1:,} states")
    futures = _futures(layer_first, edge_first, target, label, flag)
    if futures is None:
        return None
    layer_first, edge_first, target, label = _merged(layer_first, edge_first, target, label, futures)
    del futures
    residue, approx = _open_count(edge_first, target)
    return Graph(
        shape, layer_first, edge_first, target, label, jump, exact_total(int(residue), float(approx))
    )


BUDGET = 1_200_000_000  # bytes of compiled graphs and their sweep buffers kept (least recently used go first)
_cache: dict[Shape, Graph] = {}
_lock = threading.Lock()


def compiled(shape: Shape, flag: np.ndarray | None = None) -> Graph | None:
    """The graph of ``shape``, compiled on first use and kept (None if stopped by ``flag``)."""
    with _lock:
        graph = _cache.pop(shape, None)
        if graph is None:
            with waiting.said(f"compiling the exact engine's state graph ({shape.words()}; once per rules)"):
                graph = build(shape, flag)
            if graph is None:
                return None
        _cache[shape] = graph  # most recently used last
        while sum(g.nbytes for g in _cache.values()) > BUDGET and len(_cache) > 1:
            del _cache[next(iter(_cache))]
        return graph


def keep(shape, graph: Graph) -> None:
    """Keep ``graph`` (compiled by another engine's compiler, keyed by its own shape) within the budget."""
    with _lock:
        _cache[shape] = graph
        while sum(g.nbytes for g in _cache.values()) > BUDGET and len(_cache) > 1:
            del _cache[next(iter(_cache))]


def cached(shape: Shape) -> Graph | None:
    """The graph of ``shape`` if it is compiled already (now the most recently used)."""
    with _lock:
        graph = _cache.pop(shape, None)
        if graph is not None:
            _cache[shape] = graph
        return graph


def known_too_large(shape: Shape) -> str | None:
    """Why ``shape``'s graph was found too large, if it was."""
    return _too_large.get(shape)
