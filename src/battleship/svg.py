"""Boards as SVG pictures, for notebooks (``_repr_svg_``) and web pages, as python-chess draws its boards.

One renderer, :func:`grid_svg`, draws any board of one-character cells (the layout and board-state
alphabets: ``.`` unknown or water, ``o`` miss, ``x`` hit, ``#`` sunk, a ship's letter) with row
letters down the side and column numbers along the top; given a grid of values it colours the
unknown cells by them on the viridis scale and adds the scale beside the board (the heat map).
Each cell is one ``<rect class="cell">``. Nothing here imports NumPy or the engines: the layers
above hand it plain grids.

Every picture paints its own background and gives every text its colour, so that it reads the same
on a light page and a dark one (a notebook's dark theme would otherwise draw black labels on black).
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from battleship.cells import row_name

CELL = 24  # pixels a side
MARGIN = 22  # room for the row letters and column numbers
LEGEND = 56  # room for the colour scale at the right of a heat map
# one palette for the notebook and the terminal (battleship.render reads it): Okabe-Ito ship colours,
# viridis for the heat map (readable with colour blindness and in grey)
SHIP_COLOURS = ["#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7"]
VIRIDIS = [
    "#440154",
    "#482878",
    "#3E4A89",
    "#31688E",
    "#26828E",
    "#1F9E89",
    "#35B779",
    "#6DCD59",
    "#B4DE2C",
    "#FDE725",
]
WATER = "#DCEBF5"
UNKNOWN = "#EEF1F4"
MISS = "#F8FAFC"
HIT = "#D55E00"
SUNK = "#7F2704"
FIRED = "#C9D3DD"
PAPER = "#FFFFFF"  # the picture's own background
INK = "#1F2933"  # titles, row letters, column numbers and the scale's figures


def heat_colour(value: float, top: float) -> str:
    """The viridis colour of ``value`` on a scale from 0 to ``top``."""
    if top <= 0:
        return VIRIDIS[0]
    step = int(value / top * (len(VIRIDIS) - 1) + 0.5)
    return VIRIDIS[max(0, min(len(VIRIDIS) - 1, step))]


def _cell_look(ch: str, symbols: str, ships_shown: bool) -> tuple[str, str, str]:
    """``(fill, glyph, glyph colour)`` of one cell. ``ships_shown``: letters are ships (a layout),
    not sunk ships on a board state."""
    if ch == ".":
        return (WATER if ships_shown else UNKNOWN), "", ""
    if ch == "o":
        return MISS, "\u2022", "#4A6B82"
    if ch == "x":
        return HIT, "\u00d7", "white"
    if ch == "#":
        return SUNK, "#", "white"
    if ch == "?":  # fired in a salvo answered whole: hit or miss is not known on its own
        return FIRED, "?", "#4A6B82"
    if ships_shown:
        index = symbols.find(ch)
        return SHIP_COLOURS[index % len(SHIP_COLOURS)] if index >= 0 else "#999999", ch, "black"
    return SUNK, ch, "white"


def grid_svg(
    grid: Sequence[Sequence[str]],
    symbols: str = "",
    ships_shown: bool = False,
    heat: Sequence[Sequence[float]] | None = None,
    framed: frozenset[int] = frozenset(),
    struck: frozenset[int] = frozenset(),
    title: str = "",
) -> str:
    """An SVG picture of a board of one-character cells.

    ``symbols``: the fleet's letters in fleet order (for the ship colours); ``ships_shown``: the
    letters are ships where they lie (a layout), else ships sunk (a board state). ``heat``: a value
    per cell (probabilities) colouring the unknown cells, with the scale drawn beside the board;
    ``framed``: cells outlined (the best shots); ``struck``: cells whose ship was hit (a record's
    layout: drawn as hits, keeping the ship's letter).
    """
    rows, cols = len(grid), len(grid[0])
    unknown = [heat[r][c] for r in range(rows) for c in range(cols) if grid[r][c] == "."] if heat else []
    top = max(unknown, default=0.0)
    width = MARGIN + cols * CELL + (LEGEND if heat is not None else 0) + 2
    height = MARGIN + rows * CELL + (18 if title else 0) + 2
    y0 = 18 if title else 0
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11" fill="{INK}">',
        f'<rect class="background" x="0" y="0" width="{width}" height="{height}" fill="{PAPER}"/>',
    ]
    if title:
        out.append(f'<text x="{MARGIN}" y="13" font-size="12" fill="{INK}">{escape(title)}</text>')
    for c in range(cols):
        x = MARGIN + c * CELL + CELL / 2
        out.append(f'<text x="{x:g}" y="{y0 + MARGIN - 7}" text-anchor="middle" fill="{INK}">{c + 1}</text>')
    for r in range(rows):
        y = y0 + MARGIN + r * CELL + CELL / 2 + 4
        out.append(f'<text x="{MARGIN - 5}" y="{y:g}" text-anchor="end" fill="{INK}">{row_name(r)}</text>')
        for c in range(cols):
            out.extend(_cell_svg(grid[r][c], r, c, cols, y0, symbols, ships_shown, heat, top, framed, struck))
    if heat is not None:
        out.extend(_legend(rows, cols, y0, top))
    out.append("</svg>")
    return "".join(out)


def _cell_svg(
    ch: str,
    r: int,
    c: int,
    cols: int,
    y0: int,
    symbols: str,
    ships_shown: bool,
    heat: Sequence[Sequence[float]] | None,
    top: float,
    framed: frozenset[int],
    struck: frozenset[int],
) -> list[str]:
    """One cell: its rect (with a tooltip naming it), then its glyph and frame if any."""
    x, y = MARGIN + c * CELL, y0 + MARGIN + r * CELL
    fill, glyph, ink = _cell_look(ch, symbols, ships_shown)
    name = f"{row_name(r)}{c + 1}"
    tip = name
    if heat is not None and ch == ".":
        fill = heat_colour(heat[r][c], top)
        tip = f"{name}: {100 * heat[r][c]:.1f}%"
    if r * cols + c in struck:
        fill, ink = HIT, "white"
    out = [
        f'<rect class="cell" x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{fill}" '
        f'stroke="#FFFFFF" stroke-width="1"><title>{tip}</title></rect>'
    ]
    if glyph:
        out.append(
            f'<text x="{x + CELL / 2:g}" y="{y + CELL / 2 + 4:g}" text-anchor="middle" fill="{ink}" '
            f'font-weight="bold">{escape(glyph)}</text>'
        )
    if r * cols + c in framed:
        out.append(
            f'<rect class="frame" x="{x + 1.5:g}" y="{y + 1.5:g}" width="{CELL - 3}" height="{CELL - 3}" '
            'fill="none" stroke="#E8175D" stroke-width="3"/>'
        )
    return out


def _legend(rows: int, cols: int, y0: int, top: float) -> list[str]:
    """The colour scale beside a heat map: from 0 at the bottom to the highest unknown cell at the top."""
    x = MARGIN + cols * CELL + 12
    y, height = y0 + MARGIN, rows * CELL
    stops = "".join(
        f'<stop offset="{i / (len(VIRIDIS) - 1):.3f}" stop-color="{colour}"/>'
        for i, colour in enumerate(reversed(VIRIDIS))
    )
    return [
        f'<defs><linearGradient id="scale" x1="0" y1="0" x2="0" y2="1">{stops}</linearGradient></defs>',
        f'<rect class="scale" x="{x}" y="{y}" width="12" height="{height}" fill="url(#scale)"/>',
        f'<text x="{x + 16}" y="{y + 9}" fill="{INK}">{100 * top:.0f}%</text>',
        f'<text x="{x + 16}" y="{y + height}" fill="{INK}">0%</text>',
    ]
