"""Layout generators, selectable by name and seeded.

- ``uniform``: every valid layout equally likely. Each ship takes a uniformly random placement; if any
  two clash the whole layout is thrown away and drawn again. Accepted layouts are then exactly
  uniform over valid layouts (ships are labelled: the two 3-ships are different ships).
- ``sequential``: what most programs do: ship by ship, a random orientation and then a random
  position, retrying only that ship on a clash. Biased: ships placed later are pushed into the gaps.
- ``r-blog``: the R study's ``popGrid`` as written: a random direction, row and column over the whole board,
  kept only if ``col + size < ncol`` (or ``row + size < nrow``) and the cells are free. That test is
  two short of the board edge, so horizontal ships never use the last two columns and vertical ships
  never the last two rows.
"""

from __future__ import annotations

import numpy as np
from numba import prange

# the plans, in plain Python (`battleship layout` draws one without Numba), and so found here as before
from battleship.drawing import DEFAULT_STRENGTH as DEFAULT_STRENGTH
from battleship.drawing import GENERATORS as GENERATORS
from battleship.drawing import HUMAN as HUMAN
from battleship.drawing import MAX_STRENGTH as MAX_STRENGTH
from battleship.drawing import SHIP_TRIES
from battleship.drawing import Plan as Plan
from battleship.drawing import parse_generator as parse_generator
from battleship.drawing import plan as plan
from battleship.drawing import to_layout as to_layout
from battleship.errors import RulesError
from battleship.jit import njit
from battleship.layout import Layout
from battleship.rng import below, seed_words, stream, uniform
from battleship.rules import Rules
from battleship.tables import Tables, tables

# what draw_rows reads: the tables and a generator's plan (cells, halos, ship_groups, group_start,
# group_count, members, restart), and a human-like generator's (kind, strength, cell_list, size,
# rows, cols)
Drawing = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, bool]
Human = tuple[int, float, np.ndarray, np.ndarray, int, int]

_MAX_TRIES = 100_000_000  # tries at whole layouts, past which draw refuses the fleet as packed too tightly


@njit(cache=True, nogil=True)
def _clashes(cells: np.ndarray, p: int, blocked: np.ndarray) -> bool:
    for w in range(blocked.shape[0]):
        if cells[p, w] & blocked[w]:
            return True
    return False


@njit(cache=True, nogil=True)
def draw_into(
    state: np.ndarray,
    cells: np.ndarray,
    halos: np.ndarray,
    ship_groups: np.ndarray,
    group_start: np.ndarray,
    group_count: np.ndarray,
    members: np.ndarray,
    restart: bool,
    out_row: np.ndarray,
    blocked: np.ndarray,
) -> int:
    """Draw one layout into ``out_row`` (placement indices); returns tries used, or -1."""
    nships = ship_groups.shape[0] - 1
    tries = 0
    while tries < _MAX_TRIES:
        blocked[:] = 0
        ok = True
        for s in range(nships):
            placed = False
            ship_tries = 0
            while not placed:
                tries += 1
                g = ship_groups[s] + below(state, ship_groups[s + 1] - ship_groups[s])
                p = members[group_start[g] + below(state, group_count[g])]
                if not _clashes(cells, p, blocked):
                    placed = True
                    out_row[s] = p
                    for w in range(blocked.shape[0]):
                        blocked[w] |= halos[p, w]
                elif restart:
                    break
                else:
                    ship_tries += 1
                    if ship_tries > SHIP_TRIES:  # boxed in by earlier ships: start the layout again
                        break
            if not placed:
                ok = False
                break
        if ok:
            return tries
    return -1


@njit(cache=True, nogil=True)
def feature(
    kind: int, row: np.ndarray, cell_list: np.ndarray, size: np.ndarray, rows: int, cols: int
) -> float:
    """A human-like generator's feature of a layout, in [0, 1] (1: as edge-hugging, clustered or spread as can be)."""
    nships: int = row.shape[0]
    if kind == 1:  # edge: the share of ship cells on the board's rim
        rim = 0
        ship_cells = 0
        for s in range(nships):
            for k in range(size[s]):
                cell = cell_list[row[s], k]
                r, c = cell // cols, cell % cols
                ship_cells += 1
                if r == 0 or c == 0 or r == rows - 1 or c == cols - 1:
                    rim += 1
        return rim / ship_cells
    if kind == 2:  # clustered: one less the mean distance between ship centres over the diagonal
        cr = np.zeros(nships)
        cc = np.zeros(nships)
        for s in range(nships):
            for k in range(size[s]):
                cell = cell_list[row[s], k]
                cr[s] += cell // cols
                cc[s] += cell % cols
            cr[s] /= size[s]
            cc[s] /= size[s]
        total = 0.0
        pairs = 0
        for a in range(nships):
            for b in range(a + 1, nships):
                total += np.sqrt((cr[a] - cr[b]) ** 2 + (cc[a] - cc[b]) ** 2)
                pairs += 1
        diagonal: float = np.sqrt((rows - 1) ** 2 + (cols - 1) ** 2)
        return 1.0 - total / max(pairs, 1) / diagonal
    # spread: each ship's gap to its nearest neighbour (free cells between, king moves), averaged,
    # over a quarter of the board's side
    total = 0.0
    for a in range(nships):
        nearest = rows + cols
        for b in range(nships):
            if a == b:
                continue
            for i in range(size[a]):
                x = cell_list[row[a], i]
                for j in range(size[b]):
                    y = cell_list[row[b], j]
                    gap = max(abs(x // cols - y // cols), abs(x % cols - y % cols)) - 1
                    nearest = min(nearest, gap)
        total += nearest
    return min(1.0, total / nships / (max(rows, cols) / 4))


@njit(cache=True, nogil=True)
def draw_rows(
    out: np.ndarray, seed: np.uint64, first: np.uint64, nwords: int, drawing: Drawing, human: Human
) -> None:
    """Fill ``out`` (rows of placement indices) with layouts ``first ..``; a failed row gets -1.

    ``drawing``: (cells, halos, ship_groups, group_start, group_count, members, restart), the tables
    and the plan; ``human``: (kind, strength, cell_list, size, rows, cols), kind 0 keeping every layout.
    """
    cells, halos, ship_groups, group_start, group_count, members, restart = drawing
    kind, strength, cell_list, size, rows, cols = human
    blocked = np.zeros(nwords, dtype=np.uint64)
    for i in range(out.shape[0]):
        state = stream(seed, first + i)
        while True:
            tries = draw_into(
                state, cells, halos, ship_groups, group_start, group_count, members, restart, out[i], blocked
            )
            if tries < 0:
                out[i, 0] = -1
                break
            f = feature(kind, out[i], cell_list, size, rows, cols) if kind else 1.0
            if kind == 0 or uniform(state) < np.exp(strength * (f - 1)):
                break


BLOCK = 4096  # layouts a thread draws at a time


@njit(cache=True, parallel=True)
def _draw_batch(
    out: np.ndarray, seed: np.uint64, first: np.uint64, nwords: int, drawing: Drawing, human: Human
) -> None:
    for b in prange((out.shape[0] + BLOCK - 1) // BLOCK):
        lo = b * BLOCK
        hi = min(lo + BLOCK, out.shape[0])
        draw_rows(out[lo:hi], seed, first + lo, nwords, drawing, human)


def draw(
    rules: Rules, generator: str, seed: int, count: int, first: int = 0, threads: bool = True
) -> np.ndarray:
    """``count`` layouts as rows of placement indices; layout ``i`` comes from stream ``first + i``.

    ``generator`` is a name, with ``:strength=S`` for the human-like ones. ``threads=False`` stays
    on the calling thread (for callers that run their own threads).
    """
    name, strength = parse_generator(generator)
    t, p = tables(rules), plan(rules, name)
    human = (HUMAN.get(name, 0), float(strength), t.cell_list, t.size, rules.rows, rules.cols)
    out = np.empty((int(count), len(rules.fleet)), dtype=np.int64)
    # one block is one thread's work either way: without the threads, the same rows without starting
    # Numba's thread pool (a tenth of a second of `battleship layout`'s first run)
    kernel = _draw_batch if threads and count > BLOCK else draw_rows
    drawing = (t.cells, t.halos, p.ship_groups, p.group_start, p.group_count, p.members, p.restart_on_clash)
    kernel(out, np.uint64(seed_words(seed)), np.uint64(first), t.nwords, drawing, human)
    if count and (out[:, 0] < 0).any():
        raise RulesError(
            f"the {generator} generator found no layout within {_MAX_TRIES:,} tries: the fleet is packed "
            "too tightly for rejection sampling on this board"
        )
    return out


def to_indices(rules: Rules, layouts: list[Layout]) -> np.ndarray:
    """Layouts as rows of placement indices (the inverse of :func:`~battleship.drawing.to_layout`)."""
    t = tables(rules)
    index = [{m: int(t.start[s]) + i for i, m in enumerate(ms)} for s, ms in enumerate(rules.placements)]
    return np.array(
        [[index[s][m] for s, m in enumerate(layout.masks)] for layout in layouts], dtype=np.int64
    ).reshape(-1, len(rules.fleet))


def generate(rules: Rules, generator: str = "uniform", seed: int = 0, count: int = 1) -> list[Layout]:
    """``count`` seeded layouts from a named generator."""
    return [to_layout(rules, row) for row in draw(rules, generator, seed, count)]


@njit(cache=True, nogil=True)
def _format(
    indices: np.ndarray,
    cell_list: np.ndarray,
    size: np.ndarray,
    ship_of: np.ndarray,
    symbols: np.ndarray,
    rows: int,
    cols: int,
) -> np.ndarray:
    width = rows * cols + rows  # cells, a '/' between rows, and the newline
    out = np.empty(indices.shape[0] * width, dtype=np.uint8)
    for i in range(indices.shape[0]):
        base = i * width
        for r in range(rows):
            for c in range(cols):
                out[base + r * (cols + 1) + c] = 46  # '.'
            out[base + r * (cols + 1) + cols] = 47  # '/'
        out[base + width - 1] = 10  # '\n'
        for s in range(indices.shape[1]):
            p = indices[i, s]
            ship = ship_of[p]
            for k in range(size[ship]):
                cell = cell_list[p, k]
                out[base + (cell // cols) * (cols + 1) + cell % cols] = symbols[ship]
    return out


def format_lines(rules: Rules, indices: np.ndarray) -> bytes:
    """Layouts (rows of placement indices) in the one-line layout format, one per line."""
    t: Tables = tables(rules)
    text: np.ndarray = _format(indices, t.cell_list, t.size, t.ship_of, t.symbols, rules.rows, rules.cols)
    return text.tobytes()
