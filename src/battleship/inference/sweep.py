"""The sweep engine: exact counts for straight ships under any spacing rule, on a compiled state graph.

:mod:`battleship.inference.graph` compiles, once per board shape, spacing and ship classes, the
graph whose paths are the layouts. A board only masks its edges: a placement edge weighs the
placement's prior weight (zero when the evidence rules it out), an empty edge is closed on a hit.
Two passes over arrays answer it:

- forwards, ``F[s]``: the weighted paths from the start to state ``s`` (the layouts so far);
- backwards, ``B[s]``: the weighted paths from ``s`` to the end, and on the way each placement's
  layouts: the sum over its edges ``e = (s, t)`` of ``F[s] * w(e) * B[t]``.

Only states some path reaches are visited (a bitmap marks them; each layer's are read off it in
order), so a board late in a game costs little. Ships of one class are not told apart in the graph: the count of layouts with
ships told apart is the graph's times the ways to assign the class's ships to its placements
(:func:`classes`). Drawing a path backwards-weighted (:func:`sample`) gives exact uniform samples.

Counts are int64 while they provably fit (the open board's count times the largest weight to the
power of the fleet's size bounds every value a sweep meets); past that, the sweep runs twice, in
int64 (exact modulo 2^64) and in float64, and the exact count is the integer with that residue
nearest the float (:func:`battleship.inference.graph.exact_total`, exact to about 2^100).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import lru_cache
from math import factorial, prod

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from battleship.cells import iter_cells
from battleship.inference.evidence import Evidence
from battleship.inference.graph import (
    CHECK_EVERY,
    MAX_STATES,
    NO_CONTACT,
    NO_EDGE,
    TOUCH,
    Graph,
    Shape,
    TooLarge,
    cached,
    compiled,
    exact_total,
    geometry,
    known_too_large,
    likely_states,
)
from battleship.inference.watch import flag_of, watched
from battleship.jit import njit
from battleship.rng import next_u64
from battleship.rules import Rules, Spacing
from battleship.stop import Stop
from battleship.tables import tables, to_words

SPACING_CODE = {Spacing.TOUCH: TOUCH, Spacing.NO_EDGE: NO_EDGE, Spacing.NO_CONTACT: NO_CONTACT}
EXACT_LIMIT = 2**62  # placement counts stay int64 below this total, float64 beyond


# ---- the two passes ----------------------------------------------------------------------------
@njit(cache=True, nogil=True, inline="always")
def _open_empty(weight, i, hit):
    """Set the weight of the empty label for cell ``i``: closed on a hit (the label before last)."""
    weight[weight.shape[0] - 2] = 0 if hit[i] else 1


@intrinsic
def _trailing_zeros(typingctx, x):
    """The number of trailing zero bits of a uint64 (one machine instruction)."""
    if x != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return types.uint64(types.uint64), codegen


@njit(cache=True, nogil=True, inline="always")
def _low_bit(x):
    """The index of the lowest set bit of a non-zero uint64."""
    return np.int64(_trailing_zeros(x))


@intrinsic
def _leading_zeros(typingctx, x):
    """The number of leading zero bits of a uint64 (one machine instruction)."""
    if x != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 0))

    return types.uint64(types.uint64), codegen


@njit(cache=True, nogil=True, inline="always")
def _in_layer(w, lo, hi):
    """The bits of bitmap word ``w`` that stand for states in ``[lo, hi)``."""
    mask = ~np.uint64(0)
    if (w << 6) < lo:
        mask &= ~((np.uint64(1) << np.uint64(lo - (w << 6))) - np.uint64(1))
    if ((w + 1) << 6) > hi:
        mask &= (np.uint64(1) << np.uint64(hi - (w << 6))) - np.uint64(1)
    return mask


@njit(cache=True, nogil=True)
def _forward(graph, weight, hit, F, reached, flag):
    """``F[s]`` for every state the board lets a path reach, marked in the bitmap ``reached``.

    Each layer's reached states are read off the bitmap in order, a word at a time (a board late
    in a game reaches few, and costs little). Returns False if stopped.
    """
    layer_first, edge_first, target, label, _jump = graph
    ncell = layer_first.shape[0] - 2
    F[0] = 1
    reached[0] |= np.uint64(1)
    done = 0
    for i in range(ncell):
        _open_empty(weight, i, hit)
        lo, hi = layer_first[i], layer_first[i + 1]
        for w in range(lo >> 6, ((hi - 1) >> 6) + 1):
            word = reached[w]
            if word == 0:
                continue
            word &= _in_layer(w, lo, hi)
            while word:
                s = (w << 6) + _low_bit(word)
                word &= word - np.uint64(1)
                done += 1
                if done % CHECK_EVERY == 0 and flag[0]:
                    return False
                f = F[s]
                for e in range(edge_first[s], edge_first[s + 1]):
                    x = weight[label[e]]
                    if x == 0:  # (a branch: adding the zero costs more, measured)
                        continue
                    t = target[e]
                    F[t] += f * x
                    reached[t >> 6] |= np.uint64(1) << np.uint64(t & 63)
    return True


@njit(cache=True, nogil=True)
def _backward(graph, weight, hit, F, B, reached, marginal, flag):
    """``B[s]`` for the reached states (paths on to the end) and, if ``marginal`` has room, each
    placement label's weighted layouts added to it. Returns False if stopped.

    On the way it clears what the forward pass left for the next sweep: each reached state's
    ``F`` once read, each layer's bits once visited (``B`` is written before it is read, and needs
    no clearing); the end's ``F`` and bit are left to the caller.
    """
    layer_first, edge_first, target, label, _jump = graph
    ncell = layer_first.shape[0] - 2
    placements = weight.shape[0] - 2  # labels from here on are the empty and goes-on labels
    want = marginal.shape[0] > 0
    B[layer_first[ncell]] = 1
    done = 0
    for i in range(ncell - 1, -1, -1):
        _open_empty(weight, i, hit)
        lo, hi = layer_first[i], layer_first[i + 1]
        for w in range((hi - 1) >> 6, (lo >> 6) - 1, -1):
            if reached[w] == 0:
                continue
            mask = _in_layer(w, lo, hi)
            word = reached[w] & mask
            reached[w] &= ~mask
            while word:
                top = np.int64(63 - _leading_zeros(word))  # the highest state first
                word ^= np.uint64(1) << np.uint64(top)
                s = (w << 6) + top
                done += 1
                if done % CHECK_EVERY == 0 and flag[0]:
                    return False
                f = F[s]
                F[s] = 0
                b = weight[0] * 0
                for e in range(edge_first[s], edge_first[s + 1]):
                    lab = label[e]
                    x = weight[lab]
                    if x == 0:
                        continue
                    x = x * B[target[e]]
                    b += x
                    if want and lab < placements:
                        marginal[lab] += f * x
                B[s] = b
    return True


@njit(cache=True, nogil=True)
def _sweep(graph, weight, hit, want, values, scratch, flag):
    """Total (the end's ``F``) and per-label layouts; ``ok`` False if stopped.

    ``values`` (``F``, ``B``) and ``scratch`` (the reached bitmap) are buffers the size of the
    graph, ``F`` and the bitmap zeroed; they are left so.
    """
    F, B = values
    (reached,) = scratch
    ncell = graph[0].shape[0] - 2
    marginal = np.zeros(weight.shape[0] - 2 if want else 0, weight.dtype)
    ok = _forward(graph, weight, hit, F, reached, flag)
    end = graph[0][ncell]
    total = F[end]
    found = (reached[end >> 6] >> np.uint64(end & 63)) & np.uint64(1)
    if ok and want and found:
        ok = _backward(graph, weight, hit, F, B, reached, marginal, flag)
        if ok:
            _clean_end(end, F, reached)
    elif ok:
        _clean(graph[0][ncell + 1], F, reached)
    return ok, total, marginal


@njit(cache=True, nogil=True)
def _clean_end(end, F, reached):
    """Zero the end's ``F`` and bit, which the backward pass does not visit."""
    F[end] = 0
    reached[end >> 6] &= ~(np.uint64(1) << np.uint64(end & 63))


@njit(cache=True, nogil=True)
def _clean(n, F, reached):
    """Zero what a forward pass alone wrote (the reached states' ``F``, the bitmap)."""
    for w in range((n + 63) >> 6):
        word = reached[w]
        while word:
            s = (w << 6) + _low_bit(word)
            word &= word - np.uint64(1)
            F[s] = 0
        reached[w] = np.uint64(0)


# ---- from rules to the graph's frame ---------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Frame:
    """The board as swept (transposed when it has more columns than rows) and where each placement starts."""

    height: int
    width: int
    spacing: int
    down: np.ndarray  # (placements,) bool: the placement runs down a column of the swept board
    cell: np.ndarray  # (placements,) int64: its first cell in the swept board's reading order
    frame_of: np.ndarray  # (cells,) int64: each board cell's index in the swept board


@lru_cache(maxsize=64)
def frame(rules: Rules) -> Frame:
    """The swept board of ``rules`` (cached)."""
    t = tables(rules)
    transposed = rules.cols > rules.rows
    height, width = (rules.cols, rules.rows) if transposed else (rules.rows, rules.cols)
    r, c = np.divmod(np.arange(rules.cells), rules.cols)
    frame_of = (c * rules.rows + r) if transposed else np.arange(rules.cells)
    first = t.cell_list[:, 0]
    second = t.cell_list[:, 1] if t.cell_list.shape[1] > 1 else np.full(len(first), -1)
    along = (t.size[t.ship_of] == 1) | (second == first + 1)
    down = ~along if not transposed else along & (t.size[t.ship_of] > 1)
    return Frame(height, width, SPACING_CODE[rules.spacing], down, frame_of[first], frame_of)


@lru_cache(maxsize=64)
def applies(rules: Rules) -> bool:
    """True when the sweep engine counts ``rules``: straight ships, the narrower side at most 16.

    (Its state must also fit 63 bits: with 16 columns, ships of up to 7 cells.) Whether the graph
    fits in memory is another matter: see :func:`estimate`.
    """
    width = min(rules.rows, rules.cols)
    longest = max(ship.size for ship in rules.fleet)
    return (
        all(ship.is_straight for ship in rules.fleet)
        and width <= 16
        and width * longest.bit_length() + 2 <= 62
    )


# ---- ships of a class: interchangeable under this evidence ---------------------------------------
@dataclass(frozen=True)
class ShipClass:
    """Ships counted together: a group with the same weights (``common``), and ships announced sunk
    whose every placement covers a hit nothing else may cover (``own``: each is wherever that hit is)."""

    length: int
    common: tuple[int, ...]
    own: tuple[int, ...]

    @property
    def size(self) -> int:
        """Ships in the class."""
        return len(self.common) + len(self.own)


def _own_cell(rules: Rules, v: np.ndarray, ship: int, hits: np.ndarray) -> bool:
    """True when every placement ``ship`` may take covers a hit that no other ship's placement covers."""
    t = tables(rules)
    allowed = v > 0
    mine = allowed & (t.ship_of == ship)
    if not mine.any():
        return False
    common = hits & np.bitwise_and.reduce(t.cells[mine], axis=0)
    rest = allowed & ~mine
    others = np.bitwise_or.reduce(t.cells[rest], axis=0) if rest.any() else np.zeros_like(common)
    return bool((common & ~others).any())


_recent_classes: dict[tuple, tuple[ShipClass, ...]] = {}
_recent_lock = threading.Lock()


def classes(rules: Rules, v: np.ndarray, hits: int) -> list[ShipClass]:
    """The ship classes for these effective weights ``v`` (prior weight, zero where inadmissible).

    Ships of one length with equal weights are one class; so is a ship that owns a hit (see
    :class:`ShipClass`) with the others of its length. Under a uniform prior this is always one
    class per length, sinkings included, so a whole game uses one graph. The last few answers are
    kept: choosing the engine, checking the size and sweeping each ask for the same board's.
    """
    key = (rules, v.dtype.str, v.tobytes(), hits)
    with _recent_lock:
        found = _recent_classes.get(key)
    if found is None:
        found = tuple(_classes(rules, v, hits))
        with _recent_lock:
            if len(_recent_classes) >= 16:
                _recent_classes.pop(next(iter(_recent_classes)))
            _recent_classes[key] = found
    return list(found)


def _classes(rules: Rules, v: np.ndarray, hits: int) -> list[ShipClass]:
    """:func:`classes`, computed."""
    t = tables(rules)
    hit_words = to_words(hits, t.nwords)
    out: list[ShipClass] = []
    for length in sorted({s.size for s in rules.fleet}, reverse=True):
        group = [s for s, ship in enumerate(rules.fleet) if ship.size == length]
        blocks: list[list[int]] = []
        own: list[int] = []
        for s in group:
            mine = v[t.start[s] : t.start[s] + t.count[s]]
            for b in blocks:
                first = b[0]
                if np.array_equal(mine, v[t.start[first] : t.start[first] + t.count[first]]):
                    b.append(s)
                    break
            else:
                if len(group) > 1 and _own_cell(rules, v, s, hit_words):  # alone, it is a class anyway
                    own.append(s)
                else:
                    blocks.append([s])
        blocks = blocks or [[]]
        out.append(ShipClass(length, tuple(blocks[0]), tuple(own)))
        out += [ShipClass(length, tuple(b), ()) for b in blocks[1:]]
    return out


def shape_of(rules: Rules, ship_classes: list[ShipClass]) -> Shape:
    """The graph shape for these rules and classes."""
    f = frame(rules)
    return Shape(
        f.height,
        f.width,
        f.spacing,
        tuple(k.length for k in ship_classes),
        tuple(k.size for k in ship_classes),
    )


def _label_weights(rules: Rules, shape: Shape, ship_classes: list[ShipClass], v: np.ndarray) -> np.ndarray:
    """Each placement label's weight: the class's ships' weights there (their supports do not meet);
    then the empty label's (set per cell by the sweep: closed on a hit) and the goes-on label's, 1."""
    t = tables(rules)
    f = frame(rules)
    out = np.ones(shape.labels + 2, dtype=v.dtype)
    out[: shape.labels] = 0
    for k, ship_class in enumerate(ship_classes):
        ships = list(ship_class.own) + list(ship_class.common[:1])
        for s in ships:
            block = np.arange(t.start[s], t.start[s] + t.count[s])
            labels = (2 * k + f.down[block].astype(np.int64)) * shape.cells + f.cell[block]
            np.add.at(out, labels, v[block])
    return out


def _hits(rules: Rules, hits: int) -> np.ndarray:
    """The hit cells of the swept board as a bool array."""
    out = np.zeros(rules.cells, dtype=np.bool_)
    f = frame(rules)
    for cell in iter_cells(hits):
        out[f.frame_of[cell]] = True
    return out


# ---- counting ------------------------------------------------------------------------------------
def graph_for(shape: Shape, stop: Stop | None = None) -> Graph:
    """The compiled graph of ``shape`` (compiled now if need be); :class:`Stopped` if asked to stop."""
    graph = cached(shape) or watched(compiled, shape, flag_of(stop), stop=stop)
    if graph is None:  # stopped while compiling
        if stop is not None:
            stop.check()
        raise RuntimeError("the graph's compilation stopped without a stop request")
    return graph


def _arrays(graph: Graph) -> tuple:
    return graph.layer_first, graph.edge_first, graph.target, graph.label, graph.jump


_spare_lock = threading.Lock()


def _buffers(graph: Graph, dtype: np.dtype) -> tuple:
    """Zeroed buffers for a sweep of ``graph``: a spare set if one is free (no page faults), else new."""
    with _spare_lock:
        free = graph.spare.get(np.dtype(dtype).str)
        if free:
            return free.pop()
    n = graph.states
    return (np.zeros(n, dtype), np.zeros(n, dtype)), (np.zeros((n + 63) // 64 + 1, np.uint64),)


def _give_back(graph: Graph, dtype: np.dtype, buffers: tuple) -> None:
    """Keep one zeroed set of buffers per value type for the next sweep of ``graph``."""
    with _spare_lock:
        free = graph.spare.setdefault(np.dtype(dtype).str, [])
        if not free:
            free.append(buffers)


def _run(graph: Graph, weight: np.ndarray, hit: np.ndarray, want: bool, stop: Stop | None):
    """One sweep: (total, per-label layouts)."""
    values, scratch = _buffers(graph, weight.dtype)
    ok, total, marginal = watched(
        _sweep, _arrays(graph), weight, hit, want, values, scratch, flag_of(stop), stop=stop
    )
    if not ok:  # stopped midway: the buffers are not all zero again, let them go
        if stop is not None:
            stop.check()
        raise RuntimeError("a sweep stopped without a stop request")
    _give_back(graph, weight.dtype, (values, scratch))
    return total, marginal


@dataclass(frozen=True)
class Setup:
    """A board ready to sweep: its classes, graph, label weights and hits."""

    classes: list[ShipClass]
    graph: Graph
    weight: np.ndarray  # per placement label
    hit: np.ndarray  # per swept cell
    v: np.ndarray  # per placement: prior weight, zero where inadmissible

    @property
    def factor(self) -> int:
        """Layouts with ships told apart per path: the ways to assign each class's common ships."""
        return prod(factorial(len(k.common)) for k in self.classes)


def setup(rules: Rules, ev: Evidence, weight: np.ndarray | None = None, stop: Stop | None = None) -> Setup:
    """Classes, graph (compiled if need be), label weights and hits for this board."""
    t = tables(rules)
    w = np.ones(len(t.masks), dtype=np.int64) if weight is None else weight
    v = np.where(ev.admissible, w, 0).astype(w.dtype)
    ship_classes = classes(rules, v, ev.hits)
    shape = shape_of(rules, ship_classes)
    graph = graph_for(shape, stop)
    return Setup(ship_classes, graph, _label_weights(rules, shape, ship_classes, v), _hits(rules, ev.hits), v)


def _board_shape(rules: Rules, ev: Evidence, weight: np.ndarray | None) -> Shape:
    """The graph shape a board needs."""
    w = np.ones(len(tables(rules).masks), dtype=np.int64) if weight is None else weight
    return shape_of(rules, classes(rules, np.where(ev.admissible, w, 0), ev.hits))


def compiled_for(rules: Rules, ev: Evidence, weight: np.ndarray | None = None) -> bool:
    """True when the graph this board needs is compiled already (answering it costs one sweep)."""
    return cached(_board_shape(rules, ev, weight)) is not None


@lru_cache(maxsize=64)
def open_shape(rules: Rules) -> Shape:
    """The graph shape of the open board under a uniform prior: the first a game of exact play compiles."""
    from battleship.game import Observation
    from battleship.inference.evidence import evidence

    return _board_shape(rules, evidence(rules, Observation(rules)), None)


def no_larger(rules: Rules, than: Rules) -> bool:
    """True when the open board's graph of ``rules`` is surely no larger than that of ``than``, known
    without compiling either: no taller or wider a board swept, the same spacing, no longer a ship,
    and no more count vectors (a layer's states are profiles times count vectors, and the profiles
    grow with the width and with the bits a column's ship length takes)."""
    if not (applies(rules) and applies(than)):
        return False
    mine, theirs = open_shape(rules), open_shape(than)
    return (
        mine.spacing == theirs.spacing
        and mine.height <= theirs.height
        and mine.width <= theirs.width
        and mine.bits <= theirs.bits
        and max(mine.lengths) <= max(theirs.lengths)
        and mine.combinations <= theirs.combinations
    )


SECONDS_PER_STATE = 3e-8  # one sweep with every placement's count, one core (measured: pirates, Sea Battle)
COMPILE_SECONDS_PER_STATE = 4e-7  # compiling a graph


@dataclass(frozen=True)
class Estimate:
    """What answering a board with the sweep engine takes, known before doing it."""

    states: int  # the graph's states: exact once it is compiled, else a likely figure
    edges: int  # exact once compiled, else 0
    compiled: bool
    fits: bool  # False: the graph would not fit in memory (see ``why``)
    why: str = ""

    @property
    def seconds(self) -> float:
        """Rough one-core seconds: compiling the graph if need be, then one sweep."""
        return self.states * (SECONDS_PER_STATE + (0 if self.compiled else COMPILE_SECONDS_PER_STATE))


def estimate(rules: Rules, ev: Evidence, weight: np.ndarray | None = None) -> Estimate:
    """The work of answering this board by sweeping: states and edges of its graph, and whether it fits.

    Instant once the graph is compiled; otherwise it runs the first of the compiler's passes (the
    geometry, which the compiler then reuses), so it may take a few seconds for a large board.
    """
    shape = _board_shape(rules, ev, weight)
    graph = cached(shape)
    if graph is not None:
        return Estimate(graph.states, graph.edges, True, True)
    why = known_too_large(shape)
    if why is None:
        try:
            geo = geometry(shape)
            if geo is None:  # only a stop flag cuts pass 1 short, and none was given
                raise RuntimeError("the graph's geometry stopped without a stop flag")
            likely = likely_states(shape, geo)
            if likely > 2 * MAX_STATES:
                why = f"about {likely:,} states"
        except TooLarge as error:
            why = str(error)
    if why:
        return Estimate(0, 0, False, False, f"the sweep engine's state graph would not fit in 2 GB: {why}")
    return Estimate(likely, 0, False, True)


def count_by_sweep(
    rules: Rules,
    ev: Evidence,
    marginals: bool = True,
    weight: np.ndarray | None = None,
    stop: Stop | None = None,
):
    """Layouts (ships told apart) and per-placement layout counts, by sweeping the state graph.

    Integer weights (uniform by default) give an exact integer total of any size; placement counts
    are int64 while the total stays below 2^62, float64 beyond. Float weights give floats.
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
            total = exact_total(total, float(approx))
            if total * board.factor >= EXACT_LIMIT:
                marginal = floats
        total *= board.factor
        if total >= EXACT_LIMIT:
            marginal = marginal.astype(np.float64)
    return total, _placements(rules, board, marginal) if marginals else np.zeros(0, dtype=marginal.dtype)


def _placements(rules: Rules, board: Setup, marginal: np.ndarray) -> np.ndarray:
    """Per-label layouts to per-placement layouts, ships told apart."""
    t = tables(rules)
    f = frame(rules)
    shape = board.graph.shape
    counts = np.zeros(len(t.masks), dtype=marginal.dtype)
    factor = board.factor
    for k, ship_class in enumerate(board.classes):
        shares = [(s, factor) for s in ship_class.own]
        shares += [(s, factor // len(ship_class.common)) for s in ship_class.common]
        for s, share in shares:
            block = np.arange(t.start[s], t.start[s] + t.count[s])
            labels = (2 * k + f.down[block].astype(np.int64)) * shape.cells + f.cell[block]
            counts[block] = np.where(board.v[block] > 0, marginal[labels] * share, 0)
    return counts


# ---- exact sampling: paths drawn backwards-weighted -------------------------------------------------
@njit(cache=True, nogil=True)
def _below(state, n):
    """A uniform integer in ``[0, n)``, exactly (``0 < n < 2^63``): rejection on the fewest top bits."""
    mask = np.uint64(1)
    while mask < np.uint64(n - 1):
        mask = (mask << np.uint64(1)) | np.uint64(1)
    while True:
        x = next_u64(state) & mask
        if x < np.uint64(n):
            return np.int64(x)


@njit(cache=True, nogil=True)
def _shuffled(state, n):
    """A uniformly random permutation of ``0 .. n - 1`` (Fisher-Yates on exact draws)."""
    order = np.arange(n)
    for i in range(n - 1, 0, -1):
        j = _below(state, i + 1)
        order[i], order[j] = order[j], order[i]
    return order


@njit(cache=True, nogil=True)
def _walk(graph, weight, hit, B, state, row):
    """One path from the start, each edge taken with probability ``w * B[target] / B[here]``;
    its placement labels written to ``row``."""
    layer_first, edge_first, target, label, jump = graph
    ncell = layer_first.shape[0] - 2
    placements = weight.shape[0] - 2
    s, i, k = 0, 0, 0
    while i < ncell:
        _open_empty(weight, i, hit)
        r = _below(state, B[s])
        for e in range(edge_first[s], edge_first[s + 1]):
            lab = label[e]
            w = weight[lab]
            if w == 0:
                continue
            x = w * B[target[e]]
            if r < x:
                break
            r -= x
        if lab < placements:
            row[k] = lab
            k += 1
        i = i + jump[lab]
        s = target[e]


@njit(cache=True, nogil=True)
def _draw(graph, weight, hit, values, scratch, state, out, flag):
    """Fill ``out`` (rows of placement labels) with paths drawn exactly in proportion to their weight.

    Returns (not stopped, some path exists); with no path ``out`` is untouched.
    """
    F, B = values
    (reached,) = scratch
    ncell = graph[0].shape[0] - 2
    end = graph[0][ncell]
    ok = _forward(graph, weight, hit, F, reached, flag)
    found = ok and F[end] > 0
    if found:
        ok = _backward(graph, weight, hit, F, B, reached, np.zeros(0, weight.dtype), flag)
        if ok:
            _clean_end(end, F, reached)
    elif ok:
        _clean(graph[0][ncell + 1], F, reached)
    for k in range(out.shape[0] if ok and found else 0):
        if k % 256 == 0 and flag[0]:
            ok = False
            break
        _walk(graph, weight, hit, B, state, out[k])
    return ok, found


@njit(cache=True, nogil=True)
def _to_placements(labels, owner, local, start, members, first_member, cells, state, out):
    """Rows of placement labels to rows of placements per ship: a ship that owns its label takes
    it; a class's other ships take the rest in a uniformly random order."""
    nclass = first_member.shape[0] - 1
    for k in range(labels.shape[0]):
        row = labels[k]
        for c in range(nclass):
            ships = members[first_member[c] : first_member[c + 1]]
            order = _shuffled(state, ships.shape[0])
            j = 0
            for q in range(row.shape[0]):
                lab = row[q]
                if lab // (2 * cells) != c:
                    continue
                s = owner[lab]
                if s < 0:
                    s = ships[order[j]]
                    j += 1
                out[k, s] = start[s] + local[lab]


def sample_by_sweep(
    rules: Rules, ev: Evidence, count: int, state: np.ndarray, stop: Stop | None = None
) -> np.ndarray | None:
    """``count`` layouts drawn exactly uniformly from those the evidence allows (rows of placements).

    ``state`` is a :mod:`battleship.rng` stream, advanced. None when the counts could pass 63
    bits (boards that large are sampled by rejection) ; an empty array when no layout fits.
    """
    board = setup(rules, ev, None, stop)
    if board.graph.open_total >= 2**62:
        return None
    labels = np.full((count, len(rules.fleet)), -1, dtype=np.int64)
    weight = board.weight.astype(np.int64)
    values, scratch = _buffers(board.graph, weight.dtype)
    ok, found = watched(
        _draw,
        _arrays(board.graph),
        weight,
        board.hit,
        values,
        scratch,
        state,
        labels,
        flag_of(stop),
        stop=stop,
    )
    if not ok:  # stopped midway
        if stop is not None:
            stop.check()
        raise RuntimeError("a draw stopped without a stop request")
    _give_back(board.graph, weight.dtype, (values, scratch))
    if not found:
        return np.zeros((0, len(rules.fleet)), dtype=np.int64)
    owner, local, members, first_member = _owners(rules, board)
    out = np.empty((count, len(rules.fleet)), dtype=np.int64)
    _to_placements(labels, owner, local, tables(rules).start, members, first_member, rules.cells, state, out)
    return out


def _owners(rules: Rules, board: Setup) -> tuple[np.ndarray, ...]:
    """Per label, the ship that owns it (-1: the class's common ships share it) and its placement's
    index within a ship's placements; the common ships of each class, flat."""
    t = tables(rules)
    f = frame(rules)
    shape = board.graph.shape
    owner = np.full(shape.labels, -1, dtype=np.int64)
    local = np.zeros(shape.labels, dtype=np.int64)
    for k, ship_class in enumerate(board.classes):
        for s in (*ship_class.own, *ship_class.common):
            block = np.arange(t.start[s], t.start[s] + t.count[s])
            labels = (2 * k + f.down[block].astype(np.int64)) * shape.cells + f.cell[block]
            local[labels] = block - t.start[s]
            if s in ship_class.own:
                owner[labels[board.v[block] > 0]] = s
    members = np.array([s for k in board.classes for s in k.common], dtype=np.int64)
    first_member = np.cumsum([0, *[len(k.common) for k in board.classes]]).astype(np.int64)
    return owner, local, members, first_member
