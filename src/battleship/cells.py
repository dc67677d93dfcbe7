"""Squares and bitboards as plain integers.

A cell is an index ``row * cols + col`` with row 0 at the top and column 0 at the left (reading
order). A bitboard is a Python int whose bit ``i`` stands for cell ``i``. Names follow the
Milton Bradley board: a row letter from the top and a column number from the left (``B7``).
The Dunman High paper uses ``(x, y)`` with ``(1, 1)`` at the bottom-left.

Wherever the Python API takes a cell it takes it any usual way (:data:`CellLike`): a name
(``"E5"`` or ``"e5"``), a ``(row, col)`` pair from 0, or the index (``44``); :func:`to_cell` reads
all three, and refuses ``True``/``False``, which Python would otherwise take for 1 and 0. Where it
hands cells back to a person (:meth:`battleship.inference.Posterior.best`) they are :class:`Cell`:
the index, which prints as its name.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Iterator
from typing import Protocol, TypeAlias

from battleship.errors import BattleshipError

CellLike: TypeAlias = int | str | tuple[int, int]
"""A cell as the Python API takes it: a name (``"E5"``, ``"e5"``), a ``(row, col)`` pair from 0, or
the index ``row * cols + col`` (an ``int``, NumPy integers too)."""


class Board(Protocol):
    """Anything with a board size (:class:`battleship.rules.Rules`)."""

    @property
    def rows(self) -> int: ...

    @property
    def cols(self) -> int: ...


ROW_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
# strict: ASCII letters and digits only, no spaces, no leading zero (A1, not " A1", "A01" or "A١")
_NAME = re.compile(r"([A-Za-z]{1,2})([1-9][0-9]{0,2})")


class Cell(int):
    """A cell index that knows its board's width, so that it prints as its name.

    It is the plain index for everything else: it compares, hashes, indexes and counts as the
    ``int`` it is (``Cell(55, 10) == 55``), so code that reads cells as ints reads it unchanged;
    arithmetic on it gives plain ints.

    Parameters
    ----------
    index : int
        The cell, ``row * cols + col``.
    cols : int
        The number of columns of its board.

    Examples
    --------
    >>> cell = Cell(55, 10)
    >>> cell
    F6
    >>> cell == 55, cell.name, f"fire at {cell}", cell + 1
    (True, 'F6', 'fire at F6', 56)
    """

    cols: int

    def __new__(cls, index: int, cols: int) -> Cell:
        cell = super().__new__(cls, index)
        cell.cols = cols
        return cell

    @property
    def name(self) -> str:
        """The cell's name, like ``F6``."""
        return cell_name(int(self), self.cols)

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__

    def __reduce__(self) -> tuple[type[Cell], tuple[int, int]]:
        return (Cell, (int(self), self.cols))


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


def cell_name(cell: CellLike, board: Board | int) -> str:
    """The Milton Bradley name of a cell, like ``B7``: a row letter from the top, a column from 1.

    Parameters
    ----------
    cell : CellLike
        The cell: given the rules, any form, checked against the board; given a column count (the
        form the engines use), its index.
    board : Rules or int
        The rules, or the board's number of columns.

    Returns
    -------
    str
        The name (rows past Z are AA, AB, ...).

    Examples
    --------
    >>> import battleship as bs
    >>> bs.cell_name(16, bs.preset("standard")), bs.cell_name((4, 4), bs.preset("standard"))
    ('B7', 'E5')
    >>> bs.cell_name(16, 10)
    'B7'
    """
    if isinstance(board, int):
        row, col = divmod(cell, board) if isinstance(cell, int) else divmod(_index_of(cell), board)
    else:
        row, col = divmod(to_cell(cell, board), board.cols)
    return f"{row_name(row)}{col + 1}"


def _index_of(value: object, allowed: str = "give a name like 'E5', (row, col) or an index") -> int:
    """An int-like value as an int (NumPy integers too), refusing bools (which Python counts as 0 and 1)."""
    if isinstance(value, bool):
        raise BattleshipError(f"cell {value!r} is a bool, not a cell: {allowed}")
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise BattleshipError(f"cell {value!r} is not a cell: {allowed}") from None


def _shape(board: Board | int, cols: int | None) -> tuple[int, int]:
    """``(rows, cols)`` from rules (anything with ``rows`` and ``cols``) or from the two counts."""
    if isinstance(board, int):
        if cols is None:
            raise BattleshipError("give the rules, or the numbers of rows and columns")
        return board, cols
    return board.rows, board.cols


def allowed(rows: int, cols: int) -> str:
    """What a cell on a ``rows`` x ``cols`` board may be, for messages."""
    return (
        f"use A1..{row_name(rows - 1)}{cols}, (row, col) with 0 <= row < {rows} and 0 <= col < {cols}, "
        f"or 0..{rows * cols - 1}"
    )


def to_cell(value: CellLike, board: Board | int, cols: int | None = None) -> int:
    """The index of a cell given any usual way, checked to be on the board: the one reader of cells.

    Parameters
    ----------
    value : CellLike
        A name (``"E5"``, ``"e5"``), a ``(row, col)`` pair from 0, or the index (NumPy integers too).
    board : Rules or int
        The rules, or the number of rows (then ``cols`` too).
    cols : int, optional
        The number of columns, when ``board`` is the number of rows.

    Returns
    -------
    int
        ``row * cols + col``.

    Raises
    ------
    BattleshipError
        Anything else, a bool included, or a cell off the board, in one line naming the value and
        what is allowed.

    Examples
    --------
    >>> import battleship as bs
    >>> rules = bs.preset("standard")
    >>> bs.to_cell("E5", rules), bs.to_cell("e5", rules), bs.to_cell((4, 4), rules), bs.to_cell(44, rules)
    (44, 44, 44, 44)
    >>> bs.to_cell("K1", rules)
    Traceback (most recent call last):
    ...
    battleship.errors.BattleshipError: cell 'K1' is off the 10x10 board: use A1..J10, (row, col) with 0 <= row < 10 and 0 <= col < 10, or 0..99
    """
    rows, cols = _shape(board, cols)
    if type(value) is int and 0 <= value < rows * cols:  # the engines' hot path
        return value
    if isinstance(value, str):
        return _parse(value, rows, cols, strict=False)
    if isinstance(value, tuple):
        if len(value) != 2 or any(isinstance(v, bool) for v in value):
            raise BattleshipError(f"cell {value!r} is not a cell: {allowed(rows, cols)}")
        try:
            row, col = (operator.index(v) for v in value)
        except TypeError:
            raise BattleshipError(f"cell {value!r} is not a cell: {allowed(rows, cols)}") from None
        if not (0 <= row < rows and 0 <= col < cols):
            raise BattleshipError(f"cell {value!r} is off the {rows}x{cols} board: {allowed(rows, cols)}")
        return row * cols + col
    index = _index_of(value, allowed(rows, cols))
    if not 0 <= index < rows * cols:
        raise BattleshipError(f"cell {value!r} is off the {rows}x{cols} board: {allowed(rows, cols)}")
    return index


def parse_cell(text: str, board: Board | int, cols: int | None = None) -> int:
    """Read a cell name like ``B7`` (or ``b7``), strictly: a name only, as files and bots write it
    (:func:`to_cell` takes any form).

    Parameters
    ----------
    text : str
        The name.
    board : Rules or int
        The rules, or the number of rows (then ``cols`` too).
    cols : int, optional
        The number of columns, when ``board`` is the number of rows.

    Returns
    -------
    int
        The cell's index.

    Raises
    ------
    BattleshipError
        Not a name, or off the board.

    Examples
    --------
    >>> import battleship as bs
    >>> bs.parse_cell("B7", bs.preset("standard")), bs.parse_cell("b7", 10, 10)
    (16, 16)
    """
    rows, cols = _shape(board, cols)
    if not isinstance(text, str):
        raise BattleshipError(f"{text!r} is not a cell name: expected text like B7")
    return _parse(text, rows, cols, strict=True)


def _parse(text: str, rows: int, cols: int, strict: bool) -> int:
    """A cell name on a ``rows`` x ``cols`` board; ``strict``: the messages the file readers give."""
    match = _NAME.fullmatch(text if strict else text.strip())
    if not match and not strict:
        raise BattleshipError(f"cell {text!r} is not a cell name: {allowed(rows, cols)}")
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
        if not strict:
            raise BattleshipError(f"cell {text!r} is off the {rows}x{cols} board: {allowed(rows, cols)}")
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
