"""The frontier engine: exact counts for ships of any shape (polyominoes) under any spacing rule.

Like the sweep (:mod:`battleship.inference.sweep`), it compiles once per board shape, spacing and
ship classes a state graph whose paths are the layouts, and answers each board with one forward
and one backward pass over it (the sweep's own passes), the evidence only masking edges.

A layout is read cell by cell in reading order. Every ship is placed at its first cell in that
order (its anchor): all its other cells come later. Before cell ``i`` a state holds the frontier:
for the cells ``i, i + 1, ...`` within reach of a ship placed before ``i`` (a bit each),

- which of them are already a ship's cell (``occ``: the sweep will find them filled), and
- which are forbidden by a placed ship's spacing margin (``forb``),

and how many ships of each class are placed. From a state, a cell that is already filled has one
edge (it "goes on"); any other cell can be left empty (closed on a hit), and, when it is not
forbidden, can anchor any placement whose cells are all free: the placement's cells join ``occ``,
its margin joins ``forb``. The margin is symmetric (a ship may not lie in another's margin exactly
when the other may not lie in its), so marking each ship's margin ahead of it is enough: an earlier
ship's cells are never checked again. A placement's cells that follow its anchor in the same row
are decided at once (the edge jumps past them), as the sweep does for a ship along the row.

The frontier is a pair of 64-bit words: it covers up to 62 cells ahead (10 columns and ships up to
5 rows tall, margins included). Once every ship is placed the margins no longer matter and are
forgotten (states merge). The compiler makes one forward pass with a hash table per layer in
flight, then keeps only the states that can finish the fleet and merges the states with the same
future (:mod:`battleship.inference.graph`'s last passes).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import lru_cache
from math import factorial, prod

import numpy as np
from numba.typed import List

from battleship import waiting
from battleship.cells import iter_cells
from battleship.inference import graph as graphs
from battleship.inference.evidence import Evidence
from battleship.inference.graph import CHECK_EVERY, MAX_STATES, NO_CONTACT, TOUCH, Graph, TooLarge
from battleship.inference.sweep import EXACT_LIMIT, SPACING_CODE, _own_cell, _run
from battleship.inference.watch import flag_of, watched
from battleship.jit import njit
from battleship.rng import mix64
from battleship.rules import Rules
from battleship.stop import Stop
from battleship.tables import tables, to_words

Pattern = tuple[
    tuple[int, int], ...
]  # a placement's cells relative to its anchor: (rows down, columns right)
CLOSED = np.uint64(1 << 63)  # the forbidden word of a state with every ship placed (margins forgotten)
WORD = 63  # frontier bits a state may use (the forbidden word's top bit says "closed")


@dataclass(frozen=True)
class FrontierShape:
    """What a frontier graph depends on: the board as swept, the spacing rule and the ship classes."""

    height: int
    width: int
    spacing: int
    patterns: tuple[Pattern, ...]  # every placement pattern of the fleet, sorted
    class_patterns: tuple[tuple[int, ...], ...]  # per class, the patterns its ships take (indices)
    mult: tuple[int, ...]  # ships per class

    @property
    def cells(self) -> int:
        """Cells of the board."""
        return self.height * self.width

    @property
    def templates(self) -> list[tuple[int, int]]:
        """(class, pattern) pairs in label order: label ``template * cells + anchor``."""
        return [(k, q) for k, qs in enumerate(self.class_patterns) for q in qs]

    @property
    def labels(self) -> int:
        """Placement labels; two more follow: empty (closed on a hit) and goes on (always open)."""
        return len(self.templates) * self.cells

    @property
    def combinations(self) -> int:
        """How many count vectors the classes allow."""
        return prod(m + 1 for m in self.mult)


@dataclass(frozen=True)
class ShapeClass:
    """Ships counted together (as :class:`battleship.inference.sweep.ShipClass`, by shape not length)."""

    ship: int  # a ship of the class (they share their placements)
    common: tuple[int, ...]
    own: tuple[int, ...]

    @property
    def size(self) -> int:
        """Ships in the class."""
        return len(self.common) + len(self.own)


# ---- the board as swept, and each placement's pattern and anchor -------------------------------
@dataclass(frozen=True, eq=False)
class Frame:
    """The swept board (transposed when it has more columns than rows) and every placement's place in it."""

    height: int
    width: int
    frame_of: np.ndarray  # (cells,) each board cell's index in the swept board
    patterns: tuple[Pattern, ...]  # sorted
    pattern: np.ndarray  # (placements,) int64: index into ``patterns``
    anchor: np.ndarray  # (placements,) int64: first swept cell


@lru_cache(maxsize=64)
def frame(rules: Rules) -> Frame:
    """The swept board of ``rules`` and the pattern and anchor of every placement (cached)."""
    t = tables(rules)
    transposed = rules.cols > rules.rows
    height, width = (rules.cols, rules.rows) if transposed else (rules.rows, rules.cols)
    r, c = np.divmod(np.arange(rules.cells), rules.cols)
    frame_of = (c * rules.rows + r) if transposed else np.arange(rules.cells)
    found: list[Pattern] = []
    anchors = np.zeros(len(t.masks), dtype=np.int64)
    for p, mask in enumerate(t.masks):
        cells = sorted(int(frame_of[x]) for x in iter_cells(mask))
        r0, c0 = divmod(cells[0], width)
        found.append(tuple((x // width - r0, x % width - c0) for x in cells))
        anchors[p] = cells[0]
    patterns = tuple(sorted(set(found)))
    index = {q: n for n, q in enumerate(patterns)}
    pattern = np.array([index[q] for q in found], dtype=np.int64)
    return Frame(height, width, frame_of, patterns, pattern, anchors)


def _steps(spacing: int) -> tuple[tuple[int, int], ...]:
    """The neighbours a ship's margin takes under a spacing rule."""
    if spacing == TOUCH:
        return ()
    edge = ((0, 1), (1, 0), (0, -1), (-1, 0))
    return (*edge, (1, 1), (1, -1), (-1, 1), (-1, -1)) if spacing == NO_CONTACT else edge


@dataclass(frozen=True, eq=False)
class Moves:
    """Per anchor cell, the patterns that fit there: cells and margin ahead as bits, and the jump."""

    first: np.ndarray  # (cells + 1,) int64: anchor i's moves are first[i] .. first[i + 1] - 1
    pattern: np.ndarray  # int64
    cells: np.ndarray  # uint64: bit d = cell anchor + d
    margin: np.ndarray  # uint64: the margin's cells after the anchor, not the ship's own
    jump: np.ndarray  # int64: the cells after the anchor in its row, the ship's own, decided at once
    reach: int  # bits a frontier needs (the farthest cell or margin cell ahead, plus one)


def moves(height: int, width: int, spacing: int, patterns: tuple[Pattern, ...]) -> Moves:
    """Where each pattern fits on the swept board, as the compiler reads it."""
    first, pats, cells, margins, jumps = [0], [], [], [], []
    reach = 1
    for i in range(height * width):
        r, c = divmod(i, width)
        for q, pattern in enumerate(patterns):
            if not all(0 <= r + dr < height and 0 <= c + dc < width for dr, dc in pattern):
                continue
            own = {dr * width + dc for dr, dc in pattern}
            margin = {
                (dr + er) * width + dc + ec
                for dr, dc in pattern
                for er, ec in _steps(spacing)
                if 0 <= r + dr + er < height and 0 <= c + dc + ec < width
            }
            margin = {d for d in margin if d > 0} - own
            reach = max(reach, max(own | margin) + 1)
            jump = 1
            while (0, jump) in pattern:
                jump += 1
            pats.append(q)
            cells.append(sum(1 << d for d in own) if reach <= WORD else 0)
            margins.append(sum(1 << d for d in margin) if reach <= WORD else 0)
            jumps.append(jump)
        first.append(len(pats))
    return Moves(
        np.array(first, dtype=np.int64),
        np.array(pats, dtype=np.int64),
        np.array(cells, dtype=np.uint64),
        np.array(margins, dtype=np.uint64),
        np.array(jumps, dtype=np.int64),
        reach,
    )


# ---- hash tables from two-word keys to dense ids, one row per layer in flight --------------------
@njit(cache=True, nogil=True)
def _new_tables(rows, size, room):
    """``rows`` empty tables of ``size`` slots and room for ``room`` keys each.

    A slot holds its key and its id plus one (0: empty) side by side, so a look-up reads one
    cache line; the keys are also kept in order of their ids, for reading a layer in order.
    """
    return (
        np.zeros((rows, size, 3), dtype=np.uint64),
        np.empty((rows, room), dtype=np.uint64),
        np.empty((rows, room), dtype=np.uint64),
        np.zeros(rows, dtype=np.int64),
    )


@njit(cache=True, nogil=True, inline="always")
def _slot(slots, w, a, b):
    """The slot of row ``w`` holding key (``a``, ``b``), or the empty slot where it belongs."""
    mask = slots.shape[1] - 1
    at = np.int64(mix64(a ^ mix64(b)) & np.uint64(mask))
    while True:
        if slots[w, at, 2] == 0 or (slots[w, at, 0] == a and slots[w, at, 1] == b):
            return at
        at = (at + 1) & mask


@njit(cache=True, nogil=True)
def _bigger(tables):
    """The tables with twice the slots and twice the room, every key kept with its id."""
    slots, ka, kb, sizes = tables
    out = _new_tables(slots.shape[0], 2 * slots.shape[1], 2 * ka.shape[1])
    for w in range(slots.shape[0]):
        out[3][w] = sizes[w]
        for j in range(sizes[w]):
            a, b = ka[w, j], kb[w, j]
            out[1][w, j] = a
            out[2][w, j] = b
            at = _slot(out[0], w, a, b)
            out[0][w, at, 0] = a
            out[0][w, at, 1] = b
            out[0][w, at, 2] = j + 1
    return out


@njit(cache=True, nogil=True, inline="always")
def _intern(slots, ka, kb, sizes, w, a, b):
    """The id of key (``a``, ``b``) in row ``w``, added with the next id if new (the caller made room)."""
    at = _slot(slots, w, a, b)
    if slots[w, at, 2] != 0:
        return np.int64(slots[w, at, 2]) - 1
    n = sizes[w]
    slots[w, at, 0] = a
    slots[w, at, 1] = b
    slots[w, at, 2] = n + 1
    ka[w, n] = a
    kb[w, n] = b
    sizes[w] = n + 1
    return n


# ---- the forward pass: every state the fleet can reach ---------------------------------------------
@njit(cache=True, nogil=True, inline="always")
def _dead(u, j, mult, stride, last):
    """True when count vector ``u`` before cell ``j`` misses a ship no anchor from ``j`` on can take."""
    for k in range(mult.shape[0]):
        if last[k] < j and (u // stride[k]) % (mult[k] + 1) < mult[k]:
            return True
    return False


@njit(cache=True, nogil=True, inline="always")
def _edges(a, b, i, fleet, mv, tables, buf_t, buf_l, ne):
    """The edges of the state keyed (``a``, ``b``) before cell ``i``, appended from ``ne``; returns the
    new end. ``fleet``: (cells, reach, window, full count vector, empty label, per pattern its
    (class, template) pairs, ships per class, count strides, last anchors)."""
    ncell, reach, window, full, nlab, pc, mult, stride, last = fleet
    mv_first, mv_pat, mv_cells, mv_margin, mv_jump = mv
    pc_first, pc_class, pc_template = pc
    slots, ka, kb, sizes = tables
    u = np.int64(a >> np.uint64(reach))
    occ = a & ((np.uint64(1) << np.uint64(reach)) - np.uint64(1))
    closed = b == CLOSED
    forb = np.uint64(0) if closed else b
    if not _dead(u, i + 1, mult, stride, last):  # the cell left empty, or filled by a ship placed before
        after = (occ >> np.uint64(1)) | (np.uint64(u) << np.uint64(reach))
        buf_t[ne] = _intern(
            slots, ka, kb, sizes, (i + 1) % window, after, CLOSED if closed else forb >> np.uint64(1)
        )
        buf_l[ne] = nlab if (occ & np.uint64(1)) == 0 else nlab + 1
        ne += 1
    if closed or ((occ | forb) & np.uint64(1)) != 0:
        return ne
    for m in range(mv_first[i], mv_first[i + 1]):  # a ship anchored here
        if (occ | forb) & mv_cells[m]:
            continue
        j = i + mv_jump[m]
        occ2 = (occ | mv_cells[m]) >> np.uint64(mv_jump[m])
        forb2 = (forb | mv_margin[m]) >> np.uint64(mv_jump[m])
        for x in range(pc_first[mv_pat[m]], pc_first[mv_pat[m] + 1]):
            k = pc_class[x]
            if (u // stride[k]) % (mult[k] + 1) >= mult[k]:
                continue
            u2 = u + stride[k]
            if _dead(u2, j, mult, stride, last):
                continue
            a2 = occ2 | (np.uint64(u2) << np.uint64(reach))
            buf_t[ne] = _intern(slots, ka, kb, sizes, j % window, a2, CLOSED if u2 == full else forb2)
            buf_l[ne] = pc_template[x] * ncell + i
            ne += 1
    return ne


@njit(cache=True, nogil=True)
def _states(fleet, mv, most, template, limit, flag):
    """Every state reachable from the empty board, layer by layer, with its edges; None if stopped or
    past ``limit`` states.

    ``fleet``: see :func:`_edges`; ``mv``: the moves (first, pattern, cells, margin, jump); ``most``:
    edges a state may have. A key is (``occ | u << reach``, ``forb`` or :data:`CLOSED`). Returns
    what :func:`battleship.inference.graph._alive` reads: states per layer, the last layer's keys
    compared with 0 (0: the end), per layer out-degrees, targets' ids within their layer and labels
    (``template``'s type), and the identity numbering.
    """
    ncell, reach, window, full = fleet[0], fleet[1], fleet[2], fleet[3]
    tables = _new_tables(window, 1024, 512)
    _intern(tables[0], tables[1], tables[2], tables[3], 0, np.uint64(0), np.uint64(0))
    count = np.zeros(ncell + 1, np.int64)
    degree = List([np.zeros(0, np.uint8) for _ in range(ncell + 1)])
    target = List([np.zeros(0, np.int32) for _ in range(ncell + 1)])
    label = List([np.zeros(0, template.dtype) for _ in range(ncell + 1)])
    rank = List([np.zeros(0, np.int32) for _ in range(ncell + 1)])
    buf_t, buf_l = np.empty(1024, np.int32), np.empty(1024, template.dtype)
    last_keys = np.zeros(0, np.int64)
    for i in range(ncell + 1):
        w = i % window
        n = tables[3][w]
        count[i] = n
        if count.sum() > limit:
            return None
        rank[i] = np.arange(n).astype(np.int32)
        keys_a, keys_b = tables[1][w, :n].copy(), tables[2][w, :n].copy()
        tables[0][w] = 0  # the row now serves layer i + window
        tables[3][w] = 0
        deg = np.zeros(n, np.uint8)
        degree[i] = deg
        if i == ncell:
            last_keys = np.ones(n, np.int64)
            for s in range(n):
                if (keys_a[s] >> np.uint64(reach)) == np.uint64(full) and keys_b[s] == CLOSED:
                    last_keys[s] = 0
            break
        ne = 0
        for s in range(n):
            if s % CHECK_EVERY == 0 and flag[0]:
                return None
            slots, ka, _, sizes = tables
            if 2 * (sizes.max() + most) > slots.shape[1] or sizes.max() + most > ka.shape[1]:
                tables = _bigger(tables)
            if ne + most > buf_t.shape[0]:
                buf_t = graphs._grow(buf_t, ne + most)
                buf_l = graphs._grow(buf_l, buf_t.shape[0])
            start = ne
            ne = _edges(keys_a[s], keys_b[s], i, fleet, mv, tables, buf_t, buf_l, ne)
            deg[s] = ne - start
        target[i] = buf_t[:ne].copy()
        label[i] = buf_l[:ne].copy()
    return count, last_keys, degree, target, label, graphs._flat(rank)


# ---- compiling, once per shape ---------------------------------------------------------------------
def _kernel_tables(shape: FrontierShape, mv: Moves) -> tuple[tuple, np.ndarray]:
    """Per pattern its (class, template) pairs, flat; and per class the last anchor any of its patterns fits."""
    by_pattern: list[list[tuple[int, int]]] = [[] for _ in shape.patterns]
    for n, (k, q) in enumerate(shape.templates):
        by_pattern[q].append((k, n))
    first = np.cumsum([0, *[len(x) for x in by_pattern]]).astype(np.int64)
    pairs = [pair for x in by_pattern for pair in x]
    pc = (
        first,
        np.array([k for k, _ in pairs], dtype=np.int64),
        np.array([n for _, n in pairs], dtype=np.int64),
    )
    last = np.full(len(shape.mult), -1, dtype=np.int64)
    for i in range(shape.cells):
        for m in range(mv.first[i], mv.first[i + 1]):
            for k, qs in enumerate(shape.class_patterns):
                if mv.pattern[m] in qs:
                    last[k] = i
    return pc, last


def _jumps(shape: FrontierShape, mv: Moves) -> np.ndarray:
    """Per label, how many cells its edge advances."""
    out = np.ones(shape.labels + 2, dtype=np.int64)
    by_pattern = {}
    for m in range(len(mv.pattern)):
        by_pattern[int(mv.pattern[m])] = int(mv.jump[m])
    for n, (_k, q) in enumerate(shape.templates):
        out[n * shape.cells : (n + 1) * shape.cells] = by_pattern.get(q, 1)
    return out


def fits(shape: FrontierShape) -> str:
    """Why the frontier of ``shape`` would not fit two words (empty when it fits)."""
    mv = moves(shape.height, shape.width, shape.spacing, shape.patterns)
    need = mv.reach + (shape.combinations - 1).bit_length()
    if mv.reach > WORD or need > 64:
        return f"a frontier of {mv.reach} cells ahead and {shape.combinations} count vectors"
    return ""


def build(shape: FrontierShape, flag: np.ndarray | None = None) -> Graph | None:
    """Compile the graph of ``shape`` (None when ``flag[0]`` was set while it ran); :class:`TooLarge`."""
    flag = np.zeros(1, np.int64) if flag is None else flag
    why = fits(shape)
    if why:
        raise TooLarge(why)
    mv = moves(shape.height, shape.width, shape.spacing, shape.patterns)
    pc, last = _kernel_tables(shape, mv)
    template = np.zeros(0, np.int16 if shape.labels + 2 < 2**15 else np.int32)
    mult = np.array(shape.mult, dtype=np.int64)
    stride = np.cumprod([1, *[m + 1 for m in shape.mult[:-1]]]).astype(np.int64)
    full = int((mult * stride).sum())
    window = int(mv.jump.max(initial=1)) + 1
    fleet = (shape.cells, mv.reach, window, full, shape.labels, pc, mult, stride, last)
    per_pattern = np.diff(pc[0])
    most = 1 + max(
        (int(per_pattern[mv.pattern[mv.first[i] : mv.first[i + 1]]].sum()) for i in range(shape.cells)),
        default=0,
    )
    if most > 255:
        raise TooLarge(f"{most} ways to decide a cell")
    kernel_moves = (mv.first, mv.pattern, mv.cells, mv.margin, mv.jump)
    prod_ = _states(fleet, kernel_moves, most, template, 3 * MAX_STATES // 2, flag)
    if prod_ is None:
        if flag[0]:
            return None
        raise TooLarge(f"it would pass {3 * MAX_STATES // 2:,} states before merging")
    jump = _jumps(shape, mv)
    alive = graphs._alive(prod_, jump, 0, flag)
    if alive is None:
        return None
    layer_first, edge_first, target, label = graphs._compact(prod_, alive, jump)
    del prod_, alive
    if len(target) < 2**31:
        edge_first = edge_first.astype(np.int32)
    futures = graphs._futures(layer_first, edge_first, target, label, flag)
    if futures is None:
        return None
    layer_first, edge_first, target, label = graphs._merged(layer_first, edge_first, target, label, futures)
    del futures
    if len(edge_first) - 1 > MAX_STATES:
        raise TooLarge(f"{len(edge_first) - 1:,} states")
    residue, approx = graphs._open_count(edge_first, target)
    total = graphs.exact_total(int(residue), float(approx))
    return Graph(shape, layer_first, edge_first, target, label, jump, total)  # type: ignore[arg-type]


_too_large: dict[FrontierShape, str] = {}
_lock = threading.Lock()


def compiled(shape: FrontierShape, flag: np.ndarray | None = None) -> Graph | None:
    """The graph of ``shape``, compiled on first use and kept with the sweep's graphs (one memory budget)."""
    if shape in _too_large:
        raise TooLarge(_too_large[shape])
    with _lock:
        graph = graphs.cached(shape)  # type: ignore[arg-type]
        if graph is not None:
            return graph
        try:
            with waiting.said(
                f"compiling the exact engine's state graph ({shape.cells} cells, ship shapes; once per rules)"
            ):
                graph = build(shape, flag)
        except TooLarge as error:
            _too_large[shape] = str(error)
            raise
        if graph is not None:
            graphs.keep(shape, graph)
        return graph


# ---- ship classes, label weights ------------------------------------------------------------------
def classes(rules: Rules, v: np.ndarray, hits: int) -> list[ShapeClass]:
    """Ships with the same placements and the same weights are one class; a ship that owns a hit
    joins its shape's first class (see :class:`battleship.inference.sweep.ShipClass`)."""
    t = tables(rules)
    hit_words = to_words(hits, t.nwords)
    groups: dict[tuple[int, ...], list[int]] = {}
    for s in range(len(rules.fleet)):
        groups.setdefault(rules.placements[s], []).append(s)
    out: list[ShapeClass] = []
    for group in groups.values():
        blocks: list[list[int]] = []
        own: list[int] = []
        for s in group:
            mine = v[t.start[s] : t.start[s] + t.count[s]]
            for block in blocks:
                first = block[0]
                if np.array_equal(mine, v[t.start[first] : t.start[first] + t.count[first]]):
                    block.append(s)
                    break
            else:
                if len(group) > 1 and _own_cell(rules, v, s, hit_words):
                    own.append(s)
                else:
                    blocks.append([s])
        blocks = blocks or [[]]
        out.append(ShapeClass(group[0], tuple(blocks[0]), tuple(own)))
        out += [ShapeClass(group[0], tuple(b), ()) for b in blocks[1:]]
    return out


def shape_of(rules: Rules, ship_classes: list[ShapeClass]) -> FrontierShape:
    """The graph shape for these rules and classes."""
    f = frame(rules)
    t = tables(rules)
    class_patterns = tuple(
        tuple(sorted(set(f.pattern[t.start[k.ship] : t.start[k.ship] + t.count[k.ship]].tolist())))
        for k in ship_classes
    )
    return FrontierShape(
        f.height,
        f.width,
        SPACING_CODE[rules.spacing],
        f.patterns,
        class_patterns,
        tuple(k.size for k in ship_classes),
    )


def _label_of(rules: Rules, shape: FrontierShape, k: int, block: np.ndarray) -> np.ndarray:
    """The labels of placements ``block`` (of one ship) in class ``k``."""
    f = frame(rules)
    template = {pair: n for n, pair in enumerate(shape.templates)}
    index = np.array([template[(k, int(q))] for q in f.pattern[block]], dtype=np.int64)
    return index * shape.cells + f.anchor[block]


def _label_weights(rules: Rules, shape: FrontierShape, ship_classes: list[ShapeClass], v: np.ndarray):
    """Each placement label's weight (the class's ships' weights there: their supports do not meet),
    then the empty label's (set per cell by the sweep) and the goes-on label's, 1."""
    t = tables(rules)
    out = np.ones(shape.labels + 2, dtype=v.dtype)
    out[: shape.labels] = 0
    for k, ship_class in enumerate(ship_classes):
        for s in list(ship_class.own) + list(ship_class.common[:1]):
            block = np.arange(t.start[s], t.start[s] + t.count[s])
            np.add.at(out, _label_of(rules, shape, k, block), v[block])
    return out


def _hits(rules: Rules, hits: int) -> np.ndarray:
    """The hit cells of the swept board as a bool array."""
    out = np.zeros(rules.cells, dtype=np.bool_)
    f = frame(rules)
    for cell in iter_cells(hits):
        out[f.frame_of[cell]] = True
    return out


# ---- counting --------------------------------------------------------------------------------------
@lru_cache(maxsize=64)
def applies(rules: Rules) -> bool:
    """True when the frontier engine can count ``rules`` at all: its frontier fits two words (the
    graph may still be too large: :class:`TooLarge` while compiling)."""
    f = frame(rules)
    mv = moves(f.height, f.width, SPACING_CODE[rules.spacing], f.patterns)
    return mv.reach <= WORD and mv.reach + len(rules.fleet) <= 64


@dataclass(frozen=True)
class Setup:
    """A board ready to sweep: its classes, graph, label weights and hits."""

    classes: list[ShapeClass]
    graph: Graph
    weight: np.ndarray
    hit: np.ndarray
    v: np.ndarray

    @property
    def factor(self) -> int:
        """Layouts with ships told apart per path: the ways to assign each class's common ships."""
        return prod(factorial(len(k.common)) for k in self.classes)


def board_shape(rules: Rules, ev: Evidence, weight: np.ndarray | None = None) -> FrontierShape:
    """The graph shape a board needs."""
    w = np.ones(len(tables(rules).masks), dtype=np.int64) if weight is None else weight
    return shape_of(rules, classes(rules, np.where(ev.admissible, w, 0), ev.hits))


# Compiling a graph, one core: about 9 s for the standard fleet and a 2x2 square, no contact
# (15 million states); a rough figure for saying up front what a board costs
COMPILE_SECONDS = 10.0


def graph_if_compiled(rules: Rules, ev: Evidence, weight: np.ndarray | None = None) -> Graph | None:
    """The graph this board needs, if it is compiled already (answering it then costs one sweep)."""
    return graphs.cached(board_shape(rules, ev, weight))  # type: ignore[arg-type]


def is_compiled(rules: Rules, ev: Evidence, weight: np.ndarray | None = None) -> bool:
    """True when the graph this board needs is compiled already."""
    return graph_if_compiled(rules, ev, weight) is not None


def known_too_large(rules: Rules, ev: Evidence, weight: np.ndarray | None = None) -> str | None:
    """Why this board's graph was found too large, if it was."""
    return _too_large.get(board_shape(rules, ev, weight))


def setup(rules: Rules, ev: Evidence, weight: np.ndarray | None = None, stop: Stop | None = None) -> Setup:
    """Classes, graph (compiled if need be), label weights and hits for this board."""
    t = tables(rules)
    w = np.ones(len(t.masks), dtype=np.int64) if weight is None else weight
    v = np.where(ev.admissible, w, 0).astype(w.dtype)
    ship_classes = classes(rules, v, ev.hits)
    shape = shape_of(rules, ship_classes)
    graph = watched(compiled, shape, flag_of(stop), stop=stop)
    if graph is None:  # stopped while compiling
        if stop is not None:  # none is given only where nothing stops the compilation
            stop.check()
        raise RuntimeError("the graph's compilation stopped without a stop request")
    return Setup(ship_classes, graph, _label_weights(rules, shape, ship_classes, v), _hits(rules, ev.hits), v)


def count_by_frontier(
    rules: Rules,
    ev: Evidence,
    marginals: bool = True,
    weight: np.ndarray | None = None,
    stop: Stop | None = None,
):
    """Layouts (ships told apart) and per-placement layout counts, by sweeping the frontier graph.

    As :func:`battleship.inference.sweep.count_by_sweep`: integer weights give an exact integer
    total of any size (placement counts int64 below 2^62, float64 beyond), float weights floats.
    """
    board = setup(rules, ev, weight, stop)
    if board.v.dtype == np.float64:
        total, marginal = _run(board.graph, board.weight, board.hit, marginals, stop)
        total = float(total) * board.factor
    else:
        top = max(1, int(board.v.max(initial=0)))
        wraps = board.graph.open_total * top ** len(rules.fleet) >= 2**63  # int64 values may wrap
        total, marginal = _run(board.graph, board.weight.astype(np.int64), board.hit, marginals, stop)
        total = int(total)
        if wraps:
            approx, floats = _run(board.graph, board.weight.astype(np.float64), board.hit, marginals, stop)
            total = graphs.exact_total(total, float(approx))
            if total * board.factor >= EXACT_LIMIT:
                marginal = floats
        total *= board.factor
        if total >= EXACT_LIMIT:
            marginal = marginal.astype(np.float64)
    return total, _placements(rules, board, marginal) if marginals else np.zeros(0, dtype=marginal.dtype)


def _placements(rules: Rules, board: Setup, marginal: np.ndarray) -> np.ndarray:
    """Per-label layouts to per-placement layouts, ships told apart."""
    t = tables(rules)
    shape = board.graph.shape
    counts = np.zeros(len(t.masks), dtype=marginal.dtype)
    factor = board.factor
    for k, ship_class in enumerate(board.classes):
        shares = [(s, factor) for s in ship_class.own]
        shares += [(s, factor // len(ship_class.common)) for s in ship_class.common]
        for s, share in shares:
            block = np.arange(t.start[s], t.start[s] + t.count[s])
            labels = _label_of(rules, shape, k, block)  # type: ignore[arg-type]
            counts[block] = np.where(board.v[block] > 0, marginal[labels] * share, 0)
    return counts
