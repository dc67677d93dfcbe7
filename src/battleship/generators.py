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

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numba import prange

from battleship import shapes
from battleship.errors import RulesError
from battleship.jit import njit
from battleship.layout import Layout
from battleship.rng import below, seed_words, stream, uniform
from battleship.rules import Rules, Spacing
from battleship.tables import Tables, tables

# what draw_rows reads: the tables and a generator's plan (cells, halos, ship_groups, group_start,
# group_count, members, restart), and a human-like generator's (kind, strength, cell_list, size,
# rows, cols)
Drawing = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, bool]
Human = tuple[int, float, np.ndarray, np.ndarray, int, int]

GENERATORS = {
    "uniform": "every valid layout equally likely (whole-layout rejection)",
    "sequential": "ship by ship: random orientation, random position, retry the ship on a clash (biased)",
    "r-blog": "The R study's popGrid as written, with its edge off-by-one (biased)",
    "contest": "the C# Pirates contest organiser's board filler: ship by ship, a random direction, "
    "a start that never reaches the last row or column (biased)",
    "edge": "human-like: ships hug the edges (strength=S, default 3)",
    "clustered": "human-like: ships huddle together (strength=S, default 3)",
    "spread": "human-like: ships kept apart from each other (strength=S, default 3)",
}
# human-like generators: a uniform layout is kept with probability exp(strength * (feature - 1)),
# so P(layout) is proportional to exp(strength * feature) over valid layouts (feature in [0, 1])
HUMAN = {"edge": 1, "clustered": 2, "spread": 3}
DEFAULT_STRENGTH = 3.0
MAX_STRENGTH = 12.0

_MAX_TRIES = 100_000_000


@dataclass(frozen=True, eq=False)
class Plan:
    """How one generator draws each ship: a list of groups per ship, a group then a member."""

    ship_groups: np.ndarray  # (S+1,) offsets into the group arrays
    group_start: np.ndarray  # (G,) offsets into members
    group_count: np.ndarray  # (G,)
    members: np.ndarray  # placement indices (may repeat, to weight a placement)
    restart_on_clash: bool


def _plan(groups_per_ship: list[list[list[int]]], restart: bool) -> Plan:
    ship_groups: list[int] = [0]
    group_start: list[int] = []
    group_count: list[int] = []
    members: list[int] = []
    for groups in groups_per_ship:
        for group in groups:
            group_start.append(len(members))
            group_count.append(len(group))
            members.extend(group)
        ship_groups.append(len(group_start))

    def as_int(values: list[int]) -> np.ndarray:
        return np.array(values, dtype=np.int64)

    return Plan(as_int(ship_groups), as_int(group_start), as_int(group_count), as_int(members), restart)


def parse_generator(spec: str) -> tuple[str, float]:
    """``"edge:strength=2"`` -> ``("edge", 2.0)``; the strength is 0 for the unbiased generators."""
    name, _, rest = spec.partition(":")
    name = name.strip()
    if name not in GENERATORS:
        raise RulesError(f"no layout generator named {name!r}; choose one of {', '.join(GENERATORS)}")
    strength = DEFAULT_STRENGTH if name in HUMAN else 0.0
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, value = item.partition("=")
        if key.strip() != "strength" or not eq or name not in HUMAN:
            raise RulesError(f"generator {spec!r}: only edge, clustered and spread take strength=S")
        try:
            strength = float(value)
        except ValueError:
            raise RulesError(f"generator {spec!r}: strength must be a number, not {value!r}") from None
        if not 0 <= strength <= MAX_STRENGTH:
            raise RulesError(f"generator {spec!r}: strength runs from 0 to {MAX_STRENGTH:g}")
    return name, strength


@lru_cache(maxsize=64)
def plan(rules: Rules, generator: str) -> Plan:
    """The draw plan of a named generator for these rules (human-like ones draw uniformly, then filter)."""
    t = tables(rules)
    starts = [int(s) for s in t.start]
    generator = parse_generator(generator)[0]
    if generator == "uniform" or generator in HUMAN:
        return _plan([[list(range(s, s + int(c)))] for s, c in zip(starts, t.count, strict=True)], True)
    if generator == "sequential":
        groups = []
        for s, ship in enumerate(rules.fleet):
            index = {m: starts[s] + i for i, m in enumerate(rules.placements[s])}
            per_orientation = [
                [index[m] for m in shapes.translations(shape, rules.rows, rules.cols)]
                for shape in shapes.orientations(ship.cells, rules.reflections)
            ]
            groups.append([g for g in per_orientation if g])
        return _plan(groups, False)
    if generator == "r-blog":
        return _plan(_r_blog_groups(rules), False)
    if generator == "contest":
        return _plan(_contest_groups(rules), False)
    raise RulesError(f"no layout generator named {generator!r}; choose one of {', '.join(GENERATORS)}")


def _straight_index(rules: Rules, ship: int, generator: str) -> dict[int, int]:
    """A straight ship's placements by bitboard (their indices in the tables); others are refused."""
    if not rules.fleet[ship].is_straight:
        name = rules.fleet[ship].name
        raise RulesError(f"the {generator} generator places straight ships only; {name} is not straight")
    start = int(tables(rules).start[ship])
    return {m: start + i for i, m in enumerate(rules.placements[ship])}


def _r_blog_groups(rules: Rules) -> list[list[list[int]]]:
    """Every (direction, row, col) that the R study's test accepts, as placements, one group per ship."""
    if rules.spacing is not Spacing.TOUCH:
        raise RulesError(
            "the r-blog generator lets ships touch; it cannot place ships under spacing "
            + rules.spacing.value
        )
    out = []
    for s, ship in enumerate(rules.fleet):
        index = _straight_index(rules, s, "r-blog")
        size, group = ship.size, []
        for row in range(rules.rows):
            for col in range(rules.cols):
                if col + 1 + size < rules.cols:  # R: col+ship.sizes[k] < ncol(grid), 1-based col
                    group.append(index[sum(1 << (row * rules.cols + col + i) for i in range(size))])
                if row + 1 + size < rules.rows:  # R: row+ship.sizes[k] < nrow(grid)
                    group.append(index[sum(1 << ((row + i) * rules.cols + col) for i in range(size))])
        if not group:
            raise RulesError(
                f"The R study's placement test never accepts {ship.name} (size {size}) on a "
                f"{rules.rows}x{rules.cols} board: it needs size + 2 cells of room"
            )
        out.append([group])
    return out


def _contest_groups(rules: Rules) -> list[list[list[int]]]:
    """The NBattleshipCodingContest ``RandomBoardFiller``'s draw, one group per direction per ship.

    Each try picks a direction, then a start along the ship's axis as ``rand.Next(side - length)``
    (so the last start that fits is never drawn: horizontal ships never reach the last column,
    vertical ones never the last row) and across it as ``rand.Next(side)``; a try that breaks the
    spacing rule is drawn again. Ships are drawn in fleet order (the contest's 5, 4, 3, 3, 2 is the
    standard fleet's order). Under the ``pirates`` rules this is the contest's own generator.
    """
    out = []
    for s, ship in enumerate(rules.fleet):
        index = _straight_index(rules, s, "contest")
        size = ship.size
        across = [
            index[sum(1 << (r * rules.cols + c + i) for i in range(size))]
            for r in range(rules.rows)
            for c in range(max(1, rules.cols - size))
            if c + size <= rules.cols
        ]
        down = [
            index[sum(1 << ((r + i) * rules.cols + c) for i in range(size))]
            for r in range(max(1, rules.rows - size))
            for c in range(rules.cols)
            if r + size <= rules.rows
        ]
        groups = [g for g in (across, down) if g]
        if not groups:
            raise RulesError(f"the contest generator cannot place {ship.name} on this board")
        out.append(groups)
    return out


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
                    if ship_tries > 100_000:  # boxed in by earlier ships: start the layout again
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


def to_layout(rules: Rules, row: np.ndarray) -> Layout:
    """A row of placement indices as a :class:`~battleship.layout.Layout`."""
    masks = tables(rules).masks
    return Layout(rules, tuple(masks[int(p)] for p in row))


def to_indices(rules: Rules, layouts: list[Layout]) -> np.ndarray:
    """Layouts as rows of placement indices (the inverse of :func:`to_layout`)."""
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
