"""A layout: where every ship of the fleet lies. Validated on construction."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from battleship.cells import CellLike, cell_name, iter_cells, to_cell
from battleship.errors import LayoutError, NotationError
from battleship.rules import Rules, Spacing


@lru_cache(maxsize=256)
def _halo_of(rules: Rules) -> tuple[dict[int, int], ...]:
    """Per ship, each valid placement mapped to its halo."""
    return tuple(dict(zip(ms, hs, strict=True)) for ms, hs in zip(rules.placements, rules.halos, strict=True))


def _names(mask: int, cols: int) -> str:
    return ", ".join(cell_name(c, cols) for c in iter_cells(mask))


@dataclass(frozen=True)
class Layout:
    """Where every ship lies: one bitboard per ship, in fleet order.

    Building one checks each ship's shape, overlaps and the spacing rule; :meth:`from_text` reads one
    and :func:`battleship.generate <battleship.api.generate>` draws one at random.

    Parameters
    ----------
    rules : Rules
        The rules it is a layout of.
    masks : tuple of int
        Each ship's cells as a bitboard (bit ``row * cols + col``), in fleet order.

    Raises
    ------
    LayoutError
        A ship of the wrong shape, two ships overlapping or too close, naming the ships and cells.

    Examples
    --------
    >>> import battleship as bs
    >>> rules = bs.preset("standard")
    >>> layout = bs.Layout.from_text("CCCCC...../BBBB....../DDD......./SSS......./PP......../"
    ...                              "........../........../........../........../..........", rules)
    >>> layout
    <Layout standard 10x10: C A1-A5, B B1-B4, D C1-C3, S D1-D3, P E1-E2>
    >>> layout.ship_at("B2"), layout.ship_at("J10")
    (1, None)
    """

    rules: Rules
    masks: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "masks", tuple(int(m) for m in self.masks))
        check(self.rules, self.masks)

    @property
    def occupied(self) -> int:
        """Bitboard of every ship cell."""
        out = 0
        for mask in self.masks:
            out |= mask
        return out

    def ship_at(self, cell: CellLike) -> int | None:
        """Fleet index of the ship on ``cell`` (``"E5"``, ``(4, 4)`` or ``44``), or None for water."""
        cell = to_cell(cell, self.rules)
        for i, mask in enumerate(self.masks):
            if mask >> cell & 1:
                return i
        return None

    @classmethod
    def from_text(cls, text: str, rules: Rules) -> Layout:
        """A layout from its text (``.`` water, a ship's letter on its cells, rows joined by ``/``, or one row a line)."""
        rows = split_rows(text, rules, "layout")
        masks = [0] * len(rules.fleet)
        for r, (row, line, col) in enumerate(rows):
            for c, ch in enumerate(row):
                if ch == ".":
                    continue
                idx = rules.symbols.find(ch)
                if idx < 0 or ch == "":
                    raise NotationError(
                        f"{ch!r} is not '.' (water) or a ship letter of {rules.symbols}", line, col + c
                    )
                masks[idx] |= 1 << (r * rules.cols + c)
        for ship, mask in zip(rules.fleet, masks, strict=True):
            if not mask:
                raise NotationError(f"the layout has no {ship.name} ({ship.symbol})")
        return cls(rules, tuple(masks))

    def text(self, multiline: bool = False) -> str:
        """The layout's text, which :meth:`from_text` reads back."""
        return ("\n" if multiline else "/").join("".join(row) for row in self.grid())

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        cols = self.rules.cols
        ships = ", ".join(
            f"{ship.symbol} {cell_name(low.bit_length() - 1, cols)}-{cell_name(mask.bit_length() - 1, cols)}"
            for ship, mask in zip(self.rules.fleet, self.masks, strict=True)
            for low in (mask & -mask,)
        )
        return f"<Layout {self.rules.name} {self.rules.rows}x{cols}: {ships}>"

    def _repr_svg_(self) -> str:
        """The layout drawn, for notebooks."""
        from battleship.svg import grid_svg

        return grid_svg(self.grid(), self.rules.symbols, ships_shown=True)

    def grid(self) -> list[list[str]]:
        """Rows of one-character strings: ``.`` water or the ship's symbol."""
        rules = self.rules
        out = [["."] * rules.cols for _ in range(rules.rows)]
        for ship, mask in zip(rules.fleet, self.masks, strict=True):
            for cell in iter_cells(mask):
                out[cell // rules.cols][cell % rules.cols] = ship.symbol
        return out


def check(rules: Rules, masks: tuple[int, ...]) -> None:
    """Raise :class:`~battleship.errors.LayoutError` naming the ships and cells when a layout breaks the rules."""
    if len(masks) != len(rules.fleet):
        raise LayoutError(f"the layout places {len(masks)} ships but the fleet has {len(rules.fleet)}")
    halos = _halo_of(rules)
    for ship, mask, allowed in zip(rules.fleet, masks, halos, strict=True):
        if mask < 0 or mask >> rules.cells:
            raise LayoutError(f"{ship.name} lies off the {rules.rows}x{rules.cols} board")
        if mask not in allowed:
            found = _names(mask, rules.cols) or "no cells"
            raise LayoutError(
                f"{ship.name} ({ship.symbol}) at {found} is not a {ship.size}-cell {ship.name} placement"
                + (" (straight, horizontal or vertical)" if ship.is_straight else "")
            )
    for i, a in enumerate(masks):
        for j in range(i + 1, len(masks)):
            b = masks[j]
            first, second = rules.fleet[i], rules.fleet[j]
            if a & b:
                raise LayoutError(f"{first.name} and {second.name} overlap at {_names(a & b, rules.cols)}")
            if rules.spacing is not Spacing.TOUCH and a & halos[j][b]:
                what = "share an edge" if rules.spacing is Spacing.NO_EDGE else "touch"
                raise LayoutError(
                    f"{first.name} at {_names(a, rules.cols)} and {second.name} at {_names(b, rules.cols)} "
                    f"{what}, which spacing {rules.spacing.value} forbids"
                )


# --- rows of one character per cell: the layout and board-state texts ---------------------------


def split_rows(text: str, rules: Rules, what: str) -> list[tuple[str, int, int]]:
    """Split text into ``(row, line, column of its first cell)``, checking the board's shape.

    One line holds every row joined by ``/``; several lines hold one row each.
    """
    lines = [(n, line) for n, line in enumerate(text.split("\n"), 1) if line.strip()]
    rows: list[tuple[str, int, int]] = []
    if len(lines) == 1:
        n, line = lines[0]
        col = len(line) - len(line.lstrip()) + 1
        body = line.strip()
        for part in body[:-1].split("/") if body.endswith("/") else body.split("/"):
            rows.append((part, n, col))
            col += len(part) + 1
    else:
        for n, line in lines:
            body = line.strip()
            rows.append((body[:-1] if body.endswith("/") else body, n, len(line) - len(line.lstrip()) + 1))
    if len(rows) != rules.rows:
        raise NotationError(
            f"{what} has {len(rows)} rows, expected {rules.rows} for a {rules.rows}x{rules.cols} board",
            rows[-1][1] if rows else 1,
        )
    for i, (cells, line_number, col) in enumerate(rows):
        if len(cells) != rules.cols:
            raise NotationError(
                f"row {i + 1} of the {what} has {len(cells)} cells, expected {rules.cols}", line_number, col
            )
    return rows
