"""Boards drawn for the terminal with Rich: layouts and board states, with row and column labels."""

from __future__ import annotations

from rich.text import Text

from battleship.cells import row_name
from battleship.svg import SHIP_COLOURS, VIRIDIS  # one palette for the terminal and the notebook

# Okabe-Ito colours: distinguishable with the common forms of colour blindness.
STATE_STYLES = {
    ".": "grey50",
    "o": "#56B4E9",
    "x": "bold #D55E00",
    "#": "bold white on #D55E00",
    "?": "bold #4A6B82",  # fired in a salvo answered whole, its own answer unknown
}


def grid_text(grid: list[list[str]], symbols: str = "") -> Text:
    """A grid of one-character cells with A.. down the side and 1.. along the top."""
    rows, cols = len(grid), len(grid[0])
    width = len(str(cols)) + 1
    out = Text("   " + "".join(f"{c + 1:>{width}}" for c in range(cols)) + "\n", style="bold")
    for r, row in enumerate(grid):
        out.append(f"{row_name(r):>2} ", style="bold")
        for ch in row:
            style = STATE_STYLES.get(ch)
            if style is None:
                idx = symbols.find(ch)
                style = f"bold {SHIP_COLOURS[idx % len(SHIP_COLOURS)]}" if idx >= 0 else ""
            out.append(" " * (width - 1) + ch, style=style)
        if r < rows - 1:
            out.append("\n")
    return out


def heat_colour(value: float, top: float) -> str:
    """The viridis colour of ``value`` on a scale from 0 to ``top``."""
    if top <= 0:
        return VIRIDIS[0]
    return VIRIDIS[min(len(VIRIDIS) - 1, int(value / top * (len(VIRIDIS) - 1) + 0.5))]


def heat_text(
    probability, grid: list[list[str]], percent: bool = False, best: frozenset[int] = frozenset()
) -> Text:
    """A heat map of ``probability`` over the unknown (``.``) cells of ``grid``; shot cells keep their letters.

    With ``percent`` each unknown cell shows its probability in percent; the best cells are framed.
    """
    rows, cols = len(grid), len(grid[0])
    width = 5 if percent else 3
    unknown = [probability[r][c] for r in range(rows) for c in range(cols) if grid[r][c] == "."]
    top = max(unknown, default=0.0)
    out = Text("   " + "".join(f"{c + 1:^{width}}" for c in range(cols)) + "\n", style="bold")
    for r in range(rows):
        out.append(f"{row_name(r):>2} ", style="bold")
        for c in range(cols):
            ch = grid[r][c]
            cell = r * cols + c
            if ch != ".":
                out.append(f"{ch:^{width}}", style=STATE_STYLES.get(ch, "bold"))
                continue
            value = probability[r][c]
            colour = heat_colour(value, top)
            fg = "black" if VIRIDIS.index(colour) >= 6 else "white"
            label = f"{100 * value:.0f}" if percent else ""
            if cell in best:
                label = f"[{label or '*'}]"
            out.append(f"{label:^{width}}", style=f"bold {fg} on {colour}")
        if r < rows - 1:
            out.append("\n")
    return out
