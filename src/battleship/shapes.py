"""Ship shapes (polyominoes) and where they fit on a board."""

from __future__ import annotations

from functools import lru_cache

Cells = tuple[tuple[int, int], ...]


def normalise(cells: Cells) -> Cells:
    """Shift a shape so its top-left bounding corner is (0, 0), cells sorted."""
    top = min(r for r, _ in cells)
    left = min(c for _, c in cells)
    return tuple(sorted((r - top, c - left) for r, c in cells))


def line(length: int) -> Cells:
    """A straight horizontal ship of the given length."""
    return tuple((0, c) for c in range(length))


def is_connected(cells: Cells) -> bool:
    """True when every cell of the shape can reach every other by edge steps."""
    todo, seen = [cells[0]], {cells[0]}
    cell_set = set(cells)
    while todo:
        r, c = todo.pop()
        for nxt in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if nxt in cell_set and nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return len(seen) == len(cells)


def orientations(cells: Cells, reflections: bool) -> list[Cells]:
    """All distinct rotations of a shape (and mirror images when ``reflections``), sorted."""
    found: set[Cells] = set()
    shape = normalise(cells)
    for mirror in (False, True) if reflections else (False,):
        current = tuple((r, -c) for r, c in shape) if mirror else shape
        for _ in range(4):
            found.add(normalise(current))
            current = tuple((c, -r) for r, c in current)
    return sorted(found)


def extent(cells: Cells) -> tuple[int, int]:
    """Height and width of the bounding box."""
    return max(r for r, _ in cells) + 1, max(c for _, c in cells) + 1


def translations(shape: Cells, rows: int, cols: int) -> list[int]:
    """Bitboards of one orientation at every position that fits, anchors in reading order."""
    height, width = extent(shape)
    out = []
    for top in range(rows - height + 1):
        for left in range(cols - width + 1):
            mask = 0
            for r, c in shape:
                mask |= 1 << ((top + r) * cols + left + c)
            out.append(mask)
    return out


@lru_cache(maxsize=4096)
def placements(cells: Cells, rows: int, cols: int, reflections: bool) -> tuple[int, ...]:
    """Bitboards of every placement: orientation by orientation, anchors in reading order."""
    return tuple(m for shape in orientations(cells, reflections) for m in translations(shape, rows, cols))


def minkowski_size(cells: Cells, block: Cells) -> int:
    """Number of cells in the shape swept by a small block (used for packing bounds)."""
    return len({(r + dr, c + dc) for r, c in cells for dr, dc in block})


def render(cells: Cells, fill: str = "#") -> str:
    """A shape drawn as rows of ``#`` and ``.`` joined by ``/``."""
    height, width = extent(cells)
    grid = [["."] * width for _ in range(height)]
    for r, c in cells:
        grid[r][c] = fill
    return "/".join("".join(row) for row in grid)


def parse(text: str) -> Cells:
    """Read a shape drawn as rows of ``#`` (ship) and ``.`` (gap) separated by ``/``."""
    cells = tuple(
        (r, c)
        for r, row in enumerate(text.strip().split("/"))
        for c, ch in enumerate(row.strip())
        if ch == "#"
    )
    bad = set(text) - set("#./ \n")
    if bad:
        raise ValueError(
            f"shape {text!r} has {sorted(bad)[0]!r}: use '#' for ship cells, '.' for gaps, '/' between rows"
        )
    if not cells:
        raise ValueError(f"shape {text!r} has no '#' cells")
    return normalise(cells)
