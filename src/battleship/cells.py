"""Squares and bitboards as plain integers.

A cell is an index ``row * cols + col`` with row 0 at the top and column 0 at the left (reading
order). A bitboard is a Python int whose bit ``i`` stands for cell ``i``. Names follow the
Milton Bradley board: a row letter from the top and a column number from the left (``B7``).
The Dunman High paper uses ``(x, y)`` with ``(1, 1)`` at the bottom-left.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from battleship.errors import BattleshipError

ROW_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
# strict: ASCII letters and digits only, no spaces, no leading zero (A1, not " A1", "A01" or "A١")
_NAME = re.compile(r"([A-Za-z]{1,2})([1-9][0-9]{0,2})")


def bit(cell: int) -> int:
    """The bitboard holding one cell."""
    return 1 << cell


def popcount(mask: int) -> int:
    """Number of cells in a bitboard."""
    return mask.bit_count()


def iter_cells(mask: int) -> Iterator[int]:
    """The cells of a bitboard in increasing order."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def row_name(row: int) -> str:
    """Row letters from the top: A..Z, then AA, AB, ... for taller boards."""
    if row < 26:
        return ROW_LETTERS[row]
    return ROW_LETTERS[row // 26 - 1] + ROW_LETTERS[row % 26]


def cell_name(cell: int, cols: int) -> str:
    """Milton Bradley name of a cell, like ``B7``."""
    row, col = divmod(cell, cols)
    return f"{row_name(row)}{col + 1}"


def parse_cell(text: str, rows: int, cols: int) -> int:
    """Read a cell name like ``B7`` (or ``b7``) on a board of the given size."""
    match = _NAME.fullmatch(text)
    if not match:
        raise BattleshipError(
            f"{text!r} is not a cell name: expected a row letter and a column number from 1, like B7"
        )
    letters, number = match.group(1).upper(), int(match.group(2))
    row = (
        ROW_LETTERS.index(letters)
        if len(letters) == 1
        else ((ROW_LETTERS.index(letters[0]) + 1) * 26 + ROW_LETTERS.index(letters[1]))
    )
    if not (0 <= row < rows) or not (1 <= number <= cols):
        raise BattleshipError(
            f"cell {text.strip()} is off the {rows}x{cols} board "
            f"(rows A..{row_name(rows - 1)}, columns 1..{cols})"
        )
    return row * cols + number - 1


def to_xy(cell: int, rows: int, cols: int) -> tuple[int, int]:
    """The paper's ``(x, y)``: column from the left, row from the bottom, both from 1."""
    row, col = divmod(cell, cols)
    return col + 1, rows - row


def from_xy(x: int, y: int, rows: int, cols: int) -> int:
    """The cell at the paper's ``(x, y)``."""
    if not (1 <= x <= cols and 1 <= y <= rows):
        raise BattleshipError(f"({x}, {y}) is off the {cols}x{rows} board (x in 1..{cols}, y in 1..{rows})")
    return (rows - y) * cols + x - 1


def neighbours(cell: int, rows: int, cols: int, diagonal: bool = False) -> list[int]:
    """Cells sharing an edge (and a corner when ``diagonal``), north first, then south, east, west."""
    row, col = divmod(cell, cols)
    steps = [(-1, 0), (1, 0), (0, 1), (0, -1)]
    if diagonal:
        steps += [(-1, -1), (-1, 1), (1, -1), (1, 1)]
    return [(row + dr) * cols + col + dc for dr, dc in steps if 0 <= row + dr < rows and 0 <= col + dc < cols]


def grow(mask: int, rows: int, cols: int, diagonal: bool) -> int:
    """The bitboard plus every cell next to it (by edge, and by corner when ``diagonal``)."""
    out = mask
    for cell in iter_cells(mask):
        for other in neighbours(cell, rows, cols, diagonal):
            out |= 1 << other
    return out


def checkerboard(rows: int, cols: int, colour: int = 0) -> int:
    """Cells with ``(row + col) % 2 == colour``."""
    mask = 0
    for row in range(rows):
        for col in range(cols):
            if (row + col) % 2 == colour:
                mask |= 1 << (row * cols + col)
    return mask
