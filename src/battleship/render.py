"""Boards drawn for the terminal with Rich: layouts and board states, with row and column labels."""

from __future__ import annotations

from rich.text import Text

from battleship.cells import row_name

# Okabe-Ito colours: distinguishable with the common forms of colour blindness.
SHIP_COLOURS = ["#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7"]
STATE_STYLES = {".": "grey50", "o": "#56B4E9", "x": "bold #D55E00", "#": "bold white on #D55E00"}


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
